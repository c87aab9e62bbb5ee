//! `magicgen survey`: how small one square's block can get on its own.
//!
//! For every square and index width it asks two questions of a seeded
//! random search: what is the fewest *used* slots a valid magic leaves
//! (constructive collisions merge occupancies with the same attacks), and
//! what is the shortest *span* (first used slot to last)? Blocks laid end to
//! end cost their spans, and no table is shorter than the used slots of its
//! blocks, so the answers are targets for a packing (the best a search
//! found, not proven minima).
//!
//! Each (square, width) has its own ChaCha8 generator seeded from the run's
//! seed, so the result does not depend on the number of threads. Half the
//! tries are random multipliers (sparse, three-quarters dense, or a
//! negated sparse one), half step from one of the best found so far by one
//! to three moves: either a bit flip or, every other step, adding or
//! subtracting a power of two. The carries of the second kind keep a
//! multiplier's runs of ones and zeros, so they reach the magics whose
//! products collide on purpose (the fewest used slots with one more index
//! bit drop from 73,424 to 67,740 in all at the default tries).

use crate::geometry::Slider;
use crate::improve::{square_seed, squares, Problem, Scratch};
use crate::magics::Indexing;
use crate::types::Square;
use rand_chacha::rand_core::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The best blocks a search found for one square at one width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WidthReport {
    /// Index bits.
    pub bits: u32,
    /// Tries that gave a valid magic (climbing may find one more than once).
    pub valid: u64,
    /// The fewest used slots, and a magic that has them (`None`: no valid
    /// magic was found).
    pub fewest_used: Option<(u32, u64)>,
    /// The shortest span, and a magic that has it.
    pub shortest_span: Option<(u32, u64)>,
}

/// One square's survey.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SquareSurvey {
    /// Orthogonal or diagonal.
    pub slider: Slider,
    /// The square.
    pub square: Square,
    /// Bits of its relevant mask.
    pub mask_bits: u32,
    /// One report per width asked for.
    pub widths: Vec<WidthReport>,
}

/// How many of the best multipliers the climbing half starts from.
const POOL: usize = 16;

/// A random multiplier: sparse (three words ANDed), dense, or a negated
/// sparse one (which reads the empty squares of the mask, see `magics`).
fn random_magic(rng: &mut ChaCha8Rng, t: u64) -> u64 {
    let sparse = rng.next_u64() & rng.next_u64() & rng.next_u64();
    match t % 4 {
        0 | 1 => sparse,
        2 => rng.next_u64() | rng.next_u64(),
        _ => sparse.wrapping_neg(),
    }
}

/// One climbing step from `magic`: one to three moves, all bit flips or
/// (every other step) all additions or subtractions of a power of two.
fn step(mut magic: u64, rng: &mut ChaCha8Rng) -> u64 {
    let carry = rng.next_u32() & 1 == 0;
    for _ in 0..1 + rng.next_u32() % 3 {
        let bit = 1u64 << (rng.next_u32() % 64);
        magic = match (carry, rng.next_u32() & 1) {
            (false, _) => magic ^ bit,
            (true, 0) => magic.wrapping_add(bit),
            (true, _) => magic.wrapping_sub(bit),
        };
    }
    magic
}

/// Keeps the `POOL` smallest `(key, tie-break, magic)` entries, smallest
/// first.
fn offer(pool: &mut Vec<(u32, u32, u64)>, entry: (u32, u32, u64)) {
    if pool.len() == POOL && entry >= pool[POOL - 1] {
        return;
    }
    if pool.contains(&entry) {
        return;
    }
    let at = pool.partition_point(|e| *e < entry);
    pool.insert(at, entry);
    pool.truncate(POOL);
}

/// Searches one square at `bits` index bits with `tries` multipliers.
fn survey_width(problem: &Problem, bits: u32, tries: u64, seed: u64) -> WidthReport {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut scratch = Scratch::new(bits);
    // Two pools: by (used, span) and by (span, used).
    let mut by_used: Vec<(u32, u32, u64)> = Vec::new();
    let mut by_span: Vec<(u32, u32, u64)> = Vec::new();
    let mut valid = 0;
    for t in 0..tries {
        let climb = t % 2 == 1;
        let pool = if t % 4 == 1 { &by_used } else { &by_span };
        let magic = if climb && !pool.is_empty() {
            let m = pool[(rng.next_u32() as usize) % pool.len()].2;
            step(m, &mut rng)
        } else {
            random_magic(&mut rng, t / 2)
        };
        let Some(c) = problem.test(magic, bits, &mut scratch) else {
            continue;
        };
        valid += 1;
        offer(&mut by_used, (c.used, c.span, magic));
        offer(&mut by_span, (c.span, c.used, magic));
    }
    WidthReport {
        bits,
        valid,
        fewest_used: by_used.first().map(|e| (e.0, e.2)),
        shortest_span: by_span.first().map(|e| (e.0, e.2)),
    }
}

/// Surveys every square (orthogonal a1…h8, then diagonal a1…h8) that
/// `wanted` accepts, at the widths `mask bits + d` for each `d` in `extra`,
/// with `tries` multipliers each, on `threads` threads. `done` is called
/// after each square with how many are done.
pub fn survey(
    indexing: Indexing,
    seed: u64,
    tries: u64,
    extra: &[u32],
    threads: usize,
    wanted: &dyn Fn(Slider, Square) -> bool,
    done: &(dyn Fn(usize, usize) + Sync),
) -> Vec<SquareSurvey> {
    let all: Vec<(usize, Slider, Square)> = squares()
        .into_iter()
        .enumerate()
        .filter(|&(_, (slider, square))| wanted(slider, square))
        .map(|(i, (slider, square))| (i, slider, square))
        .collect();
    let next = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<SquareSurvey>>> = Mutex::new(vec![None; all.len()]);
    std::thread::scope(|scope| {
        // No more threads than squares (a huge --threads would fail to spawn).
        for _ in 0..threads.clamp(1, all.len().max(1)) {
            scope.spawn(|| loop {
                let j = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(i, slider, square)) = all.get(j) else {
                    break;
                };
                let problem = Problem::new(indexing, slider, square);
                let n = problem.keys.len().trailing_zeros();
                let widths = extra
                    .iter()
                    .map(|&d| {
                        let seed = square_seed(seed ^ (u64::from(d + 1) << 56), i);
                        survey_width(&problem, n + d, tries, seed)
                    })
                    .collect();
                let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
                out[j] = Some(SquareSurvey {
                    slider,
                    square,
                    mask_bits: n,
                    widths,
                });
                done(finished.fetch_add(1, Ordering::Relaxed) + 1, all.len());
            });
        }
    });
    out.into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|s| s.expect("every square surveyed"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_survey_finds_valid_blocks_and_repeats_itself() {
        let wanted = |slider: Slider, square: Square| {
            slider == Slider::Diagonal && [0, 1, 9].contains(&square.index())
        };
        let run = |threads| {
            survey(
                Indexing::Black,
                5,
                4000,
                &[0, 1],
                threads,
                &wanted,
                &|_, _| {},
            )
        };
        let one = run(1);
        assert_eq!(one, run(2));
        assert_eq!(one.len(), 3);
        for s in &one {
            for w in &s.widths {
                let (used, _) = w.fewest_used.expect("a valid magic");
                let (span, _) = w.shortest_span.expect("a valid magic");
                // A block never uses more slots than the mask has
                // occupancies, nor spans more than its width allows.
                assert!(used <= 1 << s.mask_bits);
                // The shortest span holds at least the fewest used slots.
                assert!(span <= 1 << w.bits && span >= used);
                assert!(w.valid > 0);
            }
        }
    }

    #[test]
    fn the_reported_magics_have_the_reported_blocks() {
        let wanted =
            |slider: Slider, square: Square| slider == Slider::Diagonal && square.index() == 9;
        let s = &survey(Indexing::Black, 1, 3000, &[0], 1, &wanted, &|_, _| {})[0];
        let w = s.widths[0];
        let problem = Problem::new(Indexing::Black, s.slider, s.square);
        let mut scratch = Scratch::new(w.bits);
        let (used, magic) = w.fewest_used.unwrap();
        assert_eq!(
            scratch.block(&problem, magic, w.bits).unwrap().len() as u32,
            used
        );
        let (span, magic) = w.shortest_span.unwrap();
        let slots = scratch.block(&problem, magic, w.bits).unwrap();
        let (lo, hi) = (slots.iter().min().unwrap(), slots.iter().max().unwrap());
        assert_eq!(hi - lo + 1, span);
    }
}
