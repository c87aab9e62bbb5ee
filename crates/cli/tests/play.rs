//! `yolah play` driven through stdin, as a person types.

use std::io::Write;
use std::process::{Command, Stdio};

fn play(args: &[&str], input: &str) -> (bool, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_yolah"))
        .arg("play")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("yolah starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_prompt_survives_garbage() {
    let input = "\n   \nhello\nd5\nd5:z9\nz9:d5\nb2:b3\nh1:h2\na1:a1\nd5:d5\n\u{0}\u{7f}ÿ\n:\n::::\nd5:b7:c8\nhelp\nmoves\nd5:b7\nundo\nundo\nd5:b7\nquit\n";
    let (ok, out, err) = play(&["--black", "human", "--white", "random:seed=1"], input);
    assert!(ok, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.contains("is not a move"), "{out}");
    assert!(out.contains("\"z9\" is not a square"));
    assert!(out.contains("\"b2:b3\" is illegal: b2 does not hold a black piece (it is empty)"));
    assert!(
        out.contains("\"h1:h2\" is illegal: h1 does not hold a black piece (it is a white piece)")
    );
    assert!(out.contains("may not pass"));
    assert!(out.contains("moves"));
    assert!(out.contains("a1:b1 a1:c1"), "the move list");
    assert!(out.contains("white (random:seed=1) plays"));
    assert!(
        out.contains("nothing to undo"),
        "the second undo has nothing left"
    );
    assert!(out.contains("   a b c d e f g h"));
}

#[test]
fn end_of_input_stops_cleanly_and_saves() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("game.json");
    let file = file.to_str().unwrap();
    let (ok, out, err) = play(&["--white", "random", "--save", file], "d5:b7\n");
    assert!(ok, "{err}");
    assert!(out.contains("end of input"));
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    assert_eq!(record["moves"][0], "d5:b7");
    assert_eq!(record["result"], "*");
    let replay = Command::new(env!("CARGO_BIN_EXE_yolah"))
        .args(["replay", file])
        .output()
        .unwrap();
    assert!(replay.status.success());
}

#[test]
fn two_computers_play_a_whole_game() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("watch.json");
    let file = file.to_str().unwrap();
    let (ok, out, err) = play(
        &[
            "--black",
            "mcts:iterations=300",
            "--white",
            "alphabeta:depth=2",
            "--save",
            file,
        ],
        "",
    );
    assert!(ok, "{err}");
    assert!(out.contains("game over:"), "{out}");
    let replay = Command::new(env!("CARGO_BIN_EXE_yolah"))
        .args(["replay", file, "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&replay.stdout).unwrap();
    assert_eq!(v["game_over"], true);
}

#[test]
fn hint_suggests_a_legal_move() {
    let (ok, out, err) = play(&["--white", "random"], "hint\nquit\n");
    assert!(ok, "{err}");
    let hint = out.split("hint: ").nth(1).expect("a hint line");
    let m = hint.split_whitespace().next().unwrap();
    assert!(
        yolah::Position::START
            .legal_moves()
            .contains(m.parse().unwrap()),
        "{hint}"
    );
}

#[test]
fn bad_players_are_refused() {
    let (ok, _, err) = play(&["--white", "alphabeta:depth=x"], "");
    assert!(!ok);
    assert!(err.contains("depth=x is not a whole number"), "{err}");
    // The error quotes the spec as typed, not with every core added.
    let (ok, _, err) = play(&["--white", "alphabeta:time=1"], "");
    assert!(!ok);
    assert!(
        err.contains("\"alphabeta:time=1\": time=1 is not a duration"),
        "{err}"
    );
    assert!(!err.contains("threads="), "{err}");
}

#[test]
fn an_endless_input_line_is_refused() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_yolah"))
        .args(["play", "--white", "random"])
        .stdin(std::fs::File::open("/dev/zero").unwrap())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("yolah starts");
    let status = child.wait().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(!status.success());
    assert!(
        err.contains("an input line is longer than 4096 bytes"),
        "{err}"
    );
}

/// An engine that dies mid-game stops the game with its reason and a
/// failing exit, as a match would forfeit it; no move is played for it.
#[test]
fn a_crashing_engine_stops_the_game() {
    let zoo = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/engines/zoo.py");
    let black = format!("engine:cmd=python3 {zoo} crash 3,time=200ms,timeout=5s");
    let (ok, out, err) = play(&["--black", &black, "--white", "random"], "");
    assert!(!ok, "{out}\n{err}");
    assert_eq!(out.matches("black (engine:").count(), 2, "{out}");
    assert!(
        err.contains("the game stops: black (")
            && err.contains("forfeits: the engine exited (exit status: 3); its last words on stderr: zoo: crashing at move 3"),
        "{err}"
    );
}
