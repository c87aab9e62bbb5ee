//! `yolah match --sprt` stops as soon as the test decides.

use std::process::Command;

#[test]
fn a_lopsided_match_stops_early() {
    let out = Command::new(env!("CARGO_BIN_EXE_yolah"))
        .args([
            "match",
            "alphabeta:depth=2",
            "random",
            "--games",
            "400",
            "--sprt",
            "elo0=0,elo1=50",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["sprt"]["result"], "H1");
    assert!(v["games"].as_u64().unwrap() < 400, "{v}");
    let bad = Command::new(env!("CARGO_BIN_EXE_yolah"))
        .args(["match", "random", "random", "--sprt", "elo0=10,elo1=0"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--sprt: elo1 must be above elo0"));
}
