//! Training the network with candle on the CPU.
//!
//! The target of a position mixes how the game ended and what the search
//! thought: `lambda * result + (1 - lambda) * sigmoid(score / 400)` (400 is
//! `CENTIPOINTS_PER_LOGIT`, the network's own output scale), results
//! as 1, ½, 0 for the side to move. The loss is the mean squared error of
//! `sigmoid(logit)`. Weights start from our own seeded generator and batches
//! are shuffled by it, so a seed gives the same network.
//!
//! Every time a training position is used it is shown in one of its eight
//! symmetric images, picked at random (the game and the heuristic scalars
//! do not change under them), so the network learns from eight times the
//! positions. After every step the weights are clipped to the ±32 that the
//! integer network can hold, and the learning rate falls along a cosine over the
//! epochs to a tenth of its start.

use crate::selfplay::Sample;
use candle_core::{Device, Tensor, Var, D};
use candle_nn::{AdamW, Optimizer, ParamsAdamW};
use std::fmt;
use yolah::{Rng, Symmetry};
use yolah_players::eval::features;
use yolah_players::nn::{
    active_features, hidden1_rule, scalars, valid_hidden1, FloatNet, HIDDEN2, INPUTS, MAX_WEIGHT,
    SCALARS,
};
use yolah_players::score::CENTIPOINTS_PER_LOGIT;

/// Why training stopped.
#[derive(Debug)]
pub enum TrainError {
    /// Fewer than 20 positions.
    TooFewPositions(usize),
    /// A first-layer width the players cannot run.
    BadWidth(usize),
    /// candle failed.
    Candle(candle_core::Error),
}

impl fmt::Display for TrainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrainError::TooFewPositions(n) => write!(f, "{n} positions are too few to train on"),
            TrainError::BadWidth(w) => {
                write!(f, "a first layer of {w} is not {}", hidden1_rule())
            }
            TrainError::Candle(e) => write!(f, "training failed: {e}"),
        }
    }
}

impl std::error::Error for TrainError {}

impl From<candle_core::Error> for TrainError {
    fn from(e: candle_core::Error) -> TrainError {
        TrainError::Candle(e)
    }
}

/// The first-layer width `yolah train` gives a network unless told.
pub const DEFAULT_HIDDEN1: usize = 128;

/// How to train.
#[derive(Clone, Copy, Debug)]
pub struct TrainConfig {
    /// Passes over the training positions.
    pub epochs: usize,
    /// Seed of initialisation, shuffling and the validation split.
    pub seed: u64,
    /// Weight of the game result in the target (the rest is the search score).
    pub lambda: f32,
    /// AdamW learning rate.
    pub learning_rate: f64,
    /// Positions per step.
    pub batch: usize,
    /// Share of positions held out for validation.
    pub validation: f32,
    /// Show each training position in a random one of its eight images.
    pub symmetries: bool,
    /// The first layer's width.
    pub hidden1: usize,
}

impl Default for TrainConfig {
    fn default() -> TrainConfig {
        TrainConfig {
            epochs: 12,
            seed: 0,
            lambda: 0.3,
            learning_rate: 2e-3,
            batch: 512,
            validation: 0.1,
            symmetries: true,
            hidden1: DEFAULT_HIDDEN1,
        }
    }
}

/// One epoch's losses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochReport {
    /// From 1.
    pub epoch: usize,
    /// Mean training loss over the epoch.
    pub train_loss: f32,
    /// Loss on the held-out positions.
    pub validation_loss: f32,
}

struct Encoded {
    x: Vec<f32>,
    s: Vec<f32>,
    y: Vec<f32>,
}

/// Inputs and targets of `samples`, each in the image `symmetry(n)`.
fn encode(samples: &[&Sample], lambda: f32, symmetry: impl Fn(usize) -> Symmetry) -> Encoded {
    let mut e = Encoded {
        x: vec![0.0; samples.len() * INPUTS],
        s: Vec::with_capacity(samples.len() * SCALARS),
        y: Vec::with_capacity(samples.len()),
    };
    for (n, sample) in samples.iter().enumerate() {
        let pos = sample.pos.transformed(symmetry(n));
        for i in active_features(&pos, pos.side_to_move()) {
            e.x[n * INPUTS + i] = 1.0;
        }
        e.s.extend(scalars(&features(&sample.pos)));
        let result = (f32::from(sample.result) + 1.0) / 2.0;
        // In f32, as the shipped network was trained (same bytes for a seed).
        let scale = CENTIPOINTS_PER_LOGIT as f32;
        let searched = 1.0 / (1.0 + (-f32::from(sample.score) / scale).exp());
        e.y.push(lambda * result + (1.0 - lambda) * searched);
    }
    e
}

struct Model {
    hidden1: usize,
    w1: Var,
    b1: Var,
    w2: Var,
    b2: Var,
    w3: Var,
    b3: Var,
}

fn uniform(rng: &mut Rng, n: usize, scale: f32) -> Vec<f32> {
    (0..n)
        .map(|_| ((rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * scale)
        .collect()
}

fn var(data: Vec<f32>, shape: &[usize]) -> candle_core::Result<Var> {
    Var::from_tensor(&Tensor::from_vec(data, shape, &Device::Cpu)?)
}

impl Model {
    fn new(rng: &mut Rng, hidden1: usize) -> candle_core::Result<Model> {
        Ok(Model {
            hidden1,
            w1: var(uniform(rng, INPUTS * hidden1, 0.1), &[INPUTS, hidden1])?,
            b1: var(vec![0.25; hidden1], &[hidden1])?,
            w2: var(
                uniform(rng, (hidden1 + SCALARS) * HIDDEN2, 0.25),
                &[hidden1 + SCALARS, HIDDEN2],
            )?,
            b2: var(vec![0.25; HIDDEN2], &[HIDDEN2])?,
            w3: var(uniform(rng, HIDDEN2, 0.3), &[HIDDEN2, 1])?,
            b3: var(vec![0.0], &[1])?,
        })
    }

    fn vars(&self) -> Vec<Var> {
        [&self.w1, &self.b1, &self.w2, &self.b2, &self.w3, &self.b3]
            .into_iter()
            .cloned()
            .collect()
    }

    /// Logits for a batch: x [B, 192], s [B, 6] → [B, 1].
    fn forward(&self, x: &Tensor, s: &Tensor) -> candle_core::Result<Tensor> {
        let h1 = x
            .matmul(self.w1.as_tensor())?
            .broadcast_add(self.b1.as_tensor())?
            .clamp(0f32, 1f32)?;
        let input = Tensor::cat(&[&h1, s], D::Minus1)?;
        let h2 = input
            .matmul(self.w2.as_tensor())?
            .broadcast_add(self.b2.as_tensor())?
            .clamp(0f32, 1f32)?;
        h2.matmul(self.w3.as_tensor())?
            .broadcast_add(self.b3.as_tensor())
    }

    /// Keeps the weights within what the integer network holds.
    fn clip(&self) -> candle_core::Result<()> {
        for v in self.vars() {
            v.set(&v.as_tensor().clamp(-MAX_WEIGHT, MAX_WEIGHT)?)?;
        }
        Ok(())
    }

    fn loss(&self, x: &Tensor, s: &Tensor, y: &Tensor) -> candle_core::Result<Tensor> {
        let predicted = candle_nn::ops::sigmoid(&self.forward(x, s)?)?;
        candle_nn::loss::mse(&predicted.squeeze(1)?, y)
    }

    fn export(&self) -> candle_core::Result<FloatNet> {
        let flat = |v: &Var| v.as_tensor().flatten_all()?.to_vec1::<f32>();
        Ok(FloatNet {
            hidden1: self.hidden1,
            w1: flat(&self.w1)?,
            b1: flat(&self.b1)?,
            w2: flat(&self.w2)?,
            b2: flat(&self.b2)?,
            w3: flat(&self.w3)?,
            b3: flat(&self.b3)?[0],
        })
    }
}

fn tensors(e: &Encoded) -> candle_core::Result<(Tensor, Tensor, Tensor)> {
    let n = e.y.len();
    Ok((
        Tensor::from_slice(&e.x, (n, INPUTS), &Device::Cpu)?,
        Tensor::from_slice(&e.s, (n, SCALARS), &Device::Cpu)?,
        Tensor::from_slice(&e.y, n, &Device::Cpu)?,
    ))
}

/// Trains a network on `samples`, calling `report` after every epoch.
pub fn train(
    samples: &[Sample],
    config: &TrainConfig,
    report: &mut dyn FnMut(&EpochReport),
) -> Result<FloatNet, TrainError> {
    if samples.len() < 20 {
        return Err(TrainError::TooFewPositions(samples.len()));
    }
    if !valid_hidden1(config.hidden1) {
        return Err(TrainError::BadWidth(config.hidden1));
    }
    let mut rng = Rng::new(config.seed);
    let mut order: Vec<usize> = (0..samples.len()).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i as u32 + 1) as usize);
    }
    let held_out = ((samples.len() as f32 * config.validation) as usize).max(1);
    let (val_idx, train_idx) = order.split_at(held_out);
    let val = encode(
        &val_idx.iter().map(|&i| &samples[i]).collect::<Vec<_>>(),
        config.lambda,
        |_| Symmetry::IDENTITY,
    );
    let (vx, vs, vy) = tensors(&val)?;
    let mut train_idx = train_idx.to_vec();
    let model = Model::new(&mut rng, config.hidden1)?;
    let params = ParamsAdamW {
        lr: config.learning_rate,
        weight_decay: 1e-5,
        ..ParamsAdamW::default()
    };
    let mut opt = AdamW::new(model.vars(), params)?;
    for epoch in 1..=config.epochs {
        let progress = (epoch - 1) as f64 / config.epochs as f64;
        let cosine = 0.5 * (1.0 + (std::f64::consts::PI * progress).cos());
        opt.set_learning_rate(config.learning_rate * (0.1 + 0.9 * cosine));
        for i in (1..train_idx.len()).rev() {
            train_idx.swap(i, rng.below(i as u32 + 1) as usize);
        }
        let mut total = 0.0f32;
        let mut batches = 0;
        for chunk in train_idx.chunks(config.batch) {
            let images: Vec<Symmetry> = chunk
                .iter()
                .map(|_| match config.symmetries {
                    true => Symmetry::from_index(rng.below(8) as usize),
                    false => Symmetry::IDENTITY,
                })
                .collect();
            let batch = encode(
                &chunk.iter().map(|&i| &samples[i]).collect::<Vec<_>>(),
                config.lambda,
                |n| images[n],
            );
            let (x, s, y) = tensors(&batch)?;
            let loss = model.loss(&x, &s, &y)?;
            opt.backward_step(&loss)?;
            model.clip()?;
            total += loss.to_scalar::<f32>()?;
            batches += 1;
        }
        let validation_loss = model
            .loss(&vx, &vs, &vy)
            .and_then(|l| l.to_scalar::<f32>())?;
        report(&EpochReport {
            epoch,
            train_loss: total / batches as f32,
            validation_loss,
        });
    }
    Ok(model.export()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::selfplay::selfplay;
    use yolah_players::nn::QuantNet;

    #[test]
    fn a_tiny_run_learns_and_is_deterministic() {
        let samples = selfplay("alphabeta:depth=1", 30, 1, 2, &|_| {}).unwrap();
        let config = TrainConfig {
            epochs: 6,
            batch: 64,
            ..TrainConfig::default()
        };
        let mut losses = Vec::new();
        let net = train(&samples, &config, &mut |r| losses.push(r.train_loss)).unwrap();
        assert!(losses.last().unwrap() < &losses[0], "{losses:?}");
        let again = train(&samples, &config, &mut |_| {}).unwrap();
        assert_eq!(net, again, "same seed, same network");
        // The trained float network and its quantised copy agree.
        let quant = QuantNet::new(&net).unwrap();
        assert!(FloatNet::from_bytes(&net.to_bytes()).is_ok());
        for s in samples.iter().take(200) {
            let f = scalars(&features(&s.pos));
            let side = s.pos.side_to_move();
            let exact = net.forward(&active_features(&s.pos, side), &f);
            let q = quant.logit(&quant.accumulators(&s.pos)[side as usize], &f);
            assert!((exact - q).abs() < 0.05, "{exact} vs {q}");
        }
        assert_eq!(net.hidden1, DEFAULT_HIDDEN1);
        // Other widths: a narrow one trains, one the players cannot run is
        // refused before any work.
        let narrow = TrainConfig {
            epochs: 1,
            hidden1: 16,
            ..config
        };
        assert_eq!(train(&samples, &narrow, &mut |_| {}).unwrap().hidden1, 16);
        let odd = TrainConfig {
            hidden1: 40,
            ..config
        };
        let e = train(&samples, &odd, &mut |_| {}).unwrap_err();
        assert!(matches!(e, TrainError::BadWidth(40)), "{e}");
        assert!(e.to_string().contains("multiple of 16"), "{e}");
    }
}
