//! Elo ratings from game results: maximum likelihood (Bradley-Terry, draws
//! as half points) with 95% intervals, and the sequential probability ratio
//! test engine testers use to stop a match early.

/// The result of one game between players `a` and `b`: `a`'s points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GameResult {
    /// First player (index).
    pub a: usize,
    /// Second player (index).
    pub b: usize,
    /// `a`'s points: 1, 0.5 or 0.
    pub points: f64,
}

/// A player's rating.
#[derive(Clone, Debug, PartialEq)]
pub struct Rating {
    /// Elo, relative to the anchor (which is 0).
    pub elo: f64,
    /// Half width of the 95% interval.
    pub ci95: f64,
    /// Games played.
    pub games: u64,
    /// Points scored.
    pub points: f64,
}

/// Natural-log strength units to Elo.
const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;

/// Weight of the virtual draw added to every pair that played: it keeps a
/// perfect (or zero) score finite and barely moves the others.
const PRIOR_GAMES: f64 = 0.5;

/// Maximum-likelihood Elo of `players` players from `results`, the player
/// `anchor` fixed at 0. Each pair that met also gets half a virtual draw.
///
/// ```
/// use yolah_lab::ratings::{rate, GameResult};
///
/// // 3 wins in 4 games: +191 Elo, less the pull of the virtual draw.
/// let games: Vec<GameResult> = [1.0, 1.0, 1.0, 0.0].iter().map(|&p| GameResult { a: 1, b: 0, points: p }).collect();
/// let r = rate(2, &games, 0);
/// assert!(r[1].elo > 150.0 && r[1].elo < 191.0);
/// ```
pub fn rate(players: usize, results: &[GameResult], anchor: usize) -> Vec<Rating> {
    // n[i][j]: games between i and j (with the prior); w[i]: i's points.
    let mut n = vec![vec![0.0f64; players]; players];
    let mut w = vec![0.0f64; players];
    let mut games = vec![0u64; players];
    let mut points = vec![0.0f64; players];
    for r in results {
        n[r.a][r.b] += 1.0;
        n[r.b][r.a] += 1.0;
        games[r.a] += 1;
        games[r.b] += 1;
        points[r.a] += r.points;
        points[r.b] += 1.0 - r.points;
    }
    for (i, row) in n.iter_mut().enumerate() {
        let met = row.iter().filter(|&&games| games > 0.0).count();
        for games in row.iter_mut().filter(|g| **g > 0.0) {
            *games += PRIOR_GAMES;
        }
        w[i] = points[i] + 0.5 * PRIOR_GAMES * met as f64;
    }
    // Minorisation-maximisation (Hunter 2004): g_i <- w_i / sum_j n_ij / (g_i + g_j).
    let mut g = vec![1.0f64; players];
    for _ in 0..10_000 {
        let mut change = 0.0f64;
        for i in 0..players {
            let denom: f64 = (0..players)
                .filter(|&j| j != i && n[i][j] > 0.0)
                .map(|j| n[i][j] / (g[i] + g[j]))
                .sum();
            if denom > 0.0 && w[i] > 0.0 {
                let new = w[i] / denom;
                change = change.max((new / g[i]).ln().abs());
                g[i] = new;
            }
        }
        let norm = g[anchor];
        g.iter_mut().for_each(|x| *x /= norm);
        if change < 1e-12 {
            break;
        }
    }
    let theta: Vec<f64> = g.iter().map(|x| x.ln()).collect();
    let variance = covariance_diagonal(&n, &theta, anchor);
    (0..players)
        .map(|i| Rating {
            elo: ELO_PER_NAT * theta[i],
            ci95: 1.96 * ELO_PER_NAT * variance[i].sqrt(),
            games: games[i],
            points: points[i],
        })
        .collect()
}

/// Diagonal of the inverse Fisher information of the log strengths, the
/// anchor held fixed (its variance is 0).
fn covariance_diagonal(n: &[Vec<f64>], theta: &[f64], anchor: usize) -> Vec<f64> {
    let k = theta.len();
    let free: Vec<usize> = (0..k).filter(|&i| i != anchor).collect();
    let m = free.len();
    // Information matrix of the free parameters.
    let mut h = vec![vec![0.0f64; m]; m];
    for (a, &i) in free.iter().enumerate() {
        for j in 0..k {
            if j == i || n[i][j] == 0.0 {
                continue;
            }
            let p = 1.0 / (1.0 + (theta[j] - theta[i]).exp());
            let info = n[i][j] * p * (1.0 - p);
            h[a][a] += info;
            if let Some(b) = free.iter().position(|&f| f == j) {
                h[a][b] -= info;
            }
        }
    }
    let inverse = invert(h);
    let mut var = vec![0.0; k];
    for (a, &i) in free.iter().enumerate() {
        var[i] = inverse
            .as_ref()
            .map_or(f64::INFINITY, |inv| inv[a][a].max(0.0));
    }
    var
}

/// Gauss-Jordan inverse; `None` if singular (a player cut off from the anchor).
fn invert(mut a: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let mut inv: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| f64::from(u8::from(i == j))).collect())
        .collect();
    for col in 0..n {
        let pivot = (col..n).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))?;
        if a[pivot][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        inv.swap(col, pivot);
        let p = a[col][col];
        for j in 0..n {
            a[col][j] /= p;
            inv[col][j] /= p;
        }
        for row in 0..n {
            if row != col {
                let f = a[row][col];
                for j in 0..n {
                    a[row][j] -= f * a[col][j];
                    inv[row][j] -= f * inv[col][j];
                }
            }
        }
    }
    Some(inv)
}

/// The Elo difference that makes `score` (0..1) the expected score: the
/// inverse of [`expected_score`].
///
/// ```
/// let d = yolah_lab::ratings::elo_from_score(0.75);
/// assert!((d - 190.85).abs() < 0.01);
/// assert!((yolah_lab::ratings::expected_score(d) - 0.75).abs() < 1e-12);
/// ```
pub fn elo_from_score(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// Expected score of a player `elo` points stronger.
pub fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// A sequential probability ratio test of H0: Elo = `elo0` against H1: Elo
/// = `elo1`, with error rates `alpha` and `beta`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// Elo under the null hypothesis.
    pub elo0: f64,
    /// Elo under the alternative.
    pub elo1: f64,
    /// False positive rate.
    pub alpha: f64,
    /// False negative rate.
    pub beta: f64,
}

/// Why a text is not an SPRT specification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseSprtError(String);

impl std::fmt::Display for ParseSprtError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseSprtError {}

/// Where an SPRT stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtState {
    /// H1 accepted: A is at least `elo1` stronger.
    AcceptH1,
    /// H0 accepted: A is no more than `elo0` stronger.
    AcceptH0,
    /// More games needed.
    Continue,
}

impl Sprt {
    /// Parses `elo0=0,elo1=10[,alpha=0.05,beta=0.05]`.
    pub fn parse(text: &str) -> Result<Sprt, ParseSprtError> {
        Sprt::parse_message(text).map_err(ParseSprtError)
    }

    fn parse_message(text: &str) -> Result<Sprt, String> {
        let mut sprt = Sprt {
            elo0: f64::NAN,
            elo1: f64::NAN,
            alpha: 0.05,
            beta: 0.05,
        };
        for part in text.split(',') {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| format!("{part:?} is not key=value (as in elo0=0,elo1=10)"))?;
            let v: f64 = value
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite())
                .ok_or_else(|| format!("{key}={value} is not a number"))?;
            match key {
                "elo0" => sprt.elo0 = v,
                "elo1" => sprt.elo1 = v,
                "alpha" if v > 0.0 && v < 0.5 => sprt.alpha = v,
                "beta" if v > 0.0 && v < 0.5 => sprt.beta = v,
                "alpha" | "beta" => {
                    return Err(format!("{key}={value} must lie between 0 and 0.5"))
                }
                _ => {
                    return Err(format!(
                        "unknown SPRT key {key:?} (elo0, elo1, alpha, beta)"
                    ))
                }
            }
        }
        if sprt.elo0.is_nan() || sprt.elo1.is_nan() {
            return Err("the SPRT needs elo0= and elo1=".into());
        }
        if sprt.elo1 <= sprt.elo0 {
            return Err("elo1 must be above elo0".into());
        }
        Ok(sprt)
    }

    /// The decision bounds of the log-likelihood ratio (lower, upper).
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of per-game points (normal approximation of
    /// the trinomial model, as in engine testing frameworks).
    pub fn llr(&self, points: &[f64]) -> f64 {
        let n = points.len() as f64;
        if n < 2.0 {
            return 0.0;
        }
        let mean = points.iter().sum::<f64>() / n;
        let mut var = points.iter().map(|p| (p - mean).powi(2)).sum::<f64>() / n;
        if var == 0.0 {
            // All games ended alike: use a coin's variance at a score kept
            // half a game inside (0, 1), so a sweep still decides.
            let p = mean.clamp(0.5 / n, 1.0 - 0.5 / n);
            var = p * (1.0 - p);
        }
        let (s0, s1) = (expected_score(self.elo0), expected_score(self.elo1));
        n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
    }

    /// The decision after these games.
    pub fn state(&self, points: &[f64]) -> SprtState {
        let llr = self.llr(points);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtState::AcceptH1
        } else if llr <= lower {
            SprtState::AcceptH0
        } else {
            SprtState::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn games(a: usize, b: usize, wins: u32, draws: u32, losses: u32) -> Vec<GameResult> {
        let mut v = Vec::new();
        v.extend((0..wins).map(|_| GameResult { a, b, points: 1.0 }));
        v.extend((0..draws).map(|_| GameResult { a, b, points: 0.5 }));
        v.extend((0..losses).map(|_| GameResult { a, b, points: 0.0 }));
        v
    }

    #[test]
    fn seventy_five_percent_is_191_elo() {
        // Many games so that the virtual draw does not matter.
        let r = rate(2, &games(1, 0, 7500, 0, 2500), 0);
        assert!((r[1].elo - 190.85).abs() < 1.0, "{r:?}");
        assert_eq!(r[0].elo, 0.0);
        assert!(r[1].ci95 > 5.0 && r[1].ci95 < 20.0);
        assert_eq!((r[1].games, r[1].points), (10_000, 7_500.0));
        // Draws count as half points: 50 wins and 100 draws of 200 is 50%.
        let r = rate(2, &games(0, 1, 50, 100, 50), 0);
        assert!(r[1].elo.abs() < 1e-6);
    }

    #[test]
    fn ratings_are_transitive_and_anchored() {
        // A beats B 75%, B beats C 75%: C is about -382 from A.
        let mut all = games(0, 1, 3000, 0, 1000);
        all.extend(games(1, 2, 3000, 0, 1000));
        let r = rate(3, &all, 0);
        assert!((r[1].elo + 190.85).abs() < 2.0, "{r:?}");
        assert!((r[2].elo + 381.7).abs() < 4.0, "{r:?}");
        let r = rate(3, &all, 2);
        assert_eq!(r[2].elo, 0.0);
        assert!((r[0].elo - 381.7).abs() < 4.0);
    }

    #[test]
    fn perfect_scores_stay_finite() {
        let r = rate(2, &games(0, 1, 10, 0, 0), 1);
        assert!(r[0].elo.is_finite() && r[0].elo > 300.0, "{r:?}");
        assert!(r[0].ci95.is_finite());
    }

    #[test]
    fn sprt_decides() {
        let sprt = Sprt::parse("elo0=0,elo1=10").unwrap();
        let (lo, hi) = sprt.bounds();
        assert!((lo + 2.944).abs() < 0.001 && (hi - 2.944).abs() < 0.001);
        let strong: Vec<f64> = (0..400)
            .map(|i| if i % 4 == 0 { 0.0 } else { 1.0 })
            .collect();
        assert_eq!(sprt.state(&strong), SprtState::AcceptH1);
        let weak: Vec<f64> = (0..400)
            .map(|i| if i % 4 == 0 { 1.0 } else { 0.0 })
            .collect();
        assert_eq!(sprt.state(&weak), SprtState::AcceptH0);
        assert_eq!(sprt.state(&[1.0, 0.0, 0.5]), SprtState::Continue);
        assert_eq!(
            sprt.state(&[1.0; 40]),
            SprtState::AcceptH1,
            "a sweep decides"
        );
        assert_eq!(
            sprt.state(&[0.5; 40]),
            SprtState::Continue,
            "equal play needs more games"
        );
        assert!(Sprt::parse("elo0=5,elo1=1").is_err());
        assert!(Sprt::parse("elo0=0").is_err());
        assert!(Sprt::parse("elo0=0,elo1=5,gamma=1").is_err());
    }
}
