//! `yolah solve --bench`: the solver checked against plain alpha-beta on
//! endgames taken from random games, and how many fewer nodes it needs.

use anyhow::{bail, Result};
use serde_json::json;
use std::fmt::Write as _;
use std::time::Instant;
use yolah::{Position, Rng};
use yolah_players::solve::{margin_plain, Solution, Solver};

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
    let (set, tried) = endgames(settings)?;
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
    let totals = Totals::of(&set, tried, started.elapsed().as_secs_f64());
    Ok(if json {
        totals.json(&set)
    } else {
        totals.text(settings)
    })
}

/// The first `settings.positions` endgames plain alpha-beta solves, solved
/// both ways, and how many random games it took to find them.
fn endgames(settings: &BenchSettings) -> Result<(Vec<Solved>, u64)> {
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
    Ok((found.into_iter().map(|(_, s)| s).collect(), tried))
}

/// The bench's sums and ratios over the set.
struct Totals {
    endgames: usize,
    tried: u64,
    mean_plies: f64,
    plain_nodes: u64,
    solver_nodes: u64,
    plain_seconds: f64,
    solver_seconds: f64,
    /// Plain nodes over solver nodes, in all and per endgame.
    total_ratio: f64,
    median: f64,
    min: f64,
    seconds: f64,
}

impl Totals {
    fn of(set: &[Solved], tried: u64, seconds: f64) -> Totals {
        let plain_nodes: u64 = set.iter().map(|s| s.plain_nodes).sum();
        let solver_nodes: u64 = set.iter().map(|s| s.solver.nodes).sum();
        let mut ratios: Vec<f64> = set
            .iter()
            .map(|s| s.plain_nodes as f64 / s.solver.nodes.max(1) as f64)
            .collect();
        ratios.sort_by(f64::total_cmp);
        Totals {
            endgames: set.len(),
            tried,
            mean_plies: set.iter().map(|s| s.plies_left).sum::<usize>() as f64 / set.len() as f64,
            plain_nodes,
            solver_nodes,
            plain_seconds: set.iter().map(|s| s.plain_seconds).sum(),
            solver_seconds: set.iter().map(|s| s.solver.seconds).sum(),
            total_ratio: plain_nodes as f64 / solver_nodes.max(1) as f64,
            median: ratios.get(ratios.len() / 2).copied().unwrap_or(0.0),
            min: ratios.first().copied().unwrap_or(0.0),
            seconds,
        }
    }

    /// One JSON object, with every endgame.
    fn json(&self, set: &[Solved]) -> String {
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
            "positions": self.endgames,
            "candidates": self.tried,
            "agree": self.endgames,
            "mean_plies_left": self.mean_plies,
            "plain_nodes": self.plain_nodes,
            "solver_nodes": self.solver_nodes,
            "node_ratio": self.total_ratio,
            "median_node_ratio": self.median,
            "min_node_ratio": self.min,
            "plain_seconds": self.plain_seconds,
            "solver_seconds": self.solver_seconds,
            "seconds": self.seconds,
            "endgames": positions,
        });
        format!("{obj}\n")
    }

    /// Three lines of words.
    fn text(&self, settings: &BenchSettings) -> String {
        let Totals {
            endgames,
            tried,
            mean_plies,
            plain_nodes,
            solver_nodes,
            plain_seconds,
            solver_seconds,
            total_ratio,
            median,
            min,
            seconds,
        } = *self;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{endgames} endgames {}+ plies before the end (mean {mean_plies:.1}; seed {}, {tried} random games \
             tried): the solver agrees with plain alpha-beta on all of them",
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
        out
    }
}
