//! The bounds every search shares: how many threads a player may take, how
//! often a search reports its progress, and how many cores the machine has.
//! A leaf: it depends on nothing in the crate.

use std::time::Duration;

/// The most search threads a player takes (`threads=`).
pub const MAX_THREADS: usize = 256;

/// How often a Monte Carlo search reports its progress.
pub(crate) const REPORT_EVERY: Duration = Duration::from_millis(100);

/// The machine's cores (1 if it cannot tell).
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
