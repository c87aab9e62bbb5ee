//! One ruin-and-recreate chain of the packer: the strip of runs, kept as
//! bit levels so that the search for room tests 64 positions at once, and
//! the steps that take squares out and put them back.

use super::shapes::Shape;
use super::Packing;
use rand_chacha::rand_core::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Percent of the steps that take out random squares instead of the
/// squares nearest to a random run: 30 measured 90,327 against 92,431 for
/// none.
const RANDOM_RUIN: u64 = 30;

/// A step takes out `RUIN_LEAST` to `RUIN_LEAST + RUIN_SPREAD - 1` placed
/// squares (ruins of up to 31 measured 95,375 against 95,919 on one pool,
/// within a chain's noise).
const RUIN_LEAST: usize = 2;
/// How many sizes of ruin a step draws from.
const RUIN_SPREAD: u64 = 12;

/// Sets bits `from..to` of `bits` to `value`.
fn set_bits(bits: &mut [u64], from: usize, to: usize, value: bool) {
    let mut r = from;
    while r < to {
        let (w, b) = (r / 64, r % 64);
        let n = (64 - b).min(to - r);
        let mask = (!0u64 >> (64 - n)) << b;
        if value {
            bits[w] |= mask;
        } else {
            bits[w] &= !mask;
        }
        r += n;
    }
}

/// The 64 bits of `level` from bit `p` on (ones past its `words` words).
fn bits_from(level: &[u64], p: usize, words: usize) -> u64 {
    let word = |w: usize| if w < words { level[w] } else { !0 };
    let (w, o) = (p / 64, p % 64);
    if o == 0 {
        word(w)
    } else {
        word(w) >> o | word(w + 1) << (64 - o)
    }
}

/// One chain's layout: for every square its shape and first run, if in.
pub(super) type Layout = Vec<Option<(usize, usize)>>;

/// Where a chain stands after a step: all a chain needs to go on exactly as
/// if it had not stopped (the strip's levels are rebuilt from the layout).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainState {
    /// Steps done.
    pub(super) step: u64,
    /// The strip's length in runs.
    pub(super) len: usize,
    /// The generator's position in its stream, in 32-bit words.
    pub(super) rng: u128,
    /// The layout the chain stands at (some squares may be out).
    pub(super) layout: Layout,
    /// The best complete layout so far.
    pub(super) best: Layout,
}

/// One ruin-and-recreate chain.
pub(super) struct Chain<'a> {
    shapes: &'a [Vec<Shape>],
    /// Each square's fewest runs: its size, and what it costs left out.
    size: Vec<u64>,
    /// The strip's length in runs.
    len: usize,
    layout: Layout,
    /// The strip, one bit per run, in levels: in level `m`, run `r`'s bit
    /// says that one of the `2^m` runs from `r` on is taken or past the
    /// strip's end. Level 0 (the taken runs) is kept up to date; the others
    /// are mended where it changed when room is looked for. Two words of a
    /// level tell whether a stretch of any length has room at each of 64
    /// positions.
    covered: Vec<Vec<u64>>,
    /// The runs of level 0 changed since the other levels were mended.
    dirty: Option<(usize, usize)>,
    /// The runs of the longest shape: how far past the strip's end a
    /// search for room reads.
    widest: usize,
    rng: ChaCha8Rng,
    /// What a shape pays, in runs of position, for each run it uses beyond
    /// its square's fewest ([`Packing::penalty`]).
    penalty: u64,
}

impl<'a> Chain<'a> {
    /// An empty strip of `len` runs.
    fn new(shapes: &'a [Vec<Shape>], len: usize, seed: u64, penalty: u32) -> Chain<'a> {
        let top = shapes.iter().flatten().map(Shape::levels).max();
        let widest = shapes.iter().flatten().map(|s| s.len as usize).max();
        let widest = widest.unwrap_or(0);
        let words = (len + widest).div_ceil(64) + 2;
        let mut covered = vec![vec![!0; words]; top.unwrap_or(1)];
        set_bits(&mut covered[0], 0, len, false);
        Chain {
            shapes,
            size: shapes.iter().map(|s| u64::from(s[0].runs)).collect(),
            len,
            layout: vec![None; shapes.len()],
            covered,
            dirty: Some((0, len)),
            widest,
            rng: ChaCha8Rng::seed_from_u64(seed),
            penalty: penalty.into(),
        }
    }

    fn mark(&mut self, i: usize, (s, at): (usize, usize), taken: bool) {
        for &(a, b) in &self.shapes[i][s].stretches {
            set_bits(
                &mut self.covered[0],
                at + a as usize,
                at + b as usize,
                taken,
            );
        }
        let len = self.shapes[i][s].len as usize;
        self.changed(at, at + len);
    }

    /// Notes that level 0 changed on runs `from..to`.
    fn changed(&mut self, from: usize, to: usize) {
        self.dirty = Some(match self.dirty {
            Some((lo, hi)) => (lo.min(from), hi.max(to)),
            None => (from, to),
        });
    }

    /// Whether run `r` is taken.
    #[cfg(test)]
    fn is_taken(&self, r: usize) -> bool {
        self.covered[0][r / 64] >> (r % 64) & 1 == 1
    }

    /// The words of a level that a search for room reads: past them, every
    /// run counts as taken.
    fn words(&self) -> usize {
        ((self.len + self.widest).div_ceil(64) + 2).min(self.covered[0].len())
    }

    fn take_out(&mut self, i: usize) {
        if let Some(p) = self.layout[i].take() {
            self.mark(i, p, false);
        }
    }

    /// Runs of left-out squares.
    fn left_out(&self) -> u64 {
        (0..self.layout.len())
            .filter(|&i| self.layout[i].is_none())
            .map(|i| self.size[i])
            .sum()
    }

    /// Mends the levels above 0 of [`Chain::covered`] where level 0 changed.
    fn cover(&mut self) {
        let Some((lo, hi)) = self.dirty.take() else {
            return;
        };
        let words = self.words();
        for m in 1..self.covered.len() {
            let (lower, upper) = self.covered.split_at_mut(m);
            let (below, level) = (&lower[m - 1], &mut upper[0]);
            let half = 1 << (m - 1);
            // Bits `lo - 2^m + 1 .. hi` of this level see the change.
            let first = lo.saturating_sub(2 * half) / 64;
            let last = hi.div_ceil(64).min(words);
            for (w, word) in level.iter_mut().enumerate().take(last).skip(first) {
                *word = below[w] | bits_from(below, w * 64 + half, words);
            }
        }
    }

    /// Puts square `i` at its best place, if any shape fits.
    fn put_back(&mut self, i: usize) {
        self.cover();
        let mut best: Option<(u64, usize, usize)> = None;
        let mut ties = 0;
        for (s, shape) in self.shapes[i].iter().enumerate() {
            let penalty = self.penalty * (u64::from(shape.runs) - self.size[i]);
            // Past `bound`, a position scores worse than the best so far.
            let bound = match best {
                Some((b, _, _)) if b < penalty => break,
                Some((b, _, _)) => Some(b - penalty),
                None => None,
            };
            let Some(at) = self.lowest_fit(shape, bound) else {
                continue;
            };
            let score = at as u64 + penalty;
            match best {
                Some((b, _, _)) if score > b => {}
                Some((b, _, _)) if score == b => {
                    ties += 1;
                    if self.rng.next_u64().is_multiple_of(ties) {
                        best = Some((score, s, at));
                    }
                }
                _ => {
                    ties = 1;
                    best = Some((score, s, at));
                }
            }
        }
        if let Some((_, s, at)) = best {
            self.layout[i] = Some((s, at));
            self.mark(i, (s, at), true);
        }
    }

    /// The lowest first run at which `shape` fits in the strip, if there is
    /// one no higher than `bound`: 64 positions at a time, each stretch
    /// ruling out the positions where it finds no room, until none is left.
    fn lowest_fit(&self, shape: &Shape, bound: Option<u64>) -> Option<usize> {
        let words = self.words();
        let last = self.len.checked_sub(shape.len as usize)?;
        let last = bound.map_or(last, |b| last.min(b as usize));
        let mut at = 0;
        while at <= last {
            let mut clash = 0u64;
            for &(a, b) in &shape.stretches {
                let n = (b - a) as usize;
                let m = n.ilog2() as usize;
                let level = &self.covered[m];
                let p = at + a as usize;
                // Two windows of 2^m runs cover the stretch's n.
                clash |= bits_from(level, p, words) | bits_from(level, p + n - (1 << m), words);
                if clash == !0 {
                    break;
                }
            }
            if clash != !0 {
                let found = at + clash.trailing_ones() as usize;
                return (found <= last).then_some(found);
            }
            at += 64;
        }
        None
    }

    /// One step; returns whether every square is in afterwards.
    fn step(&mut self) -> bool {
        let before = self.layout.clone();
        let cost = self.left_out();
        let mut out: Vec<usize> = (0..self.layout.len())
            .filter(|&i| self.layout[i].is_none())
            .collect();
        let centre = (self.rng.next_u64() % self.len as u64) as usize;
        let random = self.rng.next_u64() % 100 < RANDOM_RUIN;
        let mut placed: Vec<(u64, usize)> = Vec::new();
        for (i, p) in self.layout.iter().enumerate() {
            let Some((s, at)) = *p else { continue };
            let end = at + self.shapes[i][s].len as usize;
            let distance = if random {
                self.rng.next_u64() % 1024
            } else {
                centre
                    .saturating_sub(end - 1)
                    .max(at.saturating_sub(centre)) as u64
            };
            placed.push((distance, i));
        }
        placed.sort_unstable();
        let count = RUIN_LEAST + (self.rng.next_u64() % RUIN_SPREAD) as usize;
        for &(_, i) in placed.iter().take(count) {
            self.take_out(i);
            out.push(i);
        }
        // Biggest first, with a neighbour swapped now and then.
        out.sort_unstable_by_key(|&i| (std::cmp::Reverse(self.size[i]), i));
        for j in 1..out.len() {
            if self.rng.next_u64().is_multiple_of(10) {
                out.swap(j - 1, j);
            }
        }
        for &i in &out {
            self.put_back(i);
        }
        if self.left_out() > cost {
            set_bits(&mut self.covered[0], 0, self.len, false);
            self.changed(0, self.len);
            self.layout = before;
            for i in 0..self.layout.len() {
                if let Some(p) = self.layout[i] {
                    self.mark(i, p, true);
                }
            }
        }
        self.layout.iter().all(Option::is_some)
    }

    /// Shrinks the strip by a fifth of a percent (a run at least), leaving
    /// out the squares past its new end.
    fn shrink(&mut self) {
        let old = self.len;
        self.len -= (self.len / 500).max(1);
        for i in 0..self.layout.len() {
            if let Some((s, at)) = self.layout[i] {
                if at + self.shapes[i][s].len as usize > self.len {
                    self.take_out(i);
                }
            }
        }
        set_bits(&mut self.covered[0], self.len, old, true);
        self.changed(self.len, old);
    }

    /// Puts a new chain (all of its strip free) where `state` stands.
    fn restore(&mut self, state: &ChainState) {
        let old = self.len;
        self.len = state.len;
        set_bits(&mut self.covered[0], self.len, old, true);
        self.changed(self.len, old);
        for (i, p) in state.layout.iter().enumerate() {
            if let Some(p) = *p {
                self.layout[i] = Some(p);
                self.mark(i, p, true);
            }
        }
        self.rng.set_word_pos(state.rng);
    }
}

/// Why `layout` cannot be a layout of `shapes` in a strip of `len` runs:
/// a shape that does not exist, a square past the end or two on one run.
/// `complete`: every square must be in.
pub(super) fn check_layout(
    shapes: &[Vec<Shape>],
    layout: &Layout,
    len: usize,
    complete: bool,
) -> Result<(), String> {
    if layout.len() != shapes.len() {
        return Err(format!("{} squares, not {}", layout.len(), shapes.len()));
    }
    let mut taken = vec![false; len];
    for (i, p) in layout.iter().enumerate() {
        let Some((s, at)) = *p else {
            if complete {
                return Err(format!("square {i} is not placed"));
            }
            continue;
        };
        let shape = shapes[i]
            .get(s)
            .ok_or_else(|| format!("square {i} has no shape {s}"))?;
        if at > len || shape.len as usize > len - at {
            return Err(format!("square {i} ends past the strip's {len} runs"));
        }
        for &(a, b) in &shape.stretches {
            for t in &mut taken[at + a as usize..at + b as usize] {
                if *t {
                    return Err(format!("square {i} takes a run that another square took"));
                }
                *t = true;
            }
        }
    }
    Ok(())
}

/// The table length, in slots, of a complete layout.
pub(super) fn table_len(shapes: &[Vec<Shape>], layout: &Layout, run: u32) -> usize {
    layout
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let (s, at) = p.expect("complete layout");
            let shape = &shapes[i][s];
            run as usize * at + (shape.cut + shape.span) as usize
        })
        .max()
        .unwrap_or(0)
}

/// Runs one chain for `packing`'s steps, from `from` if given (a state this
/// chain saved), and returns its best complete layout. `tick` is called
/// every [`TICK`] steps with the steps since the last call and the shortest
/// table the chain has found; `save` every [`SAVE`] steps with where the
/// chain stands. A chain resumed from its state ends exactly where it would
/// have ended without stopping.
pub(super) fn run_chain(
    shapes: &[Vec<Shape>],
    packing: &Packing,
    seed: u64,
    from: Option<&ChainState>,
    tick: &dyn Fn(u64, usize),
    save: &dyn Fn(ChainState),
) -> Layout {
    // The smallest shapes end to end always fit: start from them.
    let mut best = end_to_end(shapes);
    let (run, steps) = (packing.run, packing.steps);
    let mut best_len = table_len(shapes, &best, run);
    let len = best_len.div_ceil(run as usize);
    let mut chain = Chain::new(shapes, len, seed, packing.penalty);
    let mut reported = 0;
    match from {
        Some(state) => {
            chain.restore(state);
            best.clone_from(&state.best);
            best_len = table_len(shapes, &best, run);
            reported = state.step;
        }
        None => {
            for (i, p) in best.iter().enumerate() {
                chain.layout[i] = *p;
                chain.mark(i, p.expect("complete"), true);
            }
            chain.shrink();
        }
    }
    for step in reported + 1..=steps {
        if chain.step() {
            best_len = table_len(shapes, &chain.layout, run);
            best = chain.layout.clone();
            chain.shrink();
        }
        if step % TICK == 0 || step == steps {
            tick(step - reported, best_len);
            reported = step;
        }
        if step % SAVE == 0 {
            save(ChainState {
                step,
                len: chain.len,
                rng: chain.rng.get_word_pos(),
                layout: chain.layout.clone(),
                best: best.clone(),
            });
        }
    }
    best
}

/// Steps between two progress reports of a chain.
const TICK: u64 = 1024;

/// Steps between two saved states of a chain (`magicgen --pack-checkpoint`):
/// about half a minute of a 70-climb pool's packing at three turns.
pub(super) const SAVE: u64 = TICK;

/// Every square at its smallest shape, end to end: the layout a search with
/// no steps returns.
pub(super) fn end_to_end(shapes: &[Vec<Shape>]) -> Layout {
    let mut at = 0;
    shapes
        .iter()
        .map(|s| {
            let p = Some((0, at));
            at += s[0].len as usize;
            p
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::shapes::shapes;
    use super::super::tests::{packing, problems, small_pool};
    use super::super::DEFAULT_PENALTY;
    use super::*;

    /// The run length of the comb tests.
    const RUN: u32 = 8;

    /// A comb of `teeth` one-run teeth, `period` runs apart.
    fn comb(teeth: u32, period: u32) -> Shape {
        let stretches: Vec<(u32, u32)> = (0..teeth).map(|t| (t * period, t * period + 1)).collect();
        let len = (teeth - 1) * period + 1;
        Shape {
            magic: 0,
            bits: 0,
            first: 0,
            cut: 0,
            span: (len - 1) * RUN + 1,
            len,
            runs: teeth,
            stretches,
        }
    }

    #[test]
    fn combs_interleave() {
        // Three combs of period 3, 28 runs long, fill each other's gaps:
        // 84 runs end to end, 30 interleaved.
        let shapes = vec![vec![comb(10, 3)]; 3];
        let comb_slots = 27 * RUN as usize + 1;
        assert_eq!(
            table_len(&shapes, &end_to_end(&shapes), RUN),
            56 * RUN as usize + comb_slots
        );
        let best = run_chain(
            &shapes,
            &packing(RUN, 1, 2000, 1),
            1,
            None,
            &|_, _| {},
            &|_| {},
        );
        assert_eq!(
            table_len(&shapes, &best, RUN),
            2 * RUN as usize + comb_slots
        );
    }

    #[test]
    fn a_resumed_chain_ends_where_an_unbroken_one_does() {
        use std::cell::RefCell;
        let shapes = shapes(&problems(), &small_pool(), 8, 2).unwrap();
        let steps = 2 * SAVE + 300;
        let run = |from: Option<&ChainState>| {
            let saved = RefCell::new(Vec::new());
            let best = run_chain(
                &shapes,
                &packing(8, 1, steps, 1),
                7,
                from,
                &|_, _| {},
                &|state| saved.borrow_mut().push(state),
            );
            (best, saved.into_inner())
        };
        let (best, saved) = run(None);
        assert_eq!(
            saved.iter().map(|s| s.step).collect::<Vec<_>>(),
            [SAVE, 2 * SAVE]
        );
        for state in &saved {
            check_layout(&shapes, &state.layout, state.len, false).unwrap();
            let best_runs = table_len(&shapes, &state.best, 8).div_ceil(8);
            check_layout(&shapes, &state.best, best_runs, true).unwrap();
        }
        // From the first state: the same second state and the same end.
        let (again, later) = run(Some(&saved[0]));
        assert_eq!(later, saved[1..]);
        assert_eq!(again, best);
        // From the last: nothing more to save, the same end.
        assert_eq!(run(Some(&saved[1])), (best, Vec::new()));
    }

    #[test]
    fn bad_layouts_are_named() {
        let shapes = shapes(&problems(), &small_pool(), 8, 1).unwrap();
        let good = end_to_end(&shapes);
        let len = table_len(&shapes, &good, 8).div_ceil(8);
        assert_eq!(check_layout(&shapes, &good, len, true), Ok(()));
        let short = check_layout(&shapes, &good, len - 1, true).unwrap_err();
        assert!(short.contains("past the strip's"), "{short}");
        let mut out = good.clone();
        out[3] = None;
        assert_eq!(check_layout(&shapes, &out, len, false), Ok(()));
        assert!(check_layout(&shapes, &out, len, true)
            .unwrap_err()
            .contains("square 3 is not placed"));
        let mut twice = good.clone();
        twice[1] = twice[0];
        twice[1].as_mut().unwrap().0 = 0;
        let clash = check_layout(&shapes, &twice, len, false).unwrap_err();
        assert!(clash.contains("another square"), "{clash}");
        let mut far = good.clone();
        far[2] = Some((0, usize::MAX - 1));
        let far = check_layout(&shapes, &far, len, false).unwrap_err();
        assert!(far.contains("past the strip's"), "{far}");
        let mut none = good.clone();
        none[2] = Some((99, 0));
        assert!(check_layout(&shapes, &none, len, false)
            .unwrap_err()
            .contains("no shape 99"));
        assert!(check_layout(&shapes, &good[1..].to_vec(), len, false).is_err());
    }

    #[test]
    fn a_chain_never_takes_a_run_twice() {
        // Runs of two slots, blocks at up to three turns.
        let shapes = shapes(&problems(), &small_pool(), 2, 3).unwrap();
        let len = shapes.iter().map(|s| s[0].runs as usize).sum();
        let mut chain = Chain::new(&shapes, len, 1, DEFAULT_PENALTY);
        for step in 0..200 {
            chain.step();
            if step % 50 == 49 {
                chain.shrink();
            }
            let mut count = vec![0u32; len];
            for (i, p) in chain.layout.iter().enumerate() {
                let Some((s, at)) = *p else { continue };
                for &(a, b) in &shapes[i][s].stretches {
                    for c in &mut count[at + a as usize..at + b as usize] {
                        *c += 1;
                    }
                }
            }
            assert!(count.iter().all(|&c| c <= 1), "a run taken twice");
            let taken: Vec<bool> = count.iter().map(|&c| c == 1).collect();
            // Runs past the strip's end count as taken.
            let bits: Vec<bool> = (0..len).map(|r| chain.is_taken(r)).collect();
            let past_end = (0..len).map(|r| r >= chain.len);
            let expected: Vec<bool> = taken.iter().zip(past_end).map(|(t, p)| t | p).collect();
            assert_eq!(expected, bits);
            // Every level says whether a run from its bit on is taken or
            // past the end.
            chain.cover();
            for (m, level) in chain.covered.iter().enumerate() {
                for r in 0..chain.len {
                    let any = (r..r + (1 << m)).any(|q| q >= chain.len || taken[q]);
                    assert_eq!(level[r / 64] >> (r % 64) & 1 == 1, any, "level {m} run {r}");
                }
            }
        }
    }
}
