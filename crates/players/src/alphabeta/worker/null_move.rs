//! Null-move pruning: the side to move passes, and if the opponent still
//! cannot bring the score below beta with a shallower search, the node is
//! cut. Yolah has no legal pass while a move exists, so the null move is a
//! bet that moving is worth something; [`NMP_VERIFY_DEPTH`] plies from the
//! horizon a cut is checked by a shallow search of the node's own moves.
//! It is the `nmp` search option (off by default: search-log row 17).

use super::Worker;
use crate::eval::Evaluator;
use crate::score::DECIDED;
use yolah::zobrist::key_after;
use yolah::{Move, Position};

impl<E: Evaluator> Worker<'_, E> {
    /// Null-move pruning at a node `depth` plies from the horizon: the side
    /// to move passes and the opponent's reply is searched
    /// [`null_move_reduction`] plies less deep, with a null window at
    /// `beta`. The score to return when the node is cut, or `None`. From
    /// [`NMP_VERIFY_DEPTH`] on, a cut is first verified by a search of the
    /// node's own moves as shallow, with no null move in its first plies:
    /// the pass is not a legal move in Yolah, and a position where every
    /// move hurts (zugzwang) would otherwise be cut on a false premise.
    pub(super) fn null_move(
        &mut self,
        pos: &Position,
        state: &E::State,
        key: u64,
        depth: u32,
        beta: i32,
        ply: u32,
    ) -> Option<i32> {
        let reduced = depth.saturating_sub(1 + null_move_reduction(depth));
        let (child, child_state, child_key) = null_child(self.evaluator, pos, state, key);
        self.line[ply as usize] = Move::PASS;
        let score = -self.search(
            &child,
            &child_state,
            child_key,
            reduced,
            -beta,
            -beta + 1,
            ply + 1,
        );
        if self.aborted || score < beta {
            return None;
        }
        // A win found after a pass is not proven: only the cut is.
        let score = if score > DECIDED { beta } else { score };
        if depth < NMP_VERIFY_DEPTH {
            return Some(score);
        }
        let floor = self.null_move_floor;
        self.null_move_floor = ply + 3 * reduced / 4;
        let verified = self.search(pos, state, key, reduced, beta - 1, beta, ply);
        self.null_move_floor = floor;
        (verified >= beta && !self.aborted).then_some(score)
    }
}

/// `pos` after its side to move passes, with its evaluation state and key,
/// as the search makes any child: only the side to move changes.
fn null_child<E: Evaluator>(
    evaluator: &E,
    pos: &Position,
    state: &E::State,
    key: u64,
) -> (Position, E::State, u64) {
    let mut child = *pos;
    child.play(Move::PASS);
    let child_state = evaluator.child_state(state, pos, Move::PASS);
    (child, child_state, key_after(key, pos, Move::PASS))
}

/// Null-move pruning works this many plies or more from the horizon...
pub(super) const NMP_DEPTH: u32 = 3;
/// ...and verifies its cuts this many plies or more from it.
const NMP_VERIFY_DEPTH: u32 = 10;

/// How many plies less than a move the null move's reply is searched:
/// 3, and one more every 4 plies from the horizon.
fn null_move_reduction(depth: u32) -> u32 {
    3 + depth / 4
}

#[cfg(test)]
mod tests {
    use super::*;
    use yolah::zobrist::key;

    /// The null move's key and network state are those of the passed
    /// position counted afresh, along random games, for both network
    /// formats.
    fn null_child_is_the_passed_position<E: Evaluator>(evaluator: &E)
    where
        E::State: PartialEq + std::fmt::Debug,
    {
        for seed in 0..20 {
            let mut rng = yolah::Rng::new(seed);
            let mut pos = Position::START;
            let mut state = evaluator.root_state(&pos);
            let mut k = key(&pos);
            while !pos.is_game_over() {
                let (child, child_state, child_key) = null_child(evaluator, &pos, &state, k);
                let mut passed = pos;
                passed.play(Move::PASS);
                assert_eq!(child, passed);
                assert_eq!(child.side_to_move(), pos.side_to_move().opponent());
                assert_eq!(child_key, key(&passed));
                assert_eq!(child_state, evaluator.root_state(&passed));
                assert_eq!(
                    evaluator.evaluate(&child, &child_state, 1),
                    evaluator.evaluate(&passed, &evaluator.root_state(&passed), 1)
                );
                let m = pos.random_move(&mut rng);
                state = evaluator.child_state(&state, &pos, m);
                k = key_after(k, &pos, m);
                pos.play(m);
            }
        }
    }

    #[test]
    fn the_null_move_keeps_key_and_network_state_consistent() {
        use crate::nn::{v2, FloatNet, QuantNet, DEFAULT_NET, GEN2_NET};
        let shipped = v2::FloatNet::from_bytes(DEFAULT_NET).expect("the shipped net loads");
        null_child_is_the_passed_position(&v2::quant::QuantNet::<256>::new(&shipped).unwrap());
        let gen2 = FloatNet::from_bytes(GEN2_NET).expect("gen2 loads");
        null_child_is_the_passed_position(&QuantNet::new(&gen2).unwrap());
        null_child_is_the_passed_position(&crate::eval::Weights::default());
    }
}
