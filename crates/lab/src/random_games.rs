//! Counts of uniformly random games: what `yolah random-games` prints, the
//! `--json` output of one shard of a run, and how shards merge back into
//! the counts of one run.
//!
//! ```
//! use yolah::playout::random_games_range;
//! use yolah_lab::random_games::{merge, ShardCounts};
//! use yolah_lab::shard::Shard;
//!
//! let dir = tempfile::tempdir().unwrap();
//! let mut files = Vec::new();
//! for shard in Shard::all(2) {
//!     let counts = random_games_range(shard.range(100), 7, 1);
//!     let path = dir.path().join(format!("{}.json", shard.number()));
//!     std::fs::write(&path, ShardCounts::new(shard, 100, 7, counts).to_json().to_string()).unwrap();
//!     files.push(path.to_string_lossy().into_owned());
//! }
//! let merged = merge(&files).unwrap();
//! assert_eq!(merged.counts, yolah::playout::random_games(100, 7, 1));
//! ```

use crate::shard::{complete, IncompleteShards, Shard};
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::fmt;
use std::io::Read;
use yolah::playout::RandomGamesStats;

/// The longest shard output read: one JSON line.
const MAX_SHARD_BYTES: u64 = 64 << 10;
/// The most games a run may count (more would take years).
const MAX_GAMES: u64 = 1 << 50;

/// The counts as JSON fields: `games`, `seed`, `black_wins`, `white_wins`,
/// `draws`, `plies`.
pub fn counts_json(s: &RandomGamesStats, seed: u64) -> serde_json::Value {
    json!({
        "games": s.games,
        "seed": seed,
        "black_wins": s.black_wins,
        "white_wins": s.white_wins,
        "draws": s.draws,
        "plies": s.plies,
    })
}

/// The counts in words; `how` goes in the parentheses. The text ends with
/// `"; "`, for the caller's timing.
pub fn counts_text(s: &RandomGamesStats, how: &str) -> String {
    let pct = |n: u64| 100.0 * n as f64 / s.games.max(1) as f64;
    format!(
        "{} random games ({how}): black {:.1}%, white {:.1}%, draws {:.1}%\n\
         {:.1} plies a game; ",
        s.games,
        pct(s.black_wins),
        pct(s.white_wins),
        pct(s.draws),
        s.plies as f64 / s.games.max(1) as f64,
    )
}

/// What one shard of a run counted: the fields of its `--json` output
/// that merging reads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardCounts {
    /// Which shard.
    pub shard: Shard,
    /// Games in the whole run.
    pub total_games: u64,
    /// The shard's first game.
    pub first_game: u64,
    /// One past its last game.
    pub end_game: u64,
    /// The run's seed.
    pub seed: u64,
    /// Games played (`end_game - first_game`).
    pub games: u64,
    /// Games Black won.
    pub black_wins: u64,
    /// Games White won.
    pub white_wins: u64,
    /// Drawn games.
    pub draws: u64,
    /// Plies over all games.
    pub plies: u64,
}

impl ShardCounts {
    /// What shard `shard` of a run of `total_games` seeded `seed` counted.
    pub fn new(shard: Shard, total_games: u64, seed: u64, counts: RandomGamesStats) -> ShardCounts {
        let range = shard.range(total_games);
        ShardCounts {
            shard,
            total_games,
            first_game: range.start,
            end_game: range.end,
            seed,
            games: counts.games,
            black_wins: counts.black_wins,
            white_wins: counts.white_wins,
            draws: counts.draws,
            plies: counts.plies,
        }
    }

    /// The counts alone.
    pub fn counts(&self) -> RandomGamesStats {
        RandomGamesStats {
            games: self.games,
            black_wins: self.black_wins,
            white_wins: self.white_wins,
            draws: self.draws,
            plies: self.plies,
        }
    }

    /// The shard's output as JSON: the counts and where the shard lies
    /// (`shard`, `total_games`, `first_game`, `end_game`).
    pub fn to_json(&self) -> serde_json::Value {
        let mut obj = counts_json(&self.counts(), self.seed);
        obj["shard"] = self.shard.to_string().into();
        obj["total_games"] = self.total_games.into();
        obj["first_game"] = self.first_game.into();
        obj["end_game"] = self.end_game.into();
        obj
    }

    /// Reads a shard's `--json` output (one line, at most 64 KiB) and
    /// checks that its counts add up.
    pub fn read(path: &str) -> Result<ShardCounts, RandomGamesError> {
        let error = |problem: Problem| RandomGamesError {
            path: path.to_string(),
            problem,
        };
        let mut text = String::new();
        std::fs::File::open(path)
            .and_then(|f| f.take(MAX_SHARD_BYTES + 1).read_to_string(&mut text))
            .map_err(|e| error(Problem::Io(e)))?;
        if text.len() as u64 > MAX_SHARD_BYTES {
            return Err(error(Problem::TooLong));
        }
        let s: ShardCounts = serde_json::from_str(text.trim())
            .map_err(|e| error(Problem::NotAShard(e.to_string())))?;
        let results = s
            .black_wins
            .checked_add(s.white_wins)
            .and_then(|n| n.checked_add(s.draws));
        if s.shard.range(s.total_games) != (s.first_game..s.end_game)
            || s.games != s.end_game - s.first_game
            || results != Some(s.games)
            || s.plies > s.games.saturating_mul(128)
            || s.total_games > MAX_GAMES
        {
            return Err(error(Problem::DoesNotAddUp(s.shard)));
        }
        Ok(s)
    }
}

/// The counts of a whole run, merged from its shards.
#[derive(Clone, Debug, PartialEq)]
pub struct Merged {
    /// The run's counts.
    pub counts: RandomGamesStats,
    /// The run's seed.
    pub seed: u64,
    /// How many shards it was cut into.
    pub shards: usize,
}

/// Merges the `--json` outputs of every shard of one run (in any order)
/// into the counts one run gives.
pub fn merge(files: &[String]) -> Result<Merged, RandomGamesError> {
    let mut shards = Vec::new();
    for path in files {
        let s = ShardCounts::read(path)?;
        shards.push((s.shard, (s, path)));
    }
    let Some((_, (first, first_path))) = shards.first() else {
        return Err(RandomGamesError {
            path: String::new(),
            problem: Problem::Shards(IncompleteShards::Empty),
        });
    };
    let (seed, total) = (first.seed, first.total_games);
    let first_path = first_path.to_string();
    if let Some((_, (s, path))) = shards
        .iter()
        .find(|(_, (s, _))| (s.seed, s.total_games) != (seed, total))
    {
        return Err(RandomGamesError {
            path: path.to_string(),
            problem: Problem::OtherRun {
                games: s.total_games,
                seed: s.seed,
                expected_games: total,
                expected_seed: seed,
            },
        });
    }
    let shards = complete(shards).map_err(|why| RandomGamesError {
        path: first_path,
        problem: Problem::Shards(why),
    })?;
    let mut counts = RandomGamesStats::default();
    for (_, (s, _)) in &shards {
        counts.merge(&s.counts());
    }
    Ok(Merged {
        counts,
        seed,
        shards: shards.len(),
    })
}

/// Why random-games shards cannot be merged: the file, and what is wrong.
#[derive(Debug)]
pub struct RandomGamesError {
    /// The file at fault (the first one for a set that is incomplete).
    pub path: String,
    /// What is wrong.
    pub problem: Problem,
}

/// What is wrong with a random-games shard file or set.
#[derive(Debug)]
pub enum Problem {
    /// It cannot be read.
    Io(std::io::Error),
    /// It is longer than a shard's output.
    TooLong,
    /// It is not the `--json` output of a random-games shard.
    NotAShard(String),
    /// Its counts do not add up for its shard.
    DoesNotAddUp(Shard),
    /// It is a shard of another run.
    OtherRun {
        /// Its run's games.
        games: u64,
        /// Its run's seed.
        seed: u64,
        /// The first file's run's games.
        expected_games: u64,
        /// The first file's run's seed.
        expected_seed: u64,
    },
    /// The shards are not each shard of one split exactly once.
    Shards(IncompleteShards),
}

impl fmt::Display for RandomGamesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = &self.path;
        match &self.problem {
            Problem::Io(e) => {
                write!(f, "cannot read {path} (a random-games --json output): {e}")
            }
            Problem::TooLong => write!(
                f,
                "{path} is longer than a random-games --json output ({MAX_SHARD_BYTES} bytes at most)"
            ),
            Problem::NotAShard(e) => write!(
                f,
                "{path}: not the --json output of `yolah random-games --shard K/N`: {e}"
            ),
            Problem::DoesNotAddUp(shard) => {
                write!(f, "{path}: its counts do not add up for shard {shard}")
            }
            Problem::OtherRun {
                games,
                seed,
                expected_games,
                expected_seed,
            } => write!(
                f,
                "{path} is a shard of another run ({games} games seeded {seed}, \
                 not {expected_games} seeded {expected_seed})"
            ),
            Problem::Shards(why) => write!(f, "{why}"),
        }
    }
}

impl std::error::Error for RandomGamesError {}
