//! Perft: counting the leaves of the game tree, the standard check of a move
//! generator.
//!
//! A side with no move plays the pass, which counts as a ply; a finished game
//! is one leaf whatever depth remains. The last two plies are counted in
//! bulk: a position one ply above the leaves has `max(1, moves)` children,
//! and two plies above, each move to a square `t` leaves the opponent its
//! current moves minus those that `t` now hides ([`shadow`]), so no child
//! needs a magic lookup of its own.
//!
//! ```
//! use yolah::{perft::perft, Position};
//!
//! assert_eq!(perft(&Position::START, 1), 56);
//! assert_eq!(perft(&Position::START, 2), 2988);
//! ```

use crate::attacks::{queen_moves, shadow};
use crate::{Move, Position, Square};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The number of leaves `depth` plies below `pos`.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    let mut pos = *pos;
    count(&mut pos, depth)
}

fn count(pos: &mut Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => u64::from(pos.legal_move_count()),
        _ if pos.is_game_over() => 1,
        2 => count_two_plies(pos),
        _ => {
            let mut nodes = 0;
            for &m in pos.legal_moves().iter() {
                pos.play(m);
                nodes += count(pos, depth - 1);
                pos.undo(m);
            }
            nodes
        }
    }
}

/// The leaves two plies below `pos`, a position whose game is not over.
#[inline]
fn count_two_plies(pos: &Position) -> u64 {
    let side = pos.side_to_move();
    let blockers = pos.blockers();
    // The opponent's pieces and their moves now; `base` moves in all.
    let mut them = [(Square::A1, 0u64); 4];
    let mut base = 0;
    for (slot, sq) in them.iter_mut().zip(pos.pieces(side.opponent())) {
        let moves = queen_moves(sq, blockers).0;
        *slot = (sq, moves);
        base += moves.count_ones();
    }
    let mut nodes = 0;
    let mut moved = false;
    for from in pos.pieces(side) {
        for to in queen_moves(from, blockers) {
            // The piece leaving `from` leaves a hole: only `to` is new.
            let lost: u32 = them
                .iter()
                .map(|&(sq, moves)| (moves & shadow(sq, to).0).count_ones())
                .sum();
            nodes += u64::from((base - lost).max(1));
            moved = true;
        }
    }
    if moved {
        nodes
    } else {
        // The side to move passes; the opponent moves from this position.
        u64::from(base.max(1))
    }
}

/// Leaves below each root move, in move-list order.
pub fn divide(pos: &Position, depth: u32, threads: usize) -> Vec<(Move, u64)> {
    if depth == 0 || pos.is_game_over() {
        return Vec::new();
    }
    let roots = pos.legal_moves();
    // Split two plies deep (fewer near the leaves) so that two or more
    // threads get many similar-sized pieces of work.
    let split = (depth - 1).min(2);
    let mut tasks = Vec::new();
    for (i, &m) in roots.iter().enumerate() {
        let mut child = *pos;
        child.play(m);
        collect(&child, split, depth - 1, i, &mut tasks);
    }
    let totals = Mutex::new(vec![0u64; roots.len()]);
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| {
                let mut local = vec![0u64; roots.len()];
                while let Some(task) = tasks.get(next.fetch_add(1, Ordering::Relaxed)) {
                    local[task.root] += perft(&task.pos, task.depth);
                }
                let mut totals = totals.lock().expect("no worker panics while holding it");
                for (t, l) in totals.iter_mut().zip(local) {
                    *t += l;
                }
            });
        }
    });
    let totals = totals.into_inner().expect("workers have finished");
    roots.iter().copied().zip(totals).collect()
}

/// The leaf count, over `threads` threads.
pub fn perft_threads(pos: &Position, depth: u32, threads: usize) -> u64 {
    if threads <= 1 || depth < 3 {
        return perft(pos, depth);
    }
    divide(pos, depth, threads).iter().map(|&(_, n)| n).sum()
}

struct Task {
    root: usize,
    pos: Position,
    depth: u32,
}

fn collect(pos: &Position, plies: u32, depth: u32, root: usize, tasks: &mut Vec<Task>) {
    if plies == 0 || depth <= 1 || pos.is_game_over() {
        tasks.push(Task {
            root,
            pos: *pos,
            depth,
        });
        return;
    }
    for &m in pos.legal_moves().iter() {
        let mut child = *pos;
        child.play(m);
        collect(&child, plies - 1, depth - 1, root, tasks);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_agree_with_one_thread() {
        let pos = Position::START;
        assert_eq!(perft_threads(&pos, 3, 2), 164_512);
        let d = divide(&pos, 3, 3);
        assert_eq!(d.len(), 56);
        assert_eq!(d.iter().map(|x| x.1).sum::<u64>(), 164_512);
        for &(m, n) in &d {
            let mut child = pos;
            child.play(m);
            assert_eq!(perft(&child, 2), n);
        }
    }
}
