//! The lobby: open challenges, bounded, accepted by anyone else; the live
//! list; watching by number; and analyses, bounded and costed.

use super::*;
use crate::protocol::Lobby;
use yolah::Position;

fn lobby_to(out: &Outbox, conn: ConnId) -> &Lobby {
    out.messages
        .iter()
        .rev()
        .find_map(|(c, m)| match m {
            ServerMessage::Lobby(l) if *c == conn => Some(l),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no lobby to {conn}: {:?}", errors(out)))
}

const SEEK: &str = r#"{"type":"seek","color":"white","clock":"3+2"}"#;

#[test]
fn challenges_are_bounded_in_all_and_per_address() {
    let mut h = hub_with(Limits {
        max_seeks: 3,
        max_seeks_per_addr: 2,
        ..Limits::default()
    });
    for c in 1..=3 {
        h.connect(c, "10.0.0.1", None);
    }
    assert!(errors(&h.handle(1, SEEK)).is_empty());
    assert!(errors(&h.handle(1, SEEK))[0].contains("already have an open challenge"));
    assert!(errors(&h.handle(2, SEEK)).is_empty());
    assert!(errors(&h.handle(3, SEEK))[0].contains("2 open challenges"));
    h.connect(4, "10.0.0.2", None);
    h.connect(5, "10.0.0.3", None);
    assert!(errors(&h.handle(4, SEEK)).is_empty());
    assert!(errors(&h.handle(5, SEEK))[0].contains("the most the server holds"));
    // Withdrawn, or gone with its connection: room again.
    assert!(errors(&h.handle(4, r#"{"type":"cancel_seek"}"#)).is_empty());
    assert!(errors(&h.handle(4, r#"{"type":"cancel_seek"}"#))[0].contains("no open challenge"));
    h.disconnect(1);
    assert!(errors(&h.handle(3, SEEK)).is_empty());
    assert!(errors(&h.handle(5, SEEK)).is_empty());
    assert!(
        errors(&h.handle(5, r#"{"type":"seek","color":"purple","clock":"3+2"}"#))[0]
            .contains("purple")
    );
}

#[test]
fn a_challenge_is_accepted_by_someone_else_and_the_game_starts() {
    let mut h = hub();
    h.connect(1, "10.0.0.1", Some(person("Ada")));
    h.connect(2, "10.0.0.2", Some(person("Bob")));
    let out = h.handle(2, r#"{"type":"lobby"}"#);
    assert!(lobby_to(&out, 2).seeks.is_empty());
    let out = h.handle(1, SEEK);
    let mine = &lobby_to(&out, 1).seeks[0];
    assert!(mine.yours && mine.name.as_deref() == Some("Ada") && mine.clock == "3+2");
    // The others hear of it at the next tick, once.
    let tick = h.lobby_tick();
    let theirs = &lobby_to(&tick, 2).seeks[0];
    assert!(!theirs.yours);
    assert!(h.lobby_tick().messages.is_empty(), "nothing changed since");
    let id = theirs.id;
    assert!(
        errors(&h.handle(1, &format!(r#"{{"type":"accept","seek":{id}}}"#)))[0]
            .contains("your own")
    );
    let out = h.handle(2, &format!(r#"{{"type":"accept","seek":{id}}}"#));
    assert_eq!(
        welcome_to(&out, 1).0,
        "white",
        "the challenger plays the colour asked"
    );
    assert_eq!(welcome_to(&out, 2).0, "black");
    let s = state_to(&out, 1);
    assert_eq!(s.names, [Some("Bob".into()), Some("Ada".into())]);
    assert_eq!(s.clock.as_ref().unwrap().control, "3+2");
    assert!(
        errors(&h.handle(3, &format!(r#"{{"type":"accept","seek":{id}}}"#)))[0]
            .contains("no longer open")
    );
    // The game is in the live list; anyone may watch it by its number.
    h.handle(2, &mv("d5:b7"));
    let (live, total) = h.live(0, 10);
    assert_eq!((total, live[0].game, live[0].plies), (1, s.game, 1));
    let out = h.handle(7, &format!(r#"{{"type":"watch","game":{}}}"#, s.game));
    assert_eq!(welcome_to(&out, 7).0, "watcher");
    assert_eq!(state_to(&out, 7).moves, ["d5:b7"]);
    assert!(errors(&h.handle(8, r#"{"type":"watch","game":999}"#))[0].contains("not being played"));
    // Out of memory, an unfinished game is loaded for its watcher.
    h.evict(s.game);
    let out = h.handle(9, &format!(r#"{{"type":"watch","game":{}}}"#, s.game));
    assert_eq!(state_to(&out, 9).moves, ["d5:b7"]);
}

#[test]
fn analyses_are_one_per_connection_bounded_and_cost_more() {
    let mut h = hub_with(Limits {
        max_analyses: 2,
        ..Limits::default()
    });
    let start = Position::START.to_text();
    let ask = |pos: &str| format!(r#"{{"type":"analyse","position":"{pos}"}}"#);
    let first = h.handle(1, &ask(&start));
    assert_eq!(first.cost, analysis::ANALYSIS_COST);
    assert_eq!(first.jobs.len(), 1);
    // A new request from the same connection replaces the first.
    let again = h.handle(1, &ask(&start));
    assert!(first.jobs[0].stop.is_requested());
    assert_eq!(again.jobs.len(), 1);
    assert!(errors(&h.handle(2, &ask(&start))).is_empty());
    assert!(
        errors(&h.handle(3, &ask(&start)))[0].contains("busy"),
        "two connections wait"
    );
    assert!(errors(&h.handle(3, &ask("nonsense")))[0].contains("bad position"));
    // The stale answer is dropped; the current one goes to its asker.
    let report = SearchOutcome::Analysed(Box::new(crate::search::Report {
        analysis: yolah_players::Analysis {
            best_move: "d5:b7".parse().unwrap(),
            score: yolah_players::Score::Centipoints(150),
            depth: Some(2),
            iterations: None,
            nodes: 10,
            seconds: 0.0,
            pv: vec!["d5:b7".parse().unwrap()],
        },
        solved_margin: None,
    }));
    assert!(h
        .finish_job(&first.jobs[0], report.clone())
        .messages
        .is_empty());
    let out = h.finish_job(&again.jobs[0], report);
    match &out.messages[..] {
        [(1, ServerMessage::Analysis(a))] => {
            assert_eq!(
                (a.score, a.line.clone()),
                (Some(150), vec!["d5:b7".to_string()])
            );
        }
        other => panic!("{other:?}"),
    }
    // Room for another now.
    assert!(errors(&h.handle(3, &ask(&start))).is_empty());
}
