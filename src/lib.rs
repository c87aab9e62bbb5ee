//! # yolah
//!
//! The engine of the board game Yolah: an 8x8 board, four queens a side
//! that leave a hole on every square they leave, one point per move.
//!
//! This crate is the rules and nothing else: [`Position`] and [`Move`],
//! move generation by magic bitboards, the text form of positions, game
//! records, perft, fast random playouts and Zobrist keys. Its only
//! dependencies are `yolah-geometry` (squares, bitboards and the magic
//! constants file, with no dependencies of its own) and, for JSON records
//! (the default `serde` feature), serde. The computer players are in
//! `yolah-players`, experiments (matches, tournaments, training) in
//! `yolah-lab`.
//!
//! The move tables are magic bitboards generated at build time from committed
//! constants (`magicgen/magics.txt`, read by `yolah-geometry`; the `magicgen`
//! tool searches them), so the engine needs no initialisation: everything is
//! in `static` data when the process starts.
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
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod attacks;
pub mod file;
mod legality;
mod moves;
pub mod perft;
pub mod playout;
mod position;
#[cfg(feature = "serde")]
pub mod record;
pub mod rng;
mod symmetry;
mod text;
pub mod zobrist;

pub use legality::{IllegalMove, Obstacle};
pub use moves::{Move, MoveList, ParseMoveError, MAX_MOVES};
pub use position::{Color, Outcome, Position};
pub use rng::Rng;
pub use symmetry::Symmetry;
pub use text::ParsePositionError;
pub use yolah_geometry::{Bitboard, Direction, Square};
