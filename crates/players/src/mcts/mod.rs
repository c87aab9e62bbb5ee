//! Monte Carlo tree search with UCT.
//!
//! The tree lives in an arena of fixed-size nodes allocated once, up front:
//! an iteration never allocates. A node is expanded (all its children added)
//! on its second visit; when the arena is full the search goes on without
//! expanding. Between moves the subtree of the new position is copied into
//! a second arena of the same size and the two are swapped, so the tree
//! built while thinking about earlier moves is reused.
//!
//! A new leaf is valued by a random playout to the end (`eval=playout`, the
//! default) or by the network's expected result (`eval=nn`, with `net=FILE`
//! for another network than the shipped one).

use crate::mc::playout;
use crate::nn::QuantNet;
use crate::{Analysis, Budget, Clock, Player, Score, Search, Spec, SpecError};
use yolah::{Color, Move, Position, Rng, MAX_MOVES};

/// One tree node: 16 bytes.
#[derive(Clone, Copy, Debug, Default)]
struct Node {
    /// The move from the parent.
    mv: Move,
    /// Children are `first_child .. first_child + children` (0: none yet;
    /// the root is node 0, so no child is ever there).
    children: u8,
    /// Total reward of the side that played `mv`.
    wins: f32,
    visits: u32,
    first_child: u32,
}

/// The longest game: 56 moves and as many passes, and then some.
const MAX_PATH: usize = 256;

/// How a new leaf is valued.
pub enum LeafValue {
    /// One uniformly random playout to the end of the game.
    Playout,
    /// The network's expected result, without a playout.
    Network(Box<QuantNet>),
}

/// MCTS player.
pub struct Mcts {
    spec: String,
    budget: Budget,
    exploration: f32,
    leaf: LeafValue,
    rng: Rng,
    nodes: Vec<Node>,
    spare: Vec<Node>,
    capacity: usize,
    /// The position at node 0, when the tree holds one.
    root: Option<Position>,
}

impl Mcts {
    /// A player with the given budget (iterations or time), exploration
    /// constant `c`, arena size in nodes, and seed.
    pub fn new(budget: Budget, exploration: f64, capacity: usize, seed: u64) -> Mcts {
        let capacity = capacity.max(256);
        Mcts {
            spec: "mcts".into(),
            budget,
            exploration: exploration as f32,
            leaf: LeafValue::Playout,
            rng: Rng::new(seed),
            nodes: Vec::new(),
            spare: Vec::new(),
            capacity,
            root: None,
        }
    }

    pub(crate) fn from_spec(spec: &Spec) -> Result<Mcts, SpecError> {
        spec.allow(&["iterations", "time", "c", "nodes", "eval", "net", "seed"])?;
        let leaf = match spec.text("eval").unwrap_or("playout") {
            "playout" if spec.text("net").is_some() => {
                return Err(spec.error("net= needs eval=nn"));
            }
            "playout" => LeafValue::Playout,
            "nn" => LeafValue::Network(Box::new(crate::spec::load_net(spec)?)),
            other => {
                return Err(spec.error(format!("eval={other} is not playout or nn")));
            }
        };
        let budget = spec.budget("iterations", Budget::Count(100_000))?;
        let c = spec.float("c")?.unwrap_or(0.7);
        let nodes = spec.number("nodes")?.unwrap_or(1 << 22);
        if !(256..=1 << 28).contains(&nodes) {
            return Err(spec.error(format!("nodes={nodes} must be from 256 to 2^28")));
        }
        let mut player = Mcts::new(budget, c, nodes as usize, spec.seed()?).with_leaf_value(leaf);
        player.spec = spec.text.to_string();
        Ok(player)
    }

    /// The same player valuing leaves by `leaf`.
    pub fn with_leaf_value(mut self, leaf: LeafValue) -> Mcts {
        self.leaf = leaf;
        self
    }

    /// Makes node 0 the position `pos`: reuses the subtree when `pos` is the
    /// old root or two plies or fewer below it, or starts a new tree.
    fn set_root(&mut self, pos: &Position) {
        let found = self.root.and_then(|root| {
            if root == *pos {
                return Some(0);
            }
            let mut frontier = vec![(0u32, root)];
            for _ in 0..2 {
                let mut next = Vec::new();
                for (index, p) in frontier {
                    let node = self.nodes[index as usize];
                    for child in node.first_child..node.first_child + u32::from(node.children) {
                        let mut q = p;
                        q.play(self.nodes[child as usize].mv);
                        if q == *pos {
                            return Some(child);
                        }
                        next.push((child, q));
                    }
                }
                frontier = next;
            }
            None
        });
        match found {
            Some(0) => {}
            Some(index) => self.keep_subtree(index),
            None => {
                self.nodes.clear();
                self.nodes.push(Node::default());
            }
        }
        self.root = Some(*pos);
    }

    /// Copies the subtree under `index` into the spare arena, breadth first,
    /// and swaps the arenas.
    fn keep_subtree(&mut self, index: u32) {
        self.spare.clear();
        let mut root = self.nodes[index as usize];
        root.mv = Move::PASS;
        self.spare.push(root);
        let mut next = 0;
        while next < self.spare.len() {
            let node = self.spare[next];
            if node.children > 0 {
                let first = self.spare.len() as u32;
                let old = node.first_child as usize;
                self.spare
                    .extend_from_slice(&self.nodes[old..old + usize::from(node.children)]);
                self.spare[next].first_child = first;
            }
            next += 1;
        }
        std::mem::swap(&mut self.nodes, &mut self.spare);
    }

    /// The child of `index` with the best UCT value; unvisited children first.
    #[inline]
    fn select_child(&self, index: usize) -> usize {
        let node = &self.nodes[index];
        let first = node.first_child as usize;
        let children = &self.nodes[first..first + usize::from(node.children)];
        let explore = self.exploration * (node.visits.max(1) as f32).ln().sqrt();
        let mut best = 0;
        let mut best_value = f32::MIN;
        for (i, child) in children.iter().enumerate() {
            if child.visits == 0 {
                return first + i;
            }
            let n = child.visits as f32;
            let value = child.wins / n + explore / n.sqrt();
            if value > best_value {
                best_value = value;
                best = i;
            }
        }
        first + best
    }

    /// One selection, expansion, leaf value and backup from the root.
    fn iterate(&mut self, root: &Position) {
        let mut path = [0u32; MAX_PATH];
        let mut depth = 1;
        let mut pos = *root;
        let mut index = 0usize;
        loop {
            let node = self.nodes[index];
            if node.children == 0 {
                let expand = node.visits > 0
                    && !pos.is_game_over()
                    && self.nodes.len() + MAX_MOVES <= self.capacity;
                if !expand {
                    break;
                }
                let first = self.nodes.len() as u32;
                let moves = pos.legal_moves();
                self.nodes.extend(moves.iter().map(|&mv| Node {
                    mv,
                    ..Node::default()
                }));
                self.nodes[index].first_child = first;
                self.nodes[index].children = moves.len() as u8;
            }
            if depth == MAX_PATH {
                break;
            }
            index = self.select_child(index);
            pos.play(self.nodes[index].mv);
            path[depth] = index as u32;
            depth += 1;
        }
        let black = match &self.leaf {
            LeafValue::Playout => playout(&pos, Color::Black, &mut self.rng),
            LeafValue::Network(net) => net.expected_result(&pos, Color::Black),
        };
        // Back up: a node's wins are for the side that moved into it, which
        // is the side to move at its parent.
        let mut side = pos.side_to_move();
        for &i in path[..depth].iter().rev() {
            side = side.opponent();
            let node = &mut self.nodes[i as usize];
            node.visits += 1;
            node.wins += if side == Color::Black {
                black
            } else {
                1.0 - black
            } as f32;
            if i == 0 {
                break;
            }
        }
    }

    /// The most visited child of `index`.
    fn most_visited(&self, index: usize) -> Option<usize> {
        let node = &self.nodes[index];
        let first = node.first_child as usize;
        (first..first + usize::from(node.children)).max_by_key(|&i| self.nodes[i].visits)
    }
}

impl Player for Mcts {
    fn spec(&self) -> &str {
        &self.spec
    }

    fn new_game(&mut self) {
        self.root = None;
        self.nodes.clear();
    }

    fn search(&mut self, pos: &Position, mut search: Search<'_>) -> Analysis {
        let budget = search.monte_carlo_budget(self.budget);
        let clock = Clock::start(budget, search.stop);
        let mut reported = std::time::Duration::ZERO;
        if self.nodes.capacity() < self.capacity {
            // The arenas are allocated by the first search, not by `new`: a
            // player that is made but never searches costs nothing.
            self.nodes.reserve_exact(self.capacity);
            self.spare.reserve_exact(self.capacity);
        }
        self.set_root(pos);
        let mut iterations = 0u64;
        let single = pos.legal_move_count() == 1;
        loop {
            let done = match budget {
                Budget::Count(n) => iterations >= n,
                Budget::Time(_) | Budget::Depth(_) | Budget::Infinite => false,
            } || (iterations.is_multiple_of(64) && iterations > 0 && clock.expired());
            if done || (single && iterations > 0) {
                break;
            }
            self.iterate(pos);
            iterations += 1;
            if iterations.is_multiple_of(256)
                && search.progress.is_some()
                && clock.elapsed() >= reported + Search::REPORT_EVERY
            {
                reported = clock.elapsed();
                let now = self.summary(pos, iterations, &clock);
                search.report(&now);
            }
        }
        self.summary(pos, iterations, &clock)
    }
}

impl Mcts {
    /// The most visited line from the root, and its win rate.
    fn summary(&self, pos: &Position, iterations: u64, clock: &Clock) -> Analysis {
        let mut pv = Vec::new();
        let mut index = 0;
        while let Some(child) = self.most_visited(index) {
            if self.nodes[child].visits == 0 {
                break;
            }
            pv.push(self.nodes[child].mv);
            index = child;
        }
        let best_move = pv.first().copied().unwrap_or_else(|| pos.legal_moves()[0]);
        let score = match self.most_visited(0) {
            Some(c) if self.nodes[c].visits > 0 => {
                Score::WinRate(f64::from(self.nodes[c].wins) / f64::from(self.nodes[c].visits))
            }
            _ => Score::WinRate(pos.outcome().points(pos.side_to_move())),
        };
        Analysis {
            best_move,
            score,
            depth: None,
            iterations: Some(iterations),
            nodes: iterations,
            seconds: clock.seconds(),
            pv,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuses_the_tree_after_two_plies() {
        let mut p = Mcts::new(Budget::Count(3000), 0.7, 1 << 18, 1);
        let a = p.analyse(&Position::START);
        let mut pos = Position::START;
        pos.play(a.best_move);
        pos.play(pos.legal_moves()[0]);
        let kept_before = p.nodes.len();
        p.set_root(&pos);
        assert!(p.nodes[0].visits > 0, "the subtree was kept");
        assert!(p.nodes.len() < kept_before);
        // Every kept child link stays inside the arena.
        for n in &p.nodes {
            assert!(n.first_child as usize + usize::from(n.children) <= p.nodes.len());
        }
    }

    #[test]
    fn network_leaves_play_legal_moves_and_bad_specs_are_refused() {
        let mut p = crate::from_spec("mcts:iterations=500,eval=nn,seed=1").unwrap();
        let a = p.analyse(&Position::START);
        assert!(Position::START.legal_moves().contains(a.best_move));
        assert!(matches!(a.score, Score::WinRate(p) if (0.0..=1.0).contains(&p)));
        for bad in [
            "mcts:eval=nnue",
            "mcts:net=x.bin",
            "mcts:eval=nn,net=/no/such/file",
        ] {
            assert!(crate::from_spec(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn arena_never_grows_past_its_capacity() {
        let mut p = Mcts::new(Budget::Count(5000), 0.7, 300, 2);
        let a = p.analyse(&Position::START);
        assert!(p.nodes.len() <= 300);
        assert!(p.nodes.capacity() == 300 && a.iterations == Some(5000));
    }
}
