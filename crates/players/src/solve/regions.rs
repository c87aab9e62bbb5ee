//! Separated regions: once no free square can be reached by both sides,
//! neither side can hinder the other any more, and each side's remaining
//! points are the longest sequence of moves its pieces can make inside its
//! own free squares. That is a longest-path problem per region, solved here
//! exactly by depth-first search, memoised on the region's free squares and
//! the pieces in it, and cut short as soon as a sequence visits every
//! square of the region (no sequence can be longer).
//!
//! Regions are the free squares connected in king steps (a queen's slide
//! never leaves them). Two sides are separated when no free square is in
//! reach of both; holes and pieces never become free again, so they stay so.

use super::Solver;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use yolah::attacks::queen_moves;
use yolah::Bitboard;

/// The most region results a solver keeps; the memo starts afresh when
/// full.
pub(super) const MEMO_ENTRIES: usize = 1 << 21;

/// The same for a search thread's regions-only solver
/// ([`Solver::for_regions`]): each thread has one, and its regions are
/// small.
pub(super) const SEARCH_MEMO_ENTRIES: usize = 1 << 17;

/// The free squares reachable from `pieces` in king steps through `free`.
pub(crate) fn flood(pieces: Bitboard, free: Bitboard) -> Bitboard {
    let mut reached = pieces.neighbours() & free;
    loop {
        let next = reached | (reached.neighbours() & free);
        if next == reached {
            return reached;
        }
        reached = next;
    }
}

/// The free squares each side reaches (`flood` of `us` and of `them`), if
/// no square is reached by both; `None` as soon as the two floods meet,
/// which in most positions is after a step or two.
pub(crate) fn apart(us: Bitboard, them: Bitboard, free: Bitboard) -> Option<(Bitboard, Bitboard)> {
    let mut ours = us.neighbours() & free;
    let mut theirs = them.neighbours() & free;
    loop {
        if !(ours & theirs).is_empty() {
            return None;
        }
        let more_ours = ours | (ours.neighbours() & free);
        let more_theirs = theirs | (theirs.neighbours() & free);
        if more_ours == ours && more_theirs == theirs {
            return Some((ours, theirs));
        }
        ours = more_ours;
        theirs = more_theirs;
    }
}

/// Region results, keyed on (free squares, pieces).
pub(super) type Memo = HashMap<(u64, u64), u8, BuildHasherDefault<MixHasher>>;

/// A hasher for two bitboards: a multiply-xorshift mix (the keys are not
/// chosen by anyone hostile, and the default SipHash costs more than the
/// search it saves).
#[derive(Default)]
pub(super) struct MixHasher(u64);

impl Hasher for MixHasher {
    fn finish(&self) -> u64 {
        let x = self.0.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        x ^ (x >> 29)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(23) ^ n).wrapping_mul(0xA076_1D64_78BD_642F);
    }
}

impl Solver {
    /// The most moves `pieces` can still make with `free` as the only free
    /// squares they can reach (no opponent piece can enter them). Each
    /// region of `free` counts on its own. Returns 0 after an abort.
    pub(super) fn longest(&mut self, free: Bitboard, pieces: Bitboard) -> u32 {
        let mut total = 0;
        let mut rest = pieces;
        while let Some(first) = rest.into_iter().next() {
            // A region: the free squares and pieces connected to `first` in
            // king steps through both (a piece may touch several pockets of
            // free squares, and join them).
            let connected = flood(first.bitboard(), free | pieces) | first.bitboard();
            let group = connected & pieces;
            total += self.longest_in_region(connected & free, group);
            rest &= !group;
        }
        total
    }

    /// [`Solver::longest`] for one connected region and the pieces in it.
    fn longest_in_region(&mut self, region: Bitboard, pieces: Bitboard) -> u32 {
        let bound = region.count();
        if bound <= 1 {
            // Any piece next to a lone free square can step onto it.
            return bound;
        }
        if let Some(&known) = self.memo.get(&(region.0, pieces.0)) {
            return u32::from(known);
        }
        let mut best = 0;
        'search: for from in pieces {
            for to in queen_moves(from, !region) {
                if !self.count_node() {
                    return 0;
                }
                let after = (pieces & !from.bitboard()) | to.bitboard();
                let length = 1 + self.longest(region & !to.bitboard(), after);
                if self.aborted {
                    return 0;
                }
                if length > best {
                    best = length;
                    if best == bound {
                        break 'search;
                    }
                }
            }
        }
        if self.memo.len() >= self.memo_entries {
            self.memo.clear();
        }
        self.memo.insert((region.0, pieces.0), best as u8);
        best
    }

    /// A move of `pieces` that keeps the longest sequence in `free` going,
    /// if they can move at all.
    pub(super) fn longest_move(&mut self, free: Bitboard, pieces: Bitboard) -> Option<yolah::Move> {
        let target = self.longest(free, pieces);
        for from in pieces {
            for to in queen_moves(from, !free) {
                let after = (pieces & !from.bitboard()) | to.bitboard();
                if 1 + self.longest(free & !to.bitboard(), after) == target {
                    return Some(yolah::Move::new(from, to));
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use yolah::Square;

    /// Plain exhaustive search: every sequence, no memo, no bound.
    fn longest_slow(free: Bitboard, pieces: Bitboard) -> u32 {
        let mut best = 0;
        for from in pieces {
            for to in queen_moves(from, !free) {
                let after = (pieces & !from.bitboard()) | to.bitboard();
                best = best.max(1 + longest_slow(free & !to.bitboard(), after));
            }
        }
        best
    }

    #[test]
    fn longest_paths_match_exhaustive_search() {
        let mut rng = yolah::Rng::new(3);
        let mut solver = Solver::new();
        for _ in 0..300 {
            // A random corner of the board with one to three pieces.
            let window =
                Bitboard(0x0000_00FF_FFFF_FFFF) & Bitboard(rng.next_u64() | rng.next_u64());
            let squares: Vec<Square> = window.into_iter().collect();
            let mut pieces = Bitboard::EMPTY;
            for _ in 0..1 + rng.below(3) {
                pieces |= squares[rng.below(squares.len() as u32) as usize].bitboard();
            }
            let free =
                window & !pieces & Bitboard(rng.next_u64() | rng.next_u64() | rng.next_u64());
            let free = flood(pieces, free);
            if free.count() > 8 {
                continue;
            }
            assert_eq!(
                solver.longest(free, pieces),
                longest_slow(free, pieces),
                "free {free:?} pieces {pieces:?}"
            );
        }
    }

    #[test]
    fn a_straight_corridor_is_walked_end_to_end() {
        // A piece on a1 with b1..h1 free walks the whole rank: 7 moves.
        let rank = Bitboard::rank(0);
        let a1 = Square::new(0).unwrap().bitboard();
        let mut solver = Solver::new();
        assert_eq!(solver.longest(rank & !a1, a1), 7);
        let m = solver.longest_move(rank & !a1, a1).unwrap();
        assert_eq!(m.to_string(), "a1:b1", "one step at a time");
    }
}
