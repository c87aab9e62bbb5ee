//! `yolah merge`: the shards of a run played with `--shard`, joined into
//! what one run gives. The kind of run is read off the first file.

use super::random_games::{stats_json, stats_text};
use super::tournament::{anchor_index, standings_text};
use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use serde::Deserialize;
use std::io::Read;
use yolah::playout::RandomGamesStats;
use yolah_lab::selfplay;
use yolah_lab::shard::{complete, Shard};
use yolah_lab::tournament;

/// What a shard file holds.
enum Kind {
    Tournament,
    Selfplay,
    RandomGames,
}

/// Reads the start of `path` to tell its kind.
fn kind(path: &str) -> Result<Kind> {
    let mut head = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(64 << 10).read_to_end(&mut head))
        .with_context(|| format!("cannot read {path}"))?;
    if head.starts_with(b"YOLAHPOS") {
        return Ok(Kind::Selfplay);
    }
    let first_line = head.split(|&b| b == b'\n').next().unwrap_or_default();
    let value: serde_json::Value = serde_json::from_slice(first_line).map_err(|_| {
        anyhow!(
            "{path} is neither a tournament file, a self-play training file nor \
             the --json output of a random-games shard"
        )
    })?;
    if value["type"] == "header" {
        Ok(Kind::Tournament)
    } else if value.get("black_wins").is_some() {
        Ok(Kind::RandomGames)
    } else {
        bail!("{path}: a JSON object that is neither a tournament header nor random-games counts")
    }
}

/// `yolah merge`'s arguments.
#[derive(Args)]
pub struct MergeArgs {
    /// The shard files, in any order.
    #[arg(required = true)]
    files: Vec<String>,
    /// The merged file (tournaments and self-play); a tournament file
    /// already there keeps its games and gains the others.
    #[arg(long)]
    out: Option<String>,
    /// For tournaments: the player whose rating is 0 (default: the first).
    #[arg(long)]
    anchor: Option<String>,
    /// For tournaments: print the table even when games are missing
    /// (otherwise that is an error, after the merge is written).
    #[arg(long)]
    partial: bool,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

impl MergeArgs {
    /// Merges the files into what one run gives, and returns what `merge` prints.
    pub fn run(self) -> Result<String> {
        let (files, out, json) = (&self.files, self.out.as_deref(), self.json);
        let first = files.first().ok_or_else(|| anyhow!("no files to merge"))?;
        let need_out = |what: &str| out.ok_or_else(|| anyhow!("merging {what} needs --out FILE"));
        match kind(first)? {
            Kind::Tournament => merge_tournaments(
                files,
                need_out("tournaments")?,
                self.anchor.as_deref(),
                self.partial,
                json,
            ),
            Kind::Selfplay => {
                let out = need_out("self-play shards")?;
                let m = selfplay::merge(files, out)?;
                if json {
                    return Ok(format!(
                        "{}\n",
                        serde_json::json!({"player": m.player, "games": m.games, "seed": m.seed,
                                           "positions": m.positions, "shards": files.len(), "out": out})
                    ));
                }
                Ok(format!(
                    "{} positions from {} games of {} written to {out} (merged from {} shards)\n",
                    m.positions,
                    m.games,
                    m.player,
                    files.len()
                ))
            }
            Kind::RandomGames => {
                if out.is_some() {
                    bail!("random-games shards merge into counts on standard output: no --out");
                }
                merge_random_games(files, json)
            }
        }
    }
}

/// `yolah merge` of tournament files: the union of their games in `out`,
/// and the table; missing games are an error unless `partial`.
fn merge_tournaments(
    inputs: &[String],
    out: &str,
    anchor: Option<&str>,
    partial: bool,
    json: bool,
) -> Result<String> {
    // The anchor is checked before anything is written.
    let (settings, _, _) = tournament::read(inputs.first().map_or("", String::as_str))?;
    let anchor = anchor_index(&settings.players, anchor)?;
    let merged = tournament::merge(inputs, out)?;
    for w in &merged.warnings {
        eprintln!("yolah: warning: {w}");
    }
    let players = &merged.settings.players;
    let total = tournament::total_games(&merged.settings);
    let missing = total - merged.games.len() as u64;
    eprintln!(
        "{} game(s) added to {out}, which holds {} of {total}",
        merged.added,
        merged.games.len()
    );
    if missing > 0 {
        let what = format!(
            "{missing} of the tournament's {total} games are in none of the files \
             (a shard missing or unfinished?); {out} holds the {} there are, and \
             `yolah tournament` on it plays the rest",
            merged.games.len()
        );
        if !partial {
            bail!("{what}; --partial prints the table of the games there are");
        }
        eprintln!("yolah: warning: {what}");
    }
    Ok(standings_text(players, &merged.games, anchor, json))
}

/// The fields of a random-games shard's `--json` output that merging needs.
#[derive(Deserialize)]
struct RandomGamesShard {
    shard: Shard,
    total_games: u64,
    first_game: u64,
    end_game: u64,
    seed: u64,
    games: u64,
    black_wins: u64,
    white_wins: u64,
    draws: u64,
    plies: u64,
}

/// A random-games shard's output: one JSON line, read with a bound.
fn read_small(path: &str) -> Result<String> {
    const LIMIT: u64 = 64 << 10;
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(LIMIT + 1).read_to_string(&mut text))
        .with_context(|| format!("cannot read {path} (a random-games --json output)"))?;
    if text.len() as u64 > LIMIT {
        bail!("{path} is longer than a random-games --json output ({LIMIT} bytes at most)");
    }
    Ok(text)
}

fn merge_random_games(files: &[String], json: bool) -> Result<String> {
    let mut shards = Vec::new();
    for path in files {
        let text = read_small(path)?;
        let s: RandomGamesShard = serde_json::from_str(text.trim()).map_err(|e| {
            anyhow!("{path}: not the --json output of `yolah random-games --shard K/N`: {e}")
        })?;
        let results = s
            .black_wins
            .checked_add(s.white_wins)
            .and_then(|n| n.checked_add(s.draws));
        if s.shard.range(s.total_games) != (s.first_game..s.end_game)
            || s.games != s.end_game - s.first_game
            || results != Some(s.games)
            || s.plies > s.games.saturating_mul(128)
            || s.total_games > 1 << 50
        {
            bail!("{path}: its counts do not add up for shard {}", s.shard);
        }
        shards.push((s.shard, (s, path)));
    }
    let (seed, total) = (shards[0].1 .0.seed, shards[0].1 .0.total_games);
    if let Some((_, (s, path))) = shards
        .iter()
        .find(|(_, (s, _))| (s.seed, s.total_games) != (seed, total))
    {
        bail!(
            "{path} is a shard of another run ({} games seeded {}, not {total} seeded {seed})",
            s.total_games,
            s.seed
        );
    }
    let shards = complete(shards).map_err(|e| anyhow!(e))?;
    let count = shards.len();
    let mut sum = RandomGamesStats::default();
    for (_, (s, _)) in &shards {
        sum.merge(&RandomGamesStats {
            games: s.games,
            black_wins: s.black_wins,
            white_wins: s.white_wins,
            draws: s.draws,
            plies: s.plies,
        });
    }
    if json {
        let mut obj = stats_json(&sum, seed);
        obj["shards"] = count.into();
        return Ok(format!("{obj}\n"));
    }
    let text = stats_text(&sum, &format!("seed {seed}, merged from {count} shards"));
    Ok(format!("{}\n", text.trim_end_matches("; ")))
}
