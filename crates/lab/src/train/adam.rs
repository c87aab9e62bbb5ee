//! AdamW (Loshchilov and Hutter): Adam's step with the weight decay applied
//! to the weights directly rather than through the gradient.

use super::in_parts;

const BETA1: f32 = 0.9;
const BETA2: f32 = 0.999;
const EPSILON: f32 = 1e-8;

/// The optimizer's state: the moving averages of every parameter's
/// gradient and squared gradient, and each parameter's share of the
/// learning rate.
pub(super) struct AdamW {
    m: Vec<f32>,
    v: Vec<f32>,
    rates: Vec<f32>,
    steps: i32,
    weight_decay: f32,
}

impl AdamW {
    /// An optimizer for `rates.len()` parameters, the `i`th stepping at
    /// `rates[i]` times the learning rate (and decaying at that rate).
    pub fn new(rates: Vec<f32>, weight_decay: f32) -> AdamW {
        AdamW {
            m: vec![0.0; rates.len()],
            v: vec![0.0; rates.len()],
            rates,
            steps: 0,
            weight_decay,
        }
    }

    /// One step on `params`, whose gradient is the sum of the `parts`
    /// (added in order) times `scale`. Element by element, so cutting the
    /// parameters among threads changes nothing.
    pub fn step(
        &mut self,
        params: &mut [f32],
        parts: &[Vec<f32>],
        scale: f32,
        learning_rate: f32,
        threads: usize,
    ) {
        self.steps += 1;
        let hyper = Hyper {
            correct1: 1.0 - BETA1.powi(self.steps),
            correct2: 1.0 - BETA2.powi(self.steps),
            learning_rate,
            weight_decay: self.weight_decay,
        };
        let per = params.len().div_ceil(threads.max(1));
        let mut slices: Vec<(&mut [f32], &mut [f32])> =
            self.m.chunks_mut(per).zip(self.v.chunks_mut(per)).collect();
        let mut weights: Vec<(&mut [f32], &[f32])> =
            params.chunks_mut(per).zip(self.rates.chunks(per)).collect();
        in_parts(&mut weights, &mut slices, threads, |k, weights, moments| {
            let at = k * per;
            let (w, rates) = weights;
            let (m, v) = moments;
            let moments = m.iter_mut().zip(v.iter_mut());
            let weights = w.iter_mut().zip(rates.iter());
            for (i, ((w, &rate), (m, v))) in weights.zip(moments).enumerate() {
                let mut g = 0.0f32;
                for part in parts {
                    g += part[at + i];
                }
                hyper.update(w, rate, m, v, g * scale);
            }
        });
    }
}

/// What one step applies to every parameter.
struct Hyper {
    correct1: f32,
    correct2: f32,
    learning_rate: f32,
    weight_decay: f32,
}

impl Hyper {
    /// Adam's update of one weight `w`, stepping at `rate` times the
    /// learning rate, given its gradient `g` and its moments `m` and `v`.
    #[inline(always)]
    fn update(&self, w: &mut f32, rate: f32, m: &mut f32, v: &mut f32, g: f32) {
        *m = BETA1 * *m + (1.0 - BETA1) * g;
        *v = BETA2 * *v + (1.0 - BETA2) * g * g;
        let step = (*m / self.correct1) / ((*v / self.correct2).sqrt() + EPSILON);
        let learning_rate = self.learning_rate * rate;
        *w = *w * (1.0 - learning_rate * self.weight_decay) - learning_rate * step;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_walks_down_a_quadratic_and_threads_change_nothing() {
        // Minimise Σ (w_i - i)²: gradient 2 (w_i - i), given in two parts.
        let run = |threads| {
            let mut w = vec![0.0f32; 10];
            let mut adam = AdamW::new(vec![1.0; 10], 0.0);
            for _ in 0..2000 {
                let g: Vec<f32> = w.iter().enumerate().map(|(i, &x)| x - i as f32).collect();
                adam.step(&mut w, &[g.clone(), g], 1.0, 0.05, threads);
            }
            w
        };
        let w = run(1);
        for (i, x) in w.iter().enumerate() {
            assert!((x - i as f32).abs() < 0.05, "{w:?}");
        }
        assert_eq!(run(3), w);
    }
}
