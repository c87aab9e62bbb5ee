//! `magicgen`: verifies, reports and searches the magic multipliers of the
//! yolah move tables (`magicgen/magics.txt`); `magicgen bitscan` is the
//! single-bit perfect hash demo.
//!
//! Each run does one thing (its mode): with no mode flag it verifies the
//! committed file and writes it back; `--check` only verifies it; `--report`
//! prints a file's layout; `--classic` runs the classic search; `--effort`
//! runs the interleave search; `dense` searches one square for short
//! blocks. An option the chosen mode would ignore is refused, with the
//! reason.

use clap::{CommandFactory, FromArgMatches};
use magicgen::bitscan;
use magicgen::export::export;
use magicgen::search::{search, SearchConfig, SquareReport};
use yolah_geometry::{MagicSet, Slider, Square};

mod cli;
mod climb_log;
mod long;
mod report;

use cli::{refuse_unused, seed_arg, Cli, Command, Mode};
use long::long_search;
use std::io::Write as _;
use std::process::ExitCode;
use std::time::Instant;

/// The constants file that the yolah build script reads.
const COMMITTED_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/magics.txt");

/// `magicgen dense`: the shortest non-wrapping blocks of one square that
/// the depth-first search finds within its limits.
fn run_dense(
    (slider, square): (Slider, Square),
    bits: u32,
    zeros: u32,
    budget: Option<u32>,
    nodes: u64,
    keep: u32,
) -> Result<(), String> {
    use magicgen::dense::{default_budget, dense_blocks, DenseSpec};
    let window = 1u32 << bits;
    let budget = budget.unwrap_or(default_budget(bits));
    if budget >= window {
        return Err(format!(
            "--budget {budget} is not below the window of {window} slots: weights that large wrap"
        ));
    }
    let start = Instant::now();
    let spec = DenseSpec {
        bits,
        zeros,
        budget,
        nodes,
        keep: keep as usize,
    };
    let run = dense_blocks(slider, square, &spec);
    let mut text = format!(
        "{} {square} at {bits} bit{}: {} block{} in {} nodes{} ({:.1} s; budget {budget} slots, at most {zeros} zeros in -m)\n",
        slider.name(),
        if bits == 1 { "" } else { "s" },
        run.blocks.len(),
        if run.blocks.len() == 1 { "" } else { "s" },
        run.nodes,
        if run.complete {
            ", the whole tree"
        } else if run.nodes < nodes {
            ", stopped at 4,096 valid blocks"
        } else {
            ", stopped at --nodes"
        },
        start.elapsed().as_secs_f64()
    );
    for b in &run.blocks {
        text += &format!(
            "0x{:016x}  span {:>5}  used {:>5}\n",
            b.magic, b.span, b.used
        );
    }
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        // `magicgen dense | head -1` closes the pipe: end quietly.
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(format!("cannot write the blocks: {e}"))
        }
        _ => Ok(()),
    }
}

/// `magicgen prove`: Z3's verdict on one square and width.
#[cfg(feature = "z3")]
fn run_prove((slider, square): (Slider, Square), bits: u32, timeout: u32) -> Result<(), String> {
    use magicgen::prove::{prove, Verdict};
    let start = Instant::now();
    let verdict = prove(slider, square, bits, timeout.saturating_mul(1000));
    let seconds = start.elapsed().as_secs_f64();
    let name = format!("{} {square} at {bits} bits", slider.name());
    match verdict {
        Verdict::Found(magic) => println!("{name}: magic 0x{magic:016x} ({seconds:.1} s)"),
        Verdict::Impossible => {
            println!("{name}: impossible, no multiplier exists ({seconds:.1} s)")
        }
        Verdict::Unknown => {
            return Err(format!("{name}: Z3 gave no answer in {timeout} s"));
        }
    }
    Ok(())
}

#[cfg(not(feature = "z3"))]
fn run_prove(_: (Slider, Square), _: u32, _: u32) -> Result<(), String> {
    Err("magicgen prove needs Z3: build with --features z3 (and libz3-dev)".into())
}

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let mode = Mode::of(&cli);
    match refuse_unused(&matches, mode).and_then(|()| run(&cli, mode)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("magicgen: error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Runs `mode`.
fn run(cli: &Cli, mode: Mode) -> Result<(), String> {
    match (mode, &cli.command) {
        (
            _,
            Some(Command::Bitscan {
                bits,
                random_tries,
                json,
            }),
        ) => run_bitscan(*bits, cli.seed, *random_tries, *json),
        (
            _,
            Some(Command::Prove {
                square,
                bits,
                timeout,
            }),
        ) => run_prove(*square, *bits, *timeout),
        (
            _,
            Some(Command::Dense {
                square,
                bits,
                zeros,
                budget,
                nodes,
                keep,
            }),
        ) => run_dense(*square, *bits, *zeros, *budget, *nodes, *keep),
        (_, Some(Command::Export { lang })) => {
            let text = export(&load_verified()?, *lang)?;
            let mut out = std::io::stdout().lock();
            match out.write_all(text.as_bytes()) {
                // `magicgen export | head` closes the pipe: end quietly.
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    Err(format!("cannot write the export: {e}"))
                }
                _ => Ok(()),
            }
        }
        (Mode::Check, _) => check(),
        (Mode::Report, _) => report::print(cli.file.as_deref().unwrap_or(COMMITTED_PATH)),
        (Mode::Classic, _) => generate(cli),
        (Mode::Search, _) => long_search(cli, cli.effort.expect("--effort gives the mode")),
        _ => rewrite(cli),
    }
}

/// The committed constants as the file is on disk now (not the copy
/// compiled into this binary), every magic verified against ray casting.
fn load_verified() -> Result<MagicSet, String> {
    let text = std::fs::read_to_string(COMMITTED_PATH)
        .map_err(|e| format!("cannot read {COMMITTED_PATH}: {e}"))?;
    let set = MagicSet::parse(&text).map_err(|e| format!("{COMMITTED_PATH}: {e}"))?;
    set.attack_table()
        .map_err(|e| format!("{COMMITTED_PATH}: {e}"))?;
    Ok(set)
}

fn check() -> Result<(), String> {
    let start = Instant::now();
    let set = load_verified()?;
    print_bits(&set, None);
    println!(
        "ok: 128 magics verified against ray casting for every occupancy; {} entries ({} bytes) in {:.2} s",
        set.table_len,
        set.table_len * 8,
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The default: verify the committed constants and write them back (the
/// same bytes unless the file was edited by hand).
fn rewrite(cli: &Cli) -> Result<(), String> {
    let start = Instant::now();
    let set = load_verified()?;
    write_constants(&set, &cli.out)?;
    println!(
        "{} magics, {} entries ({} bytes), verified against ray casting in {:.2} s; {}",
        set.indexing.name(),
        set.table_len,
        set.table_len * 8,
        start.elapsed().as_secs_f64(),
        match &set.command {
            Some(command) => format!(
                "`{command}` found them (`bash .ci/reproduce-magics` reruns it and compares)"
            ),
            None => "the file does not say which command found them".to_string(),
        }
    );
    Ok(())
}

/// Writes the constants file and says whether it changed.
pub(crate) fn write_constants(set: &MagicSet, out: &str) -> Result<(), String> {
    let text = set.to_text();
    // Compare sizes first, so a path like /dev/zero is never read.
    let unchanged = std::fs::metadata(out).is_ok_and(|m| m.len() == text.len() as u64)
        && std::fs::read_to_string(out).is_ok_and(|old| old == text);
    // Identical bytes are left alone: rewriting them would only touch the
    // file's time, and `include_str!` would rebuild magicgen on the next run.
    if !unchanged {
        std::fs::write(out, &text).map_err(|e| format!("cannot write {out}: {e}"))?;
    }
    println!(
        "wrote {out} ({})",
        if unchanged { "unchanged" } else { "changed" }
    );
    Ok(())
}

fn generate(cli: &Cli) -> Result<(), String> {
    let start = Instant::now();
    let config = SearchConfig {
        seed: cli.seed,
        fewer_bit_tries: cli.fewer_bit_tries,
    };
    let (mut set, reports) = search(&config);
    set.command = Some(format!(
        "magicgen --classic --fewer-bit-tries {} --seed {}",
        cli.fewer_bit_tries,
        seed_arg(cli.seed)
    ));
    set.attack_table()
        .map_err(|e| format!("the search produced a bad set (a bug): {e}"))?;
    print_bits(&set, Some(&reports));
    let private: usize = reports.iter().map(|r| 1usize << r.mask_bits).sum();
    println!(
        "seed 0x{:016x}: {} entries ({} bytes), {} with one private block per mask, in {:.1} s",
        cli.seed,
        set.table_len,
        set.table_len * 8,
        private,
        start.elapsed().as_secs_f64()
    );
    write_constants(&set, &cli.out)
}

/// Prints an 8×8 map of index bits for each slider, rank 8 on top.
fn print_bits(set: &MagicSet, reports: Option<&[SquareReport]>) {
    for (k, slider) in Slider::ALL.into_iter().enumerate() {
        println!("{} bits per square:", slider.name());
        for rank in (0..8).rev() {
            let row: Vec<String> = (0..8)
                .map(|file| {
                    let sq = Square::from_coords(file, rank).expect("on the board");
                    let e = set.entry(slider, sq);
                    match reports {
                        Some(r) if r[k * 64 + sq.index()].mask_bits > e.bits => {
                            format!("{:>3}*", e.bits)
                        }
                        _ => format!("{:>3} ", e.bits),
                    }
                })
                .collect();
            println!("  {} |{}", rank + 1, row.join(""));
        }
        println!("    +{}", "-".repeat(32));
        println!("       a   b   c   d   e   f   g   h");
    }
    if reports.is_some() {
        println!("(* = fewer bits than the mask has)");
    }
}

fn run_bitscan(bits: u32, seed: u64, random_tries: u64, json: bool) -> Result<(), String> {
    let start = Instant::now();
    let (magic, method) = solve_bitscan(bits, seed, random_tries)?;
    let seconds = start.elapsed().as_secs_f64();
    let verified = bitscan::is_perfect(magic, bits);
    if json {
        println!(
            "{}",
            serde_json::json!({
                "bits": bits,
                "magic": format!("0x{magic:016x}"),
                "verified": verified,
                "seconds": seconds,
                "method": method,
            })
        );
    } else {
        println!("{method}: magic 0x{magic:016x} for {bits} bits in {seconds:.3} s");
        println!("verified independently: {verified}");
        println!("table (slot -> bit index, -1 unused):");
        for row in bitscan::table(magic, bits).chunks(16) {
            let cells: Vec<String> = row.iter().map(|v| format!("{v:>3}")).collect();
            println!("  {}", cells.join(","));
        }
        let (random, tries) = bitscan::random_search(bits, seed, random_tries);
        match random {
            Some(m) => println!("plain random search: 0x{m:016x} after {tries} tries"),
            None => println!("plain random search: nothing in {tries} tries"),
        }
    }
    if verified {
        Ok(())
    } else {
        Err(format!("0x{magic:016x} is not perfect for {bits} bits"))
    }
}

#[cfg(feature = "z3")]
fn solve_bitscan(bits: u32, _seed: u64, _random_tries: u64) -> Result<(u64, &'static str), String> {
    bitscan::z3_search(bits)
        .map(|m| (m, "z3"))
        .ok_or_else(|| format!("z3 found no {bits}-bit magic"))
}

#[cfg(not(feature = "z3"))]
fn solve_bitscan(bits: u32, seed: u64, random_tries: u64) -> Result<(u64, &'static str), String> {
    match bitscan::random_search(bits, seed, random_tries) {
        (Some(m), _) => Ok((m, "random")),
        (None, tries) => Err(format!(
            "no {bits}-bit magic in {tries} random tries; build with `--features z3` to solve it"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use std::time::{Duration, SystemTime};
    #[test]
    fn the_search_needs_a_compact_pool() {
        let cli = Cli::try_parse_from(["magicgen", "--effort", "1"]).unwrap();
        let e = long_search(&cli, 1).unwrap_err();
        assert!(e.contains("give --compact N"), "{e}");
    }

    #[test]
    fn identical_constants_are_not_rewritten() {
        let set = MagicSet::committed().expect("the committed constants parse");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("magics.txt");
        let out = path.to_str().expect("a UTF-8 temporary path");
        write_constants(&set, out).unwrap();
        let old = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_modified(old))
            .unwrap();
        write_constants(&set, out).unwrap();
        let modified = std::fs::metadata(&path).and_then(|m| m.modified()).unwrap();
        // The same bytes: the file was left alone, so `include_str!` does
        // not rebuild magicgen after `cargo run -p magicgen`.
        assert_eq!(modified, old);
    }
}
