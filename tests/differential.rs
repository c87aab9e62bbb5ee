//! Thousands of seeded random games checked ply by ply against the naive
//! reference rules, with the engine's invariants at every ply.

mod common;

use common::NaiveGame;
use yolah::perft::perft;
use yolah::{Color, Move, Position, Rng};

/// Plays one seeded game, checking everything at every ply.
fn check_game(seed: u64) {
    let mut rng = Rng::new(seed);
    let mut pos = Position::START;
    let mut naive = NaiveGame::new();
    let mut played: Vec<Move> = Vec::new();
    loop {
        assert!(naive.agrees_with(&pos), "seed {seed} ply {}", pos.ply());
        let mut fast: Vec<Move> = pos.legal_moves().to_vec();
        fast.sort();
        let reference = naive.legal_moves();
        assert_eq!(fast, reference, "seed {seed} ply {}: {pos:?}", pos.ply());
        assert_eq!(pos.legal_move_count() as usize, reference.len());
        for color in [Color::Black, Color::White] {
            let n = naive.moves_of(color).len();
            assert_eq!(pos.mobility(color) as usize, n);
            assert_eq!(pos.can_move(color), n > 0);
        }
        assert_eq!(pos.is_game_over(), naive.game_over());
        check_invariants(&pos, &played);
        if pos.is_game_over() {
            break;
        }
        let m = pos.random_move(&mut rng);
        assert!(reference.contains(&m), "random move {m} is not legal");
        assert_eq!(pos.check_move(m), Ok(()));
        let before = pos;
        pos.play(m);
        let mut undone = pos;
        undone.undo(m);
        assert_eq!(undone, before, "undo of {m} must restore every bit");
        naive.play(m);
        played.push(m);
    }
    // A finished game: nobody moves, only the pass is left, and it scores nothing.
    assert_eq!(pos.legal_moves().as_slice(), [Move::PASS]);
    assert_eq!(
        pos.winner().is_none(),
        pos.score(Color::Black) == pos.score(Color::White)
    );
}

fn check_invariants(pos: &Position, played: &[Move]) {
    let black = pos.pieces(Color::Black);
    let white = pos.pieces(Color::White);
    let holes = pos.holes();
    assert!((black & white).is_empty() && (black & holes).is_empty() && (white & holes).is_empty());
    assert_eq!((black.count(), white.count()), (4, 4));
    let real: Vec<&Move> = played.iter().filter(|m| !m.is_pass()).collect();
    assert_eq!(holes.count() as usize, real.len(), "holes = moves played");
    for m in &real {
        assert!(holes.contains(m.from()));
    }
    for (parity, color) in [(0, Color::Black), (1, Color::White)] {
        let own = played
            .iter()
            .enumerate()
            .filter(|(i, m)| i % 2 == parity && !m.is_pass())
            .count();
        assert_eq!(
            usize::from(pos.score(color)),
            own,
            "{color} score = its moves"
        );
    }
    // Every pass was played by a side without a move.
    let mut replay = Position::START;
    for &m in played {
        if m.is_pass() {
            assert!(!replay.can_move(replay.side_to_move()));
        }
        replay.play(m);
    }
    assert_eq!(&replay, pos);
}

#[test]
fn two_thousand_random_games_agree_with_the_reference() {
    for seed in 0..2_000 {
        check_game(seed);
    }
}

#[test]
fn perft_agrees_with_the_reference_in_mid_games() {
    // Positions from random games at several stages, including late ones
    // where passes and finished games appear inside the tree.
    let mut checked = 0;
    for seed in 0..60 {
        let mut rng = Rng::new(1000 + seed);
        let mut pos = Position::START;
        let mut naive = NaiveGame::new();
        let stop = 10 + (seed as u16 * 7) % 45;
        while pos.ply() < stop && !pos.is_game_over() {
            let m = pos.random_move(&mut rng);
            pos.play(m);
            naive.play(m);
        }
        let depth = if pos.ply() < 30 { 3 } else { 4 };
        assert_eq!(
            perft(&pos, depth),
            naive.perft(depth),
            "seed {seed}: {pos:?}"
        );
        checked += 1;
    }
    assert_eq!(checked, 60);
}

#[test]
fn random_moves_are_uniform() {
    // From the start all 56 moves should come up about equally often.
    let mut rng = Rng::new(3);
    let moves = Position::START.legal_moves();
    let mut counts = std::collections::HashMap::new();
    for _ in 0..56_000 {
        *counts
            .entry(Position::START.random_move(&mut rng))
            .or_insert(0u32) += 1;
    }
    assert_eq!(counts.len(), moves.len());
    assert!(
        counts.values().all(|&c| (800..1200).contains(&c)),
        "{counts:?}"
    );
}
