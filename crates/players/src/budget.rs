//! How much a search may do, the flag that stops it early, and the clock
//! that enforces both.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How much a search may do before it answers.
///
/// Count budgets (depth and count) are deterministic: with the same seed a
/// player makes the same move. Which count a player takes is its own:
/// nodes for alpha-beta, iterations for MCTS, playouts for flat Monte Carlo.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// Wall time per move.
    Time(Duration),
    /// Complete this many plies of search (alpha-beta).
    Depth(u32),
    /// Stop after this many units of work: nodes, iterations or playouts.
    Count(u64),
    /// Until stopped (alpha-beta also ends when it has solved the position).
    Infinite,
}

/// A game clock as a search sees it: the time left on each side's clock
/// and each side's increment, indexed by [`yolah::Color`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameClock {
    /// Time left, Black's then White's.
    pub remaining: [Duration; 2],
    /// Added after each move, Black's then White's.
    pub increment: [Duration; 2],
}

impl GameClock {
    /// The share of its clock the side with `remaining` and `increment`
    /// spends on a move: a twentieth of what is left plus three quarters of
    /// the increment, never more than what is left less `overhead`, never
    /// nothing. Callers that hold a clock (`yolah engine`, matches, the
    /// server) give it to a search as its time budget; the alpha-beta
    /// players with time management (`tm`, on by default) plan their own
    /// time from the clock instead.
    pub fn time_for_move(remaining: Duration, increment: Duration, overhead: Duration) -> Duration {
        let share = remaining / 20 + increment * 3 / 4;
        share
            .min(remaining.saturating_sub(overhead))
            .max(Duration::from_millis(1))
    }
}

/// Asks a running search to stop: another thread calls [`Stop::request`]
/// and the search returns its best move so far within a few milliseconds
/// (see [`crate::Player::analyse_until`]). Clones share the flag.
///
/// ```
/// use std::time::{Duration, Instant};
/// use yolah::Position;
/// use yolah_players::{from_spec, Stop};
///
/// let mut player = from_spec("alphabeta:time=60s").unwrap();
/// let stop = Stop::new();
/// let remote = stop.clone();
/// std::thread::spawn(move || {
///     std::thread::sleep(Duration::from_millis(50));
///     remote.request();
/// });
/// let start = Instant::now();
/// let a = player.analyse_until(&Position::START, &stop);
/// assert!(start.elapsed() < Duration::from_secs(10));
/// assert!(Position::START.legal_moves().contains(a.best_move));
/// ```
#[derive(Clone, Debug, Default)]
pub struct Stop(Arc<AtomicBool>);

impl Stop {
    /// A flag nobody has raised yet.
    pub fn new() -> Stop {
        Stop::default()
    }

    /// Asks every search watching this flag to stop.
    pub fn request(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether a stop was requested.
    #[inline]
    pub fn is_requested(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// When a search must end: a deadline for time budgets, and the stop flag.
#[derive(Clone, Debug)]
pub(crate) struct Clock {
    start: Instant,
    deadline: Option<Instant>,
    stop: Stop,
}

impl Clock {
    /// Starts now; only a [`Budget::Time`] has a deadline.
    pub(crate) fn start(budget: Budget, stop: &Stop) -> Clock {
        let start = Instant::now();
        let deadline = match budget {
            Budget::Time(t) => Some(start + t),
            Budget::Depth(_) | Budget::Count(_) | Budget::Infinite => None,
        };
        Clock {
            start,
            deadline,
            stop: stop.clone(),
        }
    }

    /// Whether the deadline has passed or a stop was requested.
    pub(crate) fn expired(&self) -> bool {
        self.stop.is_requested() || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Seconds since the start, as a duration.
    pub(crate) fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    pub(crate) fn seconds(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }
}
