//! Dirichlet noise for the root's priors, drawn from the engine's seeded
//! generator so that a search is the same for the same seed.

use yolah::Rng;

/// A uniform float in `(0, 1)`.
#[inline]
pub fn uniform(rng: &mut Rng) -> f64 {
    ((rng.next_u64() >> 11) as f64 + 0.5) * (1.0 / (1u64 << 53) as f64)
}

/// A standard normal (Box-Muller; one of the pair is dropped).
fn normal(rng: &mut Rng) -> f64 {
    let (u, v) = (uniform(rng), uniform(rng));
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

/// A Gamma(`shape`, 1) draw: Marsaglia and Tsang's method, with the
/// `U^(1/shape)` boost for shapes below 1.
pub fn gamma(rng: &mut Rng, shape: f64) -> f64 {
    if shape < 1.0 {
        return gamma(rng, shape + 1.0) * uniform(rng).powf(1.0 / shape);
    }
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = normal(rng);
        let v = (1.0 + c * x).powi(3);
        if v <= 0.0 {
            continue;
        }
        let u = uniform(rng);
        if u.ln() < 0.5 * x * x + d * (1.0 - v + v.ln()) {
            return d * v;
        }
    }
}

/// Draws from a symmetric Dirichlet distribution, into a buffer it keeps.
#[derive(Clone, Debug)]
pub struct Dirichlet {
    alpha: f64,
    sample: Vec<f32>,
}

impl Dirichlet {
    /// The distribution of concentration `alpha` (> 0) per component.
    pub fn new(alpha: f32) -> Dirichlet {
        Dirichlet {
            alpha: f64::from(alpha.max(1e-3)),
            sample: Vec::with_capacity(yolah::MAX_MOVES),
        }
    }

    /// A draw of `n` components summing to 1.
    pub fn sample(&mut self, rng: &mut Rng, n: usize) -> &[f32] {
        let draws: Vec<f64> = (0..n).map(|_| gamma(rng, self.alpha)).collect();
        let total: f64 = draws.iter().sum();
        self.sample.clear();
        if total > 0.0 {
            self.sample
                .extend(draws.iter().map(|&g| (g / total) as f32));
        } else {
            self.sample.resize(n, 1.0 / n.max(1) as f32);
        }
        &self.sample
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gamma_has_its_mean() {
        let mut rng = Rng::new(5);
        for shape in [0.3, 1.0, 4.0] {
            let n = 40_000;
            let mean = (0..n).map(|_| gamma(&mut rng, shape)).sum::<f64>() / f64::from(n);
            assert!(
                (mean - shape).abs() < 0.05 * shape.max(1.0),
                "{shape}: {mean}"
            );
        }
    }

    #[test]
    fn dirichlet_sums_to_one_and_repeats_for_a_seed() {
        let mut d = Dirichlet::new(0.3);
        let a = d.sample(&mut Rng::new(1), 30).to_vec();
        assert!((a.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert!(a.iter().all(|&x| x >= 0.0));
        assert_eq!(d.sample(&mut Rng::new(1), 30), a.as_slice());
    }
}
