//! Work on many games or positions in one call, so that a Python loop does
//! not pay the call overhead per move.

use crate::encode::write_bool_mask;
use crate::errors::threads_in;
use crate::game::PyPosition;
use crate::observe::{write_planes, ACTIONS, PLANES};
use numpy::{PyArray1, PyArray2, PyArray4, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use yolah::playout::random_game_with;
use yolah::{Position, Rng};

/// Plays `games` uniformly random games from the start on `threads`
/// threads (the GIL released) and returns a dict of `games`,
/// `black_wins`, `white_wins`, `draws` and `plies`. Game `i` draws from a
/// generator seeded by `(seed, i)`, exactly as `yolah random-games`, so
/// the counts are the CLI's for the same seed, whatever `threads`. With
/// `first`, the games are those numbered `first .. first + games` of the
/// run: counts of consecutive ranges add up to the counts of the whole.
#[pyfunction]
#[pyo3(signature = (games, seed = 0, threads = 1, first = 0))]
pub fn random_games<'py>(
    py: Python<'py>,
    games: u64,
    seed: u64,
    threads: usize,
    first: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let threads = threads_in(threads, yolah_lab::MAX_RUN_THREADS as usize)?;
    let range = first..first.saturating_add(games);
    let stats = py.detach(|| yolah::playout::random_games_range(range, seed, threads));
    let d = PyDict::new(py);
    d.set_item("games", stats.games)?;
    d.set_item("black_wins", stats.black_wins)?;
    d.set_item("white_wins", stats.white_wins)?;
    d.set_item("draws", stats.draws)?;
    d.set_item("plies", stats.plies)?;
    Ok(d)
}

/// The moves of `games` random games from the start, game `i` seeded by
/// `(seed, first + i)` as in `random_games`: a list of lists of `from:to`
/// strings (passes included).
#[pyfunction]
#[pyo3(signature = (games, seed = 0, first = 0))]
pub fn random_game_moves(py: Python<'_>, games: u64, seed: u64, first: u64) -> Vec<Vec<String>> {
    py.detach(|| {
        (first..first.saturating_add(games))
            .map(|i| {
                let mut moves = Vec::new();
                random_game_with(Position::START, &mut Rng::for_game(seed, i), |m| {
                    moves.push(m.to_string())
                });
                moves
            })
            .collect()
    })
}

/// Observations `(N, PLANES, 8, 8)` and masks `(N, ACTIONS)`.
type Batch<'py> = (Bound<'py, PyArray4<f32>>, Bound<'py, PyArray2<bool>>);

/// The observations and legal-move masks of many positions at once: a
/// float32 array `(N, PLANES, 8, 8)` and a bool array `(N, ACTIONS)`.
#[pyfunction]
pub fn observations<'py>(
    py: Python<'py>,
    positions: Vec<PyRef<'py, PyPosition>>,
) -> PyResult<Batch<'py>> {
    let positions: Vec<Position> = positions.iter().map(|p| p.0).collect();
    let n = positions.len();
    let (planes, masks) = py.detach(|| {
        let mut planes = vec![0.0f32; n * PLANES * 64];
        let mut masks = vec![false; n * ACTIONS];
        for ((p, obs), mask) in positions
            .iter()
            .zip(planes.chunks_exact_mut(PLANES * 64))
            .zip(masks.chunks_exact_mut(ACTIONS))
        {
            write_planes(p, obs);
            write_bool_mask(p, mask);
        }
        (planes, masks)
    });
    let planes = PyArray1::from_vec(py, planes).reshape([n, PLANES, 8, 8])?;
    let masks = PyArray1::from_vec(py, masks).reshape([n, ACTIONS])?;
    Ok((planes, masks))
}
