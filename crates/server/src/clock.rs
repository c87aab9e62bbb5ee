//! Time controls: how much time each side starts with and gains after each
//! of its moves (Fischer increment), as chosen when a game is created.

use std::fmt;
use std::time::Duration;

/// A time control: `base` for the whole game, plus `increment` after each
/// move (written `minutes+seconds`, as `3+2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// Each side's time at the start.
    pub base: Duration,
    /// Added to a side's time after each of its moves.
    pub increment: Duration,
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}+{}",
            self.base.as_secs() / 60,
            self.increment.as_secs()
        )
    }
}
