//! Games between people and against the computer: seats, moves, the
//! bounds on games, memory and the database behind it.

use super::*;
use crate::hub::play::{FIRST_RETRY, SAVE_ATTEMPTS};
use yolah::Move;

#[test]
fn two_people_play_and_others_are_refused() {
    let mut h = hub();
    for (conn, addr) in [(1, "a"), (2, "b"), (3, "c"), (4, "d")] {
        h.connect(conn, addr, None);
    }
    let (_, invite, watch) = welcome(&h.handle(1, NEW_HUMAN));
    let (invite, watch) = (invite.unwrap(), watch.unwrap());
    assert!(errors(&h.handle(2, &join(&invite))).is_empty());
    assert!(errors(&h.handle(3, &join(&watch))).is_empty());
    // A third person cannot take a connected seat.
    assert!(errors(&h.handle(4, &join(&invite)))[0].contains("taken"));
    assert!(errors(&h.handle(2, r#"{"type":"move","move":"d4:b2"}"#))[0].contains("black's turn"));
    assert!(errors(&h.handle(3, r#"{"type":"move","move":"d5:b7"}"#))[0]
        .contains("watchers cannot move"));
    assert!(errors(&h.handle(1, r#"{"type":"move","move":"d5:d4"}"#))[0].contains("illegal"));
    assert!(errors(&h.handle(1, r#"{"type":"move","move":"x"}"#))[0].contains("not a move"));
    assert!(errors(&h.handle(1, r#"{"type":"mvoe"}"#))[0].contains("not a valid message"));
    assert!(
        errors(&h.handle(1, r#"{"type":"move","move":"d5:b7","extra":1}"#))[0]
            .contains("unknown field")
    );
    assert!(errors(&h.handle(1, r#"{"type":"history","extra":1}"#))[0].contains("unknown field"));
    // An array is not a message, even one serde could read field by field.
    assert!(errors(&h.handle(1, r#"["move","d5:b7"]"#))[0].contains("JSON object"));
    assert!(errors(&h.handle(1, "{")).len() == 1);
    let ok = h.handle(1, r#"{"type":"move","move":"d5:b7"}"#);
    assert!(errors(&ok).is_empty());
    assert_eq!(
        ok.messages.len(),
        3,
        "both players and the watcher hear of it"
    );
    // Player 2 drops and comes back with the same key.
    h.disconnect(2);
    assert!(errors(&h.handle(5, &join(&invite))).is_empty());
    assert!(errors(&h.handle(5, r#"{"type":"move","move":"e5:c7"}"#)).is_empty());
    let record = h.record(&watch).unwrap().unwrap();
    assert_eq!(record.moves, ["d5:b7", "e5:c7"]);
}

#[test]
fn watchers_cost_nobody_else_a_message_and_are_bounded() {
    let mut h = hub_with(Limits {
        max_watchers: 3,
        ..Limits::default()
    });
    let (_, _, watch) = welcome(&h.handle(1, NEW_HUMAN));
    let watch = watch.unwrap();
    for w in 10..13 {
        let out = h.handle(w, &join(&watch));
        // The welcome and the state, both to the watcher alone.
        assert_eq!(out.messages.len(), 2);
        assert!(out.messages.iter().all(|(c, _)| *c == w));
    }
    assert!(errors(&h.handle(13, &join(&watch)))[0].contains("3 watchers"));
    assert!(
        h.disconnect(10).messages.is_empty(),
        "a watcher leaves quietly"
    );
    assert!(errors(&h.handle(13, &join(&watch))).is_empty());
}

#[test]
fn computer_turns_become_jobs_and_failures_do_not_stall() {
    let mut h = hub();
    let out = h.handle(1, r#"{"type":"new","opponent":"random","color":"white"}"#);
    assert_eq!(out.jobs.len(), 1, "black is the computer and moves first");
    assert!(
        errors(&h.handle(1, r#"{"type":"new","opponent":"random","color":"white"}"#))[0]
            .contains("already")
    );
    assert!(errors(&h.handle(
        2,
        r#"{"type":"new","opponent":"mcts:time=99s","color":"white"}"#
    ))[0]
        .contains("not human or one of"));
    let job = out.jobs.into_iter().next().unwrap();
    // A failed search: a random move is played, the person is told.
    let after = h.finish_job(&job, SearchOutcome::Failed("boom".into()));
    assert!(errors(&after)[0].contains("boom"));
    assert!(after.jobs.is_empty(), "now it is the person's turn");
    assert!(after.messages.iter().any(
        |(_, m)| matches!(m, ServerMessage::State(s) if s.moves.len() == 1 && s.turn == "white")
    ));
    // A stale result (the game moved on) changes nothing.
    assert!(h
        .finish_job(&job, SearchOutcome::Move(Move::PASS))
        .messages
        .is_empty());
}

#[test]
fn a_computer_move_the_rules_refuse_is_replaced() {
    let mut h = hub();
    let out = h.handle(1, r#"{"type":"new","opponent":"random","color":"white"}"#);
    let job = out.jobs.into_iter().next().unwrap();
    let after = h.finish_job(&job, SearchOutcome::Move("h1:h2".parse().unwrap()));
    assert!(
        errors(&after)[0].contains("illegal move h1:h2"),
        "{:?}",
        errors(&after)
    );
    assert!(after
        .messages
        .iter()
        .any(|(_, m)| matches!(m, ServerMessage::State(s) if s.moves.len() == 1)));
}

#[test]
fn games_per_address_and_in_all_are_bounded() {
    let mut h = hub_with(Limits {
        max_games: 3,
        max_games_per_addr: 2,
        ..Limits::default()
    });
    for c in 1..=2 {
        h.connect(c, "10.0.0.1", None);
        assert!(errors(&h.handle(c, NEW_HUMAN)).is_empty());
    }
    h.connect(3, "10.0.0.1", None);
    assert!(errors(&h.handle(3, NEW_HUMAN))[0].contains("2 unfinished games"));
    h.connect(4, "10.0.0.2", None);
    assert!(errors(&h.handle(4, NEW_HUMAN)).is_empty());
    h.connect(5, "10.0.0.3", None);
    assert!(errors(&h.handle(5, NEW_HUMAN))[0].contains("the most games it may (3)"));
    // A game whose people have all left makes room.
    h.disconnect(4);
    assert!(errors(&h.handle(5, NEW_HUMAN)).is_empty());
    assert_eq!(h.games_in_memory(), 3);
}

#[test]
fn games_leave_memory_and_come_back_by_key() {
    let mut h = hub_with(Limits {
        retention: Duration::from_secs(60),
        ..Limits::default()
    });
    let (key, invite, _) = welcome(&h.handle(1, NEW_HUMAN));
    assert!(errors(&h.handle(1, r#"{"type":"move","move":"d5:b7"}"#)).is_empty());
    h.disconnect(1);
    let now = Instant::now();
    h.sweep(now);
    assert_eq!(h.games_in_memory(), 1, "not yet");
    h.sweep(now + Duration::from_secs(61));
    assert_eq!(
        h.games_in_memory(),
        0,
        "nobody seated for the retention time"
    );
    // Both keys still work: the game is loaded from the database.
    assert_eq!(h.record(&key).unwrap().unwrap().moves, ["d5:b7"]);
    let out = h.handle(2, &join(&invite.unwrap()));
    assert!(errors(&out).is_empty());
    assert!(out.messages.iter().any(
        |(_, m)| matches!(m, ServerMessage::State(s) if s.moves == ["d5:b7"] && s.turn == "white")
    ));
    assert!(errors(&h.handle(2, r#"{"type":"move","move":"e5:c7"}"#)).is_empty());
    assert!(errors(&h.handle(3, &join(&key))).is_empty());
    assert_eq!(h.record(&key).unwrap().unwrap().moves, ["d5:b7", "e5:c7"]);
}

#[test]
fn a_refused_save_is_tried_again_later_then_the_game_stops() {
    let (_dir, mut h, other, _) = hub_on_file("stops");
    let t = manual_clock(&mut h);
    let out = h.handle(1, r#"{"type":"new","opponent":"random","color":"white"}"#);
    let job = out.jobs.into_iter().next().unwrap();
    // Another process holds the database's write lock.
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    let m = *job.pos.legal_moves().iter().next().unwrap();
    let out = h.finish_job(&job, SearchOutcome::Move(m));
    assert!(
        errors(&out)[0].contains("trying again"),
        "{:?}",
        errors(&out)
    );
    assert!(
        out.jobs.is_empty() && states(&out).is_empty(),
        "no new search, no state"
    );
    assert!(out.rearm);
    let mut attempts = 1;
    let mut told = 1;
    while let Some(at) = h.next_wake() {
        let waited = at - *t.lock().unwrap();
        assert_eq!(
            waited,
            FIRST_RETRY * 2u32.pow(attempts - 1),
            "the waits double"
        );
        *t.lock().unwrap() = at;
        let out = h.wake(at);
        attempts += 1;
        told += errors(&out).len();
        assert!(out.jobs.is_empty());
        if attempts == SAVE_ATTEMPTS {
            assert!(errors(&out)[0].contains("stopped"), "{:?}", errors(&out));
            let s = states(&out)[0];
            assert!(s.stopped.is_some() && s.legal.is_empty() && s.moves.is_empty());
        }
    }
    assert_eq!(attempts, SAVE_ATTEMPTS);
    assert_eq!(
        told, 2,
        "the person hears of it twice: the first failure and the stop"
    );
    assert!(errors(&h.handle(1, r#"{"type":"move","move":"d4:b2"}"#))[0].contains("stopped"));
    drop(other);
}

#[test]
fn a_save_that_succeeds_on_a_later_attempt_plays_the_move() {
    let (_dir, mut h, other, _) = hub_on_file("recovers");
    let t = manual_clock(&mut h);
    let out = h.handle(1, r#"{"type":"new","opponent":"random","color":"white"}"#);
    let job = out.jobs.into_iter().next().unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    let m = *job.pos.legal_moves().iter().next().unwrap();
    h.finish_job(&job, SearchOutcome::Move(m));
    let at = h.next_wake().unwrap();
    *t.lock().unwrap() = at;
    assert!(
        h.wake(at).messages.is_empty(),
        "still locked: nothing to say"
    );
    other.execute_batch("COMMIT").unwrap();
    let at = h.next_wake().unwrap();
    let out = h.wake(at);
    assert!(errors(&out).is_empty());
    assert_eq!(states(&out)[0].moves, [m.to_string()]);
    assert_eq!(h.next_wake(), None);
    assert_eq!(h.record("key1").unwrap().unwrap().moves, [m.to_string()]);
}

#[test]
fn an_evicted_games_watchers_are_told() {
    let mut h = hub_with(Limits {
        max_games: 1,
        ..Limits::default()
    });
    let (_, _, watch) = welcome(&h.handle(1, NEW_HUMAN));
    assert!(errors(&h.handle(2, &join(&watch.unwrap()))).is_empty());
    h.disconnect(1);
    // The only game is unseated: a new one takes its place.
    let out = h.handle(3, NEW_HUMAN);
    let told: Vec<_> = out.messages.iter().filter(|(c, _)| *c == 2).collect();
    assert!(
        matches!(&told[..], [(_, ServerMessage::Error { message })] if message.contains("left the server's memory")),
        "{told:?}"
    );
}

/// Whether `out` tells `conn` that its seat moved, and whether it watches.
fn seat_moved_to(out: &Outbox, conn: ConnId) -> Option<bool> {
    out.messages.iter().find_map(|(c, m)| match m {
        ServerMessage::SeatMoved { watching, .. } if *c == conn => Some(*watching),
        _ => None,
    })
}

#[test]
fn the_same_player_in_another_tab_takes_the_seat_over() {
    let mut h = hub();
    h.connect(1, "10.0.0.1", None);
    h.connect(2, "10.0.0.2", Some(person("Bob")));
    let (key, invite, _) = welcome(&h.handle(1, NEW_HUMAN));
    assert!(errors(&h.handle(2, &join(&invite.clone().unwrap()))).is_empty());

    // Black opens the game in a second tab (same address, no cookie): the
    // new tab plays, the first one is told and watches.
    h.connect(3, "10.0.0.1", None);
    let out = h.handle(3, &join(&key));
    assert!(errors(&out).is_empty(), "{:?}", errors(&out));
    assert_eq!(welcome_to(&out, 3).0, "black");
    assert_eq!(seat_moved_to(&out, 1), Some(true));
    assert!(state_to(&out, 1).connected.0, "the seat stays connected");
    assert!(errors(&h.handle(1, &mv("d5:b7")))[0].contains("watchers cannot move"));
    let moved = h.handle(3, &mv("d5:b7"));
    assert!(errors(&moved).is_empty(), "{:?}", errors(&moved));
    assert_eq!(state_to(&moved, 1).moves, ["d5:b7"], "the old tab watches");

    // The first tab takes it back with the same key.
    let back = h.handle(1, &join(&key));
    assert_eq!(welcome_to(&back, 1).0, "black");
    assert_eq!(seat_moved_to(&back, 3), Some(true));

    // Bob on another machine, with his cookie, takes his seat over; someone
    // else at his address with another name cannot (a person is known by
    // the cookie when both connections have one; the address decides only
    // where one has none).
    h.connect(4, "10.0.0.9", Some(person("Bob")));
    h.connect(5, "10.0.0.2", Some(person("Eve")));
    let white = invite.unwrap();
    assert!(errors(&h.handle(5, &join(&white)))[0].contains("taken"));
    let out = h.handle(4, &join(&white));
    assert_eq!(welcome_to(&out, 4).0, "white");
    assert_eq!(seat_moved_to(&out, 2), Some(true));

    // A game that has its most watchers: the old tab leaves it instead.
    let mut h = hub_with(Limits {
        max_watchers: 0,
        ..Limits::default()
    });
    h.connect(1, "a", None);
    h.connect(2, "a", None);
    let (key, _, _) = welcome(&h.handle(1, NEW_HUMAN));
    let out = h.handle(2, &join(&key));
    assert_eq!(seat_moved_to(&out, 1), Some(false));
    assert!(errors(&h.handle(1, &mv("d5:b7")))[0].contains("join or start a game first"));
    // Free of the game, it may start another.
    assert!(errors(&h.handle(1, NEW_HUMAN)).is_empty());
}
