//! The computer players' searches: a fixed pool of worker threads and one
//! queue, so that however many games wait for a computer move, the server
//! runs at most `threads` searches at once. The queue is shared fairly
//! between client addresses: a worker takes the oldest job of the next
//! address in turn, so one address with twenty slow games waiting makes
//! another person wait for one search at most, not twenty.
//!
//! Players live in the workers, not in the games: each worker keeps one
//! player per spec it has been asked for (created on first use, its tables
//! allocated by its first search), and reuses it for every game, calling
//! `new_game` when it switches games. Player memory is therefore bounded by
//! `threads × specs offered`, whatever the number of games.
//!
//! A job carries a [`Stop`] flag: the hub raises it when the game ends or is
//! dropped, and a job still in the queue is then skipped, a running one
//! returns within milliseconds. A panic inside a search is caught here; that
//! job reports a failure and the worker goes on with the next one.

use std::collections::{HashMap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use yolah::{Move, Position};
use yolah_players::{from_spec, Player, Stop};

/// A computer move to search.
#[derive(Clone, Debug)]
pub struct Job {
    /// The game.
    pub game: u64,
    /// The position to search.
    pub pos: Position,
    /// The player's spec.
    pub spec: String,
    /// Raised when the move is no longer wanted.
    pub stop: Stop,
    /// Whose turn in the queue it takes: the address that created the game.
    pub owner: String,
}

/// What became of a job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The move the player chose.
    Move(Move),
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

/// Jobs waiting, by address, and the addresses in the order they are
/// served (each address with jobs appears once).
#[derive(Default)]
struct Queue {
    jobs: HashMap<String, VecDeque<Job>>,
    turns: VecDeque<String>,
    len: usize,
    closed: bool,
}

impl Queue {
    fn push(&mut self, job: Job) {
        let waiting = self.jobs.entry(job.owner.clone()).or_default();
        if waiting.is_empty() {
            self.turns.push_back(job.owner.clone());
        }
        waiting.push_back(job);
        self.len += 1;
    }

    /// The oldest job of the address whose turn it is; the address goes to
    /// the back of the line if it has more.
    fn pop(&mut self) -> Option<Job> {
        let owner = self.turns.pop_front()?;
        let waiting = self.jobs.get_mut(&owner)?;
        let job = waiting.pop_front()?;
        if waiting.is_empty() {
            self.jobs.remove(&owner);
        } else {
            self.turns.push_back(owner);
        }
        self.len -= 1;
        Some(job)
    }

    fn drain(&mut self) -> impl Iterator<Item = Job> + '_ {
        self.turns.clear();
        self.len = 0;
        self.jobs.drain().flat_map(|(_, jobs)| jobs)
    }
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
    /// `make` and report to `on_done`.
    pub fn new(threads: usize, make: Arc<MakePlayer>, on_done: Arc<OnDone>) -> Pool {
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue::default()),
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
    /// at most one search per game, and the games are bounded.
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
        q.len
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

/// A worker: take jobs until the pool closes.
fn work(shared: &Shared, make: &MakePlayer, on_done: &OnDone) {
    // One player per spec; the game each last played.
    let mut players: HashMap<String, (Box<dyn Player>, u64)> = HashMap::new();
    loop {
        let job = {
            let mut q = shared.queue.lock().unwrap_or_else(PoisonError::into_inner);
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
    }
}

fn run(
    players: &mut HashMap<String, (Box<dyn Player>, u64)>,
    make: &MakePlayer,
    job: &Job,
) -> Outcome {
    if job.stop.is_requested() {
        return Outcome::Cancelled;
    }
    if !players.contains_key(&job.spec) {
        match catch_unwind(AssertUnwindSafe(|| make(&job.spec))) {
            Ok(Ok(p)) => {
                players.insert(job.spec.clone(), (p, job.game));
            }
            Ok(Err(e)) => return Outcome::Failed(e),
            Err(_) => return Outcome::Failed(format!("making {} failed", job.spec)),
        }
    }
    let (player, last_game) = players.get_mut(&job.spec).expect("inserted above");
    if *last_game != job.game {
        player.new_game();
        *last_game = job.game;
    }
    let searched = catch_unwind(AssertUnwindSafe(|| {
        player.try_search(&job.pos, yolah_players::Search::new(&job.stop))
    }));
    match searched {
        // Stopped early: the move is no longer wanted.
        Ok(_) if job.stop.is_requested() => Outcome::Cancelled,
        Ok(Ok(a)) => Outcome::Move(a.best_move),
        // An external engine that broke down: the hub plays for it.
        Ok(Err(forfeit)) => Outcome::Failed(format!("{}: {forfeit}", job.spec)),
        Err(panic) => {
            // The player may be half-updated: make a new one next time.
            players.remove(&job.spec);
            let why = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            Outcome::Failed(format!("the {} search failed: {why}", job.spec))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    fn pool_with(threads: usize, make: Arc<MakePlayer>) -> (Pool, mpsc::Receiver<(u64, Outcome)>) {
        let (tx, rx) = mpsc::channel();
        let tx = Mutex::new(tx);
        let on_done = Arc::new(move |job: &Job, o: Outcome| {
            let _ = tx.lock().unwrap().send((job.game, o));
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

    fn job(game: u64, spec: &str) -> Job {
        Job {
            game,
            pos: Position::START,
            spec: spec.into(),
            stop: Stop::new(),
            owner: "127.0.0.1".into(),
        }
    }

    #[test]
    fn addresses_take_turns_in_the_queue() {
        let mut q = Queue::default();
        let from = |game, owner: &str| Job {
            owner: owner.into(),
            ..job(game, "random")
        };
        for g in 1..=3 {
            q.push(from(g, "hog"));
        }
        q.push(from(10, "other"));
        q.push(from(4, "hog"));
        q.push(from(11, "other"));
        q.push(from(20, "third"));
        let order: Vec<u64> = std::iter::from_fn(|| q.pop()).map(|j| j.game).collect();
        assert_eq!(order, [1, 10, 20, 2, 11, 3, 4]);
        assert_eq!(q.len, 0);
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
}
