//! Failures say what happened, tried against real separate processes: an
//! engine that cannot start stops the run with its stderr shown, an
//! engine slow to start does not lose on time, and two tournaments on one
//! file do not both write it. No test waits by sleeping: each waits for a
//! process to end, or for a condition with a deadline.

mod common;

use common::{ok, path, yolah};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The engine zoo: the example engine broken in the way `mode` says.
fn zoo(mode: &str) -> String {
    let zoo = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/engines/zoo.py");
    format!("engine:cmd=python3 {zoo} {mode}")
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
    let d = tempfile::tempdir().unwrap();
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
    assert!(!err.contains("stderr"), "it never ran: {err}");
    let silent = format!("{},timeout=1s", zoo("silent"));
    let err = failure(&["match", &silent, "random", "--games", "2"]);
    assert!(err.contains("no handshake (yolahok) within 1.0 s"), "{err}");
    // Programs that are not engines: what they print on stdout is quoted.
    // `echo` may be gone before "yolah" can be written to it, or not:
    // either way its line is quoted (tried a few times, as the race goes).
    for _ in 0..10 {
        let err = failure(&["match", "engine:cmd=echo usage: bot FILE", "random"]);
        assert!(
            err.contains(r#"before its handshake (its last line on stdout: "usage: bot FILE")"#),
            "{err}"
        );
    }
    let err = failure(&["match", "engine:cmd=cat,timeout=1s", "random"]);
    assert!(
        err.contains(r#"within 1.0 s (its last line on stdout: "yolah")"#),
        "{err}"
    );
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

/// Waits until `done()` holds, failing after `limit`.
fn wait_for(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < deadline, "waited {limit:?} for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_tournament_file_in_use_is_refused_and_freed_when_its_run_dies() {
    let d = tempfile::tempdir().unwrap();
    let out = path(&d, "t.jsonl");
    // The gated engine answers no move until the gate file exists, so the
    // first run holds the file for as long as this test needs it.
    let gate = path(&d, "gate");
    let gated = zoo(&format!("gate {gate}"));
    let args = [
        "tournament",
        "--players",
        &gated,
        "random",
        "--games-per-pair",
        "2",
        "--out",
        &out,
    ];
    // In a process group of its own, so that the kill below reaches a
    // child it may be forking at that moment (a fork holds a copy of the
    // locked file until it runs its program).
    let mut first = Command::new(env!("CARGO_BIN_EXE_yolah"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    // It has locked the file once the header is there.
    wait_for("the first run's header", Duration::from_secs(30), || {
        std::fs::read_to_string(&out).is_ok_and(|t| t.ends_with('\n'))
    });
    let err = failure(&args);
    assert!(
        err.contains(&format!("{out} is in use")) && err.contains("another run"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 1);
    // Killed, the first run's lock goes with it (once a child forked at
    // that moment has gone too, which on a loaded machine can take a
    // moment: CI once saw the file still locked): the next run resumes.
    // SAFETY: a plain system call; the group is the first run's own.
    unsafe { libc::kill(-(first.id() as libc::pid_t), libc::SIGKILL) };
    first.wait().unwrap();
    wait_for("the dead run's lock to go", Duration::from_secs(30), || {
        let file = std::fs::OpenOptions::new().append(true).open(&out).unwrap();
        file.try_lock().is_ok()
    });
    std::fs::write(&gate, "").unwrap();
    let table = ok(&args);
    assert!(table.contains("2 games;"), "{table}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        text.lines().count(),
        3,
        "a header and two games, once each:\n{text}"
    );
    // Ended normally, a run leaves the file free too.
    ok(&args);
}
