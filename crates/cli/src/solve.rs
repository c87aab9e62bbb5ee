//! `yolah solve`: the exact outcome of a position, and `--bench`, which
//! checks the solver against plain alpha-beta on endgames it makes itself
//! and reports how many fewer nodes it needs.

use anyhow::{bail, Result};
use serde_json::json;
use std::fmt::Write as _;
use std::time::{Duration, Instant};
use yolah::{Color, Position, Rng};
use yolah_players::solve::{margin_plain, Limits, Solution, Solver};
use yolah_players::Stop;

/// The word for a margin's sign.
fn result_word(margin: i32) -> &'static str {
    match margin.signum() {
        1 => "win",
        0 => "draw",
        _ => "loss",
    }
}

fn colour_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

/// Solves `pos`, giving up after `time` if one is set.
pub fn solve_command(pos: &Position, time: Option<Duration>, json: bool) -> Result<String> {
    if pos.is_game_over() {
        bail!(
            "the game is over ({} {}, {} {}): nothing to solve",
            colour_name(Color::Black),
            pos.score(Color::Black),
            colour_name(Color::White),
            pos.score(Color::White)
        );
    }
    let limits = Limits { nodes: None, time };
    let mut solver = Solver::new();
    let Some(s) = solver.solve_within(pos, limits, &Stop::new()) else {
        bail!(
            "not solved within {:.1} s ({} nodes); give it more --time",
            time.unwrap_or_default().as_secs_f64(),
            solver.nodes()
        );
    };
    Ok(if json {
        format!("{}\n", solution_json(&s))
    } else {
        let side = pos.side_to_move();
        let mut end = *pos;
        for &m in &s.pv {
            end.play(m);
        }
        let pv: Vec<String> = s.pv.iter().map(|m| m.to_string()).collect();
        format!(
            "{pos}\n{} to move: {} by {} ({} {}, {} {} with best play)\n\
             best move {}\nline {}\n{} nodes, {:.3} s\n",
            colour_name(side),
            result_word(s.margin),
            s.margin.abs(),
            colour_name(Color::Black),
            end.score(Color::Black),
            colour_name(Color::White),
            end.score(Color::White),
            s.best_move,
            pv.join(" "),
            s.nodes,
            s.seconds
        )
    })
}

fn solution_json(s: &Solution) -> serde_json::Value {
    let pv: Vec<String> = s.pv.iter().map(|m| m.to_string()).collect();
    json!({
        "result": result_word(s.margin),
        "margin": s.margin,
        "best_move": s.best_move.to_string(),
        "pv": pv,
        "nodes": s.nodes,
        "seconds": s.seconds,
    })
}

/// `yolah solve --bench`'s settings.
pub struct BenchSettings {
    /// Endgames in the set.
    pub positions: usize,
    /// Seed of the random games the endgames are taken from.
    pub seed: u64,
    /// Each endgame is at least this many plies before its game's end.
    pub min_plies: usize,
    /// Plain alpha-beta's node limit: endgames it cannot solve within it
    /// are not in the set.
    pub plain_nodes: u64,
    /// Worker threads (one endgame each at a time).
    pub threads: usize,
}

/// One endgame of the set, solved both ways.
struct Solved {
    position: Position,
    plies_left: usize,
    margin: i32,
    plain_nodes: u64,
    plain_seconds: f64,
    solver: Solution,
}

/// The candidate endgame of game `index`: a uniformly random game from the
/// seed, taken between `min_plies` and `min_plies + 7` plies before its end.
fn candidate(seed: u64, index: u64, min_plies: usize) -> Option<(Position, usize)> {
    let mut rng = Rng::new(seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut line = vec![Position::START];
    let mut pos = Position::START;
    while !pos.is_game_over() {
        pos.play(pos.random_move(&mut rng));
        line.push(pos);
    }
    let plies_left = min_plies + rng.below(8) as usize;
    (line.len() > plies_left).then(|| (line[line.len() - 1 - plies_left], plies_left))
}

/// Solves candidate `index` both ways; `None` if it is not in the set.
fn try_candidate(settings: &BenchSettings, index: u64, solver: &mut Solver) -> Option<Solved> {
    let (position, plies_left) = candidate(settings.seed, index, settings.min_plies)?;
    // Each endgame from a clean solver: its nodes do not depend on which
    // endgames the same thread solved before.
    solver.clear();
    let t = Instant::now();
    let (margin, plain_nodes) = margin_plain(&position, settings.plain_nodes)?;
    let plain_seconds = t.elapsed().as_secs_f64();
    let solver = solver.solve(&position)?;
    Some(Solved {
        position,
        plies_left,
        margin,
        plain_nodes,
        plain_seconds,
        solver,
    })
}

/// Builds the set (the first candidates in index order that plain
/// alpha-beta solves, whatever the number of threads), solves it both ways
/// and reports.
pub fn bench_command(settings: &BenchSettings, json: bool) -> Result<String> {
    let started = Instant::now();
    let threads = settings.threads.max(1) as u64;
    let mut found: Vec<(u64, Solved)> = Vec::new();
    let mut next = 0u64;
    // Rounds of candidates, split between the threads; a round's results
    // are merged in index order, so the set does not depend on `threads`.
    // Enough tries for any sensible setting; stops a hopeless one.
    let most = 1_000 * settings.positions as u64;
    while found.len() < settings.positions {
        if next >= most {
            bail!(
                "only {} of {} endgames found in {next} random games: plain alpha-beta \
                 solves too few within --plain-nodes {} at --min-plies {}",
                found.len(),
                settings.positions,
                settings.plain_nodes,
                settings.min_plies
            );
        }
        let round = 8 * threads;
        let batch: Vec<Vec<(u64, Solved)>> = std::thread::scope(|s| {
            let workers: Vec<_> = (0..threads)
                .map(|t| {
                    s.spawn(move || {
                        let mut solver = Solver::new();
                        (next + t..next + round)
                            .step_by(threads as usize)
                            .filter_map(|i| try_candidate(settings, i, &mut solver).map(|x| (i, x)))
                            .collect()
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().expect("a bench worker panicked"))
                .collect()
        });
        let mut batch: Vec<(u64, Solved)> = batch.into_iter().flatten().collect();
        batch.sort_by_key(|(i, _)| *i);
        found.extend(batch);
        next += round;
    }
    let tried = found
        .get(settings.positions.saturating_sub(1))
        .map_or(next, |(i, _)| i + 1);
    found.truncate(settings.positions);
    let set: Vec<Solved> = found.into_iter().map(|(_, s)| s).collect();
    let wrong: Vec<&Solved> = set.iter().filter(|s| s.solver.margin != s.margin).collect();
    if let Some(w) = wrong.first() {
        bail!(
            "the solver is wrong on {} of {} endgames, first on \"{}\": solver {}, plain alpha-beta {}",
            wrong.len(),
            set.len(),
            w.position.to_text(),
            w.solver.margin,
            w.margin
        );
    }
    let plain_nodes: u64 = set.iter().map(|s| s.plain_nodes).sum();
    let solver_nodes: u64 = set.iter().map(|s| s.solver.nodes).sum();
    let plain_seconds: f64 = set.iter().map(|s| s.plain_seconds).sum();
    let solver_seconds: f64 = set.iter().map(|s| s.solver.seconds).sum();
    let mut ratios: Vec<f64> = set
        .iter()
        .map(|s| s.plain_nodes as f64 / s.solver.nodes.max(1) as f64)
        .collect();
    ratios.sort_by(f64::total_cmp);
    let median = ratios.get(ratios.len() / 2).copied().unwrap_or(0.0);
    let min = ratios.first().copied().unwrap_or(0.0);
    let total_ratio = plain_nodes as f64 / solver_nodes.max(1) as f64;
    let mean_plies = set.iter().map(|s| s.plies_left).sum::<usize>() as f64 / set.len() as f64;
    let seconds = started.elapsed().as_secs_f64();
    if json {
        let positions: Vec<_> = set
            .iter()
            .map(|s| {
                json!({
                    "position": s.position.to_text(),
                    "plies_left": s.plies_left,
                    "margin": s.margin,
                    "plain_nodes": s.plain_nodes,
                    "solver_nodes": s.solver.nodes,
                })
            })
            .collect();
        let obj = json!({
            "positions": set.len(),
            "candidates": tried,
            "agree": set.len(),
            "mean_plies_left": mean_plies,
            "plain_nodes": plain_nodes,
            "solver_nodes": solver_nodes,
            "node_ratio": total_ratio,
            "median_node_ratio": median,
            "min_node_ratio": min,
            "plain_seconds": plain_seconds,
            "solver_seconds": solver_seconds,
            "seconds": seconds,
            "endgames": positions,
        });
        return Ok(format!("{obj}\n"));
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} endgames {}+ plies before the end (mean {mean_plies:.1}; seed {}, {tried} random games \
         tried): the solver agrees with plain alpha-beta on all of them",
        set.len(),
        settings.min_plies,
        settings.seed
    );
    let _ = writeln!(
        out,
        "nodes: plain {plain_nodes}, solver {solver_nodes}: {total_ratio:.0}x fewer in all \
         (per endgame: median {median:.0}x, least {min:.1}x)"
    );
    let _ = writeln!(
        out,
        "time: plain {plain_seconds:.2} s, solver {solver_seconds:.2} s ({:.0}x); {seconds:.1} s in all",
        plain_seconds / solver_seconds.max(1e-9)
    );
    Ok(out)
}
