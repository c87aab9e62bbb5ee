//! Sliding geometry: naive ray casting and the relevant-occupancy masks that
//! magic bitboards hash.
//!
//! Everything here is the slow, obviously correct reference. The generator
//! uses it to search magics, the build script to fill the lookup tables, and
//! the tests to check the fast lookups against it.

use crate::types::{Bitboard, Direction, Square};

/// The two halves of a queen's move: rook-like and bishop-like rays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Slider {
    /// North, south, east and west.
    Orthogonal,
    /// The four diagonals.
    Diagonal,
}

impl Slider {
    /// Both sliders, orthogonal first (the order of the constants file).
    pub const ALL: [Slider; 2] = [Slider::Orthogonal, Slider::Diagonal];

    /// The four directions of this slider.
    pub const fn directions(self) -> [Direction; 4] {
        match self {
            Slider::Orthogonal => Direction::ORTHOGONAL,
            Slider::Diagonal => Direction::DIAGONAL,
        }
    }

    /// The name used in the constants file: `orthogonal` or `diagonal`.
    pub const fn name(self) -> &'static str {
        match self {
            Slider::Orthogonal => "orthogonal",
            Slider::Diagonal => "diagonal",
        }
    }

    /// Parses [`Slider::name`].
    pub fn parse(text: &str) -> Option<Slider> {
        Slider::ALL.into_iter().find(|s| s.name() == text)
    }
}

/// The squares a slider on `sq` attacks when `occupied` holds the blockers:
/// each ray runs up to and including its first blocker, or to the edge.
///
/// This is the reference the magic tables must reproduce. Moves are the
/// attacks minus the occupied squares.
pub fn slider_attacks_slow(slider: Slider, sq: Square, occupied: Bitboard) -> Bitboard {
    let mut attacks = Bitboard::EMPTY;
    for dir in slider.directions() {
        let mut cur = sq;
        while let Some(next) = cur.offset(dir) {
            attacks |= next.bitboard();
            if occupied.contains(next) {
                break;
            }
            cur = next;
        }
    }
    attacks
}

/// The queen's attacks: orthogonal and diagonal together.
pub fn queen_attacks_slow(sq: Square, occupied: Bitboard) -> Bitboard {
    slider_attacks_slow(Slider::Orthogonal, sq, occupied)
        | slider_attacks_slow(Slider::Diagonal, sq, occupied)
}

/// The squares a blocker on `to` hides from a queen on `from`: `to` itself
/// and every square behind it on the line from `from`, up to the edge. Empty
/// when the two squares are not on one rank, file or diagonal (or are equal).
///
/// When `to` is free, `queen_moves(from, blockers | to)` is exactly
/// `queen_moves(from, blockers)` without `shadow(from, to)`: this is how the
/// engine updates moves after a piece lands on `to` without a new lookup.
///
/// ```text
/// shadow(b2, d4)
///
/// 8 | . . . . . . . x
/// 7 | . . . . . . x .
/// 6 | . . . . . x . .
/// 5 | . . . . x . . .
/// 4 | . . . x . . . .
/// 3 | . . . . . . . .
/// 2 | . F . . . . . .
/// 1 | . . . . . . . .
///     a b c d e f g h
/// ```
pub fn shadow_slow(from: Square, to: Square) -> Bitboard {
    let dirs = Direction::ORTHOGONAL.into_iter().chain(Direction::DIAGONAL);
    for dir in dirs {
        let mut cur = from;
        let mut behind = false;
        let mut shadow = Bitboard::EMPTY;
        while let Some(next) = cur.offset(dir) {
            behind |= next == to;
            if behind {
                shadow |= next.bitboard();
            }
            cur = next;
        }
        if behind {
            return shadow;
        }
    }
    Bitboard::EMPTY
}

/// The squares whose occupancy can change `slider`'s attacks from `sq`: the
/// empty-board attacks without the last square of each ray (a blocker on the
/// board's edge stops nothing further).
///
/// ```
/// use yolah_geometry::rays::{relevant_mask, Slider};
/// use yolah_geometry::Square;
///
/// let d3 = Square::parse("d3").unwrap();
/// assert_eq!(relevant_mask(Slider::Orthogonal, d3).count(), 10);
/// assert_eq!(relevant_mask(Slider::Diagonal, d3).count(), 7);
/// ```
pub fn relevant_mask(slider: Slider, sq: Square) -> Bitboard {
    let edges = ((Bitboard::RANK_1 | Bitboard::RANK_8) & !Bitboard::rank(sq.rank()))
        | ((Bitboard::FILE_A | Bitboard::FILE_H) & !Bitboard::file(sq.file()));
    slider_attacks_slow(slider, sq, Bitboard::EMPTY) & !edges
}

/// Every subset of `mask`, the empty set first, by the carry-rippler trick:
/// `next = (prev - mask) & mask`.
pub fn subsets(mask: Bitboard) -> impl Iterator<Item = Bitboard> {
    let m = mask.0;
    let mut next = Some(0u64);
    core::iter::from_fn(move || {
        let cur = next?;
        let succ = cur.wrapping_sub(m) & m;
        next = (succ != 0).then_some(succ);
        Some(Bitboard(cur))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subsets_are_all_distinct_and_complete() {
        let mask = Bitboard(0b1011_0000_0100);
        let all: Vec<u64> = subsets(mask).map(|b| b.0).collect();
        assert_eq!(all.len(), 16);
        let mut sorted = all.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 16);
        assert!(all.iter().all(|&b| b & !mask.0 == 0));
        assert_eq!(subsets(Bitboard::EMPTY).count(), 1);
    }

    #[test]
    fn masks_have_the_classic_sizes() {
        // Corner rook masks have 12 bits, centre bishop masks 9.
        let total: u32 = Square::all()
            .map(|sq| {
                (1u32 << relevant_mask(Slider::Orthogonal, sq).count())
                    + (1u32 << relevant_mask(Slider::Diagonal, sq).count())
            })
            .sum();
        assert_eq!(total, 107_648);
    }

    #[test]
    fn attacks_stop_at_the_first_blocker() {
        let d4 = Square::parse("d4").unwrap();
        let d6 = Square::parse("d6").unwrap();
        let attacks = slider_attacks_slow(Slider::Orthogonal, d4, d6.bitboard());
        assert!(attacks.contains(d6));
        assert!(!attacks.contains(Square::parse("d7").unwrap()));
        assert_eq!(attacks.count(), 3 + 2 + 3 + 4);
        assert_eq!(queen_attacks_slow(d4, Bitboard::EMPTY).count(), 27);
    }

    #[test]
    fn shadow_is_what_a_new_blocker_hides() {
        for from in Square::all() {
            for to in Square::all() {
                let hidden = queen_attacks_slow(from, Bitboard::EMPTY)
                    & !queen_attacks_slow(from, to.bitboard());
                let expected = if from == to { Bitboard::EMPTY } else { hidden };
                let shadow = shadow_slow(from, to);
                // The blocker itself is attacked but hidden as a target.
                let without_to = shadow & !to.bitboard();
                assert_eq!(without_to, expected, "{from} {to}");
                assert_eq!(
                    shadow.contains(to),
                    from != to && queen_attacks_slow(from, Bitboard::EMPTY).contains(to)
                );
            }
        }
    }
}
