//! `yolah perft`: count the leaves of the game tree, the engine's
//! correctness and speed check.

use crate::args::{whole, StartArgs};
use anyhow::Result;
use clap::Args;
use serde_json::json;
use std::time::Instant;
use yolah::perft::{divide, perft_threads};
use yolah_lab::MAX_RUN_THREADS;

/// What `yolah perft` does: its line in `yolah --help` and the first
/// line of its own help.
pub const ABOUT: &str = "Count the leaves of the game tree DEPTH plies deep, printed as \"nodes\" \
    as chess's perft does (a finished game is one leaf; a side with no move passes)";

/// `yolah perft`'s arguments.
#[derive(Args)]
#[command(about = ABOUT)]
pub struct PerftArgs {
    /// Plies to search.
    #[arg(value_parser = whole::<u32>(0, 64), allow_negative_numbers = true)]
    depth: u32,
    #[command(flatten)]
    start: StartArgs,
    /// Worker threads.
    #[arg(long, default_value_t = 1, value_parser = whole::<u16>(1, MAX_RUN_THREADS), allow_negative_numbers = true)]
    threads: u16,
    /// List the leaves below each root move.
    #[arg(long)]
    divide: bool,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

impl PerftArgs {
    /// Counts the leaves and returns what `perft` prints.
    pub fn run(self) -> Result<String> {
        let pos = self.start.position()?;
        let (depth, threads) = (self.depth, usize::from(self.threads));
        let start = Instant::now();
        let (nodes, per_move) = if self.divide {
            let d = divide(&pos, depth, threads);
            let total = if d.is_empty() {
                1
            } else {
                d.iter().map(|x| x.1).sum()
            };
            (total, d)
        } else {
            (perft_threads(&pos, depth, threads), Vec::new())
        };
        let seconds = start.elapsed().as_secs_f64();
        let nps = nodes as f64 / seconds.max(1e-9);
        if self.json {
            let mut obj = json!({
                "depth": depth,
                "nodes": nodes,
                "seconds": seconds,
                "nodes_per_second": nps,
            });
            if self.divide {
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
}
