//! Move ordering: the number each move of a node is sorted by (its order
//! key), highest first. The table's move, then the killers, then the
//! countermove, then (with `fo`) the moves that freeze an opponent's
//! piece, then the rest by history; or, far enough from the horizon with
//! `eo`, the rest by the static value they leave. And what a cut teaches
//! the tables these keys read.

use super::history::{
    continuation_index, move_index, with_gravity, CONTINUATIONS, CONTINUATION_CAP, HISTORY_CAP,
};
use super::Worker;
use crate::eval::Evaluator;
use yolah::{Move, Position};

/// The table's move's key: first.
const TABLE_KEY: i32 = 1 << 30;
/// The killers' keys, the first killer before the second.
const KILLER_KEYS: [i32; 2] = [1 << 29, 1 << 28];
/// The countermove's key: after the killers.
const COUNTERMOVE_KEY: i32 = KILLER_KEYS[1] - 1;
/// A move keyed below this (the countermove and every move after it) is
/// "late": late-move reductions apply to it.
pub(super) const LATE: i32 = KILLER_KEYS[1];
/// A freezing move's key, with `fo`, before half its history: below the
/// countermove, above the plain history.
const FREEZE_KEY: i32 = HISTORY_CAP;

/// What orders a node's moves, and what a cut among them teaches the
/// tables: read once when the node's search begins.
pub(super) struct MoveKeys {
    /// The table's move, if the table has one.
    pub(super) table_move: Option<Move>,
    /// The node's killers.
    pub(super) killers: [Move; 2],
    /// The countermove table's slot of the move that led to the node.
    pub(super) previous: usize,
    /// The countermove (with the option).
    pub(super) countermove: Option<Move>,
    /// The earlier moves the continuation history follows (`ch`).
    pub(super) followed: [Option<Move>; CONTINUATIONS],
    /// Whether the later moves go by the static value they leave.
    pub(super) evaluate_children: bool,
    /// Whether freezing moves go before the plain history (`fo`).
    pub(super) freeze_order: bool,
}

impl<E: Evaluator> Worker<'_, E> {
    /// Move `m`'s key at the node `pos` (whose evaluator state is `state`)
    /// at `ply`: higher is searched first. Inlined into the loop that keys
    /// a node's moves: called apart, saving and restoring registers had
    /// cost as much as the key itself.
    #[inline(always)]
    pub(super) fn order_key(
        &self,
        pos: &Position,
        state: &E::State,
        m: Move,
        ply: u32,
        keys: &MoveKeys,
    ) -> i32 {
        if Some(m) == keys.table_move {
            TABLE_KEY
        } else if m == keys.killers[0] {
            KILLER_KEYS[0]
        } else if m == keys.killers[1] {
            KILLER_KEYS[1]
        } else if Some(m) == keys.countermove {
            COUNTERMOVE_KEY
        } else if keys.evaluate_children {
            // The child's value is the opponent's: lower is better.
            let mut child = *pos;
            child.play(m);
            let cs = self.evaluator.child_state(state, pos, m);
            -self.evaluator.evaluate(&child, &cs, ply + 1)
        } else if keys.freeze_order && super::freeze::freezes(pos, m) {
            // Halved to fit below the countermove; with `ch` a move's
            // history sum may pass it.
            FREEZE_KEY + self.history_score(m, &keys.followed).min(FREEZE_KEY - 1) / 2
        } else {
            self.history_score(m, &keys.followed)
        }
    }

    /// Move `m`'s history score: the plain history, and with `ch` what it
    /// earned after each of the `followed` earlier moves.
    #[inline]
    fn history_score(&self, m: Move, followed: &[Option<Move>; CONTINUATIONS]) -> i32 {
        let h = &self.heuristics;
        (1..)
            .zip(followed)
            .filter_map(|(back, e)| e.map(|e| h.continuation[continuation_index(back, e, m)]))
            .fold(h.history[move_index(m)], |sum, c| sum + c)
    }
}

impl<E: Evaluator> Worker<'_, E> {
    /// Move `m` cut the node `depth` plies from the horizon at `ply`, after
    /// the moves `tried` failed to: it becomes the first killer and the
    /// countermove, and its history (and continuation history) gains
    /// depth²; with `hm`, the moves tried before it lose as much (the move
    /// a singular test leaves out among them). The killers are shifted from
    /// `cut.killers`, read when the node's search began: a singular test
    /// at the same ply may have changed the table's since.
    pub(super) fn reward_cut(
        &mut self,
        m: Move,
        tried: &[Move],
        depth: u32,
        ply: u32,
        cut: &MoveKeys,
    ) {
        let malus = self.shared.options.history_malus;
        let heuristics = &mut *self.heuristics;
        if m != cut.killers[0] {
            heuristics.killers[ply as usize] = [m, cut.killers[0]];
        }
        let bonus = (depth * depth) as i32;
        let history = &mut heuristics.history;
        if malus {
            for tried in tried {
                let h = &mut history[move_index(*tried)];
                *h = with_gravity(*h, -bonus);
            }
        }
        let h = &mut history[move_index(m)];
        *h = if malus {
            with_gravity(*h, bonus)
        } else {
            (*h + bonus).min(HISTORY_CAP)
        };
        for (back, e) in (1..).zip(cut.followed) {
            if let Some(e) = e {
                let h = &mut heuristics.continuation[continuation_index(back, e, m)];
                *h = (*h + bonus).min(CONTINUATION_CAP);
            }
        }
        heuristics.countermoves[cut.previous] = m;
    }
}
