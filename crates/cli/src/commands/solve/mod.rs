//! `yolah solve`: the exact outcome of a position, and `--bench`
//! (`bench`), which checks the solver against plain alpha-beta on
//! endgames it makes itself and reports how many fewer nodes it needs.

use crate::args::{ensure_not_over, parse_duration_arg, whole, StartArgs};
use anyhow::{bail, Result};
use clap::Args;
use yolah_lab::MAX_RUN_THREADS;

mod bench;
use serde_json::json;
use std::time::Duration;
use yolah::{Color, Position};
use yolah_players::solve::{Limits, Solution, Solver};
use yolah_players::Stop;

/// What `yolah solve` does: its line in `yolah --help` and the first
/// line of its own help.
pub const ABOUT: &str = "Solve a position exactly: the final margin with best play on both sides \
    (the side to move's points minus the opponent's) and a line that reaches it. With --bench, \
    check the solver against plain alpha-beta on endgames taken from random games instead";

/// `yolah solve`'s arguments.
#[derive(Args)]
#[command(about = ABOUT)]
pub struct SolveArgs {
    #[command(flatten)]
    start: StartArgs,
    /// Give up after this long (default: never), like 10s.
    #[arg(long, value_parser = parse_duration_arg, conflicts_with = "bench")]
    time: Option<std::time::Duration>,
    /// Solve this many endgames both ways and compare.
    #[arg(long, value_parser = whole::<u64>(1, 100_000), allow_negative_numbers = true, conflicts_with_all = ["moves", "position"])]
    bench: Option<u64>,
    /// Seed of the bench's random games.
    #[arg(long, default_value_t = 1, requires = "bench", value_parser = whole::<u64>(0, u64::MAX), allow_negative_numbers = true)]
    seed: u64,
    /// The bench's endgames are at least this many plies before the end of their game.
    #[arg(long, default_value_t = 20, requires = "bench", value_parser = whole::<u64>(1, 120), allow_negative_numbers = true)]
    min_plies: u64,
    /// Plain alpha-beta's node limit in the bench: endgames it cannot
    /// solve within it are left out.
    #[arg(long, default_value_t = 5_000_000, requires = "bench", value_parser = whole::<u64>(1, u64::MAX), allow_negative_numbers = true)]
    plain_nodes: u64,
    /// Bench worker threads.
    #[arg(long, default_value_t = 1, requires = "bench", value_parser = whole::<u16>(1, MAX_RUN_THREADS), allow_negative_numbers = true)]
    threads: u16,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

impl SolveArgs {
    /// Solves the position, or runs the bench, and returns what `solve` prints.
    pub fn run(self) -> Result<String> {
        match self.bench {
            None => solve_command(&self.start.position()?, self.time, self.json),
            Some(positions) => bench::bench_command(
                &bench::BenchSettings {
                    positions: positions as usize,
                    seed: self.seed,
                    min_plies: self.min_plies as usize,
                    plain_nodes: self.plain_nodes,
                    threads: self.threads.into(),
                },
                self.json,
            ),
        }
    }
}

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

/// Above this many free squares a solve without `--time` says on stderr
/// that it may not end soon: an endgame of 20 takes well under a second,
/// one of 26 can take seconds, and each more free square multiplies it.
const LONG_SOLVE_FREE: u32 = 30;

/// Solves `pos`, giving up after `time` if one is set.
fn solve_command(pos: &Position, time: Option<Duration>, json: bool) -> Result<String> {
    ensure_not_over(pos, "solve")?;
    let free = pos.free().count();
    if time.is_none() && free > LONG_SOLVE_FREE {
        // Not an error (it may be wanted), but a silent wait of hours is
        // not what a first try should meet.
        eprintln!(
            "solving {free} free squares with no time limit: this may take hours or \
             never end (--time 10s gives up after ten seconds; Ctrl-C stops)"
        );
    }
    let limits = Limits { nodes: None, time };
    let mut solver = Solver::new();
    let Some(s) = solver.solve_within(pos, limits, &Stop::new()) else {
        // Only a time limit stops the solver: `time` is set. Shown as it
        // was given ("10ms"), not rounded to a tenth of a second.
        bail!(
            "not solved within --time {:?} ({} nodes); give it more time",
            time.unwrap_or_default(),
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
