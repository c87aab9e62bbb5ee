//! `yolah._yolah`: the engine, the players and the lab as a Python module.
//!
//! The Python package `yolah` (in `python/yolah/`) re-exports everything
//! here and adds what is best written in Python: the PettingZoo
//! environment and the Ray runs. Modules mirror the Rust layers:
//!
//! * `errors`: the exceptions, one class per kind of bad input;
//! * `game`: `Move` and `Position`;
//! * `observe`: positions as NumPy planes, legal-move masks, and the
//!   action index of a move;
//! * `batch`: whole random games and many positions at once, in Rust;
//! * `encode`, `vector`: many games stepped at once into preallocated
//!   NumPy arrays (`yolah.vector`);
//! * `search`: batched PUCT over those games with a Python evaluator
//!   (`yolah.search`);
//! * `az_network`: the `az` network as such an evaluator, in Rust;
//! * `players`: players from specs, matches and tournaments;
//! * `shards`: the pieces of runs split by game index (`yolah.distributed`);
//! * `ray`: `yolah-ray`'s command line, with the `yolah` command's options.
//!
//! Long Rust work (searches, matches, batches) releases the GIL.
#![deny(missing_docs)]

use pyo3::prelude::*;

mod az_network;
mod batch;
mod encode;
mod errors;
mod game;
mod observe;
mod players;
mod ray;
mod search;
mod shards;
mod vector;

pub use game::{PyMove, PyPosition};

/// The native module; `yolah/__init__.py` re-exports its contents.
#[pymodule]
fn _yolah(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::add_to(m)?;
    m.add("ACTIONS", observe::ACTIONS)?;
    m.add("PLANES", observe::PLANES)?;
    m.add("MAX_MOVES", yolah::MAX_MOVES)?;
    m.add_class::<PyMove>()?;
    m.add_class::<PyPosition>()?;
    m.add_class::<players::PyPlayer>()?;
    m.add_function(wrap_pyfunction!(batch::random_games, m)?)?;
    m.add_function(wrap_pyfunction!(batch::random_game_moves, m)?)?;
    m.add_function(wrap_pyfunction!(batch::observations, m)?)?;
    m.add_function(wrap_pyfunction!(players::play_match, m)?)?;
    m.add_function(wrap_pyfunction!(players::tournament, m)?)?;
    m.add_function(wrap_pyfunction!(players::tournament_games, m)?)?;
    m.add_function(wrap_pyfunction!(game::replay, m)?)?;
    m.add_class::<vector::VectorGames>()?;
    m.add_class::<search::SearchTrees>()?;
    m.add_class::<az_network::AzNetwork>()?;
    m.add_class::<shards::PyTournamentFile>()?;
    m.add_function(wrap_pyfunction!(shards::shard_range, m)?)?;
    m.add_function(wrap_pyfunction!(shards::selfplay_records, m)?)?;
    m.add_function(wrap_pyfunction!(shards::save_selfplay_shard, m)?)?;
    m.add_function(wrap_pyfunction!(shards::selfplay_shard_done, m)?)?;
    m.add_function(wrap_pyfunction!(shards::merge_selfplay, m)?)?;
    m.add_function(wrap_pyfunction!(ray::ray_command, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
