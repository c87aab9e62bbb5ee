//! Fit-driven search: the table is built square by square, and each
//! square's magic is chosen for how well its block fits the holes the
//! blocks before it left.
//!
//! For every square (biggest masks first) a seeded generator tries random
//! multipliers (three in four sparse, one in four dense) at the index
//! widths from the mask's bits up to the fixed-shift widths (12 orthogonal,
//! 9 diagonal), then climbs from the best by flipping bits. A valid multiplier gives a block of used slots; the
//! block goes to the lowest position where all its slots are free, and the
//! multiplier that leaves the table shortest wins, with credit for the free
//! slots it leaves in the table's last [`TAIL`] slots, where the next block
//! will overlap. Blocks with holes thus land across the holes of earlier
//! blocks, which is what makes one shared table smaller than the blocks
//! laid end to end. Compaction rounds then take out the block that ends
//! last and search it again against all the others.
//!
//! Free slots are kept in a [`FreeMap`], which tests 64 positions at a
//! time.

use crate::compact::turned;
use crate::geometry::relevant_mask;
use crate::improve::{square_seed, squares, Problem, Scratch};
use crate::magics::{Indexing, MagicEntry, MagicSet};
use crate::pack::FreeMap;
use rand_chacha::rand_core::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Tries of one square are split into this many chunks, each with its own
/// generator, so that threads share a square and the result does not
/// depend on how many there are.
const CHUNKS: u64 = 32;

/// Where one square's block went.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Placement {
    /// How good it is, lower better: twice the table's length after it,
    /// less the free slots in its last [`TAIL`] slots (room for the next
    /// block to overlap).
    pub score: usize,
    /// Table length after placing it.
    pub new_end: usize,
    /// One past its last used slot.
    pub top: usize,
    /// Slots it uses.
    pub used: u32,
    /// Index bits.
    pub bits: u32,
    /// The multiplier.
    pub magic: u64,
    /// Table position of its first used slot.
    pub at: usize,
    /// Local index of its first used slot.
    pub first: u32,
    /// Used slots relative to the first.
    pub rels: Vec<u32>,
}

impl Placement {
    fn placed(&self, square: usize) -> Placed {
        Placed {
            square,
            magic: self.magic,
            bits: self.bits,
            at: self.at,
        }
    }

    fn key(&self) -> (usize, usize, usize, u32) {
        (self.score, self.new_end, self.top, self.used)
    }
}

/// The tail of the table a placement leaves room in for the next block.
/// Counting its free slots in the score measured 98,052 entries against
/// 101,740 without (seed 2, effort 16) and 100,044 against 102,359 (the
/// default seed); 512 did about as well, 2,048 and 4,096 no better than none.
pub const TAIL: usize = 1024;

/// Free slots the map keeps past the table's end: a search reads up to a
/// block's span (at most 2^13 slots) and a word past the end.
const HEADROOM: usize = 1 << 15;

/// The state one square's search sees: the free map, the table's length
/// and its lowest free slot.
struct Table {
    free: FreeMap,
    end: usize,
    low: usize,
    /// Whether black candidates are turned round their window before they
    /// are placed (on with a compact pool).
    turn: bool,
}

impl Table {
    /// An empty table.
    fn new() -> Table {
        Table {
            free: FreeMap::new(HEADROOM),
            end: 0,
            low: 0,
            turn: false,
        }
    }

    /// The table's length.
    fn len(&self) -> usize {
        self.end
    }

    /// Puts `p` in: its slots become used, and the table grows to its top.
    fn place(&mut self, p: &Placement) {
        for &r in &p.rels {
            debug_assert!(self.free.is_free(p.at + r as usize));
            self.free.set_used(p.at + r as usize, true);
        }
        self.end = self.end.max(p.top);
        self.free.grow_to(self.end + HEADROOM);
        while !self.free.is_free(self.low) {
            self.low += 1;
        }
    }

    /// Takes `p` out; `end` is where the blocks left end.
    fn remove(&mut self, p: &Placement, end: usize) {
        for &r in &p.rels {
            self.free.set_used(p.at + r as usize, false);
        }
        self.low = self.low.min(p.at);
        self.end = end;
    }
}

/// Where `magic` at `bits` would go: the lowest position where its block
/// fits, if that beats `best`.
fn evaluate(
    problem: &Problem,
    table: &Table,
    magic: u64,
    bits: u32,
    best: Option<&Placement>,
    scratch: &mut Scratch,
) -> Option<Placement> {
    // With a compact pool, a black block goes in turned so that its largest
    // gap wraps.
    let magic = if table.turn {
        turned(problem, magic, bits, scratch)?
    } else {
        magic
    };
    let slots = scratch.block(problem, magic, bits)?;
    let lo = *slots.iter().min().expect("a block uses a slot");
    let hi = *slots.iter().max().expect("a block uses a slot");
    let span = (hi - lo + 1) as usize;
    let used = slots.len() as u32;
    // The best this block can do: end no later than the table, with the
    // whole tail free.
    let floor = (2 * table.end.max(span)).saturating_sub(TAIL);
    if best.is_some_and(|b| floor > b.score) {
        return None;
    }
    let rels: Vec<u32> = slots.iter().map(|&s| s - lo).collect();
    // Past the end everything fits; past `limit` the block cannot beat the
    // best.
    let mut limit = table.end + 1;
    if let Some(b) = best {
        limit = limit.min(((b.score + TAIL) / 2 + 1).saturating_sub(span));
    }
    let at = table.free.lowest_fit(&rels, table.low, limit)?;
    let new_end = table.end.max(at + span);
    let from = new_end.saturating_sub(TAIL);
    let tail_free = table.free.count_free(from, new_end)
        - rels.iter().filter(|&&r| at + r as usize >= from).count();
    let p = Placement {
        score: 2 * new_end - tail_free,
        new_end,
        top: at + span,
        used,
        bits,
        magic,
        at,
        first: lo,
        rels,
    };
    best.is_none_or(|b| p.key() <= b.key()).then_some(p)
}

/// Searches one square's chunk of tries and returns its best placement:
/// the first half samples random multipliers (three in four sparse, one in
/// four dense), the second climbs from the best of them by flipping a few
/// bits at a time.
fn search_chunk(
    problem: &Problem,
    widths: &[u32],
    table: &Table,
    seed: u64,
    tries: u64,
    scratch: &mut Scratch,
) -> Option<Placement> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut best: Option<Placement> = None;
    let climb_from = tries / 2;
    for t in 0..tries {
        let (magic, bits) = match &best {
            Some(b) if t >= climb_from => {
                let mut magic = b.magic;
                for _ in 0..1 + rng.next_u32() % 3 {
                    magic ^= 1u64 << (rng.next_u32() % 64);
                }
                (magic, b.bits)
            }
            _ => {
                let bits = widths[(t % widths.len() as u64) as usize];
                let magic = match t % 8 {
                    0..4 => rng.next_u64() & rng.next_u64() & rng.next_u64(),
                    4..6 => rng.next_u64() & rng.next_u64(),
                    _ => rng.next_u64() | rng.next_u64(),
                };
                (magic, bits)
            }
        };
        if let Some(p) = evaluate(problem, table, magic, bits, best.as_ref(), scratch) {
            if best
                .as_ref()
                .is_none_or(|b| p.key() < b.key() || t >= climb_from)
            {
                best = Some(p);
            }
        }
    }
    best
}

/// The index widths a square tries: from its mask's bit count up to the
/// fixed-shift widths (12 orthogonal, 9 diagonal), or one more bit where the
/// mask already has that many.
pub fn widths(n: u32) -> Vec<u32> {
    let ceiling = if n >= 10 { 12 } else { 9 };
    (n..=ceiling.max(n + 1)).collect()
}

/// Compaction rounds per unit of effort.
pub const ROUNDS_PER_EFFORT: u64 = 2;

/// One square's block in the table: enough to rebuild the placement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    /// The square's index in file order (orthogonal a1…h8, diagonal a1…h8).
    pub square: usize,
    /// The multiplier.
    pub magic: u64,
    /// Index bits.
    pub bits: u32,
    /// Table position of the block's first used slot.
    pub at: usize,
}

/// How far a fit search has come: the blocks placed, in the order they
/// were placed, and the compaction rounds done. A checkpoint holds this.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FitState {
    /// Each placed square's block, at most one per square, in the order
    /// they went in (the table depends only on which blocks are in it).
    pub placed: Vec<Placed>,
    /// Compaction rounds done.
    pub rounds: u64,
}

/// What a running fit search reports after each step.
pub struct FitProgress<'a> {
    /// Squares placed so far in the first pass (128 once it is over).
    pub squares: usize,
    /// Compaction rounds done, and how many there will be.
    pub rounds: (u64, u64),
    /// The table's length.
    pub len: usize,
    /// The state to checkpoint.
    pub state: &'a FitState,
}

/// The fit search: places every square (biggest masks first) with `tries`
/// tries each (split over 32 chunks; fewer than 32 tries leave every square
/// to the fallback search at its mask's width), then runs `rounds`
/// compaction rounds, each taking out the block that ends last (every fourth
/// round a random one) and searching it again against the rest, kept when
/// it ends no later. `pool` holds extra multipliers per square, `(magic,
/// bits)`, that every search of the square weighs after its random ones (the
/// compact blocks of [`crate::compact`]; empty for none); with a pool, black
/// candidates are also turned round their window before they are placed.
/// `start` resumes from a checkpoint; `step` is called after every placement
/// and round.
#[allow(clippy::too_many_arguments)]
pub fn fit_search(
    indexing: Indexing,
    seed: u64,
    tries: u64,
    rounds: u64,
    threads: usize,
    pool: &[Vec<(u64, u32)>],
    start: FitState,
    step: &mut dyn FnMut(FitProgress),
) -> Result<MagicSet, String> {
    let all = squares();
    let problems: Vec<Problem> = all
        .iter()
        .map(|&(slider, square)| Problem::new(indexing, slider, square))
        .collect();
    let widths: Vec<Vec<u32>> = all
        .iter()
        .map(|&(slider, square)| widths(relevant_mask(slider, square).count()))
        .collect();
    let mut table = Table::new();
    table.turn = !pool.is_empty();
    let mut placed: Vec<Option<Placement>> = vec![None; all.len()];
    let mut state = FitState::default();
    // Replay the checkpoint.
    for p in &start.placed {
        let i = p.square;
        if i >= all.len() {
            return Err(format!("square {i} does not exist"));
        }
        if placed[i].is_some() {
            return Err(format!("square {i} is placed twice"));
        }
        let mut scratch = Scratch::new(p.bits);
        let q = rebuild(&problems[i], &table, p, &mut scratch)
            .ok_or_else(|| format!("the checkpoint's block for square {i} does not fit"))?;
        table.place(&q);
        placed[i] = Some(q);
        state.placed.push(*p);
    }
    state.rounds = start.rounds;
    if state.rounds > 0 && state.placed.len() < all.len() {
        return Err(format!(
            "{} compaction rounds done with only {} squares placed",
            state.rounds,
            state.placed.len()
        ));
    }
    let mut order: Vec<usize> = (0..all.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(problems[i].keys.len()), i));
    for &i in &order {
        if placed[i].is_some() {
            continue;
        }
        let extra = pool.get(i).map_or(&[][..], Vec::as_slice);
        let best = search_square(
            &problems[i],
            &widths[i],
            extra,
            &table,
            seed,
            i,
            tries,
            threads,
        );
        table.place(&best);
        state.placed.push(best.placed(i));
        placed[i] = Some(best);
        let squares = placed.iter().flatten().count();
        step(FitProgress {
            squares,
            rounds: (state.rounds, rounds),
            len: table.len(),
            state: &state,
        });
    }
    while state.rounds < rounds {
        let round = state.rounds;
        // The block that ends last, or every fourth round a random one.
        let i = if round % 4 == 3 {
            (square_seed(seed ^ 0x636f_6d70, round as usize) % all.len() as u64) as usize
        } else {
            (0..all.len())
                .max_by_key(|&i| (placed[i].as_ref().map_or(0, |p| p.top), i))
                .expect("squares")
        };
        let old = take_out(&mut table, &mut placed, i);
        let round_seed = seed ^ (round + 1).wrapping_mul(0x2545_f491_4f6c_dd1d);
        let found = search_square(
            &problems[i],
            &widths[i],
            pool.get(i).map_or(&[][..], Vec::as_slice),
            &table,
            round_seed,
            i,
            tries,
            threads,
        );
        let keep = if found.top <= old.top { found } else { old };
        table.place(&keep);
        state.placed.retain(|q| q.square != i);
        state.placed.push(keep.placed(i));
        placed[i] = Some(keep);
        state.rounds += 1;
        step(FitProgress {
            squares: all.len(),
            rounds: (state.rounds, rounds),
            len: table.len(),
            state: &state,
        });
    }
    let entries = all
        .iter()
        .zip(placed)
        .map(|(&(slider, square), p)| {
            let p = p.expect("every square placed");
            MagicEntry {
                slider,
                square,
                bits: p.bits,
                magic: p.magic,
                offset: p.at as i64 - i64::from(p.first),
            }
        })
        .collect();
    Ok(MagicSet {
        seed: Some(seed),
        indexing,
        entries,
        table_len: table.len(),
    })
}

/// Takes square `i`'s block out of the table and returns it.
fn take_out(table: &mut Table, placed: &mut [Option<Placement>], i: usize) -> Placement {
    let old = placed[i].take().expect("every square is placed");
    let end = placed.iter().flatten().map(|p| p.top).max().unwrap_or(0);
    table.remove(&old, end);
    old
}

/// The placement a checkpoint recorded, if its block is valid and fits.
fn rebuild(
    problem: &Problem,
    table: &Table,
    p: &Placed,
    scratch: &mut Scratch,
) -> Option<Placement> {
    let slots = scratch.block(problem, p.magic, p.bits)?;
    let lo = *slots.iter().min()?;
    let rels: Vec<u32> = slots.iter().map(|&s| s - lo).collect();
    let inside = |r: u32| p.at + (r as usize) < table.free.capacity();
    if rels
        .iter()
        .any(|&r| !inside(r) || !table.free.is_free(p.at + r as usize))
    {
        return None;
    }
    let top = p.at + *rels.iter().max()? as usize + 1;
    Some(Placement {
        // Only searches compare scores; a rebuilt placement is just placed.
        score: 0,
        new_end: table.end.max(top),
        top,
        used: rels.len() as u32,
        bits: p.bits,
        magic: p.magic,
        at: p.at,
        first: lo,
        rels,
    })
}

/// One square's search over all its chunks, on `threads` threads.
#[allow(clippy::too_many_arguments)]
fn search_square(
    problem: &Problem,
    widths: &[u32],
    pool: &[(u64, u32)],
    table: &Table,
    seed: u64,
    index: usize,
    tries: u64,
    threads: usize,
) -> Placement {
    let max_bits = *widths.last().expect("a width");
    let next = AtomicUsize::new(0);
    let results = Mutex::new(vec![None; CHUNKS as usize]);
    std::thread::scope(|s| {
        for _ in 0..threads.clamp(1, CHUNKS as usize) {
            s.spawn(|| {
                let mut scratch = Scratch::new(max_bits);
                loop {
                    let c = next.fetch_add(1, Ordering::Relaxed);
                    if c >= CHUNKS as usize {
                        return;
                    }
                    let chunk_seed = square_seed(seed ^ (c as u64).wrapping_mul(0x51_7cc1), index);
                    let found = search_chunk(
                        problem,
                        widths,
                        table,
                        chunk_seed,
                        tries / CHUNKS,
                        &mut scratch,
                    );
                    results.lock().unwrap_or_else(|e| e.into_inner())[c] = found;
                }
            });
        }
    });
    let results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut best = results
        .into_iter()
        .flatten()
        .min_by(|a, b| a.key().cmp(&b.key()));
    let mut scratch = Scratch::new(pool.iter().map(|p| p.1).max().unwrap_or(1));
    for &(magic, bits) in pool {
        if let Some(p) = evaluate(problem, table, magic, bits, best.as_ref(), &mut scratch) {
            if best.as_ref().is_none_or(|b| p.key() < b.key()) {
                best = Some(p);
            }
        }
    }
    match best {
        Some(b) => b,
        // No chunk found a valid magic at these widths: keep looking at the
        // mask's own width, where one always turns up.
        None => {
            let n = problem.keys.len().trailing_zeros();
            let mut scratch = Scratch::new(n);
            let mut k = 0;
            loop {
                let s = square_seed(seed ^ 0xfa11_bac0 ^ k, index);
                if let Some(b) = search_chunk(problem, &[n], table, s, 1 << 16, &mut scratch) {
                    return b;
                }
                k += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_fit_search_verifies_repeats_itself_and_resumes() {
        let run = |threads, start: FitState, states: &mut Vec<FitState>| {
            fit_search(Indexing::Black, 5, 256, 6, threads, &[], start, &mut |p| {
                states.push(p.state.clone())
            })
            .expect("a fresh or resumed search runs")
        };
        let mut states = Vec::new();
        let set = run(2, FitState::default(), &mut states);
        set.attack_table().expect("every entry verifies");
        assert_eq!(states.len(), 128 + 6);
        // Resumed halfway through the first pass on one thread, and during
        // compaction on two: the same file.
        assert_eq!(set, run(1, states[60].clone(), &mut Vec::new()));
        assert_eq!(set, run(2, states[130].clone(), &mut Vec::new()));
        // Checkpoints no run could have written are refused: a block that
        // does not fit, a square placed twice, rounds before all squares.
        let refused = |state: FitState| {
            fit_search(Indexing::Black, 5, 256, 0, 1, &[], state, &mut |_| {}).unwrap_err()
        };
        let mut bad = states[10].clone();
        bad.placed[1].at = bad.placed[0].at;
        assert!(refused(bad).contains("does not fit"));
        let mut bad = states[10].clone();
        bad.placed.push(bad.placed[3]);
        assert!(refused(bad).contains("placed twice"));
        let mut bad = states[10].clone();
        bad.rounds = 1;
        assert!(refused(bad).contains("compaction rounds"));
        // During compaction the state keeps one block per square.
        assert!(states.iter().all(|s| s.placed.len() <= 128));
    }

    #[test]
    fn a_fit_search_with_a_compact_pool_verifies_and_repeats_itself() {
        let spec = crate::compact::PoolSpec {
            indexing: Indexing::Black,
            seed: 5,
            widths: &widths,
            climbs: 1,
            steps: 200,
        };
        let pool = crate::compact::compact_pool(&spec, 2, &[], &|_| {}, &|_, _| {}).unwrap();
        let run = |threads| {
            fit_search(
                Indexing::Black,
                5,
                256,
                4,
                threads,
                &pool,
                FitState::default(),
                &mut |_| {},
            )
            .expect("a fresh search runs")
        };
        let set = run(2);
        set.attack_table().expect("every entry verifies");
        assert_eq!(set, run(1));
        // The pool is weighed: without it the same seed gives another table.
        let plain = fit_search(
            Indexing::Black,
            5,
            256,
            4,
            2,
            &[],
            FitState::default(),
            &mut |_| {},
        );
        assert_ne!(set, plain.expect("a fresh search runs"));
    }

    #[test]
    fn widths_reach_the_fixed_shift_widths() {
        assert_eq!(widths(10), vec![10, 11, 12]);
        assert_eq!(widths(12), vec![12, 13]);
        assert_eq!(widths(5), vec![5, 6, 7, 8, 9]);
        assert_eq!(widths(9), vec![9, 10]);
    }
}
