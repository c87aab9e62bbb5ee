//! Ways a game ends besides the board's: resignation, a draw agreed; and
//! what comes after: a rematch with the colours swapped.

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
