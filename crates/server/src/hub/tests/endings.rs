//! Ways a game ends besides the board's: resignation, a draw agreed; what
//! comes after: a rematch with the colours swapped; and a move taken back
//! between people.

use super::*;

#[test]
fn a_resignation_ends_the_game_for_the_other_side() {
    let mut h = hub();
    two_people(&mut h, "none");
    h.handle(1, &mv("d5:b7"));
    assert!(errors(&h.handle(3, r#"{"type":"resign"}"#))[0].contains("join"));
    let out = h.handle(1, r#"{"type":"resign"}"#);
    let s = state_to(&out, 2);
    assert_eq!(
        (s.result.as_deref(), s.winner.as_deref()),
        (Some("0-1"), Some("white"))
    );
    assert_eq!(s.reason.as_deref(), Some("black resigned"));
    assert!(s.legal.is_empty());
    assert!(errors(&h.handle(2, r#"{"type":"resign"}"#))[0].contains("over"));
    let record = h.record("key1").unwrap().unwrap();
    assert_eq!(record.metadata["termination"], "black resigned");
    assert_eq!(record.metadata["black_name"], "Ada");
    assert_eq!(record.metadata["white_name"], "Bob");
}

#[test]
fn draws_are_offered_accepted_declined_and_a_move_declines_them() {
    let mut h = hub();
    two_people(&mut h, "none");
    let out = h.handle(1, r#"{"type":"offer_draw"}"#);
    assert_eq!(state_to(&out, 2).draw_offer.as_deref(), Some("black"));
    assert!(errors(&h.handle(1, r#"{"type":"offer_draw"}"#))[0].contains("already"));
    assert!(errors(&h.handle(1, r#"{"type":"decline_draw"}"#))[0].contains("no draw offer"));
    let out = h.handle(2, r#"{"type":"decline_draw"}"#);
    assert_eq!(state_to(&out, 1).draw_offer, None);
    // An offer, then the other side moves: that is a no.
    h.handle(2, r#"{"type":"offer_draw"}"#);
    let out = h.handle(1, &mv("d5:b7"));
    assert_eq!(state_to(&out, 2).draw_offer, None);
    h.handle(1, r#"{"type":"offer_draw"}"#);
    let out = h.handle(2, r#"{"type":"offer_draw"}"#);
    let s = state_to(&out, 1);
    assert_eq!(
        (s.result.as_deref(), s.reason.as_deref()),
        (Some("1/2-1/2"), Some("draw agreed"))
    );

    let mut h = hub();
    h.connect(1, "a", None);
    h.handle(1, r#"{"type":"new","opponent":"random","color":"black"}"#);
    assert!(errors(&h.handle(1, r#"{"type":"offer_draw"}"#))[0].contains("computer plays on"));
}

#[test]
fn a_rematch_between_people_starts_once_both_ask_with_the_colours_swapped() {
    let mut h = hub();
    let first = two_people(&mut h, "3+2");
    assert!(errors(&h.handle(1, r#"{"type":"rematch"}"#))[0].contains("not over"));
    h.handle(1, r#"{"type":"resign"}"#);
    let out = h.handle(2, r#"{"type":"rematch"}"#);
    assert_eq!(state_to(&out, 1).rematch.as_deref(), Some("white"));
    assert!(out
        .messages
        .iter()
        .all(|(_, m)| !matches!(m, ServerMessage::Welcome { .. })));
    let out = h.handle(1, r#"{"type":"rematch"}"#);
    let (role1, key1) = welcome_to(&out, 1);
    let (role2, _) = welcome_to(&out, 2);
    assert_eq!((role1.as_str(), role2.as_str()), ("white", "black"));
    let s = state_to(&out, 2);
    assert_ne!(s.game, first);
    assert_eq!(s.names, [Some("Bob".into()), Some("Ada".into())]);
    assert_eq!(s.clock.as_ref().unwrap().control, "3+2");
    // The new game is played: Bob (connection 2) is Black now.
    assert!(errors(&h.handle(2, &mv("d5:b7"))).is_empty());
    assert_eq!(h.record(&key1).unwrap().unwrap().moves, ["d5:b7"]);
}

#[test]
fn a_rematch_against_the_computer_starts_at_once() {
    let mut h = hub();
    h.connect(1, "a", None);
    let out = h.handle(1, r#"{"type":"new","opponent":"random","color":"black"}"#);
    let first = state_to(&out, 1).game;
    h.handle(1, r#"{"type":"resign"}"#);
    let out = h.handle(1, r#"{"type":"rematch"}"#);
    assert_eq!(welcome_to(&out, 1).0, "white");
    let s = state_to(&out, 1);
    assert_ne!(s.game, first);
    assert_eq!((s.black.as_str(), s.white.as_str()), ("random", "human"));
    assert_eq!(out.jobs.len(), 1, "the computer is Black and moves first");
}

#[test]
fn a_takeback_asked_and_accepted_goes_back_in_the_database_and_on_the_clocks() {
    let mut h = hub();
    let t = manual_clock(&mut h);
    two_people(&mut h, "3+2");
    const TAKEBACK: &str = r#"{"type":"takeback"}"#;
    assert!(errors(&h.handle(1, TAKEBACK))[0].contains("no move to take back"));
    h.handle(1, &mv("d5:b7"));
    advance(&t, Duration::from_secs(10));
    h.handle(2, &mv("e5:c7")); // White: 180 - 10 + 2 = 172 s.
    advance(&t, Duration::from_secs(20));
    h.handle(1, &mv("e4:e3")); // Black: 180 - 20 + 2 = 162 s.
    advance(&t, Duration::from_secs(5));

    // White asks (after Black's reply): declined, asked again.
    let out = h.handle(2, TAKEBACK);
    assert_eq!(state_to(&out, 1).takeback.as_deref(), Some("white"));
    assert!(errors(&h.handle(2, TAKEBACK))[0].contains("already"));
    assert!(errors(&h.handle(2, r#"{"type":"decline_takeback"}"#))[0].contains("no takeback"));
    let out = h.handle(1, r#"{"type":"decline_takeback"}"#);
    assert_eq!(state_to(&out, 2).takeback, None);
    h.handle(2, TAKEBACK);
    // Black accepts: White's move goes, and Black's reply with it; each
    // clock is what it was after that side's last move that stands.
    let out = h.handle(1, TAKEBACK);
    assert!(errors(&out).is_empty(), "{:?}", errors(&out));
    let s = state_to(&out, 2);
    assert_eq!(s.moves, ["d5:b7"]);
    assert_eq!(s.turn, "white");
    assert_eq!(s.takeback, None);
    let clock = s.clock.clone().unwrap();
    assert_eq!((clock.black_ms, clock.white_ms), (180_000, 180_000));
    assert_eq!(clock.running.as_deref(), Some("white"));
    assert_eq!(h.record("key1").unwrap().unwrap().moves, ["d5:b7"]);
    // The game goes on from there; a move declines a request.
    assert!(errors(&h.handle(2, &mv("e5:h2"))).is_empty());
    h.handle(2, TAKEBACK);
    let out = h.handle(1, &mv("e4:e3"));
    assert_eq!(state_to(&out, 2).takeback, None);
    assert_eq!(
        h.record("key1").unwrap().unwrap().moves,
        ["d5:b7", "e5:h2", "e4:e3"]
    );
    // Black's only move taken back: the clocks stop, as before a first move.
    let mut h = hub();
    two_people(&mut h, "3+2");
    h.handle(1, &mv("d5:b7"));
    h.handle(1, TAKEBACK);
    let s = h.handle(2, TAKEBACK);
    let s = state_to(&s, 1);
    assert!(s.moves.is_empty());
    assert_eq!(s.clock.as_ref().unwrap().running, None);

    let mut h = hub();
    h.connect(1, "a", None);
    h.handle(1, r#"{"type":"new","opponent":"random","color":"white"}"#);
    assert!(errors(&h.handle(1, TAKEBACK))[0].contains("between people"));
}

#[test]
fn a_game_between_two_named_people_moves_their_ratings() {
    let mut h = hub();
    two_people(&mut h, "none");
    // Resigned before White moved: not rated.
    h.handle(1, &mv("d5:b7"));
    let out = h.handle(1, r#"{"type":"resign"}"#);
    assert_eq!(state_to(&out, 2).ratings, [None, None]);

    let mut h = hub();
    two_people(&mut h, "none");
    h.handle(1, &mv("d5:b7"));
    h.handle(2, &mv("e5:c7"));
    let out = h.handle(1, r#"{"type":"resign"}"#);
    let [Some(black), Some(white)] = state_to(&out, 2).ratings else {
        panic!("rated: {:?}", state_to(&out, 2).ratings)
    };
    let won = crate::rating::Rating::default().after(&[(Default::default(), 1.0)]);
    assert_eq!((black, white), (3000 - won.shown(), won.shown()));
    assert!(white > 1500);
    // Bob comes back: greeted with his rating, shown with his challenge.
    let out = h.connect(3, "10.0.0.3", Some(person("Bob")));
    let ServerMessage::Hello { rating, .. } = &out.messages[0].1 else {
        panic!("a hello first")
    };
    assert_eq!(*rating, Some(white));
    let out = h.handle(3, r#"{"type":"seek","color":"black","clock":"none"}"#);
    let ServerMessage::Lobby(lobby) = &out.messages.last().unwrap().1 else {
        panic!("the lobby: {:?}", out.messages)
    };
    assert_eq!(lobby.seeks[0].rating, Some(white));

    // Against the computer, nothing is rated.
    let mut h = hub();
    h.connect(1, "a", Some(person("Ada")));
    h.handle(1, r#"{"type":"new","opponent":"random","color":"white"}"#);
    let out = h.handle(1, r#"{"type":"resign"}"#);
    assert_eq!(state_to(&out, 1).ratings, [None, None]);

    // One person with two cookies on one machine farms nothing: both
    // seats taken from one address, not rated.
    let mut h = hub();
    h.connect(1, "10.0.0.1", Some(person("Ada")));
    h.connect(2, "10.0.0.1", Some(person("Bob")));
    let (_, invite, _) = welcome(&h.handle(1, NEW_HUMAN));
    h.handle(2, &join(&invite.unwrap()));
    h.handle(1, &mv("d5:b7"));
    h.handle(2, &mv("e5:c7"));
    let out = h.handle(1, r#"{"type":"resign"}"#);
    assert_eq!(state_to(&out, 2).ratings, [None, None]);
}
