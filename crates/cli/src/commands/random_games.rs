//! `yolah random-games`: play uniformly random games and count the
//! results, whole or as one shard of a run.

use clap::Args;
use serde_json::json;
use std::time::Instant;
use yolah::playout::{random_games_range, RandomGamesStats};
use yolah_lab::shard::Shard;

/// `yolah random-games`'s arguments.
#[derive(Args)]
pub struct RandomGamesArgs {
    /// Number of games.
    #[arg(long, default_value_t = 1_000_000)]
    games: u64,
    /// Seed: the same seed and games give the same counts on any number of threads.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Worker threads.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024))]
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
        let Self {
            games,
            seed,
            threads,
            shard,
            json,
        } = self;
        let threads = usize::from(threads);
        let range = shard.unwrap_or(Shard::WHOLE).range(games);
        let start = Instant::now();
        let s = random_games_range(range.clone(), seed, threads);
        let seconds = start.elapsed().as_secs_f64();
        let gps = s.games as f64 / seconds.max(1e-9);
        if json {
            let mut obj = stats_json(&s, seed);
            obj["threads"] = threads.into();
            obj["seconds"] = seconds.into();
            obj["games_per_second"] = gps.into();
            if let Some(shard) = shard {
                obj["shard"] = shard.to_string().into();
                obj["total_games"] = games.into();
                obj["first_game"] = range.start.into();
                obj["end_game"] = range.end.into();
            }
            return Ok(format!("{obj}\n"));
        }
        let what = match shard {
            None => String::new(),
            Some(shard) => format!(
                "shard {shard} (games {}..{} of {games}): ",
                range.start, range.end
            ),
        };
        Ok(format!(
            "{what}{}{seconds:.3} s, {gps:.0} games/s\n",
            stats_text(
                &s,
                &format!(
                    "seed {seed}, {threads} thread{}",
                    if threads == 1 { "" } else { "s" }
                )
            )
        ))
    }
}

/// The counts of random games as JSON fields.
pub fn stats_json(s: &RandomGamesStats, seed: u64) -> serde_json::Value {
    json!({
        "games": s.games,
        "seed": seed,
        "black_wins": s.black_wins,
        "white_wins": s.white_wins,
        "draws": s.draws,
        "plies": s.plies,
    })
}

/// The counts of random games in words; `how` goes in the parentheses.
pub fn stats_text(s: &RandomGamesStats, how: &str) -> String {
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
