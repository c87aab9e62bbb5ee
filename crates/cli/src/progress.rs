//! The progress bar of long runs (matches, tournaments, tuning, self-play).
//!
//! On a terminal it is a bar redrawn in place. When stderr is a file or a
//! pipe (a run left in the background with its output in a log), it is a
//! plain line at most once every [`LOG_EVERY`], so that the log says how
//! far the run has got without filling up: a 20-minute SPRT writes about
//! twenty lines, a run shorter than a minute none.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};
use std::io::{self, IsTerminal, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How often a run whose stderr is not a terminal says how far it is.
const LOG_EVERY: Duration = Duration::from_secs(60);

/// A progress bar on stderr: drawn in place on a terminal, a line a
/// minute otherwise.
pub fn progress_bar(total: u64, unit: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
    let template = if std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::stderr());
        format!("{{bar:30}} {{pos}}/{{len}} {unit} {{per_sec}} eta {{eta}} {{msg}}")
    } else {
        let log = LogLines::new(LOG_EVERY);
        bar.set_draw_target(ProgressDrawTarget::term_like_with_hz(Box::new(log), 1));
        format!("{{pos}}/{{len}} {unit}, {{per_sec}}, {{elapsed}} so far, eta {{eta}} {{msg}}")
    };
    bar.set_style(ProgressStyle::with_template(&template).expect("a valid template"));
    bar
}

/// A "terminal" for indicatif that writes the bar's line to stderr as a
/// new line, and only once `every` has passed since the last (or since
/// the start): cursor moves and clears mean nothing in a log.
#[derive(Debug)]
struct LogLines {
    every: Duration,
    last: Mutex<Instant>,
}

impl LogLines {
    fn new(every: Duration) -> LogLines {
        LogLines {
            every,
            last: Mutex::new(Instant::now()),
        }
    }

    /// Whether a line drawn now is written.
    fn due(&self, now: Instant) -> bool {
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if now.duration_since(*last) < self.every {
            return false;
        }
        *last = now;
        true
    }

    fn log(&self, line: &str) -> io::Result<()> {
        let line = line.trim();
        if line.is_empty() || !self.due(Instant::now()) {
            return Ok(());
        }
        writeln!(io::stderr(), "{line}")
    }
}

impl TermLike for LogLines {
    fn width(&self) -> u16 {
        120
    }

    fn move_cursor_up(&self, _: usize) -> io::Result<()> {
        Ok(())
    }

    fn move_cursor_down(&self, _: usize) -> io::Result<()> {
        Ok(())
    }

    fn move_cursor_right(&self, _: usize) -> io::Result<()> {
        Ok(())
    }

    fn move_cursor_left(&self, _: usize) -> io::Result<()> {
        Ok(())
    }

    fn write_line(&self, s: &str) -> io::Result<()> {
        self.log(s)
    }

    fn write_str(&self, s: &str) -> io::Result<()> {
        self.log(s)
    }

    fn clear_line(&self) -> io::Result<()> {
        Ok(())
    }

    fn flush(&self) -> io::Result<()> {
        io::stderr().flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_line_at_most_once_an_interval() {
        let log = LogLines::new(Duration::from_secs(60));
        let start = *log.last.lock().unwrap();
        assert!(!log.due(start + Duration::from_secs(59)));
        assert!(log.due(start + Duration::from_secs(60)));
        assert!(!log.due(start + Duration::from_secs(100)));
        assert!(log.due(start + Duration::from_secs(121)));
    }
}
