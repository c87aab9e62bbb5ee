//! Players: legal moves only, budgets, determinism, and search correctness.

use std::time::Duration;
use yolah::{Color, Move, Position};
use yolah_players::eval::{evaluate, Weights, DECIDED, WIN};
use yolah_players::{from_spec, Budget, GameClock, Player, Score, Search, Stop};
use yolah_players::{AlphaBeta, SearchOptions};

/// Plays `black` against `white` from `start` to the end, showing every
/// position and move to `on_move`; the end and the moves.
fn play_game<'p>(
    black: &'p mut dyn Player,
    white: &'p mut dyn Player,
    start: Position,
    mut on_move: impl FnMut(&Position, Move),
) -> (Position, Vec<Move>) {
    let (mut pos, mut moves) = (start, Vec::new());
    while !pos.is_game_over() {
        let player: &mut dyn Player = match pos.side_to_move() {
            Color::Black => &mut *black,
            Color::White => &mut *white,
        };
        let m = player.choose_move(&pos);
        on_move(&pos, m);
        pos.try_play(m).expect("players play legal moves");
        moves.push(m);
    }
    (pos, moves)
}

const SPECS: [&str; 7] = [
    "random",
    "mc:playouts=300",
    "mcts:iterations=300",
    "mcts:iterations=300,threads=2",
    "alphabeta:depth=2",
    "alphabeta:nodes=3000",
    "alphabeta:nodes=3000,threads=3",
];

#[test]
fn every_pairing_plays_legal_games() {
    for (i, a) in SPECS.iter().enumerate() {
        for (j, b) in SPECS.iter().enumerate() {
            let mut black = from_spec(
                &format!("{a},seed={i}")
                    .replace(":,", ":")
                    .replace("random,", "random:"),
            )
            .unwrap();
            let mut white = from_spec(&format!(
                "{b}{}seed={j}",
                if b.contains(':') { "," } else { ":" }
            ))
            .unwrap();
            let mut check = Position::START;
            let (end, moves) =
                play_game(black.as_mut(), white.as_mut(), Position::START, |pos, m| {
                    assert_eq!(*pos, check);
                    assert!(pos.legal_moves().contains(m), "{a} vs {b}: {m} in {pos:?}");
                    check.play(m);
                });
            assert!(end.is_game_over());
            assert_eq!(moves.len(), usize::from(end.ply()));
        }
    }
}

fn game_with(spec: &str) -> Vec<Move> {
    let mut a = from_spec(spec).unwrap();
    let mut b = from_spec(spec).unwrap();
    play_game(a.as_mut(), b.as_mut(), Position::START, |_, _| {}).1
}

#[test]
fn count_budgets_are_deterministic_for_a_seed() {
    for spec in [
        "random:seed=5",
        "mc:playouts=200,seed=5",
        "mcts:iterations=200,seed=5",
        "alphabeta:nodes=2000,seed=5",
    ] {
        assert_eq!(game_with(spec), game_with(spec), "{spec}");
    }
    assert_ne!(game_with("random:seed=1"), game_with("random:seed=2"));
}

#[test]
fn budgets_are_respected() {
    let pos = Position::START;
    let a = from_spec("mcts:iterations=1234").unwrap().analyse(&pos);
    assert_eq!(a.iterations, Some(1234));
    // Every thread's iterations count towards the budget, exactly.
    let a = from_spec("mcts:iterations=1234,threads=3")
        .unwrap()
        .analyse(&pos);
    assert_eq!(a.iterations, Some(1234));
    let a = from_spec("mc:playouts=560").unwrap().analyse(&pos);
    assert_eq!(a.iterations, Some(560));
    let a = from_spec("alphabeta:depth=3").unwrap().analyse(&pos);
    assert_eq!(a.depth, Some(3));
    let a = from_spec("alphabeta:nodes=5000").unwrap().analyse(&pos);
    assert!(a.nodes < 5000 + 1024, "{}", a.nodes);
    let a = from_spec("alphabeta:depth=3,threads=2")
        .unwrap()
        .analyse(&pos);
    assert_eq!(a.depth, Some(3));
    // Every thread counts towards a node budget.
    let a = from_spec("alphabeta:nodes=50000,threads=3")
        .unwrap()
        .analyse(&pos);
    assert!(a.nodes < 50_000 + 3 * 1024, "{}", a.nodes);
    for spec in ["mc:time=30ms", "mcts:time=30ms", "alphabeta:time=30ms"] {
        let a = from_spec(spec).unwrap().analyse(&pos);
        // It spends its time, and then stops by itself. The upper bound is
        // loose on purpose (debug builds, a loaded machine): it only catches
        // a search that ignores its budget; the budget's arithmetic has unit
        // tests of its own.
        assert!(
            a.seconds >= 0.029 && a.seconds < 1.0,
            "{spec}: {} s",
            a.seconds
        );
    }
}

#[test]
fn a_managed_search_stops_by_itself() {
    let stop = Stop::new();
    let clock = GameClock {
        remaining: [Duration::from_millis(400); 2],
        increment: [Duration::ZERO; 2],
    };
    for spec in ["alphabeta:tm=1", "nn:tm=1,threads=2"] {
        let mut player = from_spec(spec).unwrap();
        let mut search = Search::new(&stop);
        // A 20 ms budget; the clock makes the plan.
        search.budget = Some(Budget::Time(Duration::from_millis(20)));
        search.clock = Some(clock);
        let a = player.search(&Position::START, search);
        assert!(Position::START.legal_moves().contains(a.best_move));
        // It stops by itself. The bound is loose on purpose, as above:
        // `time_plan`'s unit tests check the plan.
        assert!(a.seconds < 1.0, "{spec}: {} s", a.seconds);
    }
}

/// Plain minimax with the same evaluation and terminal scores, no pruning.
fn minimax(pos: &Position, depth: u32, ply: u32, w: &Weights) -> i32 {
    if pos.is_game_over() {
        let side = pos.side_to_move();
        return match pos.score(side).cmp(&pos.score(side.opponent())) {
            std::cmp::Ordering::Greater => WIN - ply as i32,
            std::cmp::Ordering::Less => -(WIN - ply as i32),
            std::cmp::Ordering::Equal => 0,
        };
    }
    if depth == 0 {
        return evaluate(pos, w, ply);
    }
    pos.legal_moves()
        .iter()
        .map(|&m| {
            let mut child = *pos;
            child.play(m);
            -minimax(&child, depth - 1, ply + 1, w)
        })
        .max()
        .expect("a position has at least the pass")
}

#[test]
fn alphabeta_equals_minimax_on_small_trees() {
    let mut rng = yolah::Rng::new(99);
    for game in 0..12 {
        let mut pos = Position::START;
        let stop = 20 + game * 3;
        while pos.ply() < stop && !pos.is_game_over() {
            pos.play(pos.random_move(&mut rng));
        }
        for depth in 1..=3 {
            let mut ab = AlphaBeta::new(Budget::Depth(depth), Weights::HAND, 0);
            ab.set_options(SearchOptions::NONE);
            let a = ab.analyse(&pos);
            if pos.is_game_over() || pos.legal_move_count() == 1 && depth == 0 {
                continue;
            }
            let expected = minimax(&pos, depth, 0, &Weights::HAND);
            assert_eq!(
                a.score,
                Score::Centipoints(expected),
                "game {game} depth {depth}: {pos:?}"
            );
            let mut child = pos;
            child.play(a.best_move);
            assert_eq!(-minimax(&child, depth - 1, 1, &Weights::HAND), expected);
        }
    }
}

#[test]
fn alphabeta_finds_the_won_ending() {
    // Everything is frozen but Black's piece on g8, with e8, f8 and h8 free:
    //
    // 8 | x x x x . . b .      Black 26, White 27, Black to move.
    // 7 | x x x x x x x x      g8:f8 or g8:e8 leave one more move (28-27, a
    //   ...                    win); g8:h8 strands the piece (27-27, a draw).
    // 1 | b b b w w w w x
    let pos: Position =
        "xxxx2b1/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/bbbwwwwx b 26 27 54"
            .parse()
            .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(pos.legal_move_count(), 3);
    for depth in [2, 3, 6] {
        let mut ab = AlphaBeta::new(Budget::Depth(depth), Weights::HAND, 0);
        let a = ab.analyse(&pos);
        assert!(
            ["g8:f8", "g8:e8"].contains(&a.best_move.to_string().as_str()),
            "{a:?}"
        );
        assert!(
            matches!(a.score, Score::Centipoints(c) if c > DECIDED),
            "depth {depth}: {a:?}"
        );
    }
    // And the whole game from there is won.
    let mut black = from_spec("alphabeta:depth=4").unwrap();
    let mut white = from_spec("alphabeta:depth=4").unwrap();
    let (end, _) = play_game(black.as_mut(), white.as_mut(), pos, |_, _| {});
    assert_eq!(end.winner(), Some(Color::Black));
    assert_eq!((end.score(Color::Black), end.score(Color::White)), (28, 27));
}

#[test]
fn every_player_stops_when_asked() {
    use std::time::Instant;
    for spec in [
        "mc:time=60s",
        "mcts:time=60s",
        "alphabeta:time=60s",
        "nn:time=60s",
        "alphabeta:depth=60",
        "alphabeta:time=60s,threads=3",
        "nn:depth=60,threads=2",
        "mcts:iterations=1000000000",
        "mcts:time=60s,threads=2",
    ] {
        let mut player = from_spec(spec).unwrap();
        let stop = Stop::new();
        let remote = stop.clone();
        let asker = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            remote.request();
        });
        let start = Instant::now();
        let a = player.analyse_until(&Position::START, &stop);
        asker.join().unwrap();
        // Generous for a debug build on a loaded machine; a search that
        // ignored the flag would run for a minute or more.
        assert!(start.elapsed() < Duration::from_secs(20), "{spec}");
        assert!(
            Position::START.legal_moves().contains(a.best_move),
            "{spec}"
        );
    }
}

#[test]
fn endgames_are_played_by_the_solver() {
    use yolah_players::solve::Solver;
    // Black to move loses by 5 with best play (see `yolah solve`), so after
    // Black's best move White is to move in a won endgame of 26 free squares.
    let lost: Position =
        "xbx1xx1x/wxxxx2w/xx1x2x1/2xxxxxx/xbxxx1xx/xxx1xxx1/bxxbx2x/xwxx1wxx b 20 20 40"
            .parse()
            .unwrap();
    let mut solver = Solver::new();
    let mut won = lost;
    won.play(solver.solve(&lost).unwrap().best_move);
    assert_eq!(solver.solve(&won).unwrap().margin, 5);
    for spec in [
        "alphabeta:nodes=20000",
        "nn:nodes=20000",
        "alphabeta:time=200ms",
    ] {
        let mut player = from_spec(spec).unwrap();
        let a = player.analyse(&won);
        assert!(
            matches!(a.score, Score::Centipoints(c) if c > DECIDED),
            "{spec}: {a:?}"
        );
        // The move keeps the win.
        let mut after = won;
        after.play(a.best_move);
        assert!(solver.solve(&after).unwrap().margin < 0, "{spec}: {a:?}");
        // A new game forgets what the solver learnt: the same search again.
        player.new_game();
        let again = player.analyse(&won);
        if !spec.contains("time") {
            assert_eq!((again.best_move, again.nodes), (a.best_move, a.nodes));
        }
    }
    // A depth budget searches as told instead.
    let a = from_spec("alphabeta:depth=2").unwrap().analyse(&won);
    assert_eq!(a.depth, Some(2));
}

#[test]
fn search_options_are_spec_keys() {
    for good in [
        "alphabeta:lmr=0,rfp=1,lmp=1,asp=1,cm=1,tm=1,eo=1,hm=1,nwr=1,depth=5",
        "nn:hm=1,nwr=1,depth=6",
        "nn:nmp=1,iir=1,depth=7",
        "alphabeta:nmp=1,iir=1,nodes=20000",
        "nn:lmr=1,depth=2",
        "nn:pvr=1,hash=1,depth=6",
        "alphabeta:pvr=1,hash=256,nodes=20000",
        "nn:se=1,depth=9",
        "alphabeta:se=1,nodes=50000",
        "nn:xr=1,depth=8",
        "alphabeta:xr=1,nodes=50000",
        "nn:fo=1,cm=1,depth=5",
        "alphabeta:fo=1,nodes=20000",
        "nn:ch=1,cm=1,fo=1,depth=5",
        "alphabeta:ch=1,nodes=50000",
        "nn:rfd=1,depth=6",
        "nn:pc=1,depth=6",
        "alphabeta:pc=1,nodes=50000",
    ] {
        let a = from_spec(good).unwrap().analyse(&Position::START);
        assert!(Position::START.legal_moves().contains(a.best_move));
    }
    // The options reach the search (`pc`, on by default, when turned off):
    // to a fixed depth, the moves are searched in another order (and so
    // pruned and reduced otherwise), or pruned further from the horizon,
    // with other node counts. From the
    // start, or 24 random plies on, where one side is ahead and a deeper
    // reverse futility has values far above beta to cut.
    let mut rng = yolah::Rng::new(3);
    let mut ahead = Position::START;
    while ahead.ply() < 24 && !ahead.is_game_over() {
        ahead.play(ahead.random_move(&mut rng));
    }
    let nodes = |spec: &str, pos: &Position| from_spec(spec).unwrap().analyse(pos).nodes;
    for (other, pos) in [
        ("ch=1", Position::START),
        ("cm=1", Position::START),
        ("rfd=1", ahead),
        ("pc=0", ahead),
    ] {
        let plain = nodes("nn:depth=6", &pos);
        assert_ne!(
            nodes(&format!("nn:{other},depth=6"), &pos),
            plain,
            "{other}"
        );
    }
    let err = from_spec("nn:tm=2").err().unwrap().to_string();
    assert!(err.contains("tm=2 must be 0 (off) or 1 (on)"), "{err}");
    let err = from_spec("nn:lmr=2").err().unwrap().to_string();
    assert!(err.contains("lmr=2 must be 0 (off) or 1 (on)"), "{err}");
    assert!(from_spec("mcts:lmr=1").is_err());
}

#[test]
fn exact_regions_score_separated_positions_by_their_proven_result() {
    // Positions of random games once the two sides no longer meet: with
    // `xr` every child is scored by its longest paths, so the root's score
    // is the exact result that the solver proves.
    let mut rng = yolah::Rng::new(17);
    let mut solver = yolah_players::solve::Solver::for_regions();
    let mut checked = 0;
    while checked < 12 {
        let mut pos = Position::START;
        while !pos.is_game_over() && solver.separated_margin(&pos, u64::MAX).is_none() {
            pos.play(pos.random_move(&mut rng));
        }
        let Some(margin) = solver.separated_margin(&pos, u64::MAX) else {
            continue;
        };
        if !pos.can_move(pos.side_to_move()) {
            continue;
        }
        let a = from_spec("nn:xr=1,depth=2").unwrap().analyse(&pos);
        let Score::Centipoints(c) = a.score else {
            panic!("{:?}", a.score)
        };
        match margin.signum() {
            0 => assert_eq!(c, 0, "{pos:?}"),
            s => assert_eq!(c.signum(), s, "{pos:?}: {c} for margin {margin}"),
        }
        assert!(c == 0 || c.abs() > DECIDED, "{pos:?}: {c}");
        checked += 1;
    }
}

/// Whatever the budget cuts, the reported line starts with the move played
/// and runs at least as deep as the depth reported (or to the game's end),
/// also when the move comes from an unfinished iteration that beat the
/// last finished one's: each line is a legal sequence (about 5 s in the
/// dev profile, which optimises the players).
#[test]
fn the_line_starts_with_the_move_and_is_as_deep_as_the_search() {
    let mut pos = Position::START;
    pos.play("d5:b7".parse().unwrap());
    // 150,528 nodes end in such an unfinished iteration (found by a run).
    for nodes in (2_000..60_000).step_by(1_900).chain([150_528]) {
        let a = from_spec(&format!("nn:nodes={nodes}"))
            .unwrap()
            .analyse(&pos);
        assert_eq!(a.pv.first(), Some(&a.best_move), "nodes={nodes}");
        let mut p = pos;
        for &m in &a.pv {
            assert!(p.check_move(m).is_ok(), "nodes={nodes}: {m} in {:?}", a.pv);
            p.play(m);
        }
        let depth = a.depth.unwrap() as usize;
        assert!(
            a.pv.len() >= depth || p.is_game_over(),
            "nodes={nodes}: depth {depth}, line {:?}",
            a.pv
        );
    }
}
