//! Sliding attacks by magic lookup in the tables `build.rs` generated.
//!
//! A queen's rays are split into an orthogonal and a diagonal half, each with
//! its own magic: two multiplications and two loads per square.
//!
//! ```
//! use yolah::{attacks, Bitboard, Square};
//!
//! let d4 = Square::parse("d4").unwrap();
//! // On an empty board a queen in the centre reaches 27 squares.
//! assert_eq!(attacks::queen_attacks(d4, Bitboard::EMPTY).count(), 27);
//! ```

use crate::{Bitboard, Square};

/// The magic hash of one slider on one square.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Magic {
    /// Squares whose occupancy matters (rays without their last square);
    /// with black magics, every other square.
    pub mask: u64,
    /// The multiplier.
    pub magic: u64,
    /// `64 - bits`.
    pub shift: u32,
    /// Where local slot 0 of this square is in [`ATTACKS`], wrapped when
    /// the square's first used slot comes later.
    pub offset: usize,
}

impl Magic {
    /// The attacks for `occupied`, by lookup: one OR (black magics) or AND
    /// (white), one multiply, one shift and one load.
    #[inline(always)]
    fn attacks(&self, occupied: u64) -> u64 {
        let key = if BLACK_MAGICS {
            occupied | self.mask
        } else {
            occupied & self.mask
        };
        let local = key.wrapping_mul(self.magic) >> self.shift;
        ATTACKS[self.offset.wrapping_add(local as usize)]
    }
}

include!(concat!(env!("OUT_DIR"), "/magic_tables.rs"));

/// Squares attacked along ranks and files from `sq`: each ray up to and
/// including its first square in `occupied`.
#[inline(always)]
pub fn orthogonal_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    Bitboard(MAGICS[sq.index()][0].attacks(occupied.0))
}

/// Squares attacked along diagonals from `sq`.
#[inline(always)]
pub fn diagonal_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    Bitboard(MAGICS[sq.index()][1].attacks(occupied.0))
}

/// Squares attacked like a queen from `sq`.
#[inline(always)]
pub fn queen_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    let [ortho, diag] = &MAGICS[sq.index()];
    Bitboard(ortho.attacks(occupied.0) | diag.attacks(occupied.0))
}

/// The squares a Yolah piece on `sq` can move to: queen rays that stop
/// before any piece or hole in `blockers`.
///
/// ```text
/// piece Q on d4, blockers x         queen_moves (*)
///
/// 8 | . . . . . . . .               8 | . . . . . . . *
/// 7 | . . . x . . . .               7 | . . . x . . * .
/// 6 | . x . . . . . .               6 | . x . * . * . .
/// 5 | . . . . . . . .               5 | . . * * * . . .
/// 4 | . . . Q . . x .               4 | * * * Q * * x .
/// 3 | . . . . . . . .               3 | . . * * * . . .
/// 2 | . . . . . . . .               2 | . * . * . * . .
/// 1 | . . . . . . . .               1 | * . . * . . * .
/// ```
#[inline(always)]
pub fn queen_moves(sq: Square, blockers: Bitboard) -> Bitboard {
    queen_attacks(sq, blockers) & !blockers
}

/// The squares a blocker on `to` hides from a queen on `from` (`to` and the
/// rest of the line behind it; empty if they are not aligned). When `to` is
/// free, `queen_moves(from, blockers | to) == queen_moves(from, blockers) &
/// !shadow(from, to)`: one load instead of two magic lookups.
#[inline(always)]
pub fn shadow(from: Square, to: Square) -> Bitboard {
    Bitboard(SHADOWS[from.index()][to.index()])
}

#[cfg(test)]
mod tests {
    use super::*;
    use yolah_geometry::rays::queen_attacks_slow;

    #[test]
    fn drawn_example_matches() {
        let sq = |s| Square::parse(s).unwrap();
        let blockers: Bitboard = ["d7", "b6", "g4"].into_iter().map(sq).collect();
        let moves = queen_moves(sq("d4"), blockers);
        assert_eq!(moves, queen_attacks_slow(sq("d4"), blockers) & !blockers);
        assert_eq!(moves.count(), 21);
        assert!(!moves.contains(sq("d7")) && moves.contains(sq("d6")));
        assert!(!moves.contains(sq("a7")) && moves.contains(sq("c5")));
    }
}
