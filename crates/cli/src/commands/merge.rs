//! `yolah merge`: the shards of a run played with `--shard`, joined into
//! what one run gives. The kind of run is read off the first file; the
//! formats and their merging are the lab's ([`yolah_lab::shard_file::ShardFile`]).

use super::tournament::table;
use anyhow::{anyhow, bail, Result};
use clap::Args;
use yolah_lab::random_games::{self, counts_json, counts_text};
use yolah_lab::selfplay;
use yolah_lab::shard_file::ShardFile;
use yolah_lab::standings::Standings;
use yolah_lab::tournament::{self, Anchor};

/// What `yolah merge` does: its line in `yolah --help` and the first
/// line of its own help.
pub const ABOUT: &str = "Join the shards of a run played with --shard (or partial files of one \
    tournament) into what one run gives: tournament JSONL files, self-play training files, or \
    random-games --json outputs";

/// `yolah merge`'s arguments.
#[derive(Args)]
#[command(about = ABOUT)]
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
        match ShardFile::of(first)? {
            ShardFile::Tournament => merge_tournaments(
                files,
                need_out("tournaments")?,
                self.anchor.as_deref(),
                self.partial,
                json,
            ),
            ShardFile::Selfplay => {
                let out = need_out("self-play shards")?;
                crate::paths::ensure_not_an_input(out, files, "--out")?;
                let m = selfplay::merge(files, out)?;
                if json {
                    return Ok(format!(
                        "{}\n",
                        serde_json::json!({"player": m.player, "games": m.games, "seed": m.seed,
                                           "explore": m.explore, "positions": m.positions,
                                           "shards": files.len(), "out": out})
                    ));
                }
                Ok(format!(
                    "{} positions from {} written to {out} (merged from {} shards)\n",
                    m.positions,
                    m.run(),
                    files.len()
                ))
            }
            ShardFile::RandomGames => {
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
    let anchor = settings.anchor(&anchor.map_or(Anchor::First, |a| Anchor::Named(a.into())))?;
    let merged = tournament::merge(inputs, out)?;
    for w in &merged.warnings {
        eprintln!("yolah: warning: {w}");
    }
    let total = merged.settings.total_games();
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
    let standings = Standings::new(&merged.settings.players, &merged.games, anchor);
    Ok(table(&standings, json))
}

/// The counts of every shard of a random-games run, added up.
fn merge_random_games(files: &[String], json: bool) -> Result<String> {
    let merged = random_games::merge(files)?;
    let (seed, count) = (merged.seed, merged.shards);
    if json {
        let mut obj = counts_json(&merged.counts, seed);
        obj["shards"] = count.into();
        return Ok(format!("{obj}\n"));
    }
    let text = counts_text(
        &merged.counts,
        &format!("seed {seed}, merged from {count} shards"),
    );
    Ok(format!("{}\n", text.trim_end_matches("; ")))
}
