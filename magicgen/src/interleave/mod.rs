//! Interleaving: the shared table packed run by run from the compact pool
//! (`--method interleave`).
//!
//! Cut the table into runs of `run` slots (`magicgen --run-slots`); two
//! squares never share a run. A block is the set of runs it touches, and
//! the table is a strip of runs into which every square puts one block,
//! chosen from its pool (every compact climb, turned so that its ring's
//! largest gap wraps, and with `magicgen --turns N` at up to `N` turns:
//! `shapes`), with no run taken twice. That turns the search for magics
//! into a packing of 128 shapes with holes, where a block's holes are room
//! for other squares' runs.
//!
//! Runs of 8 slots came first: in the smallest published table two squares
//! almost never share one (`docs/magic-tables.md`, section 9). But a block's
//! own holes inside its runs are then lost to everyone else. Runs of one
//! slot (the default, [`DEFAULT_RUN`]) pack used slots exactly: on seed 3's
//! 70-climb pool, two chains of 8,192 steps gave 89,782 entries against
//! 92,846 for runs of 2 and 92,751 for runs of 4 (section 12). Shorter runs
//! cost time: a block has more stretches to find room for.
//!
//! The packing is ruin and recreate at a fixed length (`chain`),
//! starting from every square's smallest block end to end. Squares that do
//! not fit are left out; a step takes out a few placed squares (those
//! nearest to a random run, or now and then a random few), puts every
//! left-out square back (biggest first, each at its lowest position over
//! all its shapes, a bigger shape paying a few runs per extra run), and is
//! kept unless more runs are left out than before. When every square is
//! in, the layout is the best so far and the strip shrinks by a fifth of a
//! percent, leaving out the squares past its new end.
//!
//! [`CHAINS`] independent chains run (in parallel when threads allow), each
//! with its own ChaCha8 generator, and the shortest table wins, so the
//! result does not depend on the number of threads.

mod chain;
mod checkpoint;
mod shapes;

pub use checkpoint::Checkpoint;

use crate::problem::{square_seed, squares, Problem};
use chain::{check_layout, end_to_end, run_chain, table_len, Layout};
use shapes::Shape;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use yolah_geometry::magics::{Indexing, MagicEntry, MagicSet};
use yolah_geometry::{Slider, Square};

/// Independent chains of one search.
pub const CHAINS: u64 = 2;

/// Slots per run by default (`magicgen --run-slots`): every slot is a run.
pub const DEFAULT_RUN: u32 = 1;

/// The longest run the packer accepts.
pub const MAX_RUN: u32 = 64;

/// What a shape pays by default (`magicgen --penalty`), in runs of
/// position, for each run it uses beyond its square's fewest. 2 measured
/// 89,776 entries against 90,327 for 0 with runs of 8 slots (one chain of 5
/// minutes each, the same pool); with runs of one slot 1 and 2 are within a
/// chain's noise of each other on small pools (`docs/magic-tables.md`,
/// section 19).
pub const DEFAULT_PENALTY: u32 = 2;

/// Turns per pool block by default (`magicgen --turns`): the pool's own.
pub const DEFAULT_TURNS: u32 = 1;

/// The most turns per pool block the packer accepts.
pub const MAX_TURNS: u32 = 16;

/// Ruin-and-recreate steps per chain for each unit of effort.
pub const STEPS_PER_EFFORT: u64 = 8192;

/// How the pool is packed: the search's settings besides its seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packing {
    /// Slots per run (`--run-slots`, 1 to [`MAX_RUN`]).
    pub run: u32,
    /// Turns offered per pool block (`--turns`, 1 to [`MAX_TURNS`]).
    pub turns: u32,
    /// What a shape pays, in runs of position, for each run it uses beyond
    /// its square's fewest, when the packer chooses where to put a square
    /// back (`--penalty`, [`DEFAULT_PENALTY`] by default).
    pub penalty: u32,
    /// Steps of each chain.
    pub steps: u64,
    /// Threads to run the chains on (the result does not depend on it).
    pub threads: usize,
}

/// The interleaving search over `pool` (every square's `(magic, bits)`
/// blocks, as [`crate::compact::compact_pool`] gives them): [`CHAINS`]
/// chains as `packing` says; `progress` is called with the steps done over
/// all chains and the shortest table so far.
pub fn interleave(
    indexing: Indexing,
    seed: u64,
    pool: &[Vec<(u64, u32)>],
    packing: &Packing,
    progress: &(dyn Fn(u64, usize) + Sync),
) -> Result<MagicSet, String> {
    let start = Checkpoint::new(seed, pool, packing);
    interleave_from(indexing, seed, pool, packing, start, &|_| {}, progress)
}

/// [`interleave`], going on from `saved` (an empty [`Checkpoint::new`] or
/// one this same search handed to `save`), with `save` called every 1,024
/// steps of a chain with every chain's latest state. The result is
/// the same however often the search stopped and went on.
pub fn interleave_from(
    indexing: Indexing,
    seed: u64,
    pool: &[Vec<(u64, u32)>],
    packing: &Packing,
    saved: Checkpoint,
    save: &(dyn Fn(&Checkpoint) + Sync),
    progress: &(dyn Fn(u64, usize) + Sync),
) -> Result<MagicSet, String> {
    let &Packing { run, threads, .. } = packing;
    let (all, shapes) = pool_shapes(indexing, pool, packing)?;
    check_saved(&shapes, seed, pool, packing, &saved)?;
    let shortest = AtomicU64::new(u64::MAX);
    let counted = AtomicU64::new(saved.steps());
    let saved = Mutex::new(saved);
    let chain = |c: u64| {
        let seed = square_seed(seed ^ 0x1e7e_a5e0, c as usize);
        let from = saved.lock().unwrap_or_else(|e| e.into_inner()).chains[c as usize].clone();
        let tick = |more, len: usize| {
            shortest.fetch_min(len as u64, Ordering::Relaxed);
            let done = counted.fetch_add(more, Ordering::Relaxed) + more;
            progress(done, shortest.load(Ordering::Relaxed) as usize);
        };
        let keep = |state| {
            let mut all = saved.lock().unwrap_or_else(|e| e.into_inner());
            all.chains[c as usize] = Some(state);
            save(&all);
        };
        run_chain(&shapes, packing, seed, from.as_ref(), &tick, &keep)
    };
    let layouts: Vec<Layout> = if threads >= 2 {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..CHAINS).map(|c| scope.spawn(move || chain(c))).collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a chain panicked"))
                .collect()
        })
    } else {
        (0..CHAINS).map(chain).collect()
    };
    let best = layouts
        .iter()
        .min_by_key(|l| table_len(&shapes, l, run))
        .expect("CHAINS > 0");
    let entries = all
        .iter()
        .zip(best)
        .enumerate()
        .map(|(i, (&(slider, square), p))| {
            let (s, at) = p.expect("complete layout");
            let shape = &shapes[i][s];
            let base = run as usize * at + shape.cut as usize;
            MagicEntry {
                slider,
                square,
                bits: shape.bits,
                magic: shape.magic,
                offset: base as i64 - i64::from(shape.first),
            }
        })
        .collect();
    Ok(MagicSet {
        seed: Some(seed),
        command: None,
        indexing,
        entries,
        table_len: table_len(&shapes, best, run),
    })
}

/// Whether `pool` can be packed as `packing` says: the errors of
/// [`interleave_from`] that are not a checkpoint's.
pub fn check_packing(
    indexing: Indexing,
    pool: &[Vec<(u64, u32)>],
    packing: &Packing,
) -> Result<(), String> {
    pool_shapes(indexing, pool, packing).map(|_| ())
}

/// Whether `saved` can be taken up by [`interleave_from`] with these
/// arguments: written by the same search (seed, pool, packing), and with
/// every chain's layout one of this pool's. [`interleave_from`] checks this
/// too; a caller that read `saved` from a file checks [`check_packing`]
/// and then this, to tell the file's faults from the pool's (this gives
/// the pool's faults too, as [`check_packing`] does).
pub fn check_checkpoint(
    indexing: Indexing,
    seed: u64,
    pool: &[Vec<(u64, u32)>],
    packing: &Packing,
    saved: &Checkpoint,
) -> Result<(), String> {
    let (_, shapes) = pool_shapes(indexing, pool, packing)?;
    check_saved(&shapes, seed, pool, packing, saved)
}

/// Every square's shapes, in the pool's order.
type PoolShapes = Vec<Vec<Shape>>;

/// The 128 squares in the pool's order, and the shapes each square's pool
/// blocks give under `packing`; an error if the packing's settings or the
/// pool are not fit to pack.
fn pool_shapes(
    indexing: Indexing,
    pool: &[Vec<(u64, u32)>],
    packing: &Packing,
) -> Result<(Vec<(Slider, Square)>, PoolShapes), String> {
    let Packing { run, turns, .. } = *packing;
    if indexing != Indexing::Black {
        return Err("interleaving turns blocks round their window: black magics only".into());
    }
    if !(1..=MAX_RUN).contains(&run) {
        return Err(format!("a run is 1 to {MAX_RUN} slots, not {run}"));
    }
    if !(1..=MAX_TURNS).contains(&turns) {
        return Err(format!("a block has 1 to {MAX_TURNS} turns, not {turns}"));
    }
    let all = squares();
    let problems: Vec<Problem> = all
        .iter()
        .map(|&(slider, square)| Problem::new(indexing, slider, square))
        .collect();
    if pool.len() != problems.len() {
        return Err(format!(
            "the pool has {} squares, not {}",
            pool.len(),
            problems.len()
        ));
    }
    let shapes = shapes::shapes(&problems, pool, run, turns)?;
    Ok((all, shapes))
}

/// [`check_checkpoint`] for the pool's `shapes`.
fn check_saved(
    shapes: &[Vec<Shape>],
    seed: u64,
    pool: &[Vec<(u64, u32)>],
    packing: &Packing,
    saved: &Checkpoint,
) -> Result<(), String> {
    if saved.key != Checkpoint::new(seed, pool, packing).key {
        return Err("the checkpoint was written by another packing".into());
    }
    let run = packing.run;
    // Every layout a chain saves lies in its first strip: it only shrinks.
    let strip = table_len(shapes, &end_to_end(shapes), run).div_ceil(run as usize);
    for (c, state) in saved.chains.iter().enumerate() {
        let Some(state) = state else { continue };
        let bad =
            |e: String| format!("the checkpoint's chain {c} is not a layout of this pool: {e}");
        // A chain shrinks its strip before its first step, and never to 0.
        if state.len == 0 || state.len >= strip {
            return Err(bad(format!(
                "a strip of {} runs, not 1 to {}",
                state.len,
                strip - 1
            )));
        }
        check_layout(shapes, &state.layout, state.len, false).map_err(bad)?;
        check_layout(shapes, &state.best, strip, true).map_err(bad)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 128 squares' problems, in the pool's order.
    pub(super) fn problems() -> Vec<Problem> {
        squares()
            .iter()
            .map(|&(slider, square)| Problem::new(Indexing::Black, slider, square))
            .collect()
    }

    pub(super) fn small_pool() -> Vec<Vec<(u64, u32)>> {
        crate::compact::tests::small_pool(2)
    }

    pub(super) fn packing(run: u32, turns: u32, steps: u64, threads: usize) -> Packing {
        Packing {
            run,
            turns,
            penalty: DEFAULT_PENALTY,
            steps,
            threads,
        }
    }

    #[test]
    fn interleaving_gives_a_valid_short_set_that_repeats_itself() {
        let pool = small_pool();
        let run = |threads| {
            let packing = packing(8, 1, 300, threads);
            interleave(Indexing::Black, 5, &pool, &packing, &|_, _| {})
        };
        let set = run(1).unwrap();
        assert_eq!(set, run(2).unwrap());
        set.attack_table()
            .expect("every slot agrees with ray casting");
        // Never longer than the same blocks laid end to end (this pool's
        // short climbs give dense blocks, which leave no room between them).
        let shapes = shapes::shapes(&problems(), &pool, 8, 1).unwrap();
        let end_to_end = table_len(&shapes, &end_to_end(&shapes), 8);
        assert!(
            set.table_len <= end_to_end,
            "{} vs {end_to_end}",
            set.table_len
        );
        // No steps still gives a valid set: the blocks end to end.
        let none = interleave(Indexing::Black, 5, &pool, &packing(8, 1, 0, 1), &|_, _| {});
        let none = none.unwrap();
        assert_eq!(none.table_len, end_to_end);
        none.attack_table().expect("valid");
    }

    #[test]
    fn blocks_at_several_turns_pack_a_valid_set_that_repeats_itself() {
        let pool = small_pool();
        let run = |seed, threads| {
            let packing = packing(1, 3, 200, threads);
            interleave(Indexing::Black, seed, &pool, &packing, &|_, _| {}).unwrap()
        };
        let set = run(5, 1);
        set.attack_table()
            .expect("every slot agrees with ray casting");
        assert_eq!(set, run(5, 2));
        assert_eq!(set, run(5, 1));
        // Some square is placed at a turn the pool does not offer: the
        // extra shapes are used, not only built.
        let one = shapes::shapes(&problems(), &pool, 1, 1).unwrap();
        let offered: Vec<Vec<u64>> = one
            .iter()
            .map(|s| s.iter().map(|shape| shape.magic).collect())
            .collect();
        let turned = set
            .entries
            .iter()
            .zip(&offered)
            .filter(|(e, magics)| !magics.contains(&e.magic))
            .count();
        assert!(turned > 0, "no square at another turn");
    }

    #[test]
    fn a_packing_stopped_and_taken_up_again_ends_the_same() {
        let pool = small_pool();
        let settings = packing(8, 1, chain::SAVE + 200, 1);
        let saves = Mutex::new(Vec::new());
        let from = |saved| {
            let keep = |c: &Checkpoint| saves.lock().unwrap().push(c.clone());
            interleave_from(
                Indexing::Black,
                5,
                &pool,
                &settings,
                saved,
                &keep,
                &|_, _| {},
            )
        };
        let whole = from(Checkpoint::new(5, &pool, &settings)).unwrap();
        let unbroken = interleave(Indexing::Black, 5, &pool, &settings, &|_, _| {});
        assert_eq!(whole, unbroken.unwrap());
        // One save a chain: the first has chain 0 alone, the second both.
        let saves = std::mem::take(&mut *saves.lock().unwrap());
        assert_eq!(saves.len(), 2);
        assert_eq!(saves[0].steps(), chain::SAVE);
        assert_eq!(saves[1].steps(), 2 * chain::SAVE);
        for saved in &saves {
            let text = saved.to_text();
            let read = Checkpoint::parse(&text, 5, &pool, &settings).unwrap();
            assert_eq!(from(read).unwrap(), whole);
        }
        // A checkpoint of another packing, or one whose layout does not fit
        // the pool's shapes, is refused.
        let other = packing(8, 1, 99, 1);
        let foreign = Checkpoint::new(5, &pool, &other);
        let e = from(foreign).unwrap_err();
        assert!(e.contains("another packing"), "{e}");
        let mut bad = saves[1].clone();
        bad.chains[1].as_mut().unwrap().best[4] = None;
        let e = from(bad.clone()).unwrap_err();
        assert!(
            e.contains("chain 1 is not a layout of this pool: square 4 is not placed"),
            "{e}"
        );
        // A strip of no runs (a step would divide by it) is refused too.
        let mut empty = saves[1].clone();
        let state = empty.chains[0].as_mut().unwrap();
        state.len = 0;
        state.layout = vec![None; state.layout.len()];
        let e = from(empty.clone()).unwrap_err();
        assert!(e.contains("a strip of 0 runs, not 1 to"), "{e}");
        // The same checks before any packing, apart from the pool's own:
        // a good checkpoint passes, the bad ones fail alike, and a pool
        // that cannot be packed is told by check_packing, not blamed on a
        // checkpoint.
        let check =
            |saved: &Checkpoint| check_checkpoint(Indexing::Black, 5, &pool, &settings, saved);
        assert_eq!(check(&saves[1]), Ok(()));
        assert_eq!(check(&empty).unwrap_err(), e);
        let misplaced = check(&bad).unwrap_err();
        assert!(misplaced.contains("square 4 is not placed"), "{misplaced}");
        let foreign = Checkpoint::new(5, &pool, &other);
        assert!(check(&foreign).unwrap_err().contains("another packing"));
        assert_eq!(check_packing(Indexing::Black, &pool, &settings), Ok(()));
        let short = &pool[..127];
        let e = check_packing(Indexing::Black, short, &settings).unwrap_err();
        assert_eq!(e, "the pool has 127 squares, not 128");
    }

    #[test]
    fn bad_settings_and_pools_are_refused() {
        let pool = vec![Vec::new(); 128];
        let pack = |indexing, pool: &[Vec<(u64, u32)>], run, turns| {
            let packing = packing(run, turns, 1, 1);
            interleave(indexing, 1, pool, &packing, &|_, _| {}).unwrap_err()
        };
        assert!(pack(Indexing::White, &pool, 8, 1).contains("black"));
        assert!(pack(Indexing::Black, &pool[..3], 8, 1).contains("3 squares"));
        assert!(pack(Indexing::Black, &pool, 8, 1).contains("no valid block"));
        for run in [0, MAX_RUN + 1] {
            let bad = pack(Indexing::Black, &pool, run, 1);
            assert!(bad.contains("a run is 1 to 64 slots"), "{bad}");
        }
        for turns in [0, MAX_TURNS + 1] {
            let bad = pack(Indexing::Black, &pool, 1, turns);
            assert!(bad.contains("1 to 16 turns"), "{bad}");
        }
    }
}
