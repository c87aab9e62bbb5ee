//! # yolah-lab
//!
//! Experiments with Yolah players, built on `yolah` (the rules) and
//! `yolah-players` (the players):
//!
//! * [`games`]: games between players, matches with paired openings, Elo
//!   from a match;
//! * [`ratings`]: maximum-likelihood Elo with intervals, and the SPRT;
//! * [`tournament`]: round robins kept in a resumable JSONL file, and
//!   their settings, checked once for every front end;
//! * [`standings`]: a tournament's ratings table, as text or JSON;
//! * [`tune`]: the genetic algorithm for the alpha-beta weights;
//! * [`positions`]: the training file format, reading, writing, dedup;
//! * [`selfplay`]: self-play for training, whole or in resumable shards;
//! * `manifest`: the JSON manifests that vouch for a finished file;
//! * [`label`]: labelling positions again, by the exact solver and a deeper
//!   search;
//! * [`shard`]: cutting a run into shards for other processes or machines;
//! * [`shard_file`]: telling which kind of run a shard file is from;
//! * [`random_games`]: counts of random games, their shards and merging;
//! * `options` (feature `cli`, with clap): the options of each run, shared
//!   by the `yolah` command and `yolah-ray`;
//! * [`train`]: fitting the network, in plain Rust.
//!
//! Every run follows from a seed: game *i* of a run seeded *s* is seeded by
//! [`yolah::rng::game_seed`]`(s, i)`, so results do not depend on the number
//! of threads.
//!
//! ```
//! use yolah_lab::games::{run_match, Match, MatchSummary};
//!
//! let games = run_match(&Match::new("mcts:iterations=300", "random", 4, 1), 2, &|_| {}).unwrap();
//! let summary = MatchSummary::from_points(&games.iter().map(|g| g.a_points).collect::<Vec<_>>());
//! assert_eq!(summary.games, 4);
//! ```
#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod games;
pub mod label;
mod manifest;
#[cfg(feature = "cli")]
pub mod options;
mod parallel;
pub mod positions;
pub mod random_games;
pub mod ratings;
pub mod selfplay;
pub mod shard;
pub mod shard_file;
pub mod standings;
pub mod tournament;
pub mod train;
pub mod tune;

/// The most worker threads a run takes (`--threads` of `yolah match`,
/// `selfplay`, `perft`… and `threads=` of the Python functions that run
/// games). Each worker plays its own games; this bounds what a typo can
/// ask for, not what helps (more than the machine's cores only slows a run).
pub const MAX_RUN_THREADS: u64 = 1024;
