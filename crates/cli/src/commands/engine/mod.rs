//! `yolah engine`: any of our players behind the line protocol of
//! `docs/engine-protocol.md`, on standard input and output.
//!
//! The main thread reads commands; a `go` moves the player to a search
//! thread, which writes `info` lines as the search goes and the `bestmove`
//! at its end, and hands the player back when it is joined. Output lines
//! from both threads go through one lock, so they never interleave.

use anyhow::Result;
use clap::Args;
use std::io::{BufRead, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use yolah::{Move, Position};
use yolah_players::{from_spec, Analysis, Player, Search, Stop};

mod limits;
use limits::{info_line, GoLimits};

/// The longest command line read.
const MAX_LINE_BYTES: u64 = 64 << 10;
/// The most milliseconds `MoveOverhead` may be.
const MAX_OVERHEAD_MS: u64 = 5_000;
const COMMANDS: &str = "yolah, isready, setoption, newgame, position, go, stop, quit";

/// Writes whole lines to standard output, one thread at a time.
#[derive(Clone)]
struct Out(Arc<Mutex<std::io::Stdout>>);

impl Out {
    fn line(&self, text: &str) {
        let mut out = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        // A controller that closed our output will see nothing more anyway.
        let _ = writeln!(out, "{text}").and_then(|()| out.flush());
    }
}

/// A search in progress: its stop flag and the thread that gives the
/// player back.
struct Running {
    stop: Stop,
    /// Set just before the `bestmove` is written: from then on the search
    /// is over for the controller, even if the thread has not returned.
    answered: Arc<AtomicBool>,
    thread: JoinHandle<Box<dyn Player>>,
}

struct Engine {
    out: Out,
    spec: String,
    /// The player, while no search has it.
    player: Option<Box<dyn Player>>,
    running: Option<Running>,
    pos: Position,
    overhead_ms: u64,
}

/// What `yolah engine` does: its line in `yolah --help` and the first
/// line of its own help.
pub const ABOUT: &str = "Speak the engine protocol (docs/engine-protocol.md) on standard input \
    and output, with one of our players, so that other programs can play it";

/// `yolah engine`'s arguments.
#[derive(Args)]
#[command(about = ABOUT)]
pub struct EngineArgs {
    /// The player, such as nn:time=1s (the protocol's Player option
    /// changes it).
    #[arg(long, default_value = "alphabeta:time=1s")]
    player: String,
}

impl EngineArgs {
    /// Runs the protocol on standard input and output until `quit` or the
    /// end of input.
    pub fn run(self) -> Result<String> {
        engine_command(&self.player)
    }
}

/// Runs the protocol with the player of `spec`.
fn engine_command(spec: &str) -> Result<String> {
    let player = from_spec(spec)?;
    let mut engine = Engine {
        out: Out(Arc::new(Mutex::new(std::io::stdout()))),
        spec: spec.to_string(),
        player: Some(player),
        running: None,
        pos: Position::START,
        overhead_ms: 30,
    };
    let mut input = std::io::stdin().lock();
    loop {
        let mut bytes = Vec::new();
        let n = Read::take(&mut input, MAX_LINE_BYTES + 1).read_until(b'\n', &mut bytes)?;
        if n == 0 {
            break;
        }
        if bytes.len() as u64 > MAX_LINE_BYTES {
            engine.out.line(&format!(
                "error a line is longer than {MAX_LINE_BYTES} bytes"
            ));
            // Skip the rest of that line.
            while !bytes.ends_with(b"\n") {
                bytes.clear();
                if Read::take(&mut input, MAX_LINE_BYTES).read_until(b'\n', &mut bytes)? == 0 {
                    break;
                }
            }
            continue;
        }
        let line = String::from_utf8_lossy(&bytes);
        if !engine.command(line.trim()) {
            break;
        }
    }
    engine.finish_search(true);
    Ok(String::new())
}

impl Engine {
    fn error(&self, message: impl std::fmt::Display) {
        self.out.line(&format!("error {message}"));
    }

    /// Handles one command; false on `quit`.
    fn command(&mut self, line: &str) -> bool {
        let mut words = line.split_whitespace();
        let Some(first) = words.next() else {
            return true;
        };
        let rest: Vec<&str> = words.collect();
        match first {
            "yolah" => self.ready_then(Self::handshake),
            "isready" => self.ready_then(|engine| engine.out.line("readyok")),
            "setoption" => self.set_option(&rest),
            "newgame" => {
                if self.searching() {
                    self.error("newgame: a search is running; send stop first");
                } else if let Some(p) = self.player() {
                    // Forgets the last game (an alpha-beta player clears its
                    // table), then readies what a first game would need.
                    p.new_game();
                    self.ready_then(|_| ());
                }
            }
            "position" => {
                if let Err(e) = self.set_position(&rest) {
                    self.error(format!("position: {e}"));
                }
            }
            "go" => {
                if let Err(e) = self.go(&rest) {
                    self.error(format!("go: {e}"));
                }
            }
            "stop" => self.finish_search(true),
            "quit" => return false,
            other => self.error(format!("unknown command {other:?} (commands: {COMMANDS})")),
        }
        true
    }

    /// Readies the player while no search runs (`Player::start`: an
    /// alpha-beta player allocates its table and solver), so that the
    /// first `go` after the handshake, `isready` or `newgame` does not
    /// spend its time on it; then gives the command's `answer`. A player
    /// that could not be readied (only an engine behind `engine:cmd=` can
    /// fail) is reported as one `info string` line after the answer: the
    /// command itself was understood, and `go` will try again.
    fn ready_then(&mut self, answer: impl FnOnce(&Self)) {
        let unready = if self.searching() {
            None
        } else {
            self.player().and_then(|p| p.start().err())
        };
        answer(self);
        if let Some(why) = unready {
            // The protocol's lines are one line each: stderr's lines joined.
            let why = why.not_ready();
            let why = why.split('\n').map(str::trim).collect::<Vec<_>>().join(" ");
            self.out.line(&format!("info string {why}"));
        }
    }

    fn handshake(&self) {
        self.out.line(&format!("id name yolah {}", self.spec));
        self.out.line("id author the yolah developers");
        self.out.line(&format!(
            "option name Player type string default {}",
            self.spec
        ));
        self.out.line(&format!(
            "option name MoveOverhead type spin default {} min 0 max {MAX_OVERHEAD_MS}",
            self.overhead_ms
        ));
        self.out.line("yolahok");
    }

    /// Whether a search has not yet answered.
    fn searching(&mut self) -> bool {
        match &self.running {
            Some(r) if !r.answered.load(Ordering::Acquire) => true,
            Some(_) => {
                self.finish_search(false);
                false
            }
            None => false,
        }
    }

    /// Stops (if `stop`) and joins the running search, taking the player
    /// back.
    fn finish_search(&mut self, stop: bool) {
        if let Some(running) = self.running.take() {
            if stop {
                running.stop.request();
            }
            match running.thread.join() {
                Ok(player) => self.player = Some(player),
                // The search panicked; make the player again.
                Err(_) => self.player = from_spec(&self.spec).ok(),
            }
        }
    }

    fn player(&mut self) -> Option<&mut Box<dyn Player>> {
        self.finish_search(false);
        self.player.as_mut()
    }

    fn set_option(&mut self, words: &[&str]) {
        if self.searching() {
            return self.error("setoption: a search is running; send stop first");
        }
        // setoption name NAME value VALUE (the value may hold spaces).
        let (name, value) = match words {
            ["name", name, "value", value @ ..] if !value.is_empty() => (*name, value.join(" ")),
            _ => return self.error("setoption: expected setoption name NAME value VALUE"),
        };
        match name {
            "Player" => match from_spec(&value) {
                Ok(p) => {
                    self.player = Some(p);
                    self.spec = value;
                }
                Err(e) => self.error(format!("setoption Player: {e}")),
            },
            "MoveOverhead" => match value.parse::<u64>() {
                Ok(ms) if ms <= MAX_OVERHEAD_MS => self.overhead_ms = ms,
                _ => self.error(format!(
                    "setoption MoveOverhead: {value:?} is not a whole number from 0 to {MAX_OVERHEAD_MS}"
                )),
            },
            other => self.error(format!(
                "setoption: unknown option {other:?} (options: Player, MoveOverhead)"
            )),
        }
    }

    fn set_position(&mut self, words: &[&str]) -> Result<(), String> {
        let (mut pos, moves) = match words {
            ["startpos", rest @ ..] => (Position::START, rest),
            ["text", board, side, black, white, ply, rest @ ..] => {
                let text = format!("{board} {side} {black} {white} {ply}");
                (text.parse::<Position>().map_err(|e| e.to_string())?, rest)
            }
            _ => return Err("expected position startpos or position text BOARD SIDE BLACK WHITE PLY, then moves M…".into()),
        };
        let moves = match moves {
            [] => &[][..],
            ["moves", list @ ..] => list,
            [other, ..] => return Err(format!("expected moves, not {other:?}")),
        };
        for (i, text) in moves.iter().enumerate() {
            let m: Move = text
                .parse()
                .map_err(|e| format!("move {} {text:?}: {e}", i + 1))?;
            pos.try_play(m)
                .map_err(|e| format!("move {} {text:?}: illegal: {e}", i + 1))?;
        }
        self.pos = pos;
        Ok(())
    }

    fn go(&mut self, words: &[&str]) -> Result<(), String> {
        let limits = GoLimits::parse(words)?;
        if self.searching() {
            return Err("a search is running; send stop first".into());
        }
        let budget = limits.budget(self.pos.side_to_move(), self.overhead_ms);
        let clock = limits.game_clock(self.pos.side_to_move(), self.overhead_ms);
        let mut player = self
            .player
            .take()
            .ok_or("the player could not be made again after a failed search")?;
        let out = self.out.clone();
        let pos = self.pos;
        if pos.is_game_over() {
            out.line("info string the game is over");
            out.line("bestmove a1:a1");
            self.player = Some(player);
            return Ok(());
        }
        let stop = Stop::new();
        let thread_stop = stop.clone();
        let answered = Arc::new(AtomicBool::new(false));
        let thread_answered = Arc::clone(&answered);
        let thread = std::thread::Builder::new()
            .name("yolah-engine-search".into())
            .spawn(move || {
                let mut report = |a: &Analysis| out.line(&info_line(a));
                let search = Search {
                    budget,
                    stop: &thread_stop,
                    progress: Some(&mut report),
                    clock,
                };
                let analysis = player.search(&pos, search);
                // A player must answer legally; if it did not, pass or any move.
                let m = if pos.check_move(analysis.best_move).is_ok() {
                    analysis.best_move
                } else {
                    pos.legal_moves()[0]
                };
                thread_answered.store(true, Ordering::Release);
                out.line(&format!("bestmove {m}"));
                player
            })
            .map_err(|e| format!("cannot start a search thread: {e}"))?;
        self.running = Some(Running {
            stop,
            answered,
            thread,
        });
        Ok(())
    }
}
