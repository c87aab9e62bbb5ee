//! AlphaZero-style play: a policy-value network guiding a PUCT search.
//!
//! * [`encoding`]: what a learner sees of a position (planes and scores
//!   from the side to move's point of view) and how it names moves
//!   (`from * 64 + to`); `yolah.vector` and `yolah.search` in Python use the
//!   same definition;
//! * [`tree`]: the search tree of one game (PUCT as in DeepMind's `mctx`,
//!   a fixed arena, subtrees kept between moves), which `yolah.search`
//!   drives for many games at once with a Python evaluator;
//! * [`noise`]: Dirichlet noise for the root;
//! * [`net`]: the small network `python/examples/alphazero.py` trains and
//!   exports, and its forward pass;
//! * [`AlphaZero`], the `az` player: the tree searched with the network,
//!   natively, one leaf at a time.
//!
//! ```sh
//! yolah match az:net=az.bin,sims=200 mcts:iterations=20000 --games 200
//! ```

pub mod encoding;
pub mod net;
pub mod noise;
pub mod tree;

use crate::budget::{Budget, Clock};
use crate::player::{Analysis, Player, Search};
use crate::score::Score;
use crate::spec::{FromSpec, Spec, SpecError};
use encoding::ACTIONS;
use net::{AzNet, Output};
use std::sync::Arc;
use tree::{Descent, Leaf, Puct, Tree};
use yolah::{Position, Rng};

/// Simulations a move when the spec gives neither `sims=` nor `time=`.
pub const DEFAULT_SIMULATIONS: u64 = 200;

/// The `az` player: PUCT search with the network's priors and values, no
/// noise, the most visited move. Keeps its tree between moves. A count
/// budget counts the simulations after the root is valued.
pub struct AlphaZero {
    spec: String,
    net: Arc<AzNet>,
    budget: Budget,
    puct: Puct,
    tree: Tree,
    /// Scratch: the network's buffers and one leaf's logits.
    output: Output,
    logits: Vec<f32>,
    descent: Descent,
    /// Draws nothing today (the search has no noise and plays the most
    /// visited move); kept so that `seed=` is accepted like every player's.
    _rng: Rng,
}

impl FromSpec for AlphaZero {
    fn keys() -> Vec<&'static str> {
        vec!["net", "sims", "time", "c", "fpu", "nodes", "seed"]
    }

    fn from_spec(spec: &Spec) -> Result<AlphaZero, SpecError> {
        let path = spec.value("net").ok_or_else(|| {
            spec.missing(
                "net",
                "az needs net=FILE, a network exported by python/examples/alphazero.py",
            )
        })?;
        let net = AzNet::load(path)
            .map_err(|e| spec.bad_value("net", path, &format!("cannot be used: {e}")))?;
        let budget = spec.budget("sims", Budget::Count(DEFAULT_SIMULATIONS))?;
        let defaults = Puct::default();
        let puct = Puct {
            c_init: spec.float("c")?.map_or(defaults.c_init, |c| c as f32),
            fpu_reduction: spec
                .float("fpu")?
                .map_or(defaults.fpu_reduction, |f| f as f32),
            ..defaults
        };
        let nodes = spec.number("nodes")?.unwrap_or(1 << 20);
        if !(Tree::MIN_CAPACITY as u64..=1 << 28).contains(&nodes) {
            let range = format!("must be from {} to 2^28", Tree::MIN_CAPACITY);
            return Err(spec.bad_value("nodes", nodes, &range));
        }
        let mut player = AlphaZero::new(Arc::new(net), budget, puct, nodes as usize, spec.seed()?);
        player.spec = spec.text().to_string();
        Ok(player)
    }
}

impl AlphaZero {
    /// A player searching with `net` within `budget` (a count budget
    /// counts simulations), on a tree of at most `nodes` nodes.
    pub fn new(net: Arc<AzNet>, budget: Budget, puct: Puct, nodes: usize, seed: u64) -> AlphaZero {
        let output = net.output();
        AlphaZero {
            spec: "az".into(),
            net,
            budget,
            puct,
            tree: Tree::new(nodes),
            output,
            logits: vec![0.0; ACTIONS],
            descent: Descent::default(),
            _rng: Rng::new(seed),
        }
    }

    /// One simulation: down to a leaf, the network there, and back up.
    fn simulate(&mut self) {
        let value = match self.tree.descend(&self.puct, &mut self.descent) {
            Leaf::Known(v) => v,
            Leaf::Evaluate => {
                let pos = *self.descent.position();
                self.net.forward(
                    &encoding::planes(&pos),
                    encoding::scores(&pos),
                    &mut self.output,
                );
                // Only the legal moves' logits are read.
                for &m in pos.legal_moves().iter() {
                    let a = encoding::action_index(m);
                    self.logits[a] = self.output.logit(a);
                }
                self.tree.expand(&self.descent, &self.logits);
                self.output.value()
            }
        };
        self.tree.backup(&self.descent, value);
    }
}

impl Player for AlphaZero {
    fn spec(&self) -> &str {
        &self.spec
    }

    fn new_game(&mut self) {
        self.tree.clear();
    }

    fn search(&mut self, pos: &Position, search: Search<'_>) -> Analysis {
        let budget = search.monte_carlo_budget(self.budget);
        let clock = Clock::start(budget, search.stop);
        self.tree.set_root(pos);
        // The root's own valuation is not one of the simulations (as in
        // mctx and `yolah.search`).
        if !self.tree.root_expanded() {
            self.simulate();
        }
        let single = pos.legal_move_count() == 1;
        let mut sims = 0u64;
        loop {
            let done = match budget {
                Budget::Count(n) => sims >= n,
                _ => sims.is_multiple_of(16) && clock.expired(),
            };
            if done || (single && sims > 0) {
                break;
            }
            self.simulate();
            sims += 1;
        }
        let best_move = self
            .tree
            .best_move()
            .unwrap_or_else(|| pos.legal_moves()[0]);
        let q = self
            .tree
            .root_children()
            .find(|c| c.mv == best_move)
            .map_or(self.tree.root_value(), |c| c.q);
        Analysis {
            best_move,
            score: Score::WinRate(f64::from((q + 1.0) / 2.0)),
            depth: None,
            iterations: Some(sims),
            nodes: sims,
            seconds: clock.seconds(),
            pv: self.tree.principal_variation(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use net::Shape;

    fn player(sims: u64) -> AlphaZero {
        let shape = Shape {
            inputs: net::INPUTS_WITH_REACH,
            hidden1: 32,
            hidden2: 32,
            rank: 4,
        };
        let net = Arc::new(AzNet::random(shape, 0.2, 7));
        AlphaZero::new(net, Budget::Count(sims), Puct::default(), 1 << 16, 1)
    }

    #[test]
    fn plays_legal_moves_to_the_end_and_repeats_itself() {
        let mut moves = Vec::new();
        for _ in 0..2 {
            let (mut p, mut pos, mut game) = (player(50), Position::START, Vec::new());
            while !pos.is_game_over() {
                let a = p.analyse(&pos);
                assert!(pos.legal_moves().contains(a.best_move));
                assert!(matches!(a.score, Score::WinRate(w) if (0.0..=1.0).contains(&w)));
                game.push(a.best_move);
                pos.play(a.best_move);
            }
            moves.push(game);
        }
        assert_eq!(moves[0], moves[1]);
    }

    #[test]
    fn specs_are_checked() {
        fn az(text: &str) -> Result<(), SpecError> {
            AlphaZero::from_spec(&Spec::parse(text)?).map(|_| ())
        }
        fn e(text: &str) -> String {
            az(text).unwrap_err().to_string()
        }
        assert!(e("az").contains("net=FILE"));
        assert!(e("az:net=/no/such.bin").contains("/no/such.bin"));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("az.bin");
        std::fs::write(&path, player(1).net.to_bytes()).unwrap();
        let p = path.display();
        assert!(az(&format!("az:net={p},sims=10,c=2,seed=3")).is_ok());
        assert!(e(&format!("az:net={p},sims=0")).contains("sims=0"));
        assert!(e(&format!("az:net={p},nodes=5")).contains("nodes=5"));
        assert!(e(&format!("az:net={p},sims=5,time=1s")).contains("not both"));
    }
}
