//! Tournaments resume exactly: a crash (a truncated file) loses only the
//! unfinished line, and the totals equal those of an uninterrupted run.

use yolah_lab::shard::Shard;
use yolah_lab::standings::Standings;
use yolah_lab::tournament::{run, Settings, Store, MAX_LINE_BYTES};

fn settings() -> Settings {
    Settings {
        players: vec![
            "random".into(),
            "mc:playouts=200".into(),
            "alphabeta:depth=1".into(),
        ],
        games_per_pair: 4,
        seed: 5,
        tc: None,
    }
}

/// The path of `name` in `dir`, a test's own directory (removed with it).
fn temp(dir: &tempfile::TempDir, name: &str) -> String {
    dir.path().join(name).to_string_lossy().into_owned()
}

fn play_all(path: &str) -> Vec<yolah_lab::tournament::GameLine> {
    let s = settings();
    let store = Store::open(path, &s).unwrap();
    run(&s, &store, Shard::WHOLE, 2, &|_, _| {}).unwrap()
}

#[test]
fn resume_after_a_crash_gives_the_same_totals() {
    let s = settings();
    let dir = tempfile::tempdir().unwrap();
    let whole = temp(&dir, "whole.jsonl");
    let full = play_all(&whole);
    assert_eq!(full.len(), 12);
    let text = std::fs::read_to_string(&whole).unwrap();
    assert_eq!(text.lines().count(), 13, "a header and one line per game");

    // Running again plays nothing more.
    assert_eq!(play_all(&whole), full);
    assert_eq!(std::fs::read_to_string(&whole).unwrap(), text);

    // A crash in the middle of writing game 6: five whole games and half a line.
    let crashed = temp(&dir, "crashed.jsonl");
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
    let resumed = run(&s, &store, Shard::WHOLE, 2, &|_, _| {}).unwrap();
    assert_eq!(resumed, full, "the same games, each once");
    assert_eq!(
        Standings::new(&s.players, &full, 0),
        Standings::new(&s.players, &resumed, 0)
    );
    // The file now holds every game exactly once, all lines whole.
    let after = std::fs::read_to_string(&crashed).unwrap();
    assert_eq!(after.lines().count(), 13);
    assert!(after.ends_with('\n'));
}

#[test]
fn duplicates_count_once_and_other_tournaments_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = temp(&dir, "dup.jsonl");
    play_all(&path);
    let text = std::fs::read_to_string(&path).unwrap();
    let dup = text.lines().nth(3).unwrap().to_string() + "\n";
    std::fs::write(&path, text.clone() + &dup).unwrap();
    let store = Store::open(&path, &settings()).unwrap();
    assert_eq!(store.games.len(), 12);
    assert!(store.warnings.iter().any(|w| w.contains("twice")));
    // The file is locked while a store holds it: let go before opening again.
    drop(store);

    let other = Settings {
        games_per_pair: 6,
        ..settings()
    };
    let err = Store::open(&path, &other).err().unwrap().to_string();
    assert!(err.contains("belongs to another tournament"), "{err}");
    std::fs::write(&path, "not json\n").unwrap();
    let err = Store::open(&path, &settings()).err().unwrap().to_string();
    assert!(err.contains(":1: not a tournament line"), "{err}");
}

#[test]
fn files_that_are_not_tournaments_fail_at_once() {
    let dir = tempfile::tempdir().unwrap();
    // An endless file: refused after one over-long line, not read to the end.
    let err = Store::open("/dev/zero", &settings())
        .err()
        .unwrap()
        .to_string();
    assert_eq!(
        err,
        format!("/dev/zero:1: line longer than {MAX_LINE_BYTES} bytes: not a tournament file")
    );
    let path = temp(&dir, "binary.jsonl");
    std::fs::write(&path, [0xffu8, 0xfe, b'\n']).unwrap();
    let err = Store::open(&path, &settings()).err().unwrap().to_string();
    assert!(
        err.ends_with(":1: not UTF-8: not a tournament file"),
        "{err}"
    );
}
