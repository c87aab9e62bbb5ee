//! The sparse-random magic search.
//!
//! For each slider and square, candidates are the AND of three random `u64`
//! (few set bits work best) from a seeded ChaCha8 generator, tried until one
//! hashes every subset of the relevant mask without a destructive collision.
//! A bounded number of extra tries then looks for a magic with one bit fewer
//! (half the slots), and the finished blocks are packed into one table,
//! letting blocks overlap where their used slots agree. Every step is a pure
//! function of the seed, so the output is reproducible byte for byte.

use rand_chacha::rand_core::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use yolah_geometry::magics::{local_index, Indexing, MagicEntry, MagicSet};
use yolah_geometry::rays::{relevant_mask, slider_attacks_slow, subsets, Slider};
use yolah_geometry::{Bitboard, Square};

/// The seed of the committed constants.
pub const DEFAULT_SEED: u64 = 0x5941_4c4f_4821_2025;

/// How hard to look.
#[derive(Clone, Copy, Debug)]
pub struct SearchConfig {
    /// Seed of the ChaCha8 generator.
    pub seed: u64,
    /// Candidates tried per square and per bit below the mask size.
    pub fewer_bit_tries: u64,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            seed: DEFAULT_SEED,
            fewer_bit_tries: 1 << 20,
        }
    }
}

/// What one square's search found.
#[derive(Clone, Copy, Debug)]
pub struct SquareReport {
    /// Bits of the relevant mask (the plain, private-block size).
    pub mask_bits: u32,
    /// Bits of the magic found.
    pub bits: u32,
    /// Candidates tried in all.
    pub tries: u64,
}

/// The occupancies of one slider on one square and their attacks.
struct Problem {
    mask: Bitboard,
    occupancies: Vec<Bitboard>,
    attacks: Vec<u64>,
}

impl Problem {
    fn new(slider: Slider, square: Square) -> Problem {
        let mask = relevant_mask(slider, square);
        let occupancies: Vec<Bitboard> = subsets(mask).collect();
        let attacks = occupancies
            .iter()
            .map(|&occ| slider_attacks_slow(slider, square, occ).0)
            .collect();
        Problem {
            mask,
            occupancies,
            attacks,
        }
    }

    /// Tries up to `max_tries` candidates (all of them when `None`) for a
    /// magic of `bits` bits; returns it and the number of tries used.
    fn find(&self, bits: u32, rng: &mut ChaCha8Rng, max_tries: Option<u64>) -> (Option<u64>, u64) {
        // `epoch[slot] == try` marks a slot written by the current candidate,
        // so the table never needs clearing between candidates.
        let mut epoch = vec![0u64; 1 << bits];
        let mut value = vec![0u64; 1 << bits];
        let mut tries = 0u64;
        while max_tries.is_none_or(|max| tries < max) {
            tries += 1;
            let magic = rng.next_u64() & rng.next_u64() & rng.next_u64();
            // A magic must spread the mask's bits into the top byte.
            if (self.mask.0.wrapping_mul(magic) >> 56).count_ones() < 6 {
                continue;
            }
            let ok = self
                .occupancies
                .iter()
                .zip(&self.attacks)
                .all(|(&occ, &att)| {
                    let slot = local_index(Indexing::White, self.mask, magic, bits, occ);
                    if epoch[slot] == tries {
                        value[slot] == att
                    } else {
                        epoch[slot] = tries;
                        value[slot] = att;
                        true
                    }
                });
            if ok {
                return (Some(magic), tries);
            }
        }
        (None, tries)
    }
}

/// Searches all 128 magics and packs their table. Deterministic in `config`.
pub fn search(config: &SearchConfig) -> (MagicSet, Vec<SquareReport>) {
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    let mut entries = Vec::with_capacity(128);
    let mut reports = Vec::with_capacity(128);
    for slider in Slider::ALL {
        for square in Square::all() {
            let problem = Problem::new(slider, square);
            let mask_bits = problem.mask.count();
            let (found, mut tries) = problem.find(mask_bits, &mut rng, None);
            let mut best = (
                mask_bits,
                found.expect("an unbounded search only returns on success"),
            );
            // Fewer bits: half the block, if the budget finds one.
            while best.0 > 1 {
                let bits = best.0 - 1;
                let (found, t) = problem.find(bits, &mut rng, Some(config.fewer_bit_tries));
                tries += t;
                match found {
                    Some(magic) => best = (bits, magic),
                    None => break,
                }
            }
            entries.push(MagicEntry {
                slider,
                square,
                bits: best.0,
                magic: best.1,
                offset: 0,
            });
            reports.push(SquareReport {
                mask_bits,
                bits: best.0,
                tries,
            });
        }
    }
    let table_len = pack(&mut entries);
    let set = MagicSet {
        seed: Some(config.seed),
        command: None,
        indexing: Indexing::White,
        entries,
        table_len,
    };
    (set, reports)
}

/// Places every entry's block at the lowest offset where its used slots meet
/// only free slots or slots holding the same attacks; returns the table length
/// (one past the last used slot: unused slots are never read).
pub fn pack(entries: &mut [MagicEntry]) -> usize {
    let mut order: Vec<usize> = (0..entries.len()).collect();
    // Big blocks first; ties keep the file order, so packing is deterministic.
    order.sort_by_key(|&i| std::cmp::Reverse(entries[i].bits));
    let mut table: Vec<Option<u64>> = Vec::new();
    for i in order {
        let e = entries[i];
        let mut block: Vec<(usize, u64)> = subsets(e.mask())
            .map(|occ| {
                let att = slider_attacks_slow(e.slider, e.square, occ).0;
                (e.local_index(Indexing::White, occ), att)
            })
            .collect();
        block.sort_unstable();
        block.dedup();
        let fits = |table: &[Option<u64>], offset: usize| {
            block
                .iter()
                .all(|&(slot, att)| match table.get(offset + slot) {
                    Some(Some(v)) => *v == att,
                    _ => true,
                })
        };
        let offset = (0..)
            .find(|&o| fits(&table, o))
            .expect("a free offset exists past the end");
        let end = offset + block.last().map_or(0, |&(slot, _)| slot + 1);
        if table.len() < end {
            table.resize(end, None);
        }
        for &(slot, att) in &block {
            table[offset + slot] = Some(att);
        }
        entries[i].offset = offset as i64;
    }
    table.len()
}
