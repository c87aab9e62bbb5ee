//! The learning pipeline as a user runs it: self-play writes positions,
//! training writes a network, the `nn` player (and `mcts:eval=nn`) load it,
//! and every bad file is refused with a clear message.

mod common;

use common::{fails_with, ok, path};

/// A fresh directory for one test's files, removed when it drops.
fn work_dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

#[test]
fn selfplay_then_train_then_play_with_the_new_net() {
    let dir = work_dir();
    let (data, net) = (path(&dir, "sp.bin"), path(&dir, "net.bin"));
    let said = ok(&[
        "selfplay",
        "--player",
        "alphabeta:depth=1",
        "--games",
        "6",
        "--seed",
        "3",
        "--threads",
        "2",
        "--out",
        &data,
    ]);
    assert!(said.contains("from 6 games"), "{said}");
    // Records are 32 bytes after an 8-byte header.
    let bytes = std::fs::read(&data).unwrap();
    assert!(bytes.len() > 8 && (bytes.len() - 8) % 32 == 0);

    // The endgames get the solver's result, the rest a depth-2 search.
    let labelled = path(&dir, "labelled");
    let said = ok(&[
        "label",
        "--data",
        &data,
        "--out-dir",
        &labelled,
        "--exact-free",
        "14",
        "--player",
        "alphabeta:depth=2",
        "--threads",
        "2",
    ]);
    assert!(
        said.contains("1 files labelled") && said.contains("solved"),
        "{said}"
    );
    let data = path(&dir, "labelled/sp.bin");
    assert_eq!(std::fs::metadata(&data).unwrap().len(), bytes.len() as u64);
    let again = ok(&[
        "label",
        "--data",
        &path(&dir, "sp.bin"),
        "--out-dir",
        &labelled,
        "--exact-free",
        "14",
        "--player",
        "alphabeta:depth=2",
    ]);
    assert!(again.contains("1 files labelled"), "{again}");

    let said = ok(&[
        "train", "--data", &data, "--out", &net, "--epochs", "2", "--seed", "1", "--width", "128",
    ]);
    assert!(
        said.contains("epoch   2") && said.contains("validation loss"),
        "{said}"
    );
    // A 128-wide network of the second format: header, then
    // (192 + 1) × 128 + (2 × 128 + 6) × 16 + 16 + 16 + 1 floats.
    let size = std::fs::metadata(&net).unwrap().len();
    assert_eq!(size, 24 + 4 * (193 * 128 + 262 * 16 + 33));
    assert_eq!(&std::fs::read(&net).unwrap()[..8], b"YOLAHNN2");

    let spec = format!("nn:depth=2,net={net}");
    let said = ok(&["analyse", "--player", &spec]);
    assert!(said.contains("best"), "{said}");
    let spec = format!("mcts:iterations=300,eval=nn,net={net}");
    ok(&["analyse", "--player", &spec]);

    // Squared outputs with buckets: a YOLAHNN5 network that plays.
    let squared = path(&dir, "squared.bin");
    let said = ok(&[
        "train",
        "--data",
        &data,
        "--out",
        &squared,
        "--epochs",
        "1",
        "--width",
        "128",
        "--buckets",
        "4",
        "--activation",
        "squared",
        "--leak",
        "0.01",
    ]);
    assert!(said.contains("of 128 neurons dead"), "{said}");
    assert_eq!(&std::fs::read(&squared).unwrap()[..8], b"YOLAHNN5");
    let said = ok(&["analyse", "--player", &format!("nn:depth=2,net={squared}")]);
    assert!(said.contains("best"), "{said}");

    // A layer on the maps: a YOLAHNN6 network that plays; not with buckets.
    let maps = path(&dir, "maps.bin");
    let args = [
        "train", "--data", &data, "--out", &maps, "--epochs", "1", "--width", "128",
    ];
    ok(&[&args[..], &["--maps"]].concat());
    assert_eq!(&std::fs::read(&maps).unwrap()[..8], b"YOLAHNN6");
    let said = ok(&["analyse", "--player", &format!("nn:depth=2,net={maps}")]);
    assert!(said.contains("best"), "{said}");
    fails_with(
        &[&args[..], &["--maps", "--buckets", "4"]].concat(),
        "clipped outputs: not with --buckets 4",
    );

    // Both networks measured on the labelled positions: a header, a line
    // each; as JSON, an object each, with the same figures.
    let said = ok(&["validate", "--net", &net, &squared, "--data", &data]);
    let lines: Vec<&str> = said.lines().collect();
    assert_eq!(lines.len(), 4, "{said}");
    assert!(lines[0].starts_with("mean squared error") && lines[0].contains("lambda 0.3"));
    assert!(
        lines[2].starts_with(&net) && lines[3].starts_with(&squared),
        "{said}"
    );
    let said = ok(&[
        "validate",
        "--net",
        &net,
        "--data",
        &data,
        "--json",
        "--threads",
        "2",
    ]);
    let all: serde_json::Value = serde_json::from_str(said.trim()).unwrap();
    assert!(all["positions"].as_u64().unwrap() > 100 && all["lambda"] == 0.3);
    let v = &all["nets"][0];
    assert_eq!(
        (&v["net"], &v["width"]),
        (&serde_json::json!(net), &serde_json::json!(128))
    );
    let float = v["loss_float"].as_f64().unwrap();
    let quantised = v["loss_quantised"].as_f64().unwrap();
    assert!(float > 0.0 && (float - quantised).abs() < 0.01, "{said}");
    assert!(lines[2].contains(&format!("{float:.5}")), "{said}");
}

#[test]
fn bad_files_are_refused_with_a_reason() {
    let dir = work_dir();
    let junk = path(&dir, "junk.bin");
    std::fs::write(&junk, b"not a network at all").unwrap();
    let gen2 = concat!(env!("CARGO_MANIFEST_DIR"), "/../players/nets/gen2.bin");
    let default = concat!(env!("CARGO_MANIFEST_DIR"), "/../players/nets/default.bin");
    fails_with(
        &["validate", "--net", gen2, "--data", &junk],
        "first format (YOLAHNN1)",
    );
    fails_with(
        &["validate", "--net", &junk, "--data", &junk],
        "not a yolah network (it must start with YOLAHNN2 to YOLAHNN6)",
    );
    fails_with(
        &["validate", "--net", default, "--data", &junk],
        "not a training file",
    );
    let empty = path(&dir, "empty.bin");
    std::fs::write(&empty, b"YOLAHPOS").unwrap();
    let no_position = ["validate", "--net", default, "--data", &empty];
    fails_with(&no_position, "no position of a game still going");
    let lambda = [
        "validate", "--net", default, "--data", &junk, "--lambda", "2",
    ];
    fails_with(&lambda, "--lambda 2 must lie between 0 and 1");
    fails_with(&["analyse", "--player", &format!("nn:net={junk}")], &junk);
    fails_with(
        &["analyse", "--player", "nn:net=/no/such/net.bin"],
        "/no/such/net.bin",
    );
    fails_with(
        &["train", "--data", &junk, "--out", &path(&dir, "x.bin")],
        &junk,
    );
    fails_with(
        &[
            "train",
            "--data",
            "/no/such/data.bin",
            "--out",
            &path(&dir, "x.bin"),
        ],
        "/no/such/data.bin",
    );
    fails_with(
        &[
            "selfplay", "--player", "nope", "--games", "1", "--out", &junk,
        ],
        "nope",
    );
    fails_with(&["analyse", "--player", "mcts:eval=magic"], "eval=magic");
    fails_with(
        &[
            "train",
            "--data",
            &junk,
            "--out",
            &path(&dir, "x.bin"),
            "--width",
            "24",
        ],
        "--width 24",
    );
    for (flag, value, says) in [
        ("--leak", "2", "--leak 2 must lie between 0 and 1"),
        (
            "--first-layer-rate",
            "0",
            "--first-layer-rate 0 must be above 0 and at most 1",
        ),
        ("--activation", "relu", "possible values: clipped, squared"),
    ] {
        let out = path(&dir, "x.bin");
        fails_with(
            &["train", "--data", &junk, "--out", &out, flag, value],
            says,
        );
    }
    fails_with(
        &["label", "--data", &junk, "--out-dir", &path(&dir, "out")],
        &junk,
    );
    fails_with(
        &[
            "label",
            "--data",
            &junk,
            "--out-dir",
            &dir.path().to_string_lossy(),
        ],
        "into itself",
    );
}

/// Outputs are checked before any work: none may replace an input (however
/// its path is spelled), and one that cannot be written is said at once,
/// not after hours of training or labelling.
#[test]
fn outputs_that_would_replace_inputs_or_cannot_be_written_are_refused_first() {
    let dir = work_dir();
    let data = path(&dir, "d.bin");
    ok(&[
        "selfplay",
        "--player",
        "alphabeta:depth=1",
        "--games",
        "2",
        "--out",
        &data,
    ]);
    let before = std::fs::read(&data).unwrap();
    let dot = path(dir.path().join("."), "d.bin");
    let here = dir.path().to_string_lossy().into_owned();
    fails_with(
        &["label", "--data", &data, "--out-dir", &here],
        "into itself",
    );
    // Labelled into a directory where another input of that name lies.
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let other = path(&sub, "d.bin");
    std::fs::copy(&data, &other).unwrap();
    let sub = sub.to_string_lossy().into_owned();
    fails_with(
        &["label", "--data", &data, &other, "--out-dir", &sub],
        "which is the input",
    );
    fails_with(
        &["train", "--data", &data, "--out", &dot],
        "would replace it",
    );
    fails_with(&["merge", "--out", &dot, &data], "would replace it");
    assert_eq!(
        std::fs::read(&data).unwrap(),
        before,
        "the input is untouched"
    );
    let nowhere = path(dir.path().join("no/such/dir"), "x.bin");
    fails_with(
        &["train", "--data", &data, "--out", &nowhere],
        "cannot be written",
    );
    fails_with(
        &[
            "tune",
            "--out",
            &nowhere,
            "--generations",
            "1",
            "--population",
            "2",
        ],
        "cannot be written",
    );
    // A player without scores cannot label, as it cannot play self-play.
    let labelled = path(&dir, "l");
    fails_with(
        &[
            "label",
            "--data",
            &data,
            "--out-dir",
            &labelled,
            "--player",
            "random",
        ],
        "gives no score to learn from",
    );
}
