//! Negamax alpha-beta with iterative deepening, principal variation search,
//! a transposition table, and killer and history move ordering.

use crate::eval::{Evaluator, Weights};
use crate::score::{DECIDED, WIN};
use crate::{Analysis, Budget, Clock, Player, Score, Search, Spec, SpecError, Stop};
use yolah::zobrist::{key, key_after};
use yolah::{Move, Position, Rng, MAX_MOVES};

/// Deepest search (a game never lasts longer than this many plies below any
/// position).
const MAX_PLY: usize = 128;
/// Transposition table entries (16 bytes each): 16 MiB.
const TT_ENTRIES: usize = 1 << 20;
const INF: i32 = WIN + 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u64,
    mv: Move,
    score: i16,
    depth: u8,
    bound: Bound,
}

const EMPTY: Entry = Entry {
    key: 0,
    mv: Move::PASS,
    score: 0,
    depth: 0,
    bound: Bound::Upper,
};

/// Wins are stored relative to the node, not the root, so that a table hit
/// at another ply still means "win in so many plies from here".
fn to_table(score: i32, ply: u32) -> i16 {
    let s = if score > DECIDED {
        score + ply as i32
    } else if score < -DECIDED {
        score - ply as i32
    } else {
        score
    };
    s as i16
}

fn from_table(score: i16, ply: u32) -> i32 {
    let s = i32::from(score);
    if s > DECIDED {
        s - ply as i32
    } else if s < -DECIDED {
        s + ply as i32
    } else {
        s
    }
}

/// The exact score of a finished game for the side to move.
fn terminal(pos: &Position, ply: u32) -> i32 {
    i32::from(pos.outcome().sign(pos.side_to_move())) * (WIN - ply as i32)
}

/// The alpha-beta player, generic over its evaluation.
pub struct AlphaBeta<E: Evaluator = Weights> {
    spec: String,
    budget: Budget,
    evaluator: E,
    rng: Rng,
    table: Vec<Entry>,
    killers: [[Move; 2]; MAX_PLY],
    history: Vec<i32>,
    nodes: u64,
    clock: Clock,
    aborted: bool,
}

impl AlphaBeta<Weights> {
    /// A player with the given budget (depth, nodes or time) and heuristic
    /// weights.
    pub fn new(budget: Budget, weights: Weights, seed: u64) -> AlphaBeta {
        AlphaBeta::with_evaluator(budget, weights, seed)
    }

    pub(crate) fn from_spec(spec: &Spec) -> Result<AlphaBeta, SpecError> {
        spec.allow(&["depth", "nodes", "time", "weights", "seed"])?;
        let budget = parse_budget(spec)?;
        let weights = match spec.text("weights") {
            Some(name) => Weights::named_or_load(name).map_err(|e| spec.error(e))?,
            None => Weights::default(),
        };
        let mut player = AlphaBeta::new(budget, weights, spec.seed()?);
        player.spec = spec.text.to_string();
        Ok(player)
    }
}

/// The budget of a spec: `depth=`, `nodes=` or `time=` (depth 7 when none
/// is given).
pub(crate) fn parse_budget(spec: &Spec) -> Result<Budget, SpecError> {
    let depth = spec.number("depth")?;
    let nodes = spec.number("nodes")?;
    let time = spec.time()?;
    Ok(match (depth, nodes, time) {
        (None, None, None) => Budget::Depth(7),
        (Some(d), None, None) if (1..=MAX_PLY as u64).contains(&d) => Budget::Depth(d as u32),
        (Some(d), None, None) => {
            return Err(spec.error(format!("depth={d} must be from 1 to {MAX_PLY}")))
        }
        (None, Some(0), None) => return Err(spec.error("nodes=0 leaves nothing to search")),
        (None, Some(n), None) => Budget::Count(n),
        (None, None, Some(t)) => Budget::Time(t),
        _ => return Err(spec.error("give one of depth=, nodes= or time=")),
    })
}

impl<E: Evaluator> AlphaBeta<E> {
    /// A player with the given budget and evaluation.
    pub fn with_evaluator(budget: Budget, evaluator: E, seed: u64) -> AlphaBeta<E> {
        AlphaBeta {
            spec: "alphabeta".into(),
            budget,
            evaluator,
            rng: Rng::new(seed),
            // Allocated by the first search (see `analyse_until`).
            table: Vec::new(),
            killers: [[Move::PASS; 2]; MAX_PLY],
            history: vec![0; 64 * 64],
            nodes: 0,
            clock: Clock::start(budget, &Stop::new()),
            aborted: false,
        }
    }

    /// Names the player (the spec it was built from).
    pub fn set_spec(&mut self, spec: &str) {
        self.spec = spec.to_string();
    }

    fn out_of_budget(&self) -> bool {
        match self.budget {
            Budget::Count(n) => self.nodes >= n || self.clock.expired(),
            Budget::Time(_) | Budget::Depth(_) | Budget::Infinite => self.clock.expired(),
        }
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
        self.nodes += 1;
        if self.nodes & 1023 == 0 && self.out_of_budget() {
            self.aborted = true;
        }
        if self.aborted {
            return 0;
        }
        if pos.is_game_over() {
            return terminal(pos, ply);
        }
        if depth == 0 || ply as usize >= MAX_PLY - 1 {
            return self.evaluator.evaluate(pos, state, ply);
        }
        let slot = key as usize & (TT_ENTRIES - 1);
        let entry = self.table[slot];
        let mut table_move = None;
        if entry.key == key {
            table_move = Some(entry.mv);
            if u32::from(entry.depth) >= depth {
                let s = from_table(entry.score, ply);
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
        let moves = pos.legal_moves();
        let mut order = [0i32; MAX_MOVES];
        let killers = self.killers[ply as usize];
        for (o, &m) in order.iter_mut().zip(moves.iter()) {
            *o = if Some(m) == table_move {
                1 << 30
            } else if m == killers[0] {
                1 << 29
            } else if m == killers[1] {
                1 << 28
            } else {
                self.history[usize::from(m.to_u16()) & 4095]
            };
        }
        let mut moves = moves;
        let list = moves.as_mut_slice();
        let n = list.len();
        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_move = list[0];
        for i in 0..n {
            // Selection sort step: the best remaining move next.
            let j = (i..n).max_by_key(|&j| order[j]).unwrap_or(i);
            list.swap(i, j);
            order.swap(i, j);
            let m = list[i];
            let mut child = *pos;
            child.play(m);
            let child_key = key_after(key, pos, m);
            let child_state = self.evaluator.child_state(state, pos, m);
            let cs = &child_state;
            let score = if i == 0 {
                -self.search(&child, cs, child_key, depth - 1, -beta, -alpha, ply + 1)
            } else {
                // Principal variation search: prove the move worse with a
                // null window, search again only if it is not.
                let s = -self.search(
                    &child,
                    cs,
                    child_key,
                    depth - 1,
                    -alpha - 1,
                    -alpha,
                    ply + 1,
                );
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
                        if m != killers[0] {
                            self.killers[ply as usize] = [m, killers[0]];
                        }
                        let h = &mut self.history[usize::from(m.to_u16()) & 4095];
                        *h = (*h + (depth * depth) as i32).min(1 << 27);
                        break;
                    }
                }
            }
        }
        let bound = if best <= alpha0 {
            Bound::Upper
        } else if best >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.table[slot] = Entry {
            key,
            mv: best_move,
            score: to_table(best, ply),
            depth: depth.min(255) as u8,
            bound,
        };
        best
    }

    /// The principal variation, from the table.
    fn principal_variation(&self, pos: &Position, max: u32) -> Vec<Move> {
        let mut pv = Vec::new();
        let mut pos = *pos;
        let mut k = key(&pos);
        while pv.len() < max as usize && !pos.is_game_over() {
            let e = self.table[k as usize & (TT_ENTRIES - 1)];
            if e.key != k || pos.check_move(e.mv).is_err() {
                break;
            }
            pv.push(e.mv);
            k = key_after(k, &pos, e.mv);
            pos.play(e.mv);
        }
        pv
    }

    /// One iteration at the root; `None` when the budget ran out before the
    /// first move was searched completely.
    fn search_root(
        &mut self,
        pos: &Position,
        root_state: &E::State,
        root_key: u64,
        moves: &[Move],
        depth: u32,
    ) -> Option<(Move, i32)> {
        let mut alpha = -INF;
        let mut best: Option<(Move, i32)> = None;
        for &m in moves {
            let mut child = *pos;
            child.play(m);
            let child_key = key_after(root_key, pos, m);
            let cs = &self.evaluator.child_state(root_state, pos, m);
            let score = if best.is_none() {
                -self.search(&child, cs, child_key, depth - 1, -INF, INF, 1)
            } else {
                let s = -self.search(&child, cs, child_key, depth - 1, -alpha - 1, -alpha, 1);
                if s > alpha && !self.aborted {
                    -self.search(&child, cs, child_key, depth - 1, -INF, -alpha, 1)
                } else {
                    s
                }
            };
            if self.aborted {
                // A partial iteration counts only if it has already found a
                // better move than the previous iteration's best.
                return best.filter(|b| b.0 != moves[0]);
            }
            if best.is_none_or(|b| score > b.1) {
                best = Some((m, score));
                alpha = score;
            }
        }
        if let Some((m, score)) = best {
            let slot = root_key as usize & (TT_ENTRIES - 1);
            self.table[slot] = Entry {
                key: root_key,
                mv: m,
                score: to_table(score, 0),
                depth: depth.min(255) as u8,
                bound: Bound::Exact,
            };
        }
        best
    }
}

impl<E: Evaluator> Player for AlphaBeta<E> {
    fn spec(&self) -> &str {
        &self.spec
    }

    fn new_game(&mut self) {
        self.table.fill(EMPTY);
        self.history.fill(0);
        self.killers = [[Move::PASS; 2]; MAX_PLY];
    }

    fn search(&mut self, pos: &Position, mut search: Search<'_>) -> Analysis {
        // This search's budget, and the player's own back afterwards.
        let own = self.budget;
        self.budget = search.budget.unwrap_or(own);
        let analysis = self.iterate(pos, &mut search);
        self.budget = own;
        analysis
    }
}

impl<E: Evaluator> AlphaBeta<E> {
    /// Iterative deepening within `self.budget`.
    fn iterate(&mut self, pos: &Position, search: &mut Search<'_>) -> Analysis {
        self.clock = Clock::start(self.budget, search.stop);
        if self.table.is_empty() {
            self.table = vec![EMPTY; TT_ENTRIES];
        }
        self.nodes = 0;
        self.aborted = false;
        self.killers = [[Move::PASS; 2]; MAX_PLY];
        for h in &mut self.history {
            *h /= 8;
        }
        let root_key = key(pos);
        // A game cannot go on for more plies than twice the free squares.
        let exhaustive = 2 * pos.free().count() + 2;
        let max_depth = match self.budget {
            Budget::Depth(d) => d.min(exhaustive),
            _ => exhaustive.min(MAX_PLY as u32 - 2),
        };
        let mut moves = pos.legal_moves();
        // The seed decides the order of equally good root moves.
        let list = moves.as_mut_slice();
        for i in (1..list.len()).rev() {
            list.swap(i, self.rng.below(i as u32 + 1) as usize);
        }
        let root_state = self.evaluator.root_state(pos);
        let mut best = (list[0], self.evaluator.evaluate(pos, &root_state, 0));
        let mut completed = 0;
        if list.len() > 1 || matches!(self.budget, Budget::Depth(_)) {
            for depth in 1..=max_depth.max(1) {
                let iteration = self.search_root(pos, &root_state, root_key, list, depth);
                match iteration {
                    Some(result) => {
                        best = result;
                        completed = depth;
                        // Move the best move to the front for the next iteration.
                        let at = list.iter().position(|&m| m == result.0).unwrap_or(0);
                        list[..=at].rotate_right(1);
                        if search.progress.is_some() {
                            let report = self.analysis(pos, best, completed);
                            search.report(&report);
                        }
                    }
                    None => break,
                }
                // A proven result ends a timed or counted search; a fixed
                // depth is searched to the depth asked for.
                let proven = best.1.abs() > DECIDED && !matches!(self.budget, Budget::Depth(_));
                if self.out_of_budget() || proven {
                    break;
                }
            }
        }
        self.analysis(pos, best, completed)
    }

    /// Where the search stands: `best` (move, score) after `completed` plies.
    fn analysis(&self, pos: &Position, best: (Move, i32), completed: u32) -> Analysis {
        let mut pv = self.principal_variation(pos, completed.max(1));
        if pv.first() != Some(&best.0) {
            pv = vec![best.0];
        }
        Analysis {
            best_move: best.0,
            score: Score::Centipoints(best.1),
            depth: Some(completed),
            iterations: None,
            nodes: self.nodes,
            seconds: self.clock.seconds(),
            pv,
        }
    }
}
