//! Compact blocks: for every square and index width, a climb towards the
//! block with the smallest footprint (the 8-slot runs it touches), each
//! result turned round its window so that the ring's largest gap is where it
//! wraps (turning a black block is free: `block.rs` says why).
//!
//! The interleave search packs these blocks (`interleave.rs`). The pool
//! was first made for 8-slot runs that no two blocks share: a block made of
//! a few dense clusters leaves whole runs free between them for other
//! blocks to fill. Climbs towards the shortest span (one cluster) gave no
//! shorter table; footprint climbs did (`docs/magic-tables.md`, sections 8
//! to 11).
//!
//! Each climb has its own ChaCha8 generator, seeded from the run's seed, the
//! square, the width and the climb's number, so the result does not depend
//! on the number of threads, and a pool of more climbs contains a pool of
//! fewer (which the climb log of `magicgen --climb-log` builds on).

pub(crate) mod block;

use crate::parallel::map_on_threads;
use crate::problem::{square_seed, squares, Problem, Scratch};
use block::{footprint, turned};
use rand_chacha::rand_core::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use yolah_geometry::magics::Indexing;
use yolah_geometry::rays::relevant_mask;

/// A random starting multiplier: the sum of two to seven powers of two, each
/// added or subtracted. The published merging multipliers are of this kind
/// (four to twelve signed digits), and climbs from them end in smaller
/// footprints than climbs from sparse or dense random bits.
fn random_magic(rng: &mut ChaCha8Rng) -> u64 {
    let mut m = 0u64;
    for _ in 0..2 + rng.next_u32() % 6 {
        let bit = 1u64 << (rng.next_u32() % 64);
        m = if rng.next_u32() & 1 == 0 {
            m.wrapping_add(bit)
        } else {
            m.wrapping_sub(bit)
        };
    }
    m
}

/// One or two moves from `magic`, each a bit flip or the addition or
/// subtraction of a power of two (whose carries keep the runs of ones and
/// zeros that merging multipliers are made of).
fn step(mut magic: u64, rng: &mut ChaCha8Rng) -> u64 {
    for _ in 0..1 + rng.next_u32() % 2 {
        let bit = 1u64 << (rng.next_u32() % 64);
        magic = match rng.next_u32() % 3 {
            0 => magic ^ bit,
            1 => magic.wrapping_add(bit),
            _ => magic.wrapping_sub(bit),
        };
    }
    magic
}

/// Random multipliers tried for a valid start before a climb gives up. At
/// the mask's own width few signed-sparse multipliers are valid: with 2^16
/// tries, 44 of the 64 rooks started fewer than half of 20 climbs there, and
/// h8 none, though those widths hold some of the smallest footprints. A
/// failed try costs a few multiplications.
const START_TRIES: u32 = 1 << 22;

/// Where one climb of `steps` steps from a random start ends for `problem`
/// at `bits` bits, keeping any step that makes the block's footprint no
/// larger (then its used slots no more); `None` if no valid start was found.
///
/// Below the mask's width random multipliers are (almost) never valid: the
/// climb then starts from one that is not and first descends, keeping any
/// step with no more conflicts (occupancies sent to a slot that holds other
/// attacks), until none is left; the steps that remain climb as above.
fn climb(problem: &Problem, ring: bool, bits: u32, steps: u32, seed: u64) -> Option<u64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut scratch = Scratch::new(bits);
    let mask_bits = problem.keys.len().trailing_zeros();
    let (mut magic, left) = if bits < mask_bits {
        descend(problem, bits, steps, &mut rng, &mut scratch)?
    } else {
        let start = (0..START_TRIES).find_map(|_| {
            let m = random_magic(&mut rng);
            measure(problem, ring, bits, m, &mut scratch).map(|_| m)
        })?;
        (start, steps)
    };
    let mut at = measure(problem, ring, bits, magic, &mut scratch).expect("a valid start");
    for _ in 0..left {
        let next = step(magic, &mut rng);
        if let Some(s) = measure(problem, ring, bits, next, &mut scratch) {
            if s <= at {
                (at, magic) = (s, next);
            }
        }
    }
    Some(magic)
}

/// A valid multiplier at `bits` bits reached from a random one by keeping
/// every step with no more conflicts, and the steps left of `steps`; `None`
/// if the steps run out first.
fn descend(
    problem: &Problem,
    bits: u32,
    steps: u32,
    rng: &mut ChaCha8Rng,
    scratch: &mut Scratch,
) -> Option<(u64, u32)> {
    let mut magic = random_magic(rng);
    let mut conflicts = scratch.conflicts(problem, magic, bits, u32::MAX);
    for done in 0..steps {
        if conflicts == 0 {
            return Some((magic, steps - done));
        }
        let next = step(magic, rng);
        let c = scratch.conflicts(problem, next, bits, conflicts);
        if c <= conflicts {
            (magic, conflicts) = (next, c);
        }
    }
    (conflicts == 0).then_some((magic, 0))
}

/// A block's (footprint, used slots), if `magic` is valid at `bits`.
fn measure(
    problem: &Problem,
    ring: bool,
    bits: u32,
    magic: u64,
    scratch: &mut Scratch,
) -> Option<(u32, u32)> {
    let slots = scratch.block(problem, magic, bits)?;
    Some((footprint(slots, bits, ring), slots.len() as u32))
}

/// The seed of one climb: every climb has its own generator, so a pool of
/// more climbs extends a pool of fewer, and a climb log (`Climb`) from any
/// run with the same seed and steps serves another.
fn climb_seed(seed: u64, square: usize, bits: u32, index: u32) -> u64 {
    let width = u64::from(bits) << 48 | u64::from(index);
    square_seed(
        square_seed(seed ^ 0xc0a1_e5ce, square) ^ width,
        index as usize,
    )
}

/// The index widths the pool climbs at for a mask of `n` bits: from
/// `below` bits under `n` up to one bit past the fixed-shift widths (13
/// orthogonal, 10 diagonal). Wider windows spread a block thinner, and some
/// still pack denser: d4's densest block found has 768 slots in 768 at 13
/// bits, against 1,024 at 10 to 12. Below the mask's width a block that
/// exists is dense: its constructive collisions absorb the missing bits.
pub fn widths(n: u32, below: u32) -> Vec<u32> {
    let ceiling = if n >= 10 { 12 } else { 9 };
    (n.saturating_sub(below).max(1)..=ceiling + 1).collect()
}

/// One climb of the compact pool and where it ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Climb {
    /// The square's index: orthogonal a1…h8 (0…63), then diagonal (64…127).
    pub square: usize,
    /// The index width it climbed at.
    pub bits: u32,
    /// Its number among the climbs at that square and width, from 0.
    pub index: u32,
    /// The multiplier it ended on, not turned; `None` if it found no valid
    /// start.
    pub magic: Option<u64>,
}

/// What a compact pool is made of.
pub struct PoolSpec<'a> {
    /// Black or white indexing.
    pub indexing: Indexing,
    /// The run's seed: every climb's generator derives from it.
    pub seed: u64,
    /// The widths to climb at for a mask of `n` bits (normally [`widths`]).
    pub widths: &'a dyn Fn(u32) -> Vec<u32>,
    /// Climbs per square and width.
    pub climbs: u32,
    /// Steps of each climb.
    pub steps: u32,
}

/// The compact pool: for every square (orthogonal a1…h8, then diagonal
/// a1…h8) and every width in `spec.widths(mask bits)`, the blocks that
/// `spec.climbs` climbs end on, most compact first, as `(multiplier, bits)`.
///
/// Climbs already in `known` (from a climb log, say) are not climbed again;
/// `record` is called with each new one as it ends, and `done` with how many
/// of the pool's climbs are done. Climbs run in rounds (every square and
/// width's climb 0, then every climb 1, …), so a run stopped early has
/// climbed evenly. A known climb whose multiplier is not a valid block is
/// refused: it cannot come from a run with this seed.
pub fn compact_pool(
    spec: &PoolSpec,
    threads: usize,
    known: &[Climb],
    record: &(dyn Fn(&Climb) + Sync),
    done: &(dyn Fn(usize, usize) + Sync),
) -> Result<Vec<Vec<(u64, u32)>>, String> {
    let all = squares();
    let cells: Vec<(usize, u32)> = all
        .iter()
        .enumerate()
        .flat_map(|(i, &(slider, square))| {
            (spec.widths)(relevant_mask(slider, square).count())
                .into_iter()
                .map(move |bits| (i, bits))
        })
        .collect();
    let cell_of: std::collections::HashMap<(usize, u32), usize> =
        cells.iter().enumerate().map(|(k, &c)| (c, k)).collect();
    // Every climb's result: known ones first, the rest climbed below.
    let mut ends: Vec<Vec<Option<Option<u64>>>> =
        vec![vec![None; spec.climbs as usize]; cells.len()];
    for c in known {
        if let (Some(&cell), true) = (cell_of.get(&(c.square, c.bits)), c.index < spec.climbs) {
            ends[cell][c.index as usize] = Some(c.magic);
        }
    }
    let todo: Vec<(usize, u32)> = (0..spec.climbs)
        .flat_map(|index| (0..cells.len()).map(move |cell| (cell, index)))
        .filter(|&(cell, index)| ends[cell][index as usize].is_none())
        .collect();
    let total = cells.len() * spec.climbs as usize;
    let ring = spec.indexing == Indexing::Black;
    let problems: Vec<Problem> = all
        .iter()
        .map(|&(slider, square)| Problem::new(spec.indexing, slider, square))
        .collect();
    let (seed, steps) = (spec.seed, spec.steps);
    let climbed = map_on_threads(
        &todo,
        threads,
        |&(cell, index)| {
            let (square, bits) = cells[cell];
            let magic = climb(
                &problems[square],
                ring,
                bits,
                steps,
                climb_seed(seed, square, bits, index),
            );
            record(&Climb {
                square,
                bits,
                index,
                magic,
            });
            magic
        },
        |n| done(total - todo.len() + n, total),
    );
    for (&(cell, index), magic) in todo.iter().zip(climbed) {
        ends[cell][index as usize] = Some(magic);
    }
    let mut pool = vec![Vec::new(); all.len()];
    let mut scratch = Scratch::new(cells.iter().map(|c| c.1).max().unwrap_or(1));
    for (&(square, bits), ends) in cells.iter().zip(ends) {
        let problem = &problems[square];
        // Best first; climbs that ended on the same multiplier count once.
        let mut found = Vec::new();
        for magic in ends.into_iter().flatten().flatten() {
            let at = measure(problem, ring, bits, magic, &mut scratch).ok_or_else(|| {
                let (slider, sq) = all[square];
                format!("the multiplier 0x{magic:016x} is not a valid {slider:?} {sq} block at {bits} bits: the climb log comes from another run")
            })?;
            found.push((at, magic));
        }
        found.sort_unstable();
        found.dedup_by_key(|f| f.1);
        for (_, magic) in found {
            let magic = if ring {
                turned(problem, magic, bits, &mut scratch).expect("measured valid")
            } else {
                magic
            };
            pool[square].push((magic, bits));
        }
    }
    Ok(pool)
}

/// Climbs `climbs` again on `threads` threads, calling `done` after each,
/// and returns the first (in the order given) that now ends elsewhere, with
/// where it ends: a climb log must come from the same seed, steps and
/// climber as `spec`.
pub fn recheck(
    spec: &PoolSpec,
    climbs: &[Climb],
    threads: usize,
    done: &(dyn Fn(usize, usize) + Sync),
) -> Option<(Climb, Option<u64>)> {
    let all = squares();
    let (indexing, seed, steps) = (spec.indexing, spec.seed, spec.steps);
    // Per climb: `None` if it ends where the log says, else where it ends
    // now (nowhere for a square that does not exist).
    let differ = map_on_threads(
        climbs,
        threads,
        |c| {
            let Some(&(slider, square)) = all.get(c.square) else {
                return Some(None);
            };
            let problem = Problem::new(indexing, slider, square);
            let ring = indexing == Indexing::Black;
            let now = climb(
                &problem,
                ring,
                c.bits,
                steps,
                climb_seed(seed, c.square, c.bits, c.index),
            );
            (now != c.magic).then_some(now)
        },
        |n| done(n, climbs.len()),
    );
    let k = differ.iter().position(Option::is_some)?;
    Some((climbs[k], differ[k].expect("differs")))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::block::shape;
    use super::*;
    use yolah_geometry::{Slider, Square};

    #[test]
    fn a_climb_below_the_mask_descends_to_a_valid_dense_block() {
        // Bishop b1's mask has 5 bits; 4 bits need constructive collisions.
        let b1 = Square::parse("b1").unwrap();
        let problem = Problem::new(Indexing::Black, Slider::Diagonal, b1);
        let mut scratch = Scratch::new(5);
        let found: Vec<u64> = (0..8)
            .filter_map(|seed| climb(&problem, true, 4, 20_000, seed))
            .collect();
        assert!(!found.is_empty(), "no climb of eight reached 4 bits");
        for &magic in &found {
            assert_eq!(scratch.conflicts(&problem, magic, 4, u32::MAX), 0);
            let used = scratch.block(&problem, magic, 4).expect("valid").len();
            assert!(used <= 16);
        }
        // A multiplier that sends everything to one slot: every occupancy
        // but the first with other attacks conflicts, and the count stops
        // past its bound.
        let all = scratch.conflicts(&problem, 0, 4, u32::MAX);
        assert!(all > 3);
        assert_eq!(scratch.conflicts(&problem, 0, 4, 2), 3);
        // At 2 bits (four slots for six attack sets) no magic exists: the
        // climb gives up and says so.
        assert_eq!(climb(&problem, true, 2, 2_000, 1), None);
    }

    /// A small black pool for tests (here and in `interleave`): two short
    /// climbs at each of two widths per square.
    pub(crate) fn small_pool(threads: usize) -> Vec<Vec<(u64, u32)>> {
        let widths = |n: u32| vec![n, n + 1];
        let spec = PoolSpec {
            indexing: Indexing::Black,
            seed: 7,
            widths: &widths,
            climbs: 2,
            steps: 300,
        };
        compact_pool(&spec, threads, &[], &|_| {}, &|_, _| {}).unwrap()
    }

    #[test]
    fn the_pool_is_valid_compact_and_repeats_itself() {
        let run = small_pool;
        let one = run(1);
        assert_eq!(one, run(2));
        assert_eq!(one.len(), 128);
        assert!(one.iter().map(Vec::len).sum::<usize>() >= 200);
        let mut scratch = Scratch::new(13);
        for (i, &(slider, square)) in squares().iter().enumerate() {
            let problem = Problem::new(Indexing::Black, slider, square);
            let n = relevant_mask(slider, square).count();
            // Two climbs at each of two widths; a climb may find no valid
            // start at the mask's own width.
            assert!(one[i].len() <= 4, "{slider:?} {square}");
            for &(magic, bits) in &one[i] {
                let s = shape(&problem, true, magic, bits, &mut scratch).expect("valid");
                // Turned: the ring's span is the plain span (up to the turn's
                // granularity, which is below 2^n for every square).
                let slots = scratch.block(&problem, magic, bits).unwrap();
                let lo = slots.iter().min().unwrap();
                let hi = slots.iter().max().unwrap();
                assert!(hi - lo + 1 < s.span + (1 << n), "{slider:?} {square}");
            }
        }
    }

    #[test]
    fn known_climbs_are_not_climbed_again_and_a_bigger_pool_extends_a_smaller() {
        let widths = |n: u32| vec![n + 1];
        let spec = |climbs| PoolSpec {
            indexing: Indexing::Black,
            seed: 9,
            widths: &widths,
            climbs,
            steps: 100,
        };
        let log = std::sync::Mutex::new(Vec::new());
        let record = |c: &Climb| log.lock().unwrap().push(*c);
        let two = compact_pool(&spec(2), 2, &[], &record, &|_, _| {}).unwrap();
        let first = std::mem::take(&mut *log.lock().unwrap());
        assert_eq!(first.len(), 2 * 128);
        // Given the log, the same pool climbs nothing.
        assert_eq!(
            compact_pool(&spec(2), 2, &first, &record, &|_, _| {}),
            Ok(two.clone())
        );
        assert!(log.lock().unwrap().is_empty());
        // Three climbs: only the third round is climbed, and the pool is the
        // one a fresh run of three climbs gives.
        let three = compact_pool(&spec(3), 1, &first, &record, &|_, _| {}).unwrap();
        let new = std::mem::take(&mut *log.lock().unwrap());
        assert!(new.len() == 128 && new.iter().all(|c| c.index == 2));
        assert_eq!(
            compact_pool(&spec(3), 2, &[], &|_| {}, &|_, _| {}),
            Ok(three)
        );
        // A log's multiplier that is no valid block is refused.
        let mut bad = first.clone();
        let i = bad.iter().position(|c| c.magic.is_some()).unwrap();
        bad[i].magic = Some(0);
        let e = compact_pool(&spec(2), 2, &bad, &record, &|_, _| {}).unwrap_err();
        assert!(e.contains("not a valid"), "{e}");
        // Climbed again, the log's climbs end where it says, but for the
        // one changed.
        assert_eq!(recheck(&spec(2), &first[100..140], 2, &|_, _| {}), None);
        assert_eq!(
            recheck(&spec(2), &bad, 2, &|_, _| {}),
            Some((bad[i], first[i].magic))
        );
    }
}
