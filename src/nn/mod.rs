//! A small neural-network evaluation, NNUE style.
//!
//! Inputs, from the point of view of the side to move: 192 binary
//! piece-square features (our pieces, their pieces, holes: 64 each) and 4
//! scalars from the heuristic (score, mobility, territory and frozen-piece
//! differences, scaled). Layers: 192 → 64 (clipped ReLU; the accumulator),
//! then with the scalars 68 → 32 (clipped ReLU) → 1, the logit of the side to
//! move's expected result.
//!
//! The search uses a quantised copy with integer weights. The first layer is
//! an accumulator kept for both points of view and updated per move (a move
//! changes three features: a piece leaves a square, lands on another, and
//! leaves a hole), so most of the network is never recomputed.
//!
//! The file format (`net.bin`, little endian): the 8 bytes `YOLAHNN1`, four
//! `u32` dimensions (192, 64, 4, 32), then `f32` arrays: w1 [192×64], b1 [64],
//! w2 [68×32], b2 [32], w3 [32], b3 [1] (weights input-major).

pub mod data;
pub mod train;

use crate::players::alphabeta::Evaluator;
use crate::players::eval::{features, Features, BOUND_WIN, DECIDED};
use crate::{Color, Move, Position};

/// Piece-square inputs.
pub const INPUTS: usize = 192;
/// Accumulator width.
pub const HIDDEN1: usize = 64;
/// Heuristic scalars fed to the second layer.
pub const SCALARS: usize = 4;
/// Second hidden layer width.
pub const HIDDEN2: usize = 32;

const MAGIC: &[u8; 8] = b"YOLAHNN1";
const Q1: f32 = 1024.0;
const Q2: f32 = 256.0;

/// The shipped network, embedded at compile time.
pub const DEFAULT_NET: &[u8] = include_bytes!("../../nets/default.bin");

/// Feature index of `sq` of `kind` (0 our piece, 1 their piece, 2 hole).
#[inline(always)]
fn feature(kind: usize, sq: crate::Square) -> usize {
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

/// The scaled heuristic scalars.
pub fn scalars(f: &Features) -> [f32; SCALARS] {
    // Clamped to ±2 so the integer second layer cannot overflow.
    [
        f.score as f32 / 16.0,
        f.mobility as f32 / 32.0,
        f.territory as f32 / 32.0,
        f.frozen as f32 / 4.0,
    ]
    .map(|x| x.clamp(-2.0, 2.0))
}

/// The float network, as trained.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNet {
    /// First layer, input-major: `w1[i * HIDDEN1 + j]`.
    pub w1: Vec<f32>,
    /// First layer biases.
    pub b1: Vec<f32>,
    /// Second layer, input-major over the 68 inputs.
    pub w2: Vec<f32>,
    /// Second layer biases.
    pub b2: Vec<f32>,
    /// Output weights.
    pub w3: Vec<f32>,
    /// Output bias.
    pub b3: f32,
}

/// Why a network file cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetError(pub String);

impl std::fmt::Display for NetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NetError {}

impl FloatNet {
    /// Parses the `net.bin` format.
    pub fn from_bytes(bytes: &[u8]) -> Result<FloatNet, NetError> {
        let err = |m: String| NetError(m);
        if bytes.len() < 24 || &bytes[..8] != MAGIC {
            return Err(err(
                "not a yolah network (it must start with YOLAHNN1)".into()
            ));
        }
        let dim = |i: usize| {
            u32::from_le_bytes(bytes[8 + 4 * i..12 + 4 * i].try_into().expect("4 bytes"))
        };
        let dims = [dim(0), dim(1), dim(2), dim(3)];
        let expected = [INPUTS, HIDDEN1, SCALARS, HIDDEN2].map(|d| d as u32);
        if dims != expected {
            return Err(err(format!(
                "network dimensions {dims:?}, this build needs {expected:?}"
            )));
        }
        let sizes = [
            INPUTS * HIDDEN1,
            HIDDEN1,
            (HIDDEN1 + SCALARS) * HIDDEN2,
            HIDDEN2,
            HIDDEN2,
            1,
        ];
        let floats = sizes.iter().sum::<usize>();
        if bytes.len() != 24 + 4 * floats {
            return Err(err(format!(
                "network file has {} bytes, expected {}",
                bytes.len(),
                24 + 4 * floats
            )));
        }
        let all: Vec<f32> = bytes[24..]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        // Quantisation needs small, finite weights (|w| * 256 * 2048 * 68
        // must fit in 32 bits).
        if let Some(bad) = all.iter().find(|w| !w.is_finite() || w.abs() > 32.0) {
            return Err(err(format!(
                "network weight {bad} is not a finite number within ±32"
            )));
        }
        let mut parts = Vec::new();
        let mut at = 0;
        for n in sizes {
            parts.push(all[at..at + n].to_vec());
            at += n;
        }
        Ok(FloatNet {
            w1: parts[0].clone(),
            b1: parts[1].clone(),
            w2: parts[2].clone(),
            b2: parts[3].clone(),
            w3: parts[4].clone(),
            b3: parts[5][0],
        })
    }

    /// Reads a network file.
    pub fn load(path: &str) -> Result<FloatNet, NetError> {
        let bytes =
            std::fs::read(path).map_err(|e| NetError(format!("cannot read {path}: {e}")))?;
        FloatNet::from_bytes(&bytes).map_err(|e| NetError(format!("{path}: {e}")))
    }

    /// The `net.bin` bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        for d in [INPUTS, HIDDEN1, SCALARS, HIDDEN2] {
            out.extend((d as u32).to_le_bytes());
        }
        let arrays = [
            &self.w1[..],
            &self.b1,
            &self.w2,
            &self.b2,
            &self.w3,
            &[self.b3],
        ];
        for a in arrays {
            for w in a {
                out.extend(w.to_le_bytes());
            }
        }
        out
    }

    /// The logit for the side to move, in floating point (the reference the
    /// quantised network is checked against).
    pub fn forward(&self, active: &[usize], scalars: &[f32; SCALARS]) -> f32 {
        let mut h1 = self.b1.clone();
        for &i in active {
            for (h, w) in h1.iter_mut().zip(&self.w1[i * HIDDEN1..(i + 1) * HIDDEN1]) {
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

/// The integer network used in search.
#[derive(Clone, Debug)]
pub struct QuantNet {
    w1: Vec<i32>,
    b1: [i32; HIDDEN1],
    /// Input-major rows: each non-zero input adds `x * row` to the 32 outputs
    /// (vector multiply-adds); inputs the clipped ReLU zeroed cost nothing.
    w2: Box<[[i32; HIDDEN2]; HIDDEN1 + SCALARS]>,
    b2: [i32; HIDDEN2],
    w3: [i32; HIDDEN2],
    /// At scale `Q1 * Q2 * Q2`, like the output sum.
    b3: i64,
}

/// The accumulators of both points of view (Black's, White's).
pub type Accumulators = [[i32; HIDDEN1]; 2];

impl QuantNet {
    /// Rounds a float network to integers.
    pub fn new(net: &FloatNet) -> QuantNet {
        let q = |x: f32, s: f32| (x * s).round() as i32;
        QuantNet {
            w1: net.w1.iter().map(|&w| q(w, Q1)).collect(),
            b1: std::array::from_fn(|j| q(net.b1[j], Q1)),
            w2: Box::new(std::array::from_fn(|i| {
                std::array::from_fn(|j| q(net.w2[i * HIDDEN2 + j], Q2))
            })),
            b2: std::array::from_fn(|j| q(net.b2[j], Q1 * Q2)),
            w3: std::array::from_fn(|j| q(net.w3[j], Q2)),
            b3: i64::from(q(net.b3, Q1 * Q2)) * Q2 as i64,
        }
    }

    /// The shipped network.
    pub fn default_net() -> QuantNet {
        QuantNet::new(&FloatNet::from_bytes(DEFAULT_NET).expect("the shipped network is valid"))
    }

    fn column(&self, i: usize) -> &[i32] {
        &self.w1[i * HIDDEN1..(i + 1) * HIDDEN1]
    }

    /// Accumulators of `pos` from scratch.
    pub fn accumulators(&self, pos: &Position) -> Accumulators {
        let mut acc = [self.b1; 2];
        for view in [Color::Black, Color::White] {
            for i in active_features(pos, view) {
                for (a, w) in acc[view as usize].iter_mut().zip(self.column(i)) {
                    *a += w;
                }
            }
        }
        acc
    }

    /// The accumulators after `m` in `pos`: three columns per view.
    #[inline]
    pub fn update(&self, acc: &Accumulators, pos: &Position, m: Move) -> Accumulators {
        let mut next = *acc;
        if m.is_pass() {
            return next;
        }
        let mover = pos.side_to_move();
        for view in [Color::Black, Color::White] {
            let kind = if view == mover { 0 } else { 1 };
            let (off, on, hole) = (
                self.column(feature(kind, m.from())),
                self.column(feature(kind, m.to())),
                self.column(feature(2, m.from())),
            );
            for j in 0..HIDDEN1 {
                next[view as usize][j] += on[j] - off[j] + hole[j];
            }
        }
        next
    }

    /// The logit for the side to move, from its accumulator.
    #[inline]
    pub fn logit(&self, acc: &[i32; HIDDEN1], scalars: &[f32; SCALARS]) -> f32 {
        let mut input = [0i32; HIDDEN1 + SCALARS];
        for (x, a) in input.iter_mut().zip(acc) {
            *x = (*a).clamp(0, Q1 as i32);
        }
        for (x, s) in input[HIDDEN1..].iter_mut().zip(scalars) {
            *x = (s.clamp(-2.0, 2.0) * Q1).round() as i32;
        }
        let mut h2 = self.b2;
        for (&x, row) in input.iter().zip(self.w2.iter()) {
            if x != 0 {
                for (h, w) in h2.iter_mut().zip(row) {
                    *h += x * w;
                }
            }
        }
        // The second layer stays at scale Q1 * Q2 (no rounding); the sum is
        // at Q1 * Q2 * Q2 and needs 64 bits.
        let mut out = self.b3;
        for (&h, &w) in h2.iter().zip(&self.w3) {
            out += i64::from(h.clamp(0, (Q1 * Q2) as i32)) * i64::from(w);
        }
        (out as f64 / f64::from(Q1 * Q2 * Q2)) as f32
    }
}

/// Centipoints per unit of logit.
const CENTIPOINTS_PER_LOGIT: f32 = 400.0;

/// The network evaluation for alpha-beta: decided positions (separated
/// regions whose bounds fix the result) score as the heuristic does,
/// everything else by the network.
impl Evaluator for QuantNet {
    type State = Accumulators;

    fn root_state(&self, pos: &Position) -> Accumulators {
        self.accumulators(pos)
    }

    fn child_state(&self, acc: &Accumulators, pos: &Position, m: Move) -> Accumulators {
        self.update(acc, pos, m)
    }

    fn evaluate(&self, pos: &Position, acc: &Accumulators, ply: u32) -> i32 {
        let f = features(pos);
        if let Some((ours, theirs)) = f.separated {
            let (ours, theirs) = (ours as i32, theirs as i32);
            if f.score + i32::from(f.can_move.0) > theirs {
                return BOUND_WIN - ply as i32;
            }
            if f.score + ours < i32::from(f.can_move.1) {
                return -(BOUND_WIN - ply as i32);
            }
        }
        let logit = self.logit(&acc[pos.side_to_move() as usize], &scalars(&f));
        ((logit * CENTIPOINTS_PER_LOGIT) as i32).clamp(-DECIDED + 1, DECIDED - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rng;

    #[test]
    fn quantised_agrees_with_float_and_updates_match_a_fresh_count() {
        let float = FloatNet::from_bytes(DEFAULT_NET).unwrap();
        let quant = QuantNet::new(&float);
        let mut worst = 0.0f32;
        for seed in 0..40 {
            let mut rng = Rng::new(seed);
            let mut pos = Position::START;
            let mut acc = quant.accumulators(&pos);
            while !pos.is_game_over() {
                let s = scalars(&features(&pos));
                let side = pos.side_to_move();
                let exact = float.forward(&active_features(&pos, side), &s);
                let q = quant.logit(&acc[side as usize], &s);
                worst = worst.max((exact - q).abs());
                let m = pos.random_move(&mut rng);
                acc = quant.update(&acc, &pos, m);
                pos.play(m);
                assert_eq!(acc, quant.accumulators(&pos), "incremental = from scratch");
            }
        }
        assert!(worst < 0.05, "quantisation error {worst}");
    }

    #[test]
    fn bad_files_are_refused() {
        let good = DEFAULT_NET.to_vec();
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
    }
}
