//! `magicgen`, the host tool that searches the magic multipliers of the yolah
//! move tables and writes `magicgen/magics.txt`, which the engine's build
//! script turns into static tables. Nothing depends on this crate: the
//! engine and its build script use `yolah-geometry` (in `magicgen/geometry/`)
//! for the board geometry and the constants file.
//!
//! * [`search`]: the classic search (`magicgen --classic`): seeded
//!   sparse-random white magics, a block per square, the book's layout.
//! * [`compact`]: the compact pool: per square and index width, climbs
//!   towards the block with the smallest footprint, kept in a climb log.
//! * [`interleave`]: the search that produced the committed table
//!   (`--method interleave`): the compact pool's blocks packed slot by slot
//!   into one shared table by ruin and recreate.
//! * [`dense`]: short blocks that do not wrap, from sparse multipliers: a
//!   depth-first search with a budget on the weights (`magicgen dense`).
//! * [`export`]: the committed table as a self-contained Rust or C file for
//!   any chess engine (`magicgen export --lang rust|c`).
//! * [`bitscan`]: the single-bit perfect hash demo (Z3 with feature `z3`).
//! * `prove` (feature `z3`): whether a magic of a given width exists for
//!   one square, decided by Z3 (`magicgen prove`).
//!
//! The fit search (`--method fit`), the candidates-and-packer search
//! (`--method pack`) and `magicgen survey` produced earlier tables and the
//! measurements of `docs/magic-tables.md`; they are in git history up to
//! commit f871246.
#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod bitscan;
pub mod compact;
pub mod dense;
pub mod export;
pub mod interleave;
mod parallel;
mod problem;
#[cfg(feature = "z3")]
pub mod prove;
pub mod search;
