//! The measuring and checking commands: perft, random-games, replay.

use anyhow::{anyhow, Result};
use serde_json::json;
use std::time::Instant;
use yolah::perft::{divide, perft_threads};
use yolah::playout::{random_games_range, RandomGamesStats};
use yolah::record::{GameRecord, RecordError};
use yolah::{Color, Position};
use yolah_lab::shard::Shard;

pub fn perft_command(
    pos: &Position,
    depth: u32,
    threads: usize,
    show_divide: bool,
    json: bool,
) -> Result<String> {
    let start = Instant::now();
    let (nodes, per_move) = if show_divide {
        let d = divide(pos, depth, threads);
        let total = if d.is_empty() {
            1
        } else {
            d.iter().map(|x| x.1).sum()
        };
        (total, d)
    } else {
        (perft_threads(pos, depth, threads), Vec::new())
    };
    let seconds = start.elapsed().as_secs_f64();
    let nps = nodes as f64 / seconds.max(1e-9);
    if json {
        let mut obj = json!({
            "depth": depth,
            "nodes": nodes,
            "seconds": seconds,
            "nodes_per_second": nps,
        });
        if show_divide {
            let moves: serde_json::Map<_, _> = per_move
                .iter()
                .map(|(m, n)| (m.to_string(), json!(n)))
                .collect();
            obj["divide"] = moves.into();
        }
        return Ok(format!("{obj}\n"));
    }
    let mut out = String::new();
    for (m, n) in &per_move {
        out += &format!("{m} {n}\n");
    }
    out += &format!(
        "perft {depth}: {nodes} nodes in {seconds:.3} s ({:.1} M nodes/s, {threads} thread{})\n",
        nps / 1e6,
        if threads == 1 { "" } else { "s" }
    );
    Ok(out)
}

pub fn random_games_command(
    games: u64,
    seed: u64,
    threads: usize,
    shard: Option<Shard>,
    json: bool,
) -> String {
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
        return format!("{obj}\n");
    }
    let what = match shard {
        None => String::new(),
        Some(shard) => format!(
            "shard {shard} (games {}..{} of {games}): ",
            range.start, range.end
        ),
    };
    format!(
        "{what}{}{seconds:.3} s, {gps:.0} games/s\n",
        stats_text(
            &s,
            &format!(
                "seed {seed}, {threads} thread{}",
                if threads == 1 { "" } else { "s" }
            )
        )
    )
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

pub fn replay_command(file: &str, json: bool) -> Result<String> {
    // A file error names the file itself; the others say where in it.
    let located = |e: RecordError| match e {
        RecordError::File(_) => anyhow!(e),
        _ => anyhow!("{file}: {e}"),
    };
    let record = GameRecord::load(file).map_err(located)?;
    let end = record.replay().map_err(located)?;
    let over = end.is_game_over();
    let winner = match (over, end.winner()) {
        (false, _) => None,
        (true, Some(c)) => Some(c.name()),
        (true, None) => Some("draw"),
    };
    if json {
        return Ok(format!(
            "{}\n",
            json!({
                "plies": record.moves.len(),
                "black_score": end.score(Color::Black),
                "white_score": end.score(Color::White),
                "game_over": over,
                "winner": winner,
                "position": end.to_text(),
            })
        ));
    }
    let result = match winner {
        None => "the game is not over".to_string(),
        Some("draw") => "draw".to_string(),
        Some(w) => format!("{w} wins"),
    };
    Ok(format!(
        "{end}\n{} moves, all legal; {result} ({} - {})\nposition: {}\n",
        record.moves.len(),
        end.score(Color::Black),
        end.score(Color::White),
        end.to_text()
    ))
}
