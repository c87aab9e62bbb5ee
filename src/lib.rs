//! # yolah
//!
//! A fast engine for the board game Yolah: an 8x8 board, four queens a side
//! that leave a hole on every square they leave, one point per move.
//!
//! The move tables are magic bitboards generated at build time from committed
//! constants (see the `magicgen` crate), so the engine needs no
//! initialisation: everything is in `static` data when the process starts.
//!
//! ```
//! use yolah::{Position, Rng};
//!
//! // Play one random game to its end.
//! let mut pos = Position::START;
//! let mut rng = Rng::new(42);
//! while !pos.is_game_over() {
//!     let m = pos.random_move(&mut rng);
//!     assert!(pos.legal_moves().contains(m));
//!     pos.play(m);
//! }
//! println!("{pos}");
//! ```
#![deny(missing_docs)]

pub mod attacks;
pub mod games;
pub mod moves;
pub mod nn;
pub mod parallel;
pub mod perft;
pub mod players;
pub mod playout;
pub mod position;
pub mod ratings;
pub mod record;
pub mod rng;
pub mod server;
pub mod symmetry;
mod text;
pub mod tournament;
pub mod tune;

pub use magicgen::{Bitboard, Direction, Square};
pub use moves::{Move, MoveList, ParseMoveError, MAX_MOVES};
pub use position::{Color, IllegalMove, Outcome, Position};
pub use rng::Rng;
pub use symmetry::Symmetry;
pub use text::ParsePositionError;

/// The README's Rust examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
