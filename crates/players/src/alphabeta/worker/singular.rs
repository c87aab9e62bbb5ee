//! Singular extensions: when the table's move at a node looks much better
//! than every other, it is searched a ply deeper, since the node's value
//! rests on it alone. "Much better" is tested, not assumed: the node is
//! searched again without that move, shallower and with a null window a
//! margin below the table's score; if nothing else reaches it, the move is
//! singular. If the other moves reach beta instead, the node is cut at once
//! (a "multi-cut": several moves refute the opponent's choice). It is the
//! `se` search option.

use super::Worker;
use crate::eval::Evaluator;
use crate::score::DECIDED;
use crate::table::{Bound, Entry};
use yolah::{Move, Position};

/// What the test of the table's move decided.
pub(super) enum Singular {
    /// Search the move this many plies deeper than the others (0 or 1).
    Extend(u32),
    /// Cut the node with this score: other moves than the table's also
    /// reach beta.
    Cut(i32),
}

impl<E: Evaluator> Worker<'_, E> {
    /// Tests whether `m`, the table's move at a node `depth` plies from the
    /// horizon whose table entry is `entry` (score `table_score` at this
    /// ply), is singular. Only from [`SE_DEPTH`] plies on, for an entry
    /// searched at most [`SE_ENTRY_SLACK`] plies less deep that is a lower
    /// bound or exact and not decided, and while the line is shorter than
    /// twice the iteration's depth (extensions must not run away).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn singular(
        &mut self,
        pos: &Position,
        state: &E::State,
        key: u64,
        m: Move,
        entry: Entry,
        table_score: i32,
        depth: u32,
        beta: i32,
        ply: u32,
    ) -> Singular {
        let worth_testing = depth >= SE_DEPTH
            && u32::from(entry.depth) + SE_ENTRY_SLACK >= depth
            && entry.bound != Bound::Upper
            && table_score.abs() < DECIDED
            && ply < 2 * self.root_depth;
        if !worth_testing {
            return Singular::Extend(0);
        }
        let singular_beta = table_score - SE_MARGIN * depth as i32;
        self.excluded[ply as usize] = Some(m);
        let others = self.search(
            pos,
            state,
            key,
            (depth - 1) / 2,
            singular_beta - 1,
            singular_beta,
            ply,
        );
        self.excluded[ply as usize] = None;
        if self.aborted {
            Singular::Extend(0)
        } else if others < singular_beta {
            Singular::Extend(1)
        } else if singular_beta >= beta {
            Singular::Cut(singular_beta)
        } else {
            Singular::Extend(0)
        }
    }
}

/// Singular extensions are tried this many plies or more from the
/// horizon...
const SE_DEPTH: u32 = 6;
/// ...when the table's entry is at most this many plies shallower...
const SE_ENTRY_SLACK: u32 = 3;
/// ...and the other moves must stay this far below the table's score per
/// ply from the horizon (centipoints: a point is 100).
const SE_MARGIN: i32 = 2;
