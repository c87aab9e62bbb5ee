//! ProbCut (Buro's, from Othello programs): far enough from the horizon, a
//! node whose static value is well beyond its window is first searched
//! [`PC_REDUCTION`] plies shallower with a window moved [`PC_MARGIN`]
//! further out; when that shallow search confirms it, the node is cut
//! without the full search. A shallow search's value predicts a deeper
//! one's closely in this game (the evaluation sees territory, which moves
//! little from one ply to the next), so the margin can be small. It is the
//! `pc` search option (search-log row 54).

use super::Worker;
use crate::eval::Evaluator;
use crate::score::DECIDED;
use yolah::Position;

/// ProbCut works this many plies or more from the horizon...
const PC_DEPTH: u32 = 5;
/// ...searching this many plies less deep...
const PC_REDUCTION: u32 = 4;
/// ...with its window this far beyond beta (or below alpha), in
/// centipoints. The static value must be beyond it as well.
const PC_MARGIN: i32 = 100;

impl<E: Evaluator> Worker<'_, E> {
    /// ProbCut at a null-window node `depth` plies from the horizon: the
    /// score to return, or `None` to search the node. When the node is far
    /// enough from the horizon and its window not decided, and its static
    /// value (evaluated into `static_value` if it was not yet) is beyond
    /// the window by [`PC_MARGIN`], a shallow search decides: it shows the
    /// node's value above `beta + PC_MARGIN` (the node fails high: `beta`)
    /// or below `alpha - PC_MARGIN` (it fails low: `alpha`). Only tried on
    /// the side the static value points to. `Some(0)` if the search was
    /// stopped meanwhile.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn probcut(
        &mut self,
        pos: &Position,
        state: &E::State,
        key: u64,
        depth: u32,
        alpha: i32,
        beta: i32,
        ply: u32,
        static_value: &mut Option<i32>,
    ) -> Option<i32> {
        debug_assert_eq!(beta - alpha, 1, "ProbCut is for null-window nodes");
        if depth < PC_DEPTH || beta.abs() >= DECIDED || alpha.abs() >= DECIDED {
            return None;
        }
        let eval = self.static_value(static_value, pos, state, ply);
        let shallow = depth - PC_REDUCTION;
        let cut = if eval >= beta + PC_MARGIN {
            let bound = beta + PC_MARGIN;
            let s = self.search(pos, state, key, shallow, bound - 1, bound, ply);
            (s >= bound).then_some(beta)
        } else if eval <= alpha - PC_MARGIN {
            let bound = alpha - PC_MARGIN;
            let s = self.search(pos, state, key, shallow, bound, bound + 1, ply);
            (s <= bound).then_some(alpha)
        } else {
            None
        };
        if self.aborted {
            Some(0)
        } else {
            cut
        }
    }
}
