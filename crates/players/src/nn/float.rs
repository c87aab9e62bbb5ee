//! The network as trained: `f32` weights, the `net.bin` file format, and a
//! plain floating-point forward pass that the integer network is checked
//! against.
//!
//! The file is laid out as `nn/file.rs` says, named `YOLAHNN1`, with
//! one view: the side to move's H first-layer outputs feed the second
//! layer. H is any [`valid_hidden1`] width.

use super::file::{self, Layout, NetError};
use super::{hidden1_rule, valid_hidden1, HIDDEN2, MAX_HIDDEN1, SCALARS};

/// The first format's file.
const LAYOUT: Layout = Layout {
    buckets: 1,
    name: "YOLAHNN1",
    views: 1,
    valid_hidden1,
    hidden1_rule,
    maps: 0,
};

/// The largest weight magnitude a file may hold: the integer network scales
/// weights by up to 256 into 16-bit integers.
pub const MAX_WEIGHT: f32 = 32.0;

/// The float network.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNet {
    /// The first layer's width (H).
    pub hidden1: usize,
    /// First layer, input-major: `w1[i * H + j]`.
    pub w1: Vec<f32>,
    /// First layer biases.
    pub b1: Vec<f32>,
    /// Second layer, input-major over the `H + SCALARS` inputs.
    pub w2: Vec<f32>,
    /// Second layer biases.
    pub b2: Vec<f32>,
    /// Output weights.
    pub w3: Vec<f32>,
    /// Output bias.
    pub b3: f32,
}

/// The size of a network file with a first layer of width `hidden1`.
pub const fn net_bytes(hidden1: usize) -> usize {
    LAYOUT.net_bytes(hidden1)
}

/// The size of the largest network file this build reads (the widest first
/// layer), which is also the most [`FloatNet::load`] reads.
pub const MAX_NET_BYTES: u64 = net_bytes(MAX_HIDDEN1) as u64;

impl FloatNet {
    /// Parses the `YOLAHNN1` format.
    pub fn from_bytes(bytes: &[u8]) -> Result<FloatNet, NetError> {
        let (hidden1, [w1, b1, w2, b2, w3, b3, _, _]) = LAYOUT.parse(bytes)?;
        let net = FloatNet {
            hidden1,
            w1,
            b1,
            w2,
            b2,
            w3,
            b3: b3[0],
        };
        net.check()?;
        Ok(net)
    }

    /// Checks that the width is one this build runs, that every array has
    /// its length, and that every weight is a finite number within
    /// ±[`MAX_WEIGHT`], as the integer network needs.
    pub fn check(&self) -> Result<(), NetError> {
        LAYOUT.check_shape(self.hidden1, self.arrays())?;
        match self
            .arrays()
            .into_iter()
            .flatten()
            .find(|w| !w.is_finite() || w.abs() > MAX_WEIGHT)
        {
            Some(&bad) => Err(NetError::Weight {
                value: bad,
                bound: MAX_WEIGHT,
            }),
            None => Ok(()),
        }
    }

    /// The weight arrays in file order.
    fn arrays(&self) -> [&[f32]; file::ARRAYS] {
        [
            &self.w1,
            &self.b1,
            &self.w2,
            &self.b2,
            &self.w3,
            std::slice::from_ref(&self.b3),
            &[],
            &[],
        ]
    }

    /// Reads a network file of this format.
    pub fn load(path: &str) -> Result<FloatNet, NetError> {
        file::load(path, MAX_NET_BYTES, FloatNet::from_bytes)
    }

    /// The `YOLAHNN1` bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        LAYOUT.to_bytes(self.hidden1, self.arrays())
    }

    /// The logit for the side to move, in floating point: the reference
    /// the integer network is checked against.
    pub fn forward(&self, active: &[usize], scalars: &[f32; SCALARS]) -> f32 {
        let width = self.hidden1;
        let mut h1 = self.b1.clone();
        for &i in active {
            for (h, w) in h1.iter_mut().zip(&self.w1[i * width..(i + 1) * width]) {
                *h += w;
            }
        }
        let input: Vec<f32> = h1
            .iter()
            .map(|x| x.clamp(0.0, 1.0))
            .chain(scalars.iter().copied())
            .collect();
        let mut h2 = self.b2.clone();
        for (i, x) in input.iter().enumerate() {
            for (h, w) in h2.iter_mut().zip(&self.w2[i * HIDDEN2..(i + 1) * HIDDEN2]) {
                *h += x * w;
            }
        }
        h2.iter()
            .zip(&self.w3)
            .map(|(h, w)| h.clamp(0.0, 1.0) * w)
            .sum::<f32>()
            + self.b3
    }
}

#[cfg(test)]
impl FloatNet {
    /// A network of width `hidden1` with random weights within ±½, for tests.
    pub(crate) fn random(hidden1: usize, seed: u64) -> FloatNet {
        let mut rng = yolah::Rng::new(seed);
        let mut array = |n: usize| -> Vec<f32> {
            (0..n)
                .map(|_| (rng.below(1001) as f32 - 500.0) / 1000.0)
                .collect()
        };
        let [w1, b1, w2, b2, w3, ..] = LAYOUT.sizes(hidden1).map(&mut array);
        FloatNet {
            hidden1,
            w1,
            b1,
            w2,
            b2,
            w3,
            b3: 0.125,
        }
    }
}
