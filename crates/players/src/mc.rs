//! Flat Monte Carlo: random playouts after each legal move, best mean wins.

use crate::budget::{Budget, Clock};
use crate::limits::REPORT_EVERY;
use crate::player::{Analysis, Player, Search};
use crate::score::Score;
use crate::spec::{FromSpec, Spec, SpecError};
use yolah::playout::random_game;
use yolah::{Move, Position, Rng};

/// Flat Monte Carlo player.
pub struct MonteCarlo {
    spec: String,
    budget: Budget,
    rng: Rng,
}

impl MonteCarlo {
    /// A player running `budget` playouts (spread over the moves) or time.
    pub fn new(budget: Budget, seed: u64) -> MonteCarlo {
        MonteCarlo {
            spec: "mc".into(),
            budget,
            rng: Rng::new(seed),
        }
    }
}

impl FromSpec for MonteCarlo {
    fn keys() -> Vec<&'static str> {
        vec!["playouts", "time", "seed"]
    }

    fn from_spec(spec: &Spec) -> Result<MonteCarlo, SpecError> {
        let budget = spec.budget("playouts", Budget::Count(20_000))?;
        let mut player = MonteCarlo::new(budget, spec.seed()?);
        player.spec = spec.text().to_string();
        Ok(player)
    }
}

impl Player for MonteCarlo {
    fn spec(&self) -> &str {
        &self.spec
    }

    fn search(&mut self, pos: &Position, mut search: Search<'_>) -> Analysis {
        let budget = search.monte_carlo_budget(self.budget);
        let clock = Clock::start(budget, search.stop);
        let mut reported = std::time::Duration::ZERO;
        let me = pos.side_to_move();
        let moves = pos.legal_moves();
        let children: Vec<(Move, Position)> = moves
            .iter()
            .map(|&m| {
                let mut child = *pos;
                child.play(m);
                (m, child)
            })
            .collect();
        let mut totals = vec![0.0f64; children.len()];
        let mut runs = 0u64;
        let mut rounds = 0u64;
        // Round robin over the moves, so every move has as many playouts
        // whenever the budget stops the search.
        if children.len() > 1 {
            'search: loop {
                for (total, (_, child)) in totals.iter_mut().zip(&children) {
                    let budget_spent = match budget {
                        Budget::Count(n) => runs >= n,
                        Budget::Time(_) | Budget::Depth(_) | Budget::Infinite => false,
                    };
                    // Every move gets one playout before the clock counts.
                    let done =
                        budget_spent || (runs.is_multiple_of(64) && rounds > 0 && clock.expired());
                    if done {
                        break 'search;
                    }
                    *total += random_game(*child, &mut self.rng).outcome().points(me);
                    runs += 1;
                }
                rounds += 1;
                if search.progress.is_some() && clock.elapsed() >= reported + REPORT_EVERY {
                    reported = clock.elapsed();
                    let now = summary(&children, &totals, runs, rounds, &clock);
                    search.report(&now);
                }
            }
        }
        summary(&children, &totals, runs, rounds, &clock)
    }
}

/// The best move by mean result so far.
fn summary(
    children: &[(Move, Position)],
    totals: &[f64],
    runs: u64,
    rounds: u64,
    clock: &Clock,
) -> Analysis {
    let (best, mean) = totals
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let n = rounds + u64::from((i as u64) < runs % children.len() as u64);
            (i, t / n.max(1) as f64)
        })
        .fold((0, f64::MIN), |acc, x| if x.1 > acc.1 { x } else { acc });
    let best_move = children[best].0;
    Analysis {
        best_move,
        score: if children.len() > 1 {
            Score::WinRate(mean)
        } else {
            Score::Unknown
        },
        depth: None,
        iterations: Some(runs),
        nodes: runs,
        seconds: clock.seconds(),
        pv: vec![best_move],
    }
}
