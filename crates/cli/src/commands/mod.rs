//! One module per command, named after it: each holds the command's
//! arguments (a clap `Args` struct) and its `run`, which returns what the
//! command prints.

pub mod analyse;
pub mod engine;
pub mod label;
pub mod r#match;
pub mod merge;
pub mod perft;
pub mod play;
pub mod random_games;
pub mod replay;
pub mod selfplay;
pub mod serve;
pub mod solve;
pub mod tournament;
pub mod train;
pub mod tune;
pub mod validate;
