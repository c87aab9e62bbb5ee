//! How much a search may do, and the clock that enforces a time budget.

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
}

/// A deadline for time budgets, checked cheaply.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Clock {
    start: Instant,
    deadline: Option<Instant>,
}

impl Clock {
    /// Starts now; only a [`Budget::Time`] has a deadline.
    pub(crate) fn start(budget: Budget) -> Clock {
        let start = Instant::now();
        let deadline = match budget {
            Budget::Time(t) => Some(start + t),
            Budget::Depth(_) | Budget::Count(_) => None,
        };
        Clock { start, deadline }
    }

    pub(crate) fn expired(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    pub(crate) fn seconds(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }
}
