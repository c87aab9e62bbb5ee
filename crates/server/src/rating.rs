//! Glicko-2 ratings for people (Glickman, "Example of the Glicko-2
//! system", 2013): each rated game is a rating period of one game for each
//! side, as on lichess, so a rating moves after every game and its
//! deviation says how sure it is.

use std::f64::consts::PI;

/// Glicko's scale: 173.7178 rating points per unit of the Glicko-2 scale.
const SCALE: f64 = 173.7178;
/// The system constant τ: how much the volatility may change (Glickman
/// suggests 0.3 to 1.2).
const TAU: f64 = 0.5;
/// The convergence tolerance of the volatility's iteration.
const EPSILON: f64 = 0.000_001;

/// A person's rating.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// The rating, 1500 to start.
    pub rating: f64,
    /// Its deviation (RD), 350 to start: the smaller, the surer.
    pub deviation: f64,
    /// Its volatility σ, 0.06 to start.
    pub volatility: f64,
}

impl Default for Rating {
    fn default() -> Rating {
        Rating {
            rating: 1500.0,
            deviation: 350.0,
            volatility: 0.06,
        }
    }
}

/// `g(φ)`: how much an opponent's uncertainty weakens what a game says.
fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (PI * PI)).sqrt()
}

/// The expected score against an opponent at `mu_j` with deviation `phi_j`.
fn expected(mu: f64, mu_j: f64, phi_j: f64) -> f64 {
    1.0 / (1.0 + (-g(phi_j) * (mu - mu_j)).exp())
}

impl Rating {
    /// The rating shown: a whole number.
    pub fn shown(self) -> i32 {
        self.rating.round() as i32
    }

    /// The rating after one period of `games`: each the opponent's rating
    /// before it and the score (1 a win, 0.5 a draw, 0 a loss).
    pub fn after(self, games: &[(Rating, f64)]) -> Rating {
        let mu = (self.rating - 1500.0) / SCALE;
        let phi = self.deviation / SCALE;
        if games.is_empty() {
            let phi = (phi * phi + self.volatility * self.volatility).sqrt();
            return Rating {
                deviation: phi * SCALE,
                ..self
            };
        }
        let mut inverse_v = 0.0;
        let mut sum = 0.0;
        for (opponent, score) in games {
            let mu_j = (opponent.rating - 1500.0) / SCALE;
            let phi_j = opponent.deviation / SCALE;
            let e = expected(mu, mu_j, phi_j);
            inverse_v += g(phi_j) * g(phi_j) * e * (1.0 - e);
            sum += g(phi_j) * (score - e);
        }
        let v = 1.0 / inverse_v;
        let delta = v * sum;
        let volatility = self.new_volatility(phi, v, delta);
        let phi_star = (phi * phi + volatility * volatility).sqrt();
        let phi = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
        let mu = mu + phi * phi * sum;
        Rating {
            rating: mu * SCALE + 1500.0,
            deviation: phi * SCALE,
            volatility,
        }
    }

    /// The new volatility σ' (the paper's step 5: the Illinois algorithm
    /// on f).
    fn new_volatility(self, phi: f64, v: f64, delta: f64) -> f64 {
        let a = (self.volatility * self.volatility).ln();
        let f = |x: f64| {
            let ex = x.exp();
            ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex).powi(2))
                - (x - a) / (TAU * TAU)
        };
        let mut lo = a;
        let mut hi = if delta * delta > phi * phi + v {
            (delta * delta - phi * phi - v).ln()
        } else {
            let mut k = 1.0;
            while f(a - k * TAU) < 0.0 {
                k += 1.0;
            }
            a - k * TAU
        };
        let (mut f_lo, mut f_hi) = (f(lo), f(hi));
        while (hi - lo).abs() > EPSILON {
            let c = lo + (lo - hi) * f_lo / (f_hi - f_lo);
            let f_c = f(c);
            if f_c * f_hi <= 0.0 {
                lo = hi;
                f_lo = f_hi;
            } else {
                f_lo /= 2.0;
            }
            hi = c;
            f_hi = f_c;
        }
        (lo / 2.0).exp()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(rating: f64, deviation: f64) -> Rating {
        Rating {
            rating,
            deviation,
            volatility: 0.06,
        }
    }

    #[test]
    fn glickmans_example_comes_out() {
        // The paper's example: a win against 1400, losses against 1550
        // and 1700, from 1500 ± 200.
        let after = r(1500.0, 200.0).after(&[
            (r(1400.0, 30.0), 1.0),
            (r(1550.0, 100.0), 0.0),
            (r(1700.0, 300.0), 0.0),
        ]);
        assert!((after.rating - 1464.06).abs() < 0.01, "{after:?}");
        assert!((after.deviation - 151.52).abs() < 0.01, "{after:?}");
        assert!((after.volatility - 0.05999).abs() < 0.00001, "{after:?}");
    }

    #[test]
    fn a_win_raises_a_loss_lowers_and_a_period_without_games_widens() {
        let new = Rating::default();
        let won = new.after(&[(new, 1.0)]);
        let lost = new.after(&[(new, 0.0)]);
        let drawn = new.after(&[(new, 0.5)]);
        assert!(
            won.rating > 1500.0 && lost.rating < 1500.0,
            "{won:?} {lost:?}"
        );
        assert!((won.rating - 1500.0 + lost.rating - 1500.0).abs() < 1e-9);
        assert!((drawn.rating - 1500.0).abs() < 1e-9);
        assert!(won.deviation < 350.0);
        assert!(r(1500.0, 50.0).after(&[]).deviation > 50.0);
    }
}
