//! The packer's shapes: every pool block cut into runs, at one or more
//! turns round its window.
//!
//! A black block turns for free, in steps of `2^(k - b)` slots (`k` index
//! bits, `b` the mask's lowest bit; `compact/block.rs` says why). The pool turns
//! each block so that its ring's largest gap wraps, which gives its shortest
//! span. Each other turn that puts a gap at the wrap is another shape of the
//! same used slots, with the largest gap inside it for other blocks to fill:
//! `magicgen --turns N` offers the packer the first `N` of them
//! (`docs/magic-tables.md`, section 15).

use crate::compact::block::{turn, turned};
use crate::problem::{Problem, Scratch};
use std::cmp::Reverse;
use std::collections::HashSet;

/// Shapes with more than this many times their square's fewest runs are
/// dropped: they would never be chosen, and every one costs time.
const SLACK: u32 = 2;

/// A pool block cut into runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Shape {
    pub(super) magic: u64,
    pub(super) bits: u32,
    /// Local index of the block's first used slot.
    pub(super) first: u32,
    /// How far into its run the first used slot lies, for the best cut.
    pub(super) cut: u32,
    /// Slots from the first used one to the last.
    pub(super) span: u32,
    /// Runs from the first to the last touched, both included.
    pub(super) len: u32,
    /// Runs touched.
    pub(super) runs: u32,
    /// Maximal stretches of touched runs, `[start, end)` from the first,
    /// longest first (the likeliest to find no room, so the search for
    /// room checks them first).
    pub(super) stretches: Vec<(u32, u32)>,
}

impl Shape {
    /// The levels of the chain's strip its longest stretch needs.
    pub(super) fn levels(&self) -> usize {
        let (a, b) = self.stretches[0];
        (b - a).ilog2() as usize + 1
    }
}

/// `magic`'s block for `problem` as it stands (not turned), cut into runs
/// at the cut that touches the fewest; `None` if `magic` is not valid at
/// `bits`.
fn shape(
    problem: &Problem,
    magic: u64,
    bits: u32,
    run: u32,
    scratch: &mut Scratch,
) -> Option<Shape> {
    let mut slots = scratch.block(problem, magic, bits)?.to_vec();
    slots.sort_unstable();
    let first = slots[0];
    let span = slots[slots.len() - 1] - first + 1;
    let (cut, runs) = cut_into_runs(&slots, run);
    let mut stretches: Vec<(u32, u32)> = Vec::new();
    for &r in &runs {
        match stretches.last_mut() {
            Some(last) if last.1 == r => last.1 += 1,
            _ => stretches.push((r, r + 1)),
        }
    }
    stretches.sort_unstable_by_key(|&(s, e)| (Reverse(e - s), s));
    Some(Shape {
        magic,
        bits,
        first,
        cut,
        span,
        len: runs[runs.len() - 1] + 1,
        runs: runs.len() as u32,
        stretches,
    })
}

/// The cut (how far into its run the first slot lies) at which the sorted
/// `slots` touch the fewest runs, the lowest such cut, and the runs they
/// touch then, counted from the first slot's.
pub(super) fn cut_into_runs(slots: &[u32], run: u32) -> (u32, Vec<u32>) {
    let first = slots[0];
    (0..run)
        .map(|cut| {
            let mut runs: Vec<u32> = slots.iter().map(|&s| (s - first + cut) / run).collect();
            runs.dedup();
            (cut, runs)
        })
        .min_by_key(|(cut, runs)| (runs.len(), *cut))
        .expect("a run has a slot")
}

/// `magic` at `bits` turned up to `turns` ways: first as the pool turns it
/// ([`turned`]: the ring's largest gap wraps where that shortens the span),
/// then with the ring's second, third, … largest gap at the wrap, each where
/// the turn's step lets the slot after the gap come within the gap's length
/// of the window's start (ties between gaps: the lower slot after the gap
/// first). Empty if `magic` is not valid at `bits`.
pub(super) fn turnings(
    problem: &Problem,
    magic: u64,
    bits: u32,
    turns: u32,
    scratch: &mut Scratch,
) -> Vec<u64> {
    let Some(first) = turned(problem, magic, bits, scratch) else {
        return Vec::new();
    };
    if turns <= 1 || problem.not_mask == 0 {
        return vec![first];
    }
    let mut slots = scratch.block(problem, magic, bits).expect("valid").to_vec();
    slots.sort_unstable();
    let size = 1u32 << bits;
    // Every gap of the ring (its length, the used slot after it), largest
    // first.
    let mut gaps: Vec<(u32, u32)> = (0..slots.len())
        .map(|i| {
            let next = slots[(i + 1) % slots.len()];
            ((next + size - slots[i] - 1) % size, next)
        })
        .collect();
    gaps.sort_unstable_by_key(|&(gap, next)| (Reverse(gap), next));
    let step = 1u32 << bits.saturating_sub((!problem.not_mask).trailing_zeros());
    let others = gaps
        .iter()
        .skip(1)
        .take(turns as usize - 1)
        .filter(|&&(gap, next)| gap > 0 && next % step <= gap)
        .map(|&(_, next)| turn(magic, bits, next, problem.not_mask));
    std::iter::once(first).chain(others).collect()
}

/// Every square's shapes from its pool, each block at up to `turns` turns
/// ([`turnings`]), fewest runs first, without duplicates (blocks that touch
/// the same runs) and without those more than [`SLACK`] times its smallest.
pub(super) fn shapes(
    problems: &[Problem],
    pool: &[Vec<(u64, u32)>],
    run: u32,
    turns: u32,
) -> Result<Vec<Vec<Shape>>, String> {
    let mut scratch = Scratch::new(16);
    problems
        .iter()
        .zip(pool)
        .enumerate()
        .map(|(i, (problem, blocks))| {
            let mut all: Vec<Shape> = Vec::new();
            for &(magic, bits) in blocks {
                for m in turnings(problem, magic, bits, turns, &mut scratch) {
                    all.extend(shape(problem, m, bits, run, &mut scratch));
                }
            }
            all.sort_by_key(|s| (s.runs, s.len, s.bits, s.magic));
            all.dedup_by_key(|s| (s.magic, s.bits));
            let fewest = all
                .first()
                .ok_or(format!("square {i} has no valid block in the pool"))?
                .runs;
            all.retain(|s| s.runs <= SLACK * fewest);
            // Blocks that touch the same runs are one shape to the packer
            // (half the shapes of a 38-climb pool): keep the first.
            let mut seen = HashSet::new();
            all.retain(|s| seen.insert(s.stretches.clone()));
            Ok(all)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::chain::{end_to_end, table_len};
    use super::super::tests::{problems, small_pool};
    use super::*;

    #[test]
    fn a_block_is_cut_where_it_touches_the_fewest_runs() {
        // Eight slots in a row: one run, cut at the first.
        assert_eq!(cut_into_runs(&(3..11).collect::<Vec<_>>(), 8), (0, vec![0]));
        // A lone slot and a row of eight one slot off the run boundary:
        // cut 0 touches three runs, cut 7 two.
        let slots: Vec<u32> = [0].into_iter().chain(9..17).collect();
        assert_eq!(cut_into_runs(&slots, 8), (7, vec![0, 2]));
        // Runs of two slots: the lone slot, then four runs from slot 9 on.
        assert_eq!(cut_into_runs(&slots, 2), (1, vec![0, 5, 6, 7, 8]));
    }

    /// The sorted slots of `magic`'s block.
    fn slots(problem: &Problem, magic: u64, bits: u32, scratch: &mut Scratch) -> Vec<u32> {
        let mut slots = scratch.block(problem, magic, bits).expect("valid").to_vec();
        slots.sort_unstable();
        slots
    }

    #[test]
    fn every_turn_is_the_same_block_moved_round_its_window() {
        let (pool, problems) = (small_pool(), problems());
        let mut scratch = Scratch::new(16);
        let mut extra = 0;
        for (problem, blocks) in problems.iter().zip(&pool) {
            let low = (!problem.not_mask).trailing_zeros();
            for &(magic, bits) in blocks {
                let step = 1u32 << bits.saturating_sub(low);
                let size = 1u32 << bits;
                let all = turnings(problem, magic, bits, 4, &mut scratch);
                // The first is the pool's turn, and one turn is only that.
                let pooled = turned(problem, magic, bits, &mut scratch);
                assert_eq!(Some(all[0]), pooled);
                assert_eq!(
                    turnings(problem, magic, bits, 1, &mut scratch),
                    vec![all[0]]
                );
                assert!(all.len() <= 4);
                let original = slots(problem, magic, bits, &mut scratch);
                for (t, &m) in all.iter().enumerate() {
                    // The multiplier moved by a whole number of the turn's
                    // steps, in its top bits; the block is valid, with the
                    // original's slots moved down by as many, round the
                    // window.
                    let d = m.wrapping_sub(magic);
                    assert_eq!(d << bits, 0, "turn {t} of 0x{m:016x}");
                    let d = (d >> (64 - bits)) as u32;
                    assert_eq!(d % step, 0, "turn {t}: moved by {d}, steps of {step}");
                    let moved = slots(problem, m, bits, &mut scratch);
                    let wanted: Vec<u32> = {
                        let mut w: Vec<u32> =
                            original.iter().map(|&s| (s + size - d) % size).collect();
                        w.sort_unstable();
                        w
                    };
                    assert_eq!(moved, wanted, "turn {t} of 0x{m:016x}");
                    // The extra turns start within a step of the window's
                    // start: a gap of the ring wraps.
                    if t > 0 {
                        assert!(moved[0] < step, "turn {t} starts at {}", moved[0]);
                        extra += 1;
                    }
                }
            }
        }
        assert!(extra > 100, "only {extra} extra turns");
    }

    #[test]
    fn more_turns_offer_more_shapes_and_never_a_longer_start() {
        let (pool, problems) = (small_pool(), problems());
        let mut last: Option<(Vec<usize>, usize)> = None;
        for turns in 1..=4 {
            let shapes = shapes(&problems, &pool, 1, turns).unwrap();
            let counts: Vec<usize> = shapes.iter().map(Vec::len).collect();
            // Runs of one slot: every turn of a block uses the same slots,
            // so the smallest block end to end can only get shorter.
            let start = table_len(&shapes, &end_to_end(&shapes), 1);
            if let Some((fewer, longer)) = &last {
                assert!(counts.iter().zip(fewer).all(|(a, b)| a >= b), "{turns}");
                assert!(counts.iter().sum::<usize>() > fewer.iter().sum(), "{turns}");
                assert!(start <= *longer, "{turns} turns: {start} > {longer}");
            }
            last = Some((counts, start));
        }
    }
}
