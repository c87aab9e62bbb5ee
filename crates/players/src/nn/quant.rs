//! The integer network the search runs.
//!
//! Scales: the first layer's weights and the accumulators use `QW` = 8192
//! for 1.0 in 32 bits (so rounding the weights costs nothing measurable and
//! no position can overflow: 64 squares × 32 × 8192 < 2^31). The clipped
//! activations are shifted down to `QA` = 512 in 16 bits for the second
//! layer, whose weights use `Q2` = 256 (its sums are 32-bit, at `QA * Q2`,
//! then rounded back to `QA`); the output weights use `Q3` = 256. With
//! weights within ±32 and scalar inputs within ±2 no sum can overflow: a
//! second-layer sum is at most 128 × 512 × 8192 + 6 × 1024 × 8192 ≈ 5.9e8
//! at the widest first layer. The first layer is kept as an accumulator for
//! each point of view and updated by three weight columns per move.
//!
//! Accumulators have room for the widest first layer ([`MAX_HIDDEN1`]); a
//! narrower network uses the first H lanes and leaves the rest zero. The
//! per-node loops run over all lanes, a fixed length the compiler unrolls
//! and vectorises: the widest network of this format runs as fast as if its
//! width were a constant, and narrower ones pay for the unused lanes. (The
//! shipped network is of the later formats, run by `v2::quant`.)

use super::kernels::{affine_pairs, PairRow};
use super::{feature, scalars, HIDDEN2, INPUTS, MAX_HIDDEN1, MAX_L2_PAIRS, SCALARS};
use super::{FloatNet, NetError};
use crate::eval::{decided_by_regions, features, Evaluator};
use crate::score::{expected_result, CENTIPOINTS_PER_LOGIT, DECIDED};
use yolah::{Color, Move, Position};

/// First-layer weight and accumulator scale: 1.0 is 8192.
const QW: i32 = 8192;
/// Activation scale: 1.0 is 512.
const QA: i32 = 512;
/// Second-layer weight scale.
const Q2: i32 = 256;
/// Output weight scale.
const Q3: i32 = 256;

/// One point of view's first-layer sums (or one input's weight column),
/// aligned for vector loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(32))]
pub struct Accumulator(pub [i32; MAX_HIDDEN1]);

/// The accumulators of both points of view, indexed by [`Color`].
pub type Accumulators = [Accumulator; 2];

/// The integer network.
#[derive(Clone, Debug)]
pub struct QuantNet {
    /// The first layer's width.
    hidden1: usize,
    w1: Box<[Accumulator; INPUTS]>,
    b1: Accumulator,
    w2: Box<[PairRow; MAX_L2_PAIRS]>,
    b2: [i32; HIDDEN2],
    w3: [i32; HIDDEN2],
    b3: i32,
}

fn quantise(x: f32, scale: i32) -> i32 {
    (x * scale as f32).round() as i32
}

impl QuantNet {
    /// Rounds a float network to integers, refusing weights that are not
    /// finite numbers within ±32 ([`FloatNet::check`]).
    pub fn new(net: &FloatNet) -> Result<QuantNet, NetError> {
        net.check()?;
        let width = net.hidden1;
        let lane = |v: &[f32], j: usize| if j < width { quantise(v[j], QW) } else { 0 };
        let w1: Box<[Accumulator; INPUTS]> = Box::new(std::array::from_fn(|i| {
            Accumulator(std::array::from_fn(|j| {
                lane(&net.w1[i * width..(i + 1) * width], j)
            }))
        }));
        let b1 = Accumulator(std::array::from_fn(|j| lane(&net.b1, j)));
        let inputs = width + SCALARS;
        let w2 = Box::new(std::array::from_fn(|p| {
            PairRow(std::array::from_fn(|k| {
                let (j, input) = (k / 2, 2 * p + k % 2);
                match input < inputs {
                    true => quantise(net.w2[input * HIDDEN2 + j], Q2) as i16,
                    false => 0,
                }
            }))
        }));
        Ok(QuantNet {
            hidden1: width,
            w1,
            b1,
            w2,
            b2: std::array::from_fn(|j| quantise(net.b2[j], QA * Q2)),
            w3: std::array::from_fn(|j| quantise(net.w3[j], Q3)),
            b3: quantise(net.b3, QA * Q3),
        })
    }

    /// The first layer's width.
    pub fn hidden1(&self) -> usize {
        self.hidden1
    }

    /// gen2, the last shipped network of this format.
    pub fn gen2() -> QuantNet {
        FloatNet::from_bytes(super::GEN2_NET)
            .and_then(|net| QuantNet::new(&net))
            .expect("gen2 is valid")
    }

    /// Accumulators of `pos` from scratch.
    pub fn accumulators(&self, pos: &Position) -> Accumulators {
        let mut acc = [self.b1; 2];
        for view in [Color::Black, Color::White] {
            for i in super::active_features(pos, view) {
                add_column(&mut acc[view as usize], &self.w1[i]);
            }
        }
        acc
    }

    /// The accumulators after `m` in `pos`: three columns per view (the
    /// piece leaves a square, lands on another and leaves a hole).
    #[inline]
    pub fn update(&self, acc: &Accumulators, pos: &Position, m: Move) -> Accumulators {
        let mut next = *acc;
        if m.is_pass() {
            return next;
        }
        let mover = pos.side_to_move();
        // Over all lanes, a loop of fixed length: lanes past a narrower
        // network's width have zero weights and stay zero.
        let hole = &self.w1[feature(2, m.from())].0;
        for view in [Color::Black, Color::White] {
            let kind = if view == mover { 0 } else { 1 };
            let off = &self.w1[feature(kind, m.from())].0;
            let on = &self.w1[feature(kind, m.to())].0;
            for (j, a) in next[view as usize].0.iter_mut().enumerate() {
                *a += on[j] - off[j] + hole[j];
            }
        }
        next
    }

    /// The output at scale `QA * Q3`, for the side whose accumulator is
    /// given.
    #[inline]
    fn output(&self, acc: &Accumulator, scalars: &[f32; SCALARS]) -> i32 {
        let width = self.hidden1;
        let mut x = [0i16; 2 * MAX_L2_PAIRS];
        // All lanes (fixed length); the scalars then overwrite the ones
        // past the width, which are zero.
        for (x, &a) in x.iter_mut().zip(&acc.0) {
            // Clipped to [0, 1] and rounded from QW to QA.
            *x = ((a.clamp(0, QW) + QW / QA / 2) / (QW / QA)) as i16;
        }
        for (x, s) in x[width..].iter_mut().zip(scalars) {
            *x = quantise(s.clamp(-2.0, 2.0), QA) as i16;
        }
        // All pairs: past the width and the scalars, inputs and weights
        // are zero.
        let h2 = affine_pairs(&x, &self.w2, &self.b2);
        let mut out = self.b3;
        for (&h, &w) in h2.iter().zip(&self.w3) {
            // Clipped to [0, 1] and rounded from QA * Q2 to QA.
            out += ((h.clamp(0, QA * Q2) + Q2 / 2) / Q2) * w;
        }
        out
    }

    /// The logit for the side to move, from its accumulator.
    pub fn logit(&self, acc: &Accumulator, scalars: &[f32; SCALARS]) -> f32 {
        self.output(acc, scalars) as f32 / (QA * Q3) as f32
    }

    /// The expected result of `pos` for `color` (1 win, ½ draw, 0 loss):
    /// exact when the game is over or decided, otherwise the network's
    /// logit through a sigmoid. A fresh, full evaluation.
    pub fn expected_result(&self, pos: &Position, color: Color) -> f64 {
        if pos.is_game_over() {
            return pos.outcome().points(color);
        }
        let centipoints = self.evaluate(pos, &self.accumulators(pos), 0);
        let ours = expected_result(f64::from(centipoints));
        if color == pos.side_to_move() {
            ours
        } else {
            1.0 - ours
        }
    }
}

fn add_column(acc: &mut Accumulator, column: &Accumulator) {
    // Lanes past the width are zero in both.
    for (a, w) in acc.0.iter_mut().zip(&column.0) {
        *a += w;
    }
}

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
        if let Some(decided) = decided_by_regions(&f, ply) {
            return decided;
        }
        let out = self.output(&acc[pos.side_to_move() as usize], &scalars(&f));
        let centipoints = i64::from(out) * i64::from(CENTIPOINTS_PER_LOGIT) / i64::from(QA * Q3);
        (centipoints as i32).clamp(-DECIDED + 1, DECIDED - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::{active_features, GEN2_NET};
    use yolah::Rng;

    #[test]
    fn expected_results_of_both_sides_add_up_to_one() {
        let net = QuantNet::gen2();
        let mut rng = Rng::new(5);
        let mut pos = Position::START;
        while !pos.is_game_over() {
            let (b, w) = (
                net.expected_result(&pos, Color::Black),
                net.expected_result(&pos, Color::White),
            );
            assert!((0.0..=1.0).contains(&b) && (b + w - 1.0).abs() < 1e-9);
            pos.play(pos.random_move(&mut rng));
        }
        let exact = pos.outcome().points(Color::Black);
        assert_eq!(net.expected_result(&pos, Color::Black), exact);
    }

    #[test]
    fn quantised_agrees_with_float_and_updates_match_a_fresh_count() {
        let gen2 = FloatNet::from_bytes(GEN2_NET).unwrap();
        assert_eq!(gen2.hidden1, 128);
        // The 64-wide net shipped before still loads and runs.
        let gen1 = FloatNet::from_bytes(include_bytes!("../../nets/gen1.bin")).unwrap();
        assert_eq!(gen1.hidden1, 64);
        let nets = [
            gen2,
            gen1,
            FloatNet::random(16, 1),
            FloatNet::random(128, 2),
        ];
        for float in nets {
            agrees_with_float(&float, 40);
        }
    }

    fn agrees_with_float(float: &FloatNet, games: u64) {
        let quant = QuantNet::new(float).unwrap();
        assert_eq!(quant.hidden1(), float.hidden1);
        let mut worst = 0.0f32;
        for seed in 0..games {
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
    fn weights_out_of_range_are_refused() {
        let mut net = FloatNet::from_bytes(GEN2_NET).unwrap();
        net.w2[7] = 40.0;
        let e = QuantNet::new(&net).unwrap_err().to_string();
        assert!(e.contains("within ±32"), "{e}");
        net.w2[7] = f32::INFINITY;
        assert!(QuantNet::new(&net).is_err());
    }
}
