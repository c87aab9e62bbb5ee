//! Clocks: time runs for the side to move once Black has moved, the flag
//! falls by the hub's timer or by a late move (the same rule either way),
//! and a restart resumes each side with the time it had.

use super::*;

const SECOND: Duration = Duration::from_secs(1);

#[test]
fn a_move_at_the_instant_the_flag_falls_is_too_late() {
    let mut h = hub();
    let t = manual_clock(&mut h);
    two_people(&mut h, "1+0");
    assert_eq!(h.next_wake(), None, "no clock before Black's first move");
    let out = h.handle(1, &mv("d5:b7"));
    assert_eq!(
        state_to(&out, 2).clock.as_ref().unwrap().running.as_deref(),
        Some("white")
    );
    let deadline = h.next_wake().expect("White's flag");
    assert_eq!(deadline, *t.lock().unwrap() + 60 * SECOND);
    *t.lock().unwrap() = deadline;
    let late = h.handle(2, &mv("e5:c7"));
    assert!(
        errors(&late).iter().any(|e| e.contains("time ran out")),
        "{:?}",
        errors(&late)
    );
    let s = state_to(&late, 1);
    assert_eq!(s.result.as_deref(), Some("1-0"));
    assert_eq!(s.reason.as_deref(), Some("white ran out of time"));
    assert_eq!(s.moves, ["d5:b7"], "the late move was not played");
    assert_eq!(h.record("key1").unwrap().unwrap().metadata["result"], "1-0");
}

#[test]
fn a_move_a_millisecond_before_the_flag_counts_and_earns_the_increment() {
    let mut h = hub();
    let t = manual_clock(&mut h);
    two_people(&mut h, "3+2");
    h.handle(1, &mv("d5:b7"));
    *t.lock().unwrap() = h.next_wake().unwrap() - Duration::from_millis(1);
    let out = h.handle(2, &mv("e5:c7"));
    assert!(errors(&out).is_empty(), "{:?}", errors(&out));
    let clock = state_to(&out, 1).clock.clone().unwrap();
    assert_eq!((clock.white_ms, clock.black_ms), (2_001, 180_000));
    assert_eq!(clock.running.as_deref(), Some("black"));
}

#[test]
fn the_hubs_timer_lets_the_flag_fall_with_nobody_moving() {
    let mut h = hub();
    let t = manual_clock(&mut h);
    two_people(&mut h, "1+0");
    h.handle(1, &mv("d5:b7"));
    let deadline = h.next_wake().unwrap();
    assert!(h
        .wake(deadline - Duration::from_millis(1))
        .messages
        .is_empty());
    *t.lock().unwrap() = deadline;
    let out = h.wake(deadline);
    let s = state_to(&out, 1);
    assert!(s.game_over);
    assert_eq!(s.winner.as_deref(), Some("black"));
    assert_eq!(s.clock.as_ref().unwrap().white_ms, 0);
    assert_eq!(s.clock.as_ref().unwrap().running, None);
    assert_eq!(h.next_wake(), None);
    assert!(errors(&h.handle(1, &mv("e4:e3")))[0].contains("over"));
}

#[test]
fn the_computer_spends_its_share_of_the_clock() {
    let mut h = hub();
    h.connect(1, "a", None);
    let out = h.handle(
        1,
        r#"{"type":"new","opponent":"random","color":"white","clock":"3+2"}"#,
    );
    let job = &out.jobs[0];
    let clock = job.clock.expect("a timed game's search knows the clock");
    assert_eq!(clock.remaining, [180 * SECOND; 2]);
    assert_eq!(clock.increment, [2 * SECOND; 2]);
    assert!(errors(&h.handle(
        2,
        r#"{"type":"new","opponent":"random","color":"white","clock":"7+7"}"#
    ))[0]
        .contains("not one of 1+0, 3+2"));
}

#[test]
fn a_restart_resumes_each_side_with_the_time_it_had_after_its_last_move() {
    let (_dir, mut h, _, path) = hub_on_file("clock-restart");
    let t = manual_clock(&mut h);
    two_people(&mut h, "3+2");
    h.handle(1, &mv("d5:b7"));
    advance(&t, 10 * SECOND);
    h.handle(2, &mv("e5:c7")); // White: 180 - 10 + 2 = 172 s.
    advance(&t, 30 * SECOND); // Black thinks 30 s, then the server dies.
    drop(h);

    let mut h = new_hub(
        Store::open(path.to_str().unwrap()).unwrap(),
        Limits::default(),
    );
    let t = manual_clock(&mut h);
    // An hour of downtime is nobody's.
    advance(&t, 3600 * SECOND);
    let out = h.handle(3, &join("key1"));
    let clock = state_to(&out, 3).clock.clone().unwrap();
    assert_eq!((clock.black_ms, clock.white_ms), (180_000, 172_000));
    assert_eq!(clock.running.as_deref(), Some("black"));
    assert_eq!(h.next_wake(), Some(*t.lock().unwrap() + 180 * SECOND));
    advance(&t, 5 * SECOND);
    let out = h.handle(3, &mv("e4:e3"));
    assert!(errors(&out).is_empty(), "{:?}", errors(&out));
    assert_eq!(state_to(&out, 3).clock.as_ref().unwrap().black_ms, 177_000);
}
