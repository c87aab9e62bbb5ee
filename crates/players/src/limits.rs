//! The bounds every search shares: how deep and on how many threads a player may search, how
//! often a search reports its progress, and how many cores the machine has.
//! A leaf: it depends on nothing in the crate.

use std::time::Duration;

/// The deepest search a depth budget may ask for: `depth=` of the
/// alpha-beta players and of `engine`, and `go depth` of the engine
/// protocol. No game lasts this long below any position (at most
/// 2 × 56 + 2 plies), so a larger depth would only search the same tree.
pub const MAX_DEPTH: u32 = 128;

/// The most search threads a player takes (`threads=`).
pub const MAX_THREADS: usize = 256;

/// How often a Monte Carlo search reports its progress.
pub(crate) const REPORT_EVERY: Duration = Duration::from_millis(100);

/// The machine's cores (1 if it cannot tell).
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
