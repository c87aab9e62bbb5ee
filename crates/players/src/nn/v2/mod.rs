//! The second network format, `YOLAHNN2`: wider, and run in 16- and 8-bit
//! integers.
//!
//! Inputs are the same as the first format's (192 piece-square features
//! and 6 heuristic scalars, see [`super`]), but the first layer is computed
//! from both points of view: the side to move's features and the
//! opponent's (the same board with "ours" and "theirs" swapped), through
//! the same weights. Both clipped results, side to move first, and the
//! scalars feed the second layer: 2H + 6 → 16 (clipped ReLU) → 1, the logit
//! of the side to move's expected result. H is a property of the file, one
//! of [`WIDTHS`].
//!
//! The file is laid out as `nn/file.rs` says, named `YOLAHNN2`, with
//! two views.
//!
//! Weights are bounded so that the integer network ([`quant`]) can hold
//! them without overflow: the first layer within ±[`MAX_W1`], the second
//! layer's weights on the first layer's outputs within ±[`MAX_W2`], every
//! other weight within ±[`MAX_WEIGHT`].

pub(crate) mod kernels;
pub mod quant;

use super::file::{self, Layout, NetError};
use super::{HIDDEN2, SCALARS};

/// The second format's file.
const LAYOUT: Layout = Layout {
    name: "YOLAHNN2",
    views: 2,
    valid_hidden1,
    hidden1_rule,
};

/// The first-layer widths this build runs (each is compiled separately).
pub const WIDTHS: [usize; 4] = [128, 256, 512, 1024];

/// The widest first layer of a `YOLAHNN2` network (`nn::MAX_HIDDEN1` is the
/// first format's, 128).
pub const MAX_HIDDEN1: usize = 1024;

/// The largest first-layer weight or bias: 64 active inputs and the bias,
/// each at most this at the integer scale of 127, stay within an `i16`.
pub const MAX_W1: f32 = 3.9;

/// The largest second-layer weight on a first-layer output: 127 at the
/// integer scale of 64 (an `i8`).
pub const MAX_W2: f32 = 127.0 / 64.0;

/// The largest of any other weight.
pub const MAX_WEIGHT: f32 = 32.0;

/// The rule for first-layer widths, as error messages state it.
pub fn hidden1_rule() -> String {
    let widths: Vec<String> = WIDTHS.iter().map(|w| w.to_string()).collect();
    format!("one of {}", widths.join(", "))
}

/// Whether `width` is a first-layer width this build runs.
pub fn valid_hidden1(width: usize) -> bool {
    WIDTHS.contains(&width)
}

/// The float network of the second format.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNet {
    /// The first layer's width (H).
    pub hidden1: usize,
    /// First layer, input-major: `w1[i * H + j]`.
    pub w1: Vec<f32>,
    /// First layer biases.
    pub b1: Vec<f32>,
    /// Second layer, input-major over the `2H + SCALARS` inputs: the side
    /// to move's H outputs, the opponent's H, the scalars.
    pub w2: Vec<f32>,
    /// Second layer biases.
    pub b2: Vec<f32>,
    /// Output weights.
    pub w3: Vec<f32>,
    /// Output bias.
    pub b3: f32,
}

/// Array lengths in file order for a first layer of width `hidden1`.
pub const fn sizes(hidden1: usize) -> [usize; 6] {
    LAYOUT.sizes(hidden1)
}

/// The size of a network file with a first layer of width `hidden1`.
pub const fn net_bytes(hidden1: usize) -> usize {
    LAYOUT.net_bytes(hidden1)
}

/// The size of the largest network file of this format.
pub const MAX_NET_BYTES: u64 = net_bytes(MAX_HIDDEN1) as u64;

/// Whether `bytes` claim to be a network of this format.
pub fn is_this_format(bytes: &[u8]) -> bool {
    LAYOUT.is_this_format(bytes)
}

impl FloatNet {
    /// Parses the `YOLAHNN2` format.
    pub fn from_bytes(bytes: &[u8]) -> Result<FloatNet, NetError> {
        let (hidden1, [w1, b1, w2, b2, w3, b3]) = LAYOUT.parse(bytes)?;
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

    /// Reads a network file of this format.
    pub fn load(path: &str) -> Result<FloatNet, NetError> {
        file::load(path, MAX_NET_BYTES, FloatNet::from_bytes)
    }

    /// Checks that the width is one this build runs, that every array has
    /// its length, and that every weight is a finite number within its
    /// bound ([`MAX_W1`], [`MAX_W2`], [`MAX_WEIGHT`]).
    pub fn check(&self) -> Result<(), NetError> {
        LAYOUT.check_shape(self.hidden1, self.arrays())?;
        for (_, array, bound) in self.bounded() {
            if let Some(&value) = array.iter().find(|w| !w.is_finite() || w.abs() > bound) {
                return Err(NetError::Weight { value, bound });
            }
        }
        Ok(())
    }

    /// Every array with its name and the bound on its weights (the second
    /// layer in two parts: on the first layer's outputs, on the scalars).
    pub fn bounded(&self) -> [(&'static str, &[f32], f32); 7] {
        let (w2_h, w2_s) = self.w2.split_at(2 * self.hidden1 * HIDDEN2);
        [
            ("w1", &self.w1, MAX_W1),
            ("b1", &self.b1, MAX_W1),
            ("w2", w2_h, MAX_W2),
            ("w2 (scalars)", w2_s, MAX_WEIGHT),
            ("b2", &self.b2, MAX_WEIGHT),
            ("w3", &self.w3, MAX_WEIGHT),
            ("b3", std::slice::from_ref(&self.b3), MAX_WEIGHT),
        ]
    }

    /// The weight arrays in file order.
    fn arrays(&self) -> [&[f32]; 6] {
        [
            &self.w1,
            &self.b1,
            &self.w2,
            &self.b2,
            &self.w3,
            std::slice::from_ref(&self.b3),
        ]
    }

    /// The `YOLAHNN2` bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        LAYOUT.to_bytes(self.hidden1, self.arrays())
    }

    /// The first layer's clipped output for the active inputs `active`.
    pub fn first_layer(&self, active: &[usize]) -> Vec<f32> {
        let width = self.hidden1;
        let mut h1 = self.b1.clone();
        for &i in active {
            for (h, w) in h1.iter_mut().zip(&self.w1[i * width..(i + 1) * width]) {
                *h += w;
            }
        }
        h1.iter().map(|x| x.clamp(0.0, 1.0)).collect()
    }

    /// The logit for the side to move whose active inputs are `ours` (and
    /// the opponent's `theirs`), in floating point: the reference the
    /// integer network is checked against.
    pub fn forward(&self, ours: &[usize], theirs: &[usize], scalars: &[f32; SCALARS]) -> f32 {
        let input: Vec<f32> = self
            .first_layer(ours)
            .into_iter()
            .chain(self.first_layer(theirs))
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

    /// A network of width `hidden1` with random weights within their
    /// bounds (up to ±½), for tests.
    pub fn random(hidden1: usize, seed: u64) -> FloatNet {
        let mut rng = yolah::Rng::new(seed);
        let mut array = |n: usize, scale: f32| -> Vec<f32> {
            (0..n)
                .map(|_| (rng.below(1001) as f32 - 500.0) / 1000.0 * scale)
                .collect()
        };
        let [n1, nb1, n2, nb2, n3, _] = sizes(hidden1);
        FloatNet {
            hidden1,
            w1: array(n1, 1.0),
            b1: array(nb1, 1.0),
            // Many first-layer outputs: smaller weights keep the second
            // layer's sums in its range, where clipping does not hide them.
            w2: array(n2, 8.0 / (hidden1 as f32).sqrt()),
            b2: array(nb2, 1.0),
            w3: array(n3, 1.0),
            b3: 0.125,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_width_round_trips_and_others_are_refused() {
        for width in WIDTHS {
            let net = FloatNet::random(width, 3);
            let bytes = net.to_bytes();
            assert_eq!(bytes.len(), net_bytes(width));
            assert_eq!(FloatNet::from_bytes(&bytes).unwrap(), net);
        }
        let e = |b: &[u8]| FloatNet::from_bytes(b).unwrap_err().to_string();
        let mut odd = FloatNet::random(128, 3).to_bytes();
        odd[12..16].copy_from_slice(&96u32.to_le_bytes());
        assert!(
            e(&odd).contains("one of 128, 256, 512, 1024"),
            "{}",
            e(&odd)
        );
        assert!(e(b"YOLAHNN1").contains("YOLAHNN2"));
        assert!(e(b"hello").contains("YOLAHNN2"));
        let good = FloatNet::random(128, 3).to_bytes();
        assert!(e(&good[..good.len() - 4]).contains("bytes"));
        let mut short = FloatNet::random(128, 3);
        short.w2.pop();
        assert!(short.check().unwrap_err().to_string().contains("lengths"));
    }

    #[test]
    fn weights_out_of_their_bounds_are_refused() {
        let net = FloatNet::random(128, 4);
        let e = |net: &FloatNet| net.check().unwrap_err().to_string();
        let mut big_w1 = net.clone();
        big_w1.w1[5] = 4.0;
        assert!(
            e(&big_w1).contains("4 is not a finite number within ±3.9"),
            "{}",
            e(&big_w1)
        );
        let mut big_w2 = net.clone();
        big_w2.w2[7] = 2.0;
        assert!(e(&big_w2).contains("±1.984375"), "{}", e(&big_w2));
        // The scalars' weights may be larger.
        let mut scalar = net.clone();
        let last = scalar.w2.len() - 1;
        scalar.w2[last] = 20.0;
        assert!(scalar.check().is_ok());
        scalar.w2[last] = f32::NAN;
        assert!(
            e(&scalar).contains("NaN is not a finite number within ±32"),
            "{}",
            e(&scalar)
        );
        let mut bytes = net.to_bytes();
        bytes[24..28].copy_from_slice(&f32::INFINITY.to_le_bytes());
        let e = FloatNet::from_bytes(&bytes).unwrap_err().to_string();
        assert!(e.contains("finite"), "{e}");
    }
}
