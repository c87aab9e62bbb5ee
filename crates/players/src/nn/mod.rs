//! A small neural-network evaluation, NNUE style.
//!
//! Inputs, from the point of view of the side to move: 192 binary
//! piece-square features (our pieces, their pieces, holes: 64 each) and 6
//! scalars from the heuristic's features (score, mobility, territory,
//! frozen-piece and one-move reach differences, and the free squares left,
//! scaled). The scalars are what a linear first layer cannot compute from
//! piece squares; adding reach and free squares to the first four was worth
//! about 28 Elo at equal depth.
//!
//! Two file formats, one evaluation each:
//!
//! * `YOLAHNN1` (gen0 to gen2): 192 → H (clipped ReLU; the accumulator),
//!   then with the scalars H + 6 → 16 (clipped ReLU) → 1, the logit of the
//!   side to move's expected result; H a multiple of 16 up to
//!   [`MAX_HIDDEN1`] (128).
//! * `YOLAHNN2` ([`v2`]; gen3 and gen4): the same first layer from both
//!   points of view, 2 × H + 6 → 16 → 1, H one of [`v2::WIDTHS`] (up to
//!   [`v2::MAX_HIDDEN1`], 1024); and its variants with output buckets
//!   (`YOLAHNN3`), squared first-layer outputs (`YOLAHNN4`), both
//!   (`YOLAHNN5`), or a second, narrow first layer on the position's maps
//!   of territory and reach (`YOLAHNN6`: the shipped net, 256 wide).
//!
//! [`INPUTS`], [`SCALARS`] and [`HIDDEN2`] are both formats'; the other
//! constants here are the first format's.
//!
//! * `file`: the file layout both formats share, and [`NetError`];
//! * [`float`]: the network as trained, its file format and a reference
//!   forward pass;
//! * [`quant`]: the integer network the search runs, with accumulators kept
//!   for both points of view and updated per move;
//! * `kernels`: the vectorised second layer;
//! * [`v2`]: the second format, wider and in 16- and 8-bit integers;
//! * [`Network`]: a network of either format, as `net=FILE` loads it.
//!
//! Self-play data and training are in `yolah-lab`.

mod file;
pub mod float;
mod kernels;
mod network;
pub mod quant;
pub mod v2;

pub use file::NetError;
pub use float::{FloatNet, MAX_NET_BYTES, MAX_WEIGHT};
pub use network::Network;
pub use quant::{Accumulator, Accumulators, QuantNet};

use crate::eval::Features;
use yolah::{Color, Position, Square};

/// Piece-square inputs.
pub const INPUTS: usize = 192;
/// The widest first layer (accumulator) of a `YOLAHNN1` network
/// ([`v2::MAX_HIDDEN1`] is the second format's).
pub const MAX_HIDDEN1: usize = 128;
/// First-layer widths must be multiples of this (a vector register of `i32`
/// twice over).
pub const HIDDEN1_STEP: usize = 16;
/// Inputs of the maps layer (`YOLAHNN6`): four maps of 64 squares, see
/// [`crate::eval::maps`].
pub const MAP_INPUTS: usize = 256;
/// Heuristic scalars fed to the second layer.
pub const SCALARS: usize = 6;
/// Second hidden layer width.
pub const HIDDEN2: usize = 16;
/// The most pairs of second-layer inputs (the widest first layer's outputs
/// and the scalars).
pub const MAX_L2_PAIRS: usize = (MAX_HIDDEN1 + SCALARS) / 2;
const _: () = assert!(
    MAX_HIDDEN1.is_multiple_of(HIDDEN1_STEP)
        && SCALARS.is_multiple_of(2)
        && HIDDEN2.is_multiple_of(8)
);

/// The rule for first-layer widths, as error messages state it.
pub fn hidden1_rule() -> String {
    format!("a multiple of {HIDDEN1_STEP} up to {MAX_HIDDEN1}")
}

/// Whether `width` is a first-layer width this build runs.
pub const fn valid_hidden1(width: usize) -> bool {
    width > 0 && width <= MAX_HIDDEN1 && width.is_multiple_of(HIDDEN1_STEP)
}

/// The shipped network, embedded at compile time.
pub const DEFAULT_NET: &[u8] = include_bytes!("../../nets/default.bin");

/// gen2, the last shipped network of the first format (`YOLAHNN1`), which
/// that format's tests and benchmarks run (the binaries leave it out unless
/// they use it).
pub const GEN2_NET: &[u8] = include_bytes!("../../nets/gen2.bin");

/// Feature index of `sq` of `kind` (0 our piece, 1 their piece, 2 hole).
#[inline(always)]
fn feature(kind: usize, sq: Square) -> usize {
    kind * 64 + sq.index()
}

/// The active inputs of `pos` from `view`'s side.
pub fn active_features(pos: &Position, view: Color) -> Vec<usize> {
    let mut out = Vec::with_capacity(64);
    out.extend(pos.pieces(view).into_iter().map(|sq| feature(0, sq)));
    out.extend(
        pos.pieces(view.opponent())
            .into_iter()
            .map(|sq| feature(1, sq)),
    );
    out.extend(pos.holes().into_iter().map(|sq| feature(2, sq)));
    out
}

/// Each heuristic scalar is divided by two to this power before the
/// network sees it (a power of two, so that the quotient is exact in `f32`).
const SCALAR_SHIFTS: [u32; SCALARS] = [4, 5, 5, 2, 4, 5];

/// The heuristic scalars before scaling: score, mobility, territory,
/// frozen pieces, reach and free squares.
fn raw_scalars(f: &Features) -> [i32; SCALARS] {
    [f.score, f.mobility, f.territory, f.frozen, f.reach, f.free]
}

/// The scaled heuristic scalars, clamped to ±2.
pub fn scalars(f: &Features) -> [f32; SCALARS] {
    let raw = raw_scalars(f);
    std::array::from_fn(|i| (raw[i] as f32 / (1 << SCALAR_SHIFTS[i]) as f32).clamp(-2.0, 2.0))
}

/// [`scalars`] times `scale`, rounded half away from zero as `f32::round`
/// does, in integers: the same numbers as rounding the floats (a test
/// checks every value a scalar can take), without converting to and from
/// floating point in each evaluation.
#[inline]
pub fn quantised_scalars(f: &Features, scale: i32) -> [i32; SCALARS] {
    let raw = raw_scalars(f);
    std::array::from_fn(|i| quantised_scalar(raw[i], SCALAR_SHIFTS[i], scale))
}

/// `round(clamp(v / 2^shift, ±2) · scale)`, half away from zero.
#[inline]
fn quantised_scalar(v: i32, shift: u32, scale: i32) -> i32 {
    let n = v.clamp(-2 << shift, 2 << shift) * scale;
    ((n.abs() + (1 << shift >> 1)) >> shift) * n.signum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_scalars_round_as_the_floats_do() {
        for shift in SCALAR_SHIFTS {
            let d = 1 << shift;
            for scale in [127, 512] {
                for v in -4 * d - 3..=4 * d + 3 {
                    let float = ((v as f32 / d as f32).clamp(-2.0, 2.0) * scale as f32).round();
                    let q = quantised_scalar(v, shift, scale);
                    assert_eq!(q, float as i32, "{v} / {d} * {scale}");
                }
            }
        }
        let mut rng = yolah::Rng::new(5);
        let mut pos = Position::START;
        while !pos.is_game_over() {
            let f = crate::eval::features(&pos);
            let floats = scalars(&f).map(|s| (s * 127.0).round() as i32);
            assert_eq!(quantised_scalars(&f, 127), floats);
            pos.play(pos.random_move(&mut rng));
        }
    }

    #[test]
    fn every_width_round_trips_and_others_are_refused() {
        for width in [16, 64, 112, MAX_HIDDEN1] {
            let net = FloatNet::random(width, 3);
            let bytes = net.to_bytes();
            assert_eq!(bytes.len(), float::net_bytes(width));
            assert_eq!(FloatNet::from_bytes(&bytes).unwrap(), net);
        }
        let e = |b: &[u8]| FloatNet::from_bytes(b).unwrap_err().to_string();
        let mut odd = FloatNet::random(32, 3).to_bytes();
        odd[12] = 24;
        assert!(e(&odd).contains("multiple of 16 up to 128"), "{}", e(&odd));
        let mut wide = FloatNet::random(32, 3).to_bytes();
        wide[12..16].copy_from_slice(&256u32.to_le_bytes());
        assert!(e(&wide).contains("dimensions"));
        let mut short = FloatNet::random(32, 3);
        short.w2.pop();
        assert!(short.check().unwrap_err().to_string().contains("lengths"));
        short.hidden1 = 40;
        assert!(short.check().unwrap_err().to_string().contains("width 40"));
        assert!(!valid_hidden1(0) && !valid_hidden1(MAX_HIDDEN1 + HIDDEN1_STEP));
    }

    #[test]
    fn bad_files_are_refused() {
        let good = GEN2_NET.to_vec();
        assert!(FloatNet::from_bytes(&good).is_ok());
        assert_eq!(FloatNet::from_bytes(&good).unwrap().to_bytes(), good);
        let e = |b: &[u8]| FloatNet::from_bytes(b).unwrap_err().to_string();
        assert!(e(b"hello").contains("YOLAHNN1"));
        assert!(e(&good[..good.len() - 4]).contains("bytes"));
        let mut dims = good.clone();
        dims[12] = 65;
        assert!(e(&dims).contains("dimensions"));
        let mut nan = good.clone();
        nan[24..28].copy_from_slice(&f32::NAN.to_le_bytes());
        assert!(e(&nan).contains("finite"));
        assert!(FloatNet::load("/no/such.bin")
            .unwrap_err()
            .to_string()
            .contains("cannot read"));
        // Each kind says what it found.
        let kind = |b: &[u8]| FloatNet::from_bytes(b).unwrap_err();
        assert!(matches!(kind(b"hello"), NetError::NotANetwork { .. }));
        // A file cut inside its header is told so, not that its magic is wrong.
        assert!(matches!(
            kind(&good[..12]),
            NetError::ShortHeader { bytes: 12 }
        ));
        assert!(e(&good[..12]).contains("fewer than the 24 of a network's header"));
        assert!(matches!(
            kind(&good[..good.len() - 4]),
            NetError::Length { bytes, expected } if bytes + 4 == expected
        ));
        assert!(matches!(kind(&dims), NetError::Dimensions { found, .. } if found[1] == 65));
        assert!(matches!(kind(&nan), NetError::Weight { value, .. } if value.is_nan()));
        assert!(matches!(
            FloatNet::load("/no/such.bin"),
            Err(NetError::File(_))
        ));
    }
}
