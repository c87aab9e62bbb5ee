//! `yolah.search`'s engine: batched PUCT over the games of a
//! [`VectorGames`], one search tree a game (`yolah_players::az::tree`),
//! the leaves of all trees valued by one call of a Python function per
//! simulation round (see `python/yolah/search.py` for the API next to
//! DeepMind's `mctx`).
//!
//! A run, for every game taking part:
//!
//! 1. the tree's root becomes the game's position, keeping the subtree
//!    found there (a move of each side since the last run);
//! 2. a root never valued is valued (one batch for all such roots);
//! 3. Dirichlet noise is mixed into the root's priors (or taken out);
//! 4. round after round, each game still short of its simulations descends
//!    its tree to a leaf; the leaves that need the evaluator are written
//!    into rows of preallocated arrays, `evaluate(observations, masks)` is
//!    called once for all of them, and each tree expands its leaf with the
//!    returned logits and backs up the value;
//! 5. the visit counts at the root are written out, and a move is drawn
//!    from them at the game's temperature.
//!
//! Descents, row writing and expansions run on up to `threads` threads
//! with the GIL released; the evaluator runs with it. Each game draws its
//! noise and its move from its own generator, seeded by `(seed, game)`, so
//! a run repeats for a seed whatever the threads.

use crate::encode::Rows;
use crate::errors::{threads_in, YolahError};
use crate::vector::VectorGames;
use numpy::{
    PyArray1, PyArray2, PyArray4, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PySlice};
use yolah::{Position, Rng, MAX_MOVES};
use yolah_players::az::encoding::{action_index, ACTIONS, PLANES, REACH_PLANES};
use yolah_players::az::noise::Dirichlet;
use yolah_players::az::tree::{Descent, Leaf, Puct, Tree};

/// Games a thread takes at least in a pass.
const MIN_GAMES_PER_THREAD: usize = 32;

/// One game's search.
struct GameSearch {
    tree: Tree,
    descent: Descent,
    rng: Rng,
    noise: Dirichlet,
    /// This run's simulations (0: the game sits this run out).
    simulations: u32,
    /// Whether the current round's leaf waits for the evaluator.
    pending: bool,
}

/// Runs `f` on chunks of `items` on up to `threads` threads; `f` gets a
/// chunk and the index of its first item.
pub(crate) fn parallel<T: Send>(
    threads: usize,
    items: &mut [T],
    f: impl Fn(&mut [T], usize) + Sync,
) {
    let chunk = items
        .len()
        .div_ceil(threads.max(1))
        .max(MIN_GAMES_PER_THREAD);
    std::thread::scope(|s| {
        let (mut items, mut offset) = (items, 0);
        while items.len() > chunk {
            let (here, rest) = items.split_at_mut(chunk);
            let f = &f;
            s.spawn(move || f(here, offset));
            (items, offset) = (rest, offset + chunk);
        }
        f(items, offset);
    });
}

/// The batch given to the evaluator: planes, scores and bool masks, one
/// row a leaf (the first rows only are passed).
struct Batch {
    planes: Py<PyArray4<u8>>,
    scores: Py<PyArray2<u8>>,
    reach: Py<PyArray4<u8>>,
    masks: Py<PyArray2<bool>>,
}

/// Batched PUCT search over the games of a `VectorGames` (use
/// `yolah.search.Search`, which documents it).
#[pyclass(name = "SearchTrees", module = "yolah")]
pub struct SearchTrees {
    games: Vec<GameSearch>,
    puct: Puct,
    dirichlet_fraction: f32,
    threads: usize,
    batch: Batch,
    /// Outputs, one row a game: the root's moves as actions (-1 padded),
    /// their visits, the root's value, and the move drawn.
    legal_actions: Py<PyArray2<i16>>,
    visit_counts: Py<PyArray2<i32>>,
    root_values: Py<PyArray1<f32>>,
    actions: Py<PyArray1<i64>>,
}

/// The evaluator's answer for `leaves` leaves, checked.
fn answer<'py>(
    leaves: usize,
    result: &Bound<'py, PyAny>,
) -> PyResult<(PyReadonlyArray2<'py, f32>, PyReadonlyArray1<'py, f32>)> {
    let shape_error = || {
        YolahError::new_err(format!(
            "evaluate must return (logits, values): float32 arrays of shapes ({leaves}, {ACTIONS}) and ({leaves},)"
        ))
    };
    let (logits, values): (Bound<'py, PyAny>, Bound<'py, PyAny>) =
        result.extract().map_err(|_| shape_error())?;
    let logits: PyReadonlyArray2<'py, f32> = logits.extract().map_err(|_| shape_error())?;
    let values: PyReadonlyArray1<'py, f32> = values.extract().map_err(|_| shape_error())?;
    if logits.shape() != [leaves, ACTIONS] || values.shape() != [leaves] {
        return Err(YolahError::new_err(format!(
            "evaluate returned logits of shape {:?} and values of shape {:?} for {leaves} leaves: \
             expected ({leaves}, {ACTIONS}) and ({leaves},)",
            logits.shape(),
            values.shape()
        )));
    }
    Ok((logits, values))
}

impl SearchTrees {
    /// One round: a descent in each game that `takes` part, one evaluator
    /// call for the leaves that need it, expansions and backups. Returns
    /// the number of leaves evaluated.
    fn round(
        &mut self,
        py: Python<'_>,
        evaluate: &Bound<'_, PyAny>,
        takes: impl Fn(&GameSearch) -> bool + Sync,
    ) -> PyResult<usize> {
        let (threads, puct) = (self.threads, self.puct);
        // Descents; known values are backed up at once.
        py.detach(|| {
            parallel(threads, &mut self.games, |games, _| {
                for g in games {
                    g.pending = false;
                    if !takes(g) {
                        continue;
                    }
                    match g.tree.descend(&puct, &mut g.descent) {
                        Leaf::Evaluate => g.pending = true,
                        Leaf::Known(v) => g.tree.backup(&g.descent, v),
                    }
                }
            })
        });
        let leaves = self.games.iter().filter(|g| g.pending).count();
        if leaves == 0 {
            return Ok(0);
        }
        self.write_leaves(py)?;
        let observations = PyDict::new(py);
        let first = PySlice::new(py, 0, leaves as isize, 1);
        let planes = self.batch.planes.bind(py).get_item(&first)?;
        observations.set_item("observation", planes)?;
        observations.set_item("scores", self.batch.scores.bind(py).get_item(&first)?)?;
        observations.set_item("reach", self.batch.reach.bind(py).get_item(&first)?)?;
        let masks = self.batch.masks.bind(py).get_item(&first)?;
        let result = evaluate.call1((observations, masks))?;
        let (logits, values) = answer(leaves, &result)?;
        let logits = logits
            .as_slice()
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let values = values
            .as_slice()
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        // Row r is the r-th pending game: number them again per chunk.
        let firsts = self.first_rows();
        py.detach(|| {
            parallel(threads, &mut self.games, |games, offset| {
                let pending = games.iter_mut().filter(|g| g.pending);
                for (row, g) in (firsts[offset]..).zip(pending) {
                    g.tree
                        .expand(&g.descent, &logits[row * ACTIONS..(row + 1) * ACTIONS]);
                    let v = values[row];
                    let v = if v.is_nan() { 0.0 } else { v.clamp(-1.0, 1.0) };
                    g.tree.backup(&g.descent, v);
                }
            })
        });
        Ok(leaves)
    }

    /// For each game, the row its leaf takes if it is pending: the number
    /// of pending games before it.
    fn first_rows(&self) -> Vec<usize> {
        let mut rows = Vec::with_capacity(self.games.len() + 1);
        let mut n = 0;
        for g in &self.games {
            rows.push(n);
            n += usize::from(g.pending);
        }
        rows.push(n);
        rows
    }

    /// Writes each pending leaf into its row of the batch.
    fn write_leaves(&mut self, py: Python<'_>) -> PyResult<()> {
        let firsts = self.first_rows();
        let mut planes = self
            .batch
            .planes
            .bind(py)
            .try_readwrite()
            .map_err(borrowed)?;
        let mut scores = self
            .batch
            .scores
            .bind(py)
            .try_readwrite()
            .map_err(borrowed)?;
        let mut reach = self
            .batch
            .reach
            .bind(py)
            .try_readwrite()
            .map_err(borrowed)?;
        let mut masks = self
            .batch
            .masks
            .bind(py)
            .try_readwrite()
            .map_err(borrowed)?;
        let rows = Rows {
            planes: Some(planes.as_slice_mut().map_err(not_contiguous)?),
            scores: Some(scores.as_slice_mut().map_err(not_contiguous)?),
            reach: Some(reach.as_slice_mut().map_err(not_contiguous)?),
            bool_mask: Some(masks.as_slice_mut().map_err(not_contiguous)?),
            ..Rows::default()
        };
        let chunk = self
            .games
            .len()
            .div_ceil(self.threads.max(1))
            .max(MIN_GAMES_PER_THREAD);
        let games = &self.games;
        py.detach(|| {
            let write = |games: &[GameSearch], mut rows: Rows<'_>| {
                for (row, g) in games.iter().filter(|g| g.pending).enumerate() {
                    rows.write(row, g.descent.position());
                }
            };
            std::thread::scope(|s| {
                let (mut games, mut rows, mut offset) = (&games[..], rows, 0);
                while games.len() > chunk {
                    let (here, rest) = games.split_at(chunk);
                    let (here_rows, rest_rows) =
                        rows.split_at(firsts[offset + chunk] - firsts[offset]);
                    let write = &write;
                    s.spawn(move || write(here, here_rows));
                    (games, rows, offset) = (rest, rest_rows, offset + chunk);
                }
                write(games, rows);
            });
        });
        Ok(())
    }

    /// Writes each game's root statistics and draws its move.
    fn write_outputs(&mut self, py: Python<'_>, temperatures: &[f32]) -> PyResult<()> {
        let mut legal = self
            .legal_actions
            .bind(py)
            .try_readwrite()
            .map_err(borrowed)?;
        let mut visits = self
            .visit_counts
            .bind(py)
            .try_readwrite()
            .map_err(borrowed)?;
        let mut values = self
            .root_values
            .bind(py)
            .try_readwrite()
            .map_err(borrowed)?;
        let mut actions = self.actions.bind(py).try_readwrite().map_err(borrowed)?;
        let legal = legal.as_slice_mut().map_err(not_contiguous)?;
        let visits = visits.as_slice_mut().map_err(not_contiguous)?;
        let values = values.as_slice_mut().map_err(not_contiguous)?;
        let actions = actions.as_slice_mut().map_err(not_contiguous)?;
        for (i, g) in self.games.iter_mut().enumerate() {
            let legal = &mut legal[i * MAX_MOVES..(i + 1) * MAX_MOVES];
            let visits = &mut visits[i * MAX_MOVES..(i + 1) * MAX_MOVES];
            legal.fill(-1);
            visits.fill(0);
            values[i] = 0.0;
            actions[i] = -1;
            if g.simulations == 0 {
                continue;
            }
            for (k, child) in g.tree.root_children().enumerate() {
                legal[k] = action_index(child.mv) as i16;
                visits[k] = child.visits as i32;
            }
            values[i] = g.tree.root_value();
            if let Some(m) = g.tree.sample_move(temperatures[i], &mut g.rng) {
                actions[i] = action_index(m) as i64;
            }
        }
        Ok(())
    }
}

fn borrowed(e: numpy::BorrowError) -> PyErr {
    PyValueError::new_err(format!("a search array is in use elsewhere: {e}"))
}

pub(crate) fn not_contiguous(e: numpy::AsSliceError) -> PyErr {
    PyValueError::new_err(format!("a search array is not contiguous: {e}"))
}

/// Per-game values given as one number or one a game.
fn per_game(name: &str, value: &Bound<'_, PyAny>, n: usize) -> PyResult<Vec<f64>> {
    if let Ok(x) = value.extract::<f64>() {
        return Ok(vec![x; n]);
    }
    let values: Vec<f64> = value
        .extract()
        .map_err(|_| YolahError::new_err(format!("{name} is a number or one number a game")))?;
    if values.len() != n {
        return Err(YolahError::new_err(format!(
            "{name} has {} values for {n} games",
            values.len()
        )));
    }
    Ok(values)
}

#[pymethods]
impl SearchTrees {
    #[new]
    #[pyo3(signature = (num_games, max_nodes, threads, seed, pb_c_init, pb_c_base, fpu_reduction, dirichlet_alpha, dirichlet_fraction))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        num_games: usize,
        max_nodes: usize,
        threads: usize,
        seed: u64,
        pb_c_init: f32,
        pb_c_base: f32,
        fpu_reduction: f32,
        dirichlet_alpha: f32,
        dirichlet_fraction: f32,
    ) -> PyResult<SearchTrees> {
        if num_games == 0 || num_games > 1 << 20 {
            return Err(YolahError::new_err(format!(
                "num_games={num_games}: give from 1 to {}",
                1 << 20
            )));
        }
        if !(Tree::MIN_CAPACITY..=1 << 28).contains(&max_nodes) {
            return Err(YolahError::new_err(format!(
                "max_nodes={max_nodes}: give from {} to 2^28 nodes a tree",
                Tree::MIN_CAPACITY
            )));
        }
        let positive = [
            ("pb_c_init", pb_c_init),
            ("pb_c_base", pb_c_base),
            ("dirichlet_alpha", dirichlet_alpha),
        ];
        if let Some((name, x)) = positive.iter().find(|(_, x)| !(x.is_finite() && *x > 0.0)) {
            return Err(YolahError::new_err(format!(
                "{name}={x} must be a positive number"
            )));
        }
        if !(0.0..=1.0).contains(&dirichlet_fraction) || !fpu_reduction.is_finite() {
            return Err(YolahError::new_err(format!(
                "dirichlet_fraction={dirichlet_fraction} must be from 0 to 1, fpu_reduction={fpu_reduction} a number"
            )));
        }
        let games = (0..num_games)
            .map(|i| GameSearch {
                tree: Tree::new(max_nodes),
                descent: Descent::default(),
                rng: Rng::for_game(seed, i as u64),
                noise: Dirichlet::new(dirichlet_alpha),
                simulations: 0,
                pending: false,
            })
            .collect();
        Ok(SearchTrees {
            games,
            puct: Puct {
                c_init: pb_c_init,
                c_base: pb_c_base,
                fpu_reduction,
            },
            dirichlet_fraction,
            threads: threads_in(threads, yolah_players::MAX_THREADS)?,
            batch: Batch {
                planes: PyArray4::zeros(py, [num_games, PLANES, 8, 8], false).unbind(),
                scores: PyArray2::zeros(py, [num_games, 2], false).unbind(),
                reach: PyArray4::zeros(py, [num_games, REACH_PLANES, 8, 8], false).unbind(),
                masks: PyArray2::zeros(py, [num_games, ACTIONS], false).unbind(),
            },
            legal_actions: PyArray2::zeros(py, [num_games, MAX_MOVES], false).unbind(),
            visit_counts: PyArray2::zeros(py, [num_games, MAX_MOVES], false).unbind(),
            root_values: PyArray1::zeros(py, [num_games], false).unbind(),
            actions: PyArray1::zeros(py, [num_games], false).unbind(),
        })
    }

    /// Searches every game of `games` (a `VectorGames`) whose simulations
    /// are above 0 and which is not over: `simulations` and `temperature`
    /// are one number or one a game; `add_noise` (a bool, or one a game)
    /// mixes Dirichlet noise into the roots. Returns a dict: `evaluations` (leaves evaluated),
    /// `calls` (evaluator calls). The output arrays (`arrays()`) hold the
    /// results.
    #[pyo3(signature = (games, evaluate, simulations, temperature, add_noise))]
    fn run<'py>(
        &mut self,
        py: Python<'py>,
        games: PyRef<'py, VectorGames>,
        evaluate: &Bound<'py, PyAny>,
        simulations: &Bound<'py, PyAny>,
        temperature: &Bound<'py, PyAny>,
        add_noise: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let n = self.games.len();
        let roots: Vec<Position> = games.game_positions().copied().collect();
        drop(games);
        if roots.len() != n {
            return Err(YolahError::new_err(format!(
                "the search has {n} trees for {} games",
                roots.len()
            )));
        }
        let simulations = per_game("simulations", simulations, n)?;
        if let Some(s) = simulations
            .iter()
            .find(|&&s| !(0.0..=(1u32 << 24) as f64).contains(&s) || s.fract() != 0.0)
        {
            return Err(YolahError::new_err(format!(
                "simulations={s}: give whole numbers from 0 to 2^24"
            )));
        }
        let simulations: Vec<u32> = simulations.iter().map(|&s| s as u32).collect();
        let temperatures = per_game("temperature", temperature, n)?;
        if let Some(t) = temperatures.iter().find(|t| !(t.is_finite() && **t >= 0.0)) {
            return Err(YolahError::new_err(format!(
                "temperature={t} must be 0 or more"
            )));
        }
        let temperatures: Vec<f32> = temperatures.iter().map(|&t| t as f32).collect();
        let noisy: Vec<bool> = per_game("add_noise", add_noise, n)?
            .iter()
            .map(|&x| x != 0.0)
            .collect();
        for ((g, root), &s) in self.games.iter_mut().zip(&roots).zip(&simulations) {
            g.simulations = if root.is_game_over() { 0 } else { s };
            if g.simulations > 0 {
                g.tree.set_root(root);
            }
        }
        let (mut evaluations, mut calls) = (0, 0);
        // Roots never valued first: their priors are needed for the noise.
        let leaves = self.round(py, evaluate, |g| {
            g.simulations > 0 && !g.tree.root_expanded()
        })?;
        evaluations += leaves;
        calls += usize::from(leaves > 0);
        let fraction = self.dirichlet_fraction;
        for (g, &noisy) in self.games.iter_mut().zip(&noisy) {
            if g.simulations == 0 {
                continue;
            }
            if noisy && fraction > 0.0 {
                let count = g.tree.root_child_count();
                let sample = g.noise.sample(&mut g.rng, count).to_vec();
                g.tree.set_root_noise(Some(&sample), fraction);
            } else {
                g.tree.set_root_noise(None, fraction);
            }
        }
        let rounds = simulations.iter().copied().max().unwrap_or(0);
        for r in 0..rounds {
            let leaves = self.round(py, evaluate, |g| r < g.simulations)?;
            evaluations += leaves;
            calls += usize::from(leaves > 0);
        }
        self.write_outputs(py, &temperatures)?;
        let d = PyDict::new(py);
        d.set_item("evaluations", evaluations)?;
        d.set_item("calls", calls)?;
        Ok(d)
    }

    /// The output arrays: `legal_actions` (int16, the root's moves, -1
    /// padded), `visit_counts` (int32, aligned with them), `root_values`
    /// (float32, for the side to move), `actions` (int64, the moves drawn,
    /// -1 for games not searched).
    fn arrays<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("legal_actions", &self.legal_actions)?;
        d.set_item("visit_counts", &self.visit_counts)?;
        d.set_item("root_values", &self.root_values)?;
        d.set_item("actions", &self.actions)?;
        Ok(d)
    }

    /// Nodes in use in each tree.
    fn tree_sizes(&self) -> Vec<usize> {
        self.games.iter().map(|g| g.tree.len()).collect()
    }

    /// The most nodes a tree holds.
    #[getter]
    fn max_nodes(&self) -> usize {
        self.games.first().map_or(0, |g| g.tree.capacity())
    }

    /// The root priors of game `game` (noise included), in the order of
    /// `legal_actions`.
    fn root_priors(&self, game: usize) -> PyResult<Vec<f32>> {
        let g = self
            .games
            .get(game)
            .ok_or_else(|| YolahError::new_err(format!("no game {game}")))?;
        Ok(g.tree.root_children().map(|c| c.prior).collect())
    }

    /// Forgets every tree.
    fn clear(&mut self) {
        for g in &mut self.games {
            g.tree.clear();
        }
    }
}
