//! The network as trained: `f32` weights, the `net.bin` file format, and a
//! plain floating-point forward pass that the integer network is checked
//! against.
//!
//! The file (little endian): the 8 bytes `YOLAHNN1`, four `u32` dimensions
//! (inputs, first hidden layer, scalars, second hidden layer), then `f32`
//! arrays: w1 [inputs × hidden1], b1 [hidden1], w2 [(hidden1 + scalars) ×
//! hidden2], b2 [hidden2], w3 [hidden2], b3 [1], each input-major. All
//! dimensions but the first hidden layer's width are fixed; that one is
//! any [`valid_hidden1`] width.

use super::{hidden1_rule, valid_hidden1, HIDDEN2, INPUTS, MAX_HIDDEN1, SCALARS};
use yolah::file::{read_limited, FileError};

const MAGIC: &[u8; 8] = b"YOLAHNN1";
const HEADER_BYTES: usize = 24;

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

/// Why a network cannot be used: each kind with what was found.
#[derive(Debug)]
#[non_exhaustive]
pub enum NetError {
    /// The file cannot be read.
    File(FileError),
    /// The file is larger than this build's widest network.
    TooLarge {
        /// The file.
        path: String,
        /// The most bytes a network of this build has.
        limit: u64,
    },
    /// The bytes do not start with the format's magic.
    NotANetwork {
        /// The magic the format starts with.
        magic: &'static str,
    },
    /// The header's dimensions are not those of a network this build runs.
    Dimensions {
        /// Inputs, first layer, scalars, second layer, as read.
        found: [u32; 4],
        /// The first-layer widths the file's format allows, in words.
        widths: String,
    },
    /// The file's length is not the one its dimensions give.
    Length {
        /// Its length.
        bytes: usize,
        /// The length of a network of its dimensions.
        expected: usize,
    },
    /// The first layer's width is not one this build runs.
    Width {
        /// The width.
        width: usize,
        /// The widths the network's format allows, in words.
        widths: String,
    },
    /// The arrays' lengths are not those of the width.
    Arrays {
        /// The first layer's width.
        width: usize,
        /// The lengths, in file order.
        lengths: [usize; 6],
        /// The lengths the width needs.
        expected: [usize; 6],
    },
    /// A weight is not a finite number within ±`bound`.
    Weight {
        /// The weight.
        value: f32,
        /// The largest magnitude allowed.
        bound: f32,
    },
    /// What is wrong with the network of the file `path`.
    InFile {
        /// The file.
        path: String,
        /// What is wrong.
        error: Box<NetError>,
    },
}

impl std::fmt::Display for NetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NetError::File(e) => write!(f, "{e}"),
            NetError::TooLarge { path, limit } => write!(
                f,
                "{path}: network file has more than the {limit} bytes of this build's widest network"
            ),
            NetError::NotANetwork { magic } => {
                write!(f, "not a yolah network (it must start with {magic})")
            }
            NetError::Dimensions { found, widths } => write!(
                f,
                "network dimensions {found:?}, this build needs [{INPUTS}, H, {SCALARS}, {HIDDEN2}] \
                 with H {widths}"
            ),
            NetError::Length { bytes, expected } => {
                write!(f, "network file has {bytes} bytes, expected {expected}")
            }
            NetError::Width { width, widths } => {
                write!(f, "first layer width {width} is not {widths}")
            }
            NetError::Arrays {
                width,
                lengths,
                expected,
            } => write!(
                f,
                "network arrays of lengths {lengths:?}, width {width} needs {expected:?}"
            ),
            NetError::Weight { value, bound } => write!(
                f,
                "network weight {value} is not a finite number within ±{bound}"
            ),
            NetError::InFile { path, error } => write!(f, "{path}: {error}"),
        }
    }
}

impl std::error::Error for NetError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            NetError::File(e) => Some(e),
            NetError::InFile { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// Array lengths in file order for a first layer of width `hidden1`.
const fn sizes(hidden1: usize) -> [usize; 6] {
    [
        INPUTS * hidden1,
        hidden1,
        (hidden1 + SCALARS) * HIDDEN2,
        HIDDEN2,
        HIDDEN2,
        1,
    ]
}

/// The size of a network file with a first layer of width `hidden1`.
pub const fn net_bytes(hidden1: usize) -> usize {
    let sizes = sizes(hidden1);
    let mut total = HEADER_BYTES;
    let mut i = 0;
    while i < sizes.len() {
        total += 4 * sizes[i];
        i += 1;
    }
    total
}

/// The size of the largest network file this build reads (the widest first
/// layer), which is also the most [`FloatNet::load`] reads.
pub const MAX_NET_BYTES: u64 = net_bytes(MAX_HIDDEN1) as u64;

impl FloatNet {
    /// Parses the `net.bin` format.
    pub fn from_bytes(bytes: &[u8]) -> Result<FloatNet, NetError> {
        if bytes.len() < HEADER_BYTES || &bytes[..8] != MAGIC {
            return Err(NetError::NotANetwork { magic: "YOLAHNN1" });
        }
        let dim = |i: usize| {
            u32::from_le_bytes(bytes[8 + 4 * i..12 + 4 * i].try_into().expect("4 bytes"))
        };
        let dims = [dim(0), dim(1), dim(2), dim(3)];
        let hidden1 = dims[1] as usize;
        let expected = [INPUTS, hidden1, SCALARS, HIDDEN2].map(|d| d as u32);
        if dims != expected || !valid_hidden1(hidden1) {
            return Err(NetError::Dimensions {
                found: dims,
                widths: hidden1_rule(),
            });
        }
        let expected_bytes = net_bytes(hidden1);
        if bytes.len() != expected_bytes {
            return Err(NetError::Length {
                bytes: bytes.len(),
                expected: expected_bytes,
            });
        }
        let all: Vec<f32> = bytes[HEADER_BYTES..]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        let mut parts = sizes(hidden1).into_iter().scan(0, |at, n| {
            *at += n;
            Some(all[*at - n..*at].to_vec())
        });
        let mut next = || parts.next().expect("six arrays");
        let net = FloatNet {
            hidden1,
            w1: next(),
            b1: next(),
            w2: next(),
            b2: next(),
            w3: next(),
            b3: next()[0],
        };
        net.check()?;
        Ok(net)
    }

    /// Checks that the width is one this build runs, that every array has
    /// its length, and that every weight is a finite number within
    /// ±[`MAX_WEIGHT`], as the integer network needs.
    pub fn check(&self) -> Result<(), NetError> {
        if !valid_hidden1(self.hidden1) {
            return Err(NetError::Width {
                width: self.hidden1,
                widths: hidden1_rule(),
            });
        }
        let lengths = self.arrays().map(<[f32]>::len);
        if lengths != sizes(self.hidden1) {
            return Err(NetError::Arrays {
                width: self.hidden1,
                lengths,
                expected: sizes(self.hidden1),
            });
        }
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

    /// Reads a network file.
    pub fn load(path: &str) -> Result<FloatNet, NetError> {
        let bytes = match read_limited(path, MAX_NET_BYTES) {
            Ok(bytes) => bytes,
            Err(FileError::TooLarge { .. }) => {
                return Err(NetError::TooLarge {
                    path: path.to_string(),
                    limit: MAX_NET_BYTES,
                })
            }
            Err(e) => return Err(NetError::File(e)),
        };
        FloatNet::from_bytes(&bytes).map_err(|error| NetError::InFile {
            path: path.to_string(),
            error: Box::new(error),
        })
    }

    /// The `net.bin` bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        for d in [INPUTS, self.hidden1, SCALARS, HIDDEN2] {
            out.extend((d as u32).to_le_bytes());
        }
        for w in self.arrays().into_iter().flatten() {
            out.extend(w.to_le_bytes());
        }
        out
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
        let [w1, b1, w2, b2, w3, _] = sizes(hidden1).map(&mut array);
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
