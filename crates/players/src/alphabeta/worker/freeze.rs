//! Freezing moves: a move that takes the last free square next to one of
//! the opponent's pieces leaves that piece with no move for the rest of the
//! game (the square it would need can only fill up further). The `fo`
//! search option orders them after the killers and the countermove, before
//! the moves ordered by history alone (`ordering.rs`).

use yolah::{Move, Position};

/// Whether `m` leaves an opponent's piece with no move: a piece next to the
/// square `m` lands on, whose only free neighbour that square was.
pub(super) fn freezes(pos: &Position, m: Move) -> bool {
    if m.is_pass() {
        return false;
    }
    let to = m.to().bitboard();
    let free = pos.free();
    let them = pos.pieces(pos.side_to_move().opponent()) & to.neighbours();
    them.into_iter()
        .any(|sq| sq.bitboard().neighbours() & free == to)
}

#[cfg(test)]
mod tests {
    use super::*;
    use yolah::attacks::queen_moves;
    use yolah::{Bitboard, Color, Rng};

    /// The pieces of `color` that have a move in `pos`.
    fn mobile(pos: &Position, color: Color) -> Bitboard {
        pos.pieces(color)
            .into_iter()
            .filter(|&sq| !queen_moves(sq, pos.blockers()).is_empty())
            .collect()
    }

    #[test]
    fn a_freezing_move_is_one_that_leaves_a_mobile_enemy_piece_stuck() {
        // By the definition rather than the neighbour test: some opponent's
        // piece that could move before `m` cannot after it (pieces do not
        // move on the mover's turn, so the same squares are compared).
        let mut rng = Rng::new(7);
        let (mut seen, mut frozen) = (0, 0);
        for _ in 0..200 {
            let mut pos = Position::START;
            while !pos.is_game_over() {
                let them = pos.side_to_move().opponent();
                let before = mobile(&pos, them);
                for &m in pos.legal_moves().iter() {
                    let mut child = pos;
                    child.play(m);
                    let after = mobile(&child, them);
                    let expected = !m.is_pass() && !(before & !after).is_empty();
                    assert_eq!(freezes(&pos, m), expected, "{m} in {}", pos.to_text());
                    seen += 1;
                    frozen += usize::from(expected);
                }
                pos.play(pos.random_move(&mut rng));
            }
        }
        assert!(frozen > 100 && frozen < seen / 10, "{frozen} of {seen}");
    }
}
