//! The search tree: an arena of fixed-size nodes allocated once, that any
//! number of threads grow and update at the same time without locks.
//!
//! * A node's move, children and "being expanded" flag are one atomic
//!   word, its visits and wins two more: 16 bytes a node.
//! * A thread expands a node by claiming it (a compare-and-swap on its
//!   word), taking a run of free slots with one `fetch_add`, writing the
//!   children and publishing them with a release store. A thread that finds
//!   the node claimed by another values it as a leaf instead of waiting.
//! * Virtual loss: a visit is counted on the way down, its reward only on
//!   the way back up, so threads descending at the same time see each
//!   other's unfinished visits as losses and spread over the tree.
//!
//! With one thread every operation happens in program order: the search is
//! deterministic.

use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering::*};
use yolah::{Move, Position, MAX_MOVES};

/// Bits of a node's link word: the first child's index (32), the number of
/// children (8), the "being expanded" flag and the move from the parent.
const CHILDREN_SHIFT: u32 = 32;
const BUSY: u64 = 1 << 40;
const MOVE_SHIFT: u32 = 48;

/// One node.
#[derive(Default)]
pub(super) struct Node {
    link: AtomicU64,
    visits: AtomicU32,
    /// Total reward of the side that played the move, as `f32` bits.
    wins: AtomicU32,
}

impl Node {
    fn link_word(mv: Move, first_child: u32, children: usize) -> u64 {
        u64::from(first_child)
            | (children as u64) << CHILDREN_SHIFT
            | u64::from(mv.to_u16()) << MOVE_SHIFT
    }

    /// The move from the parent.
    pub(super) fn mv(&self) -> Move {
        Move::from_u16((self.link.load(Relaxed) >> MOVE_SHIFT) as u16).unwrap_or(Move::PASS)
    }

    /// The range of the children (empty when there are none yet).
    pub(super) fn children(&self) -> std::ops::Range<usize> {
        let link = self.link.load(Acquire);
        let first = (link & 0xFFFF_FFFF) as usize;
        first..first + ((link >> CHILDREN_SHIFT) & 0xFF) as usize
    }

    pub(super) fn visits(&self) -> u32 {
        self.visits.load(Relaxed)
    }

    pub(super) fn wins(&self) -> f32 {
        f32::from_bits(self.wins.load(Relaxed))
    }

    fn add_wins(&self, reward: f32) {
        let mut old = self.wins.load(Relaxed);
        loop {
            let new = (f32::from_bits(old) + reward).to_bits();
            match self.wins.compare_exchange_weak(old, new, Relaxed, Relaxed) {
                Ok(_) => return,
                Err(now) => old = now,
            }
        }
    }

    /// Sets every field: a slot being reused.
    fn reset(&self, mv: Move) {
        self.link.store(Node::link_word(mv, 0, 0), Relaxed);
        self.visits.store(0, Relaxed);
        self.wins.store(0, Relaxed);
    }

    /// Copies every field of `other`.
    fn copy_from(&self, other: &Node) {
        self.link.store(other.link.load(Relaxed), Relaxed);
        self.visits.store(other.visits(), Relaxed);
        self.wins.store(other.wins.load(Relaxed), Relaxed);
    }

    /// Sets the node's move and children.
    fn set_children(&self, mv: Move, first: u32, children: usize) {
        self.link
            .store(Node::link_word(mv, first, children), Release);
    }
}

/// `n` (at least one) zeroed nodes, straight from the allocator: the pages
/// are mapped as they are first touched, so a big arena costs nothing until
/// the search grows into it.
fn zeroed_nodes(n: usize) -> Box<[Node]> {
    let layout = std::alloc::Layout::array::<Node>(n).expect("the arena fits in memory");
    // SAFETY: `n` ≥ 1 and a node is 16 bytes, so the layout is not empty;
    // all-zero bytes are a valid `Node` (three atomic integers), so every
    // element is initialised; the pointer comes from the global allocator
    // with the layout of a `[Node]` of length `n`, as `Box` requires.
    unsafe {
        let ptr = std::alloc::alloc_zeroed(layout).cast::<Node>();
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, n))
    }
}

/// The arena: node 0 is the root; slots `0..len` are in use.
pub(super) struct Tree {
    nodes: Box<[Node]>,
    /// Written at every expansion: kept off the line of `nodes`, which
    /// every thread reads at every step.
    len: super::CacheAligned<AtomicUsize>,
}

impl Tree {
    /// An empty arena of `capacity` nodes (at least one), holding a root.
    pub(super) fn new(capacity: usize) -> Tree {
        let nodes = zeroed_nodes(capacity.max(1));
        nodes[0].reset(Move::PASS);
        Tree {
            nodes,
            len: super::CacheAligned(AtomicUsize::new(1)),
        }
    }

    #[cfg(test)]
    pub(super) fn capacity(&self) -> usize {
        self.nodes.len()
    }

    /// Slots in use.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.len.0.load(Relaxed).min(self.nodes.len())
    }

    pub(super) fn node(&self, index: usize) -> &Node {
        &self.nodes[index]
    }

    /// Only a fresh root left.
    pub(super) fn clear(&mut self) {
        self.nodes[0].reset(Move::PASS);
        *self.len.0.get_mut() = 1;
    }

    /// Counts a visit of `index` on the way down (the virtual loss) and
    /// says whether it had been visited before.
    pub(super) fn visit(&self, index: usize) -> bool {
        self.nodes[index].visits.fetch_add(1, Relaxed) > 0
    }

    /// Adds a reward on the way back up.
    pub(super) fn reward(&self, index: usize, reward: f32) {
        self.nodes[index].add_wins(reward);
    }

    /// Adds the children of `index` (the moves of `pos`), unless another
    /// thread is doing so, it already has them, or the arena is full.
    /// Returns whether the node has children now.
    pub(super) fn expand(&self, index: usize, pos: &Position) -> bool {
        let node = &self.nodes[index];
        let link = node.link.load(Acquire);
        if link & BUSY != 0 {
            return false;
        }
        if (link >> CHILDREN_SHIFT) & 0xFF != 0 {
            return true;
        }
        if self.len.0.load(Relaxed) + MAX_MOVES > self.nodes.len()
            || node
                .link
                .compare_exchange(link, link | BUSY, Acquire, Relaxed)
                .is_err()
        {
            return false;
        }
        let moves = pos.legal_moves();
        let first = self.len.0.fetch_add(moves.len(), Relaxed);
        if first + moves.len() > self.nodes.len() {
            // Another thread took the last slots first.
            node.link.store(link, Release);
            return false;
        }
        for (slot, &mv) in self.nodes[first..].iter().zip(moves.iter()) {
            slot.reset(mv);
        }
        let mv = node.mv();
        node.link
            .store(Node::link_word(mv, first as u32, moves.len()), Release);
        true
    }

    /// The child of `index` with the best UCT value for exploration
    /// constant `c`; unvisited children first.
    #[inline]
    pub(super) fn select_child(&self, index: usize, c: f32) -> usize {
        let node = &self.nodes[index];
        let range = node.children();
        let explore = c * (node.visits().max(1) as f32).ln().sqrt();
        let mut best = range.start;
        let mut best_value = f32::MIN;
        for i in range {
            let child = &self.nodes[i];
            let visits = child.visits();
            if visits == 0 {
                return i;
            }
            let n = visits as f32;
            let value = child.wins() / n + explore / n.sqrt();
            if value > best_value {
                best_value = value;
                best = i;
            }
        }
        best
    }

    /// The most visited child of `index`.
    pub(super) fn most_visited(&self, index: usize) -> Option<usize> {
        self.nodes[index]
            .children()
            .max_by_key(|&i| self.nodes[i].visits())
    }

    /// Makes the subtree under `index` the whole tree of `into` (breadth
    /// first, root at 0), then swaps the two arenas.
    pub(super) fn keep_subtree(&mut self, index: usize, into: &mut Tree) {
        // A copied node's link still points at its children in `self`
        // until they are copied after it and it is pointed at them.
        into.nodes[0].copy_from(&self.nodes[index]);
        let old = self.nodes[index].children();
        into.nodes[0].set_children(Move::PASS, old.start as u32, old.len());
        let mut len = 1;
        let mut next = 0;
        while next < len {
            let old = into.nodes[next].children();
            if !old.is_empty() {
                let first = len;
                for (slot, source) in into.nodes[first..].iter().zip(&self.nodes[old.clone()]) {
                    slot.copy_from(source);
                }
                len += old.len();
                let mv = into.nodes[next].mv();
                into.nodes[next].set_children(mv, first as u32, old.len());
            }
            next += 1;
        }
        *into.len.0.get_mut() = len;
        std::mem::swap(self, into);
    }
}
