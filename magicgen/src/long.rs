//! `magicgen --effort N`: the long search, with a progress bar on stderr
//! and a checkpoint that a killed run resumes from.

use crate::{write_constants, Cli};
use magicgen::improve::{all_candidates, pack, Candidate, Portfolios};
use magicgen::magics::Indexing;
use serde_json::{json, Value};
use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::Instant;

/// What a checkpoint is for: a resumed run must be the same run.
fn run_key(seed: u64, effort: u64, indexing: Indexing) -> Value {
    json!({"seed": format!("0x{seed:016x}"), "effort": effort, "indexing": indexing.name()})
}

fn load_checkpoint(path: &str, key: &Value) -> Result<Portfolios, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
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
    let squares = v["squares"]
        .as_array()
        .ok_or_else(|| format!("{path}: no squares"))?;
    squares
        .iter()
        .map(|s| match s {
            Value::Null => Ok(None),
            Value::Array(cands) => cands
                .iter()
                .map(|c| {
                    let field = |k: &str| c[k].as_u64().ok_or_else(|| format!("{path}: bad {k}"));
                    let magic = c["magic"]
                        .as_str()
                        .and_then(|m| m.strip_prefix("0x"))
                        .and_then(|m| u64::from_str_radix(m, 16).ok())
                        .ok_or_else(|| format!("{path}: bad magic"))?;
                    Ok(Candidate {
                        span: field("span")? as u32,
                        used: field("used")? as u32,
                        bits: field("bits")? as u32,
                        magic,
                    })
                })
                .collect::<Result<Vec<_>, String>>()
                .map(Some),
            _ => Err(format!("{path}: a square is neither null nor a list")),
        })
        .collect()
}

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
    let text = serde_json::to_string(&json!({"run": key, "squares": squares})).expect("json");
    let tmp = format!("{path}.tmp");
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)
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
    let start = Instant::now();
    let key = run_key(cli.seed, effort, cli.indexing);
    let checkpoint = cli
        .checkpoint
        .clone()
        .unwrap_or_else(|| format!("{}.checkpoint", cli.out));
    let resumed = load_checkpoint(&checkpoint, &key)?;
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
            if let Err(e) = save_checkpoint(&checkpoint, &key, &s) {
                *save_error.lock().unwrap_or_else(|e| e.into_inner()) =
                    Some(format!("cannot write the checkpoint {checkpoint}: {e}"));
            }
            bar.show("candidates", count as u64, 128, "squares");
        },
    );
    if let Some(e) = save_error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
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
    set.attack_table()
        .map_err(|e| format!("the search produced a bad set (a bug): {e}"))?;
    println!(
        "seed 0x{:016x}, effort {effort}, {} magics: {} entries ({} bytes); \
         candidates {searched:.0} s, packing {:.0} s",
        cli.seed,
        cli.indexing.name(),
        set.table_len,
        set.table_len * 8,
        start.elapsed().as_secs_f64() - searched
    );
    write_constants(&set, &cli.out)?;
    let _ = std::fs::remove_file(&checkpoint);
    Ok(())
}
