//! The site's features against a separate `yolah serve` process: clocks
//! and takebacks that survive `kill -9`, flag races, bounded challenges,
//! analyses that cannot starve games, names in signed cookies and ratings,
//! the live list, and the new messages refused as strictly as the old.

mod serving;

use serde_json::{json, Value};
use serving::*;
use std::time::Duration;

/// A game between two people with `clock`: Black's and White's
/// connections, and the keys (Black's, White's).
async fn two_people(addr: &str, clock: &str) -> (Ws, Ws, String, String) {
    let mut black = client(addr).await;
    send(
        &mut black,
        json!({"type": "new", "opponent": "human", "color": "black", "clock": clock}),
    )
    .await;
    let welcome = next_of(&mut black, "welcome").await;
    let invite = welcome["invite"].as_str().unwrap().to_string();
    let mut white = client(addr).await;
    send(&mut white, json!({"type": "join", "key": invite})).await;
    next_of(&mut white, "welcome").await;
    (
        black,
        white,
        welcome["key"].as_str().unwrap().to_string(),
        invite,
    )
}

/// The next state with `n` moves.
async fn state_after(ws: &mut Ws, n: usize) -> Value {
    next_where(ws, |m| {
        m["type"] == "state" && m["moves"].as_array().unwrap().len() == n
    })
    .await
}

/// `kill -9` while Black thinks: after the restart each side has what it
/// had after its last move (Black's thinking before the kill is given
/// back; the time the server was down is nobody's), and Black's clock runs
/// again once the game is loaded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clocks_resume_after_kill_9_with_the_time_that_was_left() {
    let (_dir, db) = temp_db("clocks");
    let args = ["--db", db.as_str(), "--clocks", "3+2"];
    let s = serve(&args);
    let (mut black, mut white, black_key, white_key) = two_people(&s.addr, "3+2").await;
    send(&mut black, json!({"type": "move", "move": "d5:b7"})).await;
    state_after(&mut white, 1).await;
    send(&mut white, json!({"type": "move", "move": "e5:c7"})).await;
    let seen = state_after(&mut black, 2).await;
    let clock = &seen["clock"];
    assert_eq!(clock["running"], "black");
    // Black's first move was free; its clock has run since White moved.
    let black_left = clock["black_ms"].as_u64().unwrap();
    assert!((179_000..=180_000).contains(&black_left), "{clock}");
    let white_left = clock["white_ms"].as_u64().unwrap();
    assert!(white_left <= 182_000 && white_left > 170_000, "{clock}");
    s.kill9();

    let s = serve(&args);
    let mut back = client(&s.addr).await;
    send(&mut back, json!({"type": "join", "key": white_key})).await;
    let state = next_of(&mut back, "state").await;
    let clock = &state["clock"];
    assert_eq!(clock["white_ms"].as_u64(), Some(white_left), "{clock}");
    assert_eq!(clock["running"], "black");
    // What Black had after White's move: its thinking before the kill is
    // given back (the state was sent a moment after that move).
    assert!(clock["black_ms"].as_u64().unwrap() >= black_left, "{clock}");
    let mut black = client(&s.addr).await;
    send(&mut black, json!({"type": "join", "key": black_key})).await;
    next_of(&mut black, "state").await;
    send(&mut black, json!({"type": "move", "move": "e4:e3"})).await;
    let after = state_after(&mut back, 3).await;
    assert_eq!(after["clock"]["running"], "white");
}

/// A takeback between people, accepted, then `kill -9`: the restarted
/// server has the game as it was taken back (the moves are gone from the
/// database, not only from memory), with White's clock what it was before
/// its move; `/record` agrees.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_takeback_is_in_the_database_before_anyone_hears_of_it() {
    let (_dir, db) = temp_db("takeback");
    let args = ["--db", db.as_str(), "--clocks", "3+2"];
    let s = serve(&args);
    let (mut black, mut white, black_key, white_key) = two_people(&s.addr, "3+2").await;
    send(&mut black, json!({"type": "move", "move": "d5:b7"})).await;
    state_after(&mut white, 1).await;
    send(&mut white, json!({"type": "move", "move": "e5:c7"})).await;
    state_after(&mut black, 2).await;
    send(&mut white, json!({"type": "takeback"})).await;
    let asked = next_where(&mut black, |m| {
        m["type"] == "state" && m["takeback"] == "white"
    })
    .await;
    assert_eq!(asked["moves"].as_array().unwrap().len(), 2);
    send(&mut black, json!({"type": "takeback"})).await;
    let back = state_after(&mut white, 1).await;
    assert_eq!(
        (back["turn"].as_str(), back["takeback"].as_str()),
        (Some("white"), None)
    );
    // The time left when the state was sent: White's clock runs again.
    let white_ms = |state: &Value| state["clock"]["white_ms"].as_u64().unwrap();
    assert!((179_000..=180_000).contains(&white_ms(&back)), "{back}");
    assert_eq!(back["clock"]["running"], "white");
    s.kill9();

    let s = serve(&args);
    let mut again = client(&s.addr).await;
    send(&mut again, json!({"type": "join", "key": white_key})).await;
    let state = next_of(&mut again, "state").await;
    assert_eq!(state["moves"], json!(["d5:b7"]), "{state}");
    assert!((179_000..=180_000).contains(&white_ms(&state)), "{state}");
    let (status, record) = get(&s.addr, &format!("/record?key={black_key}")).await;
    assert_eq!(status, 200);
    let record: Value = serde_json::from_str(&record).unwrap();
    assert_eq!(record["moves"], json!(["d5:b7"]));
    // The game goes on from there.
    send(&mut again, json!({"type": "move", "move": "e5:h2"})).await;
    state_after(&mut again, 2).await;
}

/// Moves sent around the instant White's flag falls (3 s clocks): the
/// server's clock alone decides. Either the move counts (the game goes on)
/// or the flag fell first (the move is refused, the game is lost on time);
/// both players see the same, and the record after a restart agrees.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_racing_the_flag_is_decided_by_the_servers_clock() {
    let (_dir, db) = temp_db("flag");
    let args = ["--db", db.as_str(), "--clocks", "0.05+0"];
    let s = serve(&args);
    let mut outcomes = Vec::new();
    for offset_ms in [-150i64, -20, 0, 20, 150] {
        let (mut black, mut white, black_key, _) = two_people(&s.addr, "0.05+0").await;
        send(&mut black, json!({"type": "move", "move": "d5:b7"})).await;
        let seen = state_after(&mut white, 1).await;
        let left = seen["clock"]["white_ms"].as_i64().unwrap();
        // Deliberately racing: the move leaves near White's deadline.
        let at =
            tokio::time::Instant::now() + Duration::from_millis((left + offset_ms).max(0) as u64);
        tokio::time::sleep_until(at).await;
        send(&mut white, json!({"type": "move", "move": "e5:c7"})).await;
        let end = next_where(&mut black, |m| {
            m["type"] == "state"
                && (m["game_over"] == true || m["moves"].as_array().unwrap().len() == 2)
        })
        .await;
        let white_saw = next_where(&mut white, |m| {
            m["type"] == "state"
                && (m["game_over"] == true || m["moves"].as_array().unwrap().len() == 2)
        })
        .await;
        assert_eq!(end["moves"], white_saw["moves"]);
        assert_eq!(end["result"], white_saw["result"]);
        if end["game_over"] == true {
            assert_eq!(end["result"], "1-0");
            assert_eq!(end["reason"], "white ran out of time");
            assert_eq!(
                end["moves"],
                json!(["d5:b7"]),
                "the late move was not played"
            );
        } else {
            assert_eq!(end["clock"]["running"], "black");
        }
        outcomes.push((offset_ms, end["game_over"] == true, black_key));
    }
    eprintln!(
        "flag races (offset ms, flagged): {:?}",
        outcomes.iter().map(|o| (o.0, o.1)).collect::<Vec<_>>()
    );
    // Well before the flag the move counts; well after, the flag fell.
    assert!(!outcomes[0].1 && outcomes[4].1, "{outcomes:?}");
    s.kill9();
    let s = serve(&args);
    for (_, flagged, key) in &outcomes {
        let (status, body) = get(&s.addr, &format!("/record?key={key}")).await;
        assert_eq!(status, 200);
        let record: Value = serde_json::from_str(&body).unwrap();
        if *flagged {
            assert_eq!(record["result"], "1-0", "{record}");
            assert_eq!(record["termination"], "white ran out of time");
        } else {
            assert_eq!(record["moves"].as_array().unwrap().len(), 2, "{record}");
        }
    }
}

/// Challenges: bounded per address (`--max-seeks-per-addr 2`), seen by
/// everyone in the lobby, accepted from another address: both get their
/// seats.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn challenges_are_bounded_per_address_and_accepted_by_others() {
    let s = serve(&["--db", ":memory:", "--max-seeks-per-addr", "2"]);
    let seek = json!({"type": "seek", "color": "black", "clock": "5+3"});
    let mut seekers = Vec::new();
    for _ in 0..2 {
        let mut ws = client_from(&s.addr, "127.0.0.1").await;
        send(&mut ws, seek.clone()).await;
        next_of(&mut ws, "lobby").await;
        seekers.push(ws);
    }
    let mut third = client_from(&s.addr, "127.0.0.1").await;
    send(&mut third, json!({"type": "lobby"})).await;
    next_of(&mut third, "lobby").await;
    send(&mut third, seek.clone()).await;
    assert!(next_of(&mut third, "error").await["message"]
        .as_str()
        .unwrap()
        .contains("2 open challenges"));
    let mut taker = client_from(&s.addr, "127.0.0.5").await;
    send(&mut taker, json!({"type": "lobby"})).await;
    let lobby = next_of(&mut taker, "lobby").await;
    let seeks = lobby["seeks"].as_array().unwrap();
    assert_eq!(seeks.len(), 2);
    assert!(seeks
        .iter()
        .all(|s| s["yours"] == false && s["clock"] == "5+3"));
    let id = seeks[0]["id"].clone();
    send(&mut taker, json!({"type": "accept", "seek": id})).await;
    assert_eq!(next_of(&mut taker, "welcome").await["role"], "white");
    assert_eq!(next_of(&mut seekers[0], "welcome").await["role"], "black");
    // The others hear that one challenge is gone and a game is on.
    let after = next_where(&mut third, |m| {
        m["type"] == "lobby" && m["seeks"].as_array().unwrap().len() == 1
    })
    .await;
    assert_eq!(after["live_total"], 1, "{after}");
}

/// Analyses cannot starve games: with two search threads, analyses take
/// one at most, and a game's move goes before any analysis waiting. Ten
/// connections each ask about a position (two seconds each); a game
/// against `random` gets its computer's move before a second analysis has
/// finished. An analysis costs twenty messages of the sender's rate.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn analyses_cannot_starve_games_and_cost_in_the_rate_limit() {
    let s = serve(&[
        "--db",
        ":memory:",
        "--search-threads",
        "2",
        "--analysis",
        "alphabeta",
        "--analysis-time",
        "2s",
        "--players",
        "random",
    ]);
    let start = "w6b/8/8/3bw3/3wb3/8/8/b6w b 0 0 0";
    let mut askers = Vec::new();
    for i in 0..10 {
        let mut ws = client_from(&s.addr, &format!("127.0.1.{i}")).await;
        send(&mut ws, json!({"type": "analyse", "position": start})).await;
        askers.push(ws);
    }
    let answered = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let waiting: Vec<_> = askers
        .into_iter()
        .map(|mut ws| {
            let answered = std::sync::Arc::clone(&answered);
            tokio::spawn(async move {
                let a = next_of(&mut ws, "analysis").await;
                answered.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                a
            })
        })
        .collect();
    let (mut player, _) = new_game(&s.addr, "random", "white").await;
    state_after(&mut player, 1).await;
    let done = answered.load(std::sync::atomic::Ordering::SeqCst);
    assert!(done <= 1, "{done} analyses went before the game's move");
    let first = waiting.into_iter().next().unwrap().await.unwrap();
    assert_eq!(first["position"], start);
    assert!(
        first["line"].as_array().is_some_and(|l| !l.is_empty()),
        "{first}"
    );

    // Each analysis costs 20 of a burst of 40 tokens, refilled at 20 a
    // second: the third one sent at once is refused, unless the server
    // reads them far apart (a loaded machine), so ten are sent, which no
    // refill can pay for within the test's deadline.
    let mut greedy = client_from(&s.addr, "127.0.2.1").await;
    for _ in 0..10 {
        send(&mut greedy, json!({"type": "analyse", "position": start})).await;
    }
    next_where(&mut greedy, |m| {
        m["type"] == "error" && m["message"] == "too many messages: slow down"
    })
    .await;
}

/// A WebSocket to `addr` bringing `cookie`, its `hello` read.
async fn client_with_cookie(addr: &str, cookie: &str) -> (Ws, Value) {
    client_with_cookie_from(addr, cookie, "127.0.0.1").await
}

/// Names without accounts: `POST /name` sets a signed cookie; a connection
/// that brings it is greeted by that name, and its games show it; a forged
/// cookie is ignored, and a bad name refused with the reason.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_is_kept_in_a_signed_cookie() {
    let s = serve(&["--db", ":memory:"]);
    let (status, cookie) = post_name(&s.addr, "Ada", None).await;
    assert_eq!(status, 200);
    assert!(cookie.starts_with("yolah_name="), "{cookie}");
    let (status, body) = post_name(&s.addr, "<b>", None).await;
    assert_eq!(status, 400);
    assert!(body.contains("'<'"), "{body}");

    let (mut ws, hello) = client_with_cookie(&s.addr, &cookie).await;
    assert_eq!(hello["name"], "Ada");
    send(
        &mut ws,
        json!({"type": "new", "opponent": "random", "color": "black"}),
    )
    .await;
    assert_eq!(
        next_of(&mut ws, "state").await["names"],
        json!(["Ada", null])
    );
    // "Ada" → "Bob" with the same id and signature.
    let parts: Vec<&str> = cookie.split('.').collect();
    let forged = format!("{}.426f62.{}", parts[0], parts[2]);
    let (_, hello) = client_with_cookie(&s.addr, &forged).await;
    assert_eq!(hello["name"], Value::Null);
}

/// Ratings between people: a game between two named people (a move each,
/// then a resignation) moves both ratings (Glicko-2, from 1500); they are
/// kept in the database across `kill -9`, shown to each person and with
/// their challenge, and follow a person who changes their name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ratings_follow_the_person_across_games_names_and_restarts() {
    let (_dir, db) = temp_db("ratings");
    let args = ["--db", db.as_str()];
    let s = serve(&args);
    let (_, ada) = post_name(&s.addr, "Ada", None).await;
    let (_, bob) = post_name(&s.addr, "Bob", None).await;
    let (mut black, hello) = client_with_cookie(&s.addr, &ada).await;
    assert_eq!(hello["rating"], Value::Null, "no rated game yet");
    send(
        &mut black,
        json!({"type": "new", "opponent": "human", "color": "black"}),
    )
    .await;
    let invite = next_of(&mut black, "welcome").await["invite"].clone();
    // From another address: one machine's games are not rated.
    let (mut white, _) = client_with_cookie_from(&s.addr, &bob, "127.0.0.2").await;
    send(&mut white, json!({"type": "join", "key": invite})).await;
    send(&mut black, json!({"type": "move", "move": "d5:b7"})).await;
    state_after(&mut white, 1).await;
    send(&mut white, json!({"type": "move", "move": "e5:c7"})).await;
    state_after(&mut black, 2).await;
    send(&mut black, json!({"type": "resign"})).await;
    let over = next_where(&mut white, |m| {
        m["type"] == "state" && m["game_over"] == true
    })
    .await;
    let ratings = over["ratings"].as_array().unwrap().clone();
    let (lost, won) = (ratings[0].as_i64().unwrap(), ratings[1].as_i64().unwrap());
    assert!(lost < 1500 && won > 1500, "{over}");
    s.kill9();

    let s = serve(&args);
    let (mut bob_again, hello) = client_with_cookie(&s.addr, &bob).await;
    assert_eq!(hello["rating"], won);
    send(
        &mut bob_again,
        json!({"type": "seek", "color": "random", "clock": "none"}),
    )
    .await;
    let lobby = next_of(&mut bob_again, "lobby").await;
    assert_eq!(lobby["seeks"][0]["rating"], won, "{lobby}");
    // Ada becomes Ada L.: the same person, the same rating.
    let (status, renamed) = post_name(&s.addr, "Ada L.", Some(&ada)).await;
    assert_eq!(status, 200);
    let (_, hello) = client_with_cookie(&s.addr, &renamed).await;
    assert_eq!(
        (hello["name"].as_str(), hello["rating"].as_i64()),
        (Some("Ada L."), Some(lost))
    );
    // Another "Ada" is another person.
    let (_, other) = post_name(&s.addr, "Ada", None).await;
    let (_, hello) = client_with_cookie(&s.addr, &other).await;
    assert_eq!(hello["rating"], Value::Null);
}

/// The live list pages through the games being played; anyone may watch
/// one by its number. Every new message is as strict as the old: a field
/// it does not have, or one of the wrong type, is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_live_list_pages_and_new_messages_are_strict() {
    let s = serve(&["--db", ":memory:", "--players", "random"]);
    let mut players = Vec::new();
    for _ in 0..3 {
        let (mut ws, _) = new_game(&s.addr, "random", "black").await;
        send(&mut ws, json!({"type": "move", "move": "d5:b7"})).await;
        state_after(&mut ws, 2).await;
        players.push(ws);
    }
    let (status, body) = get(&s.addr, "/live?offset=1&limit=1").await;
    assert_eq!(status, 200);
    let page: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(page["total"], 3);
    let games = page["games"].as_array().unwrap();
    assert_eq!(games.len(), 1);
    assert_eq!(get(&s.addr, "/live?limit=x").await.0, 400);
    let mut watcher = client(&s.addr).await;
    send(
        &mut watcher,
        json!({"type": "watch", "game": games[0]["game"]}),
    )
    .await;
    assert_eq!(next_of(&mut watcher, "welcome").await["role"], "watcher");
    assert_eq!(
        next_of(&mut watcher, "state").await["game"],
        games[0]["game"]
    );
    for bad in [
        json!({"type": "resign", "now": true}),
        json!({"type": "seek", "color": "black"}),
        json!({"type": "accept", "seek": "one"}),
        json!({"type": "analyse", "position": 7}),
        json!({"type": "watch", "game": "one"}),
        json!({"type": "history", "from": 0}),
        json!({"type": "offer_draw", "to": "white"}),
        json!({"type": "decline_draw", "why": "no"}),
        json!({"type": "takeback", "move": "d5:b7"}),
        json!({"type": "decline_takeback", "why": "no"}),
        json!({"type": "rematch", "colors": "same"}),
        json!({"type": "lobby", "page": 2}),
        json!({"type": "cancel_seek", "seek": 1}),
        json!({"type": "new", "opponent": "random", "color": "black", "clock": 3}),
    ] {
        send(&mut watcher, bad.clone()).await;
        let refused = next_of(&mut watcher, "error").await;
        assert!(
            refused["message"]
                .as_str()
                .unwrap()
                .contains("not a valid message"),
            "{bad}: {refused}"
        );
    }
    assert_eq!(get(&s.addr, "/favicon.ico").await.0, 200);
}
