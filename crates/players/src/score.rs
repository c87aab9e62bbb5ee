//! What a position is worth to the side to move, in the units the players
//! use, and the conversions between them.
//!
//! Alpha-beta counts **centipoints**: 100 per point of expected final score
//! difference, with proven results beyond ±[`DECIDED`]. The Monte Carlo
//! players estimate a **win rate**, the expected result in 0..=1. The two
//! meet through the logistic curve the network is trained on: a win rate
//! `p` is `sigmoid(centipoints / CENTIPOINTS_PER_LOGIT)`.
//!
//! ```
//! use yolah_players::Score;
//!
//! assert_eq!(Score::Centipoints(0).win_rate(), Some(0.5));
//! let cp = Score::WinRate(0.75).centipoints().unwrap();
//! assert_eq!(cp, 439); // 400 · ln 3
//! assert!((Score::Centipoints(cp).win_rate().unwrap() - 0.75).abs() < 1e-3);
//! assert_eq!(Score::Unknown.centipoints(), None);
//! ```

use std::fmt;

/// A won game, in centipoints; results are ±`WIN` minus the plies to reach them.
pub const WIN: i32 = 30_000;
/// A win proven by bounds rather than played out: ±`BOUND_WIN` minus plies.
pub const BOUND_WIN: i32 = WIN - 500;
/// Scores beyond ±`DECIDED` are proven wins or losses, not estimates.
pub const DECIDED: i32 = WIN - 1_000;

/// Centipoints per unit of logit: the scale that links centipoints to an
/// expected result, in the network's output and in its training target.
pub const CENTIPOINTS_PER_LOGIT: i32 = 400;

/// The expected result (0 loss, ½ draw, 1 win) that `centipoints` stands for.
pub fn expected_result(centipoints: f64) -> f64 {
    1.0 / (1.0 + (-centipoints / f64::from(CENTIPOINTS_PER_LOGIT)).exp())
}

/// A player's value of a position, for its side to move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Score {
    /// Centipoints of expected final score difference (alpha-beta). Beyond
    /// ±[`DECIDED`] the result is proven: ±([`WIN`] − plies to the end).
    Centipoints(i32),
    /// The expected result in 0..=1 (1 win, ½ draw, 0 loss), as the Monte
    /// Carlo players estimate it.
    WinRate(f64),
    /// The player does not value positions (the random player).
    Unknown,
}

impl Score {
    /// The score in centipoints: a win rate `p` becomes
    /// `400 · ln(p / (1 − p))`, with `p` kept within 10⁻⁶ of 0 and 1 so that
    /// a certain estimate stays finite (±5,526).
    pub fn centipoints(self) -> Option<i32> {
        match self {
            Score::Centipoints(c) => Some(c),
            Score::WinRate(p) => {
                let p = p.clamp(1e-6, 1.0 - 1e-6);
                Some((f64::from(CENTIPOINTS_PER_LOGIT) * (p / (1.0 - p)).ln()).round() as i32)
            }
            Score::Unknown => None,
        }
    }

    /// The score as an expected result in 0..=1.
    pub fn win_rate(self) -> Option<f64> {
        match self {
            Score::Centipoints(c) => Some(expected_result(f64::from(c))),
            Score::WinRate(p) => Some(p),
            Score::Unknown => None,
        }
    }

    /// Whether the score is a proven result rather than an estimate.
    pub fn is_decided(self) -> bool {
        matches!(self, Score::Centipoints(c) if c.abs() > DECIDED)
    }

    /// The number as the player gave it, if any.
    pub fn value(self) -> Option<f64> {
        match self {
            Score::Centipoints(c) => Some(f64::from(c)),
            Score::WinRate(p) => Some(p),
            Score::Unknown => None,
        }
    }

    /// The unit of [`Score::value`]: `"centipoints"`, `"win_rate"` or
    /// `"none"`.
    pub fn unit(self) -> &'static str {
        match self {
            Score::Centipoints(_) => "centipoints",
            Score::WinRate(_) => "win_rate",
            Score::Unknown => "none",
        }
    }
}

/// `+135 cp`, `win rate 0.612`, `-`.
impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Score::Centipoints(c) => write!(f, "{c:+} cp"),
            Score::WinRate(p) => write!(f, "win rate {p:.3}"),
            Score::Unknown => f.write_str("-"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_are_each_others_inverse() {
        for p in [0.01, 0.2, 0.5, 0.9, 0.999] {
            let cp = Score::WinRate(p).centipoints().unwrap();
            assert!(
                (Score::Centipoints(cp).win_rate().unwrap() - p).abs() < 2e-3,
                "{p}"
            );
        }
        assert_eq!(Score::WinRate(1.0).centipoints(), Some(5526));
        assert_eq!(Score::WinRate(0.0).centipoints(), Some(-5526));
        assert!(Score::Centipoints(WIN - 3).is_decided());
        assert!(!Score::WinRate(1.0).is_decided());
    }
}
