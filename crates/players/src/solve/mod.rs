//! The exact endgame solver: the final margin of a position with best play.
//!
//! The value of a position is the side to move's final points minus the
//! opponent's, both sides playing to maximise their own margin. The solver
//! is a negamax alpha-beta on that value with
//!
//! * its own transposition table of bounds (the lock-free table of the
//!   players, holding margins instead of centipoints);
//! * enhanced transposition cutoffs: before searching the moves of a node,
//!   a child whose stored bound already refutes the window ends the node;
//! * move ordering by mobility: the table's move, then the moves that leave
//!   the opponent the fewest replies;
//! * cheap bounds: neither side can move more often than it has free
//!   squares within reach;
//! * separated regions (see `solve/regions.rs`): once no free square is reachable by
//!   both sides the value is exact without search, the current margin plus
//!   the difference of the two sides' longest paths.
//!
//! [`margin_plain`] is the reference: plain alpha-beta on the same value,
//! nothing else. The tests check the solver against it.

mod regions;

pub(crate) use regions::flood;

use crate::budget::{Budget, Clock, Stop};
use crate::table::{Bound, Entry, Table};
use std::time::Duration;
use yolah::zobrist::{key, key_after};
use yolah::{Move, Position, MAX_MOVES};

/// Transposition table entries of a solver (16 bytes each): 16 MiB.
const TABLE_ENTRIES: usize = 1 << 20;
/// Above any margin a game can end with.
const INF: i32 = 100;
/// How many nodes between looks at the clock.
const NODE_STEP: u64 = 4096;

/// A solved position.
#[derive(Clone, Debug, PartialEq)]
pub struct Solution {
    /// The side to move's final points minus the opponent's, with best play.
    pub margin: i32,
    /// A move that reaches that margin.
    pub best_move: Move,
    /// Best play to the end of the game, `best_move` first (shorter only
    /// if the solve was stopped while the line was being built).
    pub pv: Vec<Move>,
    /// Positions visited (region search steps included).
    pub nodes: u64,
    /// Wall time.
    pub seconds: f64,
}

/// When a solve must give up.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    /// At most this many nodes.
    pub nodes: Option<u64>,
    /// At most this long.
    pub time: Option<Duration>,
}

/// An exact solver with its own table and region memo, reusable across
/// positions (and faster when they follow one another).
pub struct Solver {
    table: Table,
    memo: regions::Memo,
    /// The most entries `memo` keeps.
    memo_entries: usize,
    nodes: u64,
    node_limit: u64,
    clock: Clock,
    aborted: bool,
}

impl Default for Solver {
    fn default() -> Solver {
        Solver::new()
    }
}

impl Solver {
    /// A solver with an empty table (16 MiB) and memo.
    pub fn new() -> Solver {
        Solver::with_sizes(TABLE_ENTRIES, regions::MEMO_ENTRIES)
    }

    /// Has the system give the solver's table its memory now
    /// ([`Table::fault_in`]), as a player does before the clock runs.
    pub(crate) fn fault_in(&mut self) {
        self.table.fault_in();
    }

    /// Solves `pos` exactly, however long it takes; `None` if the game is
    /// over.
    pub fn solve(&mut self, pos: &Position) -> Option<Solution> {
        self.solve_within(pos, Limits::default(), &Stop::new())
    }

    /// Solves `pos` within `limits` or until `stop` is raised; `None` if the
    /// game is over or the solve gave up.
    pub fn solve_within(
        &mut self,
        pos: &Position,
        limits: Limits,
        stop: &Stop,
    ) -> Option<Solution> {
        let (margin, best_move) = self.margin_within(pos, limits, stop)?;
        let started = self.clock.clone();
        // The margin is proven: the line to it is built without the limits
        // (mostly from the table), unless someone asks to stop.
        self.node_limit = u64::MAX;
        self.clock = Clock::start(Budget::Infinite, stop);
        let mut after = *pos;
        after.play(best_move);
        let mut pv = vec![best_move];
        pv.extend(self.principal_variation(&after, -margin));
        Some(Solution {
            margin,
            best_move,
            pv,
            nodes: self.nodes,
            seconds: started.seconds(),
        })
    }

    /// The final margin of `pos` with best play and a move that gets it,
    /// within `limits`: [`Solver::solve_within`] without the line, for
    /// callers that want the number only. `None` if the game is over or
    /// the solve gave up.
    pub fn margin_within(
        &mut self,
        pos: &Position,
        limits: Limits,
        stop: &Stop,
    ) -> Option<(i32, Move)> {
        self.start(limits, stop);
        self.root(pos, -INF, INF)
    }

    /// Whether `pos` is won, drawn or lost (1, 0 or -1) and a move that
    /// keeps it so, within `limits`: a null-window solve, cheaper than the
    /// margin. `None` if the game is over or the solve gave up.
    pub fn result_within(
        &mut self,
        pos: &Position,
        limits: Limits,
        stop: &Stop,
    ) -> Option<(i32, Move)> {
        self.start(limits, stop);
        self.root(pos, -1, 1).map(|(v, m)| (v.signum(), m))
    }

    /// A solver for [`Solver::separated_margin`] only, as each search
    /// thread keeps one: its table (unused there) is the smallest there
    /// is, and its memo a sixteenth of a full solver's.
    pub fn for_regions() -> Solver {
        Solver::with_sizes(1, regions::SEARCH_MEMO_ENTRIES)
    }

    fn with_sizes(table_entries: usize, memo_entries: usize) -> Solver {
        Solver {
            table: Table::new(table_entries),
            memo: regions::Memo::default(),
            memo_entries,
            nodes: 0,
            node_limit: u64::MAX,
            clock: Clock::start(Budget::Infinite, &Stop::new()),
            aborted: false,
        }
    }

    /// The exact final margin of `pos` for its side to move when no free
    /// square is in reach of both sides (each then walks its own region),
    /// found in at most `node_limit` steps of the longest-path search;
    /// `None` when the sides still meet or the paths take longer.
    pub fn separated_margin(&mut self, pos: &Position, node_limit: u64) -> Option<i32> {
        let side = pos.side_to_move();
        let (us, them) = (pos.pieces(side), pos.pieces(side.opponent()));
        let (reach_us, reach_them) = regions::apart(us, them, pos.free())?;
        self.nodes = 0;
        self.node_limit = node_limit;
        self.aborted = false;
        let ours = self.longest(reach_us, us) as i32;
        let theirs = self.longest(reach_them, them) as i32;
        (!self.aborted).then(|| pos.margin(side) + ours - theirs)
    }

    /// Forgets every result: the next solves search as a new solver would
    /// (and visit the same nodes).
    pub fn clear(&mut self) {
        self.table.clear();
        self.memo.clear();
    }

    /// Nodes visited by the last solve.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    fn start(&mut self, limits: Limits, stop: &Stop) {
        let budget = limits.time.map_or(Budget::Infinite, Budget::Time);
        self.clock = Clock::start(budget, stop);
        self.node_limit = limits.nodes.unwrap_or(u64::MAX);
        self.nodes = 0;
        self.aborted = false;
    }

    /// Counts a node; false once the solve must give up.
    #[inline]
    fn count_node(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes >= self.node_limit
            || (self.nodes.is_multiple_of(NODE_STEP) && self.clock.expired())
        {
            self.aborted = true;
        }
        !self.aborted
    }

    /// The value of `pos` within (`alpha`, `beta`) and the move that gets
    /// it: a fail-soft search of every root move.
    fn root(&mut self, pos: &Position, mut alpha: i32, beta: i32) -> Option<(i32, Move)> {
        if pos.is_game_over() {
            return None;
        }
        let k = key(pos);
        let mut moves = pos.legal_moves();
        let n = self.order(pos, k, moves.as_mut_slice());
        let mut best: Option<(i32, Move)> = None;
        for &m in &moves.as_slice()[..n] {
            let mut child = *pos;
            child.play(m);
            let ck = key_after(k, pos, m);
            let v = self.principal_variation_search(&child, ck, best.is_none(), alpha, beta);
            if self.aborted {
                return None;
            }
            if best.is_none_or(|(b, _)| v > b) {
                best = Some((v, m));
                alpha = alpha.max(v);
                if alpha >= beta {
                    break;
                }
            }
        }
        best
    }

    /// The value of the move to `child` (key `ck`) for the side that made
    /// it: the first move with the whole window, any other first with a
    /// null window at alpha and again with the whole one only if it beats
    /// alpha.
    fn principal_variation_search(
        &mut self,
        child: &Position,
        ck: u64,
        first: bool,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        if first {
            return -self.negamax(child, ck, -beta, -alpha);
        }
        let v = -self.negamax(child, ck, -alpha - 1, -alpha);
        if v > alpha && v < beta {
            -self.negamax(child, ck, -beta, -alpha)
        } else {
            v
        }
    }

    /// Orders `moves` for search: the table's move first, then by the
    /// replies they leave the opponent, fewest first. Returns how many.
    fn order(&mut self, pos: &Position, k: u64, moves: &mut [Move]) -> usize {
        let table_move = self.table.probe(k).map(|e| e.mv);
        let mut keys = [0u32; MAX_MOVES];
        for (o, &m) in keys.iter_mut().zip(moves.iter()) {
            let mut child = *pos;
            child.play(m);
            *o = if Some(m) == table_move {
                0
            } else {
                1 + child.legal_move_count()
            };
        }
        let n = moves.len();
        // Insertion sort: a handful of moves.
        for i in 1..n {
            let mut j = i;
            while j > 0 && keys[j - 1] > keys[j] {
                keys.swap(j - 1, j);
                moves.swap(j - 1, j);
                j -= 1;
            }
        }
        n
    }

    /// The value of `pos` for its side to move, fail-soft within
    /// (`alpha`, `beta`). Meaningless once `self.aborted` is set.
    fn negamax(&mut self, pos: &Position, k: u64, mut alpha: i32, mut beta: i32) -> i32 {
        if !self.count_node() {
            return 0;
        }
        let side = pos.side_to_move();
        let margin = pos.margin(side);
        if pos.is_game_over() {
            return margin;
        }
        let free = pos.free();
        let (us, them) = (pos.pieces(side), pos.pieces(side.opponent()));
        let (reach_us, reach_them) = (flood(us, free), flood(them, free));
        if (reach_us & reach_them).is_empty() {
            // Separated: each side walks its own region.
            let ours = self.longest(reach_us, us) as i32;
            let theirs = self.longest(reach_them, them) as i32;
            return margin + ours - theirs;
        }
        // Neither side moves more often than it has free squares in reach.
        let (upper, lower) = (
            margin + reach_us.count() as i32,
            margin - reach_them.count() as i32,
        );
        if upper <= alpha {
            return upper;
        }
        if lower >= beta {
            return lower;
        }
        if let Some(e) = self.table.probe(k) {
            let v = i32::from(e.score);
            match e.bound {
                Bound::Exact => return v,
                Bound::Lower if v >= beta => return v,
                Bound::Upper if v <= alpha => return v,
                Bound::Lower => alpha = alpha.max(v),
                Bound::Upper => beta = beta.min(v),
            }
        }
        let mut moves = pos.legal_moves();
        // Enhanced transposition cutoff: a child already known to be bad
        // enough for the opponent refutes the window without a search.
        for &m in moves.iter() {
            if let Some(e) = self.table.probe(key_after(k, pos, m)) {
                let v = -i32::from(e.score);
                if matches!(e.bound, Bound::Exact | Bound::Upper) && v >= beta {
                    return v;
                }
            }
        }
        let alpha0 = alpha;
        let n = self.order(pos, k, moves.as_mut_slice());
        let mut best = -INF;
        let mut best_move = moves.as_slice()[0];
        for (i, &m) in moves.as_slice()[..n].iter().enumerate() {
            let mut child = *pos;
            child.play(m);
            let ck = key_after(k, pos, m);
            let v = self.principal_variation_search(&child, ck, i == 0, alpha, beta);
            if self.aborted {
                return 0;
            }
            if v > best {
                best = v;
                best_move = m;
                alpha = alpha.max(v);
                if alpha >= beta {
                    break;
                }
            }
        }
        let bound = Bound::of(best, alpha0, beta);
        let entry = Entry {
            mv: best_move,
            score: best as i16,
            depth: 0,
            bound,
            eval: None,
        };
        self.table.store(k, entry);
        best
    }

    /// Best play from `pos`, whose value is `margin`, to the end of the
    /// game: at each step a move whose value a null-window search confirms.
    /// Ends early if the solve is stopped.
    fn principal_variation(&mut self, pos: &Position, margin: i32) -> Vec<Move> {
        let mut pv = Vec::new();
        let (mut pos, mut value) = (*pos, margin);
        while !pos.is_game_over() {
            let side = pos.side_to_move();
            let free = pos.free();
            let (us, them) = (pos.pieces(side), pos.pieces(side.opponent()));
            let (reach_us, reach_them) = (flood(us, free), flood(them, free));
            let chosen = if (reach_us & reach_them).is_empty() {
                let m = self.longest_move(reach_us, us).unwrap_or(Move::PASS);
                (!self.aborted).then_some(m)
            } else {
                let k = key(&pos);
                let mut moves = pos.legal_moves();
                let n = self.order(&pos, k, moves.as_mut_slice());
                let mut found = None;
                for &m in &moves.as_slice()[..n] {
                    let mut child = pos;
                    child.play(m);
                    let v = -self.negamax(&child, key_after(k, &pos, m), -value - 1, -value + 1);
                    if self.aborted {
                        break;
                    }
                    if v == value {
                        found = Some(m);
                        break;
                    }
                }
                found.filter(|_| !self.aborted)
            };
            let Some(m) = chosen else { break };
            pv.push(m);
            pos.play(m);
            value = -value;
        }
        pv
    }
}

/// The reference: plain alpha-beta on the final margin, no table, no
/// ordering, no bounds. Returns the value of `pos` for its side to move and
/// the nodes visited, or `None` once more than `node_limit` nodes were
/// needed.
pub fn margin_plain(pos: &Position, node_limit: u64) -> Option<(i32, u64)> {
    fn search(pos: &Position, mut alpha: i32, beta: i32, nodes: &mut u64, limit: u64) -> i32 {
        *nodes += 1;
        if pos.is_game_over() || *nodes > limit {
            return pos.margin(pos.side_to_move());
        }
        let mut best = -INF;
        for &m in pos.legal_moves().iter() {
            let mut child = *pos;
            child.play(m);
            let v = -search(&child, -beta, -alpha, nodes, limit);
            best = best.max(v);
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        best
    }
    let mut nodes = 0;
    let v = search(pos, -INF, INF, &mut nodes, node_limit);
    (nodes <= node_limit).then_some((v, nodes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use yolah::Rng;

    /// Positions `plies_left` plies before the end of random games.
    fn endgames(count: usize, plies_left: usize, seed: u64) -> Vec<Position> {
        let mut rng = Rng::new(seed);
        let mut out = Vec::new();
        while out.len() < count {
            let mut line = vec![Position::START];
            let mut pos = Position::START;
            while !pos.is_game_over() {
                pos.play(pos.random_move(&mut rng));
                line.push(pos);
            }
            if line.len() > plies_left {
                out.push(line[line.len() - 1 - plies_left]);
            }
        }
        out
    }

    /// Plain alpha-beta's budget per position in the tests: positions it
    /// cannot finish within it are skipped (the solver is checked on many
    /// more in `yolah solve --bench`).
    const PLAIN_LIMIT: u64 = 2_000_000;

    #[test]
    fn the_solver_agrees_with_plain_alpha_beta() {
        let mut solver = Solver::new();
        let mut checked = 0;
        for (i, pos) in endgames(60, 12, 7).iter().enumerate() {
            let Some((plain, _)) = margin_plain(pos, PLAIN_LIMIT) else {
                continue;
            };
            checked += 1;
            let s = solver.solve(pos).unwrap();
            assert_eq!(s.margin, plain, "position {i}: {pos:?}");
            // The line is legal, ends the game, and ends with that margin.
            let mut end = *pos;
            for &m in &s.pv {
                end.try_play(m).unwrap();
            }
            assert!(end.is_game_over());
            assert_eq!(end.margin(pos.side_to_move()), s.margin);
            assert_eq!(s.pv[0], s.best_move);
            let (sign, m) = solver
                .result_within(pos, Limits::default(), &Stop::new())
                .unwrap();
            assert_eq!(sign, plain.signum());
            let mut child = *pos;
            child.play(m);
            let (after, _) = margin_plain(&child, u64::MAX).unwrap();
            assert_eq!((-after).signum(), sign, "the move keeps the result");
        }
        assert!(checked >= 30, "only {checked} positions were small enough");
    }

    #[test]
    fn separated_positions_score_their_exact_margin() {
        let mut regions = Solver::for_regions();
        let mut solver = Solver::new();
        let (mut separated, mut together, mut by_plain) = (0, 0, 0);
        for pos in endgames(300, 10, 11) {
            let side = pos.side_to_move();
            let (us, them) = (pos.pieces(side), pos.pieces(side.opponent()));
            let free = pos.free();
            let meet = !(flood(us, free) & flood(them, free)).is_empty();
            match regions.separated_margin(&pos, u64::MAX) {
                None => {
                    assert!(meet, "{pos:?}");
                    together += 1;
                }
                Some(margin) => {
                    assert!(!meet, "{pos:?}");
                    // Plain alpha-beta's, where it finishes; the solver's
                    // everywhere (checked against plain alpha-beta above).
                    if let Some((plain, _)) = margin_plain(&pos, PLAIN_LIMIT) {
                        assert_eq!(margin, plain, "{pos:?}");
                        by_plain += 1;
                    }
                    assert_eq!(margin, solver.solve(&pos).unwrap().margin, "{pos:?}");
                    separated += 1;
                }
            }
        }
        assert!(separated >= 20 && together >= 20, "{separated} {together}");
        assert!(by_plain >= 10, "{by_plain}");
        // Too few steps: no answer rather than a wrong one.
        let pos = endgames(300, 10, 11)
            .into_iter()
            .find(|p| regions.separated_margin(p, u64::MAX).is_some() && !p.free().is_empty())
            .unwrap();
        assert_eq!(Solver::for_regions().separated_margin(&pos, 1), None);
    }

    #[test]
    fn finished_games_and_limits() {
        let over: Position =
            "xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/bbbbwwww b 28 28 56"
                .parse()
                .unwrap();
        assert!(over.is_game_over());
        assert_eq!(Solver::new().solve(&over), None);
        let limits = Limits {
            nodes: Some(NODE_STEP),
            time: None,
        };
        let start = Position::START;
        assert_eq!(
            Solver::new().solve_within(&start, limits, &Stop::new()),
            None
        );
    }
}
