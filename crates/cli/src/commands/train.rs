//! `yolah train`: fit the evaluation network to self-play positions.

use crate::args::whole;
use anyhow::{bail, Result};
use clap::Args;
use yolah_lab::train::{TrainConfig, DEFAULT_HIDDEN1};
use yolah_lab::MAX_RUN_THREADS;

/// What `yolah train` does: its line in `yolah --help` and the first
/// line of its own help.
pub const ABOUT: &str = "Train the evaluation network on self-play positions";

/// `yolah train`'s arguments.
#[derive(Args)]
#[command(about = ABOUT)]
pub struct TrainArgs {
    /// Training files from `yolah selfplay` (or `yolah label`).
    #[arg(long, num_args = 1.., required = true)]
    data: Vec<String>,
    /// Where the network goes (net.bin format).
    #[arg(long)]
    out: String,
    /// Passes over the data.
    #[arg(long, default_value_t = 12, value_parser = whole::<u64>(1, 10_000), allow_negative_numbers = true)]
    epochs: u64,
    /// Seed of initialisation and shuffling.
    #[arg(long, default_value_t = 0, value_parser = whole::<u64>(0, u64::MAX), allow_negative_numbers = true)]
    seed: u64,
    /// Weight of the game result in the target; the rest is the search score.
    #[arg(long, default_value_t = 0.3, allow_negative_numbers = true)]
    lambda: f32,
    /// Show every position as it is, not in a random one of its eight
    /// symmetric images.
    #[arg(long)]
    no_symmetries: bool,
    /// Keep one sample of each position (up to symmetry): the first.
    #[arg(long)]
    dedup: bool,
    /// Width of the network's first layer: 128, 256, 512 or 1024.
    #[arg(long, default_value_t = DEFAULT_HIDDEN1, value_parser = whole::<usize>(0, usize::MAX as u64), allow_negative_numbers = true)]
    width: usize,
    /// Output buckets: 1 (a YOLAHNN2 network), or 4 (YOLAHNN3: the later
    /// layers once for each quarter of the game, by free squares).
    #[arg(long, default_value_t = 1, value_parser = whole::<usize>(0, usize::MAX as u64), allow_negative_numbers = true)]
    buckets: usize,
    /// Worker threads (the network is the same on any number).
    #[arg(long, default_value_t = 1, value_parser = whole::<u16>(1, MAX_RUN_THREADS), allow_negative_numbers = true)]
    threads: u16,
    /// Positions per optimizer step.
    #[arg(long, default_value_t = TrainConfig::default().batch as u64, value_parser = whole::<u64>(4, 1_000_000), allow_negative_numbers = true)]
    batch: u64,
    /// AdamW's learning rate at the start (it falls to a tenth).
    #[arg(long, default_value_t = TrainConfig::default().learning_rate, allow_negative_numbers = true)]
    learning_rate: f32,
    /// The piece-square first layer's share of the learning rate (the maps
    /// layer keeps the full rate), above 0 and at most 1: the default, a
    /// half, leaves fewer of a wide layer's neurons dead than 1 (the rate
    /// of every net up to maps100).
    #[arg(long, default_value_t = TrainConfig::default().first_layer_rate, allow_negative_numbers = true)]
    first_layer_rate: f32,
    /// The share of the gradient a first-layer neuron passes while its sum
    /// is clipped (at 0 or 1): above 0, a neuron that is off for every
    /// position can still learn its way back on. 0 is the exact gradient.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    leak: f32,
    /// What the first layer outputs: its sums clipped to [0, 1]
    /// ("clipped", a YOLAHNN2 or YOLAHNN3 network) or those squared
    /// ("squared", YOLAHNN4 or YOLAHNN5).
    #[arg(long, default_value = "clipped", value_parser = clap::builder::PossibleValuesParser::new(["clipped", "squared"]))]
    activation: String,
    /// Add a layer on the position's maps (each side's territory and the
    /// squares it reaches in one move), computed afresh at each evaluation:
    /// a YOLAHNN6 network. Not with --buckets 4 or --activation squared.
    #[arg(long)]
    maps: bool,
}

impl TrainArgs {
    /// Trains the network, printing each epoch's losses, and writes it.
    pub fn run(self) -> Result<String> {
        use anyhow::Context;
        use yolah_lab::positions::{self, Sample};
        use yolah_lab::train::train;
        use yolah_players::nn::v2::{hidden1_rule, valid_buckets, valid_hidden1, BUCKETS};
        let (files, out, lambda, width) = (&self.data, &self.out, self.lambda, self.width);
        if !(0.0..=1.0).contains(&lambda) {
            bail!("--lambda {lambda} must lie between 0 and 1");
        }
        if !valid_hidden1(width) {
            bail!("--width {width} must be {}", hidden1_rule());
        }
        if !valid_buckets(self.buckets) {
            bail!("--buckets {} must be 1 or {BUCKETS}", self.buckets);
        }
        let conflicts: Vec<String> = [
            (self.buckets != 1).then(|| format!("--buckets {}", self.buckets)),
            (self.activation != "clipped").then(|| format!("--activation {}", self.activation)),
        ]
        .into_iter()
        .flatten()
        .collect();
        if self.maps && !conflicts.is_empty() {
            bail!(
                "--maps makes a YOLAHNN6 network, which has one output bucket and clipped outputs: not with {}",
                conflicts.join(" and ")
            );
        }
        let learning_rate = self.learning_rate;
        if !(learning_rate.is_finite() && learning_rate > 0.0 && learning_rate < 1.0) {
            bail!("--learning-rate {learning_rate} must lie between 0 and 1");
        }
        let first_layer_rate = self.first_layer_rate;
        if !(first_layer_rate > 0.0 && first_layer_rate <= 1.0) {
            bail!("--first-layer-rate {first_layer_rate} must be above 0 and at most 1");
        }
        let leak = self.leak;
        if !(0.0..=1.0).contains(&leak) {
            bail!("--leak {leak} must lie between 0 and 1");
        }
        // Hours of training must neither end unable to write nor write the
        // network over its own data.
        crate::paths::ensure_not_an_input(out, files, "--out")?;
        crate::paths::ensure_writable(out, "--out")?;
        let mut samples: Vec<Sample> = Vec::new();
        for f in files {
            samples.extend(positions::read(f)?);
        }
        if samples.is_empty() {
            bail!("no positions in {}", files.join(", "));
        }
        if self.dedup {
            let dropped = positions::dedup(&mut samples);
            eprintln!("dropped {dropped} repeated positions");
        }
        eprintln!("training on {} positions", samples.len());
        let config = TrainConfig {
            epochs: self.epochs as usize,
            seed: self.seed,
            lambda,
            symmetries: !self.no_symmetries,
            hidden1: width,
            buckets: self.buckets,
            threads: usize::from(self.threads),
            batch: self.batch as usize,
            learning_rate,
            first_layer_rate,
            leak,
            activation: self.activation.parse().map_err(anyhow::Error::msg)?,
            maps: if self.maps {
                yolah_players::nn::v2::MAPS
            } else {
                0
            },
            ..TrainConfig::default()
        };
        let start = std::time::Instant::now();
        let net = train(&samples, &config, &mut |r| {
            println!(
                "epoch {:>3}: train loss {:.5}, validation loss {:.5}, {} of {width} neurons dead ({:.0} s)",
                r.epoch,
                r.train_loss,
                r.validation_loss,
                r.dead,
                start.elapsed().as_secs_f64()
            )
        })?;
        std::fs::write(out, net.to_bytes()).with_context(|| format!("cannot write {out}"))?;
        Ok(format!("network written to {out}\n"))
    }
}
