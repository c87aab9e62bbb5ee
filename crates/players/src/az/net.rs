//! The policy-value network of the `az` player: the file that
//! `python/examples/alphazero.py` exports, and its forward pass.
//!
//! Inputs ([`INPUTS`], or [`INPUTS_WITH_REACH`]): the four planes of
//! [`super::encoding`] as 256 bits (plane-major, a1 first), optionally the
//! two reach planes as 128 more, then the side to move's and the
//! opponent's points divided by 32. Layers, all `f32`:
//!
//! ```text
//! h1 = relu(x · W1 + b1)                         258 (or 386) → H1
//! h2 = relu(h1 · W2 + b2)                        H1 → H2
//! value = tanh(h2 · wv + bv)                     H2 → 1, for the side to move
//! from = h2 · Wf + bf,  to = h2 · Wt + bt        H2 → 64 each
//! U = h2 · Wu + bu,     V = h2 · Wv + bv'        H2 → 64 × K each
//! logit(from * 64 + to) = from[from] + to[to] + Σ_k U[from, k] · V[to, k]
//! ```
//!
//! The policy head is a sum of a from-square term, a to-square term and a
//! rank-K interaction: 64 · 2 · (K + 1) outputs instead of 4,096, so that
//! what is learnt about a square is shared by every move that uses it.
//!
//! The file (little endian): the 8 bytes `YOLAHAZ1`, four `u32` (inputs,
//! H1, H2, K), then the `f32` arrays in the order W1, b1, W2, b2, wv, bv,
//! Wf, bf, Wt, bt, Wu, bu, Wv, bv', each matrix input-major (`W[i][j]` at
//! `i * outputs + j`, NumPy's row-major `(inputs, outputs)`).

use super::encoding::{reach, ACTIONS, PLANES, REACH_PLANES};
use yolah::file::{read_limited, FileError};

const MAGIC: &[u8; 8] = b"YOLAHAZ1";
const HEADER_BYTES: usize = 24;
/// Inputs: 256 plane bits and the two scores.
pub const INPUTS: usize = PLANES * 64 + 2;
/// Inputs with the reach planes: 256 plane bits, 128 reach bits, the two
/// scores.
pub const INPUTS_WITH_REACH: usize = (PLANES + REACH_PLANES) * 64 + 2;
/// The widest hidden layer a file may have.
pub const MAX_HIDDEN: usize = 1024;
/// The highest rank of the policy's interaction term.
pub const MAX_RANK: usize = 64;
/// The largest weight magnitude a file may hold.
pub const MAX_WEIGHT: f32 = 1e4;

/// Why a network file cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AzNetError(pub String);

impl std::fmt::Display for AzNetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for AzNetError {}

/// The network's shape: inputs, hidden widths and the policy's rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// [`INPUTS`] or [`INPUTS_WITH_REACH`].
    pub inputs: usize,
    /// First hidden layer.
    pub hidden1: usize,
    /// Second hidden layer.
    pub hidden2: usize,
    /// Rank K of the policy's from-to interaction.
    pub rank: usize,
}

impl Shape {
    /// The array lengths in file order.
    fn sizes(self) -> [usize; 14] {
        let Shape {
            inputs,
            hidden1: h1,
            hidden2: h2,
            rank: k,
        } = self;
        [
            inputs * h1,
            h1,
            h1 * h2,
            h2,
            h2,
            1,
            h2 * 64,
            64,
            h2 * 64,
            64,
            h2 * 64 * k,
            64 * k,
            h2 * 64 * k,
            64 * k,
        ]
    }

    /// The size of a file of this shape.
    pub fn file_bytes(self) -> usize {
        HEADER_BYTES + 4 * self.sizes().iter().sum::<usize>()
    }
}

/// The largest file this build reads.
fn max_file_bytes() -> u64 {
    Shape {
        inputs: INPUTS_WITH_REACH,
        hidden1: MAX_HIDDEN,
        hidden2: MAX_HIDDEN,
        rank: MAX_RANK,
    }
    .file_bytes() as u64
}

/// A dense layer: `out = x · w + b`, `w` input-major.
#[derive(Clone, Debug, PartialEq)]
struct Dense {
    w: Vec<f32>,
    b: Vec<f32>,
}

impl Dense {
    fn outputs(&self) -> usize {
        self.b.len()
    }

    /// `out = x · w + b`, skipping zero inputs (half of a ReLU's).
    fn forward(&self, x: &[f32], out: &mut [f32]) {
        let n = self.outputs();
        out.copy_from_slice(&self.b);
        for (i, &xi) in x.iter().enumerate() {
            if xi != 0.0 {
                for (o, &w) in out.iter_mut().zip(&self.w[i * n..(i + 1) * n]) {
                    *o += xi * w;
                }
            }
        }
    }
}

/// The network.
#[derive(Clone, Debug, PartialEq)]
pub struct AzNet {
    shape: Shape,
    layer1: Dense,
    layer2: Dense,
    value: Dense,
    from: Dense,
    to: Dense,
    u: Dense,
    v: Dense,
}

/// One forward pass's results, and the buffers it needs: allocated once,
/// reused for every position.
#[derive(Clone, Debug)]
pub struct Output {
    x: Vec<f32>,
    h1: Vec<f32>,
    h2: Vec<f32>,
    value: [f32; 1],
    from: Vec<f32>,
    to: Vec<f32>,
    u: Vec<f32>,
    v: Vec<f32>,
    rank: usize,
}

impl Output {
    /// The value for the side to move, in `[-1, 1]`.
    pub fn value(&self) -> f32 {
        self.value[0].tanh()
    }

    /// The logit of `action` (`from * 64 + to`).
    pub fn logit(&self, action: usize) -> f32 {
        let (f, t) = (action / 64, action % 64);
        let k = self.rank;
        let interaction: f32 = self.u[f * k..(f + 1) * k]
            .iter()
            .zip(&self.v[t * k..(t + 1) * k])
            .map(|(a, b)| a * b)
            .sum();
        self.from[f] + self.to[t] + interaction
    }

    /// Every action's logit, into `out` ([`ACTIONS`] long).
    pub fn logits(&self, out: &mut [f32]) {
        for (action, o) in out[..ACTIONS].iter_mut().enumerate() {
            *o = self.logit(action);
        }
    }
}

impl AzNet {
    /// The network's shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// Buffers for [`AzNet::forward`].
    pub fn output(&self) -> Output {
        let Shape {
            inputs,
            hidden1,
            hidden2,
            rank,
        } = self.shape;
        Output {
            x: vec![0.0; inputs],
            h1: vec![0.0; hidden1],
            h2: vec![0.0; hidden2],
            value: [0.0],
            from: vec![0.0; 64],
            to: vec![0.0; 64],
            u: vec![0.0; 64 * rank],
            v: vec![0.0; 64 * rank],
            rank,
        }
    }

    /// Whether the network reads the reach planes.
    pub fn reads_reach(&self) -> bool {
        self.shape.inputs == INPUTS_WITH_REACH
    }

    /// The input bitboards: the planes, then the reach planes if the
    /// network reads them.
    fn bit_inputs(&self, planes: &[u64; PLANES]) -> ([u64; PLANES + REACH_PLANES], usize) {
        let mut bits = [0; PLANES + REACH_PLANES];
        bits[..PLANES].copy_from_slice(planes);
        if self.reads_reach() {
            bits[PLANES..].copy_from_slice(&reach(planes));
            (bits, PLANES + REACH_PLANES)
        } else {
            (bits, PLANES)
        }
    }

    /// Runs the network on `planes` (as [`super::encoding::planes`]) and
    /// `scores` (the side to move's first), into `out`.
    pub fn forward(&self, planes: &[u64; PLANES], scores: [u8; 2], out: &mut Output) {
        // The first layer adds the rows of the set bits (the planes split
        // the board: 64 of them, and the reach planes) and the two scores.
        let n1 = self.layer1.outputs();
        out.h1.copy_from_slice(&self.layer1.b);
        let (bits, count) = self.bit_inputs(planes);
        for (p, &bits) in bits[..count].iter().enumerate() {
            let mut rest = bits;
            while rest != 0 {
                let i = p * 64 + rest.trailing_zeros() as usize;
                rest &= rest - 1;
                for (h, &w) in out.h1.iter_mut().zip(&self.layer1.w[i * n1..(i + 1) * n1]) {
                    *h += w;
                }
            }
        }
        for (s, &score) in scores.iter().enumerate() {
            let x = f32::from(score) / 32.0;
            let i = count * 64 + s;
            for (h, &w) in out.h1.iter_mut().zip(&self.layer1.w[i * n1..(i + 1) * n1]) {
                *h += x * w;
            }
        }
        relu(&mut out.h1);
        self.layer2.forward(&out.h1, &mut out.h2);
        relu(&mut out.h2);
        self.value.forward(&out.h2, &mut out.value);
        self.from.forward(&out.h2, &mut out.from);
        self.to.forward(&out.h2, &mut out.to);
        self.u.forward(&out.h2, &mut out.u);
        self.v.forward(&out.h2, &mut out.v);
    }

    /// The inputs as a dense vector: the reference for the sparse first
    /// layer (tests).
    pub fn inputs(&self, planes: &[u64; PLANES], scores: [u8; 2], x: &mut [f32]) {
        let (bits, count) = self.bit_inputs(planes);
        for (p, &bits) in bits[..count].iter().enumerate() {
            for sq in 0..64 {
                x[p * 64 + sq] = ((bits >> sq) & 1) as f32;
            }
        }
        x[count * 64] = f32::from(scores[0]) / 32.0;
        x[count * 64 + 1] = f32::from(scores[1]) / 32.0;
    }

    /// [`AzNet::forward`] the slow way, with a dense first layer (tests).
    pub fn forward_slow(&self, planes: &[u64; PLANES], scores: [u8; 2], out: &mut Output) {
        self.inputs(planes, scores, &mut out.x);
        let x = out.x.clone();
        self.layer1.forward(&x, &mut out.h1);
        relu(&mut out.h1);
        self.layer2.forward(&out.h1, &mut out.h2);
        relu(&mut out.h2);
        self.value.forward(&out.h2, &mut out.value);
        self.from.forward(&out.h2, &mut out.from);
        self.to.forward(&out.h2, &mut out.to);
        self.u.forward(&out.h2, &mut out.u);
        self.v.forward(&out.h2, &mut out.v);
    }

    /// Parses the file format.
    pub fn from_bytes(bytes: &[u8]) -> Result<AzNet, AzNetError> {
        let err = |m: String| Err(AzNetError(m));
        if bytes.len() < HEADER_BYTES || &bytes[..8] != MAGIC {
            return err("not an az network (it must start with YOLAHAZ1)".into());
        }
        let dim = |i: usize| {
            u32::from_le_bytes(bytes[8 + 4 * i..12 + 4 * i].try_into().expect("4 bytes")) as usize
        };
        let (inputs, hidden1, hidden2, rank) = (dim(0), dim(1), dim(2), dim(3));
        let widths_ok = (1..=MAX_HIDDEN).contains(&hidden1)
            && (1..=MAX_HIDDEN).contains(&hidden2)
            && (1..=MAX_RANK).contains(&rank);
        if ![INPUTS, INPUTS_WITH_REACH].contains(&inputs) || !widths_ok {
            return err(format!(
                "network dimensions [{inputs}, {hidden1}, {hidden2}, {rank}]: this build needs \
                 {INPUTS} or {INPUTS_WITH_REACH} inputs, hidden widths from 1 to {MAX_HIDDEN} \
                 and a rank from 1 to {MAX_RANK}"
            ));
        }
        let shape = Shape {
            inputs,
            hidden1,
            hidden2,
            rank,
        };
        if bytes.len() != shape.file_bytes() {
            return err(format!(
                "network file has {} bytes, its dimensions need {}",
                bytes.len(),
                shape.file_bytes()
            ));
        }
        let all: Vec<f32> = bytes[HEADER_BYTES..]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        if let Some(bad) = all.iter().find(|w| !w.is_finite() || w.abs() > MAX_WEIGHT) {
            return err(format!(
                "network weight {bad} is not a finite number within ±{MAX_WEIGHT}"
            ));
        }
        let mut at = 0;
        let mut arrays = shape
            .sizes()
            .map(|n| {
                at += n;
                all[at - n..at].to_vec()
            })
            .into_iter();
        let mut dense = || Dense {
            w: arrays.next().expect("14 arrays"),
            b: arrays.next().expect("14 arrays"),
        };
        Ok(AzNet {
            shape,
            layer1: dense(),
            layer2: dense(),
            value: dense(),
            from: dense(),
            to: dense(),
            u: dense(),
            v: dense(),
        })
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        let s = self.shape;
        for d in [s.inputs, s.hidden1, s.hidden2, s.rank] {
            out.extend((d as u32).to_le_bytes());
        }
        for layer in self.layers() {
            for w in layer.w.iter().chain(&layer.b) {
                out.extend(w.to_le_bytes());
            }
        }
        out
    }

    fn layers(&self) -> [&Dense; 7] {
        [
            &self.layer1,
            &self.layer2,
            &self.value,
            &self.from,
            &self.to,
            &self.u,
            &self.v,
        ]
    }

    /// Reads a network file.
    pub fn load(path: &str) -> Result<AzNet, AzNetError> {
        let limit = max_file_bytes();
        let bytes = match read_limited(path, limit) {
            Ok(bytes) => bytes,
            Err(FileError::TooLarge { .. }) => {
                return Err(AzNetError(format!(
                    "{path}: an az network file has at most {limit} bytes"
                )))
            }
            Err(e) => return Err(AzNetError(e.to_string())),
        };
        AzNet::from_bytes(&bytes).map_err(|e| AzNetError(format!("{path}: {e}")))
    }

    /// A network of `shape` with random weights within ±`scale` (tests and
    /// benchmarks).
    pub fn random(shape: Shape, scale: f32, seed: u64) -> AzNet {
        let mut rng = yolah::Rng::new(seed);
        let mut array = |n: usize| -> Vec<f32> {
            (0..n)
                .map(|_| (super::noise::uniform(&mut rng) as f32 * 2.0 - 1.0) * scale)
                .collect()
        };
        let mut arrays = shape.sizes().map(&mut array).into_iter();
        let mut dense = || Dense {
            w: arrays.next().expect("14 arrays"),
            b: arrays.next().expect("14 arrays"),
        };
        AzNet {
            shape,
            layer1: dense(),
            layer2: dense(),
            value: dense(),
            from: dense(),
            to: dense(),
            u: dense(),
            v: dense(),
        }
    }
}

fn relu(x: &mut [f32]) {
    for v in x {
        *v = v.max(0.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::az::encoding::{planes, scores};
    use yolah::{Position, Rng};

    const SHAPE: Shape = Shape {
        inputs: INPUTS,
        hidden1: 32,
        hidden2: 24,
        rank: 3,
    };

    #[test]
    fn the_sparse_first_layer_is_the_dense_one() {
        for inputs in [INPUTS, INPUTS_WITH_REACH] {
            sparse_is_dense(Shape { inputs, ..SHAPE });
        }
    }

    fn sparse_is_dense(shape: Shape) {
        let net = AzNet::random(shape, 0.3, 1);
        let (mut fast, mut slow) = (net.output(), net.output());
        let mut rng = Rng::new(2);
        let mut pos = Position::START;
        for _ in 0..30 {
            net.forward(&planes(&pos), scores(&pos), &mut fast);
            net.forward_slow(&planes(&pos), scores(&pos), &mut slow);
            assert!((fast.value() - slow.value()).abs() < 1e-5);
            for a in [0, 35 * 64 + 49, 4095] {
                assert!((fast.logit(a) - slow.logit(a)).abs() < 1e-4);
            }
            if pos.is_game_over() {
                break;
            }
            pos.play(pos.random_move(&mut rng));
        }
    }

    #[test]
    fn files_round_trip_and_bad_ones_are_refused() {
        let net = AzNet::random(SHAPE, 0.3, 1);
        let bytes = net.to_bytes();
        assert_eq!(bytes.len(), SHAPE.file_bytes());
        assert_eq!(AzNet::from_bytes(&bytes), Ok(net));
        let e = |b: &[u8]| AzNet::from_bytes(b).unwrap_err().to_string();
        assert!(e(b"YOLAHNN1 and more").contains("YOLAHAZ1"));
        assert!(e(&bytes[..bytes.len() - 4]).contains("bytes"));
        let mut dims = bytes.clone();
        dims[8] = 7;
        assert!(e(&dims).contains("dimensions"));
        let mut nan = bytes.clone();
        nan[HEADER_BYTES..HEADER_BYTES + 4].copy_from_slice(&f32::NAN.to_le_bytes());
        assert!(e(&nan).contains("finite"));
        assert!(AzNet::load("/no/such/net.bin")
            .unwrap_err()
            .to_string()
            .contains("/no/such/net.bin"));
    }
}
