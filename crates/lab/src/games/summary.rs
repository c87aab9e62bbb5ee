//! A match's totals and the Elo difference they imply, with its 95%
//! interval.

use crate::ratings::elo_from_score;

/// Win/draw/loss totals and the Elo difference they imply.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MatchSummary {
    /// Games played.
    pub games: u64,
    /// Games A won.
    pub a_wins: u64,
    /// Games B won.
    pub b_wins: u64,
    /// Drawn games.
    pub draws: u64,
    /// A's points (wins + half the draws).
    pub a_points: f64,
    /// A's Elo advantage over B.
    pub elo_diff: f64,
    /// Half width of the 95% confidence interval of `elo_diff` (infinite
    /// when the interval is open on one side).
    pub elo_ci95: f64,
    /// The 95% interval's lower end: −∞ when every game was lost.
    pub elo_low95: f64,
    /// The 95% interval's upper end: +∞ when every game was won.
    pub elo_high95: f64,
}

impl MatchSummary {
    /// Summarises A's points per game (each 0, 0.5 or 1).
    pub fn from_points(points: &[f64]) -> MatchSummary {
        let n = points.len() as u64;
        let count = |v: f64| points.iter().filter(|&&p| p == v).count() as u64;
        let total: f64 = points.iter().sum();
        let (elo_diff, low, high) = if n == 0 {
            (0.0, f64::NEG_INFINITY, f64::INFINITY)
        } else {
            let nf = n as f64;
            let mean = total / nf;
            // Keep the estimate inside (0, 1) so that a clean sweep still
            // gives a finite (large) number.
            let clamp = |p: f64| p.clamp(0.5 / nf, 1.0 - 0.5 / nf);
            let var = points.iter().map(|p| (p - mean).powi(2)).sum::<f64>() / nf;
            let (low, high) = if var == 0.0 {
                // Every game ended the same way (or there was one): no
                // spread to measure. Wilson's interval for a proportion
                // rather than a claim of certainty; after a sweep it is
                // open on the winner's side.
                wilson_interval(mean, nf)
            } else {
                let se = (var / nf).sqrt();
                (
                    (mean - 1.96 * se).clamp(0.0, 1.0),
                    (mean + 1.96 * se).clamp(0.0, 1.0),
                )
            };
            let elo = |p: f64| match p {
                0.0 => f64::NEG_INFINITY,
                1.0 => f64::INFINITY,
                _ => elo_from_score(p),
            };
            let (low, high) = if var == 0.0 {
                (elo(low), elo(high))
            } else {
                // As before: the ends of the normal interval, kept finite.
                (elo_from_score(clamp(low)), elo_from_score(clamp(high)))
            };
            // `+ 0.0` turns a negative zero into zero (no "-0" printed).
            (elo_from_score(clamp(mean)) + 0.0, low, high)
        };
        let elo_ci95 = (high - low) / 2.0;
        MatchSummary {
            games: n,
            a_wins: count(1.0),
            b_wins: count(0.0),
            draws: count(0.5),
            a_points: total,
            elo_diff,
            elo_ci95,
            elo_low95: low,
            elo_high95: high,
        }
    }
}

/// Wilson's 95% score interval for a proportion `p` observed over `n`
/// trials: never of width zero, and within [0, 1].
fn wilson_interval(p: f64, n: f64) -> (f64, f64) {
    let z2 = 1.96f64 * 1.96;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = 1.96 / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    let (low, high) = (centre - half, centre + half);
    // An end within rounding of 0 or 1 is that end.
    let snap = |x: f64| {
        if x < 1e-12 {
            0.0
        } else if x > 1.0 - 1e-12 {
            1.0
        } else {
            x
        }
    };
    (snap(low), snap(high))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_worked_examples() {
        assert!((elo_from_score(0.75) - 190.85).abs() < 0.01);
        assert!(elo_from_score(0.5).abs() < 1e-9);
        assert!((elo_from_score(0.25) + 190.85).abs() < 0.01);
        let s = MatchSummary::from_points(&[1.0, 1.0, 1.0, 0.0]);
        assert_eq!((s.a_wins, s.b_wins, s.draws, s.a_points), (3, 1, 0, 3.0));
        assert!((s.elo_diff - 190.85).abs() < 0.01);
        assert!(s.elo_ci95 > 100.0);
        let sweep = MatchSummary::from_points(&[1.0; 10]);
        assert!(sweep.elo_diff.is_finite() && sweep.elo_diff > 400.0);
        // A sweep bounds the difference from below only.
        assert_eq!(sweep.elo_high95, f64::INFINITY);
        assert!((sweep.elo_low95 - 166.0).abs() < 1.0, "{}", sweep.elo_low95);
        assert_eq!(sweep.elo_ci95, f64::INFINITY);
        let lost = MatchSummary::from_points(&[0.0; 2]);
        assert_eq!(lost.elo_low95, f64::NEG_INFINITY);
        assert!(lost.elo_high95.is_finite() && lost.elo_high95 > 0.0);
        // One game is no certainty either way.
        let one = MatchSummary::from_points(&[0.5]);
        assert_eq!(one.elo_diff.to_string(), "0");
        assert!(
            one.elo_ci95 > 300.0 && one.elo_ci95.is_finite(),
            "{}",
            one.elo_ci95
        );
        let split = MatchSummary::from_points(&[1.0, 0.0]);
        assert_eq!(split.elo_diff.to_string(), "0");
        // The usual case keeps the normal interval.
        assert!((s.elo_high95 + s.elo_low95) / 2.0 > 0.0);
        assert!((s.elo_ci95 - (s.elo_high95 - s.elo_low95) / 2.0).abs() < 1e-9);
    }
}
