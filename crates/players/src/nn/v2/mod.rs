//! The second network format, `YOLAHNN2`: wider, and run in 16- and 8-bit
//! integers; and its variants `YOLAHNN3` to `YOLAHNN6`.
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
//! two views and one bucket.
//!
//! `YOLAHNN3` is the same network with four sets of the later layers (the
//! second layer with its biases, the output weights and bias), its output
//! buckets: a position is evaluated through the set of its phase of the
//! game, by its free squares ([`bucket`]), so that the opening, the middle
//! game and the endgame each weigh the first layer's features their own
//! way. The first layer, and so its incremental updates, is shared.
//!
//! `YOLAHNN4` and `YOLAHNN5` are `YOLAHNN2` and `YOLAHNN3` with the first
//! layer's outputs squared after clipping ([`Activation::Squared`]): the
//! second layer sees `clamp(s, 0, 1)²`, so that an output grows slowly
//! near zero and fast near one, a curve that the second layer could only
//! draw otherwise from several neurons.
//!
//! `YOLAHNN6` is `YOLAHNN2` with a second, small first layer on the
//! position's maps ([`crate::eval::maps`]: the territory each side reaches
//! first and the squares each reaches in one move, from the side to move's
//! point of view): [`MAP_INPUTS`] → [`MAPS`] (clipped), whose outputs join
//! the second layer's inputs after the scalars. The maps change all over
//! the board with a move, so this layer is computed afresh at each
//! evaluation; it is narrow for that reason. The territory and reach that
//! the scalars count are the maps' sums, square by square; the network can
//! weigh each square on its own.
//!
//! Weights are bounded so that the integer network ([`quant`]) can hold
//! them without overflow: the first layer within ±[`MAX_W1`], the second
//! layer's weights on the first layer's outputs (and on the maps layer's)
//! within ±[`MAX_W2`], the maps layer within ±[`MAX_WM`], every other
//! weight within ±[`MAX_WEIGHT`].

pub(crate) mod kernels;
pub mod quant;

use super::file::{self, Layout, NetError};
use super::{HIDDEN2, MAP_INPUTS, SCALARS};
use yolah::Bitboard;

/// The second format's file.
const LAYOUT: Layout = Layout {
    name: "YOLAHNN2",
    views: 2,
    buckets: 1,
    valid_hidden1,
    hidden1_rule,
    maps: 0,
};

/// The second format's variant with output buckets.
const LAYOUT3: Layout = Layout {
    name: "YOLAHNN3",
    buckets: BUCKETS,
    ..LAYOUT
};

/// `YOLAHNN2` with the first layer's outputs squared.
const LAYOUT4: Layout = Layout {
    name: "YOLAHNN4",
    ..LAYOUT
};

/// `YOLAHNN3` with the first layer's outputs squared.
const LAYOUT5: Layout = Layout {
    name: "YOLAHNN5",
    ..LAYOUT3
};

/// `YOLAHNN2` with a layer on the maps.
const LAYOUT6: Layout = Layout {
    name: "YOLAHNN6",
    maps: MAPS,
    ..LAYOUT
};

/// Every file format of this family, with the buckets and the activation
/// of its networks.
const FORMATS: [(&Layout, usize, Activation); 5] = [
    (&LAYOUT, 1, Activation::Clipped),
    (&LAYOUT3, BUCKETS, Activation::Clipped),
    (&LAYOUT4, 1, Activation::Squared),
    (&LAYOUT5, BUCKETS, Activation::Squared),
    (&LAYOUT6, 1, Activation::Clipped),
];

/// The width of a `YOLAHNN6` network's layer on the maps.
pub const MAPS: usize = 32;

/// The output buckets of a `YOLAHNN3` network.
pub const BUCKETS: usize = 4;

/// What the first layer outputs for each of its sums.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Activation {
    /// The sum clipped to [0, 1] (`YOLAHNN2`, `YOLAHNN3`).
    #[default]
    Clipped,
    /// The clipped sum squared (`YOLAHNN4`, `YOLAHNN5`).
    Squared,
}

impl Activation {
    /// The output for a first-layer sum `s`.
    #[inline]
    pub fn apply(self, s: f32) -> f32 {
        let c = s.clamp(0.0, 1.0);
        match self {
            Activation::Clipped => c,
            Activation::Squared => c * c,
        }
    }

    /// The derivative of [`Activation::apply`] at `s`: 0 where the sum is
    /// clipped.
    #[inline]
    pub fn slope(self, s: f32) -> f32 {
        match (s > 0.0 && s < 1.0, self) {
            (false, _) => 0.0,
            (true, Activation::Clipped) => 1.0,
            (true, Activation::Squared) => 2.0 * s,
        }
    }

    /// Its name, as `yolah train --activation` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Activation::Clipped => "clipped",
            Activation::Squared => "squared",
        }
    }
}

impl std::str::FromStr for Activation {
    type Err = String;
    fn from_str(s: &str) -> Result<Activation, String> {
        match s {
            "clipped" => Ok(Activation::Clipped),
            "squared" => Ok(Activation::Squared),
            _ => Err(format!("{s:?} is not clipped or squared")),
        }
    }
}

/// The output bucket, of `buckets`, of a position with `free` free squares:
/// equal spans of the 56 free squares of the start (0 to 14 free, 15 to
/// 28, 29 to 42, 43 to 56 for four). Always 0 for one bucket.
pub const fn bucket(free: u32, buckets: usize) -> usize {
    let b = free as usize * buckets / 57;
    if b < buckets {
        b
    } else {
        buckets - 1
    }
}

/// The file layout of a network with `buckets` output buckets (1 or
/// [`BUCKETS`]), `activation` and a maps layer `maps` wide (0: none;
/// [`FloatNet::check`] refuses the combinations no format has).
const fn layout(buckets: usize, activation: Activation, maps: usize) -> &'static Layout {
    if maps > 0 {
        return &LAYOUT6;
    }
    match (buckets == 1, activation) {
        (true, Activation::Clipped) => &LAYOUT,
        (false, Activation::Clipped) => &LAYOUT3,
        (true, Activation::Squared) => &LAYOUT4,
        (false, Activation::Squared) => &LAYOUT5,
    }
}

/// Whether a network may have `buckets` output buckets.
pub fn valid_buckets(buckets: usize) -> bool {
    buckets == 1 || buckets == BUCKETS
}

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

/// The largest weight or bias of the maps layer: all four maps full (at
/// most 3 × 56 squares) and the bias, each at most this at the integer
/// scale of 127, stay within an `i16`.
pub const MAX_WM: f32 = 1.5;
const _: () = assert!((3 * 56 + 1) as f32 * MAX_WM * 127.0 <= i16::MAX as f32);

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
    /// Output buckets: 1 (`YOLAHNN2`, `YOLAHNN4`) or [`BUCKETS`]
    /// (`YOLAHNN3`, `YOLAHNN5`).
    pub buckets: usize,
    /// What the first layer outputs.
    pub activation: Activation,
    /// The maps layer's width: 0 (none) or [`MAPS`] (`YOLAHNN6`).
    pub maps: usize,
    /// First layer, input-major: `w1[i * H + j]`.
    pub w1: Vec<f32>,
    /// First layer biases.
    pub b1: Vec<f32>,
    /// Second layer, bucket after bucket, each input-major over the `2H +
    /// SCALARS + maps` inputs: the side to move's H outputs, the opponent's
    /// H, the scalars, the maps layer's outputs.
    pub w2: Vec<f32>,
    /// Second layer biases, [`HIDDEN2`] a bucket.
    pub b2: Vec<f32>,
    /// Output weights, [`HIDDEN2`] a bucket.
    pub w3: Vec<f32>,
    /// Output bias, one a bucket.
    pub b3: Vec<f32>,
    /// The maps layer, input-major: `wm[i * maps + j]` (empty without one).
    pub wm: Vec<f32>,
    /// The maps layer's biases.
    pub bm: Vec<f32>,
}

/// Array lengths in file order for a first layer of width `hidden1`,
/// `buckets` output buckets (1 or [`BUCKETS`]) and a maps layer `maps` wide
/// (0 or [`MAPS`]).
pub const fn sizes(hidden1: usize, buckets: usize, maps: usize) -> [usize; file::ARRAYS] {
    layout(buckets, Activation::Clipped, maps).sizes(hidden1)
}

/// The size of a network file with a first layer of width `hidden1` and
/// `buckets` output buckets.
pub const fn net_bytes(hidden1: usize, buckets: usize) -> usize {
    layout(buckets, Activation::Clipped, 0).net_bytes(hidden1)
}

/// The size of the largest network file of these formats.
pub const MAX_NET_BYTES: u64 = {
    let (buckets, maps) = (
        net_bytes(MAX_HIDDEN1, BUCKETS),
        LAYOUT6.net_bytes(MAX_HIDDEN1),
    );
    if buckets > maps {
        buckets as u64
    } else {
        maps as u64
    }
};

/// Whether `bytes` claim to be a network of one of these formats.
pub fn is_this_format(bytes: &[u8]) -> bool {
    FORMATS.iter().any(|(l, _, _)| l.is_this_format(bytes))
}

impl FloatNet {
    /// Parses the formats `YOLAHNN2` to `YOLAHNN6`.
    pub fn from_bytes(bytes: &[u8]) -> Result<FloatNet, NetError> {
        let (format, buckets, activation) = FORMATS
            .into_iter()
            .find(|(l, _, _)| l.is_this_format(bytes))
            .ok_or(NetError::NotANetwork {
                magic: if bytes.starts_with(b"YOLAHNN1") {
                    "YOLAHNN2 to YOLAHNN6, not the first format's YOLAHNN1"
                } else {
                    "YOLAHNN2 to YOLAHNN6"
                },
            })?;
        let (hidden1, [w1, b1, w2, b2, w3, b3, wm, bm]) = format.parse(bytes)?;
        let net = FloatNet {
            hidden1,
            buckets,
            activation,
            maps: format.maps,
            wm,
            bm,
            w1,
            b1,
            w2,
            b2,
            w3,
            b3,
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
        if !valid_buckets(self.buckets) {
            return Err(NetError::Buckets {
                buckets: self.buckets,
            });
        }
        let format = layout(self.buckets, self.activation, self.maps);
        if self.maps != format.maps
            || (self.maps > 0 && (self.buckets, self.activation) != (1, Activation::Clipped))
        {
            return Err(NetError::Maps { maps: self.maps });
        }
        format.check_shape(self.hidden1, self.arrays())?;
        for (array, bound) in self.bounded() {
            if let Some(&value) = array.iter().find(|w| !w.is_finite() || w.abs() > bound) {
                return Err(NetError::Weight { value, bound });
            }
        }
        Ok(())
    }

    /// Every array with the bound on its weights, the second layer of each
    /// bucket in three parts: on the first layer's outputs ([`MAX_W2`]), on
    /// the scalars, on the maps layer's outputs ([`MAX_W2`]).
    pub fn bounded(&self) -> Vec<(&[f32], f32)> {
        let mut bounded = vec![(&self.w1[..], MAX_W1), (&self.b1[..], MAX_W1)];
        for w2 in self.w2.chunks_exact(self.rows() * HIDDEN2) {
            let (on_outputs, rest) = w2.split_at(2 * self.hidden1 * HIDDEN2);
            let (on_scalars, on_maps) = rest.split_at(SCALARS * HIDDEN2);
            bounded.extend([
                (on_outputs, MAX_W2),
                (on_scalars, MAX_WEIGHT),
                (on_maps, MAX_W2),
            ]);
        }
        bounded.extend([
            (&self.b2[..], MAX_WEIGHT),
            (&self.w3[..], MAX_WEIGHT),
            (&self.b3[..], MAX_WEIGHT),
            (&self.wm[..], MAX_WM),
            (&self.bm[..], MAX_WM),
        ]);
        bounded
    }

    /// The second layer's inputs: both views' first-layer outputs, the
    /// scalars and the maps layer's outputs.
    pub fn rows(&self) -> usize {
        2 * self.hidden1 + SCALARS + self.maps
    }

    /// The weight arrays in file order.
    fn arrays(&self) -> [&[f32]; file::ARRAYS] {
        [
            &self.w1, &self.b1, &self.w2, &self.b2, &self.w3, &self.b3, &self.wm, &self.bm,
        ]
    }

    /// The file's bytes: `YOLAHNN2` for one bucket, `YOLAHNN3` for more;
    /// `YOLAHNN4` and `YOLAHNN5` for the same squared; `YOLAHNN6` with a
    /// maps layer.
    pub fn to_bytes(&self) -> Vec<u8> {
        layout(self.buckets, self.activation, self.maps).to_bytes(self.hidden1, self.arrays())
    }

    /// The maps layer's outputs for `maps` (empty without one).
    pub fn maps_layer(&self, maps: &[Bitboard; 4]) -> Vec<f32> {
        let width = self.maps;
        let mut m = self.bm.clone();
        for (k, map) in maps.iter().enumerate() {
            for sq in *map {
                let i = 64 * k + sq.index();
                for (m, w) in m.iter_mut().zip(&self.wm[i * width..(i + 1) * width]) {
                    *m += w;
                }
            }
        }
        m.iter().map(|s| s.clamp(0.0, 1.0)).collect()
    }

    /// The output bucket of a position with `free` free squares
    /// ([`bucket`]).
    pub fn bucket(&self, free: u32) -> usize {
        bucket(free, self.buckets)
    }

    /// The first layer's output for the active inputs `active`.
    pub fn first_layer(&self, active: &[usize]) -> Vec<f32> {
        let width = self.hidden1;
        let mut h1 = self.b1.clone();
        for &i in active {
            for (h, w) in h1.iter_mut().zip(&self.w1[i * width..(i + 1) * width]) {
                *h += w;
            }
        }
        h1.iter().map(|&s| self.activation.apply(s)).collect()
    }

    /// The logit for the side to move whose active inputs are `ours` (and
    /// the opponent's `theirs`), with its `maps` ([`crate::eval::maps`];
    /// used only by a network with a maps layer), through the later layers
    /// of output bucket `bucket`, in floating point: the reference the
    /// integer network is checked against.
    pub fn forward(
        &self,
        ours: &[usize],
        theirs: &[usize],
        scalars: &[f32; SCALARS],
        maps: &[Bitboard; 4],
        bucket: usize,
    ) -> f32 {
        let input: Vec<f32> = self
            .first_layer(ours)
            .into_iter()
            .chain(self.first_layer(theirs))
            .chain(scalars.iter().copied())
            .chain(self.maps_layer(maps))
            .collect();
        let w2 = &self.w2[bucket * input.len() * HIDDEN2..];
        let later = bucket * HIDDEN2..(bucket + 1) * HIDDEN2;
        let mut h2 = self.b2[later.clone()].to_vec();
        for (i, x) in input.iter().enumerate() {
            for (h, w) in h2.iter_mut().zip(&w2[i * HIDDEN2..(i + 1) * HIDDEN2]) {
                *h += x * w;
            }
        }
        h2.iter()
            .zip(&self.w3[later])
            .map(|(h, w)| h.clamp(0.0, 1.0) * w)
            .sum::<f32>()
            + self.b3[bucket]
    }

    /// A network of width `hidden1` with random weights within their
    /// bounds (up to ±½), for tests.
    pub fn random(hidden1: usize, seed: u64) -> FloatNet {
        FloatNet::random_with_buckets(hidden1, 1, seed)
    }

    /// [`FloatNet::random`] with a maps layer (`YOLAHNN6`).
    pub fn random_with_maps(hidden1: usize, seed: u64) -> FloatNet {
        let mut net = FloatNet::random(hidden1, seed);
        let mut rng = yolah::Rng::new(seed ^ 0x6d61_7073);
        let mut array = |n: usize, scale: f32| -> Vec<f32> {
            (0..n)
                .map(|_| (rng.below(1001) as f32 - 500.0) / 1000.0 * scale)
                .collect()
        };
        net.maps = MAPS;
        net.w2.extend(array(MAPS * HIDDEN2, 1.0));
        net.wm = array(MAP_INPUTS * MAPS, 0.3);
        net.bm = array(MAPS, 1.0);
        net
    }

    /// [`FloatNet::random`] with `buckets` output buckets.
    pub fn random_with_buckets(hidden1: usize, buckets: usize, seed: u64) -> FloatNet {
        let mut rng = yolah::Rng::new(seed);
        let mut array = |n: usize, scale: f32| -> Vec<f32> {
            (0..n)
                .map(|_| (rng.below(1001) as f32 - 500.0) / 1000.0 * scale)
                .collect()
        };
        let [n1, nb1, n2, nb2, n3, nb3, ..] = sizes(hidden1, buckets, 0);
        FloatNet {
            hidden1,
            buckets,
            activation: Activation::Clipped,
            maps: 0,
            wm: Vec::new(),
            bm: Vec::new(),
            w1: array(n1, 1.0),
            b1: array(nb1, 1.0),
            // Many first-layer outputs: smaller weights keep the second
            // layer's sums in its range, where clipping does not hide them.
            w2: array(n2, 8.0 / (hidden1 as f32).sqrt()),
            b2: array(nb2, 1.0),
            w3: array(n3, 1.0),
            b3: vec![0.125; nb3],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NO_MAPS: [Bitboard; 4] = [Bitboard::EMPTY; 4];

    #[test]
    fn every_width_round_trips_and_others_are_refused() {
        for width in WIDTHS {
            for (buckets, activation, name) in [
                (1, Activation::Clipped, b"YOLAHNN2"),
                (BUCKETS, Activation::Clipped, b"YOLAHNN3"),
                (1, Activation::Squared, b"YOLAHNN4"),
                (BUCKETS, Activation::Squared, b"YOLAHNN5"),
            ] {
                let net = FloatNet {
                    activation,
                    ..FloatNet::random_with_buckets(width, buckets, 3)
                };
                let bytes = net.to_bytes();
                assert_eq!(bytes.len(), net_bytes(width, buckets));
                assert!(bytes.starts_with(name));
                assert!(is_this_format(&bytes));
                assert_eq!(FloatNet::from_bytes(&bytes).unwrap(), net);
            }
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
        // A file of one format with the other's length.
        let mut renamed = FloatNet::random(128, 3).to_bytes();
        renamed[..8].copy_from_slice(b"YOLAHNN3");
        assert!(e(&renamed).contains("bytes"), "{}", e(&renamed));
        let mut three = FloatNet::random_with_buckets(128, BUCKETS, 3);
        three.buckets = 3;
        assert!(three
            .check()
            .unwrap_err()
            .to_string()
            .contains("3 output buckets"));
    }

    #[test]
    fn a_maps_layer_round_trips_and_only_yolahnn6_has_one() {
        let net = FloatNet::random_with_maps(256, 3);
        let bytes = net.to_bytes();
        assert!(bytes.starts_with(b"YOLAHNN6"));
        assert!(bytes.len() as u64 <= MAX_NET_BYTES);
        assert_eq!(FloatNet::from_bytes(&bytes).unwrap(), net);
        let e = |net: FloatNet| net.check().unwrap_err().to_string();
        let narrow = FloatNet {
            maps: 16,
            ..net.clone()
        };
        assert!(e(narrow).contains("maps layer 16 wide"));
        let bucketed = FloatNet {
            buckets: BUCKETS,
            ..net.clone()
        };
        assert!(e(bucketed).contains("YOLAHNN6: 32 wide, one output bucket"));
        let mut short = net;
        short.wm.pop();
        assert!(e(short).contains("lengths"));
    }

    #[test]
    fn squared_outputs_are_the_clipped_ones_squared() {
        for (s, clipped, squared) in [(-0.5, 0.0, 0.0), (0.5, 0.5, 0.25), (1.5, 1.0, 1.0)] {
            assert_eq!(Activation::Clipped.apply(s), clipped);
            assert_eq!(Activation::Squared.apply(s), squared);
        }
        assert_eq!(Activation::Squared.slope(0.25), 0.5);
        assert_eq!(Activation::Clipped.slope(0.25), 1.0);
        assert_eq!(Activation::Squared.slope(1.5), 0.0);
        let plain = FloatNet::random(128, 5);
        let squared = FloatNet {
            activation: Activation::Squared,
            ..plain.clone()
        };
        let active = super::super::active_features(&yolah::Position::START, yolah::Color::Black);
        let (a, b) = (plain.first_layer(&active), squared.first_layer(&active));
        assert!(a.iter().zip(&b).all(|(a, b)| *b == a * a));
        assert!(a.iter().any(|&x| x > 0.0 && x < 1.0));
        assert_eq!("squared".parse(), Ok(Activation::Squared));
        assert_eq!(Activation::Clipped.name().parse(), Ok(Activation::Clipped));
        assert!("relu"
            .parse::<Activation>()
            .unwrap_err()
            .contains("clipped or squared"));
    }

    #[test]
    fn buckets_split_the_free_squares_evenly() {
        let spans: Vec<usize> = (0..=56).map(|free| bucket(free, BUCKETS)).collect();
        for b in 0..BUCKETS {
            let n = spans.iter().filter(|&&x| x == b).count();
            assert!((14..=15).contains(&n), "bucket {b}: {n} free counts");
        }
        assert!(spans.windows(2).all(|w| w[0] <= w[1]));
        assert!((0..=64).all(|free| bucket(free, 1) == 0));
        assert_eq!(bucket(64, BUCKETS), BUCKETS - 1);
    }

    #[test]
    fn each_bucket_has_its_own_later_layers() {
        let net = FloatNet::random_with_buckets(128, BUCKETS, 8);
        let pos = yolah::Position::START;
        let side = pos.side_to_move();
        let ours = super::super::active_features(&pos, side);
        let theirs = super::super::active_features(&pos, side.opponent());
        let s = [0.5; SCALARS];
        let logits: Vec<f32> = (0..BUCKETS)
            .map(|b| net.forward(&ours, &theirs, &s, &NO_MAPS, b))
            .collect();
        for b in 1..BUCKETS {
            assert_ne!(logits[b], logits[0]);
        }
        // A bucketed network whose buckets are copies of a plain one's
        // later layers computes the plain one in every bucket.
        let plain = FloatNet::random(128, 9);
        let mut copies = plain.clone();
        copies.buckets = BUCKETS;
        for array in [
            &mut copies.w2,
            &mut copies.b2,
            &mut copies.w3,
            &mut copies.b3,
        ] {
            *array = array.repeat(BUCKETS);
        }
        assert!(copies.check().is_ok());
        for b in 0..BUCKETS {
            assert_eq!(
                copies.forward(&ours, &theirs, &s, &NO_MAPS, b),
                plain.forward(&ours, &theirs, &s, &NO_MAPS, 0)
            );
        }
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
