//! `yolah random-games`: play uniformly random games and count the
//! results, whole or as one shard of a run.

use crate::args::whole;
use clap::Args;
use std::time::Instant;
use yolah::playout::random_games_range;
use yolah_lab::options::RandomGamesOptions;
use yolah_lab::random_games::{counts_json, counts_text, ShardCounts};
use yolah_lab::shard::Shard;
use yolah_lab::MAX_RUN_THREADS;

/// What `yolah random-games` does: its line in `yolah --help` and the first
/// line of its own help.
pub const ABOUT: &str = "Play uniformly random games from the start and count the results";

/// `yolah random-games`'s arguments: the run's (shared with `yolah-ray`),
/// then how this process plays it.
#[derive(Args)]
#[command(about = ABOUT)]
pub struct RandomGamesArgs {
    #[command(flatten)]
    run: RandomGamesOptions,
    /// Worker threads.
    #[arg(long, default_value_t = 1, value_parser = whole::<u16>(1, MAX_RUN_THREADS), allow_negative_numbers = true)]
    threads: u16,
    /// Play only shard K of N of the run (1-based, such as 2/8), for
    /// Slurm arrays or Kubernetes indexed jobs; `yolah merge` joins the
    /// shards into what one run gives.
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// Print one JSON object (what `yolah merge` reads of a shard).
    #[arg(long)]
    json: bool,
}

impl RandomGamesArgs {
    /// Plays the games and returns what `random-games` prints.
    pub fn run(self) -> anyhow::Result<String> {
        let RandomGamesOptions { games, seed } = self.run;
        let (shard, threads) = (self.shard, usize::from(self.threads));
        let range = shard.unwrap_or(Shard::WHOLE).range(games);
        let start = Instant::now();
        let s = random_games_range(range.clone(), seed, threads);
        let seconds = start.elapsed().as_secs_f64();
        let gps = s.games as f64 / seconds.max(1e-9);
        if self.json {
            let mut obj = match shard {
                Some(shard) => ShardCounts::new(shard, games, seed, s).to_json(),
                None => counts_json(&s, seed),
            };
            obj["threads"] = threads.into();
            obj["seconds"] = seconds.into();
            obj["games_per_second"] = gps.into();
            return Ok(format!("{obj}\n"));
        }
        let what = match shard {
            None => String::new(),
            Some(shard) => format!(
                "shard {shard} (games {}..{} of {games}): ",
                range.start, range.end
            ),
        };
        let how = format!(
            "seed {seed}, {threads} thread{}",
            if threads == 1 { "" } else { "s" }
        );
        Ok(format!(
            "{what}{}{seconds:.3} s, {gps:.0} games/s\n",
            counts_text(&s, &how)
        ))
    }
}
