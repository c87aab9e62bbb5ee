//! `magicgen --effort N`: the interleave search (`--method interleave`), with
//! a progress bar on stderr. The compact pool's climbs, which take most of
//! the time, are kept by `--climb-log`, so a killed run resumes from them.

use crate::cli::{seed_arg, Cli};
use crate::climb_log::{self, ClimbLog};
use crate::write_constants;
use magicgen::compact::{self, compact_pool, PoolSpec};
use magicgen::interleave::{
    check_checkpoint, check_packing, Checkpoint, Packing, CHAINS, DEFAULT_PENALTY, DEFAULT_TURNS,
    STEPS_PER_EFFORT,
};
use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::Instant;
use yolah_geometry::magics::Indexing;
use yolah_geometry::{Slider, Square};

/// The compact pool is black: interleaving turns blocks round their window.
const INDEXING: Indexing = Indexing::Black;

/// Steps of each climb for a compact block; `--compact` gives the climbs
/// per square and width.
const COMPACT_STEPS: u32 = 1 << 18;

/// A one-line progress bar on a terminal; a line every tenth otherwise.
struct Bar {
    start: Instant,
    /// Work done before this run (taken up from a checkpoint).
    before: u64,
    tty: bool,
    last_tenth: Mutex<u64>,
}

impl Bar {
    fn new() -> Bar {
        Bar {
            start: Instant::now(),
            before: 0,
            tty: std::io::stderr().is_terminal(),
            last_tenth: Mutex::new(u64::MAX),
        }
    }

    fn show(&self, what: &str, done: u64, total: u64, extra: &str) {
        let total = total.max(1);
        let elapsed = self.start.elapsed().as_secs_f64();
        let eta = if done > self.before {
            let rate = elapsed / (done - self.before) as f64;
            format!("{:.0} s", rate * total.saturating_sub(done) as f64)
        } else {
            "?".into()
        };
        let filled = (30 * done / total) as usize;
        let line = format!(
            "{what} [{}{}] {done}/{total} {extra} eta {eta}",
            "#".repeat(filled),
            ".".repeat(30 - filled)
        );
        if self.tty {
            eprint!("\r{line}   ");
            if done == total {
                eprintln!();
            }
            let _ = std::io::stderr().flush();
        } else {
            let tenth = 10 * done / total;
            let mut last = self.last_tenth.lock().unwrap_or_else(|e| e.into_inner());
            if *last != tenth {
                *last = tenth;
                eprintln!("{line}");
            }
        }
    }
}

/// The command that reproduces this search, written into the constants
/// file's header: every option that changes the result, none that does not
/// (`--threads`, `--climb-log`, `--recheck-climbs`, `--pack-checkpoint`,
/// `--out`).
fn command(cli: &Cli, effort: u64) -> String {
    let below = match cli.below_mask {
        0 => String::new(),
        n => format!(" --below-mask {n}"),
    };
    // Left out at its default, so that the committed table's command (from
    // before `--turns`) still names what produced it.
    let turns = match cli.turns {
        DEFAULT_TURNS => String::new(),
        n => format!(" --turns {n}"),
    };
    let penalty = match cli.penalty {
        DEFAULT_PENALTY => String::new(),
        n => format!(" --penalty {n}"),
    };
    let dense = match cli.dense {
        0 => String::new(),
        n => format!(" --dense {n}"),
    };
    format!(
        "magicgen --method interleave --compact {}{below}{dense} --effort {effort} --run-slots {}{turns}{penalty} --seed {}",
        cli.compact,
        cli.run_slots,
        seed_arg(cli.seed)
    )
}

/// Runs the interleave search at `effort` and writes what it finds.
pub fn long_search(cli: &Cli, effort: u64) -> Result<(), String> {
    if cli.compact == 0 {
        return Err("--method interleave packs the compact pool: give --compact N".into());
    }
    interleave(cli, effort)
}

/// The compact pool of `--compact`, with a progress bar, read from and
/// added to the climb log if there is one.
fn pool(cli: &Cli) -> Result<Vec<Vec<(u64, u32)>>, String> {
    let (log, known) = match &cli.climb_log {
        Some(path) => {
            let head = climb_log::header(cli.seed, INDEXING, COMPACT_STEPS);
            let (log, known) = ClimbLog::open(path, &head)?;
            if !known.is_empty() {
                eprintln!("{path}: {} climbs already done", known.len());
            }
            (Some(log), known)
        }
        None => (None, Vec::new()),
    };
    let spec = PoolSpec {
        indexing: INDEXING,
        seed: cli.seed,
        widths: &|n| compact::widths(n, cli.below_mask),
        climbs: cli.compact,
        steps: COMPACT_STEPS,
    };
    if let (Some(path), n @ 1..) = (&cli.climb_log, cli.recheck_climbs.min(known.len())) {
        recheck(path, &spec, &known, n, cli.threads)?;
    }
    let bar = Bar::new();
    let pool = compact_pool(
        &spec,
        cli.threads,
        &known,
        &|climb| {
            if let Some(log) = &log {
                log.record(climb);
            }
        },
        &|done, total| bar.show("compact blocks", done as u64, total as u64, "climbs"),
    );
    if let Some(e) = log.and_then(ClimbLog::finish) {
        eprintln!("magicgen: warning: {e}; a rerun climbs those again");
    }
    pool.map_err(|e| match &cli.climb_log {
        Some(path) => format!("{path}: {e}"),
        None => e,
    })
}

/// Adds `--dense`'s blocks to the compact pool, after each square's own and
/// each once.
fn add_dense(pool: &mut [Vec<(u64, u32)>], cli: &Cli) {
    let bar = Bar::new();
    let dense = magicgen::dense::dense_pool(cli.dense, cli.threads, &|done, total| {
        bar.show("dense blocks", done as u64, total as u64, "squares")
    });
    let mut added = 0;
    for (blocks, more) in pool.iter_mut().zip(dense) {
        for block in more {
            if !blocks.contains(&block) {
                blocks.push(block);
                added += 1;
            }
        }
    }
    eprintln!(
        "dense blocks: {added} added to the pool ({:.0} s)",
        bar.start.elapsed().as_secs_f64()
    );
}

/// Climbs `n` of the log's climbs again, spread evenly through it, and
/// refuses the log if one ends elsewhere.
fn recheck(
    path: &str,
    spec: &PoolSpec,
    known: &[compact::Climb],
    n: usize,
    threads: usize,
) -> Result<(), String> {
    let start = Instant::now();
    let sample: Vec<compact::Climb> = (0..n).map(|k| known[k * known.len() / n]).collect();
    let bar = Bar::new();
    let done = |done, total| bar.show("rechecking climbs", done as u64, total as u64, "");
    if let Some((c, now)) = compact::recheck(spec, &sample, threads, &done) {
        let name = |m: Option<u64>| m.map_or("none".into(), |m| format!("0x{m:016x}"));
        return Err(format!(
            "{path}: climb {} of {} {} at {} bits ends at {} here, not at {} as logged: \
             the log comes from another magicgen",
            c.index,
            Slider::ALL[c.square / 64].name(),
            Square::new_masked(c.square as u32 % 64),
            c.bits,
            name(now),
            name(c.magic)
        ));
    }
    eprintln!(
        "{path}: {n} climbs climbed again, all as logged ({:.0} s)",
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// `--method interleave`: the compact pool, packed slot by slot (or run by
/// run, `--run-slots`). The pool's climbs are kept by `--climb-log`, the
/// packing's progress by `--pack-checkpoint`.
fn interleave(cli: &Cli, effort: u64) -> Result<(), String> {
    let start = Instant::now();
    let mut pool = pool(cli)?;
    if cli.dense > 0 {
        add_dense(&mut pool, cli);
    }
    let climbed = start.elapsed().as_secs_f64();
    let mut bar = Bar::new();
    let steps = effort * STEPS_PER_EFFORT;
    let packing = Packing {
        run: cli.run_slots,
        turns: cli.turns,
        penalty: cli.penalty,
        steps,
        threads: cli.threads,
    };
    let saved = match &cli.pack_checkpoint {
        Some(path) => read_checkpoint(path, cli.seed, &pool, &packing)?,
        None => Checkpoint::new(cli.seed, &pool, &packing),
    };
    bar.before = saved.steps();
    if saved.steps() > 0 {
        eprintln!(
            "{}: going on from step {} of {}",
            cli.pack_checkpoint.as_deref().unwrap_or_default(),
            saved.steps(),
            CHAINS * steps
        );
    }
    // The first error writing the checkpoint, said once; the search goes on.
    let failed = Mutex::new(false);
    let save = |checkpoint: &Checkpoint| {
        let Some(path) = &cli.pack_checkpoint else {
            return;
        };
        if let Err(e) = write_atomically(path, &checkpoint.to_text()) {
            if !std::mem::replace(&mut *failed.lock().unwrap_or_else(|e| e.into_inner()), true) {
                eprintln!("magicgen: warning: cannot write the checkpoint {path}: {e}");
            }
        }
    };
    let mut set = magicgen::interleave::interleave_from(
        INDEXING,
        cli.seed,
        &pool,
        &packing,
        saved,
        &save,
        &|done, len| {
            let len = if len == usize::MAX {
                "no".into()
            } else {
                len.to_string()
            };
            bar.show(
                "interleave",
                done,
                CHAINS * steps,
                &format!("steps, {len} entries"),
            )
        },
    )?;
    set.command = Some(command(cli, effort));
    set.attack_table()
        .map_err(|e| format!("the search produced a bad set (a bug): {e}"))?;
    println!(
        "seed 0x{:016x}, effort {effort}, interleave, {} magics: {} entries ({} bytes); \
         compact pool {climbed:.0} s, interleaving {:.0} s",
        cli.seed,
        INDEXING.name(),
        set.table_len,
        set.table_len * 8,
        start.elapsed().as_secs_f64() - climbed
    );
    write_constants(&set, &cli.out)?;
    if let Some(path) = &cli.pack_checkpoint {
        // The table is written: the checkpoint has nothing left to give.
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

/// The checkpoint at `path` for this packing, checked against the pool, or
/// an empty one if there is no file. The pool's own faults are told first
/// and without the path, so that only the file's are put down to the file.
fn read_checkpoint(
    path: &str,
    seed: u64,
    pool: &[Vec<(u64, u32)>],
    packing: &Packing,
) -> Result<Checkpoint, String> {
    check_packing(INDEXING, pool, packing)?;
    match std::fs::read(path) {
        Ok(bytes) => {
            let text = String::from_utf8(bytes)
                .map_err(|_| format!("{path} is not a packing checkpoint: it is not text"))?;
            let saved = Checkpoint::parse(&text, seed, pool, packing)
                .map_err(|e| format!("{path}: {e}"))?;
            check_checkpoint(INDEXING, seed, pool, packing, &saved)
                .map_err(|e| format!("{path}: {e}"))?;
            Ok(saved)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Ok(Checkpoint::new(seed, pool, packing))
        }
        Err(e) => Err(format!("cannot read the checkpoint {path}: {e}")),
    }
}

/// Writes `text` to `path` through a file beside it, so that a kill mid-way
/// leaves the old checkpoint whole.
fn write_atomically(path: &str, text: &str) -> std::io::Result<()> {
    let temporary = format!("{path}.new");
    std::fs::write(&temporary, text)?;
    std::fs::rename(&temporary, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use yolah_geometry::MagicSet;

    #[test]
    fn the_command_names_every_option_that_changes_the_result() {
        // The committed table's own command is written back as it is: an
        // option at its default (such as `--turns 1`) is left out.
        let set = MagicSet::committed().expect("the committed constants parse");
        let header = set.command.expect("the committed file names its command");
        let cli = Cli::try_parse_from(header.split_whitespace()).expect("magicgen parses it");
        assert_eq!(command(&cli, cli.effort.expect("a search")), header);
        let args =
            "magicgen --effort 2 --compact 5 --turns 3 --penalty 1 --seed 4 --threads 1 --out x";
        let cli = Cli::try_parse_from(args.split_whitespace()).unwrap();
        assert_eq!(
            command(&cli, 2),
            "magicgen --method interleave --compact 5 --effort 2 --run-slots 1 --turns 3 --penalty 1 --seed 4"
        );
    }
}
