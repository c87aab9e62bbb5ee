//! The `yolah` command as a user runs it: results, JSON shapes, and clear
//! one-line errors with a non-zero exit for bad input.

mod common;

use common::{fails_with, yolah, RANDOM_GAMES_COUNTS};
use std::process::Output;

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", stderr(out));
    serde_json::from_str(stdout(out).trim()).expect("exactly one JSON object")
}

/// Writes `contents` to `name` in `dir`, a test's own directory (removed
/// with it), and returns its path.
fn temp_file(dir: &tempfile::TempDir, name: &str, contents: &str) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, contents).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn perft_json() {
    let v = json(&yolah(&["perft", "4", "--json"]));
    assert_eq!(v["depth"], 4);
    assert_eq!(v["nodes"], 8_655_628);
    assert!(v["seconds"].is_number() && v["nodes_per_second"].is_number());
    let v = json(&yolah(&["perft", "3", "--threads", "2", "--json"]));
    assert_eq!(v["nodes"], 164_512);
}

#[test]
fn perft_divide_and_starts() {
    let out = yolah(&["perft", "2", "--divide"]);
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 57, "{text}");
    assert!(text.contains("perft 2: 2988 nodes"));
    let v = json(&yolah(&["perft", "1", "--moves", "d5:b7", "--json"]));
    let mut pos = yolah::Position::START;
    pos.play("d5:b7".parse().unwrap());
    assert_eq!(v["nodes"], u64::from(pos.legal_move_count()));
}

#[test]
fn random_games_json_is_thread_independent() {
    let one = json(&yolah(&[
        "random-games",
        "--games",
        "3000",
        "--seed",
        "5",
        "--json",
    ]));
    let two = json(&yolah(&[
        "random-games",
        "--games",
        "3000",
        "--seed",
        "5",
        "--threads",
        "2",
        "--json",
    ]));
    for key in RANDOM_GAMES_COUNTS {
        assert_eq!(one[key], two[key], "{key}");
    }
    assert_eq!(two["threads"], 2);
    let sum = one["black_wins"].as_u64().unwrap()
        + one["white_wins"].as_u64().unwrap()
        + one["draws"].as_u64().unwrap();
    assert_eq!(sum, 3000);
    assert!(one["games_per_second"].is_number());
}

#[test]
fn replay_text_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let text = temp_file(&dir, "game.txt", "d5:b7 e5:c7 # two moves\n");
    let v = json(&yolah(&["replay", &text, "--json"]));
    assert_eq!(v["plies"], 2);
    assert_eq!(v["black_score"], 1);
    assert_eq!(v["game_over"], false);
    assert!(v["winner"].is_null());
    let record = temp_file(&dir, "game.json", r#"{"moves": ["d5:b7"], "black": "a"}"#);
    let v = json(&yolah(&["replay", &record, "--json"]));
    assert_eq!(v["position"], "w6b/1b6/8/3xw3/3wb3/8/8/b6w w 1 0 1");
}

#[test]
fn bad_input_is_explained() {
    let dir = tempfile::tempdir().unwrap();
    fails_with(&["perft", "x"], "invalid value");
    fails_with(&["perft", "3", "--moves", "d5:b7 a1:a1"], "ply 2");
    fails_with(&["perft", "3", "--moves", "d5:z9"], "not a square");
    fails_with(&["perft", "3", "--position", "w6b/8 b 0 0 0"], "ranks");
    fails_with(&["perft", "3", "--position", "nonsense"], "5 fields");
    fails_with(&["random-games", "--games", "-3"], "");
    fails_with(&["random-games", "--games", "lots"], "invalid value");
    fails_with(&["replay", "/no/such/file"], "cannot read /no/such/file");
    let bad = temp_file(&dir, "bad.txt", "d5:b7\ne5:c7\nb7:b7\n");
    fails_with(&["replay", &bad], "bad.txt:3: ply 3, move \"b7:b7\"");
    let illegal = temp_file(&dir, "illegal.txt", "d5:b7 a1:a1");
    fails_with(
        &["replay", &illegal],
        "illegal.txt:1: ply 2, move \"a1:a1\": illegal: white may not pass while it has moves",
    );
    let wrong_piece = temp_file(&dir, "wrong.txt", "h1:h2");
    fails_with(&["replay", &wrong_piece], "does not hold a black piece");
    let json = temp_file(&dir, "bad.json", r#"{"moves": "d5:b7"}"#);
    fails_with(&["replay", &json], "not a game record");
    let empty = temp_file(&dir, "empty.txt", "  \n");
    fails_with(&["replay", &empty], "is empty");
    let start = temp_file(&dir, "start.json", r#"{"start": "bad", "moves": []}"#);
    fails_with(&["replay", &start], "start: bad position");
}

#[test]
fn files_are_read_with_a_size_limit() {
    let dir = tempfile::tempdir().unwrap();
    // Endless or huge files fail at once with one line, whatever reads them.
    fails_with(&["replay", "/dev/zero"], "/dev/zero is larger than 1 MiB");
    let huge = temp_file(&dir, "huge.txt", &"d5:b7 ".repeat(200_000));
    fails_with(&["replay", &huge], "is larger than 1 MiB");
    fails_with(
        &["analyse", "--player", "alphabeta:depth=1,weights=/dev/zero"],
        "/dev/zero is larger than 64 KiB",
    );
    fails_with(
        &["analyse", "--player", "nn:depth=1,net=/dev/zero"],
        "network file has more than",
    );
    fails_with(
        &["train", "--data", "/dev/zero", "--out", "/dev/null"],
        "/dev/zero is not a training file",
    );
    fails_with(
        &[
            "tournament",
            "--players",
            "random",
            "mc",
            "--games-per-pair",
            "1",
            "--out",
            "/dev/zero",
        ],
        "/dev/zero:1: line longer than 65536 bytes",
    );
}

#[test]
fn a_cause_is_said_once() {
    let dir = tempfile::tempdir().unwrap();
    // Wrapping errors (a spec around a network around a file) carry their
    // cause in their message and do not return it again as a source.
    let once = |args: &[&str], needle: &str| {
        let out = yolah(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} should fail");
        assert_eq!(err.matches(needle).count(), 1, "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    };
    once(
        &["analyse", "--player", "nn:net=/no/such.bin"],
        "cannot read /no/such.bin",
    );
    let cut = temp_file(&dir, "cut.bin", "YOLAHNN4abcd");
    once(
        &["analyse", "--player", &format!("nn:net={cut}")],
        "network file has 12 bytes, fewer than the 24 of a network's header",
    );
    let text = temp_file(&dir, "text.bin", "hello, this is not a network at all");
    once(
        &["analyse", "--player", &format!("nn:net={text}")],
        "not a yolah network",
    );
}

#[test]
fn negative_numbers_reach_the_range_checks() {
    // `-1` is a value, not an unknown flag: the check says what the range is.
    fails_with(
        &["train", "--data", "x", "--out", "y", "--leak", "-1"],
        "--leak -1 must lie between 0 and 1",
    );
    fails_with(
        &["train", "--data", "x", "--out", "y", "--lambda", "-0.5"],
        "--lambda -0.5 must lie between 0 and 1",
    );
    fails_with(
        &[
            "train",
            "--data",
            "x",
            "--out",
            "y",
            "--learning-rate",
            "-1",
        ],
        "--learning-rate -1 must lie between 0 and 1",
    );
    fails_with(
        &["serve", "--messages-per-second", "-2"],
        "\"-2\" is not a number of at least 1",
    );
    // Counts take no negative numbers at all: said so by their own value
    // parser, not "unexpected argument" with a tip to write `-- -1`.
    for (args, said) in [
        (
            &["match", "random", "random", "--games", "-1"][..],
            "invalid value '-1' for '--games <GAMES>': it cannot be negative",
        ),
        (
            &["perft", "-3"][..],
            "invalid value '-3' for '<DEPTH>': it cannot be negative",
        ),
        (
            &["random-games", "--seed", "-2.5"][..],
            "invalid value '-2.5' for '--seed <SEED>': it cannot be negative",
        ),
        (
            &["match", "random", "random", "--games=-1"][..],
            "invalid value '-1' for '--games <GAMES>': it cannot be negative",
        ),
        (
            &["match", "random", "random", "--games", "0"][..],
            "invalid value '0' for '--games <GAMES>': 0 is not in 1..=10000000",
        ),
        // What is not a number says why.
        (
            &["match", "random", "random", "--games=-x"][..],
            "invalid value '-x' for '--games <GAMES>': it is not a whole number",
        ),
    ] {
        let out = yolah(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.contains(said) && !err.contains("tip"),
            "{args:?}: {err}"
        );
    }
    // `-0` is zero.
    let out = yolah(&["perft", "-0"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // A negative value that an option allows is not blamed for another
    // argument's fault.
    let out = yolah(&["train", "--lambda", "-0.5", "--bogus"]);
    let err = stderr(&out);
    assert!(err.contains("unexpected argument '--bogus'"), "{err}");
    // Nor for the count after it, which is the one said.
    let out = yolah(&[
        "train", "--data", "x", "--out", "y", "--leak", "-1", "--seed", "-1",
    ]);
    let err = stderr(&out);
    assert!(
        err.contains("invalid value '-1' for '--seed <SEED>': it cannot be negative"),
        "{err}"
    );
    // A file name keeps clap's message, whose tip is right there.
    let out = yolah(&["merge", "-1"]);
    assert!(stderr(&out).contains("tip"), "{}", stderr(&out));
}

#[test]
fn analyse_says_what_unit_its_score_is_in() {
    let unit = |spec: &str| {
        let v = json(&yolah(&["analyse", "--player", spec, "--json"]));
        (
            v["score_unit"].as_str().unwrap().to_string(),
            v["score"].clone(),
        )
    };
    let (u, s) = unit("alphabeta:depth=2");
    assert_eq!(u, "centipoints");
    assert!(s.is_i64() || s.is_f64());
    let (u, s) = unit("mcts:iterations=500");
    assert_eq!(u, "win_rate");
    assert!((0.0..=1.0).contains(&s.as_f64().unwrap()));
    let (u, s) = unit("random");
    assert_eq!(u, "none");
    assert!(s.is_null());
}

#[test]
fn selfplay_refuses_a_player_without_a_score() {
    fails_with(
        &[
            "selfplay",
            "--player",
            "random",
            "--games",
            "1",
            "--out",
            "/dev/null",
        ],
        "\"random\" gives no score to learn from",
    );
}

#[test]
fn serve_shows_every_bound_and_refuses_bad_ones() {
    let out = yolah(&["serve", "--help"]);
    let help = stdout(&out);
    for flag in [
        "--db",
        "--allow-origin",
        "--max-games",
        "--max-games-per-addr",
        "--max-connections",
        "--max-connections-per-addr",
        "--max-watchers",
        "--search-threads",
        "--retention",
        "--idle-timeout",
        "--header-timeout",
        "--send-queue",
        "--max-message-bytes",
        "--max-write-buffer",
        "--messages-per-second",
        "--message-burst",
    ] {
        assert!(help.contains(flag), "{flag} missing from serve --help");
    }
    fails_with(&["serve", "--retention", "5"], "not a duration");
    fails_with(&["serve", "--max-games", "0"], "invalid value");
    fails_with(&["serve", "--players", "chess"], "unknown player");
    fails_with(
        &["play", "--black", "random", "--white", "chess"],
        "--white: \"chess\": unknown player",
    );
    fails_with(
        &["serve", "--port", "0", "--db", "/no/such/dir/games.db"],
        "database: cannot open /no/such/dir/games.db",
    );
    // A port in use is refused before the database is made: no file is
    // left behind for a server that never ran.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.db");
    let db = db.to_str().unwrap();
    fails_with(
        &["serve", "--addr", "127.0.0.1", "--port", &port, "--db", db],
        &format!("cannot listen on 127.0.0.1:{port}"),
    );
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn solve_gives_the_exact_result_and_a_line_to_it() {
    // Black to move, 20-20, loses by 5 with best play (plain alpha-beta
    // agrees; see `yolah solve --bench`).
    let pos = "xbx1xx1x/wxxxx2w/xx1x2x1/2xxxxxx/xbxxx1xx/xxx1xxx1/bxxbx2x/xwxx1wxx b 20 20 40";
    let v = json(&yolah(&["solve", "--position", pos, "--json"]));
    assert_eq!(v["result"], "loss");
    assert_eq!(v["margin"], -5);
    let pv: Vec<&str> = v["pv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert_eq!(v["best_move"], pv[0]);
    assert!(v["nodes"].as_u64().unwrap() > 0 && v["seconds"].is_number());
    // The line is legal and ends the game with that margin.
    let mut end: yolah::Position = pos.parse().unwrap();
    for m in &pv {
        end.try_play(m.parse().unwrap()).unwrap();
    }
    assert!(end.is_game_over());
    assert_eq!(end.margin(yolah::Color::Black), -5);
    let text = stdout(&yolah(&["solve", "--position", pos]));
    assert!(text.contains("black to move: loss by 5"), "{text}");
}

#[test]
fn solve_refuses_finished_and_bad_positions_and_gives_up_on_time() {
    let over = "xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/bbbbwwww b 28 28 56";
    fails_with(&["solve", "--position", over], "the game is over");
    fails_with(&["solve", "--position", "nonsense"], "error");
    fails_with(&["solve", "--moves", "d5:d5"], "d5:d5");
    fails_with(&["solve", "--time", "50ms"], "not solved within");
    fails_with(&["solve", "--bench", "0"], "0");
    fails_with(
        &["solve", "--bench", "2", "--min-plies", "110"],
        "only 0 of 2 endgames",
    );
}

#[test]
fn solve_bench_checks_the_solver_against_plain_alpha_beta() {
    let args = [
        "solve",
        "--bench",
        "3",
        "--min-plies",
        "12",
        "--plain-nodes",
        "200000",
    ];
    let v = json(&yolah(&[&args[..], &["--json"]].concat()));
    assert_eq!(v["positions"], 3);
    assert_eq!(v["agree"], 3);
    assert!(v["solver_nodes"].as_u64().unwrap() < v["plain_nodes"].as_u64().unwrap());
    let endgames = v["endgames"].as_array().unwrap();
    assert!(endgames
        .iter()
        .all(|e| e["plies_left"].as_u64().unwrap() >= 12));
    // The set does not depend on the number of threads.
    let two = json(&yolah(&[&args[..], &["--json", "--threads", "2"]].concat()));
    assert_eq!(two["endgames"], v["endgames"]);
}

/// A reader that stops early (`yolah play … | head -1`) ends the program
/// quietly and successfully, even when stderr is the same closed pipe.
#[test]
fn a_closed_pipe_is_not_an_error() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    for stderr_too in [false, true] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_yolah"));
        cmd.args(["play", "--black", "random", "--white", "random"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped());
        let mut child = if stderr_too {
            // stderr into the same pipe, as `2>&1 | head` does.
            let (reader, writer) = std::io::pipe().unwrap();
            cmd.stderr(writer.try_clone().unwrap()).stdout(writer);
            let child = cmd.spawn().unwrap();
            drop(cmd);
            let mut first = String::new();
            BufReader::new(reader).read_line(&mut first).unwrap();
            child
        } else {
            cmd.stderr(Stdio::piped());
            let mut child = cmd.spawn().unwrap();
            let mut first = String::new();
            BufReader::new(child.stdout.take().unwrap())
                .read_line(&mut first)
                .unwrap();
            child
        };
        let status = child.wait().unwrap();
        assert!(status.success(), "stderr too: {stderr_too}: {status}");
        if let Some(mut err) = child.stderr.take() {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut err, &mut text).unwrap();
            assert_eq!(text, "", "nothing said on stderr");
        }
    }
}
