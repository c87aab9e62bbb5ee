//! Board geometry shared by the `yolah` runtime, its build script and tests,
//! and the generator of the magic multipliers that the runtime's move tables
//! are built from.
//!
//! * [`types`]: [`Square`], [`Bitboard`], [`Direction`].
//! * [`geometry`]: naive ray casting and relevant-occupancy masks, the slow
//!   reference every fast lookup is tested against.
//! * [`magics`]: the committed constants file and the attack table it
//!   describes.
//! * [`pack`]: blocks of table slots and the shared table they interleave in.
//! * `search` (feature `cli`): the seeded sparse-random magic search of the
//!   classic layout (a private block per square).
//! * `improve` (feature `cli`): the long search for small tables by
//!   candidates and a packer (`--method pack`).
//! * `compact` (feature `cli`): per square and width, the block with the
//!   shortest span a long climb finds, turned round its window: the pool
//!   the fit search offers every square.
//! * `fit` (feature `cli`): the long search that builds the table square by
//!   square, each magic chosen for how its block fits the holes already
//!   there (`--method fit`, the default).
//! * `interleave` (feature `cli`): the long search that packs the compact
//!   pool's blocks run by run (8-slot runs no two squares share) by ruin
//!   and recreate (`--method interleave`).
//! * `survey` (feature `cli`): per square, the fewest used slots and the
//!   shortest span a magic's block can have on its own (`magicgen survey`).
//! * [`bitscan`]: the single-bit perfect hash demo (Z3 with feature `z3`).
#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod bitscan;
#[cfg(feature = "cli")]
pub mod compact;
#[cfg(feature = "cli")]
pub mod fit;
pub mod geometry;
#[cfg(feature = "cli")]
pub mod improve;
#[cfg(feature = "cli")]
pub mod interleave;
pub mod magics;
pub mod pack;
#[cfg(feature = "cli")]
pub mod search;
#[cfg(feature = "cli")]
pub mod survey;
pub mod types;

pub use geometry::Slider;
pub use magics::{MagicEntry, MagicSet};
pub use types::{Bitboard, Direction, Square};
