//! One thread's search: negamax alpha-beta with principal variation search,
//! the shared table, and killer and history move ordering. Each technique
//! beyond that has its own submodule: `ordering` (the order moves are
//! searched in), `history`, `reductions` (late moves), `probcut`,
//! `null_move`, `singular` (extensions) and `freeze` (freezing moves).

use super::{from_table, terminal, to_table, Heuristics, Shared, INF, MAX_PLY, NODE_STEP};
use crate::budget::Budget;
use crate::eval::Evaluator;
use crate::player::Search;
use crate::score::{BOUND_WIN, DECIDED};
use crate::table::{Bound, Entry, Table};
use std::sync::atomic::Ordering::Relaxed;
use yolah::zobrist::{key, key_after};
use yolah::{Move, Position, MAX_MOVES};

mod freeze;
mod history;
mod null_move;
mod ordering;
mod probcut;
mod reductions;
mod singular;

use history::move_index;
pub(super) use history::CONTINUATION_SLOTS;
use null_move::NMP_DEPTH;
use ordering::{MoveKeys, LATE};
use reductions::late_move_reduction;
use singular::Singular;

pub(super) struct Worker<'a, E: Evaluator> {
    evaluator: &'a E,
    table: &'a Table,
    shared: &'a Shared,
    heuristics: &'a mut Heuristics,
    /// This thread's nodes; every [`NODE_STEP`] are added to the shared count.
    nodes: u64,
    /// The moves from the root to the node being searched, by ply.
    line: [Move; MAX_PLY],
    /// No null move above this ply: set while a null move's cut is verified.
    null_move_floor: u32,
    /// The move left out at each ply, while a singular extension tests
    /// whether the others reach its score.
    excluded: [Option<Move>; MAX_PLY],
    /// The depth of the iteration under way.
    root_depth: u32,
    aborted: bool,
}

impl<'a, E: Evaluator> Worker<'a, E> {
    pub(super) fn new(
        evaluator: &'a E,
        table: &'a Table,
        shared: &'a Shared,
        heuristics: &'a mut Heuristics,
    ) -> Worker<'a, E> {
        heuristics.start_search();
        if shared.options.continuation && heuristics.continuation.is_empty() {
            heuristics.continuation = vec![0; CONTINUATION_SLOTS];
        }
        Worker {
            evaluator,
            table,
            shared,
            heuristics,
            nodes: 0,
            line: [Move::PASS; MAX_PLY],
            null_move_floor: 0,
            excluded: [None; MAX_PLY],
            root_depth: 0,
            aborted: false,
        }
    }

    /// Adds the nodes not yet counted to the shared count.
    pub(super) fn flush_nodes(&mut self) {
        self.shared.nodes.fetch_add(self.nodes % NODE_STEP, Relaxed);
        self.nodes -= self.nodes % NODE_STEP;
    }

    /// All threads' nodes so far, this one's exactly.
    fn total_nodes(&self) -> u64 {
        self.shared.nodes.load(Relaxed) + self.nodes % NODE_STEP
    }

    fn out_of_budget(&self) -> bool {
        let over = match self.shared.budget {
            Budget::Count(n) => self.total_nodes() >= n,
            Budget::Time(_) | Budget::Depth(_) | Budget::Infinite => false,
        };
        over || self.shared.clock.expired() || self.shared.done.load(Relaxed)
    }

    /// Counts a node; every [`NODE_STEP`] looks whether the search must end.
    #[inline]
    fn count_node(&mut self) {
        self.nodes += 1;
        if self.nodes.is_multiple_of(NODE_STEP) {
            self.shared.nodes.fetch_add(NODE_STEP, Relaxed);
            if self.out_of_budget() {
                self.aborted = true;
            }
        }
    }

    /// Iterative deepening from `first_depth` to `max_depth` over the root
    /// `moves` (reordered as it goes: the best first). Reports each
    /// completed depth to `search` (the main thread's). Returns the best
    /// move and its score, and the depth completed.
    pub(super) fn deepen(
        &mut self,
        pos: &Position,
        moves: &mut [Move],
        first_depth: u32,
        max_depth: u32,
        mut search: Option<&mut Search<'_>>,
    ) -> ((Move, i32), u32) {
        let root_key = key(pos);
        let root_state = self.evaluator.root_state(pos);
        // A finished game's value is its result, not the evaluation's guess
        // (with one legal move and a time or node budget nothing is searched).
        let first = if pos.is_game_over() {
            terminal(pos, 0)
        } else {
            self.evaluator.evaluate(pos, &root_state, 0)
        };
        let mut best = (moves[0], first);
        let mut completed = 0;
        let budget = self.shared.budget;
        // For time management: the last completed iteration's best, and
        // for how many iterations in a row the best move has not changed.
        let mut previous: Option<(Move, i32)> = None;
        let mut stable = 0;
        if moves.len() == 1 && !matches!(budget, Budget::Depth(_)) {
            return (best, completed);
        }
        for depth in first_depth.min(max_depth.max(1))..=max_depth.max(1) {
            let Some(result) = self.aspirate(pos, &root_state, root_key, moves, depth, best.1)
            else {
                break;
            };
            best = result;
            if !self.aborted {
                completed = depth;
            }
            // The best move first for the next iteration.
            let at = moves.iter().position(|&m| m == result.0).unwrap_or(0);
            moves[..=at].rotate_right(1);
            if let Some(search) = search.as_deref_mut().filter(|s| s.progress.is_some()) {
                let nodes = self.total_nodes();
                let report = super::analysis(self.table, self.shared, pos, best, completed, nodes);
                search.report(&report);
            }
            // A proven result ends a timed or counted search; a fixed
            // depth is searched to the depth asked for.
            let proven = best.1.abs() > DECIDED && !matches!(budget, Budget::Depth(_));
            if self.out_of_budget() || proven {
                break;
            }
            // With a target time (the main thread only: helpers stop when
            // it does), stop once the next iteration would likely overrun
            // it, sooner when the best move is settled.
            if let Some(target) = self.shared.target.filter(|_| search.is_some()) {
                stable = if Some(best.0) == previous.map(|p| p.0) {
                    stable + 1
                } else {
                    0
                };
                let falling = previous.is_some_and(|p| best.1 < p.1 - FALLING_SCORE);
                let scale =
                    STABILITY[stable.min(STABILITY.len() - 1)] * if falling { 1.5 } else { 1.0 };
                // The next iteration costs about as much again as all the
                // ones before it together, or more.
                let elapsed = self.shared.clock.elapsed().as_secs_f64();
                if elapsed >= target.as_secs_f64() * scale / 2.0 {
                    break;
                }
                previous = Some(best);
            }
        }
        (best, completed)
    }

    /// One iteration at the root. With aspiration windows on, from the
    /// fourth ply the window is first a narrow one around `previous` (the
    /// last iteration's score), widened on the failing side until the score
    /// falls inside it.
    fn aspirate(
        &mut self,
        pos: &Position,
        root_state: &E::State,
        root_key: u64,
        moves: &[Move],
        depth: u32,
        previous: i32,
    ) -> Option<(Move, i32)> {
        if !self.shared.options.aspiration || depth < 4 || previous.abs() > DECIDED {
            return self.search_root(pos, root_state, root_key, moves, depth, -INF, INF);
        }
        let mut delta = ASPIRATION_WINDOW;
        let (mut alpha, mut beta) = (previous - delta, previous + delta);
        loop {
            let found = self.search_root(pos, root_state, root_key, moves, depth, alpha, beta)?;
            if self.aborted {
                // A partial iteration: `search_root` only returns a move
                // that beat the last iteration's best.
                return Some(found);
            }
            if found.1 <= alpha {
                alpha = (alpha - delta).max(-INF);
            } else if found.1 >= beta {
                beta = (beta + delta).min(INF);
            } else {
                return Some(found);
            }
            delta *= 2;
            if delta > 8 * ASPIRATION_WINDOW {
                (alpha, beta) = (-INF, INF);
            }
        }
    }

    /// One iteration at the root within (`alpha`, `beta`); `None` when the
    /// budget ran out before the first move was searched completely.
    #[allow(clippy::too_many_arguments)]
    fn search_root(
        &mut self,
        pos: &Position,
        root_state: &E::State,
        root_key: u64,
        moves: &[Move],
        depth: u32,
        mut alpha: i32,
        beta: i32,
    ) -> Option<(Move, i32)> {
        let alpha0 = alpha;
        let mut best: Option<(Move, i32)> = None;
        self.root_depth = depth;
        for &m in moves {
            let child_key = key_after(root_key, pos, m);
            self.table.prefetch(child_key);
            let mut child = *pos;
            child.play(m);
            self.line[0] = m;
            let cs = &self.evaluator.child_state(root_state, pos, m);
            let score = if best.is_none() {
                -self.search(&child, cs, child_key, depth - 1, -beta, -alpha, 1)
            } else {
                let s = -self.search(&child, cs, child_key, depth - 1, -alpha - 1, -alpha, 1);
                if s > alpha && s < beta && !self.aborted {
                    -self.search(&child, cs, child_key, depth - 1, -beta, -alpha, 1)
                } else {
                    s
                }
            };
            if self.aborted {
                // A partial iteration counts only if it has already found a
                // better move than the previous iteration's best.
                // (Above the window's floor: below it a score is only a
                // bound, and the move may be worse than the first.)
                return best.filter(|b| b.0 != moves[0] && b.1 > alpha0);
            }
            if best.is_none_or(|b| score > b.1) {
                best = Some((m, score));
                alpha = alpha.max(score);
                if alpha >= beta {
                    break;
                }
            }
        }
        if let Some((m, score)) = best {
            let bound = Bound::of(score, alpha0, beta);
            let entry = Entry {
                mv: m,
                score: to_table(score, 0),
                depth: depth.min(255) as u8,
                bound,
                eval: None,
            };
            self.table.store(root_key, entry);
        }
        best
    }

    #[allow(clippy::too_many_arguments)]
    fn search(
        &mut self,
        pos: &Position,
        state: &E::State,
        key: u64,
        depth: u32,
        mut alpha: i32,
        beta: i32,
        ply: u32,
    ) -> i32 {
        self.count_node();
        if self.aborted {
            return 0;
        }
        if pos.is_game_over() {
            return terminal(pos, ply);
        }
        let options = self.shared.options;
        if options.exact_regions {
            if let Some(margin) = self.heuristics.regions.separated_margin(pos, REGION_STEPS) {
                return margin.signum() * (BOUND_WIN - ply as i32);
            }
        }
        if depth == 0 || ply as usize >= MAX_PLY - 1 {
            return self.evaluator.evaluate(pos, state, ply);
        }
        // While a singular extension leaves a move out, the table's entry
        // is this node's own with the move in: neither used nor replaced.
        let excluded = self.excluded[ply as usize];
        let table_entry = self
            .table
            .probe(key)
            .filter(|_| excluded.is_none())
            .map(|entry| (entry, from_table(entry.score, ply)));
        let table_move = table_entry.map(|(entry, _)| entry.mv);
        if let Some((entry, s)) = table_entry {
            if u32::from(entry.depth) >= depth {
                let usable = match entry.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if usable {
                    return s;
                }
            }
        }
        let pv_node = beta - alpha > 1;
        // The static value, evaluated when a pruning rule first needs it,
        // unless the table kept it.
        let mut static_value = table_entry.and_then(|(entry, _)| entry.eval.map(i32::from));
        // Reverse futility: this close to the horizon, a static value far
        // enough above beta is taken as a cut without a search.
        let rfp_depth = if options.rfp_deeper {
            RFP_DEEPER
        } else {
            RFP_DEPTH
        };
        if options.rfp
            && !pv_node
            && depth <= rfp_depth
            && beta.abs() < DECIDED
            && excluded.is_none()
        {
            let eval = self.static_value(&mut static_value, pos, state, ply);
            if eval - RFP_MARGIN * depth as i32 >= beta {
                return eval;
            }
        }
        // Null move: a static value above beta that stays above it even
        // when the opponent moves twice is taken as a cut. Never twice in a
        // row, and only while both sides can move (a side that cannot
        // passes anyway).
        let side = pos.side_to_move();
        if options.null_move
            && !pv_node
            && excluded.is_none()
            && depth >= NMP_DEPTH
            && beta.abs() < DECIDED
            && ply >= self.null_move_floor
            && !self.line[ply as usize - 1].is_pass()
            && pos.can_move(side)
            && pos.can_move(side.opponent())
            && self.static_value(&mut static_value, pos, state, ply) >= beta
        {
            if let Some(score) = self.null_move(pos, state, key, depth, beta, ply) {
                return score;
            }
            if self.aborted {
                return 0;
            }
        }
        // ProbCut: a static value far beyond the window, confirmed by a
        // shallow search, cuts the node (`pc`); `probcut` itself checks
        // the depth and that the window is not decided.
        if options.probcut && !pv_node && excluded.is_none() {
            if let Some(score) =
                self.probcut(pos, state, key, depth, alpha, beta, ply, &mut static_value)
            {
                return score;
            }
        }
        // Internal iterative reduction: with no move from the table the
        // order is a guess, so the node is searched a ply less deep (and
        // leaves a move for the next iteration).
        let depth = if options.internal_reduction && table_move.is_none() && depth >= IIR_DEPTH {
            depth - 1
        } else {
            depth
        };
        let moves = pos.legal_moves();
        let mut order = [0i32; MAX_MOVES];
        let previous = move_index(self.line[ply as usize - 1]);
        // The earlier moves the continuation history follows (`ch`): the
        // opponent's last, and our own before it (unknown at the root's
        // children).
        let earlier = |back: u32| {
            (options.continuation && ply >= back).then(|| self.line[(ply - back) as usize])
        };
        let keys = MoveKeys {
            table_move,
            killers: self.heuristics.killers[ply as usize],
            previous,
            countermove: options
                .countermove
                .then(|| self.heuristics.countermoves[previous]),
            followed: [earlier(1), earlier(2)],
            // Far enough from the horizon, the moves after the table move,
            // killers and countermove go in the order of the static values
            // they leave (territory and all), rather than by history.
            evaluate_children: options.eval_order && depth >= EVAL_ORDER_DEPTH,
            freeze_order: options.freeze_order,
        };
        for (o, &m) in order.iter_mut().zip(moves.iter()) {
            *o = self.order_key(pos, state, m, ply, &keys);
        }
        let mut moves = moves;
        let list = moves.as_mut_slice();
        let n = list.len();
        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_move = list[0];
        // The index of the next move, when it was chosen ahead.
        let mut next: Option<usize> = None;
        for i in 0..n {
            // Late-move pruning: close to the horizon, once a move that does
            // not lose is found, the last moves in the order are skipped.
            if options.lmp
                && !pv_node
                && depth <= LMP_DEPTH
                && i >= late_moves(depth)
                && best > -DECIDED
            {
                break;
            }
            // Selection sort step: the best remaining move next (chosen one
            // move ahead, below, where the children probe the table).
            let j = next
                .take()
                .unwrap_or_else(|| (i..n).max_by_key(|&j| order[j]).unwrap_or(i));
            list.swap(i, j);
            order.swap(i, j);
            let m = list[i];
            // The move after this one is chosen now, the same as the next
            // step would choose it, and its child's table slot fetched, so
            // that it arrives while this move's subtree is searched: fetched
            // just before the child's own probe, it was still on its way
            // and the probe waited (docs/search-log.md row 82).
            if depth > 1 && i + 1 < n {
                let k = (i + 1..n).max_by_key(|&k| order[k]).unwrap_or(i + 1);
                next = Some(k);
                self.table.prefetch(key_after(key, pos, list[k]));
            }
            if Some(m) == excluded {
                continue;
            }
            // The table's move, searched first, a ply deeper if singular.
            let mut extension = 0;
            let first_and_table_move = |&(entry, _): &(Entry, i32)| i == 0 && entry.mv == m;
            if let Some((entry, s)) =
                table_entry.filter(|e| options.singular && first_and_table_move(e))
            {
                match self.singular(pos, state, key, m, entry, s, depth, beta, ply) {
                    Singular::Extend(plies) => extension = plies,
                    Singular::Cut(score) => return score,
                }
                if self.aborted {
                    return 0;
                }
            }
            let child_key = key_after(key, pos, m);
            if depth > 1 && i == 0 {
                // The first move's slot; the others were fetched a move ahead.
                self.table.prefetch(child_key);
            }
            let mut child = *pos;
            child.play(m);
            self.line[ply as usize] = m;
            let child_state = self.evaluator.child_state(state, pos, m);
            let cs = &child_state;
            let score = if i == 0 {
                -self.search(
                    &child,
                    cs,
                    child_key,
                    depth - 1 + extension,
                    -beta,
                    -alpha,
                    ply + 1,
                )
            } else {
                // Principal variation search: prove the move worse with a
                // null window, search again only if it is not. A late move
                // (not the table's, not a killer) is first searched less
                // deep, and at full depth only if it then beats alpha.
                let late = order[i] < LATE;
                let reduction = if options.lmr && late && depth >= 3 && i >= 3 {
                    // A ply more off the principal variation, with the
                    // option: such a node only has to be proved worse.
                    let more = u32::from(options.null_window_reduction && !pv_node);
                    // A ply less on it, with the option.
                    let less = u32::from(options.pv_reduction && pv_node);
                    (late_move_reduction(depth, i) + more)
                        .saturating_sub(less)
                        .min(depth - 2)
                } else {
                    0
                };
                let mut s = -self.search(
                    &child,
                    cs,
                    child_key,
                    depth - 1 - reduction,
                    -alpha - 1,
                    -alpha,
                    ply + 1,
                );
                if reduction > 0 && s > alpha && !self.aborted {
                    s = -self.search(
                        &child,
                        cs,
                        child_key,
                        depth - 1,
                        -alpha - 1,
                        -alpha,
                        ply + 1,
                    );
                }
                if s > alpha && s < beta {
                    -self.search(&child, cs, child_key, depth - 1, -beta, -alpha, ply + 1)
                } else {
                    s
                }
            };
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                best_move = m;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        self.reward_cut(m, &list[..i], depth, ply, &keys);
                        break;
                    }
                }
            }
        }
        if excluded.is_some() {
            // Only the singular test reads this: no other move, none better.
            return if best == -INF { alpha } else { best };
        }
        let bound = Bound::of(best, alpha0, beta);
        let entry = Entry {
            mv: best_move,
            score: to_table(best, ply),
            depth: depth.min(255) as u8,
            bound,
            eval: static_value.filter(|v| v.abs() < DECIDED).map(|v| v as i16),
        };
        self.table.store(key, entry);
        best
    }

    /// The static value of `pos`, evaluated once per node: `cache` keeps it.
    fn static_value(
        &self,
        cache: &mut Option<i32>,
        pos: &Position,
        state: &E::State,
        ply: u32,
    ) -> i32 {
        *cache.get_or_insert_with(|| self.evaluator.evaluate(pos, state, ply))
    }
}

/// The most steps of the longest-path search that scoring one separated
/// position exactly may take (`xr`); past them, the evaluation scores it.
const REGION_STEPS: u64 = 2_000;

/// Internal iterative reduction works this many plies or more from the
/// horizon.
const IIR_DEPTH: u32 = 4;

/// How much of its target time a managed search spends, by how many
/// iterations in a row the best move has stayed the same (0: it just
/// changed)...
const STABILITY: [f64; 4] = [1.7, 1.3, 1.0, 0.8];
/// ...and a drop of the score by this much since the last iteration gives
/// it half as much again.
const FALLING_SCORE: i32 = 50;

/// Ordering by the children's static values works this many plies or more
/// from the horizon.
const EVAL_ORDER_DEPTH: u32 = 3;

/// The first aspiration window: this far either side of the last score.
const ASPIRATION_WINDOW: i32 = 40;
/// Reverse futility pruning works this many plies from the horizon...
const RFP_DEPTH: u32 = 4;
/// ...or this many with `rfd`.
const RFP_DEEPER: u32 = 6;
/// ...with this margin per ply (centipoints: a point is 100).
const RFP_MARGIN: i32 = 120;
/// Late-move pruning works this many plies from the horizon...
const LMP_DEPTH: u32 = 3;

/// ...where a node searches this many moves at most.
fn late_moves(depth: u32) -> usize {
    (4 + 3 * depth * depth) as usize
}
