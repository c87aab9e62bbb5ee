//! The eight symmetries of the board.
//!
//! A queen slides the same way on a mirrored or rotated board, so the rules,
//! and everything the evaluation measures, are the same in all eight
//! images of a position. Training uses this to see eight positions for
//! every one it was given.
//!
//! ```
//! use yolah::{Position, Symmetry};
//!
//! let pos: Position = "w6b/8/8/3bw3/3wb3/8/8/b6w b 0 0 0".parse().unwrap();
//! for s in Symmetry::ALL {
//!     assert_eq!(pos.transformed(s).legal_moves().len(), 56);
//! }
//! ```

use crate::{Bitboard, Move, Position, Square};

/// One of the eight symmetries: an optional flip in the a1-h8 diagonal,
/// then optional left-right and top-bottom mirrors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Symmetry(u8);

impl Symmetry {
    /// Leaves the board as it is.
    pub const IDENTITY: Symmetry = Symmetry(0);
    const HORIZONTAL: u8 = 1;
    const VERTICAL: u8 = 2;
    const DIAGONAL: u8 = 4;

    /// All eight, the identity first.
    pub const ALL: [Symmetry; 8] = [
        Symmetry(0),
        Symmetry(1),
        Symmetry(2),
        Symmetry(3),
        Symmetry(4),
        Symmetry(5),
        Symmetry(6),
        Symmetry(7),
    ];

    /// The symmetry numbered `n` modulo 8.
    pub const fn from_index(n: usize) -> Symmetry {
        Symmetry((n & 7) as u8)
    }

    /// The image of a set of squares.
    #[inline]
    pub const fn apply(self, mut b: Bitboard) -> Bitboard {
        if self.0 & Symmetry::DIAGONAL != 0 {
            b = b.flip_diagonal();
        }
        if self.0 & Symmetry::HORIZONTAL != 0 {
            b = b.flip_horizontal();
        }
        if self.0 & Symmetry::VERTICAL != 0 {
            b = b.flip_vertical();
        }
        b
    }

    /// The image of a square.
    pub const fn apply_square(self, sq: Square) -> Square {
        Square::new_masked(self.apply(sq.bitboard()).0.trailing_zeros())
    }

    /// The image of a move (the pass stays the pass).
    pub fn apply_move(self, m: Move) -> Move {
        if m.is_pass() {
            m
        } else {
            Move::new(self.apply_square(m.from()), self.apply_square(m.to()))
        }
    }
}

impl Position {
    /// The image of the position under `s`: same scores, same side to move.
    pub fn transformed(&self, s: Symmetry) -> Position {
        Position {
            black: s.apply(self.black),
            white: s.apply(self.white),
            holes: s.apply(self.holes),
            ..*self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Color, Rng};

    #[test]
    fn the_symmetries_are_eight_distinct_ones() {
        let corner_and_neighbour = |s: Symmetry| {
            (
                s.apply_square(Square::parse("a1").unwrap()),
                s.apply_square(Square::parse("b1").unwrap()),
            )
        };
        let images: std::collections::HashSet<_> = Symmetry::ALL
            .iter()
            .map(|&s| corner_and_neighbour(s))
            .collect();
        assert_eq!(images.len(), 8);
    }

    #[test]
    fn moves_and_scores_are_the_same_in_every_image() {
        let mut rng = Rng::new(11);
        for _ in 0..50 {
            let mut pos = Position::START;
            while !pos.is_game_over() {
                for s in Symmetry::ALL {
                    let image = pos.transformed(s);
                    let mut expected: Vec<Move> =
                        pos.legal_moves().iter().map(|&m| s.apply_move(m)).collect();
                    let mut actual: Vec<Move> = image.legal_moves().iter().copied().collect();
                    expected.sort_by_key(|m| m.to_u16());
                    actual.sort_by_key(|m| m.to_u16());
                    assert_eq!(actual, expected);
                    assert_eq!(
                        (image.score(Color::Black), image.score(Color::White)),
                        (pos.score(Color::Black), pos.score(Color::White))
                    );
                    assert_eq!(image.is_game_over(), pos.is_game_over());
                }
                pos.play(pos.random_move(&mut rng));
            }
        }
    }
}
