//! The network being trained, in `f32`: its parameters in one array (in the
//! file's order, so that the optimizer and the gradient sums are single
//! loops), and the forward and backward pass of one position.
//!
//! The first layer is where the work would be if it were dense: 192 inputs
//! times H. It is done sparsely, over the active inputs only. The holes are
//! the same in both points of view, so their columns are added once; the
//! pieces are added to each view under their kind in it (the side to
//! move's pieces are "ours" in its view, "theirs" in the opponent's).

use super::data::Encoded;
use yolah::{Bitboard, Rng};
use yolah_players::nn::v2::{
    bucket, sizes, Activation, FloatNet, MAX_W1, MAX_W2, MAX_WEIGHT, MAX_WM,
};
use yolah_players::nn::{HIDDEN2, INPUTS, MAP_INPUTS, SCALARS};

/// The first-layer width whose second layer steps at the full learning
/// rate; a wider one steps at `BASE_WIDTH / H` of it ([`Layout::rates`]).
const BASE_WIDTH: usize = 128;

/// Where each array starts in the parameter vector (the later layers'
/// arrays hold every output bucket's, one after the other).
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    pub hidden1: usize,
    pub buckets: usize,
    pub w1: usize,
    pub b1: usize,
    pub w2: usize,
    pub b2: usize,
    pub w3: usize,
    pub b3: usize,
    /// The maps layer (`YOLAHNN6`): its width (0: none), where its weights
    /// and its biases start.
    pub maps: usize,
    pub wm: usize,
    pub bm: usize,
    pub len: usize,
    /// What the first layer outputs (clipped unless set).
    pub activation: Activation,
}

impl Layout {
    #[cfg(test)]
    pub fn new(hidden1: usize, buckets: usize) -> Layout {
        Layout::with_maps(hidden1, buckets, 0)
    }

    /// A layout with a maps layer `maps` wide.
    pub fn with_maps(hidden1: usize, buckets: usize, maps: usize) -> Layout {
        let [w1, b1, w2, b2, w3, b3, ..] = sizes(hidden1, buckets, maps);
        let at = |n: usize| n;
        let end = w1 + b1 + w2 + b2 + w3 + b3;
        Layout {
            maps,
            wm: end,
            bm: end + MAP_INPUTS * maps,
            hidden1,
            buckets,
            w1: at(0),
            b1: at(w1),
            w2: at(w1 + b1),
            b2: at(w1 + b1 + w2),
            w3: at(w1 + b1 + w2 + b2),
            b3: at(w1 + b1 + w2 + b2 + w3),
            len: end + MAP_INPUTS * maps + maps,
            activation: Activation::Clipped,
        }
    }

    /// Each parameter's share of the learning rate. A step of Adam moves
    /// every weight by about the learning rate whatever its gradient, so a
    /// second-layer sum, fed by the 2H clipped first-layer outputs, would
    /// move H / 128 times as far in a step of a wider network as in one of
    /// 128: its weights on those outputs step at 128 / H of the rate (as
    /// "maximal update" scaling does for hidden layers), every other
    /// parameter at the full rate, but the piece-square first layer's
    /// weights and biases at `first_layer` times it (the maps layer, if
    /// any, at the full rate).
    pub fn rates(&self, first_layer: f32) -> Vec<f32> {
        let mut rates = vec![1.0; self.len];
        let share = BASE_WIDTH as f32 / self.hidden1 as f32;
        for bucket in 0..self.buckets {
            rates[self.on_outputs(bucket)].fill(share.min(1.0));
        }
        rates[self.w1..self.w2].fill(first_layer);
        rates
    }

    /// The second-layer rows of output bucket `bucket`: `2H + SCALARS`
    /// rows of [`HIDDEN2`].
    pub fn w2_of(&self, bucket: usize) -> usize {
        self.w2 + bucket * self.rows() * HIDDEN2
    }

    /// The second layer's inputs.
    pub fn rows(&self) -> usize {
        2 * self.hidden1 + SCALARS + self.maps
    }

    /// The second-layer weights of `bucket` on the first layer's outputs.
    fn on_outputs(&self, bucket: usize) -> std::ops::Range<usize> {
        let start = self.w2_of(bucket);
        start..start + 2 * self.hidden1 * HIDDEN2
    }

    /// The ranges of parameters and the bound each is clipped to, as the
    /// integer network needs ([`FloatNet::check`]).
    pub fn bounds(&self) -> Vec<(std::ops::Range<usize>, f32)> {
        let mut bounds = vec![(self.w1..self.w2, MAX_W1)];
        for bucket in 0..self.buckets {
            let on_outputs = self.on_outputs(bucket);
            let scalars = on_outputs.end..on_outputs.end + SCALARS * HIDDEN2;
            let maps = scalars.end..scalars.end + self.maps * HIDDEN2;
            bounds.extend([(on_outputs, MAX_W2), (scalars, MAX_WEIGHT), (maps, MAX_W2)]);
        }
        bounds.push((self.b2..self.wm, MAX_WEIGHT));
        bounds.push((self.wm..self.len, MAX_WM));
        bounds
    }

    /// The output bucket of `e`.
    pub fn bucket(&self, e: &Encoded) -> usize {
        bucket(u32::from(e.free), self.buckets)
    }
}

fn uniform(rng: &mut Rng, n: usize, scale: f32) -> impl Iterator<Item = f32> + '_ {
    (0..n).map(move |_| ((rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * scale)
}

/// Fresh parameters: small random weights, biases that start the first two
/// layers' outputs inside their unclipped range.
pub(super) fn initial(layout: &Layout, rng: &mut Rng) -> Vec<f32> {
    let h = layout.hidden1;
    let fan_in = layout.rows() as f32;
    let b = layout.buckets;
    let mut p = Vec::with_capacity(layout.len);
    p.extend(uniform(rng, INPUTS * h, 0.1));
    p.extend(std::iter::repeat_n(0.25, h));
    // The same spread of second-layer sums whatever the width.
    p.extend(uniform(
        rng,
        b * layout.rows() * HIDDEN2,
        0.25 * (134.0 / fan_in).sqrt(),
    ));
    p.extend(std::iter::repeat_n(0.25, b * HIDDEN2));
    p.extend(uniform(rng, b * HIDDEN2, 0.3));
    p.extend(std::iter::repeat_n(0.0, b));
    p.extend(uniform(rng, MAP_INPUTS * layout.maps, 0.1));
    p.extend(std::iter::repeat_n(0.25, layout.maps));
    clip(layout, &mut p);
    p
}

/// Keeps every parameter within its bound.
pub(super) fn clip(layout: &Layout, params: &mut [f32]) {
    for (range, bound) in layout.bounds() {
        for w in &mut params[range] {
            *w = w.clamp(-bound, bound);
        }
    }
}

/// The float network of `params`.
pub(super) fn export(layout: &Layout, params: &[f32]) -> FloatNet {
    let l = layout;
    FloatNet {
        hidden1: l.hidden1,
        buckets: l.buckets,
        activation: l.activation,
        maps: l.maps,
        w1: params[l.w1..l.b1].to_vec(),
        b1: params[l.b1..l.w2].to_vec(),
        w2: params[l.w2..l.b2].to_vec(),
        b2: params[l.b2..l.w3].to_vec(),
        w3: params[l.w3..l.b3].to_vec(),
        b3: params[l.b3..l.wm].to_vec(),
        wm: params[l.wm..l.bm].to_vec(),
        bm: params[l.bm..].to_vec(),
    }
}

/// Working space for one thread, so that no position allocates.
pub(super) struct Scratch {
    /// The first layer's sums, side to move then opponent.
    sums: Vec<f32>,
    /// The second layer's inputs: both views' clipped sums, the scalars.
    x: Vec<f32>,
    /// The loss's gradient with respect to the first layer's sums.
    d_sums: Vec<f32>,
    /// The two views' gradients added (for the inputs both share).
    d_both: Vec<f32>,
    /// Which first-layer neurons have been above zero, in either view,
    /// since [`Scratch::clear_on`] (kept by [`loss`]).
    on: Vec<bool>,
    /// The maps layer's sums.
    msums: Vec<f32>,
    /// The loss's gradient with respect to them.
    d_msums: Vec<f32>,
}

impl Scratch {
    pub fn new(layout: &Layout) -> Scratch {
        let h = layout.hidden1;
        Scratch {
            sums: vec![0.0; 2 * h],
            x: vec![0.0; layout.rows()],
            msums: vec![0.0; layout.maps],
            d_msums: vec![0.0; layout.maps],
            d_sums: vec![0.0; 2 * h],
            d_both: vec![0.0; h],
            on: vec![false; h],
        }
    }

    /// Forgets which neurons have been on.
    pub fn clear_on(&mut self) {
        self.on.fill(false);
    }

    /// Which first-layer neurons have been above zero since
    /// [`Scratch::clear_on`].
    pub fn on(&self) -> &[bool] {
        &self.on
    }
}

fn add_column(sum: &mut [f32], params: &[f32], input: usize) {
    let h = sum.len();
    for (s, w) in sum.iter_mut().zip(&params[input * h..(input + 1) * h]) {
        *s += w;
    }
}

fn add_to_column(grads: &mut [f32], d: &[f32], input: usize) {
    let h = d.len();
    for (g, d) in grads[input * h..(input + 1) * h].iter_mut().zip(d) {
        *g += d;
    }
}

fn squares(b: Bitboard) -> impl Iterator<Item = usize> {
    b.into_iter().map(|sq| sq.index())
}

/// The network's logit for `e` through its output bucket, leaving the
/// layers' values in `scratch` (and the second layer's sums in `z2`).
fn forward(
    layout: &Layout,
    params: &[f32],
    e: &Encoded,
    scratch: &mut Scratch,
    z2: &mut [f32; HIDDEN2],
) -> f32 {
    let h = layout.hidden1;
    let (ours, theirs) = scratch.sums.split_at_mut(h);
    ours.copy_from_slice(&params[layout.b1..layout.w2]);
    for sq in squares(e.holes) {
        add_column(ours, params, 128 + sq);
    }
    theirs.copy_from_slice(ours);
    for sq in squares(e.ours) {
        add_column(ours, params, sq);
        add_column(theirs, params, 64 + sq);
    }
    for sq in squares(e.theirs) {
        add_column(ours, params, 64 + sq);
        add_column(theirs, params, sq);
    }
    for (x, s) in scratch.x.iter_mut().zip(&scratch.sums) {
        *x = layout.activation.apply(*s);
    }
    scratch.x[2 * h..2 * h + SCALARS].copy_from_slice(&e.scalars);
    if layout.maps > 0 {
        let m = &mut scratch.msums;
        m.copy_from_slice(&params[layout.bm..layout.len]);
        let cols = &params[layout.wm..layout.bm];
        for (k, map) in e.maps.iter().enumerate() {
            for sq in squares(*map) {
                add_column(m, cols, 64 * k + sq);
            }
        }
        for (x, s) in scratch.x[2 * h + SCALARS..].iter_mut().zip(m.iter()) {
            *x = s.clamp(0.0, 1.0);
        }
    }
    let b = layout.bucket(e);
    let later = b * HIDDEN2..(b + 1) * HIDDEN2;
    z2.copy_from_slice(&params[layout.b2..layout.w3][later.clone()]);
    let w2 = &params[layout.w2_of(b)..];
    for (i, &x) in scratch.x.iter().enumerate() {
        if x != 0.0 {
            for (z, w) in z2.iter_mut().zip(&w2[i * HIDDEN2..(i + 1) * HIDDEN2]) {
                *z += x * w;
            }
        }
    }
    let w3 = &params[layout.w3..layout.b3][later];
    z2.iter()
        .zip(w3)
        .map(|(z, w)| z.clamp(0.0, 1.0) * w)
        .sum::<f32>()
        + params[layout.b3 + b]
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The squared error of `e`'s prediction, without gradients.
pub(super) fn loss(layout: &Layout, params: &[f32], e: &Encoded, scratch: &mut Scratch) -> f32 {
    let mut z2 = [0.0; HIDDEN2];
    let p = sigmoid(forward(layout, params, e, scratch, &mut z2));
    let (ours, theirs) = scratch.sums.split_at(layout.hidden1);
    for ((on, a), b) in scratch.on.iter_mut().zip(ours).zip(theirs) {
        *on |= *a > 0.0 || *b > 0.0;
    }
    (p - e.target) * (p - e.target)
}

/// The squared error of `e`'s prediction; adds its gradient to `grads`.
///
/// A first-layer sum clipped at 0 or 1 passes `leak` times the gradient
/// it would pass unclipped (none when `leak` is 0, the exact gradient), so
/// that a neuron that is off for every position can still learn its way
/// back on.
pub(super) fn loss_and_gradient(
    layout: &Layout,
    params: &[f32],
    e: &Encoded,
    scratch: &mut Scratch,
    grads: &mut [f32],
    leak: f32,
) -> f32 {
    let h = layout.hidden1;
    let mut z2 = [0.0; HIDDEN2];
    let p = sigmoid(forward(layout, params, e, scratch, &mut z2));
    let error = p - e.target;
    let d_out = 2.0 * error * p * (1.0 - p);
    // Output layer, of the position's bucket.
    let b = layout.bucket(e);
    let (w3, b2) = (layout.w3 + b * HIDDEN2, layout.b2 + b * HIDDEN2);
    let mut d_z2 = [0.0f32; HIDDEN2];
    for j in 0..HIDDEN2 {
        let active = z2[j] > 0.0 && z2[j] < 1.0;
        grads[w3 + j] += d_out * z2[j].clamp(0.0, 1.0);
        d_z2[j] = if active { d_out * params[w3 + j] } else { 0.0 };
        grads[b2 + j] += d_z2[j];
    }
    grads[layout.b3 + b] += d_out;
    if d_z2.iter().all(|&d| d == 0.0) {
        return error * error;
    }
    // Second layer: its weights, and the gradient reaching the first
    // layer's sums where they are not clipped.
    let w2_at = layout.w2_of(b);
    let w2 = &params[w2_at..];
    for (i, &x) in scratch.x.iter().enumerate() {
        if x != 0.0 {
            let row = &mut grads[w2_at + i * HIDDEN2..w2_at + (i + 1) * HIDDEN2];
            for (g, d) in row.iter_mut().zip(&d_z2) {
                *g += x * d;
            }
        }
    }
    if layout.maps > 0 {
        let base = 2 * h + SCALARS;
        let d_m = &mut scratch.d_msums;
        for (t, (d, &s)) in d_m.iter_mut().zip(&scratch.msums).enumerate() {
            *d = if s > 0.0 && s < 1.0 {
                dot16(&w2[(base + t) * HIDDEN2..(base + t + 1) * HIDDEN2], &d_z2)
            } else {
                0.0
            };
        }
        for (g, d) in grads[layout.bm..layout.len].iter_mut().zip(d_m.iter()) {
            *g += d;
        }
        let cols = &mut grads[layout.wm..layout.bm];
        for (k, map) in e.maps.iter().enumerate() {
            for sq in squares(*map) {
                add_to_column(cols, d_m, 64 * k + sq);
            }
        }
    }
    for (i, (d, &s)) in scratch.d_sums.iter_mut().zip(&scratch.sums).enumerate() {
        let row = &w2[i * HIDDEN2..(i + 1) * HIDDEN2];
        let slope = layout.activation.slope(s);
        *d = if slope > 0.0 {
            slope * dot16(row, &d_z2)
        } else if leak > 0.0 {
            leak * dot16(row, &d_z2)
        } else {
            0.0
        };
    }
    // First layer, sparsely: the columns of the active inputs.
    let (d_ours, d_theirs) = scratch.d_sums.split_at(h);
    let both = &mut scratch.d_both;
    for ((both, a), b) in both.iter_mut().zip(d_ours).zip(d_theirs) {
        *both = a + b;
    }
    for (g, d) in grads[layout.b1..layout.w2].iter_mut().zip(both.iter()) {
        *g += d;
    }
    for sq in squares(e.holes) {
        add_to_column(grads, both, 128 + sq);
    }
    for sq in squares(e.ours) {
        add_to_column(grads, d_ours, sq);
        add_to_column(grads, d_theirs, 64 + sq);
    }
    for sq in squares(e.theirs) {
        add_to_column(grads, d_ours, 64 + sq);
        add_to_column(grads, d_theirs, sq);
    }
    error * error
}

/// A 16-long dot product as a fixed tree of sums (vectorisable, and the
/// same every time).
#[inline]
fn dot16(a: &[f32], b: &[f32; HIDDEN2]) -> f32 {
    let mut p = [0.0f32; HIDDEN2];
    for ((p, x), y) in p.iter_mut().zip(a).zip(b) {
        *p = x * y;
    }
    let mut width = HIDDEN2 / 2;
    while width > 0 {
        for k in 0..width {
            p[k] += p[k + width];
        }
        width /= 2;
    }
    p[0]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::positions::Sample;
    use yolah::Position;
    use yolah_players::eval::features_and_maps;
    use yolah_players::nn::v2::{BUCKETS, MAPS};
    use yolah_players::nn::{active_features, scalars};

    fn positions(n: usize) -> Vec<Encoded> {
        let mut rng = Rng::new(9);
        let mut out = Vec::new();
        while out.len() < n {
            let mut pos = Position::START;
            while !pos.is_game_over() && out.len() < n {
                let sample = Sample {
                    pos,
                    score: (rng.below(801) as i16) - 400,
                    result: rng.below(3) as i8 - 1,
                    exact: false,
                };
                out.push(Encoded::new(&sample, 0.3));
                pos.play(pos.random_move(&mut rng));
            }
        }
        out
    }

    #[test]
    fn a_wide_second_layer_steps_slower_and_the_first_as_told() {
        assert!(Layout::new(128, 1).rates(1.0).iter().all(|&r| r == 1.0));
        let layout = Layout::new(512, 1);
        let rates = layout.rates(0.5);
        let hidden_rows = layout.w2..layout.w2 + 2 * 512 * HIDDEN2;
        for (i, &rate) in rates.iter().enumerate() {
            let expected = if hidden_rows.contains(&i) {
                0.25
            } else if i < layout.w2 {
                0.5
            } else {
                1.0
            };
            assert_eq!(rate, expected, "parameter {i}");
        }
    }

    #[test]
    fn the_forward_pass_is_the_float_network_s() {
        for buckets in [1, BUCKETS] {
            forward_pass_is_the_float_network_s(Layout::new(128, buckets));
        }
        forward_pass_is_the_float_network_s(Layout::with_maps(128, 1, MAPS));
    }

    fn forward_pass_is_the_float_network_s(layout: Layout) {
        let params = initial(&layout, &mut Rng::new(1));
        let net = export(&layout, &params);
        assert!(net.check().is_ok());
        let mut scratch = Scratch::new(&layout);
        let mut rng = Rng::new(2);
        let mut pos = Position::START;
        while !pos.is_game_over() {
            let side = pos.side_to_move();
            let e = Encoded::new(
                &Sample {
                    pos,
                    score: 0,
                    result: 0,
                    exact: false,
                },
                0.0,
            );
            let mut z2 = [0.0; HIDDEN2];
            let ours = active_features(&pos, side);
            let theirs = active_features(&pos, side.opponent());
            let bucket = net.bucket(pos.free().count());
            let (f, m) = features_and_maps(&pos);
            let expected = net.forward(&ours, &theirs, &scalars(&f), &m, bucket);
            let got = forward(&layout, &params, &e, &mut scratch, &mut z2);
            assert!((expected - got).abs() < 1e-4, "{expected} vs {got}");
            pos.play(pos.random_move(&mut rng));
        }
    }

    #[test]
    fn gradients_match_finite_differences() {
        // Positions from the start: all in the last bucket of four.
        gradients_match(Layout::new(128, 1), positions(8));
        gradients_match(Layout::new(128, BUCKETS), positions(8));
        // Later positions, in other buckets.
        let later = later_positions();
        let layout = Layout::new(128, BUCKETS);
        assert!(later.iter().any(|e| layout.bucket(e) < BUCKETS - 1));
        gradients_match(layout, later);
        // Squared first-layer outputs.
        let squared = Layout {
            activation: Activation::Squared,
            ..Layout::new(128, 1)
        };
        gradients_match(squared, positions(8));
        gradients_match(Layout::with_maps(128, 1, MAPS), positions(8));
    }

    #[test]
    fn a_leak_lets_a_dead_first_layer_learn_and_touches_nothing_else() {
        let layout = Layout::new(128, 1);
        let mut params = initial(&layout, &mut Rng::new(4));
        // Every first-layer neuron off for every position.
        params[layout.b1..layout.w2].fill(-30.0);
        let data = positions(40);
        let mut scratch = Scratch::new(&layout);
        let gradient = |leak: f32, scratch: &mut Scratch| {
            let mut grads = vec![0.0; layout.len];
            for e in &data {
                loss_and_gradient(&layout, &params, e, scratch, &mut grads, leak);
            }
            grads
        };
        let exact = gradient(0.0, &mut scratch);
        let leaky = gradient(0.01, &mut scratch);
        let first = layout.w1..layout.w2;
        assert!(exact[first.clone()].iter().all(|&g| g == 0.0));
        let moved = leaky[first.clone()].iter().filter(|&&g| g != 0.0).count();
        assert!(moved > first.len() / 2, "{moved} of {}", first.len());
        assert_eq!(exact[layout.w2..], leaky[layout.w2..]);
        // `loss` records them as never on.
        scratch.clear_on();
        for e in &data {
            loss(&layout, &params, e, &mut scratch);
        }
        assert!(scratch.on().iter().all(|&on| !on));
        params[layout.b1..layout.w2].fill(0.5);
        for e in &data {
            loss(&layout, &params, e, &mut scratch);
        }
        assert!(scratch.on().iter().all(|&on| on));
    }

    fn later_positions() -> Vec<Encoded> {
        positions(400).into_iter().step_by(9).take(40).collect()
    }

    fn gradients_match(layout: Layout, data: Vec<Encoded>) {
        let params = initial(&layout, &mut Rng::new(4));
        let mut scratch = Scratch::new(&layout);
        let total = |p: &[f32], scratch: &mut Scratch| -> f64 {
            data.iter()
                .map(|e| f64::from(loss(&layout, p, e, scratch)))
                .sum()
        };
        let mut grads = vec![0.0; layout.len];
        for e in &data {
            loss_and_gradient(&layout, &params, e, &mut scratch, &mut grads, 0.0);
        }
        // The parameters with the largest gradients in each array, where
        // a finite difference is far above rounding.
        let l = layout;
        for range in [
            l.w1..l.b1,
            l.b1..l.w2,
            l.w2..l.b2,
            l.b2..l.w3,
            l.w3..l.b3,
            l.b3..l.wm,
            l.wm..l.bm,
            l.bm..l.len,
        ]
        .into_iter()
        .filter(|r| !r.is_empty())
        {
            let i = range
                .max_by(|&a, &b| grads[a].abs().total_cmp(&grads[b].abs()))
                .unwrap();
            let step = 1e-3;
            let mut up = params.clone();
            up[i] += step;
            let mut down = params.clone();
            down[i] -= step;
            let numeric =
                (total(&up, &mut scratch) - total(&down, &mut scratch)) / (2.0 * f64::from(step));
            let analytic = f64::from(grads[i]);
            assert!(
                (numeric - analytic).abs() <= 0.02 * analytic.abs() + 1e-5,
                "parameter {i}: numeric {numeric}, analytic {analytic}"
            );
        }
    }
}
