//! The integer network of the second format, for a first layer of width
//! `H` (a constant: each width in [`super::WIDTHS`] is compiled on its own,
//! so that its loops have a fixed length and its accumulators their exact
//! size).
//!
//! Scales: the first layer's weights and the accumulators use 127 for 1.0,
//! in 16 bits ([`super::MAX_W1`] keeps any sum of 64 inputs and the bias
//! within an `i16`; the updates wrap, and wrapping sums are exact as long
//! as the total fits). The clipped outputs are bytes from 0 to 127. The
//! second layer's weights on them are 8-bit, at a scale `Q2` of the net's
//! own: the largest power of two from 64 to 1024 that keeps the largest of
//! them within ±127 (64 for weights up to [`super::MAX_W2`]; a trained
//! network's are usually smaller, and finer steps round them less). Its
//! weights on the scalars are 32-bit at the same scale, with the scalars
//! at 127. Its sums are 32-bit at `127 * Q2`, clipped and shifted back to
//! 0..=127; the output weights use 256, so the output is at `127 * 256`
//! per unit of logit. A maps layer (`YOLAHNN6`) is at the first layer's
//! scales: weights and sums at 127 in 16 bits ([`super::MAX_WM`] keeps
//! them from overflowing), outputs clipped to bytes, second-layer weights
//! on them 8-bit at `Q2`.

use super::kernels::{affine, Group};
use super::{Activation, FloatNet, MAPS};
use crate::eval::{decided_by_regions, features_and_maps, Evaluator};
use crate::nn::NetError;
use crate::nn::{feature, quantised_scalars, HIDDEN2, INPUTS, MAP_INPUTS, SCALARS};
use crate::score::{expected_result, CENTIPOINTS_PER_LOGIT, DECIDED};
use yolah::{Bitboard, Color, Move, Position};

/// Accumulator and first-layer weight scale: 1.0 is 127, and a clipped
/// output is at most this.
const QA: i32 = 127;
/// The second layer's weight scale is `1 << shift`, with `shift` from
/// this...
const MIN_SHIFT: u32 = 6;
/// ...to this.
const MAX_SHIFT: u32 = 10;
/// Output weight scale.
const Q3: i32 = 256;

/// One point of view's first-layer sums (or one input's weight column),
/// aligned for vector loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(32))]
pub struct Accumulator<const H: usize>(pub [i16; H]);

/// The accumulators of both points of view, indexed by [`Color`].
pub type Accumulators<const H: usize> = [Accumulator<H>; 2];

/// The integer network with a first layer `H` wide.
#[derive(Clone, Debug)]
pub struct QuantNet<const H: usize> {
    w1: Box<[Accumulator<H>; INPUTS]>,
    b1: Box<Accumulator<H>>,
    /// The later layers of each output bucket.
    later: Vec<Later>,
    /// The second layer's scale is `1 << shift` (in every bucket).
    shift: u32,
    /// Whether the first layer's outputs are squared.
    squared: bool,
    /// The layer on the maps, if the network has one.
    maps: Option<Box<MapsLayer>>,
}

/// The maps' inputs in groups of eight squares: a byte of a map's bits.
const MAP_BYTES: usize = MAP_INPUTS / 8;
const _: () = assert!(MAP_BYTES == 4 * 8, "four maps of 64 squares");

/// The layer on a position's maps, computed afresh at each evaluation.
///
/// Its weights are kept as sums by byte: for each eight squares of a map
/// (bits `8n` to `8n + 7`) and each of the 256 ways they can be set, the
/// sum of their columns. An evaluation adds 32 of them (8 bytes of 4 maps)
/// in a loop of fixed length. One column per set square (up to 169), in
/// loops whose ends the processor cannot predict, had been 18% of a
/// search's time; 64 sums by nibble (a table of 64 KB) were 19% of the
/// faster search of 0b5a737, waiting on their loads as much as adding;
/// half as many loads from a table of 512 KB take 9% less time to depth
/// 13 on the Zen 4 measured (search-log row 83), whose second-level cache
/// (1 MB) holds the table; not measured on a Zen 1, whose cache it would
/// fill. The sums wrap in 16 bits, and since the whole sum fits
/// ([`super::MAX_WM`]), wrapped partial sums give it exactly.
#[derive(Clone, Debug)]
struct MapsLayer {
    byte_sums: Box<[[Accumulator<MAPS>; 256]; MAP_BYTES]>,
    bm: Accumulator<MAPS>,
}

impl MapsLayer {
    /// The layer of the float weights `wm` (one column of [`MAPS`] per
    /// input) and biases `bm`.
    fn new(wm: &[f32], bm: &[f32]) -> MapsLayer {
        let columns: Vec<Accumulator<MAPS>> = wm.chunks_exact(MAPS).map(column).collect();
        let byte_sums = (0..MAP_BYTES)
            .map(|n| {
                std::array::from_fn(|set| {
                    let mut sum = Accumulator([0; MAPS]);
                    for bit in (0..8).filter(|bit| set & (1 << bit) != 0) {
                        add(&mut sum, &columns[8 * n + bit], 1);
                    }
                    sum
                })
            })
            .collect::<Vec<_>>();
        MapsLayer {
            byte_sums: byte_sums.try_into().expect("MAP_BYTES sums"),
            bm: column(bm),
        }
    }

    /// Its clipped outputs for `maps`, 0 to 127.
    #[inline]
    fn outputs(&self, maps: &[Bitboard; 4]) -> [u8; MAPS] {
        let mut sums = self.bm;
        for (k, map) in maps.iter().enumerate() {
            for (n, set) in map.0.to_le_bytes().into_iter().enumerate() {
                add(&mut sums, &self.byte_sums[8 * k + n][usize::from(set)], 1);
            }
        }
        first_outputs(&sums, |c| c as u8)
    }
}

/// The layers after the first of one output bucket.
#[derive(Clone, Debug)]
struct Later {
    /// Second-layer weights on the side to move's outputs, four inputs a
    /// group, then on the opponent's.
    w2: Box<[Group]>,
    /// Second-layer weights on the scalars, per scalar.
    w2_scalars: [[i32; HIDDEN2]; SCALARS],
    /// Second-layer weights on the maps layer's outputs, four a group
    /// (none without that layer).
    w2_maps: Box<[Group]>,
    b2: [i32; HIDDEN2],
    w3: [i32; HIDDEN2],
    b3: i32,
}

fn quantise(x: f32, scale: i32) -> i32 {
    (x * scale as f32).round() as i32
}

/// The first `N` weights of `v` at the first layer's scale.
fn column<const N: usize>(v: &[f32]) -> Accumulator<N> {
    Accumulator(std::array::from_fn(|j| quantise(v[j], QA) as i16))
}

impl<const H: usize> QuantNet<H> {
    /// Rounds a float network of width `H` to integers, refusing one of
    /// another width or with weights out of their bounds
    /// ([`FloatNet::check`]).
    pub fn new(net: &FloatNet) -> Result<QuantNet<H>, NetError> {
        const { assert!(H.is_multiple_of(32)) };
        net.check()?;
        if net.hidden1 != H {
            return Err(NetError::Width {
                width: net.hidden1,
                widths: format!("{H}, the width this integer network was built for"),
            });
        }
        let rows = net.rows();
        let largest = net
            .w2
            .chunks_exact(rows * HIDDEN2)
            .flat_map(|w2| {
                w2[..2 * H * HIDDEN2]
                    .iter()
                    .chain(&w2[(2 * H + SCALARS) * HIDDEN2..])
            })
            .fold(0.0f32, |m, w| m.max(w.abs()));
        let shift = (MIN_SHIFT..=MAX_SHIFT)
            .rev()
            .find(|&k| quantise(largest, 1 << k) <= 127)
            .unwrap_or(MIN_SHIFT);
        let q2 = 1 << shift;
        let later = (0..net.buckets)
            .map(|b| {
                let w2 = &net.w2[b * rows * HIDDEN2..(b + 1) * rows * HIDDEN2];
                let (b2, w3) = (&net.b2[b * HIDDEN2..], &net.w3[b * HIDDEN2..]);
                // Groups of four inputs from `first` on, `inputs` of them.
                let groups = |first: usize, inputs: usize| {
                    (0..inputs / 4)
                        .map(|g| {
                            Group(std::array::from_fn(|n| {
                                let (j, input) = (n / 4, first + 4 * g + n % 4);
                                quantise(w2[input * HIDDEN2 + j], q2) as i8
                            }))
                        })
                        .collect()
                };
                let scalar_row = |k: usize| {
                    let row = (2 * H + k) * HIDDEN2;
                    std::array::from_fn(|j| quantise(w2[row + j], q2))
                };
                Later {
                    w2: groups(0, 2 * H),
                    w2_scalars: std::array::from_fn(scalar_row),
                    w2_maps: groups(2 * H + SCALARS, net.maps),
                    b2: std::array::from_fn(|j| quantise(b2[j], QA * q2)),
                    w3: std::array::from_fn(|j| quantise(w3[j], Q3)),
                    b3: quantise(net.b3[b], QA * Q3),
                }
            })
            .collect();
        Ok(QuantNet {
            w1: Box::new(std::array::from_fn(|i| column(&net.w1[i * H..(i + 1) * H]))),
            b1: Box::new(column(&net.b1)),
            later,
            shift,
            squared: net.activation == Activation::Squared,
            maps: (net.maps > 0).then(|| Box::new(MapsLayer::new(&net.wm, &net.bm))),
        })
    }

    /// The output bucket of `pos` ([`super::bucket`]).
    #[inline]
    fn bucket(&self, free: u32) -> usize {
        super::bucket(free, self.later.len())
    }

    /// Accumulators of `pos` from scratch.
    pub fn accumulators(&self, pos: &Position) -> Accumulators<H> {
        let mut acc = [*self.b1; 2];
        for view in [Color::Black, Color::White] {
            for i in crate::nn::active_features(pos, view) {
                add(&mut acc[view as usize], &self.w1[i], 1);
            }
        }
        acc
    }

    /// The accumulators after `m` in `pos`: three columns per view (the
    /// piece leaves a square, lands on another and leaves a hole).
    #[inline]
    pub fn update(&self, acc: &Accumulators<H>, pos: &Position, m: Move) -> Accumulators<H> {
        if m.is_pass() {
            return *acc;
        }
        let mover = pos.side_to_move();
        let hole = &self.w1[feature(2, m.from())].0;
        // Each view built in one pass, not copied and then changed: a copy
        // of both accumulators had been 8% of a search's instructions.
        let view = |view: Color| {
            let kind = if view == mover { 0 } else { 1 };
            let off = &self.w1[feature(kind, m.from())].0;
            let on = &self.w1[feature(kind, m.to())].0;
            let a = &acc[view as usize].0;
            Accumulator(std::array::from_fn(|j| {
                a[j].wrapping_add(on[j].wrapping_sub(off[j]).wrapping_add(hole[j]))
            }))
        };
        [view(Color::Black), view(Color::White)]
    }

    /// The output at scale `QA * Q3` for `side` to move, through output
    /// bucket `bucket`, with the scalars at scale `QA` and the position's
    /// `maps` (for a maps layer).
    #[inline]
    fn output(
        &self,
        acc: &Accumulators<H>,
        side: Color,
        scalars: &[i32; SCALARS],
        maps: &[Bitboard; 4],
        bucket: usize,
    ) -> i32 {
        let later = &self.later[bucket];
        let mut sums = later.b2;
        for (&s, row) in scalars.iter().zip(&later.w2_scalars) {
            for (sum, w) in sums.iter_mut().zip(row) {
                *sum += s * w;
            }
        }
        let (ours, theirs) = later.w2.split_at(H / 4);
        let outputs = |acc: &Accumulator<H>| match self.squared {
            false => first_outputs(acc, |c| c as u8),
            // Squared, and scaled back from 127² to 127 (rounded).
            true => first_outputs(acc, |c| ((c * c + QA as u16 / 2) / QA as u16) as u8),
        };
        let sums = affine(&outputs(&acc[side as usize]), ours, sums);
        let mut sums = affine(&outputs(&acc[side.opponent() as usize]), theirs, sums);
        if let Some(layer) = &self.maps {
            sums = affine(&layer.outputs(maps), &later.w2_maps, sums);
        }
        let mut out = later.b3;
        let q2 = 1 << self.shift;
        for (&h, &w) in sums.iter().zip(&later.w3) {
            // Clipped to [0, 1] and rounded from QA * Q2 to QA.
            out += ((h.clamp(0, QA * q2) + q2 / 2) >> self.shift) * w;
        }
        out
    }

    /// The logit for `side` to move with `free` free squares and `maps`,
    /// from the accumulators.
    pub fn logit(
        &self,
        acc: &Accumulators<H>,
        side: Color,
        scalars: &[f32; SCALARS],
        maps: &[Bitboard; 4],
        free: u32,
    ) -> f32 {
        let scalars = scalars.map(|s| quantise(s.clamp(-2.0, 2.0), QA));
        self.output(acc, side, &scalars, maps, self.bucket(free)) as f32 / (QA * Q3) as f32
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

/// The first layer's outputs: each sum clipped to 0..=127, then mapped
/// by `of_clipped` (a closure, so that each activation gets its own
/// vectorised loop).
#[inline]
fn first_outputs<const H: usize>(acc: &Accumulator<H>, of_clipped: impl Fn(u16) -> u8) -> [u8; H] {
    let mut x = [0u8; H];
    for (x, &a) in x.iter_mut().zip(&acc.0) {
        *x = of_clipped(a.clamp(0, QA as i16) as u16);
    }
    x
}

fn add<const H: usize>(acc: &mut Accumulator<H>, column: &Accumulator<H>, sign: i16) {
    for (a, &w) in acc.0.iter_mut().zip(&column.0) {
        *a = a.wrapping_add(sign.wrapping_mul(w));
    }
}

/// The network evaluation for alpha-beta: decided positions (separated
/// regions whose bounds fix the result) score as the heuristic does,
/// everything else by the network.
impl<const H: usize> Evaluator for QuantNet<H> {
    type State = Accumulators<H>;

    fn root_state(&self, pos: &Position) -> Accumulators<H> {
        self.accumulators(pos)
    }

    fn child_state(&self, acc: &Accumulators<H>, pos: &Position, m: Move) -> Accumulators<H> {
        self.update(acc, pos, m)
    }

    fn evaluate(&self, pos: &Position, acc: &Accumulators<H>, ply: u32) -> i32 {
        let (f, maps) = features_and_maps(pos);
        if let Some(decided) = decided_by_regions(&f, ply) {
            return decided;
        }
        let bucket = self.bucket(f.free as u32);
        let scalars = quantised_scalars(&f, QA);
        let out = self.output(acc, pos.side_to_move(), &scalars, &maps, bucket);
        let centipoints = i64::from(out) * i64::from(CENTIPOINTS_PER_LOGIT) / i64::from(QA * Q3);
        (centipoints as i32).clamp(-DECIDED + 1, DECIDED - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{features, maps};
    use crate::nn::{active_features, scalars};
    use yolah::Rng;

    /// The integer network stays within `tolerance` (in logits) of the
    /// float one over random games, and within a fifth of it on average
    /// (8-bit weights round by up to 1/128 each, and a position sums a few
    /// hundred of them), and its accumulators updated move by move equal
    /// the ones counted afresh.
    fn agrees_with_float<const H: usize>(float: &FloatNet, games: u64, tolerance: f32) {
        let quant = QuantNet::<H>::new(float).unwrap();
        let (mut worst, mut total, mut count) = (0.0f32, 0.0f32, 0);
        for seed in 0..games {
            let mut rng = Rng::new(seed);
            let mut pos = Position::START;
            let mut acc = quant.accumulators(&pos);
            while !pos.is_game_over() {
                let s = scalars(&features(&pos));
                let side = pos.side_to_move();
                let ours = active_features(&pos, side);
                let theirs = active_features(&pos, side.opponent());
                let free = pos.free().count();
                let m = maps(&pos);
                let exact = float.forward(&ours, &theirs, &s, &m, float.bucket(free));
                let q = quant.logit(&acc, side, &s, &m, free);
                worst = worst.max((exact - q).abs());
                total += (exact - q).abs();
                count += 1;
                let m = pos.random_move(&mut rng);
                acc = quant.update(&acc, &pos, m);
                pos.play(m);
                assert_eq!(acc, quant.accumulators(&pos), "incremental = from scratch");
            }
        }
        let mean = total / count as f32;
        assert!(
            worst < tolerance && mean < tolerance / 5.0,
            "quantisation error {worst} at worst, {mean} on average"
        );
    }

    #[test]
    fn quantised_agrees_with_float_at_every_width() {
        // gen4 is of this format, 256 wide, and so is gen3, 128 wide.
        // Trained weights round worse than random ones: over these games
        // gen4 0.30 logits at worst and 0.047 on average, gen3 0.23 and 0.031.
        let gen4 = FloatNet::from_bytes(include_bytes!("../../../nets/gen4.bin")).unwrap();
        agrees_with_float::<256>(&gen4, 20, 0.4);
        let gen3 = FloatNet::from_bytes(include_bytes!("../../../nets/gen3.bin")).unwrap();
        agrees_with_float::<128>(&gen3, 20, 0.3);
        agrees_with_float::<128>(&FloatNet::random(128, 1), 20, 0.15);
        agrees_with_float::<256>(&FloatNet::random(256, 2), 10, 0.15);
        agrees_with_float::<512>(&FloatNet::random(512, 3), 5, 0.15);
        agrees_with_float::<1024>(&FloatNet::random(1024, 4), 3, 0.15);
        let buckets = super::super::BUCKETS;
        agrees_with_float::<256>(&FloatNet::random_with_buckets(256, buckets, 7), 10, 0.15);
        // Squared outputs (YOLAHNN4 and YOLAHNN5): rounded to 0..=127 after
        // squaring, the small ones lose most.
        let squared = |net: FloatNet| FloatNet {
            activation: Activation::Squared,
            ..net
        };
        agrees_with_float::<256>(&squared(FloatNet::random(256, 2)), 10, 0.15);
        let bucketed = squared(FloatNet::random_with_buckets(128, buckets, 7));
        agrees_with_float::<128>(&bucketed, 10, 0.15);
        // A maps layer (YOLAHNN6): the shipped network (maps100h,
        // nets/README.md), 0.25 logits at worst and 0.032 on average over
        // these games; then random networks with the layer.
        let shipped = FloatNet::from_bytes(crate::nn::DEFAULT_NET).unwrap();
        agrees_with_float::<256>(&shipped, 20, 0.4);
        agrees_with_float::<128>(&FloatNet::random_with_maps(128, 8), 10, 0.15);
        agrees_with_float::<256>(&FloatNet::random_with_maps(256, 9), 10, 0.15);
    }

    #[test]
    fn a_maps_layer_at_its_bounds_neither_overflows_nor_disagrees() {
        // Every maps weight at ±MAX_WM: sums of up to 3 × 56 squares and
        // the bias must not wrap.
        for sign in [1.0, -1.0] {
            let mut net = FloatNet::random_with_maps(128, 10);
            net.wm.fill(sign * super::super::MAX_WM);
            net.bm.fill(sign * super::super::MAX_WM);
            agrees_with_float::<128>(&net, 5, 0.15);
        }
    }

    #[test]
    fn the_maps_layer_by_bytes_is_the_sum_of_its_squares() {
        // Weights at their bounds, so that partial sums wrap.
        let mut net = FloatNet::random_with_maps(128, 12);
        for (i, w) in net.wm.iter_mut().enumerate() {
            *w = if i % 5 < 3 { 1.0 } else { -1.0 } * super::super::MAX_WM;
        }
        let layer = MapsLayer::new(&net.wm, &net.bm);
        let mut rng = Rng::new(12);
        let full = Bitboard(u64::MAX);
        for i in 0..200 {
            let maps: [Bitboard; 4] = match i {
                0 => [Bitboard(0), full, full, full],
                _ => std::array::from_fn(|_| Bitboard(rng.next_u64())),
            };
            let mut sums = column::<MAPS>(&net.bm);
            for (k, map) in maps.iter().enumerate() {
                for sq in *map {
                    let input = 64 * k + sq.index();
                    add(&mut sums, &column(&net.wm[input * MAPS..]), 1);
                }
            }
            let expected = first_outputs(&sums, |c| c as u8);
            assert_eq!(layer.outputs(&maps), expected, "maps {maps:?}");
        }
    }

    #[test]
    fn the_maps_layer_changes_the_evaluation() {
        let plain = FloatNet::random(128, 11);
        let mut with = FloatNet::random_with_maps(128, 11);
        let pos = Position::START;
        let eval = |net: &FloatNet| {
            let q = QuantNet::<128>::new(net).unwrap();
            q.evaluate(&pos, &q.accumulators(&pos), 0)
        };
        assert_ne!(eval(&plain), eval(&with));
        // With zero weights on its outputs the layer adds nothing.
        let rows = with.w2.len() - MAPS * HIDDEN2;
        with.w2[rows..].fill(0.0);
        assert_eq!(eval(&plain), eval(&with));
    }

    #[test]
    fn extreme_weights_neither_overflow_nor_disagree() {
        // Every first-layer weight at its bound: accumulators reach
        // 65 × 3.9 × 127 in size and must not wrap.
        let mut net = FloatNet::random(128, 5);
        for (i, w) in net.w1.iter_mut().enumerate() {
            *w = if i % 3 == 0 {
                -super::super::MAX_W1
            } else {
                super::super::MAX_W1
            };
        }
        net.b1.fill(super::super::MAX_W1);
        let h2 = 2 * 128 * HIDDEN2;
        for (i, w) in net.w2[..h2].iter_mut().enumerate() {
            *w = if i % 2 == 0 {
                super::super::MAX_W2
            } else {
                -super::super::MAX_W2
            };
        }
        agrees_with_float::<128>(&net, 10, 0.15);
    }

    #[test]
    fn a_network_of_another_width_is_refused() {
        let e = QuantNet::<256>::new(&FloatNet::random(128, 1)).unwrap_err();
        assert!(e.to_string().contains("width 128"), "{e}");
    }

    #[test]
    fn expected_results_of_both_sides_add_up_to_one() {
        let net = QuantNet::<128>::new(&FloatNet::random(128, 6)).unwrap();
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
}
