//! Commands that pit players against positions and each other: analyse, match.

use anyhow::{anyhow, Context, Result};
use serde_json::json;
use std::time::Instant;
use yolah::Position;
use yolah_lab::games::{run_match_until, Match, MatchSummary};
use yolah_lab::ratings::{Sprt, SprtState};
use yolah_players::{from_spec, Search, Stop};

pub fn analyse_command(pos: &Position, spec: &str, json: bool) -> Result<String> {
    let mut player = from_spec(spec)?;
    // An external engine that fails says so (and exits 1).
    let a = player
        .try_search(pos, Search::new(&Stop::new()))
        .map_err(|f| anyhow!("{spec}: {f}"))?;
    let nps = a.nodes as f64 / a.seconds.max(1e-9);
    let pv: Vec<String> = a.pv.iter().map(|m| m.to_string()).collect();
    if json {
        let mut obj = json!({
            "best_move": a.best_move.to_string(),
            "score": a.score.value(),
            "score_unit": a.score.unit(),
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
        (Some(d), _) => format!(", depth {d}"),
        (None, Some(i)) => format!(", {i} iterations ({:.0}/s)", i as f64 / a.seconds.max(1e-9)),
        _ => String::new(),
    };
    Ok(format!(
        "{pos}\n{spec}: best {} score {}{reach}, {} nodes in {:.3} s ({:.2} M nodes/s)\npv: {}\n",
        a.best_move,
        a.score,
        a.nodes,
        a.seconds,
        nps / 1e6,
        pv.join(" ")
    ))
}

pub fn match_command(
    m: &Match<'_>,
    threads: usize,
    sprt: Option<&str>,
    json: bool,
) -> Result<String> {
    let start = Instant::now();
    let (spec_a, spec_b) = (m.a, m.b);
    let sprt = sprt.map(Sprt::parse).transpose().context("--sprt")?;
    let bar = crate::rank::progress_bar(m.games, "games");
    let progress = |done: u64| bar.set_position(done);
    let stop = |points: &[f64]| sprt.is_some_and(|t| t.state(points) != SprtState::Continue);
    let results = run_match_until(m, threads, &progress, &stop)?;
    bar.finish_and_clear();
    let points: Vec<f64> = results.iter().map(|g| g.a_points).collect();
    let s = MatchSummary::from_points(&points);
    // Forfeits by player (A, B), and the distinct reasons.
    let mut forfeits = [0u64; 2];
    let mut reasons: Vec<String> = Vec::new();
    for g in &results {
        if let Some((color, why)) = &g.forfeit {
            let a_lost = (*color == yolah::Color::Black) == g.a_is_black;
            forfeits[usize::from(!a_lost)] += 1;
            let who = if a_lost { "A" } else { "B" };
            let line = format!("{who}: {why}");
            if !reasons.contains(&line) {
                reasons.push(line);
            }
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let sprt_report = sprt.map(|t| {
        let (lower, upper) = t.bounds();
        let verdict = match t.state(&points) {
            SprtState::AcceptH1 => "H1",
            SprtState::AcceptH0 => "H0",
            SprtState::Continue => "inconclusive",
        };
        (t.llr(&points), lower, upper, verdict)
    });
    if json {
        let mut obj = json!({
            "games": s.games,
            "a_wins": s.a_wins,
            "b_wins": s.b_wins,
            "draws": s.draws,
            "a_points": s.a_points,
            "elo_diff": s.elo_diff,
            "elo_ci95": s.elo_ci95,
            "seconds": seconds,
            "a_forfeits": forfeits[0],
            "b_forfeits": forfeits[1],
            "forfeit_reasons": reasons,
        });
        if let Some((llr, lower, upper, verdict)) = sprt_report {
            obj["sprt"] = json!({"llr": llr, "lower": lower, "upper": upper, "result": verdict});
        }
        return Ok(format!("{obj}\n"));
    }
    let sprt_line = match sprt_report {
        Some((llr, lower, upper, verdict)) => {
            let meaning = match verdict {
                "H1" => "accept H1 (A is stronger by elo1 or more)",
                "H0" => "accept H0 (A is not stronger by more than elo0)",
                _ => "no decision within --games",
            };
            format!("SPRT: LLR {llr:.2} in [{lower:.2}, {upper:.2}]: {meaning}\n")
        }
        None => String::new(),
    };
    let by_colour = |black: bool| {
        let pts: Vec<f64> = results
            .iter()
            .filter(|g| g.a_is_black == black)
            .map(|g| g.a_points)
            .collect();
        let c = MatchSummary::from_points(&pts);
        format!("+{} ={} -{}", c.a_wins, c.draws, c.b_wins)
    };
    Ok(format!(
        "{spec_a} vs {spec_b}: {} games, +{} ={} -{}, {:.1} points ({:.1}%)\n\
         A as black {}, A as white {}\n\
         Elo difference {:+.0} ± {:.0} (95%), {seconds:.1} s\n{sprt_line}{}",
        s.games,
        s.a_wins,
        s.draws,
        s.b_wins,
        s.a_points,
        100.0 * s.a_points / s.games as f64,
        by_colour(true),
        by_colour(false),
        s.elo_diff,
        s.elo_ci95,
        if reasons.is_empty() {
            String::new()
        } else {
            format!(
                "forfeits: A {}, B {}\n{}\n",
                forfeits[0],
                forfeits[1],
                reasons.join("\n")
            )
        }
    ))
}
