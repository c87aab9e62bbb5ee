//! Negamax alpha-beta with iterative deepening, principal variation search,
//! a transposition table, and killer and history move ordering, on one
//! thread or several (lazy SMP).
//!
//! * this module: the player and the threads of a search;
//! * `options`: what a spec sets (budget, techniques, evaluation);
//! * `worker`: one thread's search;
//! * `endgame`: the exact solver's turn before the search.

use crate::budget::{Budget, Clock, GameClock};
use crate::eval::{Evaluator, Weights};
use crate::limits::MAX_THREADS;
use crate::player::{Analysis, Player, Search, StartError};
use crate::score::Score;
use crate::score::{DECIDED, WIN};
use crate::solve::Solver;
use crate::table::Table;
use endgame::Attempt;
pub use options::SearchOptions;
pub(crate) use options::{nn_from_spec, nn_keys};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};
use worker::Worker;
use yolah::zobrist::{key, key_after};
use yolah::{Move, Position, Rng};

mod endgame;
mod options;
mod worker;

/// The plies a search keeps per-ply state for (killers, reductions): the
/// deepest search a budget asks for.
const MAX_PLY: usize = crate::MAX_DEPTH as usize;
/// The transposition table's size unless a spec says `hash=`, in MiB. At
/// 1 s a move (depth 12 to 14 in the middle game) a 16 MiB table overflows:
/// a table four times larger reaches depth 14 with a fifth fewer nodes
/// (docs/search-log.md row 24).
pub const DEFAULT_HASH_MIB: usize = 64;
/// The largest `hash=`, in MiB.
pub const MAX_HASH_MIB: usize = 4096;

/// Entries (16 bytes each) of a table of at most `mib` MiB, a power of two.
fn table_entries(mib: usize) -> usize {
    let entries = (mib.clamp(1, MAX_HASH_MIB) << 20) / 16;
    1 << entries.ilog2()
}
const INF: i32 = WIN + 1;

/// Wins are stored relative to the node, not the root, so that a table hit
/// at another ply still means "win in so many plies from here".
fn to_table(score: i32, ply: u32) -> i16 {
    let s = if score > DECIDED {
        score + ply as i32
    } else if score < -DECIDED {
        score - ply as i32
    } else {
        score
    };
    s as i16
}

fn from_table(score: i16, ply: u32) -> i32 {
    let s = i32::from(score);
    if s > DECIDED {
        s - ply as i32
    } else if s < -DECIDED {
        s + ply as i32
    } else {
        s
    }
}

/// The exact score of a finished game for the side to move.
fn terminal(pos: &Position, ply: u32) -> i32 {
    i32::from(pos.outcome().sign(pos.side_to_move())) * (WIN - ply as i32)
}

/// What one search thread remembers between searches for move ordering:
/// two killer moves per ply, a history score per (from, to), the
/// continuation history (`ch`) and the countermove: per opponent's (from,
/// to), the reply that last refuted it.
struct Heuristics {
    killers: [[Move; 2]; MAX_PLY],
    history: Vec<i32>,
    /// The continuation history, indexed as
    /// `worker::history::continuation_index` says: empty until a search
    /// with `ch` on allocates it (2 MiB).
    continuation: Vec<i32>,
    countermoves: Vec<Move>,
    /// The longest paths of separated regions, remembered from one search
    /// to the next (`xr`).
    regions: Solver,
}

impl Heuristics {
    fn new() -> Heuristics {
        Heuristics {
            killers: [[Move::PASS; 2]; MAX_PLY],
            history: vec![0; 64 * 64],
            continuation: Vec::new(),
            countermoves: vec![Move::PASS; 64 * 64],
            regions: Solver::for_regions(),
        }
    }

    /// Killers are for one position's tree; history fades from one search to
    /// the next.
    fn start_search(&mut self) {
        self.killers = [[Move::PASS; 2]; MAX_PLY];
        for h in &mut self.history {
            *h /= 8;
        }
        for h in &mut self.continuation {
            *h /= 8;
        }
    }
}

/// The alpha-beta player, generic over its evaluation.
///
/// With `threads` above one it searches in the lazy SMP manner: every
/// thread runs its own iterative deepening on the same shared table, the
/// helpers with their root moves in other orders and every other one a ply
/// ahead, so that they fill the table with results the main thread then
/// finds; the move played is the one of the thread that completed the
/// deepest iteration, the main thread's on a tie.
pub struct AlphaBeta<E: Evaluator = Weights> {
    spec: String,
    budget: Budget,
    threads: usize,
    options: SearchOptions,
    evaluator: E,
    rng: Rng,
    /// Allocated by [`Player::start`] or the first search.
    table: Option<Table>,
    /// The table's entries.
    table_entries: usize,
    /// One per thread, the main thread's first.
    heuristics: Vec<Heuristics>,
    /// The endgame solver, allocated when first needed.
    solver: Option<Solver>,
}

impl AlphaBeta<Weights> {
    /// A player with the given budget (depth, nodes or time) and heuristic
    /// weights.
    pub fn new(budget: Budget, weights: Weights, seed: u64) -> AlphaBeta {
        AlphaBeta::with_evaluator(budget, weights, seed)
    }
}

impl<E: Evaluator> AlphaBeta<E> {
    /// A player with the given budget and evaluation, searching on one
    /// thread.
    pub fn with_evaluator(budget: Budget, evaluator: E, seed: u64) -> AlphaBeta<E> {
        AlphaBeta {
            spec: "alphabeta".into(),
            budget,
            threads: 1,
            options: SearchOptions::default(),
            evaluator,
            rng: Rng::new(seed),
            table: None,
            table_entries: table_entries(DEFAULT_HASH_MIB),
            heuristics: Vec::new(),
            solver: None,
        }
    }

    /// Names the player (the spec it was built from).
    pub fn set_spec(&mut self, spec: &str) {
        self.spec = spec.to_string();
    }

    /// Gives the transposition table `mib` MiB (from 1 to
    /// [`MAX_HASH_MIB`]; rounded down to a power of two), dropping the
    /// table if it has another size.
    pub fn set_hash(&mut self, mib: usize) {
        let entries = table_entries(mib);
        if entries != self.table_entries {
            self.table_entries = entries;
            self.table = None;
        }
    }

    /// Switches search techniques on or off.
    pub fn set_options(&mut self, options: SearchOptions) {
        self.options = options;
    }

    /// Searches on `threads` threads (at least one, at most [`MAX_THREADS`]).
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.clamp(1, MAX_THREADS);
    }
}

impl<E: Evaluator> Player for AlphaBeta<E> {
    fn spec(&self) -> &str {
        &self.spec
    }

    /// Allocates the table (64 MiB unless `hash=` says otherwise) and the
    /// solver (16 MiB) before the clock runs rather than in a move's time:
    /// a process waiting for a processor took up to a quarter of a second
    /// to fill the solver's, in the move that first tried it
    /// (docs/search-log.md row 14), and the system's zeroing of the
    /// table's pages as the first search touched them cost up to 100 ms of
    /// it (docs/measurements.md), so both are faulted in here. Whatever
    /// the player's own budget: a caller may search a player of a fixed
    /// depth against a clock or a time of its own (`nn` alone is depth 7,
    /// and the server analyses with it for a second).
    fn start(&mut self) -> Result<(), StartError> {
        if self.table.is_none() {
            let mut table = Table::new(self.table_entries);
            table.fault_in();
            self.table = Some(table);
        }
        if self.solver.is_none() {
            let mut solver = Solver::new();
            solver.fault_in();
            self.solver = Some(solver);
        }
        Ok(())
    }

    fn new_game(&mut self) {
        if let Some(table) = &self.table {
            table.clear();
        }
        self.heuristics.clear();
        if let Some(solver) = &mut self.solver {
            solver.clear();
        }
    }

    fn search(&mut self, pos: &Position, mut search: Search<'_>) -> Analysis {
        let started = Instant::now();
        let budget = search.budget.unwrap_or(self.budget);
        let (budget, target) = time_plan(budget, search.clock, pos, self.options.time_management);
        match endgame::attempt(&mut self.solver, pos, budget, search.stop) {
            Attempt::Solved(analysis) => {
                search.report(&analysis);
                analysis
            }
            Attempt::Unsolved(rest, solver_nodes) => {
                let target = target.map(|t| t.saturating_sub(started.elapsed()));
                let mut analysis = self.iterate(pos, rest, target, &mut search);
                analysis.nodes += solver_nodes;
                analysis
            }
        }
    }
}

/// How far past its target a search with a game clock may go while its
/// best move keeps changing...
const HARD_FACTOR: u32 = 3;
/// ...but never past this share of the time left on its clock, less the
/// reserve.
const HARD_SHARE: u32 = 2;
/// The part of its clock a managed search never plans to spend. A search
/// overruns its limit by however long its process waits for a processor
/// after the deadline (and between the clock checks, every
/// [`NODE_STEP`] nodes): nothing on an idle machine, but at `nice 19` on a
/// loaded one the 1+0.01 matches of docs/search-log.md row 14 measured
/// overruns of 50 to 250 ms, once over 600. Planned down to the last
/// milliseconds, such a clock lost one game in ten on time.
const CLOCK_RESERVE: Duration = Duration::from_millis(100);

/// About how many more moves the side to move of `pos` will make: a game
/// from the start lasts about 32 plies, 16 moves a side, and every move
/// fills a free square, so a side has about one move for every three and
/// a half free squares.
fn moves_to_go(pos: &Position) -> u32 {
    (pos.free().count() * 2 / 7).clamp(2, 20)
}

/// What a managed search may spend on one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct MoveTime {
    /// The time it aims at ([`Worker::deepen`] stops between iterations
    /// around it).
    target: Duration,
    /// The most it may take: the search's deadline.
    hard: Duration,
}

/// The time for a move from a clock with `left` on it, `increment` added
/// after each move, and about `moves_to_go` moves still to play (at least
/// one): of the time left less [`CLOCK_RESERVE`], a target of a share per
/// move still to come plus three quarters of the increment, and a hard
/// limit of [`HARD_FACTOR`] times the target; neither past a
/// [`HARD_SHARE`]th of that time. So the hard limit stays at least the
/// reserve below the time left, and is zero (a move at the first clock
/// check, after a ply or two) once only the reserve is left.
fn move_time(left: Duration, increment: Duration, moves_to_go: u32) -> MoveTime {
    let usable = left.saturating_sub(CLOCK_RESERVE);
    let most = usable / HARD_SHARE;
    let target = (usable / moves_to_go.max(1) + increment * 3 / 4).min(most);
    MoveTime {
        target,
        hard: (target * HARD_FACTOR).min(most),
    }
}

/// With a game clock and time management on, the search plans its own
/// time ([`move_time`]) instead of taking the caller's share (`budget`, a
/// time); [`Worker::deepen`] decides between iterations whether to stop.
/// Returns the hard budget and the target; without a clock (or with the
/// option off, or another budget) the budget stays as it is, and there is
/// no target.
fn time_plan(
    budget: Budget,
    clock: Option<GameClock>,
    pos: &Position,
    on: bool,
) -> (Budget, Option<Duration>) {
    match (budget, clock) {
        (Budget::Time(_), Some(clock)) if on => {
            let side = pos.side_to_move() as usize;
            let time = move_time(
                clock.remaining[side],
                clock.increment[side],
                moves_to_go(pos),
            );
            (Budget::Time(time.hard), Some(time.target))
        }
        _ => (budget, None),
    }
}

/// What the threads of one search share besides the table.
struct Shared {
    clock: Clock,
    budget: Budget,
    /// The time the search aims at, when it manages its own time (see
    /// [`time_plan`]); the clock's deadline is then the hard limit.
    target: Option<Duration>,
    options: SearchOptions,
    /// Raised by the main thread when it is done: the helpers stop.
    done: AtomicBool,
    /// Nodes of all threads, added in steps of [`NODE_STEP`].
    nodes: AtomicU64,
}

/// How many nodes a thread searches between looks at the clock.
const NODE_STEP: u64 = 1024;

impl<E: Evaluator> AlphaBeta<E> {
    /// Iterative deepening within `budget`, on every thread.
    fn iterate(
        &mut self,
        pos: &Position,
        budget: Budget,
        target: Option<Duration>,
        search: &mut Search<'_>,
    ) -> Analysis {
        let threads = self.threads;
        let table = self
            .table
            .get_or_insert_with(|| Table::new(self.table_entries));
        self.heuristics.resize_with(threads, Heuristics::new);
        let shared = Shared {
            clock: Clock::start(budget, search.stop),
            budget,
            target,
            options: self.options,
            done: AtomicBool::new(false),
            nodes: AtomicU64::new(0),
        };
        // A game cannot go on for more plies than twice the free squares.
        let exhaustive = 2 * pos.free().count() + 2;
        let max_depth = match budget {
            Budget::Depth(d) => d.min(exhaustive),
            _ => exhaustive.min(MAX_PLY as u32 - 2),
        };
        let mut moves = pos.legal_moves();
        // The seed decides the order of equally good root moves.
        shuffle(moves.as_mut_slice(), &mut self.rng);
        let helper_seeds: Vec<u64> = (1..threads)
            .map(|_| u64::from(self.rng.below(u32::MAX)))
            .collect();
        let (main, helpers) = self
            .heuristics
            .split_first_mut()
            .expect("one thread at least");
        let evaluator = &self.evaluator;
        let (table, shared) = (&*table, &shared);
        let best = std::thread::scope(|s| {
            let mut handles = Vec::new();
            for (i, (heuristics, seed)) in helpers.iter_mut().zip(helper_seeds).enumerate() {
                let mut moves = moves.clone();
                shuffle(moves.as_mut_slice(), &mut Rng::new(seed));
                handles.push(s.spawn(move || {
                    let mut worker = Worker::new(evaluator, table, shared, heuristics);
                    let first_depth = 1 + (i as u32 + 1) % 2;
                    let found =
                        worker.deepen(pos, moves.as_mut_slice(), first_depth, max_depth, None);
                    worker.flush_nodes();
                    found
                }));
            }
            let mut worker = Worker::new(evaluator, table, shared, main);
            let mut best = worker.deepen(pos, moves.as_mut_slice(), 1, max_depth, Some(search));
            worker.flush_nodes();
            shared.done.store(true, Relaxed);
            // A helper that completed a deeper iteration than the main
            // thread has the better move (the main thread wins ties).
            for h in handles {
                let found = h.join().expect("search threads do not panic");
                if found.1 > best.1 {
                    best = found;
                }
            }
            best
        });
        // The scope has joined the helpers: every node is counted.
        let (best, depth) = best;
        analysis(table, shared, pos, best, depth, shared.nodes.load(Relaxed))
    }
}

/// Where a search stands: `best` (move, score) after `completed` plies and
/// `nodes` nodes.
fn analysis(
    table: &Table,
    shared: &Shared,
    pos: &Position,
    best: (Move, i32),
    completed: u32,
    nodes: u64,
) -> Analysis {
    let mut pv = principal_variation(table, pos, completed.max(1));
    if pv.first() != Some(&best.0) {
        // The move of an unfinished iteration, which beat the last finished
        // one's: the root's entry is still that one's, but the move's own
        // search finished, so its line follows from the position after it.
        let mut child = *pos;
        child.play(best.0);
        pv = std::iter::once(best.0)
            .chain(principal_variation(table, &child, completed))
            .collect();
    }
    Analysis {
        best_move: best.0,
        score: Score::Centipoints(best.1),
        depth: Some(completed),
        iterations: None,
        nodes,
        seconds: shared.clock.seconds(),
        pv,
    }
}

/// The principal variation, from the table.
fn principal_variation(table: &Table, pos: &Position, max: u32) -> Vec<Move> {
    let mut pv = Vec::new();
    let mut pos = *pos;
    let mut k = key(&pos);
    while pv.len() < max as usize && !pos.is_game_over() {
        let Some(e) = table.probe(k) else { break };
        if pos.check_move(e.mv).is_err() {
            break;
        }
        pv.push(e.mv);
        k = key_after(k, &pos, e.mv);
        pos.play(e.mv);
    }
    pv
}

/// Shuffles `moves` with `rng`.
fn shuffle(moves: &mut [Move], rng: &mut Rng) {
    for i in (1..moves.len()).rev() {
        moves.swap(i, rng.below(i as u32 + 1) as usize);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_sizes_round_down_to_a_power_of_two() {
        assert_eq!(table_entries(DEFAULT_HASH_MIB), 1 << 22);
        assert_eq!(table_entries(16), 1 << 20);
        assert_eq!(table_entries(100), 1 << 22);
        assert_eq!(table_entries(1), 1 << 16);
        assert_eq!(table_entries(MAX_HASH_MIB), 1 << 28);
    }

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_clock_gives_a_target_and_a_hard_limit() {
        let clock = GameClock {
            remaining: [ms(1_700), ms(300)],
            increment: [ms(100); 2],
        };
        let start = Position::START;
        assert_eq!(moves_to_go(&start), 16);
        let time = Budget::Time(ms(575));
        // Of the time left less the reserve, a sixteenth and three quarters
        // of the increment, and three times that at most.
        assert_eq!(
            time_plan(time, Some(clock), &start, true),
            (Budget::Time(ms(525)), Some(ms(175)))
        );
        // Never past half the time left less the reserve.
        let mut white = start;
        white.play(start.legal_moves()[0]);
        assert_eq!(moves_to_go(&white), 15);
        assert_eq!(
            time_plan(time, Some(clock), &white, true),
            (Budget::Time(ms(100)), Some(ms(200) / 15 + ms(75)))
        );
        // No clock, the option off, or another budget: unchanged.
        assert_eq!(time_plan(time, None, &start, true), (time, None));
        assert_eq!(time_plan(time, Some(clock), &start, false), (time, None));
        let depth = Budget::Depth(5);
        assert_eq!(time_plan(depth, Some(clock), &start, true), (depth, None));
    }

    #[test]
    fn a_player_gets_its_tables_before_the_clock_runs() {
        let mut timed = AlphaBeta::new(Budget::Time(ms(10)), Weights::default(), 1);
        assert!(timed.table.is_none() && timed.solver.is_none());
        timed.start().expect("our players always start");
        assert!(timed.table.is_some() && timed.solver.is_some());
        // A fixed depth too: its caller may search it against a clock.
        let mut deep = AlphaBeta::new(Budget::Depth(3), Weights::default(), 1);
        deep.start().expect("our players always start");
        assert!(deep.table.is_some() && deep.solver.is_some());
    }

    /// Searches a middle-game position to `depth` with `evaluator`, then
    /// checks every static value the table kept for a position within
    /// three plies against a fresh evaluation; how many it checked.
    fn check_kept_static_values<E: Evaluator + Clone>(evaluator: E, depth: u32) -> usize {
        let mut player = AlphaBeta::with_evaluator(Budget::Depth(depth), evaluator.clone(), 1);
        player.set_hash(1);
        let mut pos = Position::START;
        for m in ["d5:b7", "e5:c7", "e4:e2", "d4:b2"] {
            pos.play(m.parse().unwrap());
        }
        player.analyse(&pos);
        let table = player.table.as_ref().expect("a search allocates its table");
        let mut checked = 0;
        let mut frontier = vec![pos];
        for _ in 0..3 {
            let mut next = Vec::new();
            for p in &frontier {
                for &m in p.legal_moves().iter() {
                    let mut child = *p;
                    child.play(m);
                    if let Some(eval) = table.probe(key(&child)).and_then(|e| e.eval) {
                        let fresh = evaluator.evaluate(&child, &evaluator.root_state(&child), 0);
                        assert_eq!(i32::from(eval), fresh, "{}", child.to_text());
                        checked += 1;
                    }
                    next.push(child);
                }
            }
            frontier = next;
        }
        checked
    }

    #[test]
    fn the_static_values_the_table_keeps_are_the_evaluators() {
        let checked = check_kept_static_values(Weights::default(), 6);
        assert!(checked > 100, "only {checked} values kept");
        // The network's values, whose accumulators are updated move by
        // move in the search and built from scratch here.
        let crate::nn::Network::W256(net) = crate::nn::Network::shipped() else {
            panic!("the shipped network is no longer 256 wide: change this test");
        };
        let checked = check_kept_static_values(net, 5);
        assert!(checked > 100, "only {checked} values kept");
    }

    #[test]
    fn the_reserve_stays_on_the_clock() {
        let zero = Duration::ZERO;
        // Little or nothing beyond the reserve: move at once.
        for left in [zero, ms(1), ms(99), CLOCK_RESERVE] {
            let none = MoveTime {
                target: zero,
                hard: zero,
            };
            assert_eq!(move_time(left, zero, 2), none, "{left:?}");
            assert_eq!(move_time(left, ms(10_000), 2), none, "{left:?}");
        }
        // Zero increment: a share of what is above the reserve.
        assert_eq!(
            move_time(ms(1_100), zero, 10),
            MoveTime {
                target: ms(100),
                hard: ms(300)
            }
        );
        // A huge increment cannot be spent before it comes: half of what
        // is above the reserve.
        assert_eq!(
            move_time(ms(1_100), ms(60_000), 10),
            MoveTime {
                target: ms(500),
                hard: ms(500)
            }
        );
        // Whatever the clock, the target is within the hard limit and the
        // hard limit leaves the reserve on the clock.
        for left in (0..3_000).step_by(7).map(ms) {
            for increment in [0, 1, 10, 100, 1_000, 100_000].map(ms) {
                for moves_to_go in [0, 1, 2, 5, 20] {
                    let t = move_time(left, increment, moves_to_go);
                    assert!(t.target <= t.hard, "{left:?} {increment:?} {moves_to_go}");
                    assert!(
                        t.hard.is_zero() || t.hard + CLOCK_RESERVE < left,
                        "{left:?} {increment:?} {moves_to_go}"
                    );
                }
            }
        }
    }
}
