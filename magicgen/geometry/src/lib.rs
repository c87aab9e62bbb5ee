//! The board geometry of yolah and the file format of its magic constants:
//! what the engine, its build script and the magic generator share, written
//! once.
//!
//! * [`types`]: [`Square`], [`Bitboard`], [`Direction`].
//! * [`rays`]: naive ray casting, the relevant-occupancy masks that magics
//!   hash, and the shadow a new blocker casts: the slow, obviously correct
//!   reference every fast lookup is tested against.
//! * [`magics`]: the committed constants file (`magicgen/magics.txt`), its
//!   parser and writer, and the attack table it describes, checked against
//!   ray casting as it is filled.
//!
//! The crate has no dependencies and no search code. It lives in
//! `magicgen/geometry/`, next to the constants file it reads and under the
//! tool that writes that file (`magicgen`, a host program that depends on
//! it), so that the repository's top level stays the engine (`Cargo.toml`,
//! `build.rs`, `src/`), `magicgen/`, `tests/` and `benches/`.
#![deny(missing_docs)]

pub mod magics;
pub mod rays;
pub mod types;

pub use magics::{MagicEntry, MagicSet};
pub use rays::Slider;
pub use types::{Bitboard, Direction, Square};
