//! The uniform random player.

use crate::budget::{Budget, Clock};
use crate::player::{Analysis, Player, Search};
use crate::score::Score;
use crate::spec::{FromSpec, Spec, SpecError};
use yolah::{Position, Rng};

/// Plays a uniformly random legal move.
pub struct RandomPlayer {
    spec: String,
    rng: Rng,
}

impl RandomPlayer {
    /// A random player with its own generator.
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer {
            spec: format!("random:seed={seed}"),
            rng: Rng::new(seed),
        }
    }
}

impl FromSpec for RandomPlayer {
    fn keys() -> Vec<&'static str> {
        vec!["seed"]
    }

    fn from_spec(spec: &Spec) -> Result<RandomPlayer, SpecError> {
        let mut player = RandomPlayer::new(spec.seed()?);
        player.spec = spec.text().to_string();
        Ok(player)
    }
}

impl Player for RandomPlayer {
    fn spec(&self) -> &str {
        &self.spec
    }

    fn search(&mut self, pos: &Position, search: Search<'_>) -> Analysis {
        let clock = Clock::start(Budget::Count(1), search.stop);
        let m = pos.random_move(&mut self.rng);
        Analysis {
            best_move: m,
            score: Score::Unknown,
            depth: None,
            iterations: None,
            nodes: 1,
            seconds: clock.seconds(),
            pv: vec![m],
        }
    }
}
