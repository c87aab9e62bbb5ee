//! `yolah tournament`: a round robin with Elo ratings, kept in a resumable
//! JSONL file, whole or as one shard of a run.

use crate::progress::progress_bar;
use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use serde_json::json;
use yolah_lab::shard::Shard;
use yolah_lab::tournament::{self, GameLine, Settings, Store};
use yolah_players::from_spec;

/// `yolah tournament`'s arguments.
#[derive(Args)]
pub struct TournamentArgs {
    /// Player specs (two or more).
    #[arg(long, num_args = 2.., required = true)]
    players: Vec<String>,
    /// Games each pair plays (colours alternate; pairs share an opening).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    games_per_pair: u64,
    /// Games played at once.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024))]
    threads: u16,
    /// The JSONL file of finished games; running again resumes it.
    #[arg(long)]
    out: String,
    /// Seed of openings and players.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The player whose rating is 0 (default: the first).
    #[arg(long)]
    anchor: Option<String>,
    /// A clock for both players of every game: BASE+INCREMENT in
    /// seconds, such as 10+0.1 (see match --tc).
    #[arg(long)]
    tc: Option<String>,
    /// Play only shard K of N of the run (1-based, such as 2/8), for
    /// Slurm arrays or Kubernetes indexed jobs; `yolah merge` joins the
    /// shards into what one run gives.
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

impl TournamentArgs {
    /// Plays the games not yet in the file and returns the table (or, for
    /// a shard, what it played).
    pub fn run(self) -> Result<String> {
        let settings = Settings {
            players: self.players,
            games_per_pair: self.games_per_pair,
            seed: self.seed,
            tc: self.tc,
        };
        let (out, json) = (self.out.as_str(), self.json);
        let shard = self.shard.unwrap_or(Shard::WHOLE);
        let players = &settings.players.clone();
        if let Some(tc) = &settings.tc {
            yolah_lab::games::TimeControl::parse(tc).context("--tc")?;
        }
        for (i, p) in players.iter().enumerate() {
            from_spec(p)?;
            if players[..i].contains(p) {
                bail!("player {p:?} is listed twice");
            }
        }
        let anchor = anchor_index(players, self.anchor.as_deref())?;
        let store = Store::open(out, &settings)?;
        for w in &store.warnings {
            eprintln!("yolah: warning: {w}");
        }
        let total = tournament::total_games(&settings);
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
        Ok(standings_text(players, &games, anchor, json))
    }
}

/// The index of the `--anchor` player (default: the first).
pub fn anchor_index(players: &[String], anchor: Option<&str>) -> Result<usize> {
    match anchor {
        None => Ok(0),
        Some(a) => players
            .iter()
            .position(|p| p == a)
            .ok_or_else(|| anyhow!("--anchor {a:?} is not one of the --players")),
    }
}

/// The ratings table of finished games, as text or one JSON object.
pub fn standings_text(players: &[String], games: &[GameLine], anchor: usize, json: bool) -> String {
    let (ratings, records) = tournament::standings(players.len(), games, anchor);
    let forfeits = tournament::forfeits(players.len(), games);
    let mut order: Vec<usize> = (0..players.len()).collect();
    order.sort_by(|&a, &b| ratings[b].elo.total_cmp(&ratings[a].elo));
    if json {
        let table: Vec<_> = order
            .iter()
            .enumerate()
            .map(|(rank, &i)| {
                let r = &ratings[i];
                json!({"rank": rank + 1, "player": players[i], "elo": r.elo, "ci95": r.ci95,
                       "games": r.games, "points": r.points, "forfeits": forfeits[i]})
            })
            .collect();
        let pairs: Vec<_> = records
            .iter()
            .map(|p| {
                json!({"a": players[p.a], "b": players[p.b], "a_wins": p.a_wins, "draws": p.draws, "b_wins": p.b_wins})
            })
            .collect();
        return format!(
            "{}\n",
            json!({"games": games.len(), "anchor": players[anchor], "ratings": table, "pairs": pairs})
        );
    }
    let width = players.iter().map(String::len).max().unwrap_or(6).max(6);
    // The forfeits column appears when someone forfeited.
    let any_forfeit = forfeits.iter().any(|&f| f > 0);
    let mut text = format!(
        "{:>4}  {:<width$}  {:>6}  {:>5}  {:>6}  {:>7}{}\n",
        "rank",
        "player",
        "elo",
        "±95%",
        "games",
        "points",
        if any_forfeit { "  forfeits" } else { "" }
    );
    for (rank, &i) in order.iter().enumerate() {
        let r = &ratings[i];
        text += &format!(
            "{:>4}  {:<width$}  {:>+6.0}  {:>5.0}  {:>6}  {:>7.1}{}\n",
            rank + 1,
            players[i],
            r.elo,
            r.ci95,
            r.games,
            r.points,
            if any_forfeit {
                format!("  {:>8}", forfeits[i])
            } else {
                String::new()
            }
        );
    }
    text += &format!(
        "\n{} games; {} anchored at 0\n",
        games.len(),
        players[anchor]
    );
    for p in &records {
        text += &format!(
            "{} vs {}: +{} ={} -{}\n",
            players[p.a], players[p.b], p.a_wins, p.draws, p.b_wins
        );
    }
    text
}
