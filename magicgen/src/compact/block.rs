//! A compact block's shape: its footprint (the 8-slot runs it touches), its
//! span as a ring, and turning a black block round its window so that the
//! ring's largest gap is where it wraps. The climbs of `compact.rs` measure
//! blocks by their footprint; the pool and the interleave search turn them.
//!
//! Turning a black block is free. Let `b` be the lowest bit of the mask.
//! Adding `d · 2^(64 − b)` to the multiplier leaves the product with any
//! occupancy unchanged (the occupancy is a multiple of `2^b`) and lowers the
//! product with the complement, whose low `b` bits are all ones, by
//! `d · 2^(64 − b)`: every index moves by the same `−d · 2^(k − b)` mod
//! `2^k`. White blocks cannot be turned (the empty board always hashes to
//! slot 0), so for them the climb minimises the plain span.

use crate::problem::{Problem, Scratch};

/// A block's shape: its span (as a ring for black blocks), its used slots,
/// the first used slot after the ring's largest gap, and its plain span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Shape {
    pub(super) span: u32,
    pub(super) used: u32,
    pub(super) start: u32,
    pub(super) plain: u32,
}

/// The granularity of a block's footprint: runs of this many slots.
pub(crate) const GROUP: u32 = 8;

/// The widest window [`footprint`] measures: wider blocks count as full.
const FOOTPRINT_BITS: u32 = 13;

/// The footprint of a block with used `slots` in a window of `2^bits`
/// slots: the slots of the [`GROUP`]-slot runs it touches, for the best of
/// the [`GROUP`] ways to cut the window into runs (read as a ring for black
/// blocks, which can be turned). A block's runs are what other blocks
/// cannot share, so blocks of few dense clusters have small footprints.
pub(super) fn footprint(slots: &[u32], bits: u32, ring: bool) -> u32 {
    let size = 1usize << bits;
    if bits > FOOTPRINT_BITS {
        return size as u32;
    }
    // The window's used slots, then (for a ring) the window again.
    let mut words = [0u64; 2 + (1 << FOOTPRINT_BITS) / 64];
    for &s in slots {
        words[s as usize / 64] |= 1 << (s % 64);
    }
    let n = size.div_ceil(64);
    if size < 64 {
        if ring {
            words[0] |= words[0] << size;
        }
    } else if ring {
        words[n] = words[0];
    }
    // In each word, one bit per run that starts in it.
    let firsts = if size < 64 { (1u64 << size) - 1 } else { !0 } & 0x0101_0101_0101_0101;
    (0..GROUP)
        .map(|cut| {
            let mut runs = 0;
            for w in 0..n {
                let next = if cut == 0 {
                    0
                } else {
                    words[w + 1] << (64 - cut)
                };
                let mut x = words[w] >> cut | next;
                x |= x >> 4;
                x |= x >> 2;
                x |= x >> 1;
                runs += (x & firsts).count_ones();
            }
            // Without the ring, the slots before the first cut are a run too.
            let head = !ring && words[0] & ((1 << cut) - 1) != 0;
            (runs + u32::from(head)) * GROUP
        })
        .min()
        .unwrap_or(0)
}

/// The shape of `magic`'s block at `bits` bits, if it is valid.
pub(super) fn shape(
    problem: &Problem,
    ring: bool,
    magic: u64,
    bits: u32,
    scratch: &mut Scratch,
) -> Option<Shape> {
    let slots = scratch.block(problem, magic, bits)?;
    let used = slots.len() as u32;
    let lo = *slots.iter().min()? as usize;
    let hi = *slots.iter().max()? as usize;
    let size = 1usize << bits;
    // The largest run of unused slots inside [lo, hi], and the slot after it.
    let (mut gap, mut start, mut last) = (0, lo, lo);
    if ring {
        for s in lo + 1..=hi {
            if scratch.used_slot(s) {
                if s - last - 1 > gap {
                    gap = s - last - 1;
                    start = s;
                }
                last = s;
            }
        }
    }
    let plain = (hi - lo + 1) as u32;
    // The gap outside [lo, hi] wraps already.
    if gap <= size - 1 - hi + lo {
        return Some(Shape {
            span: plain,
            used,
            start: lo as u32,
            plain,
        });
    }
    Some(Shape {
        span: (size - gap) as u32,
        used,
        start: start as u32,
        plain,
    })
}

/// `magic` turned so that its block's slot `start` moves to slot 0, or to
/// `start mod 2^(bits − b)` where the mask's lowest bit `b` is below `bits`
/// (turns come in those steps); `not_mask` is the complement of the
/// square's mask.
pub(crate) fn turn(magic: u64, bits: u32, start: u32, not_mask: u64) -> u64 {
    let low = (!not_mask).trailing_zeros();
    let step = 1u64 << bits.saturating_sub(low);
    let start = u64::from(start) / step * step;
    magic.wrapping_add(start << (64 - bits))
}

/// A black `magic` turned so that its block's largest gap wraps, if that
/// shortens its plain span (for the rooks of rank 1, whose masks start at
/// bit 1 or 2, turns come in steps of half the window and rarely do); `None`
/// if `magic` is not valid at `bits`.
pub(crate) fn turned(
    problem: &Problem,
    magic: u64,
    bits: u32,
    scratch: &mut Scratch,
) -> Option<u64> {
    let ring = shape(problem, true, magic, bits, scratch)?;
    if ring.plain <= ring.span || problem.not_mask == 0 {
        return Some(magic);
    }
    // The turn moves every slot by the same amount, so the block stays
    // valid; its new span is the ring's, plus what the granularity leaves.
    let step = 1u32 << bits.saturating_sub((!problem.not_mask).trailing_zeros());
    let (slack, gap) = (ring.start % step, (1u32 << bits) - ring.span);
    // Rounded down, the new first slot must still lie in the gap.
    Some(if slack <= gap && ring.span + slack < ring.plain {
        turn(magic, bits, ring.start, problem.not_mask)
    } else {
        magic
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compact::random_magic;
    use rand_chacha::rand_core::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use yolah_geometry::magics::Indexing;
    use yolah_geometry::rays::relevant_mask;
    use yolah_geometry::{Slider, Square};

    #[test]
    fn turning_a_black_block_moves_every_slot_alike() {
        let b7 = Square::parse("b7").unwrap();
        let problem = Problem::new(Indexing::Black, Slider::Orthogonal, b7);
        let not_mask = !relevant_mask(Slider::Orthogonal, b7).0;
        let mut scratch = Scratch::new(12);
        let magic = (1..)
            .map(|s| random_magic(&mut ChaCha8Rng::seed_from_u64(s)))
            .find(|&m| scratch.block(&problem, m, 12).is_some())
            .unwrap();
        let before: Vec<u32> = scratch.block(&problem, magic, 12).unwrap().to_vec();
        // b7's mask starts at b2 (bit 9): turns come in steps of 2^(12-9).
        let turned = turn(magic, 12, 40, not_mask);
        let after = scratch.block(&problem, turned, 12).unwrap();
        for (a, b) in before.iter().zip(after) {
            assert_eq!((a + 4096 - 40) % 4096, *b);
        }
    }

    #[test]
    fn a_footprint_counts_the_runs_a_block_touches() {
        // Eight slots in a row, anywhere: one run at the best cut.
        let row: Vec<u32> = (3..11).collect();
        assert_eq!(footprint(&row, 6, true), 8);
        assert_eq!(footprint(&row, 6, false), 8);
        // Across the window's end: one run on a ring, two without.
        assert_eq!(footprint(&[62, 63, 0, 1], 6, true), 8);
        assert_eq!(footprint(&[62, 63, 0, 1], 6, false), 16);
        assert_eq!(footprint(&[31, 0], 5, true), 8);
        assert_eq!(footprint(&[31, 0], 5, false), 16);
        // A comb with a slot in every run costs the whole window.
        let comb: Vec<u32> = (0..4096).step_by(7).collect();
        assert_eq!(footprint(&comb, 12, true), 4096);
        // Two dense clusters far apart.
        let two: Vec<u32> = (100..164).chain(3004..3020).collect();
        assert_eq!(footprint(&two, 12, true), 80);
        assert_eq!(footprint(&[], 13, true), 0);
    }
}
