//! `yolah tournament` as a user runs it: a table, JSON, and clear errors.

use std::process::Command;

fn temp(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("yolah-cli-tournament-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path.to_string_lossy().into_owned()
}

#[test]
fn the_command_prints_a_table_and_json() {
    let path = temp("cli.jsonl");
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
