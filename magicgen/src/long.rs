//! `magicgen --effort N`: the long search, with a progress bar on stderr
//! and a checkpoint that a killed run resumes from.

use crate::climb_log::{self, ClimbLog};
use crate::{write_constants, Cli, Method};
use magicgen::compact::{self, compact_pool, PoolSpec};
use magicgen::fit::{fit_search, FitState, Placed, ROUNDS_PER_EFFORT};
use magicgen::improve::{all_candidates, pack, Candidate, Portfolios, TRIES_PER_EFFORT};
use magicgen::interleave::{CHAINS, STEPS_PER_EFFORT};
use magicgen::magics::Indexing;
use magicgen::pack::Block;
use magicgen::{MagicSet, Slider, Square};
use serde_json::{json, Value};
use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::Instant;

/// What a checkpoint is for: a resumed run must be the same run.
fn run_key(seed: u64, effort: u64, indexing: Indexing, method: Method, compact: u32) -> Value {
    let mut key = json!({"seed": format!("0x{seed:016x}"), "effort": effort,
                         "indexing": indexing.name(), "method": method.name()});
    if compact > 0 {
        // The pool's climbs are part of the run: a checkpoint from a binary
        // that climbed otherwise must not resume.
        key["compact"] = json!({"climbs": compact, "steps": COMPACT_STEPS,
                                "by": "footprint", "keeps": "every climb",
                                "seeds": "one per climb"});
    }
    key
}

/// The checkpoint at `path` if there is one (`Null` if not), refused when
/// it belongs to another run.
fn read_checkpoint(path: &str, key: &Value) -> Result<Value, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Value::Null),
        Err(e) => return Err(format!("cannot read the checkpoint {path}: {e}")),
    };
    let v: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{path} is not a magicgen checkpoint: {e}"))?;
    if v["run"] != *key {
        return Err(format!(
            "{path} is the checkpoint of another run ({}); remove it or pass --checkpoint",
            v["run"]
        ));
    }
    Ok(v)
}

/// Writes a checkpoint whole, then renames it into place, so that a kill
/// mid-write leaves the previous one.
fn write_checkpoint(path: &str, v: &Value) -> std::io::Result<()> {
    let tmp = format!("{path}.tmp");
    std::fs::write(&tmp, serde_json::to_string(v).expect("json"))?;
    std::fs::rename(&tmp, path)
}

/// A magic written as `0x` and 16 hex digits.
fn parse_magic(v: &Value) -> Option<u64> {
    u64::from_str_radix(v.as_str()?.strip_prefix("0x")?, 16).ok()
}

/// The fit search's checkpoint: the blocks placed and the rounds done.
fn load_fit_checkpoint(path: &str, key: &Value) -> Result<FitState, String> {
    let v = read_checkpoint(path, key)?;
    if v.is_null() {
        return Ok(FitState::default());
    }
    let bad = |what: &str| format!("{path}: bad {what}");
    let placed = v["placed"]
        .as_array()
        .ok_or_else(|| bad("placed"))?
        .iter()
        .map(|p| {
            Ok(Placed {
                square: p[0].as_u64().ok_or_else(|| bad("square"))? as usize,
                magic: parse_magic(&p[1]).ok_or_else(|| bad("magic"))?,
                bits: p[2]
                    .as_u64()
                    .filter(|b| (1..=16).contains(b))
                    .ok_or_else(|| bad("bits"))? as u32,
                at: p[3]
                    .as_u64()
                    .filter(|&a| a < 1 << 20)
                    .ok_or_else(|| bad("position"))? as usize,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let rounds = v["rounds"].as_u64().ok_or_else(|| bad("rounds"))?;
    Ok(FitState { placed, rounds })
}

/// Writes the fit search's checkpoint.
fn save_fit_checkpoint(path: &str, key: &Value, state: &FitState) -> std::io::Result<()> {
    let placed: Vec<Value> = state
        .placed
        .iter()
        .map(|p| json!([p.square, format!("0x{:016x}", p.magic), p.bits, p.at]))
        .collect();
    write_checkpoint(
        path,
        &json!({"run": key, "placed": placed, "rounds": state.rounds}),
    )
}

/// The pack search's checkpoint: each square's candidates once found, every
/// one checked to be a valid magic of its square.
fn load_checkpoint(path: &str, key: &Value, indexing: Indexing) -> Result<Portfolios, String> {
    let v = read_checkpoint(path, key)?;
    if v.is_null() {
        return Ok(Vec::new());
    }
    let squares = v["squares"]
        .as_array()
        .filter(|s| s.len() <= 128)
        .ok_or_else(|| format!("{path}: no list of at most 128 squares"))?;
    squares
        .iter()
        .enumerate()
        .map(|(i, s)| match s {
            Value::Null => Ok(None),
            Value::Array(cands) => cands
                .iter()
                .map(|c| {
                    let field = |k: &str| c[k].as_u64().ok_or_else(|| format!("{path}: bad {k}"));
                    let magic =
                        parse_magic(&c["magic"]).ok_or_else(|| format!("{path}: bad magic"))?;
                    let bits = field("bits")?;
                    let (slider, square) = (Slider::ALL[i / 64], Square::all().nth(i % 64));
                    let valid = (1..=16).contains(&bits)
                        && square.is_some_and(|sq| {
                            Block::new(indexing, slider, sq, magic, bits as u32).is_some()
                        });
                    if !valid {
                        return Err(format!("{path}: square {i} has an invalid magic"));
                    }
                    Ok(Candidate {
                        span: field("span")? as u32,
                        used: field("used")? as u32,
                        bits: bits as u32,
                        magic,
                    })
                })
                .collect::<Result<Vec<_>, String>>()
                .map(Some),
            _ => Err(format!("{path}: a square is neither null nor a list")),
        })
        .collect()
}

/// Writes the pack search's checkpoint.
fn save_checkpoint(path: &str, key: &Value, portfolios: &Portfolios) -> std::io::Result<()> {
    let squares: Vec<Value> = portfolios
        .iter()
        .map(|p| match p {
            None => Value::Null,
            Some(cands) => cands
                .iter()
                .map(|c| {
                    json!({"span": c.span, "used": c.used, "bits": c.bits,
                           "magic": format!("0x{:016x}", c.magic)})
                })
                .collect(),
        })
        .collect();
    write_checkpoint(path, &json!({"run": key, "squares": squares}))
}

/// A one-line progress bar on a terminal; a line every tenth otherwise.
struct Bar {
    start: Instant,
    tty: bool,
    last_tenth: Mutex<u64>,
}

impl Bar {
    fn new() -> Bar {
        Bar {
            start: Instant::now(),
            tty: std::io::stderr().is_terminal(),
            last_tenth: Mutex::new(u64::MAX),
        }
    }

    fn show(&self, what: &str, done: u64, total: u64, extra: &str) {
        let total = total.max(1);
        let elapsed = self.start.elapsed().as_secs_f64();
        let eta = if done > 0 {
            format!("{:.0} s", elapsed * (total - done) as f64 / done as f64)
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

pub fn long_search(cli: &Cli, effort: u64) -> Result<(), String> {
    match cli.method {
        Method::Pack if cli.compact > 0 => {
            return Err("--compact works with --method fit or interleave".into())
        }
        Method::Interleave if cli.compact == 0 => {
            return Err("--method interleave packs the compact pool: give --compact N".into())
        }
        _ if cli.climb_log.is_some() && cli.compact == 0 => {
            return Err("--climb-log keeps the compact pool's climbs: give --compact N".into())
        }
        Method::Interleave if cli.indexing != Indexing::Black => {
            return Err(
                "--method interleave turns blocks round their window: black indexing only".into(),
            )
        }
        _ => {}
    }
    let key = run_key(cli.seed, effort, cli.indexing, cli.method, cli.compact);
    let checkpoint = cli
        .checkpoint
        .clone()
        .unwrap_or_else(|| format!("{}.checkpoint", cli.out));
    match cli.method {
        Method::Fit => fit(cli, effort, &key, &checkpoint),
        Method::Pack => candidates_and_pack(cli, effort, &key, &checkpoint),
        Method::Interleave => interleave(cli, effort),
    }
}

/// `--method fit`: square by square into the holes, then compaction.
/// Steps of each climb for a compact block; `--compact` gives the climbs
/// per square and width.
const COMPACT_STEPS: u32 = 1 << 18;

fn fit(cli: &Cli, effort: u64, key: &Value, checkpoint: &str) -> Result<(), String> {
    let start = Instant::now();
    let resumed = load_fit_checkpoint(checkpoint, key)?;
    if !resumed.placed.is_empty() {
        eprintln!(
            "resuming from {checkpoint}: {} blocks placed, {} compaction rounds done",
            resumed.placed.len(),
            resumed.rounds
        );
    }
    // The compact blocks every square is offered, if asked for (recomputed
    // on a resume: they depend only on the seed and `--compact`).
    let pool = if cli.compact == 0 {
        Vec::new()
    } else {
        pool(cli)?
    };
    let bar = Bar::new();
    let mut save_error = None;
    let set = fit_search(
        cli.indexing,
        cli.seed,
        effort * TRIES_PER_EFFORT,
        effort * ROUNDS_PER_EFFORT,
        cli.threads,
        &pool,
        resumed,
        &mut |p| {
            if let Err(e) = save_fit_checkpoint(checkpoint, key, p.state) {
                save_error.get_or_insert(format!("cannot write the checkpoint {checkpoint}: {e}"));
            }
            let (done, total) = (p.squares as u64 + p.rounds.0, 128 + p.rounds.1);
            bar.show("fit", done, total, &format!("steps, {} entries", p.len));
        },
    )
    .map_err(|e| format!("{checkpoint}: {e}; remove it to start again"))?;
    if let Some(e) = save_error {
        // The search itself is done: keep its result, and say that a killed
        // run would not have resumed.
        eprintln!("magicgen: warning: {e}");
    }
    let time = format!(" in {:.0} s", start.elapsed().as_secs_f64());
    finish(cli, effort, "fit, ", &set, &time, Some(checkpoint))
}

/// The compact pool of `--compact`, with a progress bar, read from and
/// added to the climb log if there is one.
fn pool(cli: &Cli) -> Result<Vec<Vec<(u64, u32)>>, String> {
    let (log, known) = match &cli.climb_log {
        Some(path) => {
            let head = climb_log::header(cli.seed, cli.indexing, COMPACT_STEPS);
            let (log, known) = ClimbLog::open(path, &head)?;
            if !known.is_empty() {
                eprintln!("{path}: {} climbs already done", known.len());
            }
            (Some(log), known)
        }
        None => (None, Vec::new()),
    };
    let spec = PoolSpec {
        indexing: cli.indexing,
        seed: cli.seed,
        widths: &compact::widths,
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

/// `--method interleave`: the compact pool, packed run by run. The packing
/// keeps no checkpoint (it takes minutes); the pool's climbs, which take the
/// hours, are kept by `--climb-log`.
fn interleave(cli: &Cli, effort: u64) -> Result<(), String> {
    let start = Instant::now();
    let pool = pool(cli)?;
    let climbed = start.elapsed().as_secs_f64();
    let bar = Bar::new();
    let steps = effort * STEPS_PER_EFFORT;
    let set = magicgen::interleave::interleave(
        cli.indexing,
        cli.seed,
        &pool,
        cli.run_slots,
        steps,
        cli.threads,
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
    let time = format!(
        "; compact pool {climbed:.0} s, interleaving {:.0} s",
        start.elapsed().as_secs_f64() - climbed
    );
    finish(cli, effort, "interleave, ", &set, &time, None)
}

/// Every method's ending: verify the set, say what was found, write it and
/// drop the checkpoint.
fn finish(
    cli: &Cli,
    effort: u64,
    method: &str,
    set: &MagicSet,
    time: &str,
    checkpoint: Option<&str>,
) -> Result<(), String> {
    set.attack_table()
        .map_err(|e| format!("the search produced a bad set (a bug): {e}"))?;
    println!(
        "seed 0x{:016x}, effort {effort}, {method}{} magics: {} entries ({} bytes){time}",
        cli.seed,
        cli.indexing.name(),
        set.table_len,
        set.table_len * 8,
    );
    write_constants(set, &cli.out)?;
    if let Some(checkpoint) = checkpoint {
        let _ = std::fs::remove_file(checkpoint);
    }
    Ok(())
}

/// `--method pack`: candidates per square, then the packer.
fn candidates_and_pack(
    cli: &Cli,
    effort: u64,
    key: &Value,
    checkpoint: &str,
) -> Result<(), String> {
    let start = Instant::now();
    let resumed = load_checkpoint(checkpoint, key, cli.indexing)?;
    let already = resumed.iter().filter(|p| p.is_some()).count();
    if already > 0 {
        eprintln!("resuming from {checkpoint}: {already} of 128 squares searched");
    }
    let state = Mutex::new(resumed.clone());
    let bar = Bar::new();
    let save_error = Mutex::new(None);
    let portfolios = all_candidates(
        cli.indexing,
        cli.seed,
        effort,
        cli.threads,
        resumed,
        &|i, found, count| {
            let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
            s.resize(128, None);
            s[i] = Some(found.to_vec());
            if let Err(e) = save_checkpoint(checkpoint, key, &s) {
                *save_error.lock().unwrap_or_else(|e| e.into_inner()) =
                    Some(format!("cannot write the checkpoint {checkpoint}: {e}"));
            }
            bar.show("candidates", count as u64, 128, "squares");
        },
    );
    if let Some(e) = save_error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        eprintln!("magicgen: warning: {e}");
    }
    let searched = start.elapsed().as_secs_f64();
    let bar = Bar::new();
    let set = pack(
        cli.indexing,
        &portfolios,
        cli.seed,
        effort,
        &mut |round, rounds, len| {
            bar.show("packing", round, rounds, &format!("rounds, {len} entries"))
        },
    );
    let time = format!(
        "; candidates {searched:.0} s, packing {:.0} s",
        start.elapsed().as_secs_f64() - searched
    );
    finish(cli, effort, "", &set, &time, Some(checkpoint))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[test]
    fn interleave_and_the_climb_log_need_a_black_compact_pool() {
        let run = |args: &[&str]| {
            let cli = Cli::try_parse_from([&["magicgen", "--effort", "1"], args].concat()).unwrap();
            long_search(&cli, 1).unwrap_err()
        };
        assert!(run(&["--method", "interleave"]).contains("--compact"));
        let white = run(&[
            "--method",
            "interleave",
            "--compact",
            "1",
            "--indexing",
            "white",
        ]);
        assert!(white.contains("black"), "{white}");
        assert!(run(&["--method", "pack", "--compact", "1"]).contains("fit or interleave"));
        let log = run(&["--climb-log", "/nonexistent/climbs.log"]);
        assert!(log.contains("give --compact"), "{log}");
    }

    #[test]
    fn a_fit_checkpoint_round_trips_and_belongs_to_one_run() {
        let dir = std::env::temp_dir().join(format!("magicgen-ckpt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("m.checkpoint").to_string_lossy().into_owned();
        let key = run_key(7, 3, Indexing::Black, Method::Fit, 0);
        assert_eq!(load_fit_checkpoint(&path, &key), Ok(FitState::default()));
        let state = FitState {
            placed: vec![
                Placed {
                    square: 0,
                    magic: 0x8000_0000_0000_0001,
                    bits: 12,
                    at: 0,
                },
                Placed {
                    square: 64,
                    magic: 3,
                    bits: 6,
                    at: 4096,
                },
            ],
            rounds: 2,
        };
        save_fit_checkpoint(&path, &key, &state).unwrap();
        assert_eq!(load_fit_checkpoint(&path, &key), Ok(state));
        let other = run_key(7, 4, Indexing::Black, Method::Fit, 0);
        assert!(load_fit_checkpoint(&path, &other)
            .unwrap_err()
            .contains("another run"));
        let pack = run_key(7, 3, Indexing::Black, Method::Pack, 0);
        assert!(load_checkpoint(&path, &pack, Indexing::Black).is_err());
        // A pack checkpoint whose magic collides is refused, not packed.
        let candidate = json!({"span": 1, "used": 1, "bits": 10, "magic": format!("0x{:016x}", 0)});
        let zero = json!({"run": pack, "squares": [[candidate]]});
        std::fs::write(&path, zero.to_string()).unwrap();
        let err = load_checkpoint(&path, &pack, Indexing::Black).unwrap_err();
        assert!(err.contains("invalid magic"), "{err}");
        std::fs::write(&path, r#"{"run": null, "placed": 5}"#).unwrap();
        assert!(load_fit_checkpoint(&path, &Value::Null)
            .unwrap_err()
            .contains("bad placed"));
        std::fs::write(&path, "{not json").unwrap();
        assert!(load_fit_checkpoint(&path, &key)
            .unwrap_err()
            .contains("not a magicgen checkpoint"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
