//! Another program as a player: a child process that speaks the engine
//! protocol (`docs/engine-protocol.md`), named by the spec
//! `engine:cmd=PROGRAM ARGS…[,name=NAME][,timeout=DURATION]` with at most
//! one budget key (`time=`, `depth=`, `nodes=`) to send with every `go`.
//! `timeout=` (default 60 s) bounds a search that has no time budget and
//! the handshake (10 s at most). The command is split at white space (no
//! quoting) and may not contain a comma, which ends the spec's option.
//!
//! Starting is apart from playing: [`crate::Player::start`] runs the
//! process and shakes hands within the handshake's own deadline, before
//! any clock runs, and an engine that cannot start is a [`StartError`]
//! that stops the run, with the last lines the engine wrote on its
//! standard error (drained all along by a thread, [`stderr`]). A search
//! that finds no process starts one first, and its move's time starts
//! after the handshake.
//!
//! Nothing the engine does can hang or crash the caller: every read waits
//! with a deadline (lines come through a reader thread and a bounded
//! channel), lines are cut at 64 KiB, a process that dies is started again
//! for the next search, and dropping the player kills and reaps its
//! process. What went wrong in a search is reported as a [`Forfeit`] by
//! [`crate::Player::try_search`], so that a game can be adjudicated.

mod stderr;

use crate::budget::Budget;
use crate::limits::MAX_DEPTH;
use crate::player::{Analysis, Forfeit, Player, Search, StartError};
use crate::score::Score;
use crate::spec::{FromSpec, Spec, SpecError};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};
use stderr::StderrTail;
use yolah::{Move, Position};

/// The longest line read from an engine.
const MAX_LINE_BYTES: u64 = 64 << 10;
/// Lines an engine may send in answer to one command before it is
/// considered to be flooding.
const MAX_LINES_PER_ANSWER: usize = 100_000;
/// Lines buffered between the reader thread and the player.
const CHANNEL_LINES: usize = 1_024;
/// Time for the handshake.
const HANDSHAKE: Duration = Duration::from_secs(10);
/// Time past a move's budget before the engine loses on time.
const MARGIN: Duration = Duration::from_millis(500);
/// How long a failed start waits for the end of the engine's stderr (and
/// for its exit).
const STDERR_WAIT: Duration = Duration::from_secs(2);
/// How long a start that could not even write the handshake waits for the
/// end of the engine's stdout.
const STDOUT_WAIT: Duration = Duration::from_secs(1);

/// Why a read from the engine ended without the line wanted.
enum ReadError {
    /// The deadline passed.
    Timeout,
    /// The engine broke the protocol or died.
    Broken(Forfeit),
}

impl From<ReadError> for Forfeit {
    fn from(e: ReadError) -> Forfeit {
        match e {
            ReadError::Timeout => Forfeit("no answer in time".into()),
            ReadError::Broken(f) => f,
        }
    }
}

/// A line from the engine, or its end.
enum Line {
    Text(String),
    TooLong,
    Closed,
}

struct Process {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Line>,
    /// The last lines of its standard error.
    stderr: Arc<StderrTail>,
}

/// Engine processes a thread keeps between games, by command line.
const IDLE_PER_THREAD: usize = 4;

thread_local! {
    /// A finished game's engine waits here for the next game on the same
    /// thread (a match makes new players for every game): one process per
    /// seat, started again only if it died. The processes are killed when
    /// the thread ends, or when more than `IDLE_PER_THREAD` wait.
    static IDLE: std::cell::RefCell<Vec<(String, Process)>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Drop for Process {
    /// Kills and reaps the process: no zombie outlives the player.
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An engine in another process.
pub struct ExternalEngine {
    spec: String,
    program: String,
    args: Vec<String>,
    name: String,
    budget: Option<Budget>,
    /// How long a search without a time budget may take.
    timeout: Duration,
    process: Option<Process>,
    new_game: bool,
}

impl FromSpec for ExternalEngine {
    fn keys() -> Vec<&'static str> {
        // seed= is accepted (matches give every player one) and not sent:
        // an engine has its own randomness.
        vec!["cmd", "name", "time", "depth", "nodes", "timeout", "seed"]
    }

    fn from_spec(spec: &Spec) -> Result<ExternalEngine, SpecError> {
        let cmd = spec
            .value("cmd")
            .ok_or_else(|| spec.missing("cmd", "engine needs cmd=PROGRAM (with its arguments)"))?;
        let mut words = cmd.split_whitespace().map(str::to_string);
        let program = words
            .next()
            .ok_or_else(|| spec.bad_value("cmd", cmd, "is empty"))?;
        let budget = match (spec.time()?, spec.number("depth")?, spec.number("nodes")?) {
            (None, None, None) => None,
            (Some(t), None, None) => Some(Budget::Time(t)),
            (None, Some(d), None) if (1..=u64::from(MAX_DEPTH)).contains(&d) => {
                Some(Budget::Depth(d as u32))
            }
            (None, Some(d), None) => {
                let reason = format!("must be from 1 to {MAX_DEPTH}");
                return Err(spec.bad_value("depth", d, &reason));
            }
            (None, None, Some(0)) => {
                return Err(spec.bad_value("nodes", 0, "leaves nothing to search"));
            }
            (None, None, Some(n)) => Some(Budget::Count(n)),
            _ => {
                return Err(spec.conflict(
                    &["time", "depth", "nodes"],
                    "give at most one of time=, depth=, nodes=",
                ))
            }
        };
        let timeout = spec
            .duration("timeout", "30s")?
            .unwrap_or(Duration::from_secs(60));
        Ok(ExternalEngine {
            spec: spec.text().to_string(),
            name: spec.value("name").unwrap_or(&program).to_string(),
            program,
            args: words.collect(),
            budget,
            timeout,
            process: None,
            new_game: true,
        })
    }
}

impl ExternalEngine {
    /// The engine's name (`name=`, or its program).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The command line, as the idle pool knows it.
    fn key(&self) -> String {
        format!("{} {}", self.program, self.args.join(" "))
    }

    /// Starts the process and shakes hands, if it is not running (or takes
    /// an idle one of the same command from this thread).
    fn ensure_running(&mut self) -> Result<(), StartError> {
        if self.process.is_none() {
            let key = self.key();
            self.process = IDLE.with(|idle| {
                let mut idle = idle.borrow_mut();
                let at = idle.iter().position(|(k, _)| *k == key)?;
                Some(idle.swap_remove(at).1)
            });
            self.new_game = true;
        }
        if let Some(p) = &mut self.process {
            if matches!(p.child.try_wait(), Ok(None)) {
                return Ok(());
            }
            self.process = None;
        }
        let spec = self.spec.clone();
        let failed = |reason: String, stderr: Option<Vec<String>>| StartError {
            spec: spec.clone(),
            reason,
            stderr,
        };
        let mut child = Command::new(&self.program)
            .args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| failed(format!("cannot run {:?}: {e}", self.program), None))?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let stderr = StderrTail::spawn(child.stderr.take().expect("piped"))
            .map_err(|e| failed(format!("cannot start a reader thread: {e}"), None))?;
        let lines = spawn_reader(stdout)
            .map_err(|e| failed(format!("cannot start a reader thread: {e}"), None))?;
        self.process = Some(Process {
            child,
            stdin,
            lines,
            stderr,
        });
        self.new_game = true;
        let handshake = HANDSHAKE.min(self.timeout);
        // What a program that is not an engine prints (its usage, an echo)
        // says more about it than the missing handshake.
        let mut last_out = String::new();
        let sent = self.send("yolah");
        let unsent = sent.is_err();
        let shaken = sent.map_err(ReadError::Broken).and_then(|()| {
            let deadline = Instant::now() + handshake;
            self.read_until("yolahok", deadline, &mut |l| last_out = l.to_string())
        });
        if let Err(e) = shaken {
            let mut p = self.process.take().expect("just started");
            if unsent {
                // A program that exits at once may be gone before "yolah"
                // is written (the write fails first): what it printed is
                // still in the pipe, read until it closes.
                let until = Instant::now() + STDOUT_WAIT;
                while let Some(left) = until.checked_duration_since(Instant::now()) {
                    match p.lines.recv_timeout(left) {
                        Ok(Line::Text(line)) => last_out = line,
                        Ok(Line::TooLong) => {}
                        Ok(Line::Closed) | Err(_) => break,
                    }
                }
            }
            let mut reason = match e {
                ReadError::Timeout => format!(
                    "no handshake (yolahok) within {:.1} s",
                    handshake.as_secs_f64()
                ),
                ReadError::Broken(_) => match exit_status(&mut p.child, STDERR_WAIT) {
                    Some(status) => format!("the engine exited ({status}) before its handshake"),
                    None => "the engine closed its output before its handshake".to_string(),
                },
            };
            if !last_out.is_empty() {
                let shown: String = last_out.chars().take(MAX_SHOWN_CHARS).collect();
                reason += &format!(" (its last line on stdout: {shown:?})");
            }
            // Killed, its stderr ends: wait for its last lines.
            let _ = p.child.kill();
            let _ = p.child.wait();
            return Err(failed(reason, Some(p.stderr.last_lines(STDERR_WAIT))));
        }
        Ok(())
    }

    fn send(&mut self, line: &str) -> Result<(), Forfeit> {
        let p = self.process.as_mut().expect("a running process");
        writeln!(p.stdin, "{line}")
            .and_then(|()| p.stdin.flush())
            .map_err(|_| Forfeit("the engine stopped reading (it exited?)".into()))
    }

    /// Reads lines until one starting with `prefix` (returned), giving every
    /// other line to `other`; fails at `deadline`, at the end of the output,
    /// on an over-long line or a flood.
    fn read_until(
        &mut self,
        prefix: &str,
        deadline: Instant,
        other: &mut dyn FnMut(&str),
    ) -> Result<String, ReadError> {
        let broken = |m: String| Err(ReadError::Broken(Forfeit(m)));
        let p = self.process.as_mut().expect("a running process");
        for _ in 0..MAX_LINES_PER_ANSWER {
            let now = Instant::now();
            if now >= deadline {
                return Err(ReadError::Timeout);
            }
            match p.lines.recv_timeout(deadline - now) {
                Ok(Line::Text(line)) if line.starts_with(prefix) => return Ok(line),
                Ok(Line::Text(line)) => other(&line),
                Ok(Line::TooLong) => {
                    return broken(format!("printed a line over {MAX_LINE_BYTES} bytes"))
                }
                Ok(Line::Closed) | Err(RecvTimeoutError::Disconnected) => {
                    // Its output closed: it is on its way out, or it stays
                    // (reading on), which must not hang the game: killed.
                    let how = match exit_status(&mut p.child, STDERR_WAIT) {
                        Some(status) => format!("the engine exited ({status})"),
                        None => {
                            let _ = p.child.kill();
                            let _ = p.child.wait();
                            "the engine closed its output without exiting (killed)".to_string()
                        }
                    };
                    let last = p.stderr.last_lines(STDERR_WAIT);
                    return broken(format!("{how}{}", said(&last)));
                }
                Err(RecvTimeoutError::Timeout) => return Err(ReadError::Timeout),
            }
        }
        broken(format!(
            "flooded its output ({MAX_LINES_PER_ANSWER} lines without {prefix:?})"
        ))
    }

    /// The `go` command of a budget.
    fn go(budget: Option<Budget>) -> String {
        match budget {
            None => "go".into(),
            Some(Budget::Time(t)) => format!("go movetime {}", t.as_millis().max(1)),
            Some(Budget::Depth(d)) => format!("go depth {d}"),
            Some(Budget::Count(n)) => format!("go nodes {n}"),
            Some(Budget::Infinite) => "go infinite".into(),
        }
    }

    fn run(&mut self, pos: &Position, search: &mut Search<'_>) -> Result<Analysis, Forfeit> {
        self.ensure_running().map_err(|e| Forfeit(e.to_string()))?;
        // The move's time starts once the engine is running: a handshake
        // here (a caller that did not call `start`) is not the move's.
        let start = Instant::now();
        if std::mem::take(&mut self.new_game) {
            self.send("newgame")?;
        }
        self.send(&format!("position text {}", pos.to_text()))?;
        let budget = search.budget.or(self.budget);
        let side = pos.side_to_move() as usize;
        let (go, deadline) = match search.clock {
            // With a clock the engine decides; it loses when its clock
            // (plus the margin) runs out.
            Some(c) => {
                let ms = |d: Duration| d.as_millis();
                (
                    format!(
                        "go btime {} wtime {} binc {} winc {}",
                        ms(c.remaining[0]),
                        ms(c.remaining[1]),
                        ms(c.increment[0]),
                        ms(c.increment[1])
                    ),
                    start + c.remaining[side] + MARGIN,
                )
            }
            None => (
                Self::go(budget),
                match budget {
                    Some(Budget::Time(t)) => start + t + MARGIN,
                    _ => start + self.timeout,
                },
            ),
        };
        self.send(&go)?;
        let mut last = Analysis {
            best_move: Move::PASS,
            score: Score::Unknown,
            depth: None,
            iterations: None,
            nodes: 0,
            seconds: 0.0,
            pv: Vec::new(),
        };
        let stop = search.stop.clone();
        let mut stop_sent = false;
        let line = loop {
            // Wake up now and then to pass a stop on to the engine.
            let slice = (Instant::now() + Duration::from_millis(20)).min(deadline);
            match self.read_until("bestmove", slice, &mut |l| {
                if let Some(info) = l.strip_prefix("info ") {
                    read_info(info, &mut last);
                    if let Some(report) = search.progress.as_mut() {
                        report(&last);
                    }
                }
            }) {
                Ok(line) => break line,
                Err(ReadError::Timeout) if Instant::now() < deadline => {
                    if stop.is_requested() && !stop_sent {
                        self.send("stop")?;
                        stop_sent = true;
                    }
                }
                Err(e) => {
                    let e = match e {
                        ReadError::Timeout => Forfeit(format!(
                            "no move within {:.1} s (lost on time)",
                            (deadline - start).as_secs_f64()
                        )),
                        ReadError::Broken(f) => f,
                    };
                    return Err(e);
                }
            }
        };
        let text = line["bestmove".len()..].trim();
        let m: Move = text.parse().map_err(|e| {
            // Two squares that make no move (d5:d5) are an illegal move;
            // anything else is not a move at all.
            let squares = text.split_once(':').is_some_and(|(a, b)| {
                yolah::Square::parse(a).is_some() && yolah::Square::parse(b).is_some()
            });
            Forfeit(if squares {
                format!("illegal move {text}: {e}")
            } else {
                format!("bestmove {e}")
            })
        })?;
        last.best_move = m;
        if last.pv.first() != Some(&m) {
            last.pv = vec![m];
        }
        last.seconds = start.elapsed().as_secs_f64();
        Ok(last)
    }
}

/// The most stderr lines a forfeit's reason quotes.
const STDERR_IN_REASON: usize = 3;

/// The most characters of a stdout line a failed start quotes.
const MAX_SHOWN_CHARS: usize = 200;

/// The end of a forfeit's reason for an engine that died in a game: its
/// last stderr lines on the same line (a reason is one line of a match's
/// report), or that it wrote none.
fn said(stderr: &[String]) -> String {
    if stderr.is_empty() {
        return " and wrote nothing on stderr".into();
    }
    let last = &stderr[stderr.len().saturating_sub(STDERR_IN_REASON)..];
    // Control characters (colours, carriage returns) would reach the
    // reader's terminal: each one becomes a '?'.
    let plain = |line: &String| {
        line.trim()
            .chars()
            .map(|c| if c.is_control() { '?' } else { c })
            .collect::<String>()
    };
    let last: Vec<String> = last.iter().map(plain).collect();
    format!("{}{}", crate::player::STDERR_WORDS, last.join(" | "))
}

/// How `child` exited, if it does within `wait` (its output has closed, so
/// it is on its way out, or means to stay without talking).
fn exit_status(child: &mut Child, wait: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + wait;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(5));
            }
            _ => return None,
        }
    }
}

/// Reads `stdout` line by line on a new thread, into a bounded channel
/// that ends with [`Line::Closed`] (or [`Line::TooLong`]).
fn spawn_reader(stdout: std::process::ChildStdout) -> std::io::Result<Receiver<Line>> {
    let (tx, lines) = sync_channel(CHANNEL_LINES);
    std::thread::Builder::new()
        .name("yolah-engine-reader".into())
        .spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut bytes = Vec::new();
                let line = match Read::take(&mut reader, MAX_LINE_BYTES + 1)
                    .read_until(b'\n', &mut bytes)
                {
                    Ok(0) | Err(_) => Line::Closed,
                    Ok(_) if bytes.len() as u64 > MAX_LINE_BYTES => Line::TooLong,
                    Ok(_) => Line::Text(String::from_utf8_lossy(&bytes).trim_end().to_string()),
                };
                let closed = matches!(line, Line::Closed | Line::TooLong);
                if tx.send(line).is_err() || closed {
                    return;
                }
            }
        })?;
    Ok(lines)
}

/// Reads the fields of an `info` line that an [`Analysis`] has.
fn read_info(info: &str, into: &mut Analysis) {
    let words: Vec<&str> = info.split_whitespace().collect();
    let mut i = 0;
    while i < words.len() {
        let next = words.get(i + 1).copied().unwrap_or("");
        match words[i] {
            "depth" => into.depth = next.parse().ok().or(into.depth),
            "iterations" => into.iterations = next.parse().ok().or(into.iterations),
            "nodes" => into.nodes = next.parse().unwrap_or(into.nodes),
            "score" => {
                let value = words.get(i + 2).copied().unwrap_or("");
                into.score = match (next, value.parse::<f64>()) {
                    ("cp", Ok(v)) => Score::Centipoints(v as i32),
                    ("winrate", Ok(v)) => Score::WinRate(v),
                    _ => into.score,
                };
                i += 1;
            }
            "pv" => {
                into.pv = words[i + 1..]
                    .iter()
                    .filter_map(|w| w.parse().ok())
                    .collect();
                return;
            }
            "string" => return,
            _ => {}
        }
        i += 2;
    }
}

impl Drop for ExternalEngine {
    /// A healthy process waits for the next game on this thread.
    fn drop(&mut self) {
        let Some(mut p) = self.process.take() else {
            return;
        };
        if matches!(p.child.try_wait(), Ok(None)) {
            let key = self.key();
            // During a thread's teardown the pool may be gone: the process
            // is then simply dropped (killed and reaped).
            let _ = IDLE.try_with(|idle| {
                let mut idle = idle.borrow_mut();
                if idle.len() < IDLE_PER_THREAD {
                    idle.push((key, p));
                }
            });
        }
    }
}

impl Player for ExternalEngine {
    fn spec(&self) -> &str {
        &self.spec
    }

    fn start(&mut self) -> Result<(), StartError> {
        self.ensure_running()
    }

    fn try_search(&mut self, pos: &Position, mut search: Search<'_>) -> Result<Analysis, Forfeit> {
        let result = self.run(pos, &mut search);
        if result.is_err() {
            // An engine that broke the protocol is killed (and never kept
            // for another game); the next search starts it again.
            self.process = None;
        }
        result
    }

    /// For callers that cannot adjudicate: a failing engine passes if it
    /// may, or plays the first legal move, and is started again next time.
    fn search(&mut self, pos: &Position, search: Search<'_>) -> Analysis {
        self.try_search(pos, search).unwrap_or_else(|_| {
            let m = pos.legal_moves()[0];
            Analysis {
                best_move: m,
                score: Score::Unknown,
                depth: None,
                iterations: None,
                nodes: 0,
                seconds: 0.0,
                pv: vec![m],
            }
        })
    }

    fn new_game(&mut self) {
        self.new_game = true;
    }
}
