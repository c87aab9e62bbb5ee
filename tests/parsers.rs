//! Property tests: every parser, fed arbitrary text, returns a value or an
//! error and never panics; what parses prints back the same.

use proptest::prelude::*;
use yolah::record::GameRecord;
use yolah::{Move, Position};

/// Text that looks a little like the real thing, so that the parsers' deeper
/// branches are reached, mixed with anything at all.
fn movelike() -> impl Strategy<Value = String> {
    prop_oneof!["[a-j][0-9]:[a-j][0-9]", "[a-h][1-8][:;-]?[a-h][1-8]", ".*",]
}

fn positionlike() -> impl Strategy<Value = String> {
    prop_oneof![
        "[bwx1-9/]{0,40} [bwz] [0-9]{1,3} [0-9]{1,3} [0-9]{1,5}",
        "([bwx1-8]{1,8}/){7}[bwx1-8]{1,8} [bw] [0-9] [0-9] [0-9]{1,2}",
        ".*",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn moves_parse_or_explain(text in movelike()) {
        match text.parse::<Move>() {
            Ok(m) => prop_assert_eq!(m.to_string(), text),
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }

    #[test]
    fn positions_parse_or_explain(text in positionlike()) {
        match text.parse::<Position>() {
            Ok(pos) => {
                prop_assert_eq!(pos.to_text().parse::<Position>(), Ok(pos));
                let _ = pos.legal_moves();
            }
            Err(e) => prop_assert!(e.to_string().starts_with("bad position")),
        }
    }

    #[test]
    fn records_parse_and_replay_or_explain(
        text in prop_oneof![
            "\\{\"moves\": \\[(\"[a-h][1-8]:[a-h][1-8]\", ?){0,6}\\]\\}",
            "([a-h][1-8]:[a-h][1-8] ){0,12}",
            "(d5:b7 |e5:c7 |a1:a1 |#.*\n){0,8}",
            ".*",
        ]
    ) {
        if let Ok(record) = GameRecord::parse(&text) {
            match record.replay() {
                Ok(end) => prop_assert!(usize::from(end.ply()) == record.moves.len()),
                Err(e) => prop_assert!(!e.to_string().is_empty()),
            }
        }
    }

    #[test]
    fn random_legal_games_round_trip_through_text(seed in any::<u64>(), plies in 0usize..60) {
        let mut rng = yolah::Rng::new(seed);
        let mut pos = Position::START;
        let mut moves = Vec::new();
        for _ in 0..plies {
            if pos.is_game_over() { break; }
            let m = pos.random_move(&mut rng);
            pos.play(m);
            moves.push(m);
        }
        prop_assert_eq!(pos.to_text().parse::<Position>(), Ok(pos));
        let record = GameRecord::from_moves(&moves);
        prop_assert_eq!(GameRecord::parse(&record.to_json()).unwrap().replay().unwrap(), pos);
    }
}
