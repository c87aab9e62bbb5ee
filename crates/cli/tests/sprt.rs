//! `yolah match --sprt` stops as soon as the test decides.

mod common;

use common::{fails_with, json_ok};

#[test]
fn a_lopsided_match_stops_early() {
    let v = json_ok(&[
        "match",
        "alphabeta:depth=2",
        "random",
        "--games",
        "400",
        "--sprt",
        "elo0=0,elo1=50",
        "--json",
    ]);
    assert_eq!(v["sprt"]["result"], "H1");
    assert!(v["games"].as_u64().unwrap() < 400, "{v}");
    fails_with(
        &["match", "random", "random", "--sprt", "elo0=10,elo1=0"],
        "--sprt: elo1 must be above elo0",
    );
}
