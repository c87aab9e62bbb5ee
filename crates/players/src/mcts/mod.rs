//! Monte Carlo tree search with UCT.
//!
//! The tree lives in an arena of fixed-size nodes allocated once, up front
//! (see [`tree`]): an iteration never allocates. A node is expanded (all its
//! children added) on its second visit; when the arena is full the search
//! goes on without expanding. Between moves the subtree of the new position
//! is copied into a second arena of the same size and the two are swapped,
//! so the tree built while thinking about earlier moves is reused.
//!
//! With `threads=N` every thread runs iterations on the one shared tree,
//! kept apart by virtual loss.
//!
//! A new leaf is valued by a random playout to the end (`eval=playout`, the
//! default) or by the network's expected result (`eval=nn`, with `net=FILE`
//! for another network than the shipped one).

mod tree;

use crate::budget::{Budget, Clock};
use crate::limits::{MAX_THREADS, REPORT_EVERY};
use crate::nn::Network;
use crate::player::{Analysis, Player, Search};
use crate::score::Score;
use crate::spec::{FromSpec, Spec, SpecError};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use tree::Tree;
use yolah::playout::random_game;
use yolah::{Color, Position, Rng};

/// The longest game: 56 moves and as many passes, and then some.
const MAX_PATH: usize = 256;

impl FromSpec for Mcts {
    fn keys() -> Vec<&'static str> {
        vec![
            "iterations",
            "time",
            "c",
            "nodes",
            "eval",
            "net",
            "threads",
            "seed",
        ]
    }

    fn from_spec(spec: &Spec) -> Result<Mcts, SpecError> {
        let leaf = match spec.value("eval").unwrap_or("playout") {
            "playout" if spec.value("net").is_some() => {
                return Err(spec.conflict(&["net", "eval"], "net= needs eval=nn"));
            }
            "playout" => LeafValue::Playout,
            "nn" => LeafValue::Network(Box::new(spec.net()?)),
            other => return Err(spec.bad_value("eval", other, "is not playout or nn")),
        };
        let budget = spec.budget("iterations", Budget::Count(100_000))?;
        let c = spec.float("c")?.unwrap_or(0.7);
        let nodes = spec.number("nodes")?.unwrap_or(1 << 22);
        if !(256..=1 << 28).contains(&nodes) {
            return Err(spec.bad_value("nodes", nodes, "must be from 256 to 2^28"));
        }
        let mut player = Mcts::new(budget, c, nodes as usize, spec.seed()?).with_leaf_value(leaf);
        player.spec = spec.text().to_string();
        player.set_threads(spec.threads()?);
        Ok(player)
    }
}

/// How a new leaf is valued.
pub enum LeafValue {
    /// One uniformly random playout to the end of the game.
    Playout,
    /// The network's expected result, without a playout.
    Network(Box<Network>),
}

/// MCTS player.
pub struct Mcts {
    spec: String,
    budget: Budget,
    exploration: f32,
    leaf: LeafValue,
    rng: Rng,
    threads: usize,
    capacity: usize,
    /// The tree and the spare arena, allocated by the first search.
    trees: Option<(Tree, Tree)>,
    /// The position at node 0, when the tree holds one.
    root: Option<Position>,
}

impl Mcts {
    /// A player with the given budget (iterations or time), exploration
    /// constant `c`, arena size in nodes, and seed, on one thread.
    pub fn new(budget: Budget, exploration: f64, capacity: usize, seed: u64) -> Mcts {
        Mcts {
            spec: "mcts".into(),
            budget,
            exploration: exploration as f32,
            leaf: LeafValue::Playout,
            rng: Rng::new(seed),
            threads: 1,
            capacity: capacity.max(256),
            trees: None,
            root: None,
        }
    }

    /// The same player valuing leaves by `leaf`.
    pub fn with_leaf_value(mut self, leaf: LeafValue) -> Mcts {
        self.leaf = leaf;
        self
    }

    /// Searches on `threads` threads (at least one, at most [`MAX_THREADS`]).
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.clamp(1, MAX_THREADS);
    }

    /// Makes node 0 the position `pos`: reuses the subtree when `pos` is the
    /// old root or two plies or fewer below it, or starts a new tree.
    fn set_root(&mut self, pos: &Position) {
        let capacity = self.capacity;
        let (tree, spare) = self
            .trees
            .get_or_insert_with(|| (Tree::new(capacity), Tree::new(capacity)));
        let found = self.root.and_then(|root| {
            if root == *pos {
                return Some(0);
            }
            let mut frontier = vec![(0usize, root)];
            for _ in 0..2 {
                let mut next = Vec::new();
                for (index, p) in frontier {
                    for child in tree.node(index).children() {
                        let mut q = p;
                        q.play(tree.node(child).mv());
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
            Some(index) => tree.keep_subtree(index, spare),
            None => tree.clear(),
        }
        self.root = Some(*pos);
    }
}

/// Iterations a thread takes from the shared counter at once, so that the
/// counter's cache line moves between cores once per this many iterations
/// rather than on every one.
const TICKETS: u64 = 16;

/// A value alone on its cache lines (128 bytes: adjacent-line prefetch
/// pairs lines), so that writing it does not evict what other threads read.
#[repr(align(128))]
struct CacheAligned<T>(T);

/// The iterations a thread holds: `next .. end` of the shared count.
#[derive(Default)]
struct Tickets {
    next: u64,
    end: u64,
}

/// What one search's threads share besides the tree.
struct Shared<'a> {
    tree: &'a Tree,
    leaf: &'a LeafValue,
    exploration: f32,
    budget: Budget,
    clock: Clock,
    /// Raised when the search is over: every thread stops.
    done: AtomicBool,
    /// Iterations handed out to all threads (a count budget's ticket
    /// counter), written by every thread: on a line of its own.
    started: CacheAligned<AtomicU64>,
}

impl Shared<'_> {
    /// Takes the next iteration if the budget allows it. A thread that has
    /// run `own` iterations looks at the clock every 64.
    fn next_iteration(&self, own: u64, tickets: &mut Tickets) -> bool {
        // A count budget runs every ticket handed out, so that the count is
        // exact; a time budget stops as soon as one thread sees the end.
        let holding = tickets.next < tickets.end && matches!(self.budget, Budget::Count(_));
        if !holding && self.done.load(Relaxed) {
            return false;
        }
        if own.is_multiple_of(64) && own > 0 && self.clock.expired() {
            self.done.store(true, Relaxed);
            return false;
        }
        if tickets.next == tickets.end {
            let first = self.started.0.fetch_add(TICKETS, Relaxed);
            let end = match self.budget {
                Budget::Count(limit) => (first + TICKETS).min(limit),
                _ => first + TICKETS,
            };
            if first >= end {
                self.done.store(true, Relaxed);
                return false;
            }
            *tickets = Tickets { next: first, end };
        }
        tickets.next += 1;
        true
    }

    /// One selection, expansion, leaf value and backup from the root.
    fn iterate(&self, root: &Position, rng: &mut Rng) {
        let tree = self.tree;
        let mut path = [0u32; MAX_PATH];
        let mut depth = 1;
        let mut pos = *root;
        let mut index = 0usize;
        let mut visited_before = tree.visit(0);
        loop {
            if tree.node(index).children().is_empty() {
                let expand = visited_before && !pos.is_game_over() && tree.expand(index, &pos);
                if !expand {
                    break;
                }
            }
            if depth == MAX_PATH {
                break;
            }
            index = tree.select_child(index, self.exploration);
            visited_before = tree.visit(index);
            pos.play(tree.node(index).mv());
            path[depth] = index as u32;
            depth += 1;
        }
        let black = match self.leaf {
            LeafValue::Playout => random_game(pos, rng).outcome().points(Color::Black),
            LeafValue::Network(net) => net.expected_result(&pos, Color::Black),
        };
        // Back up: a node's wins are for the side that moved into it, which
        // is the side to move at its parent. Visits were counted going down.
        // The root's own wins are never read: leaving them alone spares
        // every iteration a write to the line all threads start from.
        let mut side = pos.side_to_move();
        for &i in path[1..depth].iter().rev() {
            side = side.opponent();
            let reward = if side == Color::Black {
                black
            } else {
                1.0 - black
            };
            tree.reward(i as usize, reward as f32);
        }
    }
}

impl Player for Mcts {
    fn spec(&self) -> &str {
        &self.spec
    }

    fn new_game(&mut self) {
        self.root = None;
        if let Some((tree, _)) = &mut self.trees {
            tree.clear();
        }
    }

    fn search(&mut self, pos: &Position, mut search: Search<'_>) -> Analysis {
        let budget = search.monte_carlo_budget(self.budget);
        // The clock starts first: keeping the old tree is part of the move.
        let clock = Clock::start(budget, search.stop);
        self.set_root(pos);
        let Some((tree, _)) = &self.trees else {
            unreachable!("set_root allocates the trees")
        };
        let shared = Shared {
            tree,
            leaf: &self.leaf,
            exploration: self.exploration,
            budget,
            clock,
            done: AtomicBool::new(false),
            started: CacheAligned(AtomicU64::new(0)),
        };
        // A single legal move needs one iteration to be played.
        let single = pos.legal_move_count() == 1;
        let helper_seeds: Vec<u64> = (1..self.threads)
            .map(|_| u64::from(self.rng.below(u32::MAX)))
            .collect();
        let rng = &mut self.rng;
        let shared = &shared;
        let mut reported = std::time::Duration::ZERO;
        let iterations = std::thread::scope(|s| {
            let mut helpers = Vec::new();
            if !single {
                for seed in helper_seeds {
                    helpers.push(s.spawn(move || {
                        let mut rng = Rng::new(seed);
                        let (mut own, mut tickets) = (0, Tickets::default());
                        while shared.next_iteration(own, &mut tickets) {
                            shared.iterate(pos, &mut rng);
                            own += 1;
                        }
                        own
                    }));
                }
            }
            let (mut own, mut tickets) = (0u64, Tickets::default());
            while shared.next_iteration(own, &mut tickets) {
                shared.iterate(pos, rng);
                own += 1;
                if single {
                    shared.done.store(true, Relaxed);
                    break;
                }
                if own.is_multiple_of(256)
                    && search.progress.is_some()
                    && shared.clock.elapsed() >= reported + REPORT_EVERY
                {
                    reported = shared.clock.elapsed();
                    let done = shared.started.0.load(Relaxed);
                    let now = summary(tree, pos, done, &shared.clock);
                    search.report(&now);
                }
            }
            let helped: u64 = helpers
                .into_iter()
                .map(|h| h.join().expect("search threads do not panic"))
                .sum();
            own + helped
        });
        summary(tree, pos, iterations, &shared.clock)
    }
}

/// The most visited line from the root, and its win rate.
fn summary(tree: &Tree, pos: &Position, iterations: u64, clock: &Clock) -> Analysis {
    let mut pv = Vec::new();
    let mut index = 0;
    while let Some(child) = tree.most_visited(index) {
        if tree.node(child).visits() == 0 {
            break;
        }
        pv.push(tree.node(child).mv());
        index = child;
    }
    let best_move = pv.first().copied().unwrap_or_else(|| pos.legal_moves()[0]);
    let score = match tree.most_visited(0) {
        Some(c) if tree.node(c).visits() > 0 => {
            let node = tree.node(c);
            Score::WinRate(f64::from(node.wins()) / f64::from(node.visits()))
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
        fn tree(p: &Mcts) -> &Tree {
            &p.trees.as_ref().unwrap().0
        }
        let kept_before = tree(&p).len();
        let visits_before: u32 = tree(&p).node(0).visits();
        p.set_root(&pos);
        let t = tree(&p);
        assert!(t.node(0).visits() > 0, "the subtree was kept");
        assert!(t.node(0).visits() < visits_before);
        assert!(t.len() < kept_before);
        // Every kept child link stays inside the arena, and a node's visits
        // are its children's plus its own first.
        for i in 0..t.len() {
            let children = t.node(i).children();
            assert!(children.end <= t.len());
            if !children.is_empty() {
                let below: u32 = children.map(|c| t.node(c).visits()).sum();
                assert!(below + 1 >= t.node(i).visits() && below < t.node(i).visits());
            }
        }
    }

    #[test]
    fn network_leaves_play_legal_moves_and_bad_specs_are_refused() {
        let mcts = |text| Mcts::from_spec(&Spec::parse(text)?);
        let mut p = mcts("mcts:iterations=500,eval=nn,seed=1").unwrap();
        let a = p.analyse(&Position::START);
        assert!(Position::START.legal_moves().contains(a.best_move));
        assert!(matches!(a.score, Score::WinRate(p) if (0.0..=1.0).contains(&p)));
        for bad in [
            "mcts:eval=nnue",
            "mcts:net=x.bin",
            "mcts:eval=nn,net=/no/such/file",
        ] {
            assert!(mcts(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn arena_never_grows_past_its_capacity() {
        let mut p = Mcts::new(Budget::Count(5000), 0.7, 300, 2);
        let a = p.analyse(&Position::START);
        let tree = &p.trees.as_ref().unwrap().0;
        assert!(tree.len() <= 300 && tree.capacity() == 300);
        assert_eq!(a.iterations, Some(5000));
    }

    /// Walks the tree from `index` at `pos`: every child's move is legal
    /// there, children lie inside the arena and no slot is reached twice.
    fn check_subtree(t: &Tree, index: usize, pos: &Position, seen: &mut [bool]) {
        assert!(!seen[index], "slot {index} reached twice");
        seen[index] = true;
        let node = t.node(index);
        assert!(node.wins() <= node.visits() as f32 + 1e-3);
        let children = node.children();
        assert!(children.end <= t.len());
        if !children.is_empty() {
            assert_eq!(children.len(), pos.legal_move_count() as usize);
            let below: u32 = children.clone().map(|c| t.node(c).visits()).sum();
            assert!(below < node.visits());
        }
        for c in children {
            let mut next = *pos;
            next.try_play(t.node(c).mv()).unwrap();
            check_subtree(t, c, &next, seen);
        }
    }

    #[test]
    fn threads_share_one_consistent_tree() {
        // A small arena, so that threads also race for its last slots.
        for capacity in [2_000, 1 << 16] {
            let mut p = Mcts::new(Budget::Count(20_000), 0.7, capacity, 3);
            p.set_threads(4);
            let a = p.analyse(&Position::START);
            assert_eq!(a.iterations, Some(20_000));
            let t = &p.trees.as_ref().unwrap().0;
            assert_eq!(t.node(0).visits(), 20_000);
            let mut seen = vec![false; t.len()];
            check_subtree(t, 0, &Position::START, &mut seen);
        }
    }
}
