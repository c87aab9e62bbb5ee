//! The computer players' searches: a fixed pool of worker threads and one
//! queue, so that however many games wait for a computer move, the server
//! runs at most `threads` searches at once. The queue ([`queue`]) is shared
//! fairly between client addresses: a worker takes the oldest job of the
//! next address in turn, so one address with twenty slow games waiting
//! makes another person wait for one search at most, not twenty. Game moves
//! go before analyses, and analyses take half the threads at most.
//!
//! Players live in the workers, not in the games: each worker keeps one
//! player per spec it has been asked for (created and started on first use,
//! which allocates its tables), and reuses it for every game, calling
//! `new_game` when it switches games. Player memory is therefore bounded by
//! `threads × specs offered`, whatever the number of games.
//!
//! A job carries a [`Stop`] flag: the hub raises it when the game ends or is
//! dropped, and a job still in the queue is then skipped, a running one
//! returns within milliseconds. A panic inside a search is caught here; that
//! job reports a failure and the worker goes on with the next one.

mod queue;

use queue::Queue;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;
use yolah::{Move, Position};
use yolah_players::solve::{self, Solver};
use yolah_players::{from_spec, Budget, GameClock, Player, Stop};

/// Time a computer keeps in hand for the move to reach the server and its
/// players when it spends its clock.
const MOVE_OVERHEAD: Duration = Duration::from_millis(50);
/// Free squares at most for an analysis to ask the exact solver as well.
const SOLVE_FREE_SQUARES: u32 = 18;

/// What a search is for.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    /// A computer's move in a game.
    Move {
        /// The game.
        game: u64,
    },
    /// An analysis a connection asked for.
    Analysis {
        /// The connection.
        conn: u64,
        /// Its request's number.
        serial: u64,
        /// The position as it was sent.
        position: String,
    },
}

/// A search to run.
#[derive(Clone, Debug)]
pub struct Job {
    /// What it is for.
    pub target: Target,
    /// The position to search.
    pub pos: Position,
    /// The player's spec.
    pub spec: String,
    /// Raised when the search is no longer wanted.
    pub stop: Stop,
    /// Whose turn in the queue it takes: the address that created the game
    /// (or asked for the analysis).
    pub owner: String,
    /// The game's clock, if it has one: the player spends its share of it.
    pub clock: Option<GameClock>,
    /// The time to search instead of the player's own budget.
    pub budget: Option<Duration>,
}

impl Job {
    /// Which game its player last played, for `new_game`: each game its
    /// own, every analysis one (so that stepping through a game reuses
    /// what was found).
    fn session(&self) -> u64 {
        match self.target {
            Target::Move { game } => game,
            Target::Analysis { .. } => u64::MAX,
        }
    }

    /// The search's budget: the job's, or the clock's share, or the
    /// player's own.
    fn budget(&self) -> Option<Budget> {
        if let Some(t) = self.budget {
            return Some(Budget::Time(t));
        }
        let clock = self.clock?;
        let side = self.pos.side_to_move() as usize;
        Some(Budget::Time(GameClock::time_for_move(
            clock.remaining[side],
            clock.increment[side],
            MOVE_OVERHEAD,
        )))
    }
}

/// What an analysis found.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// The search's answer.
    pub analysis: yolah_players::Analysis,
    /// The exact final margin for the side to move, when the solver proved
    /// it within the budget.
    pub solved_margin: Option<i32>,
}

/// What became of a job.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The move the player chose.
    Move(Move),
    /// What an analysis found.
    Analysed(Box<Report>),
    /// The search panicked or the player could not be made: why.
    Failed(String),
    /// The job was stopped before it ran.
    Cancelled,
}

/// Called on a worker thread with each finished job.
pub type OnDone = dyn Fn(&Job, Outcome) + Send + Sync;

/// Makes the player of a spec (`yolah_players::from_spec` in the server).
pub type MakePlayer = dyn Fn(&str) -> Result<Box<dyn Player>, String> + Send + Sync;

/// The players of the spec language.
pub fn make_player(spec: &str) -> Result<Box<dyn Player>, String> {
    from_spec(spec).map_err(|e| e.to_string())
}

struct Shared {
    queue: Mutex<Queue>,
    ready: Condvar,
}

/// The worker pool.
pub struct Pool {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
}

impl Pool {
    /// Starts `threads` workers (at least one) that make players with
    /// `make` and report to `on_done`; analyses take half of them at most
    /// (one at least).
    pub fn new(threads: usize, make: Arc<MakePlayer>, on_done: Arc<OnDone>) -> Pool {
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue::new(threads / 2)),
            ready: Condvar::new(),
        });
        let workers = (0..threads.max(1))
            .map(|i| {
                let shared = Arc::clone(&shared);
                let on_done = Arc::clone(&on_done);
                let make = Arc::clone(&make);
                std::thread::Builder::new()
                    .name(format!("yolah-search-{i}"))
                    .spawn(move || work(&shared, &*make, &*on_done))
                    .expect("the operating system starts a search thread")
            })
            .collect();
        Pool { shared, workers }
    }

    /// Queues a job. The queue needs no bound of its own: the hub asks for
    /// at most one search per game and one analysis per connection, and
    /// both are bounded.
    pub fn submit(&self, job: Job) {
        let mut q = self
            .shared
            .queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        q.push(job);
        self.shared.ready.notify_one();
    }

    /// Jobs waiting for a worker.
    pub fn queued(&self) -> usize {
        let q = self
            .shared
            .queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        q.len()
    }
}

impl Drop for Pool {
    /// Stops the workers after their current search (queued jobs are
    /// dropped).
    fn drop(&mut self) {
        {
            let mut q = self
                .shared
                .queue
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            q.closed = true;
            for job in q.drain() {
                job.stop.request();
            }
        }
        self.shared.ready.notify_all();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

/// A worker's players: one per spec, with the session each last played;
/// and the solver, made for the first analysis that needs it.
#[derive(Default)]
struct Players {
    by_spec: HashMap<String, (Box<dyn Player>, u64)>,
    solver: Option<Solver>,
}

/// A worker: take jobs until the pool closes.
fn work(shared: &Shared, make: &MakePlayer, on_done: &OnDone) {
    let mut players = Players::default();
    let mut finished: Option<Job> = None;
    loop {
        let job = {
            let mut q = shared.queue.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(done) = finished.take() {
                q.done(&done);
                // A slot may have freed: another worker may take an
                // analysis now.
                shared.ready.notify_one();
            }
            loop {
                if q.closed {
                    return;
                }
                if let Some(job) = q.pop() {
                    break job;
                }
                q = shared.ready.wait(q).unwrap_or_else(PoisonError::into_inner);
            }
        };
        let outcome = run(&mut players, make, &job);
        on_done(&job, outcome);
        finished = Some(job);
    }
}

fn run(players: &mut Players, make: &MakePlayer, job: &Job) -> Outcome {
    if job.stop.is_requested() {
        return Outcome::Cancelled;
    }
    if !players.by_spec.contains_key(&job.spec) {
        // Made and readied (`start`: its table and solver allocated, their
        // memory faulted in) before its first search, so that the first
        // move of a level does not spend its time on memory.
        let made = || {
            let mut p = make(&job.spec)?;
            p.start().map_err(|e| e.to_string())?;
            Ok(p)
        };
        match catch_unwind(AssertUnwindSafe(made)) {
            Ok(Ok(p)) => {
                players.by_spec.insert(job.spec.clone(), (p, job.session()));
            }
            Ok(Err(e)) => return Outcome::Failed(e),
            Err(_) => return Outcome::Failed(format!("making {} failed", job.spec)),
        }
    }
    let (player, last) = players.by_spec.get_mut(&job.spec).expect("inserted above");
    if *last != job.session() {
        player.new_game();
        *last = job.session();
    }
    let searched = catch_unwind(AssertUnwindSafe(|| {
        let mut search = yolah_players::Search::new(&job.stop);
        search.budget = job.budget();
        search.clock = job.clock;
        player.try_search(&job.pos, search)
    }));
    match searched {
        // Stopped early: the move is no longer wanted.
        Ok(_) if job.stop.is_requested() => Outcome::Cancelled,
        Ok(Ok(a)) => match job.target {
            Target::Move { .. } => Outcome::Move(a.best_move),
            Target::Analysis { .. } => Outcome::Analysed(Box::new(solved(players, job, a))),
        },
        // An external engine that broke down: the hub plays for it.
        Ok(Err(forfeit)) => Outcome::Failed(format!("{}: {forfeit}", job.spec)),
        Err(panic) => {
            // The player may be half-updated: make a new one next time.
            players.by_spec.remove(&job.spec);
            let why = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            Outcome::Failed(format!("the {} search failed: {why}", job.spec))
        }
    }
}

/// An analysis's report: the search's answer and, in an endgame of few
/// free squares, the exact margin if the solver proves it within the same
/// budget (its line replaces the search's).
fn solved(players: &mut Players, job: &Job, mut analysis: yolah_players::Analysis) -> Report {
    let mut solved_margin = None;
    if job.pos.free().count() <= SOLVE_FREE_SQUARES {
        let solver = players.solver.get_or_insert_with(Solver::new);
        let limits = solve::Limits {
            nodes: None,
            time: job.budget,
        };
        let found = catch_unwind(AssertUnwindSafe(|| {
            solver.solve_within(&job.pos, limits, &job.stop)
        }));
        match found {
            Ok(Some(solution)) => {
                solved_margin = Some(solution.margin);
                analysis.pv = solution.pv;
            }
            Ok(None) => {}
            Err(_) => players.solver = None,
        }
    }
    Report {
        analysis,
        solved_margin,
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    fn pool_with(threads: usize, make: Arc<MakePlayer>) -> (Pool, mpsc::Receiver<(u64, Outcome)>) {
        let (tx, rx) = mpsc::channel();
        let tx = Mutex::new(tx);
        let on_done = Arc::new(move |job: &Job, o: Outcome| {
            let game = match job.target {
                Target::Move { game } => game,
                Target::Analysis { conn, .. } => conn,
            };
            let _ = tx.lock().unwrap().send((game, o));
        });
        (Pool::new(threads, make, on_done), rx)
    }

    fn pool(threads: usize) -> (Pool, mpsc::Receiver<(u64, Outcome)>) {
        pool_with(threads, Arc::new(make_player))
    }

    /// A player whose every search panics.
    struct Panics;

    impl Player for Panics {
        fn spec(&self) -> &str {
            "panics"
        }
        fn search(
            &mut self,
            _: &Position,
            _: yolah_players::Search<'_>,
        ) -> yolah_players::Analysis {
            panic!("this player always panics")
        }
    }

    /// A player that says when each of its searches begins.
    struct Announces {
        inner: Box<dyn Player>,
        began: mpsc::Sender<()>,
    }

    impl Player for Announces {
        fn spec(&self) -> &str {
            self.inner.spec()
        }
        fn search(
            &mut self,
            pos: &Position,
            search: yolah_players::Search<'_>,
        ) -> yolah_players::Analysis {
            let _ = self.began.send(());
            self.inner.search(pos, search)
        }
    }

    #[test]
    fn a_panicking_search_fails_its_job_and_the_worker_goes_on() {
        let make = Arc::new(|spec: &str| match spec {
            "panics" => Ok(Box::new(Panics) as Box<dyn Player>),
            other => make_player(other),
        });
        let (pool, rx) = pool_with(1, make);
        pool.submit(job(1, "panics"));
        let (_, outcome) = rx.recv_timeout(Duration::from_secs(30)).unwrap();
        assert!(
            matches!(&outcome, Outcome::Failed(m) if m.contains("this player always panics")),
            "{outcome:?}"
        );
        pool.submit(job(2, "random"));
        let (game, outcome) = rx.recv_timeout(Duration::from_secs(30)).unwrap();
        assert_eq!(game, 2);
        assert!(matches!(outcome, Outcome::Move(_)));
    }

    /// A job for a move in game `game` by `spec`, from the start.
    pub(super) fn job(game: u64, spec: &str) -> Job {
        Job {
            target: Target::Move { game },
            pos: Position::START,
            spec: spec.into(),
            stop: Stop::new(),
            owner: "127.0.0.1".into(),
            clock: None,
            budget: None,
        }
    }

    #[test]
    fn jobs_are_searched_and_stopped_ones_cancelled() {
        // Every player says when its search begins.
        let (began, searching) = mpsc::channel();
        let make = Arc::new(move |spec: &str| {
            Ok(Box::new(Announces {
                inner: make_player(spec)?,
                began: began.clone(),
            }) as Box<dyn Player>)
        });
        let (pool, rx) = pool_with(2, make);
        pool.submit(job(1, "random"));
        let (game, outcome) = rx.recv_timeout(Duration::from_secs(30)).unwrap();
        assert_eq!(game, 1);
        assert!(matches!(outcome, Outcome::Move(m) if Position::START.legal_moves().contains(m)));
        searching.recv_timeout(Duration::from_secs(30)).unwrap();
        // A long search is stopped from outside once it has begun.
        let long = job(2, "alphabeta:time=60s");
        pool.submit(long.clone());
        searching.recv_timeout(Duration::from_secs(30)).unwrap();
        long.stop.request();
        let (game, outcome) = rx.recv_timeout(Duration::from_secs(30)).unwrap();
        assert_eq!((game, outcome), (2, Outcome::Cancelled));
        // A job stopped while queued never runs.
        let queued = job(3, "alphabeta:time=60s");
        queued.stop.request();
        pool.submit(queued);
        let (game, outcome) = rx.recv_timeout(Duration::from_secs(30)).unwrap();
        assert_eq!((game, outcome), (3, Outcome::Cancelled));
        assert_eq!(pool.queued(), 0);
    }

    #[test]
    fn a_bad_spec_fails_the_job_not_the_worker() {
        let (pool, rx) = pool(1);
        pool.submit(job(1, "nonsense"));
        let (_, outcome) = rx.recv_timeout(Duration::from_secs(30)).unwrap();
        assert!(matches!(outcome, Outcome::Failed(m) if m.contains("unknown player")));
        pool.submit(job(2, "random"));
        let (_, outcome) = rx.recv_timeout(Duration::from_secs(30)).unwrap();
        assert!(matches!(outcome, Outcome::Move(_)));
    }

    #[test]
    fn an_analysis_reports_a_line_and_solves_an_endgame() {
        let (pool, rx) = pool(1);
        let endgame: Position =
            "xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxbwbw/bwbw4 b 40 12 52"
                .parse()
                .unwrap();
        pool.submit(Job {
            target: Target::Analysis {
                conn: 9,
                serial: 1,
                position: endgame.to_text(),
            },
            pos: endgame,
            budget: Some(Duration::from_millis(200)),
            ..job(0, "alphabeta:depth=3")
        });
        let (conn, outcome) = rx.recv_timeout(Duration::from_secs(60)).unwrap();
        assert_eq!(conn, 9);
        let Outcome::Analysed(report) = outcome else {
            panic!("{outcome:?}")
        };
        assert!(report.solved_margin.is_some(), "{report:?}");
        assert!(!report.analysis.pv.is_empty());
    }

    #[test]
    fn a_timed_game_spends_a_share_of_its_clock() {
        let clocked = Job {
            clock: Some(GameClock {
                remaining: [Duration::from_secs(20), Duration::from_secs(60)],
                increment: [Duration::from_secs(2); 2],
            }),
            ..job(1, "alphabeta:time=60s")
        };
        assert_eq!(
            clocked.budget(),
            Some(Budget::Time(Duration::from_millis(2500))),
            "a twentieth of Black's 20 s and three quarters of 2 s"
        );
        assert_eq!(job(1, "random").budget(), None, "the player's own");
    }
}
