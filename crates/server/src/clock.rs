//! Time controls and the game clock. The server's clock decides: the page
//! only shows what the server says is left.
//!
//! The rules, in one place:
//!
//! * A time control is `minutes+seconds` (`3+2`): each side starts with the
//!   minutes and gains the seconds after each of its moves (Fischer).
//! * No clock runs before Black's first move (which takes no time and earns
//!   no increment); from then on, the side to move's clock runs.
//! * A forced pass takes no time: the clock goes straight back to the side
//!   that moved.
//! * A move counts if the server receives it while the mover still has time
//!   (more than zero left); at zero the flag falls, whether the server
//!   notices it by its own timer or by the late move (a flag race is decided
//!   by the server's clock alone).
//! * A flag loses, unless the opponent could not have won anyway: if the
//!   opponent's points plus every free square left (each further move needs
//!   one) do not exceed the flagged side's points, it is a draw. The same
//!   idea as chess's "insufficient material", in Yolah's terms, and cheap to
//!   state and check.
//! * Across a restart, each side's time is what it had after its last move;
//!   the side to move's clock starts again when the game is loaded (a
//!   player's link, or the page reconnecting). The time the server was down
//!   is nobody's.

use std::fmt;
use std::time::{Duration, Instant};
use yolah::{Color, Position};

/// A time control: `base` for the whole game, plus `increment` after each
/// move (written `minutes+seconds`, as `3+2`, as people's game sites do).
/// Not `yolah_lab::TimeControl`, the clock of engine matches, which is
/// written in seconds (`10+0.1`) and has a margin for process overheads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// Each side's time at the start.
    pub base: Duration,
    /// Added to a side's time after each of its moves.
    pub increment: Duration,
}

/// The time controls offered unless the server is told others, fastest
/// first.
pub const DEFAULT_CLOCKS: [&str; 4] = ["1+0", "3+2", "5+3", "15+10"];

/// What a game without a clock is called.
pub const UNTIMED: &str = "none";

/// The longest base time a time control may have (a day).
const MAX_BASE: Duration = Duration::from_secs(24 * 3600);

impl TimeControl {
    /// Reads `minutes+seconds`: whole or decimal minutes (`0.5+0` is thirty
    /// seconds), whole seconds of increment.
    pub fn parse(text: &str) -> Result<TimeControl, String> {
        let bad =
            |why: &str| format!("time control {text:?}: {why} (write minutes+seconds, as 3+2)");
        let (minutes, seconds) = text.split_once('+').ok_or_else(|| bad("no +"))?;
        let minutes: f64 = minutes
            .parse()
            .ok()
            .filter(|m: &f64| m.is_finite() && *m > 0.0)
            .ok_or_else(|| bad("the minutes are not a number above zero"))?;
        let seconds: u64 = seconds
            .parse()
            .map_err(|_| bad("the seconds are not a whole number"))?;
        let base = Duration::from_millis((minutes * 60_000.0).round() as u64);
        if base.is_zero() || base > MAX_BASE {
            return Err(bad("the base is not between a millisecond and a day"));
        }
        if seconds > 3600 {
            return Err(bad("the increment is over an hour"));
        }
        Ok(TimeControl {
            base,
            increment: Duration::from_secs(seconds),
        })
    }

    /// Reads a client's choice among `offered`: one of them, or
    /// `UNTIMED` for no clock.
    pub fn choose(text: &str, offered: &[TimeControl]) -> Result<Option<TimeControl>, String> {
        if text == UNTIMED {
            return Ok(None);
        }
        offered
            .iter()
            .find(|tc| tc.to_string() == text)
            .map(|&tc| Some(tc))
            .ok_or_else(|| {
                let names: Vec<String> = offered.iter().map(ToString::to_string).collect();
                format!(
                    "clock {text:?} is not one of {} or {UNTIMED:?}",
                    names.join(", ")
                )
            })
    }
}

impl fmt::Display for TimeControl {
    /// `3+2`; a base that is not a whole number of minutes in decimal
    /// minutes (`0.05+0` for three seconds).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.base.as_millis();
        let minutes = if ms.is_multiple_of(60_000) {
            (ms / 60_000).to_string()
        } else {
            let text = format!("{:.5}", ms as f64 / 60_000.0);
            text.trim_end_matches('0').to_string()
        };
        write!(f, "{minutes}+{}", self.increment.as_secs())
    }
}

/// Why a clock refused a move: the mover's time had run out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flagged;

/// A game's clock: each side's time, and since when the side to move's has
/// been running. `Copy`: a move is tried on a copy, kept once it is saved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// The time control.
    pub control: TimeControl,
    /// Each side's time left (Black's, White's), as of `running_since` for
    /// the side to move.
    left: [Duration; 2],
    /// When the side to move's time began to run; `None` while no clock
    /// runs (before Black's first move, after the end).
    running_since: Option<Instant>,
}

impl Clock {
    /// A new game's clock: both sides at the base, not running.
    pub fn new(control: TimeControl) -> Clock {
        Clock {
            control,
            left: [control.base; 2],
            running_since: None,
        }
    }

    /// A game's clock from the database: `left` as of each side's last
    /// move, running from `now` if the game has begun (and is not over).
    pub fn resume(control: TimeControl, left: [Duration; 2], running: bool, now: Instant) -> Clock {
        Clock {
            control,
            left,
            running_since: running.then_some(now),
        }
    }

    /// `color`'s time left at `now`, when `to_move` is to move.
    pub fn left(&self, color: Color, to_move: Color, now: Instant) -> Duration {
        let left = self.left[color as usize];
        match self.running_since {
            Some(since) if color == to_move => {
                left.saturating_sub(now.saturating_duration_since(since))
            }
            _ => left,
        }
    }

    /// Whether a clock runs.
    pub fn is_running(&self) -> bool {
        self.running_since.is_some()
    }

    /// When `to_move`'s flag falls, if its clock runs.
    pub fn deadline(&self, to_move: Color) -> Option<Instant> {
        self.running_since
            .map(|since| since + self.left[to_move as usize])
    }

    /// The clock after `mover` moved at `now`, and the mover's time left:
    /// its time used is taken off and the increment added, and the clock
    /// starts for the side to move next. Refused if the mover's time ran
    /// out first. Black's first move starts the clock and costs nothing.
    pub fn after_move(&self, mover: Color, now: Instant) -> Result<(Clock, Duration), Flagged> {
        let mut next = *self;
        let i = mover as usize;
        if let Some(since) = self.running_since {
            let used = now.saturating_duration_since(since);
            if used >= self.left[i] {
                return Err(Flagged);
            }
            next.left[i] = self.left[i] - used + self.control.increment;
        }
        next.running_since = Some(now);
        Ok((next, next.left[i]))
    }

    /// The same clock with the side to move's time running from `now`
    /// instead (a move saved late: the next side's time starts when it
    /// hears of the move).
    pub fn restarted_at(mut self, now: Instant) -> Clock {
        if self.running_since.is_some() {
            self.running_since = Some(now);
        }
        self
    }

    /// Stops the clock at `now` (the game is over): the side to move keeps
    /// what it had left then.
    pub fn stop(&mut self, to_move: Color, now: Instant) {
        self.left[to_move as usize] = self.left(to_move, to_move, now);
        self.running_since = None;
    }
}

/// The result when `flagged` runs out of time in `pos`: `1-0`, `0-1` or
/// `1/2-1/2`, and why (see the module's rules).
pub fn flag_result(pos: &Position, flagged: Color) -> (&'static str, String) {
    let other = flagged.opponent();
    let most_other_can_reach = u32::from(pos.score(other)) + pos.free().count();
    let win = |c: Color| if c == Color::Black { "1-0" } else { "0-1" };
    if most_other_can_reach > u32::from(pos.score(flagged)) {
        (win(other), format!("{} ran out of time", flagged.name()))
    } else {
        (
            "1/2-1/2",
            format!(
                "{} ran out of time, and {} could not have won",
                flagged.name(),
                other.name()
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(text: &str) -> TimeControl {
        TimeControl::parse(text).unwrap()
    }

    #[test]
    fn time_controls_read_and_write_the_same() {
        for text in DEFAULT_CLOCKS.iter().chain(&["0.05+0", "0.5+1", "90+30"]) {
            assert_eq!(tc(text).to_string(), *text);
        }
        assert_eq!(tc("3+2").base, Duration::from_secs(180));
        assert_eq!(tc("0.05+0").base, Duration::from_secs(3));
        for bad in [
            "3", "x+2", "3+x", "0+2", "-1+0", "3+-1", "inf+0", "2000+0", "3+5000",
        ] {
            let e = TimeControl::parse(bad).unwrap_err();
            assert!(e.contains(&format!("{bad:?}")), "{e}");
        }
        let offered = [tc("1+0"), tc("3+2")];
        assert_eq!(TimeControl::choose("3+2", &offered), Ok(Some(tc("3+2"))));
        assert_eq!(TimeControl::choose("none", &offered), Ok(None));
        let refused = TimeControl::choose("5+3", &offered).unwrap_err();
        assert!(
            refused.contains("\"5+3\"") && refused.contains("1+0, 3+2"),
            "{refused}"
        );
    }

    #[test]
    fn time_runs_for_the_side_to_move_once_black_has_moved() {
        let t0 = Instant::now();
        let s = Duration::from_secs;
        let clock = Clock::new(tc("1+2"));
        assert_eq!(
            clock.deadline(Color::Black),
            None,
            "not before Black's first move"
        );
        // Black's first move, ten seconds in: free.
        let (clock, left) = clock.after_move(Color::Black, t0 + s(10)).unwrap();
        assert_eq!(left, s(60));
        assert_eq!(clock.deadline(Color::White), Some(t0 + s(70)));
        // White takes five seconds and gains two.
        let (clock, left) = clock.after_move(Color::White, t0 + s(15)).unwrap();
        assert_eq!(left, s(57));
        assert_eq!(clock.left(Color::Black, Color::Black, t0 + s(45)), s(30));
        assert_eq!(clock.left(Color::White, Color::Black, t0 + s(45)), s(57));
        // Black's flag falls at 75 s: a move at that instant is too late.
        assert_eq!(clock.deadline(Color::Black), Some(t0 + s(75)));
        assert_eq!(clock.after_move(Color::Black, t0 + s(75)), Err(Flagged));
        let just_in_time = t0 + s(75) - Duration::from_millis(1);
        let (_, left) = clock.after_move(Color::Black, just_in_time).unwrap();
        assert_eq!(left, Duration::from_millis(1) + s(2));
        let mut stopped = clock;
        stopped.stop(Color::Black, t0 + s(25));
        assert!(!stopped.is_running());
        assert_eq!(stopped.left(Color::Black, Color::Black, t0 + s(99)), s(50));
    }

    #[test]
    fn a_flag_loses_unless_the_opponent_could_not_have_won() {
        assert_eq!(
            flag_result(&Position::START, Color::White).0,
            "1-0",
            "Black can still win"
        );
        // Black 40, White 12, four free squares: White flags? Black wins.
        // Black flags: White could reach 16 at most, not above 40: a draw.
        let pos: Position =
            "xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxbwbw/bwbw4 b 40 12 52"
                .parse()
                .unwrap();
        assert_eq!(pos.free().count(), 4);
        assert_eq!(flag_result(&pos, Color::White).0, "1-0");
        let (result, why) = flag_result(&pos, Color::Black);
        assert_eq!(result, "1/2-1/2");
        assert!(why.contains("could not have won"), "{why}");
    }
}
