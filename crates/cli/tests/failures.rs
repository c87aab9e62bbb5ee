//! Failures say what happened, tried against real separate processes: an
//! engine that cannot start stops the run with its stderr shown, an
//! engine slow to start does not lose on time. No test waits by sleeping:
//! each waits for a process to end.

mod common;

use common::{ok, path, yolah};

/// The engine zoo: the example engine broken in the way `mode` says.
fn zoo(mode: &str) -> String {
    let zoo = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/engines/zoo.py");
    format!("engine:cmd=python3 {zoo} {mode}")
}

fn dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("yolah-failures-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `yolah args`, which must fail, and returns its stderr.
fn failure(args: &[&str]) -> String {
    let out = yolah(args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{args:?} should fail: {err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn an_engine_that_cannot_start_stops_the_run_and_shows_its_stderr() {
    let d = dir("start");
    let fail = zoo("fail");
    // Its reason on stderr, then exit 2: the match stops, saying both.
    let err = failure(&["match", &fail, "random", "--games", "4", "--json"]);
    assert!(err.contains("did not start"), "{err}");
    assert!(err.contains("exit status: 2"), "{err}");
    assert!(
        err.contains("cannot open nets/missing.bin") && err.contains("zoo: giving up"),
        "{err}"
    );
    // The same for a tournament (B's seat as well), and for analyse.
    let out = path(&d, "t.jsonl");
    let err = failure(&[
        "tournament",
        "--players",
        "random",
        &fail,
        "--games-per-pair",
        "2",
        "--out",
        &out,
    ]);
    assert!(err.contains("cannot open nets/missing.bin"), "{err}");
    let err = failure(&["analyse", "--player", &fail]);
    assert!(err.contains("did not start"), "{err}");
    // A program that exits at once without a word, one that is not there,
    // and one that never shakes hands.
    let err = failure(&["match", "engine:cmd=false", "random", "--games", "2"]);
    assert!(
        err.contains("exited (exit status: 1) before its handshake")
            && err.contains("wrote nothing on stderr"),
        "{err}"
    );
    let err = failure(&["match", "engine:cmd=/no/such/engine", "random"]);
    assert!(err.contains("cannot run \"/no/such/engine\""), "{err}");
    let silent = format!("{},timeout=1s", zoo("silent"));
    let err = failure(&["match", &silent, "random", "--games", "2"]);
    assert!(err.contains("no handshake (yolahok) within 1.0 s"), "{err}");
}

#[test]
fn an_engine_slow_to_start_does_not_lose_on_time() {
    // Three seconds before its handshake, 200 ms a move: the handshake has
    // its own deadline (10 s), and the first move its full 200 ms.
    let slow = format!("{},time=200ms", zoo("slowstart"));
    let v: serde_json::Value =
        serde_json::from_str(&ok(&["match", &slow, "random", "--games", "2", "--json"])).unwrap();
    assert_eq!(
        (v["games"].as_u64(), v["a_forfeits"].as_u64()),
        (Some(2), Some(0)),
        "{v}"
    );
    // The same under a 1-second clock: start-up is not on the clock.
    let v: serde_json::Value = serde_json::from_str(&ok(&[
        "match",
        &zoo("slowstart"),
        "random",
        "--games",
        "2",
        "--tc",
        "1+0.1",
        "--json",
    ]))
    .unwrap();
    assert_eq!(
        (v["games"].as_u64(), v["a_forfeits"].as_u64()),
        (Some(2), Some(0)),
        "{v}"
    );
}
