//! Commands that pit players against positions and each other: analyse, match.

use anyhow::Result;
use serde_json::json;
use std::io::IsTerminal;
use std::time::Instant;
use yolah::games::{run_match, MatchSummary};
use yolah::players::from_spec;
use yolah::Position;

pub fn analyse_command(pos: &Position, spec: &str, json: bool) -> Result<String> {
    let mut player = from_spec(spec)?;
    let a = player.analyse(pos);
    let nps = a.nodes as f64 / a.seconds.max(1e-9);
    let pv: Vec<String> = a.pv.iter().map(|m| m.to_string()).collect();
    if json {
        let mut obj = json!({
            "best_move": a.best_move.to_string(),
            "score": a.score,
            "nodes": a.nodes,
            "nodes_per_second": nps,
            "seconds": a.seconds,
            "pv": pv,
        });
        if let Some(d) = a.depth {
            obj["depth"] = d.into();
        }
        if let Some(i) = a.iterations {
            obj["iterations"] = i.into();
            obj["iterations_per_second"] = (i as f64 / a.seconds.max(1e-9)).into();
        }
        return Ok(format!("{obj}\n"));
    }
    let reach = match (a.depth, a.iterations) {
        (Some(d), _) => format!("depth {d}"),
        (None, Some(i)) => format!("{i} iterations ({:.0}/s)", i as f64 / a.seconds.max(1e-9)),
        _ => String::new(),
    };
    Ok(format!(
        "{pos}\n{spec}: best {} score {:.3}, {reach}, {} nodes in {:.3} s ({:.2} M nodes/s)\npv: {}\n",
        a.best_move,
        a.score,
        a.nodes,
        a.seconds,
        nps / 1e6,
        pv.join(" ")
    ))
}

pub fn match_command(
    spec_a: &str,
    spec_b: &str,
    games: u64,
    seed: u64,
    threads: usize,
    json: bool,
) -> Result<String> {
    let start = Instant::now();
    let show = std::io::stderr().is_terminal();
    let progress = |done: u64| {
        if show {
            let rate = done as f64 / start.elapsed().as_secs_f64().max(1e-9);
            let eta = (games - done) as f64 / rate.max(1e-9);
            eprint!("\r{done}/{games} games, {rate:.1} games/s, eta {eta:.0} s   ");
            if done == games {
                eprintln!();
            }
        }
    };
    let results = run_match(spec_a, spec_b, games, seed, threads, &progress)?;
    let points: Vec<f64> = results.iter().map(|g| g.a_points).collect();
    let s = MatchSummary::from_points(&points);
    let seconds = start.elapsed().as_secs_f64();
    if json {
        return Ok(format!(
            "{}\n",
            json!({
                "games": s.games,
                "a_wins": s.a_wins,
                "b_wins": s.b_wins,
                "draws": s.draws,
                "a_points": s.a_points,
                "elo_diff": s.elo_diff,
                "elo_ci95": s.elo_ci95,
                "seconds": seconds,
            })
        ));
    }
    Ok(format!(
        "{spec_a} vs {spec_b}: {} games, +{} ={} -{}, {:.1} points ({:.1}%)\n\
         Elo difference {:+.0} ± {:.0} (95%), {seconds:.1} s\n",
        s.games,
        s.a_wins,
        s.draws,
        s.b_wins,
        s.a_points,
        100.0 * s.a_points / s.games as f64,
        s.elo_diff,
        s.elo_ci95
    ))
}
