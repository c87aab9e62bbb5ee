//! `yolah tournament` as a user runs it: a table, JSON, and clear errors.

use std::process::Command;

/// The path of `name` in `dir`, a test's own directory (removed with it).
fn temp(dir: &tempfile::TempDir, name: &str) -> String {
    dir.path().join(name).to_string_lossy().into_owned()
}

#[test]
fn the_command_prints_a_table_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let path = temp(&dir, "cli.jsonl");
    let yolah = env!("CARGO_BIN_EXE_yolah");
    let args = [
        "tournament",
        "--players",
        "random",
        "alphabeta:depth=1",
        "--games-per-pair",
        "2",
        "--out",
        &path,
        "--json",
    ];
    let out = Command::new(yolah).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["games"], 2);
    assert_eq!(v["ratings"][0]["player"], "alphabeta:depth=1");
    assert_eq!(v["anchor"], "random");
    let out = Command::new(yolah)
        .args([
            "tournament",
            "--players",
            "random",
            "random",
            "--games-per-pair",
            "2",
            "--out",
            &path,
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("listed twice"));
}

#[test]
fn a_tournament_with_an_external_engine_resumes_after_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let path = temp(&dir, "engines.jsonl");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/engines/random_engine.py"
    );
    let engine = format!("engine:cmd=python3 {script}");
    let args = [
        "tournament",
        "--players",
        "random",
        &engine,
        "alphabeta:depth=1",
        "--games-per-pair",
        "10",
        "--threads",
        "2",
        "--seed",
        "3",
        "--out",
        &path,
        "--json",
    ];
    let yolah = env!("CARGO_BIN_EXE_yolah");
    let mut child = Command::new(yolah)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // SIGKILL once a few games are in the file.
    let lines = || {
        std::fs::read_to_string(&path)
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while lines() < 6 && std::time::Instant::now() < deadline {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let killed_at = lines();
    assert!(killed_at < 31, "the kill came after the last game");
    // Running the same command again finishes the tournament.
    let out = Command::new(yolah).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["games"], 30, "killed after {killed_at} lines: {v}");
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.lines().count(), 31, "a header and each game once");
    for r in v["ratings"].as_array().unwrap() {
        assert_eq!(r["forfeits"], 0, "{r}");
    }
}
