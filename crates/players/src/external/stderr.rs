//! An engine's standard error, drained by a thread of its own so that the
//! engine never blocks writing to it, and its last lines kept: when an
//! engine fails to start, they usually say why (a missing file, a
//! traceback).

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::process::ChildStderr;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Lines kept.
const LINES: usize = 12;
/// The longest line kept (a longer one keeps its start, marked with …).
const LINE_BYTES: u64 = 400;

/// The last lines an engine wrote on its standard error.
pub(super) struct StderrTail {
    state: Mutex<Tail>,
    /// Signalled when the stream ends.
    ended: Condvar,
}

#[derive(Default)]
struct Tail {
    lines: VecDeque<String>,
    ended: bool,
}

impl StderrTail {
    /// Reads `stderr` on a new thread until it ends, keeping the last lines.
    pub(super) fn spawn(stderr: ChildStderr) -> std::io::Result<Arc<StderrTail>> {
        let tail = Arc::new(StderrTail {
            state: Mutex::new(Tail::default()),
            ended: Condvar::new(),
        });
        let writer = Arc::clone(&tail);
        std::thread::Builder::new()
            .name("yolah-engine-stderr".into())
            .spawn(move || writer.drain(stderr))?;
        Ok(tail)
    }

    fn drain(&self, stderr: ChildStderr) {
        let mut reader = BufReader::new(stderr);
        loop {
            let mut bytes = Vec::new();
            match Read::take(&mut reader, LINE_BYTES).read_until(b'\n', &mut bytes) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    // A longer line keeps its start (usually the message)
                    // and loses the rest, read and dropped up to its end.
                    let cut = bytes.len() as u64 == LINE_BYTES && !bytes.ends_with(b"\n");
                    if cut {
                        skip_line(&mut reader);
                    }
                    let mut line = String::from_utf8_lossy(&bytes).trim_end().to_string();
                    if cut {
                        line.push('…');
                    }
                    let mut tail = self.lock();
                    if tail.lines.len() == LINES {
                        tail.lines.pop_front();
                    }
                    tail.lines.push_back(line);
                }
            }
        }
        self.lock().ended = true;
        self.ended.notify_all();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Tail> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The last lines (oldest first, blank ones left out), once the stream
    /// has ended — the engine exited or was killed — or `wait` has passed
    /// (a child of the engine may hold the stream open).
    pub(super) fn last_lines(&self, wait: Duration) -> Vec<String> {
        let deadline = Instant::now() + wait;
        let mut tail = self.lock();
        while !tail.ended {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            tail = self
                .ended
                .wait_timeout(tail, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        tail.lines
            .iter()
            .filter(|l| !l.trim().is_empty())
            .cloned()
            .collect()
    }
}

/// Reads and drops the rest of a line (up to and with its newline, or to
/// the end of the stream), a buffer at a time.
fn skip_line(reader: &mut impl BufRead) {
    loop {
        let (done, used) = match reader.fill_buf() {
            Ok([]) | Err(_) => return,
            Ok(buf) => match buf.iter().position(|&b| b == b'\n') {
                Some(at) => (true, at + 1),
                None => (false, buf.len()),
            },
        };
        reader.consume(used);
        if done {
            return;
        }
    }
}
