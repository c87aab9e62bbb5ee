//! `yolah engine` driven as a controller drives it: a scripted session per
//! command, errors on nonsense, `stop` in the middle of a search, and the
//! Python example engine answering legally.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};
use yolah::{Move, Position};

/// An engine process and its output lines.
struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Engine {
    fn start(program: &str, args: &[&str]) -> Engine {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the engine starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Engine {
            child,
            stdin,
            lines,
        }
    }

    fn yolah(player: &str) -> Engine {
        Engine::start(env!("CARGO_BIN_EXE_yolah"), &["engine", "--player", player])
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Lines up to and including the first that starts with `prefix`.
    fn until(&mut self, prefix: &str) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no {prefix:?} line; saw {seen:?}"));
            let done = line.starts_with(prefix);
            seen.push(line);
            if done {
                return seen;
            }
        }
    }

    /// The one line the last command answers.
    fn answer(&mut self) -> String {
        self.lines
            .recv_timeout(Duration::from_secs(30))
            .expect("an answer")
    }

    fn bestmove(&mut self) -> (Vec<String>, Move) {
        let lines = self.until("bestmove ");
        let m = lines.last().unwrap()["bestmove ".len()..].parse().unwrap();
        (lines, m)
    }

    fn quit(mut self) {
        self.send("quit");
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                assert!(status.success());
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("the engine did not quit");
    }
}

#[test]
fn handshake_options_and_readiness() {
    let mut e = Engine::yolah("alphabeta:depth=2");
    e.send("yolah");
    let lines = e.until("yolahok");
    assert_eq!(lines[0], "id name yolah alphabeta:depth=2");
    assert!(lines.contains(&"option name Player type string default alphabeta:depth=2".into()));
    assert!(lines
        .iter()
        .any(|l| l.starts_with("option name MoveOverhead type spin")));
    e.send("isready");
    assert_eq!(e.answer(), "readyok");
    e.send("setoption name Player value mcts:iterations=500");
    e.send("setoption name MoveOverhead value 100");
    e.send("isready");
    assert_eq!(e.answer(), "readyok", "good options are taken silently");
    e.send("setoption name Player value chess");
    assert!(e.answer().starts_with("error setoption Player: "));
    e.send("setoption name MoveOverhead value -3");
    assert!(e.answer().starts_with("error setoption MoveOverhead"));
    e.send("setoption name Hash value 16");
    assert!(e.answer().contains("unknown option \"Hash\""));
    e.send("setoption Player");
    assert!(e.answer().starts_with("error setoption: expected"));
    e.quit();
}

#[test]
fn a_player_that_cannot_be_readied_is_reported_after_each_answer() {
    // The player is itself an engine whose program does not exist: the
    // handshake, isready and newgame are answered, each followed by one line
    // that says why the player is not ready.
    let mut e = Engine::yolah("engine:cmd=/nonexistent/yolah-engine");
    let reported = |line: String| {
        assert!(
            line.starts_with("info string the player is not ready: ")
                && line.contains("cannot run \"/nonexistent/yolah-engine\""),
            "{line}"
        );
    };
    e.send("yolah");
    e.until("yolahok");
    reported(e.answer());
    e.send("isready");
    assert_eq!(e.answer(), "readyok");
    reported(e.answer());
    e.send("newgame");
    reported(e.answer());
    e.quit();
}

#[test]
fn positions_searches_and_limits() {
    let mut e = Engine::yolah("alphabeta:depth=2");
    e.send("position startpos moves d5:b7 e5:c7");
    e.send("go depth 3");
    let (lines, m) = e.bestmove();
    let mut pos = Position::START;
    for t in ["d5:b7", "e5:c7"] {
        pos.play(t.parse().unwrap());
    }
    assert!(pos.legal_moves().contains(m));
    let infos: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .collect();
    assert_eq!(infos.len(), 3, "one info a depth: {lines:?}");
    for field in ["score cp", "nodes", "nps", "time", "pv"] {
        assert!(infos[2].contains(field), "{}", infos[2]);
    }
    // Node and clock limits, a position in text form, and a pass.
    e.send("position text w6b/8/8/3bw3/3wb3/8/8/b6w b 0 0 0 moves d5:b7");
    e.send("go nodes 500");
    let (_, m) = e.bestmove();
    let mut after = Position::START;
    after.play("d5:b7".parse().unwrap());
    assert!(after.legal_moves().contains(m), "{m}");
    e.send("go btime 1000 wtime 1000 binc 10 winc 10");
    e.bestmove();
    let pass = "xxxx2b1/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/bbbwwwwx w 26 27 55";
    e.send(&format!("position text {pass}"));
    e.send("go movetime 50");
    let (_, m) = e.bestmove();
    assert_eq!(m, Move::PASS, "White has no move");
    // A Monte Carlo player reports a win rate.
    e.send("setoption name Player value mcts:time=300ms");
    e.send("position startpos");
    e.send("go");
    let (lines, _) = e.bestmove();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info iterations") && l.contains("score winrate")),
        "{lines:?}"
    );
    e.quit();
}

#[test]
fn stop_ends_an_infinite_search_at_once() {
    let mut e = Engine::yolah("alphabeta:depth=2");
    e.send("position startpos");
    e.send("go infinite");
    // The search is under way once it reports its first depth.
    e.until("info depth");
    e.send("isready");
    assert!(
        e.until("readyok").last().unwrap() == "readyok",
        "answered while searching"
    );
    e.send("go depth 2");
    assert!(e.until("error").last().unwrap().contains("send stop first"));
    let asked = Instant::now();
    e.send("stop");
    let (_, m) = e.bestmove();
    assert!(asked.elapsed() < Duration::from_secs(5));
    assert!(Position::START.legal_moves().contains(m));
    e.quit();
}

#[test]
fn nonsense_gets_an_error_and_the_engine_goes_on() {
    let mut e = Engine::yolah("random");
    for (line, expected) in [
        ("dance", "error unknown command \"dance\""),
        ("go nodes", "error go: nodes needs a number"),
        ("go depth 0", "error go: depth must be from 1 to 128"),
        ("go speed 3", "error go: unknown limit \"speed\""),
        ("position", "error position: expected position startpos"),
        (
            "position startpos moves d5:d5",
            "error position: move 1 \"d5:d5\"",
        ),
        (
            "position startpos moves h1:h2",
            "error position: move 1 \"h1:h2\": illegal",
        ),
        (
            "position text nonsense 1 2 3 4",
            "error position: bad position",
        ),
        ("position startpos d5:b7", "error position: expected moves"),
    ] {
        e.send(line);
        let answer = e.answer();
        assert!(answer.starts_with(expected), "{line:?} -> {answer:?}");
    }
    // A line over 64 KiB is refused whole; the next one is read.
    e.send(&"x".repeat(70_000));
    assert!(e.answer().starts_with("error a line is longer than"));
    // Nothing above changed the position: it is still the start.
    e.send("go");
    let (_, m) = e.bestmove();
    assert!(Position::START.legal_moves().contains(m));
    // The end of input ends the engine.
    drop(e.stdin);
    assert!(e.child.wait().unwrap().success());
}

#[test]
fn the_python_example_engine_answers_legally() {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/engines/random_engine.py"
    );
    let mut e = Engine::start("python3", &[script]);
    e.send("yolah");
    assert!(e.until("yolahok").iter().any(|l| l.starts_with("id name")));
    let mut pos = Position::START;
    let mut played = Vec::new();
    while !pos.is_game_over() {
        e.send(&format!("position startpos moves {}", played.join(" ")));
        e.send("go movetime 100");
        let (_, m) = e.bestmove();
        assert!(pos.check_move(m).is_ok(), "{m} in {pos:?}");
        pos.play(m);
        played.push(m.to_string());
    }
    e.quit();
}

/// `yolah match A B --games N --json` and its JSON.
fn run_match(a: &str, b: &str, games: &str) -> serde_json::Value {
    run_match_with(a, b, games, &[])
}

fn run_match_with(a: &str, b: &str, games: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["match", a, b, "--games", games, "--seed", "1", "--json"];
    args.extend(extra);
    common::json_ok(&args)
}

/// The processes whose command line matches `pattern` (a regular
/// expression), one a line; empty if none (or no pgrep to ask).
fn processes(pattern: &str) -> String {
    Command::new("pgrep")
        .args(["-af", pattern])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

#[test]
fn forfeits_that_differ_only_in_the_engines_stderr_are_one_reason() {
    let zoo = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/engines/zoo.py");
    let spec = format!("engine:cmd=python3 {zoo} crashpid,time=200ms,timeout=5s");
    let v = run_match(&spec, "random", "3");
    assert_eq!(v["a_forfeits"], 3, "{v}");
    let reasons = v["forfeit_reasons"].as_array().unwrap();
    assert_eq!(reasons.len(), 1, "{v}");
    let reason = reasons[0].as_str().unwrap();
    assert!(
        reason.starts_with(
            "A: the engine exited (exit status: 4); its last words on stderr: zoo: process "
        ) && reason.ends_with(" gives up (3 games)"),
        "{reason}"
    );
}

#[test]
fn broken_engines_lose_by_forfeit_with_the_reason() {
    let zoo = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/engines/zoo.py");
    for (mode, reason) in [
        // Its last stderr line goes with the reason: what a person
        // debugging the engine needs first.
        (
            "crash 3",
            "the engine exited (exit status: 3); its last words on stderr: zoo: crashing at move 3",
        ),
        ("sleep", "lost on time"),
        ("garbage", "is not a move"),
        ("illegal", "illegal move d5:d5"),
        // Its output closed, it waits for input that never comes: killed,
        // not waited for (the match hung on it once).
        ("closeout", "closed its output without exiting (killed)"),
        ("flood", ""),
    ] {
        // 5 s: the sleeper's games end after it (plus the move's 200 ms),
        // and the handshake has as long, which a Python start on a loaded
        // machine needs (2 s was once too little).
        let spec = format!("engine:cmd=python3 {zoo} {mode},time=200ms,timeout=5s");
        let begin = Instant::now();
        let v = run_match(&spec, "random", "2");
        assert_eq!(v["a_forfeits"], 2, "{mode}: {v}");
        assert_eq!(v["b_wins"], 2, "{mode}: {v}");
        let reasons = v["forfeit_reasons"].to_string();
        assert!(reasons.contains(reason), "{mode}: {reasons}");
        assert!(
            begin.elapsed() < Duration::from_secs(60),
            "{mode} took too long"
        );
        // The whole command line: the clock test runs `zoo.py sleep 1`.
        let left = processes(&format!("zoo.py {mode}$"));
        assert!(left.is_empty(), "{mode} left a process: {left}");
    }
}

#[test]
fn engines_through_the_protocol_play_whole_matches() {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/engines/random_engine.py"
    );
    let v = run_match(&format!("engine:cmd=python3 {script}"), "random", "4");
    assert_eq!(v["games"], 4);
    assert_eq!(
        (v["a_forfeits"].as_u64(), v["b_forfeits"].as_u64()),
        (Some(0), Some(0))
    );
    // Our own engine through the protocol against itself in process.
    let yolah = env!("CARGO_BIN_EXE_yolah");
    let v = run_match(
        &format!("engine:cmd={yolah} engine --player alphabeta:depth=2"),
        "mcts:iterations=200",
        "2",
    );
    assert_eq!(v["games"], 2);
    assert_eq!(v["a_forfeits"], 0, "{v}");
}

#[test]
fn an_engine_that_overruns_its_clock_loses_on_time() {
    let zoo = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/engines/zoo.py");
    let begin = Instant::now();
    let v = run_match_with(
        &format!("engine:cmd=python3 {zoo} sleep 1"),
        "random",
        "2",
        &["--tc", "0.5+0"],
    );
    assert_eq!(v["a_forfeits"], 2, "{v}");
    assert!(
        v["forfeit_reasons"].to_string().contains("lost on time"),
        "{v}"
    );
    assert!(begin.elapsed() < Duration::from_secs(20));
    // The example engine, held to the same clock, plays its games out.
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/engines/random_engine.py"
    );
    let v = run_match_with(
        &format!("engine:cmd=python3 {script}"),
        "alphabeta:depth=3",
        "2",
        &["--tc", "5+0.05"],
    );
    assert_eq!(
        (v["a_forfeits"].as_u64(), v["b_forfeits"].as_u64()),
        (Some(0), Some(0)),
        "{v}"
    );
}
