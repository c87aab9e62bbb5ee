//! `yolah tournament`: a round robin with Elo ratings, kept in a resumable
//! JSONL file, whole or as one shard of a run.

use crate::args::whole;
use crate::progress::progress_bar;
use anyhow::Result;
use clap::Args;
use serde_json::json;
use yolah_lab::options::TournamentOptions;
use yolah_lab::shard::Shard;
use yolah_lab::standings::Standings;
use yolah_lab::tournament::{self, Store};
use yolah_lab::MAX_RUN_THREADS;

/// What `yolah tournament` does: its line in `yolah --help` and the first
/// line of its own help.
pub const ABOUT: &str = "Round-robin tournament with Elo ratings, kept in a resumable JSONL file";

/// `yolah tournament`'s arguments: the run's (shared with `yolah-ray`),
/// then how this process plays it.
#[derive(Args)]
#[command(about = ABOUT)]
pub struct TournamentArgs {
    #[command(flatten)]
    run: TournamentOptions,
    /// Games played at once.
    #[arg(long, default_value_t = 1, value_parser = whole::<u16>(1, MAX_RUN_THREADS), allow_negative_numbers = true)]
    threads: u16,
    /// Play only shard K of N of the run (1-based, such as 2/8), for
    /// Slurm arrays or Kubernetes indexed jobs; `yolah merge` joins the
    /// shards into what one run gives.
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
}

impl TournamentArgs {
    /// Plays the games not yet in the file and returns the table (or, for
    /// a shard, what it played).
    pub fn run(self) -> Result<String> {
        let (settings, anchor) = self.run.settings()?;
        let (out, json) = (self.run.out.as_str(), self.run.json);
        let shard = self.shard.unwrap_or(Shard::WHOLE);
        let store = Store::open(out, &settings)?;
        for w in &store.warnings {
            eprintln!("yolah: warning: {w}");
        }
        let total = settings.total_games();
        let bar = progress_bar(shard.games(total), "games");
        let games = tournament::run(&settings, &store, shard, self.threads.into(), &|done, _| {
            bar.set_position(done)
        })?;
        bar.finish_and_clear();
        if shard != Shard::WHOLE {
            let mine = shard.range(total);
            if json {
                return Ok(format!(
                    "{}\n",
                    json!({"shard": shard.to_string(), "first_game": mine.start,
                           "end_game": mine.end, "games": games.len(), "out": out})
                ));
            }
            return Ok(format!(
                "shard {shard}: games {}..{} of {total} in {out} ({} in the file); \
                 when every shard is done: yolah merge --out FILE SHARD_FILES…\n",
                mine.start,
                mine.end,
                games.len()
            ));
        }
        Ok(table(
            &Standings::new(&settings.players, &games, anchor),
            json,
        ))
    }
}

/// The table as `--json` asks: one JSON object, or text.
pub fn table(standings: &Standings, json: bool) -> String {
    if json {
        format!("{}\n", standings.to_json())
    } else {
        standings.text()
    }
}
