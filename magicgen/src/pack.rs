//! Blocks of attack-table slots and the shared table they are packed into.
//!
//! A magic for one square fills a *block*: the slots its occupancies hash
//! to, each holding an attack set. Two blocks may share a slot of the
//! table when they put the same attack set there (never, in practice,
//! between squares: attack sets differ) or when one of them leaves it
//! unused, so blocks with holes interleave. The table only keeps the span
//! from the first used slot to the last, so a block is stored relative to
//! its first used slot.

use crate::geometry::{relevant_mask, slider_attacks_slow, subsets, Slider};
use crate::magics::{local_index, Indexing};
use crate::types::Square;

/// The used slots of one magic's block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// The local index of the first used slot.
    pub first: u32,
    /// Used slots relative to `first`, ascending, with their attack sets.
    pub slots: Vec<(u32, u64)>,
}

impl Block {
    /// The block of `magic` with `bits` index bits for `slider` on `square`,
    /// or `None` when two occupancies with different attacks share a slot.
    pub fn new(
        indexing: Indexing,
        slider: Slider,
        square: Square,
        magic: u64,
        bits: u32,
    ) -> Option<Block> {
        let mask = relevant_mask(slider, square);
        let mut slots: Vec<(u32, u64)> = subsets(mask)
            .map(|occ| {
                let att = slider_attacks_slow(slider, square, occ).0;
                (local_index(indexing, mask, magic, bits, occ) as u32, att)
            })
            .collect();
        slots.sort_unstable();
        slots.dedup();
        if slots.windows(2).any(|w| w[0].0 == w[1].0) {
            return None;
        }
        let first = slots.first()?.0;
        for s in &mut slots {
            s.0 -= first;
        }
        Some(Block { first, slots })
    }

    /// Slots from the first used one to the last, both included.
    pub fn span(&self) -> u32 {
        self.slots.last().map_or(0, |s| s.0 + 1)
    }

    /// Slots the block uses.
    pub fn used(&self) -> u32 {
        self.slots.len() as u32
    }
}

/// The shared table being packed: each slot's attack set (0 = free: no
/// attack set is empty) and how many placed blocks use it.
#[derive(Clone, Debug, Default)]
pub struct Table {
    values: Vec<u64>,
    users: Vec<u16>,
}

impl Table {
    /// Whether `block` can sit with its first used slot at `at`.
    pub fn fits(&self, block: &Block, at: usize) -> bool {
        block.slots.iter().all(|&(rel, att)| {
            let v = self.values.get(at + rel as usize).copied().unwrap_or(0);
            v == 0 || v == att
        })
    }

    /// The lowest position from `from` on where `block` fits.
    pub fn first_fit(&self, block: &Block, from: usize) -> usize {
        let (first_rel, first_att) = block.slots[0];
        debug_assert_eq!(first_rel, 0);
        let mut at = from;
        loop {
            // The first slot alone rules most positions out.
            let v = self.values.get(at).copied().unwrap_or(0);
            if (v == 0 || v == first_att) && self.fits(block, at) {
                return at;
            }
            at += 1;
        }
    }

    /// Puts `block` at `at` (where it fits).
    pub fn place(&mut self, block: &Block, at: usize) {
        let end = at + block.span() as usize;
        if self.values.len() < end {
            self.values.resize(end, 0);
            self.users.resize(end, 0);
        }
        for &(rel, att) in &block.slots {
            let i = at + rel as usize;
            debug_assert!(self.values[i] == 0 || self.values[i] == att);
            self.values[i] = att;
            self.users[i] += 1;
        }
    }

    /// Takes `block`, placed at `at`, out again.
    pub fn remove(&mut self, block: &Block, at: usize) {
        for &(rel, _) in &block.slots {
            let i = at + rel as usize;
            self.users[i] -= 1;
            if self.users[i] == 0 {
                self.values[i] = 0;
            }
        }
        while self.users.last() == Some(&0) {
            self.users.pop();
            self.values.pop();
        }
    }

    /// One past the last used slot: the table's length.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no slot is used.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Used slots.
    pub fn used(&self) -> usize {
        self.users.iter().filter(|&&u| u > 0).count()
    }
}

/// The free slots of a table under construction, one bit each. A block
/// fits at a position when every one of its used slots is free there; the
/// test runs for 64 positions at a time: the word of free bits under each
/// used slot, shifted to the candidate positions, is ANDed in until nothing
/// is left, which in a full region is after one or two slots.
#[derive(Clone, Debug)]
pub struct FreeMap {
    words: Vec<u64>,
}

impl FreeMap {
    /// At least `slots` slots, all free (the bitmap keeps a spare word so
    /// that a window may read one word past the last slot).
    pub fn new(slots: usize) -> FreeMap {
        FreeMap {
            words: vec![!0; slots / 64 + 2],
        }
    }

    /// Slots the map can hold.
    pub fn capacity(&self) -> usize {
        (self.words.len() - 1) * 64
    }

    /// Makes room for at least `slots` slots (the new ones free).
    pub fn grow_to(&mut self, slots: usize) {
        if self.capacity() < slots {
            self.words.resize(slots / 64 + 2, !0);
        }
    }

    /// Bit `k` says whether slot `p + k` is free.
    #[inline(always)]
    fn window(&self, p: usize) -> u64 {
        let (w, b) = (p / 64, p % 64);
        if b == 0 {
            self.words[w]
        } else {
            (self.words[w] >> b) | (self.words[w + 1] << (64 - b))
        }
    }

    /// Free slots in `from..to`.
    pub fn count_free(&self, from: usize, to: usize) -> usize {
        let mut count = 0;
        let mut p = from;
        while p < to {
            let k = (to - p).min(64);
            let w = self.window(p);
            let m = if k == 64 { w } else { w & ((1u64 << k) - 1) };
            count += m.count_ones() as usize;
            p += k;
        }
        count
    }

    /// Whether slot `p` is free.
    pub fn is_free(&self, p: usize) -> bool {
        self.words[p / 64] >> (p % 64) & 1 == 1
    }

    /// Marks slot `p` used (`used = true`) or free.
    pub fn set_used(&mut self, p: usize, used: bool) {
        let bit = 1u64 << (p % 64);
        if used {
            self.words[p / 64] &= !bit;
        } else {
            self.words[p / 64] |= bit;
        }
    }

    /// The lowest position `at` in `from..limit` where every slot
    /// `at + rel` is free.
    pub fn lowest_fit(&self, rels: &[u32], from: usize, limit: usize) -> Option<usize> {
        let mut at = from;
        while at < limit {
            let mut m = if limit - at < 64 {
                (1u64 << (limit - at)) - 1
            } else {
                !0
            };
            for &r in rels {
                m &= self.window(at + r as usize);
                if m == 0 {
                    break;
                }
            }
            if m != 0 {
                return Some(at + m.trailing_zeros() as usize);
            }
            at += 64;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(name: &str) -> Square {
        Square::parse(name).unwrap()
    }

    #[test]
    fn blocks_interleave_where_their_holes_are() {
        let a = Block {
            first: 0,
            slots: vec![(0, 1), (2, 2), (4, 3)],
        };
        let b = Block {
            first: 5,
            slots: vec![(0, 7), (2, 8)],
        };
        let mut t = Table::default();
        t.place(&a, 0);
        assert_eq!(t.first_fit(&b, 0), 1);
        t.place(&b, 1);
        assert_eq!((t.len(), t.used()), (5, 5));
        t.remove(&a, 0);
        assert_eq!((t.len(), t.used()), (4, 2));
        t.remove(&b, 1);
        assert!(t.is_empty());
    }

    #[test]
    fn a_block_refuses_a_destructive_collision() {
        // Magic 0: every occupancy hashes to slot 0, and attacks differ.
        assert!(Block::new(Indexing::White, Slider::Orthogonal, sq("d4"), 0, 10).is_none());
        let set = crate::MagicSet::committed().unwrap();
        let e = set.entry(Slider::Diagonal, sq("c1"));
        let b = Block::new(set.indexing, e.slider, e.square, e.magic, e.bits).unwrap();
        assert!(b.span() <= 1 << e.bits);
        assert_eq!(b.slots[0].0, 0);
    }

    #[test]
    fn lowest_fit_finds_the_first_position_where_all_slots_are_free() {
        let mut m = FreeMap::new(256);
        for p in [0, 1, 2, 4, 70, 72] {
            m.set_used(p, true);
        }
        assert_eq!(m.lowest_fit(&[0, 2], 0, 200), Some(3));
        assert_eq!(m.lowest_fit(&[0, 1, 2], 0, 200), Some(5));
        assert_eq!(m.lowest_fit(&[0, 2], 69, 200), Some(69));
        assert_eq!(m.lowest_fit(&[0, 2], 70, 200), Some(71));
        assert_eq!(m.lowest_fit(&[0, 66], 0, 5), Some(3));
        assert_eq!(m.lowest_fit(&[0], 0, 3), None);
        assert_eq!(m.count_free(0, 256), 256 - 6);
        assert_eq!(m.count_free(3, 71), 68 - 2);
        assert_eq!(m.count_free(72, 73), 0);
    }
}
