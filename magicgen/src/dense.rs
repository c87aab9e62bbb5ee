//! Dense blocks from sparse multipliers (`magicgen dense`): a depth-first
//! search for black magics whose block is short and does not wrap round its
//! window, the kind the published variable-shift tables are made of
//! (`docs/magic-tables.md`, section 17).
//!
//! A black index is the top `k` bits of `(e + 1) · m'`, where `e` is the
//! mask's empty squares and `m' = −m` (`o | !mask` is `−(e + 1)` modulo
//! `2^64`). The search fixes `m'` from its top bit down. With the top `t`
//! bits known, an occupancy's product lies in an interval `e + 1` times as
//! wide as the unknown part; once that interval sits inside one slot, the
//! occupancy is placed there, and a slot that would hold two different
//! attack sets ends the branch. Two more cuts make it a search for dense
//! blocks:
//!
//! * **A budget.** Mask bit `b`'s weight, `m' · 2^b` read as a signed number
//!   of slots, has its top `t − b` bits known. If the smallest magnitudes the
//!   known bits allow add up to more than the budget, the branch ends. At a
//!   leaf every weight is known, so the sums of a block found cannot wrap
//!   round the window: read as a ring, it spans at most the budget plus one
//!   slot (once turned, as far as its square allows, its plain span can be
//!   longer: the rooks of rank 1 turn only in steps of half or a quarter of
//!   the window).
//! * **Sparsity first.** Bit 1 is tried before bit 0, and bit 0 only while
//!   the prefix has fewer than `zeros` zeros: an `m'` with few zeros is an
//!   `m` with few ones, and the published dense blocks come from such
//!   multipliers (a few runs of ones, each the weight of several mask bits).
//!
//! Nothing is random: the same square, width and limits give the same
//! blocks on any machine.

use crate::compact::block::turned;
use crate::parallel::map_on_threads;
use crate::problem::{squares, Problem, Scratch};
use yolah_geometry::magics::Indexing;
use yolah_geometry::rays::relevant_mask;
use yolah_geometry::{Slider, Square};

/// The budget `magicgen dense` and the pool's dense searches use unless
/// told: 85% of the window of `bits` bits.
pub const fn default_budget(bits: u32) -> u32 {
    (1u32 << bits) * 17 / 20
}

/// The most zeros `-m` has in the pool's dense searches (and `magicgen
/// dense`'s default): the published dense rook blocks come from
/// multipliers of a few runs of ones.
pub const DEFAULT_ZEROS: u32 = 8;

/// Blocks the pool keeps from each dense search.
const POOL_KEEP: usize = 3;

/// What one dense search looks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DenseSpec {
    /// Index bits `k`.
    pub bits: u32,
    /// The most zeros the multiplier `m' = −m` may have.
    pub zeros: u32,
    /// The most the magnitudes of the mask bits' weights may add up to, in
    /// slots: a bound on the blocks' spans. Below `2^bits`.
    pub budget: u32,
    /// Nodes of the search before it stops.
    pub nodes: u64,
    /// How many blocks to keep: the shortest, each of another (span, used).
    pub keep: usize,
}

/// A block the dense search found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct DenseBlock {
    /// Its plain span once turned as far as the square allows (`compact`
    /// turns blocks the same way for the pool).
    pub span: u32,
    /// Its used slots.
    pub used: u32,
    /// The multiplier, turned.
    pub magic: u64,
}

/// What a dense search found, and how far it went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DenseRun {
    /// The shortest blocks found, best first.
    pub blocks: Vec<DenseBlock>,
    /// Nodes visited.
    pub nodes: u64,
    /// Whether the whole tree was searched (false: the node limit stopped
    /// it, or 4,096 valid blocks were reached).
    pub complete: bool,
}

/// The dense blocks of `slider` on `square` at `spec.bits` bits.
pub fn dense_blocks(slider: Slider, square: Square, spec: &DenseSpec) -> DenseRun {
    let problem = Problem::new(Indexing::Black, slider, square);
    let k = spec.bits;
    let mut search = Search::new(&problem, spec);
    search.go(0, 0, 0, 0);
    let mut scratch = Scratch::new(k);
    let mut blocks: Vec<DenseBlock> = Vec::new();
    for &leaf in &search.leaves {
        let Some(magic) = turned(&problem, leaf.wrapping_neg(), k, &mut scratch) else {
            continue;
        };
        let Some(slots) = scratch.block(&problem, magic, k) else {
            continue;
        };
        let (lo, hi) = slots
            .iter()
            .fold((u32::MAX, 0), |(lo, hi), &s| (lo.min(s), hi.max(s)));
        let block = DenseBlock {
            span: hi - lo + 1,
            used: slots.len() as u32,
            magic,
        };
        if !blocks
            .iter()
            .any(|b| (b.span, b.used) == (block.span, block.used))
        {
            blocks.push(block);
        }
    }
    blocks.sort_unstable();
    blocks.truncate(spec.keep);
    DenseRun {
        blocks,
        nodes: search.nodes,
        complete: !search.stopped,
    }
}

/// The dense blocks the interleave search adds to its pool
/// (`magicgen --dense N`): for every orthogonal square, the three
/// shortest blocks of a dense search at its mask's width with
/// [`DEFAULT_ZEROS`] zeros, [`default_budget`] and `nodes` nodes, as
/// `(multiplier, bits)`, turned as the compact pool's are; the diagonal
/// squares get none (their blocks are small, and the climbs find them
/// dense). One list per square in the pool's order; `done` is called with
/// the squares searched so far. The searches run on `threads` threads and
/// give the same blocks on any number.
pub fn dense_pool(
    nodes: u64,
    threads: usize,
    done: &(dyn Fn(usize, usize) + Sync),
) -> Vec<Vec<(u64, u32)>> {
    let all = squares();
    let todo: Vec<usize> = (0..all.len())
        .filter(|&i| all[i].0 == Slider::Orthogonal)
        .collect();
    let found = map_on_threads(
        &todo,
        threads,
        |&i| pool_blocks(all[i].0, all[i].1, nodes),
        |n| done(n, todo.len()),
    );
    let mut pool = vec![Vec::new(); all.len()];
    for (&i, blocks) in todo.iter().zip(found) {
        pool[i] = blocks;
    }
    pool
}

/// What [`dense_pool`] adds for one square.
fn pool_blocks(slider: Slider, square: Square, nodes: u64) -> Vec<(u64, u32)> {
    let bits = relevant_mask(slider, square).count();
    let spec = DenseSpec {
        bits,
        zeros: DEFAULT_ZEROS,
        budget: default_budget(bits),
        nodes,
        keep: POOL_KEEP,
    };
    let run = dense_blocks(slider, square, &spec);
    run.blocks.iter().map(|b| (b.magic, bits)).collect()
}

/// The least that the magnitudes of the mask bits' weights (`m' · 2^b` read
/// as signed, in units of `2^-64` of the window) can add up to when `m'`'s
/// top `t` bits are those of `prefix`: bit `b`'s weight has its top `t − b`
/// bits known (none for `b ≥ t`). Stops counting once past `limit`.
fn weight_floor(mask_bits: &[u32], t: u32, prefix: u64, limit: u128) -> u128 {
    const ONE: u128 = 1 << 64;
    let mut sum = 0u128;
    for &b in mask_bits {
        if b >= t || sum > limit {
            break;
        }
        // The weight's unknown bits (m's unknown bits, shifted) are zero in
        // `lo`; its low `b` bits are zero whatever they are.
        let lo = u128::from(prefix << b);
        let hi = lo + (((1u128 << (64 - t)) - 1) << b);
        if lo != 0 && hi < ONE {
            sum += lo.min(ONE - hi);
        }
    }
    sum
}

/// The depth-first search's state along its current path.
struct Search {
    k: u32,
    /// Each occupancy's `e + 1`, ascending.
    products: Vec<u64>,
    /// Each occupancy's attacks.
    attacks: Vec<u64>,
    /// Stacked lists, one per node of the current path: the occupancies
    /// whose interval was narrower than a slot there but straddled two, so
    /// that a deeper node may place them. Each list is ascending.
    pending: Vec<usize>,
    /// The occupancies placed on the current path, in order.
    undo: Vec<usize>,
    /// Per slot: the attacks placed there and how many occupancies.
    slots: Vec<(u64, u32)>,
    /// The mask's bits, ascending.
    mask_bits: Vec<u32>,
    /// The budget in units of `2^-64` of the window.
    budget: u128,
    zeros: u32,
    limit: u64,
    nodes: u64,
    /// Whether a limit stopped the search.
    stopped: bool,
    /// The `m'` of every valid block reached.
    leaves: Vec<u64>,
}

/// Leaves kept before the search stops: each is a valid block, and
/// measuring them all costs more than the search once there are many.
const MAX_LEAVES: usize = 4096;

impl Search {
    /// The search of `spec` for `problem`, before its first node.
    fn new(problem: &Problem, spec: &DenseSpec) -> Search {
        let mut occupancies: Vec<(u64, u64)> = problem
            .keys
            .iter()
            .zip(&problem.attacks)
            .map(|(&key, &attacks)| (key.wrapping_neg(), attacks))
            .collect();
        occupancies.sort_unstable();
        let mask = !problem.not_mask;
        let k = spec.bits;
        Search {
            k,
            products: occupancies.iter().map(|o| o.0).collect(),
            attacks: occupancies.iter().map(|o| o.1).collect(),
            pending: Vec::new(),
            undo: Vec::new(),
            slots: vec![(0, 0); 1 << k],
            mask_bits: (0..64).filter(|b| mask >> b & 1 == 1).collect(),
            budget: u128::from(spec.budget) << (64 - k),
            zeros: spec.zeros,
            limit: spec.nodes,
            nodes: 0,
            stopped: false,
            leaves: Vec::new(),
        }
    }

    /// Visits the node whose top `t` bits of `m'` are those of `prefix`.
    /// Its parent left the occupancies it could not yet place at
    /// `pending[from..]`, and had looked at the first `scanned` ones.
    fn go(&mut self, t: u32, prefix: u64, from: usize, scanned: usize) {
        if self.nodes >= self.limit || self.leaves.len() >= MAX_LEAVES {
            self.stopped = true;
            return;
        }
        self.nodes += 1;
        let mark = self.undo.len();
        let own = self.pending.len();
        // `place` pushes this node's own pending list from `own` on.
        let Some(looked) = self.place(t, prefix, from, scanned) else {
            return;
        };
        if t == 64 {
            self.leaves.push(prefix);
        } else {
            let zeros = if t == 0 {
                0
            } else {
                (!prefix >> (64 - t)).count_ones()
            };
            self.go(t + 1, prefix | 1 << (63 - t), own, looked);
            if zeros < self.zeros {
                self.go(t + 1, prefix, own, looked);
            }
        }
        self.pending.truncate(own);
        self.unplace(mark, prefix);
    }

    /// Checks the budget, then places every occupancy whose slot the known
    /// bits settle: those the parent left pending, then the next ones in
    /// order while an occupancy's interval is narrower than a slot (the
    /// same occupancies in the same order as a scan of them all, skipping
    /// the placed ones). Returns how many occupancies have been looked at,
    /// with those still unplaced pushed as this node's pending list, or
    /// `None` (with nothing left placed or pushed) if the node is cut.
    fn place(&mut self, t: u32, prefix: u64, from: usize, scanned: usize) -> Option<usize> {
        if weight_floor(&self.mask_bits, t, prefix, self.budget) > self.budget {
            return None;
        }
        let shift = 64 - self.k;
        let unknown = (1u128 << (64 - t)) - 1;
        let mark = self.undo.len();
        let own = self.pending.len();
        let mut next = scanned;
        let mut j = from;
        loop {
            let i = if j < own {
                j += 1;
                self.pending[j - 1]
            } else if next < self.products.len()
                && (u128::from(self.products[next]) * unknown) >> shift == 0
            {
                next += 1;
                next - 1
            } else {
                break;
            };
            let lo = u128::from(self.products[i].wrapping_mul(prefix));
            let reach = u128::from(self.products[i]) * unknown;
            if lo >> shift != (lo + reach) >> shift {
                self.pending.push(i);
                continue;
            }
            let slot = &mut self.slots[(lo >> shift) as usize];
            if slot.1 > 0 && slot.0 != self.attacks[i] {
                self.pending.truncate(own);
                self.unplace(mark, prefix);
                return None;
            }
            *slot = (self.attacks[i], slot.1 + 1);
            self.undo.push(i);
        }
        Some(next)
    }

    /// Takes back the occupancies placed since `mark` (at `prefix`, whose
    /// known bits placed them).
    fn unplace(&mut self, mark: usize, prefix: u64) {
        let shift = 64 - self.k;
        while self.undo.len() > mark {
            let i = self.undo.pop().expect("longer than mark");
            let slot = self.products[i].wrapping_mul(prefix) >> shift;
            self.slots[slot as usize].1 -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use yolah_geometry::rays::relevant_mask;

    impl Search {
        /// [`Search::go`] as it was first written: every node scans all the
        /// occupancies narrower than a slot, skipping the placed ones.
        fn go_slow(&mut self, t: u32, prefix: u64, placed: &mut [bool]) {
            if self.nodes >= self.limit || self.leaves.len() >= MAX_LEAVES {
                self.stopped = true;
                return;
            }
            self.nodes += 1;
            let mark = self.undo.len();
            if weight_floor(&self.mask_bits, t, prefix, self.budget) > self.budget {
                return;
            }
            let shift = 64 - self.k;
            let unknown = (1u128 << (64 - t)) - 1;
            for i in 0..self.products.len() {
                let reach = u128::from(self.products[i]) * unknown;
                if reach >> shift != 0 {
                    break;
                }
                if placed[i] {
                    continue;
                }
                let lo = u128::from(self.products[i].wrapping_mul(prefix));
                if lo >> shift != (lo + reach) >> shift {
                    continue;
                }
                let slot = &mut self.slots[(lo >> shift) as usize];
                if slot.1 > 0 && slot.0 != self.attacks[i] {
                    for &j in &self.undo[mark..] {
                        placed[j] = false;
                    }
                    self.unplace(mark, prefix);
                    return;
                }
                *slot = (self.attacks[i], slot.1 + 1);
                placed[i] = true;
                self.undo.push(i);
            }
            if t == 64 {
                self.leaves.push(prefix);
            } else {
                let zeros = if t == 0 {
                    0
                } else {
                    (!prefix >> (64 - t)).count_ones()
                };
                self.go_slow(t + 1, prefix | 1 << (63 - t), placed);
                if zeros < self.zeros {
                    self.go_slow(t + 1, prefix, placed);
                }
            }
            for &j in &self.undo[mark..] {
                placed[j] = false;
            }
            self.unplace(mark, prefix);
        }
    }

    #[test]
    fn the_search_visits_what_a_full_scan_of_every_node_visits() {
        // The pending lists are only a shortcut: the same nodes, the same
        // leaves, in the same order, whatever the limits. g6 reaches 15
        // blocks; bishop a1 and rook d4 (4 zeros) are searched whole.
        let cases = [
            (Slider::Orthogonal, "g6", spec(10, 8, 870, 1_000_000)),
            (Slider::Orthogonal, "e1", spec(11, 8, 1740, 300_000)),
            (Slider::Orthogonal, "d2", spec(9, 10, 511, 300_000)),
            (Slider::Diagonal, "d4", spec(9, 8, 435, 300_000)),
            (Slider::Diagonal, "a1", spec(6, 4, 63, 10_000_000)),
            (Slider::Orthogonal, "d4", spec(10, 4, 1000, 10_000_000)),
        ];
        for (slider, square, spec) in cases {
            let problem = Problem::new(Indexing::Black, slider, Square::parse(square).unwrap());
            let mut fast = Search::new(&problem, &spec);
            fast.go(0, 0, 0, 0);
            let mut slow = Search::new(&problem, &spec);
            let mut placed = vec![false; slow.products.len()];
            slow.go_slow(0, 0, &mut placed);
            assert_eq!(
                (fast.nodes, fast.stopped, &fast.leaves),
                (slow.nodes, slow.stopped, &slow.leaves),
                "{slider:?} {square}"
            );
            eprintln!(
                "{square} {} {} {}",
                fast.nodes,
                fast.stopped,
                fast.leaves.len()
            );
            assert!(fast.pending.is_empty() && fast.undo.is_empty(), "{square}");
            assert!(fast.slots.iter().all(|s| s.1 == 0), "{square}");
            assert!(!placed.iter().any(|&p| p), "{square}");
        }
    }

    fn spec(bits: u32, zeros: u32, budget: u32, nodes: u64) -> DenseSpec {
        DenseSpec {
            bits,
            zeros,
            budget,
            nodes,
            keep: 4,
        }
    }

    #[test]
    fn blocks_found_are_valid_and_within_the_budget() {
        // Rook g6 at its mask's width: a block of 756 slots (640 used) in a
        // window of 1,024 within a million nodes.
        let g6 = Square::parse("g6").unwrap();
        let run = dense_blocks(Slider::Orthogonal, g6, &spec(10, 8, 870, 1_000_000));
        let best = run.blocks.first().expect("a block");
        assert_eq!((best.span, best.used), (756, 640), "{run:?}");
        let problem = Problem::new(Indexing::Black, Slider::Orthogonal, g6);
        let mut scratch = Scratch::new(10);
        for b in &run.blocks {
            let slots = scratch.block(&problem, b.magic, 10).expect("valid");
            assert_eq!(slots.len() as u32, b.used);
            assert!(b.span <= 871 && b.used <= b.span, "{b:?}");
            // Read as a ring, no block spans more than the budget allows.
            let mut sorted = slots.to_vec();
            sorted.sort_unstable();
            let wrap = sorted[0] + 1024 - sorted[sorted.len() - 1];
            let gap = sorted.windows(2).map(|w| w[1] - w[0]).chain([wrap]).max();
            assert!(1024 - gap.unwrap() < 871, "{b:?}");
        }
        // Best first, each of another shape; the same search again gives the
        // same blocks.
        assert!(run
            .blocks
            .windows(2)
            .all(|w| (w[0].span, w[0].used) < (w[1].span, w[1].used)));
        assert_eq!(
            dense_blocks(Slider::Orthogonal, g6, &spec(10, 8, 870, 1_000_000)),
            run
        );
    }

    #[test]
    fn the_weight_floor_is_exact_once_every_bit_is_known_and_never_above_it() {
        // Rook a8's mask reaches bit 62, whose weight is a multiple of 2^62
        // units: a floor that missed a weight's low zero bits undercounted
        // these (m' = 2^64 - 2^10 + 3 at 12 bits: 4,064 slots, not 3,040).
        let a8 = Square::parse("a8").unwrap();
        let mask = relevant_mask(Slider::Orthogonal, a8).0;
        let bits: Vec<u32> = (0..64).filter(|b| mask >> b & 1 == 1).collect();
        let magnitude = |x: u64| u128::from(x.min(x.wrapping_neg()));
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut cases = vec![0u64.wrapping_sub(1 << 10).wrapping_add(3), 0, u64::MAX];
        for _ in 0..200 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            cases.push(x);
        }
        for &m in &cases {
            let exact: u128 = bits.iter().map(|&b| magnitude(m << b)).sum();
            assert_eq!(weight_floor(&bits, 64, m, u128::MAX), exact, "{m:#x}");
            for t in [1, 9, 33, 57, 63] {
                let prefix = m & !(u64::MAX >> t);
                assert!(
                    weight_floor(&bits, t, prefix, u128::MAX) <= exact,
                    "{m:#x} at {t}"
                );
            }
        }
        let reviewed = cases[0];
        let slots = weight_floor(&bits, 64, reviewed, u128::MAX) >> (64 - 12);
        assert_eq!(slots, 4064);
    }

    #[test]
    fn the_limits_bound_the_search() {
        let e1 = Square::parse("e1").unwrap();
        let run = dense_blocks(Slider::Orthogonal, e1, &spec(11, 8, 1540, 1_000));
        assert!(!run.complete && run.nodes == 1_000);
        // No zeros allowed: m' is all ones, m is 1, which no rook survives.
        let run = dense_blocks(Slider::Orthogonal, e1, &spec(11, 0, 1540, 1_000));
        assert!(run.complete && run.blocks.is_empty(), "{run:?}");
        // A budget of nothing cuts every weight.
        let run = dense_blocks(Slider::Orthogonal, e1, &spec(11, 8, 0, 1_000_000));
        assert!(run.complete && run.blocks.is_empty(), "{run:?}");
    }

    #[test]
    fn the_pool_holds_each_rooks_best_dense_blocks_on_any_threads() {
        let one = dense_pool(20_000, 1, &|_, _| {});
        assert_eq!(one, dense_pool(20_000, 2, &|_, _| {}));
        assert_eq!(one.len(), 128);
        for (&(slider, square), blocks) in squares().iter().zip(&one) {
            let want = match slider {
                Slider::Orthogonal => pool_blocks(slider, square, 20_000),
                Slider::Diagonal => Vec::new(),
            };
            assert_eq!(blocks, &want, "{slider:?} {square}");
        }
        // Rook g6 with more nodes: the block of the test above, at its
        // mask's width.
        let g6 = Square::parse("g6").unwrap();
        let blocks = pool_blocks(Slider::Orthogonal, g6, 1_000_000);
        let run = dense_blocks(Slider::Orthogonal, g6, &spec(10, 8, 870, 1_000_000));
        assert_eq!(blocks.first(), Some(&(run.blocks[0].magic, 10)));
    }
}
