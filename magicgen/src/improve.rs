//! The long search for small tables: many magics per square, then a packer
//! that interleaves their blocks in one shared table.
//!
//! 1. **Candidates.** For every slider and square, a ChaCha8 generator
//!    seeded from the run's seed and the square tries `effort × 2^16`
//!    sparse random multipliers at several index widths (the mask's bits,
//!    one fewer, one or two more). A multiplier is valid when occupancies
//!    that share a slot have the same attacks (constructive collisions are
//!    allowed); of the valid ones each width keeps the few whose used
//!    slots span the fewest slots. Squares are independent, so they run on
//!    every core and the result does not depend on how many.
//! 2. **Packing.** Blocks go into the table biggest first, each with the
//!    candidate and position (the lowest that fits) that keep the table
//!    shortest. Then `effort × 200` rounds of ruin and recreate: take out
//!    the blocks that end last and a few random ones, put them back in a
//!    random order, and keep the result unless the table grew.
//!
//! Everything follows from the seed and the effort, so rerunning the same
//! command gives the same file byte for byte. Phase 1 is checkpointed
//! square by square: a killed run resumes where it stopped.

use crate::geometry::{relevant_mask, slider_attacks_slow, subsets, Slider};
use crate::magics::{Indexing, MagicEntry, MagicSet};
use crate::pack::{Block, Table};
use crate::types::{Bitboard, Square};
use rand_chacha::rand_core::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Candidates a square keeps per index width.
pub const KEEP: usize = 4;
/// Tries per square and per unit of effort.
pub const TRIES_PER_EFFORT: u64 = 1 << 16;
/// Ruin-and-recreate rounds per unit of effort.
pub const ROUNDS_PER_EFFORT: u64 = 200;

/// One valid magic of a square.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Candidate {
    /// Slots from the first used to the last.
    pub span: u32,
    /// Slots used.
    pub used: u32,
    /// Index bits.
    pub bits: u32,
    /// The multiplier.
    pub magic: u64,
}

/// The 128 squares in file order (orthogonal a1…h8, diagonal a1…h8).
pub(crate) fn squares() -> Vec<(Slider, Square)> {
    Slider::ALL
        .into_iter()
        .flat_map(|s| Square::all().map(move |sq| (s, sq)))
        .collect()
}

/// The index widths tried for a mask of `n` bits.
pub fn widths(n: u32) -> Vec<u32> {
    (n.saturating_sub(1).max(1)..=n + 2).collect()
}

/// The occupancies of one slider on one square as the magic sees them.
pub(crate) struct Problem {
    pub(crate) keys: Vec<u64>,
    pub(crate) attacks: Vec<u64>,
    /// The bits every key has: the mask's complement for black magics, none
    /// for white ones.
    pub(crate) not_mask: u64,
}

impl Problem {
    pub(crate) fn new(indexing: Indexing, slider: Slider, square: Square) -> Problem {
        let mask = relevant_mask(slider, square);
        let occupancies: Vec<_> = subsets(mask).collect();
        Problem {
            keys: occupancies.iter().map(|&o| indexing.key(mask, o)).collect(),
            not_mask: indexing.key(mask, Bitboard::EMPTY),
            attacks: occupancies
                .iter()
                .map(|&o| slider_attacks_slow(slider, square, o).0)
                .collect(),
        }
    }

    /// The candidate `magic` makes with `bits` bits, if it is valid.
    pub(crate) fn test(&self, magic: u64, bits: u32, scratch: &mut Scratch) -> Option<Candidate> {
        let slots = scratch.block(self, magic, bits)?;
        let lo = *slots.iter().min()?;
        let hi = *slots.iter().max()?;
        Some(Candidate {
            span: hi - lo + 1,
            used: slots.len() as u32,
            bits,
            magic,
        })
    }
}

/// Scratch for testing magics: a stamp and an attack set per local slot,
/// and the slots the last block used.
pub(crate) struct Scratch {
    stamp: Vec<u32>,
    value: Vec<u64>,
    slots: Vec<u32>,
    tick: u32,
}

impl Scratch {
    /// Room for blocks of up to `max_bits` index bits.
    pub(crate) fn new(max_bits: u32) -> Scratch {
        Scratch {
            stamp: vec![0; 1 << max_bits],
            value: vec![0; 1 << max_bits],
            slots: Vec::new(),
            tick: 0,
        }
    }

    /// The local slots `magic` with `bits` bits uses, each once, or `None`
    /// when two occupancies with different attacks share one (occupancies
    /// with the same attacks may: a constructive collision).
    pub(crate) fn block(&mut self, problem: &Problem, magic: u64, bits: u32) -> Option<&[u32]> {
        self.tick = self.tick.wrapping_add(1);
        if self.tick == 0 {
            self.stamp.fill(0);
            self.tick = 1;
        }
        let shift = 64 - bits;
        self.slots.clear();
        for (&key, &att) in problem.keys.iter().zip(&problem.attacks) {
            let s = (key.wrapping_mul(magic) >> shift) as usize;
            if self.stamp[s] == self.tick {
                if self.value[s] != att {
                    return None;
                }
            } else {
                self.stamp[s] = self.tick;
                self.value[s] = att;
                self.slots.push(s as u32);
            }
        }
        Some(&self.slots)
    }

    /// Whether local slot `s` is used by the last block tested.
    pub(crate) fn used_slot(&self, s: usize) -> bool {
        self.stamp[s] == self.tick
    }
}

/// The seed of one square's generator.
pub(crate) fn square_seed(seed: u64, index: usize) -> u64 {
    let mut z = seed ^ (index as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Phase 1 for one square: the best few valid magics of each width.
pub fn candidates(
    indexing: Indexing,
    slider: Slider,
    square: Square,
    seed: u64,
    effort: u64,
) -> Vec<Candidate> {
    let index = slider as usize * 64 + square.index();
    let problem = Problem::new(indexing, slider, square);
    let n = relevant_mask(slider, square).count();
    let widths = widths(n);
    let max_bits = *widths.last().expect("at least one width");
    let mut scratch = Scratch::new(max_bits);
    let mut rng = ChaCha8Rng::seed_from_u64(square_seed(seed, index));
    let mut best: Vec<Vec<Candidate>> = vec![Vec::new(); widths.len()];
    let tries = effort * TRIES_PER_EFFORT;
    for t in 0..tries {
        let w = (t % widths.len() as u64) as usize;
        // Sparse multipliers work best; alternate two densities.
        let magic = if t % 7 < 4 {
            rng.next_u64() & rng.next_u64() & rng.next_u64()
        } else {
            rng.next_u64() & rng.next_u64()
        };
        if let Some(c) = problem.test(magic, widths[w], &mut scratch) {
            let kept = &mut best[w];
            let better = kept.len() < KEEP || c < *kept.last().expect("full");
            if better && !kept.iter().any(|k| k.magic == c.magic) {
                kept.push(c);
                kept.sort_unstable();
                kept.truncate(KEEP);
            }
        }
    }
    // Hill climbing from each width's best: flip a few bits of the magic,
    // keep the change when it is still valid and no worse (fewer used
    // slots plus span), so that constructive collisions accumulate.
    for kept in best.iter_mut() {
        let Some(&start) = kept.first() else { continue };
        let mut cur = start;
        for _ in 0..tries / 4 {
            let flips = 1 + rng.next_u32() % 3;
            let mut magic = cur.magic;
            for _ in 0..flips {
                magic ^= 1u64 << (rng.next_u32() % 64);
            }
            if let Some(c) = problem.test(magic, cur.bits, &mut scratch) {
                if c.span + c.used <= cur.span + cur.used {
                    cur = c;
                }
            }
        }
        if !kept.iter().any(|k| k.magic == cur.magic) {
            kept.push(cur);
            kept.sort_unstable();
            kept.truncate(KEEP);
        }
    }
    // A square with no valid magic yet keeps trying at the mask's width,
    // where one always turns up.
    while best.iter().all(Vec::is_empty) {
        let magic = rng.next_u64() & rng.next_u64() & rng.next_u64();
        if let Some(c) = problem.test(magic, n, &mut scratch) {
            best[widths.iter().position(|&w| w == n).expect("n is a width")].push(c);
        }
    }
    best.into_iter().flatten().collect()
}

/// Where phase 1 stands: each square's candidates once found.
pub type Portfolios = Vec<Option<Vec<Candidate>>>;

/// Phase 1 over all squares on `threads` threads; `done` is called (from
/// any thread, one at a time) with each finished square's index and
/// candidates, so that they can be checkpointed.
pub fn all_candidates(
    indexing: Indexing,
    seed: u64,
    effort: u64,
    threads: usize,
    mut start: Portfolios,
    done: &(dyn Fn(usize, &[Candidate], usize) + Sync),
) -> Vec<Vec<Candidate>> {
    let all = squares();
    start.resize(all.len(), None);
    let todo: Vec<usize> = (0..all.len()).filter(|&i| start[i].is_none()).collect();
    let results = Mutex::new(start);
    let next = AtomicUsize::new(0);
    let finished = AtomicUsize::new(all.len() - todo.len());
    std::thread::scope(|s| {
        for _ in 0..threads.clamp(1, 128) {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(&i) = todo.get(k) else { return };
                let (slider, square) = all[i];
                let found = candidates(indexing, slider, square, seed, effort);
                let mut r = results.lock().unwrap_or_else(|e| e.into_inner());
                let count = finished.fetch_add(1, Ordering::Relaxed) + 1;
                done(i, &found, count);
                r[i] = Some(found);
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|c| c.expect("every square searched"))
        .collect()
}

/// A packing: per square, the chosen candidate's index and where its
/// first used slot sits.
#[derive(Clone, Debug)]
struct Layout {
    choice: Vec<usize>,
    at: Vec<usize>,
}

/// Phase 2: chooses one candidate per square and packs their blocks;
/// `progress` gets (round, rounds, table length).
pub fn pack(
    indexing: Indexing,
    portfolios: &[Vec<Candidate>],
    seed: u64,
    effort: u64,
    progress: &mut dyn FnMut(u64, u64, usize),
) -> MagicSet {
    let all = squares();
    let blocks: Vec<Vec<Block>> = portfolios
        .iter()
        .zip(&all)
        .map(|(cands, &(slider, square))| {
            cands
                .iter()
                .map(|c| {
                    Block::new(indexing, slider, square, c.magic, c.bits)
                        .expect("a valid candidate has a block")
                })
                .collect()
        })
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x7061_636b);
    let mut table = Table::default();
    let mut layout = Layout {
        choice: vec![0; all.len()],
        at: vec![0; all.len()],
    };
    // Biggest blocks first: the smallest span a square can have.
    let mut order: Vec<usize> = (0..all.len()).collect();
    order.sort_by_key(|&i| {
        let span = blocks[i].iter().map(Block::span).min().unwrap_or(0);
        (std::cmp::Reverse(span), i)
    });
    for &i in &order {
        insert(&mut table, &blocks[i], &mut layout, i);
    }
    let rounds = effort * ROUNDS_PER_EFFORT;
    for round in 0..rounds {
        if round % 50 == 0 {
            progress(round, rounds, table.len());
        }
        let before = table.len();
        let saved = layout.clone();
        // The blocks that end in the last 2% of the table, and a few others.
        let limit = before - before / 50;
        let mut ruined: Vec<usize> = (0..all.len())
            .filter(|&i| layout.at[i] + blocks[i][layout.choice[i]].span() as usize > limit)
            .collect();
        for _ in 0..1 + rng.next_u32() % 4 {
            let i = (rng.next_u32() as usize) % all.len();
            if !ruined.contains(&i) {
                ruined.push(i);
            }
        }
        for &i in &ruined {
            table.remove(&blocks[i][layout.choice[i]], layout.at[i]);
        }
        // Random order (Fisher-Yates from the seeded generator).
        for k in (1..ruined.len()).rev() {
            let j = (rng.next_u32() as usize) % (k + 1);
            ruined.swap(k, j);
        }
        for &i in &ruined {
            insert(&mut table, &blocks[i], &mut layout, i);
        }
        if table.len() > before {
            for &i in &ruined {
                table.remove(&blocks[i][layout.choice[i]], layout.at[i]);
            }
            layout = saved;
            for &i in &ruined {
                table.place(&blocks[i][layout.choice[i]], layout.at[i]);
            }
        }
    }
    progress(rounds, rounds, table.len());
    let entries = all
        .iter()
        .enumerate()
        .map(|(i, &(slider, square))| {
            let c = portfolios[i][layout.choice[i]];
            let b = &blocks[i][layout.choice[i]];
            MagicEntry {
                slider,
                square,
                bits: c.bits,
                magic: c.magic,
                offset: layout.at[i] as i64 - i64::from(b.first),
            }
        })
        .collect();
    MagicSet {
        seed: Some(seed),
        indexing,
        entries,
        table_len: table.len(),
    }
}

/// Puts square `i` in at the lowest position where it fits, with the
/// candidate that ends first there (then starts first, then comes first):
/// a block placed early in the table is no good if it reaches far.
fn insert(table: &mut Table, blocks: &[Block], layout: &mut Layout, i: usize) {
    let (k, at) = blocks
        .iter()
        .enumerate()
        .map(|(k, b)| {
            let at = table.first_fit(b, 0);
            (k, at, at + b.span() as usize)
        })
        .min_by_key(|&(k, at, end)| (end, at, k))
        .map(|(k, at, _)| (k, at))
        .expect("every square has a candidate");
    table.place(&blocks[k], at);
    layout.choice[i] = k;
    layout.at[i] = at;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_search_packs_a_verified_table_and_repeats_itself() {
        let run = |threads, start: Portfolios| {
            let p = all_candidates(Indexing::Black, 7, 1, threads, start, &|_, _, _| {});
            (pack(Indexing::Black, &p, 7, 1, &mut |_, _, _| {}), p)
        };
        let (set, portfolios) = run(2, Vec::new());
        set.attack_table().expect("every entry verifies");
        assert_eq!(set.indexing, Indexing::Black);
        assert_eq!(MagicSet::parse(&set.to_text()).unwrap(), set);
        assert!(set.entries.iter().any(|e| e.offset < 0) || set.to_text().contains("black"));
        // One thread, and a run resumed with half the squares done, give
        // the same file.
        assert_eq!(set.to_text(), run(1, Vec::new()).0.to_text());
        let half: Portfolios = portfolios
            .iter()
            .enumerate()
            .map(|(i, p)| (i % 2 == 0).then(|| p.clone()))
            .collect();
        assert_eq!(set.to_text(), run(2, half).0.to_text());
    }
}
