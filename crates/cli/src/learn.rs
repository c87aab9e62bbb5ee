//! Commands for the neural network: selfplay, train.

use anyhow::{bail, Result};
use yolah_lab::selfplay;
use yolah_lab::shard::Shard;

pub fn selfplay_command(
    spec: &str,
    games: u64,
    seed: u64,
    threads: usize,
    shard: Option<Shard>,
    out: &str,
) -> Result<String> {
    let Some(shard) = shard else {
        let bar = crate::rank::progress_bar(games, "games");
        let samples =
            selfplay::selfplay(spec, games, seed, threads, &|done| bar.set_position(done))?;
        bar.finish_and_clear();
        selfplay::write(out, &samples)?;
        return Ok(format!(
            "{} positions from {games} games of {spec} written to {out}\n",
            samples.len()
        ));
    };
    let bar = crate::rank::progress_bar(shard.games(games), "games");
    let (m, played) = selfplay::selfplay_shard(spec, games, seed, shard, threads, out, &|done| {
        bar.set_position(done)
    })?;
    bar.finish_and_clear();
    Ok(format!(
        "shard {shard}: {} positions from games {}..{} of {games} of {spec} {} {out} \
         (manifest {})\n",
        m.positions,
        m.first_game,
        m.end_game,
        if played { "written to" } else { "already in" },
        selfplay::ShardManifest::path_for(out)
    ))
}

/// The `train` command's settings.
#[cfg_attr(not(feature = "train"), allow(dead_code))]
pub struct TrainOptions {
    pub epochs: usize,
    pub seed: u64,
    pub lambda: f32,
    pub symmetries: bool,
    pub dedup: bool,
    /// The first layer's width.
    pub width: usize,
}

#[cfg(not(feature = "train"))]
pub fn train_command(_: &[String], _: &str, _: TrainOptions) -> Result<String> {
    bail!("this yolah was built without training (cargo feature `train` of yolah-cli)")
}

#[cfg(feature = "train")]
pub fn train_command(files: &[String], out: &str, options: TrainOptions) -> Result<String> {
    use anyhow::Context;
    use yolah_lab::selfplay::Sample;
    use yolah_lab::train::{train, TrainConfig};
    let TrainOptions {
        epochs,
        seed,
        lambda,
        symmetries,
        dedup,
        width,
    } = options;
    if !(0.0..=1.0).contains(&lambda) {
        bail!("--lambda {lambda} must lie between 0 and 1");
    }
    use yolah_players::nn::{hidden1_rule, valid_hidden1};
    if !valid_hidden1(width) {
        bail!("--width {width} must be {}", hidden1_rule());
    }
    let mut samples: Vec<Sample> = Vec::new();
    for f in files {
        samples.extend(selfplay::read(f)?);
    }
    if samples.is_empty() {
        bail!("no positions in {files:?}");
    }
    if dedup {
        let dropped = selfplay::dedup(&mut samples);
        eprintln!("dropped {dropped} repeated positions");
    }
    eprintln!("training on {} positions", samples.len());
    let config = TrainConfig {
        epochs,
        seed,
        lambda,
        symmetries,
        hidden1: width,
        ..TrainConfig::default()
    };
    let start = std::time::Instant::now();
    let net = train(&samples, &config, &mut |r| {
        println!(
            "epoch {:>3}: train loss {:.5}, validation loss {:.5} ({:.0} s)",
            r.epoch,
            r.train_loss,
            r.validation_loss,
            start.elapsed().as_secs_f64()
        )
    })?;
    std::fs::write(out, net.to_bytes()).with_context(|| format!("cannot write {out}"))?;
    Ok(format!("network written to {out}\n"))
}
