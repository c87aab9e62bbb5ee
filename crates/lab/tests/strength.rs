//! Strength checks with count budgets, so that the games are the same
//! whatever the machine's load.
//!
//! The smoke tests (searchers against `random`) run with every `cargo test`
//! (about 2 s: the dev profile optimises the engine and the players). The
//! longer matches are ignored; run them with
//! `cargo test --release -p yolah-lab --test strength -- --ignored`. The
//! timed 100 ms matches of the README are the `yolah match` commands there.

use yolah_lab::games::{run_match, Match, MatchSummary};

fn score(a: &str, b: &str, games: u64) -> MatchSummary {
    let results = run_match(&Match::new(a, b, games, 7), 2, &|_| {}).expect("valid specs");
    MatchSummary::from_points(&results.iter().map(|g| g.a_points).collect::<Vec<_>>())
}

/// Why 90 points of 100 cannot be a fluke either way. A player no
/// stronger than `random` scores 0.5 a game on average, and by Hoeffding's
/// bound (points are between 0 and 1, draws included) reaches 90 of 100
/// with probability at most exp(−2 × 100 × 0.4²) = e⁻³² ≈ 10⁻¹⁴. A player
/// that fails to win one game in a hundred falls below 90 only with 11 or
/// more such games in 100: a probability below 10⁻⁸. The tested players
/// fail less often than that: in
/// `yolah match SPEC random --games 1000 --seed 12345`, alphabeta:depth=2
/// won all 1,000 games and mcts:iterations=200 won 993 (3 draws, 4 losses).
const SMOKE_GAMES: u64 = 100;
const SMOKE_POINTS: f64 = 90.0;

fn crushes_random(spec: &str) {
    let s = score(spec, "random", SMOKE_GAMES);
    assert!(s.a_points >= SMOKE_POINTS, "{spec} against random: {s:?}");
}

#[test]
fn alphabeta_crushes_random() {
    crushes_random("alphabeta:depth=2");
}

#[test]
fn mcts_crushes_random() {
    crushes_random("mcts:iterations=200");
}

#[test]
#[ignore = "slow: cargo test --release -p yolah-lab --test strength -- --ignored"]
fn mcts_beats_flat_monte_carlo() {
    let s = score("mcts:iterations=20000", "mc:playouts=20000", 40);
    assert!(s.a_points >= 26.0, "{s:?}");
}

#[test]
#[ignore = "slow: cargo test --release -p yolah-lab --test strength -- --ignored"]
fn alphabeta_beats_flat_monte_carlo() {
    let s = score("alphabeta:depth=5", "mc:playouts=20000", 40);
    assert!(s.a_points >= 30.0, "{s:?}");
}
