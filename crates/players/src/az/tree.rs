//! The PUCT search tree of one game, AlphaZero style: an arena of nodes of
//! a fixed capacity, grown one evaluated leaf at a time.
//!
//! A simulation is a [`Tree::descend`] from the root to a leaf, then either
//! a [`Tree::expand`] with the evaluator's priors and a [`Tree::backup`] of
//! its value, or a backup alone when the value is known without the
//! evaluator (the game is over there, or the arena is full). The caller
//! owns the evaluator: the `az` player calls its network leaf by leaf,
//! `yolah.search` collects one leaf from each of many trees and calls a
//! Python function once for all of them.
//!
//! Values are in `[-1, 1]`. A node keeps the sum of the values backed up
//! through it from the point of view of the side that played its move
//! (the side to move at its parent), so that a parent picks the child with
//! the best value for itself.
//!
//! Memory is bounded: the arena never grows past its capacity. When a leaf's
//! children do not fit, the leaf is valued but not expanded, and later
//! visits back up its mean value without asking the evaluator again. Between
//! moves, [`Tree::set_root`] keeps the subtree of the new position (a child
//! or grandchild of the old root) by copying it into a second arena, so
//! the garbage of the rest of the old tree is dropped at once.
//!
//! What a search leaves at the root (the noise mixed into its priors, its
//! children's statistics, the move to play) is read and set in `root.rs`.

mod root;

pub use root::RootChild;

use super::encoding::ACTIONS;
use yolah::{Move, Position, MAX_MOVES};

/// The longest path from a root to a leaf: a game has at most 56 moves and
/// never two passes in a row, so fewer than 128 plies.
pub const MAX_PATH: usize = 128;

/// The PUCT constants, named as in DeepMind's `mctx`: a child's score is
/// `Q + c(N) · P · √N / (1 + n)` with `c(N) = c_init + ln((N + c_base + 1) / c_base)`,
/// `N` the parent's visits and `n` the child's. An unvisited child's `Q`
/// is the parent's value less `fpu_reduction` (first-play urgency).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Puct {
    /// `pb_c_init` in mctx.
    pub c_init: f32,
    /// `pb_c_base` in mctx.
    pub c_base: f32,
    /// How much worse than its parent an unvisited child is assumed to be.
    pub fpu_reduction: f32,
}

impl Default for Puct {
    /// mctx's defaults (1.25 and 19652), no first-play reduction.
    fn default() -> Puct {
        Puct {
            c_init: 1.25,
            c_base: 19652.0,
            fpu_reduction: 0.0,
        }
    }
}

/// One node: 20 bytes.
#[derive(Clone, Copy, Debug, Default)]
struct Node {
    /// Index of the first child; the children are contiguous.
    first_child: u32,
    /// 0 until expanded (an expanded node has at least the pass).
    children: u8,
    /// The move from the parent.
    mv: Move,
    visits: u32,
    /// Values backed up, for the side that played `mv`.
    value_sum: f32,
    /// The evaluator's probability of `mv` at the parent (with the root's
    /// noise mixed in for the root's children).
    prior: f32,
}

impl Node {
    fn children(&self) -> std::ops::Range<usize> {
        let first = self.first_child as usize;
        first..first + usize::from(self.children)
    }

    /// The mean value for the side that played the move.
    fn q(&self) -> f32 {
        self.value_sum / self.visits as f32
    }
}

/// What a descent found at its leaf.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Leaf {
    /// The evaluator must value the leaf ([`Descent::position`]); then
    /// [`Tree::expand`] with its logits and [`Tree::backup`] its value.
    Evaluate,
    /// The value, for the side to move at the leaf, is known: the game is
    /// over there, or the arena has no room for its children and this is
    /// its mean so far. [`Tree::backup`] it.
    Known(f32),
}

/// The path of one descent and the position at its end.
#[derive(Clone, Debug)]
pub struct Descent {
    path: [u32; MAX_PATH],
    len: usize,
    position: Position,
}

impl Default for Descent {
    fn default() -> Descent {
        Descent {
            path: [0; MAX_PATH],
            len: 0,
            position: Position::START,
        }
    }
}

impl Descent {
    /// The position at the leaf.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// Plies from the root to the leaf.
    pub fn depth(&self) -> usize {
        self.len.saturating_sub(1)
    }
}

/// The search tree of one game.
#[derive(Clone, Debug)]
pub struct Tree {
    nodes: Vec<Node>,
    /// The second arena, where [`Tree::set_root`] copies a kept subtree.
    spare: Vec<Node>,
    /// For each node copied into `spare`, where it was in `nodes`.
    origin: Vec<u32>,
    capacity: usize,
    /// The position at node 0.
    root: Option<Position>,
    /// The root's children's priors before noise was mixed in (empty when
    /// they have none).
    clean_priors: Vec<f32>,
}

impl Tree {
    /// The smallest capacity: a root and the most children it can have.
    pub const MIN_CAPACITY: usize = 1 + MAX_MOVES;

    /// A tree of at most `capacity` nodes (at least [`Tree::MIN_CAPACITY`]),
    /// allocated now, with no root.
    pub fn new(capacity: usize) -> Tree {
        let capacity = capacity.max(Tree::MIN_CAPACITY);
        Tree {
            nodes: Vec::with_capacity(capacity),
            spare: Vec::with_capacity(capacity),
            origin: Vec::with_capacity(capacity),
            capacity,
            root: None,
            clean_priors: Vec::with_capacity(MAX_MOVES),
        }
    }

    /// The most nodes the tree holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Nodes in use.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the tree has no root.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The root position, if any.
    pub fn root(&self) -> Option<&Position> {
        self.root.as_ref()
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.root = None;
        self.clean_priors.clear();
    }

    /// Makes `pos` the root. When it is the root already, or a child or a
    /// grandchild of it in the tree, the subtree below it is kept (a move
    /// of each side since the last search); otherwise the tree starts
    /// afresh. Returns whether anything was kept.
    pub fn set_root(&mut self, pos: &Position) -> bool {
        if self.root == Some(*pos) {
            return true;
        }
        let found = self.root.and_then(|root| self.find_below_root(&root, pos));
        self.clean_priors.clear();
        self.root = Some(*pos);
        match found {
            Some(index) => {
                self.keep_subtree(index);
                true
            }
            None => {
                self.nodes.clear();
                self.nodes.push(Node::default());
                false
            }
        }
    }

    /// The node of `pos` one or two plies below the root, if expanded.
    fn find_below_root(&self, root: &Position, pos: &Position) -> Option<usize> {
        for child in self.nodes[0].children() {
            let mut p = *root;
            p.play(self.nodes[child].mv);
            if p == *pos {
                return Some(child);
            }
            for grandchild in self.nodes[child].children() {
                let mut q = p;
                q.play(self.nodes[grandchild].mv);
                if q == *pos {
                    return Some(grandchild);
                }
            }
        }
        None
    }

    /// Copies the subtree of `index` into the spare arena, breadth first
    /// (children stay contiguous), and swaps the arenas.
    fn keep_subtree(&mut self, index: usize) {
        self.spare.clear();
        self.origin.clear();
        self.spare.push(self.nodes[index]);
        self.origin.push(index as u32);
        let mut next = 0;
        while next < self.spare.len() {
            let old = self.nodes[self.origin[next] as usize];
            if old.children > 0 {
                self.spare[next].first_child = self.spare.len() as u32;
                for child in old.children() {
                    self.spare.push(self.nodes[child]);
                    self.origin.push(child as u32);
                }
            }
            next += 1;
        }
        std::mem::swap(&mut self.nodes, &mut self.spare);
    }

    /// Walks from the root to a leaf by PUCT, into `d`. Panics without a
    /// root ([`Tree::set_root`] first).
    pub fn descend(&self, puct: &Puct, d: &mut Descent) -> Leaf {
        let mut pos = self.root.expect("descend needs a root: call set_root");
        let mut index = 0;
        d.path[0] = 0;
        d.len = 1;
        loop {
            let node = &self.nodes[index];
            if node.children == 0 {
                d.position = pos;
                if pos.is_game_over() {
                    let sign = pos.outcome().sign(pos.side_to_move());
                    return Leaf::Known(f32::from(sign));
                }
                let fits = self.nodes.len() + pos.legal_move_count() as usize <= self.capacity;
                if node.visits > 0 && !fits {
                    return Leaf::Known(-node.q());
                }
                return Leaf::Evaluate;
            }
            index = self.select_child(index, puct);
            pos.play(self.nodes[index].mv);
            d.path[d.len] = index as u32;
            d.len += 1;
        }
    }

    /// The child of `index` with the highest PUCT score (the first of
    /// equals).
    fn select_child(&self, index: usize, puct: &Puct) -> usize {
        let parent = &self.nodes[index];
        let n = parent.visits as f32;
        let c = puct.c_init + ((n + puct.c_base + 1.0) / puct.c_base).ln();
        let explore = c * n.sqrt();
        let parent_value = if parent.visits > 0 { -parent.q() } else { 0.0 };
        let unvisited = parent_value - puct.fpu_reduction;
        let mut best = (f32::NEG_INFINITY, parent.first_child as usize);
        for child in parent.children() {
            let node = &self.nodes[child];
            let q = if node.visits > 0 { node.q() } else { unvisited };
            let score = q + explore * node.prior / (1.0 + node.visits as f32);
            if score > best.0 {
                best = (score, child);
            }
        }
        best.1
    }

    /// Expands the leaf of `d` with priors from `logits` (one per action,
    /// [`ACTIONS`] long; a softmax over the legal moves' entries, entries
    /// that are not finite counting as minus infinity). Returns false, and
    /// leaves the tree as it was, when the children do not fit.
    pub fn expand(&mut self, d: &Descent, logits: &[f32]) -> bool {
        debug_assert_eq!(logits.len(), ACTIONS);
        let leaf = d.path[d.len - 1] as usize;
        let moves = d.position.legal_moves();
        let first = self.nodes.len();
        if first + moves.len() > self.capacity || self.nodes[leaf].children > 0 {
            return false;
        }
        let logit = |m: Move| {
            let x = logits[super::encoding::action_index(m)];
            if x.is_finite() {
                x
            } else {
                f32::MIN
            }
        };
        let max = moves.iter().map(|&m| logit(m)).fold(f32::MIN, f32::max);
        let mut total = 0.0;
        for &m in moves.iter() {
            let p = (logit(m) - max).exp();
            total += p;
            self.nodes.push(Node {
                mv: m,
                prior: p,
                ..Node::default()
            });
        }
        for node in &mut self.nodes[first..] {
            node.prior /= total;
        }
        self.nodes[leaf].first_child = first as u32;
        self.nodes[leaf].children = moves.len() as u8;
        true
    }

    /// Backs up `value`, the leaf's value for its side to move, along the
    /// path of `d`: every node on it gets a visit.
    pub fn backup(&mut self, d: &Descent, value: f32) {
        // The leaf's value is for the side that did not play into it.
        let mut v = -value;
        for &index in d.path[..d.len].iter().rev() {
            let node = &mut self.nodes[index as usize];
            node.visits += 1;
            node.value_sum += v;
            v = -v;
        }
    }

    /// Checks the tree's invariants from `pos` at node `index`: every
    /// child's move is legal, a node's visits are its children's plus one
    /// (its own first evaluation) or its own leaf visits, and nothing lies
    /// outside the arena. For tests.
    #[cfg(test)]
    pub(crate) fn check(&self, index: usize, pos: &Position) -> u32 {
        let node = &self.nodes[index];
        assert!(self.nodes.len() <= self.capacity);
        if node.children == 0 {
            return 1;
        }
        assert!(node.children().end <= self.nodes.len());
        assert_eq!(usize::from(node.children), pos.legal_move_count() as usize);
        let mut nodes = 1;
        let mut below = 0;
        for child in node.children() {
            let mut next = *pos;
            next.try_play(self.nodes[child].mv).unwrap();
            below += self.nodes[child].visits;
            nodes += self.check(child, &next);
        }
        assert!(
            below < node.visits,
            "{below} below, {} at the node",
            node.visits
        );
        nodes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `sims` simulations with uniform priors and a value of 0.
    pub(super) fn simulate(tree: &mut Tree, sims: usize) {
        let uniform = vec![0.0; ACTIONS];
        let mut d = Descent::default();
        for _ in 0..sims {
            match tree.descend(&Puct::default(), &mut d) {
                Leaf::Evaluate => {
                    tree.expand(&d, &uniform);
                    tree.backup(&d, 0.0);
                }
                Leaf::Known(v) => tree.backup(&d, v),
            }
        }
    }

    #[test]
    fn visits_add_up_and_moves_are_legal() {
        let mut tree = Tree::new(1 << 14);
        tree.set_root(&Position::START);
        simulate(&mut tree, 500);
        assert_eq!(tree.root_visits(), 500);
        let children: u32 = tree.root_children().map(|c| c.visits).sum();
        assert_eq!(children, 499, "the first simulation valued the root");
        tree.check(0, &Position::START);
        let priors: f32 = tree.root_children().map(|c| c.prior).sum();
        assert!((priors - 1.0).abs() < 1e-5);
    }

    #[test]
    fn the_arena_never_overflows() {
        let mut tree = Tree::new(300);
        tree.set_root(&Position::START);
        simulate(&mut tree, 2000);
        assert!(tree.len() <= 300);
        assert_eq!(tree.root_visits(), 2000);
        tree.check(0, &Position::START);
    }

    #[test]
    fn the_subtree_is_kept_two_plies_down() {
        let mut tree = Tree::new(1 << 14);
        tree.set_root(&Position::START);
        simulate(&mut tree, 800);
        let a = tree.best_move().unwrap();
        let mut pos = Position::START;
        pos.play(a);
        let child_visits = tree.root_children().find(|c| c.mv == a).unwrap().visits;
        assert!(tree.set_root(&pos));
        assert_eq!(tree.root_visits(), child_visits);
        tree.check(0, &pos);
        let b = tree.best_move().unwrap();
        let c = {
            let mut p = pos;
            p.play(b);
            p.legal_moves()[0]
        };
        pos.play(b);
        pos.play(c);
        tree.set_root(&pos);
        tree.check(0, &pos);
        let mut elsewhere = Position::START;
        elsewhere.play("a1:a2".parse().unwrap());
        elsewhere.play("h1:h2".parse().unwrap());
        elsewhere.play("a2:a3".parse().unwrap());
        assert!(!tree.set_root(&elsewhere));
        assert_eq!((tree.len(), tree.root_visits()), (1, 0));
    }

    #[test]
    fn a_finished_game_is_valued_by_its_result() {
        // Black has 29 points, White 27, and nobody can move.
        let board = "bbbbwwww/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx";
        let pos: Position = format!("{board} w 29 27 57").parse().unwrap();
        assert!(pos.is_game_over());
        let mut tree = Tree::new(1 << 8);
        tree.set_root(&pos);
        let mut d = Descent::default();
        assert_eq!(tree.descend(&Puct::default(), &mut d), Leaf::Known(-1.0));
    }
}
