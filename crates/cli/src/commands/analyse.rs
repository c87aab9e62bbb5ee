//! `yolah analyse`: search a position with a player and show what it finds.

use crate::args::{ensure_not_over, StartArgs};
use anyhow::{anyhow, Result};
use clap::Args;
use serde_json::json;
use yolah_players::{from_spec, Search, Stop};

/// What `yolah analyse` does: its line in `yolah --help` and the first
/// line of its own help.
pub const ABOUT: &str = "Search a position with a player and show what it finds";

/// `yolah analyse`'s arguments.
#[derive(Args)]
#[command(about = ABOUT)]
pub struct AnalyseArgs {
    #[command(flatten)]
    start: StartArgs,
    /// The player, such as alphabeta:depth=8.
    #[arg(long, default_value = "alphabeta:time=1s")]
    player: String,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

impl AnalyseArgs {
    /// Searches the position and returns what `analyse` prints.
    pub fn run(self) -> Result<String> {
        let pos = self.start.position()?;
        ensure_not_over(&pos, "analyse")?;
        let spec = &self.player;
        let mut player = from_spec(spec)?;
        // An external engine that cannot start, or fails, says so (and exits 1).
        player.start()?;
        let a = player
            .try_search(&pos, Search::new(&Stop::new()))
            .map_err(|f| anyhow!("{spec}: {f}"))?;
        let nps = a.nodes as f64 / a.seconds.max(1e-9);
        let pv: Vec<String> = a.pv.iter().map(|m| m.to_string()).collect();
        if self.json {
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
            (None, Some(i)) => {
                format!(", {i} iterations ({:.0}/s)", i as f64 / a.seconds.max(1e-9))
            }
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
}
