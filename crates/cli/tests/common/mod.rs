//! What the command-line tests share: running `yolah` and judging its exit.
#![allow(dead_code)] // each test file uses some of these

use std::process::{Command, Output};

/// Runs the `yolah` binary under test.
pub fn yolah(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_yolah"))
        .args(args)
        .output()
        .expect("the yolah binary runs")
}

/// Runs it, asserts success, and returns standard output.
pub fn ok(args: &[&str]) -> String {
    let out = yolah(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {err}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs it, asserts success, and parses standard output as one JSON value.
pub fn json_ok(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(ok(args).trim()).expect("one JSON value")
}

/// A failure: non-zero exit, no panic, a message that contains `needle`.
pub fn fails_with(args: &[&str], needle: &str) {
    let out = yolah(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} should fail");
    assert!(err.contains(needle), "{args:?}: {err}");
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "{err}"
    );
}

/// The counts of a `random-games --json` run: the same whatever the
/// threads, shards and merges that produced them.
pub const RANDOM_GAMES_COUNTS: [&str; 6] = [
    "games",
    "seed",
    "black_wins",
    "white_wins",
    "draws",
    "plies",
];

/// A path in `dir` as a string argument.
pub fn path(dir: impl AsRef<std::path::Path>, name: &str) -> String {
    dir.as_ref().join(name).to_string_lossy().into_owned()
}
