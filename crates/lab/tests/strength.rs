//! Strength checks: slow, so ignored by `cargo test`. Run them with
//! `cargo test --release --test strength -- --ignored`.
//!
//! Count budgets keep them deterministic whatever the machine's load; the
//! timed 100 ms matches of the README are the `yolah match` commands there.

use yolah_lab::games::{run_match, Match, MatchSummary};

fn score(a: &str, b: &str, games: u64) -> MatchSummary {
    let results = run_match(&Match::new(a, b, games, 7), 2, &|_| {}).expect("valid specs");
    MatchSummary::from_points(&results.iter().map(|g| g.a_points).collect::<Vec<_>>())
}

#[test]
#[ignore = "slow: cargo test --release --test strength -- --ignored"]
fn mcts_crushes_random() {
    let s = score("mcts:iterations=20000", "random", 40);
    assert!(s.a_points >= 39.5, "{s:?}");
}

#[test]
#[ignore = "slow: cargo test --release --test strength -- --ignored"]
fn mcts_beats_flat_monte_carlo() {
    let s = score("mcts:iterations=20000", "mc:playouts=20000", 40);
    assert!(s.a_points >= 26.0, "{s:?}");
}

#[test]
#[ignore = "slow: cargo test --release --test strength -- --ignored"]
fn alphabeta_beats_flat_monte_carlo() {
    let s = score("alphabeta:depth=5", "mc:playouts=20000", 40);
    assert!(s.a_points >= 30.0, "{s:?}");
}
