//! `--shard K/N` and `yolah merge`: a run cut into shards, each played on
//! its own, merges into exactly what one run gives.

mod common;

use common::{fails_with, json_ok, ok, path, yolah, RANDOM_GAMES_COUNTS};

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text.trim()).expect("one JSON object")
}

#[test]
fn random_games_shards_add_up_to_the_whole_run() {
    let d = tempfile::tempdir().unwrap();
    let whole = json_ok(&["random-games", "--games", "5000", "--seed", "3", "--json"]);
    let mut files = Vec::new();
    for k in 1..=3 {
        let shard = format!("{k}/3");
        let out = ok(&[
            "random-games",
            "--games",
            "5000",
            "--seed",
            "3",
            "--shard",
            &shard,
            "--json",
        ]);
        let v = json(&out);
        assert_eq!(v["shard"], shard.as_str());
        assert_eq!(v["total_games"], 5000);
        let f = path(&d, &format!("r{k}.json"));
        std::fs::write(&f, out).unwrap();
        files.push(f);
    }
    // Any order.
    files.reverse();
    let mut args = vec!["merge", "--json"];
    args.extend(files.iter().map(String::as_str));
    let merged = json_ok(&args);
    for key in RANDOM_GAMES_COUNTS {
        assert_eq!(merged[key], whole[key], "{key}");
    }
    assert_eq!(merged["shards"], 3);
    files.reverse();
    let text = ok(&["merge", &files[0], &files[1], &files[2]]);
    assert!(
        text.starts_with("5000 random games (seed 3, merged from 3 shards)"),
        "{text}"
    );

    fails_with(&["merge", &files[0], &files[2]], "missing shard(s) 2/3");
    fails_with(
        &["merge", &files[0], &files[0], &files[1], &files[2]],
        "there twice",
    );
    let other = path(&d, "other.json");
    std::fs::write(
        &other,
        ok(&[
            "random-games",
            "--games",
            "5000",
            "--seed",
            "4",
            "--shard",
            "2/3",
            "--json",
        ]),
    )
    .unwrap();
    fails_with(&["merge", &files[0], &other, &files[2]], "another run");
    fails_with(&["random-games", "--shard", "4/3"], "not a shard");
    fails_with(&["random-games", "--shard", "0/3"], "K/N");
    fails_with(&["merge", "--out", "x", &files[0]], "no --out");
}

#[test]
fn selfplay_shards_merge_into_the_bytes_of_one_run() {
    let d = tempfile::tempdir().unwrap();
    let whole = path(&d, "whole.bin");
    let common = [
        "selfplay",
        "--player",
        "alphabeta:depth=1",
        "--games",
        "7",
        "--seed",
        "2",
    ];
    let mut args = common.to_vec();
    args.extend(["--out", &whole]);
    ok(&args);
    let shards: Vec<String> = (1..=3).map(|k| path(&d, &format!("s{k}.bin"))).collect();
    for (k, out) in shards.iter().enumerate() {
        let shard = format!("{}/3", k + 1);
        let mut args = common.to_vec();
        args.extend(["--shard", &shard, "--out", out, "--threads", "2"]);
        let text = ok(&args);
        assert!(text.contains("written to"), "{text}");
        // Again: the shard is done and is not played twice.
        let text = ok(&args);
        assert!(text.contains("already in"), "{text}");
    }
    let merged = path(&d, "merged.bin");
    let text = ok(&[
        "merge", "--out", &merged, &shards[2], &shards[0], &shards[1],
    ]);
    assert!(text.contains("from 7 games of alphabeta:depth=1"), "{text}");
    assert_eq!(
        std::fs::read(&merged).unwrap(),
        std::fs::read(&whole).unwrap()
    );

    fails_with(
        &["merge", "--out", &merged, &shards[0], &shards[2]],
        "missing shard(s) 2/3",
    );
    fails_with(&["merge", &shards[0]], "needs --out");
    fails_with(&["merge", "--out", &merged, &whole], "shard.json");
    // A shard file changed in place (same size) no longer matches its
    // manifest's checksum.
    let mut bytes = std::fs::read(&shards[0]).unwrap();
    let original = bytes.clone();
    bytes[8 + 28] ^= 1;
    std::fs::write(&shards[0], &bytes).unwrap();
    fails_with(
        &[
            "merge", "--out", &merged, &shards[0], &shards[1], &shards[2],
        ],
        "not the file the manifest was written for",
    );
    std::fs::write(&shards[0], original).unwrap();
    // A shard file cut short no longer matches its manifest.
    let bytes = std::fs::read(&shards[1]).unwrap();
    std::fs::write(&shards[1], &bytes[..bytes.len() - 32]).unwrap();
    fails_with(
        &[
            "merge", "--out", &merged, &shards[0], &shards[1], &shards[2],
        ],
        "not the",
    );
}

#[test]
fn straying_selfplay_is_its_own_run_and_its_shards_merge_into_it() {
    let d = tempfile::tempdir().unwrap();
    let run = |out: &str, extra: &[&str]| {
        let mut args = vec![
            "selfplay",
            "--player",
            "alphabeta:depth=1",
            "--games",
            "6",
            "--seed",
            "5",
            "--out",
            out,
        ];
        args.extend(extra);
        ok(&args)
    };
    let (plain, whole) = (path(&d, "plain.bin"), path(&d, "whole.bin"));
    run(&plain, &[]);
    let text = run(&whole, &["--explore", "0.25"]);
    assert!(text.contains("straying with probability 0.25"), "{text}");
    assert_ne!(
        std::fs::read(&plain).unwrap(),
        std::fs::read(&whole).unwrap()
    );
    // `--explore 0` is the run without it, byte for byte.
    let zero = path(&d, "zero.bin");
    run(&zero, &["--explore", "0"]);
    assert_eq!(
        std::fs::read(&zero).unwrap(),
        std::fs::read(&plain).unwrap()
    );

    let shards: Vec<String> = (1..=2).map(|k| path(&d, &format!("s{k}.bin"))).collect();
    for (k, out) in shards.iter().enumerate() {
        let shard = format!("{}/2", k + 1);
        run(
            out,
            &["--explore", "0.25", "--shard", &shard, "--threads", "2"],
        );
        // The manifest says how the shard was played, and a shard of the
        // run without straying is not taken for it.
        let m = json(&std::fs::read_to_string(format!("{out}.shard.json")).unwrap());
        assert_eq!(m["explore"], 0.25);
        let again = run(out, &["--explore", "0.25", "--shard", &shard]);
        assert!(again.contains("already in"), "{again}");
        let other = run(out, &["--shard", &shard]);
        assert!(other.contains("written to"), "{other}");
        let m = json(&std::fs::read_to_string(format!("{out}.shard.json")).unwrap());
        assert!(m.get("explore").is_none(), "{m}");
        run(out, &["--explore", "0.25", "--shard", &shard]);
    }
    let merged = path(&d, "merged.bin");
    let text = ok(&["merge", "--out", &merged, &shards[1], &shards[0]]);
    assert!(text.contains("straying with probability 0.25"), "{text}");
    assert_eq!(
        std::fs::read(&merged).unwrap(),
        std::fs::read(&whole).unwrap()
    );
    // A shard of the same games without straying is another run.
    let plain_shard = path(&d, "p2.bin");
    run(&plain_shard, &["--shard", "2/2"]);
    fails_with(
        &["merge", "--out", &merged, &shards[0], &plain_shard],
        "6 games of alphabeta:depth=1 seeded 5, not 6 games of alphabeta:depth=1 seeded 5, \
         straying with probability 0.25",
    );
    fails_with(
        &[
            "selfplay",
            "--player",
            "random",
            "--games",
            "1",
            "--out",
            &plain,
            "--explore",
            "1.5",
        ],
        "1.5 is not a probability (from 0 to 1)",
    );
}

#[test]
fn tournament_shards_merge_into_the_table_of_one_run() {
    let d = tempfile::tempdir().unwrap();
    let players = ["random", "alphabeta:depth=1", "mc:playouts=30"];
    let run = |out: &str, extra: &[&str]| {
        let mut args = vec!["tournament", "--players"];
        args.extend(players);
        args.extend(["--games-per-pair", "4", "--seed", "7", "--out", out]);
        args.extend(extra);
        ok(&args)
    };
    let whole = path(&d, "whole.jsonl");
    let table = json(&run(&whole, &["--json"]));
    let shards: Vec<String> = (1..=2).map(|k| path(&d, &format!("t{k}.jsonl"))).collect();
    for (k, out) in shards.iter().enumerate() {
        let shard = format!("{}/2", k + 1);
        let v = json(&run(out, &["--shard", &shard, "--json"]));
        assert_eq!(v["games"], 6, "{v}");
    }
    let merged = path(&d, "merged.jsonl");
    let out = ok(&["merge", "--out", &merged, "--json", &shards[1], &shards[0]]);
    assert_eq!(json(&out), table);
    // The merged file is a whole tournament: running it plays nothing.
    assert_eq!(json(&run(&merged, &["--json"])), table);
    let lines = |p: &str| {
        let mut l: Vec<String> = std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        l.sort();
        l
    };
    assert_eq!(lines(&merged), lines(&whole));

    // One shard alone is an error (the merge is written all the same),
    // and with --partial a warning and the table of the games there are.
    let partial = path(&d, "partial.jsonl");
    fails_with(
        &["merge", "--out", &partial, &shards[0]],
        "6 of the tournament's 12 games",
    );
    let out = yolah(&["merge", "--out", &partial, "--partial", &shards[0]]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("6 of the tournament's 12 games"));
    // A header that is no tournament's is refused before anything is written.
    let bad = path(&d, "bad.jsonl");
    std::fs::write(
        &bad,
        "{\"type\":\"header\",\"players\":[\"random\"],\"games_per_pair\":2,\"seed\":0}\n",
    )
    .unwrap();
    let fresh = path(&d, "fresh.jsonl");
    fails_with(&["merge", "--out", &fresh, &bad], "2 to 1000 players");
    assert!(!std::path::Path::new(&fresh).exists());
    let other = path(&d, "other.jsonl");
    let mut args = vec!["tournament", "--players"];
    args.extend(players);
    args.extend([
        "--games-per-pair",
        "4",
        "--seed",
        "8",
        "--shard",
        "1/2",
        "--out",
        &other,
    ]);
    ok(&args);
    fails_with(
        &["merge", "--out", &partial, &other],
        "belongs to another tournament",
    );
    fails_with(
        &["merge", "--out", &partial, "/nonexistent/t.jsonl"],
        "/nonexistent/t.jsonl",
    );
}
