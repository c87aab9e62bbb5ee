//! Tournaments resume exactly: a crash (a truncated file) loses only the
//! unfinished line, and the totals equal those of an uninterrupted run.

use std::process::Command;
use yolah::tournament::{run, standings, Settings, Store};

fn settings() -> Settings {
    Settings {
        players: vec![
            "random".into(),
            "mc:playouts=200".into(),
            "alphabeta:depth=1".into(),
        ],
        games_per_pair: 4,
        seed: 5,
    }
}

fn temp(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("yolah-tournament-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path.to_string_lossy().into_owned()
}

fn play_all(path: &str) -> Vec<yolah::tournament::GameLine> {
    let s = settings();
    let store = Store::open(path, &s).unwrap();
    run(&s, &store, 2, &|_, _| {}).unwrap()
}

#[test]
fn resume_after_a_crash_gives_the_same_totals() {
    let s = settings();
    let whole = temp("whole.jsonl");
    let full = play_all(&whole);
    assert_eq!(full.len(), 12);
    let text = std::fs::read_to_string(&whole).unwrap();
    assert_eq!(text.lines().count(), 13, "a header and one line per game");

    // Running again plays nothing more.
    assert_eq!(play_all(&whole), full);
    assert_eq!(std::fs::read_to_string(&whole).unwrap(), text);

    // A crash in the middle of writing game 6: five whole games and half a line.
    let crashed = temp("crashed.jsonl");
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut cut: String = lines[..6].concat();
    cut.push_str(&lines[6][..lines[6].len() / 2]);
    std::fs::write(&crashed, &cut).unwrap();
    let store = Store::open(&crashed, &s).unwrap();
    assert_eq!(store.games.len(), 5);
    assert!(
        store.warnings[0].contains("half-written"),
        "{:?}",
        store.warnings
    );
    let resumed = run(&s, &store, 2, &|_, _| {}).unwrap();
    assert_eq!(resumed, full, "the same games, each once");
    let (r1, p1) = standings(3, &full, 0);
    let (r2, p2) = standings(3, &resumed, 0);
    assert_eq!((r1, p1), (r2, p2));
    // The file now holds every game exactly once, all lines whole.
    let after = std::fs::read_to_string(&crashed).unwrap();
    assert_eq!(after.lines().count(), 13);
    assert!(after.ends_with('\n'));
}

#[test]
fn duplicates_count_once_and_other_tournaments_are_refused() {
    let path = temp("dup.jsonl");
    play_all(&path);
    let text = std::fs::read_to_string(&path).unwrap();
    let dup = text.lines().nth(3).unwrap().to_string() + "\n";
    std::fs::write(&path, text.clone() + &dup).unwrap();
    let store = Store::open(&path, &settings()).unwrap();
    assert_eq!(store.games.len(), 12);
    assert!(store.warnings.iter().any(|w| w.contains("twice")));

    let other = Settings {
        games_per_pair: 6,
        ..settings()
    };
    let err = Store::open(&path, &other).err().unwrap();
    assert!(err.contains("belongs to another tournament"), "{err}");
    std::fs::write(&path, "not json\n").unwrap();
    assert!(Store::open(&path, &settings())
        .err()
        .unwrap()
        .contains(":1: not a tournament line"));
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
