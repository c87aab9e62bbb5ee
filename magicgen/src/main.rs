//! `magicgen`: verifies, reports and searches the magic multipliers of the
//! yolah move tables (`magicgen/magics.txt`); `magicgen bitscan` is the
//! single-bit perfect hash demo.
//!
//! Each run does one thing (its mode): with no mode flag it verifies the
//! committed file and writes it back; `--check` only verifies it; `--report`
//! prints a file's layout; `--classic` runs the classic search; `--effort`
//! runs the interleave search. An option the chosen mode would ignore is
//! refused, with the reason.

use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand};
use magicgen::bitscan;
use magicgen::export::{export, Lang};
use magicgen::search::{search, SearchConfig, SquareReport, DEFAULT_SEED};
use yolah_geometry::{MagicSet, Slider, Square};

mod climb_log;
mod long;
mod report;

use long::long_search;
use std::io::Write as _;
use std::process::ExitCode;
use std::time::Instant;

/// The constants file that the yolah build script reads.
const COMMITTED_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/magics.txt");

/// The last commit with the fit and pack searches and `magicgen survey`.
const REMOVED_AFTER: &str = "f871246";

#[derive(Parser)]
#[command(
    name = "magicgen",
    version,
    about = "Verifies, reports and searches the magic multipliers of the yolah move tables"
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Seed of the ChaCha8 generator of a search (--classic, --effort,
    /// bitscan's random search), decimal or 0x-hex.
    #[arg(long, global = true, value_parser = parse_u64, default_value_t = DEFAULT_SEED)]
    seed: u64,
    /// --classic: candidates tried per square for each bit below the mask
    /// size.
    #[arg(long, default_value_t = SearchConfig::default().fewer_bit_tries)]
    fewer_bit_tries: u64,
    /// Where to write the constants (without a mode, --classic, --effort).
    #[arg(long, default_value = COMMITTED_PATH)]
    out: String,
    /// Verify the committed constants file (every magic, every occupancy)
    /// without searching or writing.
    #[arg(long, conflicts_with_all = ["report", "classic", "effort"])]
    check: bool,
    /// Print the layout of the committed constants (or of --file): bits and
    /// shift per square, block offsets and spans, the table's fill, and the
    /// total next to the published tables of each kind.
    #[arg(long, conflicts_with_all = ["classic", "effort"])]
    report: bool,
    /// The constants file --report reads.
    #[arg(long, requires = "report")]
    file: Option<String>,
    /// Run the interleave search for a small table at this effort (packing
    /// steps grow with it) and write what it finds.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1_000_000), conflicts_with = "classic")]
    effort: Option<u64>,
    /// The search's method: `interleave` (the only one) packs the compact
    /// pool (`--compact`) slot by slot (`--run-slots` slots to a run) by
    /// ruin and recreate.
    #[arg(long, default_value = "interleave", value_parser = parse_method, requires = "effort")]
    method: Method,
    /// Threads of the search (the result does not depend on it).
    #[arg(long, default_value_t = std::thread::available_parallelism().map_or(1, |n| n.get()), requires = "effort")]
    threads: usize,
    /// Climb this many times per square and width towards the block with
    /// the smallest footprint (the 8-slot runs it touches; 262,144 steps
    /// each): the compact pool that the search packs.
    #[arg(long, default_value_t = 0, requires = "effort")]
    compact: u32,
    /// Climb the compact pool also at up to this many index bits below each
    /// mask's width (where a block, if one exists, is dense: constructive
    /// collisions absorb the missing bits), each climb first descending to
    /// a valid multiplier. 0: from the mask's width up.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=2), requires = "effort")]
    below_mask: u32,
    /// Slots per run of the interleave search: two blocks never share a
    /// run. Shorter runs let blocks interlock more closely and pack slower.
    #[arg(long, default_value_t = magicgen::interleave::DEFAULT_RUN,
          value_parser = clap::value_parser!(u32).range(1..=i64::from(magicgen::interleave::MAX_RUN)),
          requires = "effort")]
    run_slots: u32,
    /// Offer the interleave search every pool block at up to this many
    /// turns round its window: the pool's own (its ring's largest gap at
    /// the wrap), then its ring's second, third, … largest gap at the wrap,
    /// where the turn's step allows. Three turns take 2.2 to 2.6 times as
    /// long a step and packed 0.9% shorter on average, not yet beyond a
    /// chain's noise (docs/magic-tables.md, section 15).
    #[arg(long, default_value_t = magicgen::interleave::DEFAULT_TURNS,
          value_parser = clap::value_parser!(u32).range(1..=i64::from(magicgen::interleave::MAX_TURNS)),
          requires = "effort")]
    turns: u32,
    /// A log of the compact pool's climbs, kept: climbs already in it are not
    /// climbed again, and each new one is appended as it ends. A killed run
    /// resumes from it, and a run with a larger `--compact` extends it. It
    /// must come from the same seed.
    #[arg(long, requires = "effort")]
    climb_log: Option<String>,
    /// Before using the climb log, climb this many of its climbs again
    /// (spread evenly through it) and refuse the log if one ends elsewhere:
    /// the check that a log grown over several runs is what one run gives.
    #[arg(long, default_value_t = 0, requires = "climb_log")]
    recheck_climbs: usize,
    /// Search the classic layout (white magics, one block per square, the
    /// book's 107,648 entries or fewer where blocks overlap) instead of
    /// verifying.
    #[arg(long)]
    classic: bool,
}

/// The search's methods: one is left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Method {
    /// The compact pool packed slot by slot (`magicgen::interleave`).
    Interleave,
}

/// `--method`: interleave; the removed methods say where they went.
fn parse_method(text: &str) -> Result<Method, String> {
    match text {
        "interleave" => Ok(Method::Interleave),
        "fit" | "pack" => Err(format!(
            "the {text} search was removed (interleave finds smaller tables); \
             it is in git history up to commit {REMOVED_AFTER}"
        )),
        _ => Err(format!("{text:?} is not a method: interleave")),
    }
}

#[derive(Subcommand)]
enum Command {
    /// Decide with Z3 (feature `z3`) whether any black magic of `--bits`
    /// index bits exists for one square: finds one, or proves there is none.
    /// Bishops are decided in seconds to minutes; rooks are out of reach.
    Prove {
        /// The square, as slider:square (such as diagonal:d8).
        #[arg(long, value_parser = parse_slider_square)]
        square: (Slider, Square),
        /// Index bits.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=16))]
        bits: u32,
        /// Give up after this many seconds (0: never).
        #[arg(long, default_value_t = 0)]
        timeout: u32,
    },
    /// Print the committed table as one self-contained Rust or C file
    /// (rook_attacks and bishop_attacks, the magics and the shared attack
    /// table) that any chess engine can drop in: the masks are chess's rook
    /// and bishop masks, squares a1 = 0 … h8 = 63.
    Export {
        /// rust (a module) or c (a C99 header).
        #[arg(long, value_parser = Lang::parse)]
        lang: Lang,
    },
    /// Single-bit perfect hash: finds m with (m << i) >> (64 - bits) distinct
    /// for i in 0..64, by Z3 (feature `z3`) and by plain random search.
    Bitscan {
        /// Index bits (6 is the least possible).
        #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(6..=16))]
        bits: u32,
        /// Random candidates to try in the random search.
        #[arg(long, default_value_t = 50_000_000)]
        random_tries: u64,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
}

/// What one run of magicgen does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// No mode flag: verify the committed file and write it back.
    Rewrite,
    /// `--check`.
    Check,
    /// `--report`.
    Report,
    /// `--classic`.
    Classic,
    /// `--effort N`: the interleave search.
    Search,
    /// `bitscan`; `random` says whether its random search runs (it does not
    /// with Z3 and `--json`).
    Bitscan { random: bool },
    /// `export`.
    Export,
    /// `prove`.
    Prove,
}

impl Mode {
    const ALL: [Mode; 8] = [
        Mode::Rewrite,
        Mode::Check,
        Mode::Report,
        Mode::Classic,
        Mode::Search,
        Mode::Bitscan { random: true },
        Mode::Export,
        Mode::Prove,
    ];

    fn of(cli: &Cli) -> Mode {
        match cli.command {
            Some(Command::Bitscan { json, .. }) => Mode::Bitscan {
                random: !(json && cfg!(feature = "z3")),
            },
            Some(Command::Export { .. }) => Mode::Export,
            Some(Command::Prove { .. }) => Mode::Prove,
            None if cli.check => Mode::Check,
            None if cli.report => Mode::Report,
            None if cli.classic => Mode::Classic,
            None if cli.effort.is_some() => Mode::Search,
            None => Mode::Rewrite,
        }
    }

    /// The options this mode reads (clap's ids: the field names).
    fn reads(self) -> &'static [&'static str] {
        match self {
            Mode::Rewrite => &["out"],
            Mode::Check => &["check"],
            Mode::Report => &["report", "file"],
            Mode::Classic => &["classic", "seed", "fewer_bit_tries", "out"],
            Mode::Search => &[
                "effort",
                "seed",
                "out",
                "method",
                "threads",
                "compact",
                "below_mask",
                "run_slots",
                "turns",
                "climb_log",
                "recheck_climbs",
            ],
            Mode::Bitscan { random: true } => &["seed", "random_tries", "bits", "json"],
            Mode::Bitscan { random: false } => &["bits", "json"],
            Mode::Export => &["lang"],
            Mode::Prove => &["square", "bits", "timeout"],
        }
    }

    /// What the mode does, for the message that refuses an option.
    fn what(self) -> &'static str {
        match self {
            Mode::Rewrite => {
                "without a mode, magicgen verifies magicgen/magics.txt and writes it back"
            }
            Mode::Check => "--check only verifies magicgen/magics.txt",
            Mode::Report => "--report only reads a constants file",
            Mode::Classic => "--classic runs the classic search",
            Mode::Search => "--effort runs the interleave search",
            Mode::Bitscan { random: true } => "bitscan runs the single-bit hash demo",
            Mode::Bitscan { random: false } => "bitscan --json with Z3 runs no random search",
            Mode::Export => "export prints the committed table as source code",
            Mode::Prove => "prove decides one square with Z3",
        }
    }

    /// The option that asks for this mode, if one does.
    fn flag(self) -> Option<&'static str> {
        match self {
            Mode::Check => Some("check"),
            Mode::Report => Some("report"),
            Mode::Classic => Some("classic"),
            Mode::Search => Some("effort"),
            Mode::Rewrite | Mode::Bitscan { .. } | Mode::Export | Mode::Prove => None,
        }
    }

    /// How a user asks for this mode.
    fn name(self) -> &'static str {
        match self {
            Mode::Rewrite => "no mode",
            Mode::Check => "--check",
            Mode::Report => "--report",
            Mode::Classic => "--classic",
            Mode::Search => "--effort",
            Mode::Bitscan { .. } => "bitscan",
            Mode::Export => "export",
            Mode::Prove => "prove",
        }
    }
}

/// Refuses every option given on the command line that `mode` would
/// ignore: one meaning per option, and none silently dropped.
fn refuse_unused(matches: &ArgMatches, mode: Mode) -> Result<(), String> {
    let top = Cli::command();
    let mut levels = vec![(matches, top.clone())];
    if let Some((name, sub)) = matches.subcommand() {
        let command = top.find_subcommand(name).expect("a known subcommand");
        levels.push((sub, command.clone()));
    }
    for (m, command) in levels {
        for arg in command.get_arguments() {
            let id = arg.get_id().as_str();
            if m.value_source(id) != Some(ValueSource::CommandLine) || mode.reads().contains(&id) {
                continue;
            }
            let flag = arg.get_long().unwrap_or(id);
            if let Some(other) = Mode::ALL.into_iter().find(|o| o.flag() == Some(id)) {
                return Err(format!(
                    "{} and {} are two modes: give one at a time",
                    other.name(),
                    mode.name()
                ));
            }
            let users: Vec<&str> = Mode::ALL
                .into_iter()
                .filter(|other| other.reads().contains(&id))
                .map(Mode::name)
                .collect();
            return Err(format!(
                "--{flag} does nothing here: {}; --{flag} is for {}",
                mode.what(),
                users.join(", ")
            ));
        }
    }
    Ok(())
}

/// A seed as a command line gives it: decimal up to 2^32, 0x-hex above.
pub(crate) fn seed_arg(seed: u64) -> String {
    if seed >> 32 == 0 {
        seed.to_string()
    } else {
        format!("0x{seed:016x}")
    }
}

/// `--square`: slider:square, such as diagonal:d8.
fn parse_slider_square(text: &str) -> Result<(Slider, Square), String> {
    let (slider, square) = text
        .split_once(':')
        .ok_or_else(|| format!("{text:?} is not slider:square (such as diagonal:d8)"))?;
    let slider = Slider::parse(slider)
        .ok_or_else(|| format!("{slider:?} is not a slider: orthogonal or diagonal"))?;
    let square =
        Square::parse(square).ok_or_else(|| format!("{square:?} is not a square (a1 to h8)"))?;
    Ok((slider, square))
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

fn parse_u64(text: &str) -> Result<u64, String> {
    let parsed = match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    parsed.map_err(|e| format!("{text:?} is not a 64-bit number: {e}"))
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
    use std::time::{Duration, SystemTime};

    /// What magicgen says to `args` before running anything.
    fn refusal(args: &[&str]) -> Option<String> {
        let matches = Cli::command()
            .try_get_matches_from([&["magicgen"], args].concat())
            .expect("clap accepts these");
        let cli = Cli::from_arg_matches(&matches).expect("parsed");
        refuse_unused(&matches, Mode::of(&cli)).err()
    }

    #[test]
    fn an_option_the_mode_ignores_is_refused_with_the_reason() {
        let seed = refusal(&["--seed", "5"]).expect("refused");
        assert!(seed.contains("--seed does nothing here"), "{seed}");
        assert!(seed.contains("verifies magicgen/magics.txt"), "{seed}");
        assert!(seed.contains("--classic, --effort, bitscan"), "{seed}");
        let tries = refusal(&["--effort", "1", "--compact", "1", "--fewer-bit-tries", "3"]);
        assert!(tries
            .expect("refused")
            .contains("--fewer-bit-tries is for --classic"));
        let threads = refusal(&["--classic", "--threads", "2"]).expect("refused");
        assert!(threads.contains("--threads is for --effort"), "{threads}");
        let turns = refusal(&["--classic", "--turns", "3"]).expect("refused");
        assert!(turns.contains("--turns is for --effort"), "{turns}");
        assert!(refusal(&["--out", "x", "bitscan"]).is_some());
        assert!(refusal(&["--report", "--seed", "3"]).is_some());
        let two = refusal(&["--check", "bitscan"]).expect("refused");
        assert!(two.contains("--check and bitscan are two modes"), "{two}");
        // What each mode reads is accepted.
        assert_eq!(refusal(&["--out", "x"]), None);
        assert_eq!(refusal(&["--classic", "--seed", "3", "--out", "x"]), None);
        assert_eq!(refusal(&["bitscan", "--bits", "7"]), None);
        let search = [
            "--effort",
            "2",
            "--compact",
            "3",
            "--seed",
            "3",
            "--threads",
            "1",
            "--turns",
            "3",
        ];
        assert_eq!(refusal(&search), None);
        assert_eq!(refusal(&["--report", "--file", "m.txt"]), None);
        assert_eq!(refusal(&["export", "--lang", "c"]), None);
        assert!(refusal(&["--seed", "3", "export", "--lang", "c"]).is_some());
    }

    #[test]
    fn the_search_needs_a_compact_pool() {
        let cli = Cli::try_parse_from(["magicgen", "--effort", "1"]).unwrap();
        let e = long_search(&cli, 1).unwrap_err();
        assert!(e.contains("give --compact N"), "{e}");
    }

    #[test]
    fn a_removed_method_says_where_it_went() {
        let e = parse_method("fit").unwrap_err();
        assert!(e.contains(REMOVED_AFTER), "{e}");
        assert_eq!(parse_method("interleave"), Ok(Method::Interleave));
        assert!(parse_method("nope").is_err());
    }

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
