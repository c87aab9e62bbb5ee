//! Handing endgames to the exact solver: once few free squares are left,
//! a search first asks [`Solver::result_within`] for a proven result with a
//! share of its budget, so that a won endgame is never played by estimate.

use crate::budget::{Budget, Stop};
use crate::player::Analysis;
use crate::score::Score;
use crate::score::BOUND_WIN;
use crate::solve::{Limits, Solver};
use std::time::{Duration, Instant};
use yolah::Position;

/// The solver is tried once a position has at most this many free squares.
pub(super) const SOLVE_FREE: u32 = 26;
/// The solver may take one part in this many of the move's budget.
const SOLVE_SHARE: u32 = 4;
/// The solver's time when the search itself has no limit (analysis).
const UNLIMITED_SOLVE: Duration = Duration::from_secs(1);

/// What an attempt gave: a proven win or draw to play, or the budget left
/// for the ordinary search and the nodes the solver spent.
pub(super) enum Attempt {
    Solved(Analysis),
    Unsolved(Budget, u64),
}

/// Tries to prove a win or a draw in `pos` within a share of `budget`.
/// Depth budgets never try (a depth says how far to search, not how long).
/// A proven loss is left to the search, which may still find the line an
/// imperfect opponent gets wrong.
pub(super) fn attempt(
    solver: &mut Option<Solver>,
    pos: &Position,
    budget: Budget,
    stop: &Stop,
) -> Attempt {
    if pos.free().count() > SOLVE_FREE || matches!(budget, Budget::Depth(_)) {
        return Attempt::Unsolved(budget, 0);
    }
    let start = Instant::now();
    let limits = match budget {
        Budget::Time(t) => Limits {
            nodes: None,
            time: Some(t / SOLVE_SHARE),
        },
        Budget::Count(n) => Limits {
            nodes: Some(n / u64::from(SOLVE_SHARE)),
            time: None,
        },
        Budget::Infinite | Budget::Depth(_) => Limits {
            nodes: None,
            time: Some(UNLIMITED_SOLVE),
        },
    };
    let solver = solver.get_or_insert_with(Solver::new);
    let result = solver.result_within(pos, limits, stop);
    let nodes = solver.nodes();
    match result {
        Some((sign, best_move)) if sign >= 0 => Attempt::Solved(Analysis {
            best_move,
            score: Score::Centipoints(if sign > 0 { BOUND_WIN } else { 0 }),
            depth: None,
            iterations: None,
            nodes,
            seconds: start.elapsed().as_secs_f64(),
            pv: vec![best_move],
        }),
        _ => {
            let rest = match budget {
                Budget::Time(t) => Budget::Time(t.saturating_sub(start.elapsed())),
                Budget::Count(n) => Budget::Count(n.saturating_sub(nodes).max(1)),
                other => other,
            };
            Attempt::Unsolved(rest, nodes)
        }
    }
}
