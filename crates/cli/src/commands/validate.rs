//! `yolah validate`: how well networks fit labelled positions (see
//! `yolah_lab::train::validate`).

use crate::args::whole;
use anyhow::{bail, Context, Result};
use clap::Args;
use serde_json::json;
use yolah_lab::positions::{self, Sample};
use yolah_lab::train::validate;
use yolah_lab::MAX_RUN_THREADS;
use yolah_players::nn::v2::FloatNet;
use yolah_players::nn::{NetError, Network};

/// What `yolah validate` does: its line in `yolah --help` and the first
/// line of its own help.
pub const ABOUT: &str = "Measure networks on labelled positions: the loss `yolah train` reports, \
for each network in floating point and in the engine's integers, and against the games' results";

/// `yolah validate`'s arguments.
#[derive(Args)]
#[command(about = ABOUT)]
pub struct ValidateArgs {
    /// Network files (net.bin format, YOLAHNN2 to YOLAHNN6).
    #[arg(long, num_args = 1.., required = true)]
    net: Vec<String>,
    /// Training files from `yolah selfplay` or `yolah label`, best ones no
    /// network was trained on.
    #[arg(long, num_args = 1.., required = true)]
    data: Vec<String>,
    /// Weight of the game result in the target, as `yolah train --lambda`.
    #[arg(long, default_value_t = 0.3, allow_negative_numbers = true)]
    lambda: f64,
    /// Worker threads (the figures are the same on any number).
    #[arg(long, default_value_t = 1, value_parser = whole::<u16>(1, MAX_RUN_THREADS), allow_negative_numbers = true)]
    threads: u16,
    /// One JSON object instead of the table: `positions`, `lambda` and
    /// `nets`, an object per network.
    #[arg(long)]
    json: bool,
}

impl ValidateArgs {
    /// Measures each network on all the positions, a line each.
    pub fn run(self) -> Result<String> {
        let lambda = self.lambda;
        if !(0.0..=1.0).contains(&lambda) {
            bail!("--lambda {lambda} must lie between 0 and 1");
        }
        // The networks first: they are small, the positions may take a
        // while to read, and a bad network should fail at once.
        let nets = self
            .net
            .iter()
            .map(|p| load(p))
            .collect::<Result<Vec<_>>>()?;
        let mut samples: Vec<Sample> = Vec::new();
        for f in &self.data {
            samples.extend(positions::read(f)?);
        }
        if samples.iter().all(|s| s.pos.is_game_over()) {
            bail!(
                "no position to measure in {}: the files hold no position of a game still going",
                self.data.join(", ")
            );
        }
        let threads = usize::from(self.threads);
        let mut measured = Vec::new();
        for (path, net) in self.net.iter().zip(&nets) {
            let v = validate(net, &samples, lambda as f32, threads)
                .with_context(|| format!("cannot use {path}"))?;
            measured.push((path, net.hidden1, v));
        }
        // The same positions for every network.
        let positions = measured[0].2.positions;
        if self.json {
            let nets: Vec<_> = measured
                .iter()
                .map(|(path, width, v)| {
                    json!({
                        "net": path,
                        "width": width,
                        "loss_float": v.float,
                        "loss_quantised": v.quantised,
                        "loss_against_results": v.against_results,
                    })
                })
                .collect();
            let all = json!({"positions": positions, "lambda": lambda, "nets": nets});
            return Ok(format!("{all}\n"));
        }
        let name_width = self.net.iter().map(|p| p.len()).max().unwrap_or(0).max(7);
        let mut out = format!(
            "mean squared error of the expected result on {positions} positions; the target \
             mixes result and score with lambda {lambda}, as `yolah train` does\n\
             {:name_width$}  width  float    integers   against results\n",
            "network"
        );
        for (path, width, v) in &measured {
            out.push_str(&format!(
                "{path:name_width$}  {width:>5}  {:.5}  {:.5}    {:.5}\n",
                v.float, v.quantised, v.against_results
            ));
        }
        Ok(out)
    }
}

/// The network at `path`, of the second format; a network of the first
/// (gen0 to gen2) is refused as such, not as a file that is no network.
fn load(path: &str) -> Result<FloatNet> {
    let e = match FloatNet::load(path) {
        Ok(net) => return Ok(net),
        Err(e) => e,
    };
    let not_a_network = match &e {
        NetError::InFile { error, .. } => matches!(**error, NetError::NotANetwork { .. }),
        _ => false,
    };
    if not_a_network && Network::load(path).is_ok() {
        bail!(
            "{path} is a network of the first format (YOLAHNN1), which `yolah validate` does \
             not measure: it measures YOLAHNN2 to YOLAHNN6"
        );
    }
    Err(e.into())
}
