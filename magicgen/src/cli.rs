//! magicgen's command line: the flags and subcommands (clap), the mode a
//! run is in, and the check that refuses an option the chosen mode would
//! ignore, with the reason. `main.rs` runs the mode.

use crate::COMMITTED_PATH;
use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory, Parser, Subcommand};
use magicgen::export::Lang;
use magicgen::search::{SearchConfig, DEFAULT_SEED};
use yolah_geometry::{Slider, Square};

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
    pub(crate) command: Option<Command>,
    /// Seed of the ChaCha8 generator of a search (--classic, --effort,
    /// bitscan's random search), decimal or 0x-hex.
    #[arg(long, global = true, value_parser = parse_u64, default_value_t = DEFAULT_SEED)]
    pub(crate) seed: u64,
    /// --classic: candidates tried per square for each bit below the mask
    /// size.
    #[arg(long, default_value_t = SearchConfig::default().fewer_bit_tries)]
    pub(crate) fewer_bit_tries: u64,
    /// Where to write the constants (without a mode, --classic, --effort).
    #[arg(long, default_value = COMMITTED_PATH)]
    pub(crate) out: String,
    /// Verify the committed constants file (every magic, every occupancy)
    /// without searching or writing.
    #[arg(long, conflicts_with_all = ["report", "classic", "effort"])]
    pub(crate) check: bool,
    /// Print the layout of the committed constants (or of --file): bits and
    /// shift per square, block offsets and spans, the table's fill, and the
    /// total next to the published tables of each kind.
    #[arg(long, conflicts_with_all = ["classic", "effort"])]
    pub(crate) report: bool,
    /// The constants file --report reads.
    #[arg(long, requires = "report")]
    pub(crate) file: Option<String>,
    /// Run the interleave search for a small table at this effort (packing
    /// steps grow with it) and write what it finds.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1_000_000), conflicts_with = "classic")]
    pub(crate) effort: Option<u64>,
    /// The search's method: `interleave` (the only one) packs the compact
    /// pool (`--compact`) slot by slot (`--run-slots` slots to a run) by
    /// ruin and recreate.
    #[arg(long, default_value = "interleave", value_parser = parse_method, requires = "effort")]
    pub(crate) method: Method,
    /// Threads of the search (the result does not depend on it).
    #[arg(long, default_value_t = std::thread::available_parallelism().map_or(1, |n| n.get()), requires = "effort")]
    pub(crate) threads: usize,
    /// Climb this many times per square and width towards the block with
    /// the smallest footprint (the 8-slot runs it touches; 262,144 steps
    /// each): the compact pool that the search packs.
    #[arg(long, default_value_t = 0, requires = "effort")]
    pub(crate) compact: u32,
    /// Climb the compact pool also at up to this many index bits below each
    /// mask's width (where a block, if one exists, is dense: constructive
    /// collisions absorb the missing bits), each climb first descending to
    /// a valid multiplier. 0: from the mask's width up.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=2), requires = "effort")]
    pub(crate) below_mask: u32,
    /// Add to the pool, for every rook square, the three shortest blocks
    /// that `magicgen dense` finds at its mask's width in this many nodes
    /// (85% budget, at most 8 zeros in -m): short blocks that do not wrap,
    /// which the climbs rarely reach (docs/magic-tables.md, sections 17 and 18).
    /// 0: none.
    #[arg(long, default_value_t = 0, requires = "effort")]
    pub(crate) dense: u64,
    /// Slots per run of the interleave search: two blocks never share a
    /// run. Shorter runs let blocks interlock more closely and pack slower.
    #[arg(long, default_value_t = magicgen::interleave::DEFAULT_RUN,
          value_parser = clap::value_parser!(u32).range(1..=i64::from(magicgen::interleave::MAX_RUN)),
          requires = "effort")]
    pub(crate) run_slots: u32,
    /// Offer the interleave search every pool block at up to this many
    /// turns round its window: the pool's own (its ring's largest gap at
    /// the wrap), then its ring's second, third, … largest gap at the wrap,
    /// where the turn's step allows. Three turns take 2.2 to 2.6 times as
    /// long a step and packed 0.9% shorter on average, not yet beyond a
    /// chain's noise (docs/magic-tables.md, section 15).
    #[arg(long, default_value_t = magicgen::interleave::DEFAULT_TURNS,
          value_parser = clap::value_parser!(u32).range(1..=i64::from(magicgen::interleave::MAX_TURNS)),
          requires = "effort")]
    pub(crate) turns: u32,
    /// What a block bigger than its square's smallest pays in the
    /// interleave search, in runs of position per run more, when the
    /// search chooses where to put a square back: 0 takes the lowest
    /// place whatever the block, larger values favour small blocks.
    #[arg(long, default_value_t = magicgen::interleave::DEFAULT_PENALTY, requires = "effort")]
    pub(crate) penalty: u32,
    /// A log of the compact pool's climbs, kept: climbs already in it are not
    /// climbed again, and each new one is appended as it ends. A killed run
    /// resumes from it, and a run with a larger `--compact` extends it. It
    /// must come from the same seed.
    #[arg(long, requires = "effort")]
    pub(crate) climb_log: Option<String>,
    /// Before using the climb log, climb this many of its climbs again
    /// (spread evenly through it) and refuse the log if one ends elsewhere:
    /// the check that a log grown over several runs is what one run gives.
    #[arg(long, default_value_t = 0, requires = "climb_log")]
    pub(crate) recheck_climbs: usize,
    /// Keep the packing's progress in this file (rewritten every 1,024
    /// steps of a chain): a killed run given the same file and options goes
    /// on from it to the same table, and the file is removed once the table
    /// is written. It is read once the pool is climbed (its key needs the
    /// pool), and refused if another packing wrote it.
    #[arg(long, requires = "effort")]
    pub(crate) pack_checkpoint: Option<String>,
    /// Search the classic layout (white magics, one block per square, the
    /// book's 107,648 entries or fewer where blocks overlap) instead of
    /// verifying.
    #[arg(long)]
    pub(crate) classic: bool,
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
pub(crate) enum Command {
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
    /// Search one square for short black blocks from sparse multipliers: a
    /// depth-first search from the top bit of -m with a budget on the mask
    /// bits' weights, so that a block's sums do not wrap round its window
    /// (docs/magic-tables.md, section 17). Deterministic.
    Dense {
        /// The square, as slider:square (such as orthogonal:f2).
        #[arg(long, value_parser = parse_slider_square)]
        square: (Slider, Square),
        /// Index bits.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=13))]
        bits: u32,
        /// The most zeros -m may have: fewer search sparser multipliers.
        #[arg(long, default_value_t = magicgen::dense::DEFAULT_ZEROS, value_parser = clap::value_parser!(u32).range(0..=64))]
        zeros: u32,
        /// The most the weights' magnitudes may add up to, in slots, which
        /// bounds the blocks' spans (default: 85% of the window).
        #[arg(long)]
        budget: Option<u32>,
        /// Nodes of the search before it stops.
        #[arg(long, default_value_t = 20_000_000)]
        nodes: u64,
        /// Blocks to print, the shortest first.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=1000))]
        keep: u32,
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
pub(crate) enum Mode {
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
    /// `dense`.
    Dense,
}

impl Mode {
    const ALL: [Mode; 9] = [
        Mode::Rewrite,
        Mode::Check,
        Mode::Report,
        Mode::Classic,
        Mode::Search,
        Mode::Bitscan { random: true },
        Mode::Export,
        Mode::Prove,
        Mode::Dense,
    ];

    pub(crate) fn of(cli: &Cli) -> Mode {
        match cli.command {
            Some(Command::Bitscan { json, .. }) => Mode::Bitscan {
                random: !(json && cfg!(feature = "z3")),
            },
            Some(Command::Export { .. }) => Mode::Export,
            Some(Command::Prove { .. }) => Mode::Prove,
            Some(Command::Dense { .. }) => Mode::Dense,
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
                "dense",
                "run_slots",
                "turns",
                "penalty",
                "climb_log",
                "recheck_climbs",
                "pack_checkpoint",
            ],
            Mode::Bitscan { random: true } => &["seed", "random_tries", "bits", "json"],
            Mode::Bitscan { random: false } => &["bits", "json"],
            Mode::Export => &["lang"],
            Mode::Prove => &["square", "bits", "timeout"],
            Mode::Dense => &["square", "bits", "zeros", "budget", "nodes", "keep"],
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
            Mode::Dense => "dense searches one square",
        }
    }

    /// The option that asks for this mode, if one does.
    fn flag(self) -> Option<&'static str> {
        match self {
            Mode::Check => Some("check"),
            Mode::Report => Some("report"),
            Mode::Classic => Some("classic"),
            Mode::Search => Some("effort"),
            Mode::Rewrite | Mode::Bitscan { .. } | Mode::Export | Mode::Prove | Mode::Dense => None,
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
            Mode::Dense => "dense",
        }
    }
}

/// Refuses every option given on the command line that `mode` would
/// ignore: one meaning per option, and none silently dropped.
pub(crate) fn refuse_unused(matches: &ArgMatches, mode: Mode) -> Result<(), String> {
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

fn parse_u64(text: &str) -> Result<u64, String> {
    let parsed = match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    parsed.map_err(|e| format!("{text:?} is not a 64-bit number: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::FromArgMatches;

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
        let dense = ["dense", "--square", "orthogonal:g6", "--bits", "10"];
        assert_eq!(refusal(&dense), None);
        let seeded = refusal(&[&["--seed", "3"], &dense[..]].concat()).expect("refused");
        assert!(seeded.contains("dense searches one square"), "{seeded}");
    }

    #[test]
    fn a_removed_method_says_where_it_went() {
        let e = parse_method("fit").unwrap_err();
        assert!(e.contains(REMOVED_AFTER), "{e}");
        assert_eq!(parse_method("interleave"), Ok(Method::Interleave));
        assert!(parse_method("nope").is_err());
    }
}
