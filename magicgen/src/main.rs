//! `magicgen`: searches the magic multipliers of the yolah move tables and
//! writes the committed constants file; `magicgen bitscan` is the single-bit
//! perfect hash demo.

use clap::{Parser, Subcommand};
use magicgen::bitscan;
use magicgen::magics::Indexing;
use magicgen::search::{search, SearchConfig, SquareReport, DEFAULT_SEED};
use magicgen::{MagicSet, Slider, Square};

mod climb_log;
mod long;
mod report;
mod survey_cmd;

use long::long_search;
use std::process::ExitCode;
use std::time::Instant;

/// The constants file that the yolah build script reads.
const COMMITTED_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/magics.txt");

#[derive(Parser)]
#[command(
    name = "magicgen",
    version,
    about = "Finds the magic multipliers of the yolah move tables"
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Seed of the ChaCha8 generator (decimal or 0x-hex).
    #[arg(long, global = true, value_parser = parse_u64, default_value_t = DEFAULT_SEED)]
    seed: u64,
    /// Candidates tried per square for each bit below the mask size.
    #[arg(long, default_value_t = SearchConfig::default().fewer_bit_tries)]
    fewer_bit_tries: u64,
    /// Where to write the constants.
    #[arg(long, default_value = COMMITTED_PATH)]
    out: String,
    /// Verify the committed constants file (every magic, every occupancy)
    /// without searching or writing.
    #[arg(long)]
    check: bool,
    /// Print the layout of the committed constants (or of --file): bits and
    /// shift per square, block offsets and spans, the table's fill, and the
    /// total next to the published layouts.
    #[arg(long)]
    report: bool,
    /// The constants file --report reads.
    #[arg(long, requires = "report")]
    file: Option<String>,
    /// Run the long search for a small table at this effort (tries per square
    /// and packing rounds grow with it) and write what it finds.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1_000_000), conflicts_with_all = ["check", "report", "classic"])]
    effort: Option<u64>,
    /// The long search's method: `fit` builds the table square by square,
    /// choosing each magic for how its block fits the holes already there,
    /// then compacts it; `pack` collects candidates per square first and
    /// packs them; `interleave` packs the compact pool (`--compact`) run by
    /// run (`--run-slots` slots to a run), by ruin and recreate.
    #[arg(long, default_value = "fit", value_parser = parse_method, requires = "effort")]
    method: Method,
    /// The long search's indexing: black (`occupied | !mask`) or white.
    #[arg(long, default_value = "black", value_parser = parse_indexing, requires = "effort")]
    indexing: Indexing,
    /// Threads of the long search (the result does not depend on it).
    #[arg(long, default_value_t = std::thread::available_parallelism().map_or(1, |n| n.get()), requires = "effort")]
    threads: usize,
    /// Climb this many times per square and width towards the block with
    /// the smallest footprint (the 8-slot runs it touches; 262,144 steps
    /// each). The fit search offers every climb's block to every square
    /// (black candidates are then also turned round their window); the
    /// interleave search packs them, and needs them. 0 (the default): no
    /// compact pool.
    #[arg(long, default_value_t = 0, requires = "effort")]
    compact: u32,
    /// Slots per run of the interleave search: two blocks never share a
    /// run. Shorter runs let blocks interlock more closely and pack slower.
    #[arg(long, default_value_t = magicgen::interleave::DEFAULT_RUN,
          value_parser = clap::value_parser!(u32).range(1..=i64::from(magicgen::interleave::MAX_RUN)),
          requires = "effort")]
    run_slots: u32,
    /// A log of the compact pool's climbs, kept: climbs already in it are not
    /// climbed again, and each new one is appended as it ends. A killed run
    /// resumes from it, and a run with a larger `--compact` extends it. It
    /// must come from the same seed and indexing.
    #[arg(long, requires = "effort")]
    climb_log: Option<String>,
    /// Before using the climb log, climb this many of its climbs again
    /// (spread evenly through it) and refuse the log if one ends elsewhere:
    /// the check that a log grown over several runs is what one run gives.
    #[arg(long, default_value_t = 0, requires = "climb_log")]
    recheck_climbs: usize,
    /// The long search's checkpoint (default: OUT.checkpoint); a run that
    /// finds one for the same seed, effort and indexing resumes from it
    /// (methods fit and pack; interleave keeps none, but `--climb-log`
    /// keeps its pool).
    #[arg(long, requires = "effort")]
    checkpoint: Option<String>,
    /// Search the classic layout (white magics, one private block per
    /// square, the book's 107,648 entries) instead of verifying.
    #[arg(long, conflicts_with_all = ["check", "report"])]
    classic: bool,
}

/// The long search's two methods.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Method {
    /// Square by square into the holes (`magicgen::fit`).
    Fit,
    /// Candidates first, then a packer (`magicgen::improve`).
    Pack,
    /// The compact pool packed run by run (`magicgen::interleave`).
    Interleave,
}

impl Method {
    /// The name on the command line and in checkpoints.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Method::Fit => "fit",
            Method::Pack => "pack",
            Method::Interleave => "interleave",
        }
    }
}

/// `--method`: fit or pack.
fn parse_method(text: &str) -> Result<Method, String> {
    match text {
        "fit" => Ok(Method::Fit),
        "pack" => Ok(Method::Pack),
        "interleave" => Ok(Method::Interleave),
        _ => Err(format!("{text:?} is not a method: fit, pack or interleave")),
    }
}

fn parse_indexing(text: &str) -> Result<Indexing, String> {
    match text {
        "black" => Ok(Indexing::Black),
        "white" => Ok(Indexing::White),
        _ => Err(format!("{text:?} is not an indexing: black or white")),
    }
}

#[derive(Subcommand)]
enum Command {
    /// Single-bit perfect hash: finds m with (m << i) >> (64 - bits) distinct
    /// for i in 0..64, by Z3 (feature `z3`) and by plain random search.
    Bitscan {
        /// Index bits (6 is the least possible).
        #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(6..=16))]
        bits: u32,
        /// Random candidates to try in the comparison search.
        #[arg(long, default_value_t = 50_000_000)]
        random_tries: u64,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Per square and index width, the fewest used slots and the shortest
    /// span a single magic's block reaches in a seeded random search: the
    /// targets for a packing of the shared table (best found, not proven).
    Survey {
        /// Multipliers tried per square and width.
        #[arg(long, default_value_t = 300_000, value_parser = clap::value_parser!(u64).range(1..))]
        tries: u64,
        /// Widths as bits above the mask's, comma separated.
        #[arg(long, default_value = "0,1,2", value_parser = parse_widths)]
        widths: Widths,
        /// Which squares: all, orthogonal, diagonal, or slider:square
        /// names such as orthogonal:b7,diagonal:c1.
        #[arg(long, default_value = "all")]
        squares: String,
        /// Threads (the result does not depend on it; at most one per square
        /// is used).
        #[arg(long, default_value_t = std::thread::available_parallelism().map_or(1, |n| n.get()))]
        threads: usize,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
}

/// `--widths`: bits above the mask's.
#[derive(Clone, Debug)]
struct Widths(Vec<u32>);

fn parse_widths(text: &str) -> Result<Widths, String> {
    let mut widths = text
        .split(',')
        .map(|w| match w.trim().parse::<u32>() {
            Ok(d) if d <= 4 => Ok(d),
            _ => Err(format!(
                "{w:?} is not a width: 0 to 4 bits above the mask's"
            )),
        })
        .collect::<Result<Vec<_>, _>>()?;
    widths.sort_unstable();
    widths.dedup();
    Ok(Widths(widths))
}

fn parse_u64(text: &str) -> Result<u64, String> {
    let parsed = match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    parsed.map_err(|e| format!("{text:?} is not a 64-bit number: {e}"))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Bitscan {
            bits,
            random_tries,
            json,
        }) => run_bitscan(bits, cli.seed, random_tries, json),
        Some(Command::Survey {
            tries,
            ref widths,
            ref squares,
            threads,
            json,
        }) => survey_cmd::run(cli.seed, tries, &widths.0, squares, threads, json),
        None if cli.check => check(),
        None if cli.report => report::print(cli.file.as_deref().unwrap_or(COMMITTED_PATH)),
        None if cli.classic => generate(&cli),
        None => match cli.effort {
            Some(effort) => long_search(&cli, effort),
            None => rewrite(&cli),
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("magicgen: error: {message}");
            ExitCode::FAILURE
        }
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
        "{} magics, {} entries ({} bytes), verified against ray casting in {:.2} s; \
         {} reruns the search that found them",
        set.indexing.name(),
        set.table_len,
        set.table_len * 8,
        start.elapsed().as_secs_f64(),
        match set.indexing {
            Indexing::White => "`--classic`",
            Indexing::Black => "`bash .ci/reproduce-magics` (the README says how long)",
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
    let (set, reports) = search(&config);
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
    use std::time::{Duration, SystemTime};

    #[test]
    fn identical_constants_are_not_rewritten() {
        let set = MagicSet::committed().expect("the committed constants parse");
        let path =
            std::env::temp_dir().join(format!("magicgen-unchanged-{}.txt", std::process::id()));
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
        std::fs::remove_file(&path).unwrap();
        // The same bytes: the file was left alone, so `include_str!` does
        // not rebuild magicgen after `cargo run -p magicgen`.
        assert_eq!(modified, old);
    }
}
