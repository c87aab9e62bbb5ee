//! The file layout both network formats share, how a file is read, and why
//! one is refused.
//!
//! A network file (little endian): the 8 bytes naming its format, four
//! `u32` dimensions (inputs, first layer H, scalars, second layer), then six
//! `f32` arrays in this order: w1 [inputs × H], b1 [H], w2 [B × (views·H +
//! scalars) × hidden2], b2 [B × hidden2], w3 [B × hidden2], b3 [B], each
//! input-major within a bucket, bucket after bucket. `views` is how many
//! first-layer outputs feed the second layer: one (the side to move's) in
//! `YOLAHNN1`, two (both sides') in `YOLAHNN2` to `YOLAHNN5`. B is the
//! number of output buckets, the sets of later layers of which a position
//! uses one according to its free squares: one in `YOLAHNN1`, `YOLAHNN2`
//! and `YOLAHNN4`, four in `YOLAHNN3` and `YOLAHNN5`. (`YOLAHNN4` and
//! `YOLAHNN5` differ from `YOLAHNN2` and `YOLAHNN3` in what the network
//! computes, not in the layout.) `YOLAHNN6` adds a second small first layer
//! on the position's maps (see `v2`): the second layer's rows grow by its
//! width M after the scalars' (views·H + scalars + M), and two arrays
//! follow the six: wm [`MAP_INPUTS` × M], bm [M]. Only H varies between
//! files of a format, within the format's rule.

use super::{HIDDEN2, INPUTS, MAP_INPUTS, SCALARS};
use yolah::file::{read_limited, FileError};

/// The magic and the four dimensions.
const HEADER_BYTES: usize = 24;

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
    /// The file starts with a format's magic but ends before its header does.
    ShortHeader {
        /// Its length.
        bytes: usize,
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
        lengths: Vec<usize>,
        /// The lengths the width needs.
        expected: Vec<usize>,
    },
    /// A network with a number of output buckets no format has.
    Buckets {
        /// The number.
        buckets: usize,
    },
    /// A maps layer of a width, or with buckets or an activation, that no
    /// format has.
    Maps {
        /// Its width.
        maps: usize,
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
            NetError::ShortHeader { bytes } => write!(
                f,
                "network file has {bytes} bytes, fewer than the {HEADER_BYTES} of a network's header"
            ),
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
            NetError::Buckets { buckets } => write!(
                f,
                "a network with {buckets} output buckets has no file format (1 or 4)"
            ),
            NetError::Maps { maps } => write!(
                f,
                "a network with a maps layer {maps} wide has no file format \
                 (YOLAHNN6: 32 wide, one output bucket, clipped first-layer outputs)"
            ),
            NetError::Weight { value, bound } => write!(
                f,
                "network weight {value} is not a finite number within ±{bound}"
            ),
            NetError::InFile { path, error } => write!(f, "{path}: {error}"),
        }
    }
}

impl std::error::Error for NetError {}

/// The arrays of a file, in order: w1, b1, w2, b2, w3, b3 and the maps
/// layer's wm and bm (empty in formats without one).
pub(crate) const ARRAYS: usize = 8;

/// What tells one network format from another in its file.
pub(crate) struct Layout {
    /// The 8 bytes a file of this format starts with.
    pub name: &'static str,
    /// How many first-layer outputs feed the second layer.
    pub views: usize,
    /// How many sets of the later layers (second and output) the file
    /// holds.
    pub buckets: usize,
    /// Whether a first-layer width is one this format runs.
    pub valid_hidden1: fn(usize) -> bool,
    /// That rule in words, for error messages.
    pub hidden1_rule: fn() -> String,
    /// The width of the layer on the maps (0: none).
    pub maps: usize,
}

impl Layout {
    /// Array lengths in file order for a first layer of width `hidden1`.
    pub const fn sizes(&self, hidden1: usize) -> [usize; ARRAYS] {
        let b = self.buckets;
        [
            INPUTS * hidden1,
            hidden1,
            b * (self.views * hidden1 + SCALARS + self.maps) * HIDDEN2,
            b * HIDDEN2,
            b * HIDDEN2,
            b,
            MAP_INPUTS * self.maps,
            self.maps,
        ]
    }

    /// The size of a file with a first layer of width `hidden1`.
    pub const fn net_bytes(&self, hidden1: usize) -> usize {
        let sizes = self.sizes(hidden1);
        let mut total = HEADER_BYTES;
        let mut i = 0;
        while i < sizes.len() {
            total += 4 * sizes[i];
            i += 1;
        }
        total
    }

    /// Whether `bytes` claim to be a network of this format.
    pub fn is_this_format(&self, bytes: &[u8]) -> bool {
        bytes.starts_with(self.name.as_bytes())
    }

    /// The first layer's width and the arrays of a file of this
    /// format, after checking its header and its length (not the weights:
    /// each format bounds them its own way).
    pub fn parse(&self, bytes: &[u8]) -> Result<(usize, [Vec<f32>; ARRAYS]), NetError> {
        if !self.is_this_format(bytes) {
            return Err(NetError::NotANetwork { magic: self.name });
        }
        if bytes.len() < HEADER_BYTES {
            return Err(NetError::ShortHeader { bytes: bytes.len() });
        }
        let dim = |i: usize| {
            u32::from_le_bytes(bytes[8 + 4 * i..12 + 4 * i].try_into().expect("4 bytes"))
        };
        let dims = [dim(0), dim(1), dim(2), dim(3)];
        let hidden1 = dims[1] as usize;
        let expected = [INPUTS, hidden1, SCALARS, HIDDEN2].map(|d| d as u32);
        if dims != expected || !(self.valid_hidden1)(hidden1) {
            return Err(NetError::Dimensions {
                found: dims,
                widths: (self.hidden1_rule)(),
            });
        }
        let expected_bytes = self.net_bytes(hidden1);
        if bytes.len() != expected_bytes {
            return Err(NetError::Length {
                bytes: bytes.len(),
                expected: expected_bytes,
            });
        }
        let mut at = HEADER_BYTES;
        let arrays = self.sizes(hidden1).map(|n| {
            let array = bytes[at..at + 4 * n]
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect();
            at += 4 * n;
            array
        });
        Ok((hidden1, arrays))
    }

    /// Checks that `hidden1` is a width of this format and that the arrays
    /// (in file order) have the lengths it needs.
    pub fn check_shape(&self, hidden1: usize, arrays: [&[f32]; ARRAYS]) -> Result<(), NetError> {
        if !(self.valid_hidden1)(hidden1) {
            return Err(NetError::Width {
                width: hidden1,
                widths: (self.hidden1_rule)(),
            });
        }
        let lengths = arrays.map(<[f32]>::len);
        let expected = self.sizes(hidden1);
        if lengths != expected {
            return Err(NetError::Arrays {
                width: hidden1,
                lengths: lengths.to_vec(),
                expected: expected.to_vec(),
            });
        }
        Ok(())
    }

    /// The file's bytes for a first layer of width `hidden1` and the
    /// arrays in file order.
    pub fn to_bytes(&self, hidden1: usize, arrays: [&[f32]; ARRAYS]) -> Vec<u8> {
        let mut out = self.name.as_bytes().to_vec();
        for d in [INPUTS, hidden1, SCALARS, HIDDEN2] {
            out.extend((d as u32).to_le_bytes());
        }
        for w in arrays.into_iter().flatten() {
            out.extend(w.to_le_bytes());
        }
        out
    }
}

/// Reads the network file `path` (at most `limit` bytes) and parses it
/// with `parse`; every error names the file.
pub(crate) fn load<T>(
    path: &str,
    limit: u64,
    parse: impl FnOnce(&[u8]) -> Result<T, NetError>,
) -> Result<T, NetError> {
    let bytes = match read_limited(path, limit) {
        Ok(bytes) => bytes,
        Err(FileError::TooLarge { .. }) => {
            return Err(NetError::TooLarge {
                path: path.to_string(),
                limit,
            })
        }
        Err(e) => return Err(NetError::File(e)),
    };
    parse(&bytes).map_err(|error| NetError::InFile {
        path: path.to_string(),
        error: Box::new(error),
    })
}
