//! Training the network, in plain Rust on the CPU.
//!
//! The target of a position mixes how the game ended and what the search
//! thought: `lambda * result + (1 - lambda) * sigmoid(score / 400)` (400 is
//! `CENTIPOINTS_PER_LOGIT`, the network's own output scale), results
//! as 1, ½, 0 for the side to move; a position `yolah label` solved takes
//! its proven score alone (a result, or a margin with `--exact-margin`).
//! The loss is the mean squared error of `sigmoid(logit)`, minimised by
//! AdamW. Weights start from our own seeded generator and batches are
//! shuffled by it, so a seed gives the same network, whatever the number of
//! threads: a batch is cut into [`PARTS`] parts whose gradients are
//! computed apart and added in order.
//!
//! Every time a training position is used it is shown in one of its eight
//! symmetric images, picked at random (the game and the heuristic scalars
//! do not change under them), so the network learns from eight times the
//! positions. After every step the weights are clipped to the bounds that
//! the integer network can hold, and the learning rate falls along a cosine
//! over the epochs to a tenth of its start. In a network wider than 128 the
//! second layer's weights on the first layer's outputs step at 128 / H of
//! that rate (`model::Layout::rates`): at the full rate a 512-wide network
//! trained far worse than a 128-wide one (validation loss 0.0593 against
//! 0.0380 after 6 epochs on the same 360,000 positions), at 128 / H about
//! as well (0.0388).
//!
//! The first layer is trained sparsely: a position touches only the
//! columns of its active inputs (`model`).

mod adam;
mod data;
mod model;
mod validate;

use crate::positions::Sample;
use adam::AdamW;
use data::{encode_all, Encoded};
use model::{Layout, Scratch};
use std::fmt;
pub use validate::{validate, Validation};
use yolah::{Rng, Symmetry};
use yolah_players::nn::v2::{
    hidden1_rule, valid_buckets, valid_hidden1, Activation, FloatNet, BUCKETS, MAPS,
};

/// Why training stopped.
#[derive(Debug)]
pub enum TrainError {
    /// Fewer than 20 positions.
    TooFewPositions(usize),
    /// A first-layer width the players cannot run.
    BadWidth(usize),
    /// A number of output buckets no network format has.
    BadBuckets(usize),
    /// A maps layer no network format has (of another width, or with
    /// output buckets or squared outputs).
    BadMaps,
}

impl fmt::Display for TrainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrainError::TooFewPositions(1) => write!(f, "1 position is too few to train on"),
            TrainError::TooFewPositions(n) => write!(f, "{n} positions are too few to train on"),
            TrainError::BadWidth(w) => {
                write!(f, "a first layer of {w} is not {}", hidden1_rule())
            }
            TrainError::BadBuckets(b) => {
                write!(f, "{b} output buckets: a network has 1 or {BUCKETS}")
            }
            TrainError::BadMaps => write!(
                f,
                "a maps layer is {MAPS} wide, with one output bucket and clipped first-layer outputs"
            ),
        }
    }
}

impl std::error::Error for TrainError {}

/// The first-layer width `yolah train` gives a network unless told.
pub const DEFAULT_HIDDEN1: usize = 256;

/// How many parts a batch is cut into: the most threads a batch keeps busy,
/// and fixed, so that the sums do not depend on the number of threads.
pub const PARTS: usize = 4;

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
    pub learning_rate: f32,
    /// AdamW weight decay.
    pub weight_decay: f32,
    /// The piece-square first layer's share of the learning rate (the maps
    /// layer keeps the full rate): a half (the default, and maps100h's)
    /// keeps fewer of its neurons dead than 1 (the nets up to maps100).
    pub first_layer_rate: f32,
    /// Positions per step.
    pub batch: usize,
    /// Share of positions held out for validation.
    pub validation: f32,
    /// Show each training position in a random one of its eight images.
    pub symmetries: bool,
    /// The first layer's width.
    pub hidden1: usize,
    /// Output buckets: 1 (a `YOLAHNN2` network) or
    /// [`BUCKETS`] (`YOLAHNN3`, later layers per phase of the game).
    pub buckets: usize,
    /// Worker threads (the result does not depend on them).
    pub threads: usize,
    /// What the first layer outputs: clipped sums (`YOLAHNN2` and
    /// `YOLAHNN3` networks) or their squares (`YOLAHNN4`, `YOLAHNN5`).
    pub activation: Activation,
    /// The share of the gradient a clipped first-layer neuron passes
    /// (0: none, the exact gradient; see `model::loss_and_gradient`).
    pub leak: f32,
    /// The width of a layer on the position's maps: 0 (none) or
    /// [`yolah_players::nn::v2::MAPS`] (a `YOLAHNN6` network).
    pub maps: usize,
}

impl Default for TrainConfig {
    fn default() -> TrainConfig {
        TrainConfig {
            epochs: 12,
            seed: 0,
            lambda: 0.3,
            learning_rate: 2e-3,
            weight_decay: 1e-5,
            first_layer_rate: 0.5,
            batch: 1024,
            validation: 0.1,
            symmetries: true,
            hidden1: DEFAULT_HIDDEN1,
            buckets: 1,
            threads: 1,
            leak: 0.0,
            activation: Activation::Clipped,
            maps: 0,
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
    /// First-layer neurons that are off (zero) in both views of every
    /// held-out position: width the network has but does not use.
    pub dead: usize,
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
    if !valid_buckets(config.buckets) {
        return Err(TrainError::BadBuckets(config.buckets));
    }
    let plain = config.buckets == 1 && config.activation == Activation::Clipped;
    if config.maps != 0 && (config.maps != MAPS || !plain) {
        return Err(TrainError::BadMaps);
    }
    let threads = config.threads.clamp(1, PARTS);
    let mut rng = Rng::new(config.seed);
    let mut order: Vec<usize> = (0..samples.len()).collect();
    shuffle(&mut order, &mut rng);
    let held_out = ((samples.len() as f32 * config.validation) as usize).max(1);
    let (val_idx, train_idx) = order.split_at(held_out);
    let encode = |idx: &[usize]| {
        let chosen: Vec<&Sample> = idx.iter().map(|&i| &samples[i]).collect();
        encode_all(&chosen, config.lambda, threads)
    };
    let validation = encode(val_idx);
    let training = encode(train_idx);
    let layout = Layout {
        activation: config.activation,
        ..Layout::with_maps(config.hidden1, config.buckets, config.maps)
    };
    let mut params = model::initial(&layout, &mut rng);
    let mut optimizer = AdamW::new(layout.rates(config.first_layer_rate), config.weight_decay);
    let mut grads = vec![vec![0.0f32; layout.len]; PARTS];
    let mut scratch: Vec<Scratch> = (0..PARTS).map(|_| Scratch::new(&layout)).collect();
    let mut order: Vec<u32> = (0..training.len() as u32).collect();
    let batch = config.batch.max(PARTS);
    let mut images = vec![Symmetry::IDENTITY; batch];
    for epoch in 1..=config.epochs {
        let progress = (epoch - 1) as f32 / config.epochs as f32;
        let cosine = 0.5 * (1.0 + (std::f32::consts::PI * progress).cos());
        let learning_rate = config.learning_rate * (0.1 + 0.9 * cosine);
        shuffle(&mut order, &mut rng);
        let mut total = 0.0f64;
        for chunk in order.chunks(batch) {
            for image in &mut images[..chunk.len()] {
                *image = match config.symmetries {
                    true => Symmetry::from_index(rng.below(8) as usize),
                    false => Symmetry::IDENTITY,
                };
            }
            let step = Step {
                layout: &layout,
                params: &params,
                training: &training,
                chunk,
                images: &images[..chunk.len()],
                leak: config.leak,
            };
            total += step.gradients(&mut grads, &mut scratch, threads);
            let scale = 1.0 / chunk.len() as f32;
            optimizer.step(&mut params, &grads, scale, learning_rate, threads);
            model::clip(&layout, &mut params);
        }
        let validation_loss = mean_loss(&layout, &params, &validation, &mut scratch, threads);
        let dead = (0..layout.hidden1)
            .filter(|&i| scratch.iter().all(|s| !s.on()[i]))
            .count();
        report(&EpochReport {
            epoch,
            train_loss: (total / training.len() as f64) as f32,
            validation_loss,
            dead,
        });
    }
    Ok(model::export(&layout, &params))
}

/// Shuffles `items` with `rng` (Fisher–Yates).
fn shuffle<T>(items: &mut [T], rng: &mut Rng) {
    for i in (1..items.len()).rev() {
        items.swap(i, rng.below(i as u32 + 1) as usize);
    }
}

/// One batch: the positions `chunk` of `training`, each in its image.
struct Step<'a> {
    layout: &'a Layout,
    params: &'a [f32],
    training: &'a [Encoded],
    chunk: &'a [u32],
    images: &'a [Symmetry],
    leak: f32,
}

impl Step<'_> {
    /// The gradient of each of the [`PARTS`] parts of the batch, in
    /// `grads`; returns the sum of the batch's losses.
    fn gradients(&self, grads: &mut [Vec<f32>], scratch: &mut [Scratch], threads: usize) -> f64 {
        let per = self.chunk.len().div_ceil(PARTS);
        let part = |k: usize, g: &mut Vec<f32>, s: &mut Scratch| -> f64 {
            g.fill(0.0);
            let lo = (k * per).min(self.chunk.len());
            let hi = ((k + 1) * per).min(self.chunk.len());
            let mut loss = 0.0f64;
            for (&i, &image) in self.chunk[lo..hi].iter().zip(&self.images[lo..hi]) {
                let e = self.training[i as usize].transformed(image);
                loss += f64::from(model::loss_and_gradient(
                    self.layout,
                    self.params,
                    &e,
                    s,
                    g,
                    self.leak,
                ));
            }
            loss
        };
        let losses = in_parts(grads, scratch, threads, part);
        losses.iter().sum()
    }
}

/// Runs `work(k, a_k, b_k)` for every part `k`, spread over `threads`
/// threads (part `k` on thread `k % threads`), and returns the results in
/// part order.
fn in_parts<A: Send, B: Send, R: Send + Default + Copy>(
    a: &mut [A],
    b: &mut [B],
    threads: usize,
    work: impl Fn(usize, &mut A, &mut B) -> R + Sync,
) -> Vec<R> {
    let mut results = vec![R::default(); a.len()];
    if threads <= 1 {
        for (k, ((a, b), r)) in a.iter_mut().zip(b.iter_mut()).zip(&mut results).enumerate() {
            *r = work(k, a, b);
        }
        return results;
    }
    let mut lanes: Vec<Vec<(usize, &mut A, &mut B, &mut R)>> =
        (0..threads).map(|_| Vec::new()).collect();
    for (k, ((a, b), r)) in a.iter_mut().zip(b.iter_mut()).zip(&mut results).enumerate() {
        lanes[k % threads].push((k, a, b, r));
    }
    let work = &work;
    std::thread::scope(|s| {
        for lane in lanes {
            s.spawn(move || {
                for (k, a, b, r) in lane {
                    *r = work(k, a, b);
                }
            });
        }
    });
    results
}

/// The mean loss over `data` (as it is, no symmetries); each part's
/// scratch records which neurons were on.
fn mean_loss(
    layout: &Layout,
    params: &[f32],
    data: &[Encoded],
    scratch: &mut [Scratch],
    threads: usize,
) -> f32 {
    let per = data.len().div_ceil(PARTS);
    let mut unused = vec![(); PARTS];
    let sums = in_parts(scratch, &mut unused, threads, |k, s, _| {
        s.clear_on();
        let part = data.chunks(per.max(1)).nth(k).unwrap_or(&[]);
        part.iter()
            .map(|e| f64::from(model::loss(layout, params, e, s)))
            .sum::<f64>()
    });
    (sums.iter().sum::<f64>() / data.len() as f64) as f32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::selfplay::{selfplay, Run};
    use yolah_players::eval::{features, maps};
    use yolah_players::nn::v2::quant::QuantNet;
    use yolah_players::nn::{active_features, scalars};

    /// The 128-wide `net` and its integer copy give the same logits, within
    /// 0.05, over the first 200 of `samples`.
    fn integer_agrees(net: &FloatNet, samples: &[Sample]) {
        let quant = QuantNet::<128>::new(net).unwrap();
        for s in samples.iter().take(200) {
            let f = scalars(&features(&s.pos));
            let side = s.pos.side_to_move();
            let ours = active_features(&s.pos, side);
            let theirs = active_features(&s.pos, side.opponent());
            let free = s.pos.free().count();
            let m = maps(&s.pos);
            let exact = net.forward(&ours, &theirs, &f, &m, net.bucket(free));
            let q = quant.logit(&quant.accumulators(&s.pos), side, &f, &m, free);
            assert!((exact - q).abs() < 0.05, "{exact} vs {q}");
        }
    }

    #[test]
    fn a_tiny_run_learns_and_is_deterministic_on_any_number_of_threads() {
        let samples = selfplay(&Run::new("alphabeta:depth=1", 30, 1), 2, &|_| {}).unwrap();
        let config = TrainConfig {
            epochs: 6,
            batch: 64,
            hidden1: 128,
            ..TrainConfig::default()
        };
        let mut losses = Vec::new();
        let net = train(&samples, &config, &mut |r| losses.push(r.train_loss)).unwrap();
        assert!(losses.last().unwrap() < &losses[0], "{losses:?}");
        for threads in [2, 3] {
            let again = train(&samples, &TrainConfig { threads, ..config }, &mut |_| {}).unwrap();
            assert_eq!(net, again, "same seed, same network on {threads} threads");
        }
        // The trained float network and its quantised copy agree.
        assert!(FloatNet::from_bytes(&net.to_bytes()).is_ok());
        integer_agrees(&net, &samples);
        // Squared outputs: a YOLAHNN4 network, and its integer copy agrees.
        let squared = TrainConfig {
            activation: Activation::Squared,
            epochs: 2,
            ..config
        };
        let net = train(&samples, &squared, &mut |_| {}).unwrap();
        assert!(net.to_bytes().starts_with(b"YOLAHNN4"));
        integer_agrees(&net, &samples);
        // With output buckets: a YOLAHNN3 network, as deterministic.
        let bucketed = TrainConfig {
            buckets: BUCKETS,
            epochs: 2,
            ..config
        };
        let net = train(&samples, &bucketed, &mut |_| {}).unwrap();
        assert_eq!(net.buckets, BUCKETS);
        assert!(net.to_bytes().starts_with(b"YOLAHNN3"));
        let again = train(
            &samples,
            &TrainConfig {
                threads: 2,
                ..bucketed
            },
            &mut |_| {},
        );
        assert_eq!(net, again.unwrap());
        let e = train(
            &samples,
            &TrainConfig {
                buckets: 3,
                ..config
            },
            &mut |_| {},
        );
        assert!(e.unwrap_err().to_string().contains("1 or 4"));
        // A maps layer: a YOLAHNN6 network, and its integer copy agrees.
        let with_maps = TrainConfig {
            maps: MAPS,
            epochs: 2,
            ..config
        };
        let net = train(&samples, &with_maps, &mut |_| {}).unwrap();
        assert!(net.to_bytes().starts_with(b"YOLAHNN6"));
        assert_eq!(FloatNet::from_bytes(&net.to_bytes()).unwrap(), net);
        integer_agrees(&net, &samples);
        let e = train(
            &samples,
            &TrainConfig {
                buckets: BUCKETS,
                ..with_maps
            },
            &mut |_| {},
        );
        assert!(matches!(e, Err(TrainError::BadMaps)));
        // A width the players cannot run is refused before any work.
        let odd = TrainConfig {
            hidden1: 40,
            ..config
        };
        let e = train(&samples, &odd, &mut |_| {}).unwrap_err();
        assert!(matches!(e, TrainError::BadWidth(40)), "{e}");
        assert!(e.to_string().contains("one of 128"), "{e}");
    }
}
