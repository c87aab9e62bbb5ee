//! Attacks on what people do together, against a separate `yolah serve`
//! process, as a hostile client would try them: challenges, ratings
//! farmed with two cookies, and a seat's key passed on.

mod serving;

use serde_json::{json, Value};
use serving::*;

/// A game between people that `owner` creates as Black: its welcome.
async fn open_game(owner: &mut Ws) -> Value {
    send(
        owner,
        json!({"type": "new", "opponent": "human", "color": "black"}),
    )
    .await;
    next_of(owner, "welcome").await
}

/// A challenger who watches a game while waiting leaves it when the
/// challenge is accepted: a connection is in one game at a time, so a
/// closed one cannot stay among a game's watchers and fill them
/// (`--max-watchers 1`: the next watcher still gets in).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_accepted_challenger_stops_watching() {
    let s = serve(&["--db", ":memory:", "--max-watchers", "1"]);
    let mut owner = client(&s.addr).await;
    let watch = open_game(&mut owner).await["watch"].clone();

    let mut challenger = client(&s.addr).await;
    send(
        &mut challenger,
        json!({"type": "seek", "color": "black", "clock": "none"}),
    )
    .await;
    let lobby = next_of(&mut challenger, "lobby").await;
    let seek = lobby["seeks"][0]["id"].clone();
    send(&mut challenger, json!({"type": "join", "key": watch})).await;
    let welcome = next_of(&mut challenger, "welcome").await;
    assert_eq!(welcome["role"], "watcher", "{welcome}");

    let mut taker = client(&s.addr).await;
    send(&mut taker, json!({"type": "accept", "seek": seek})).await;
    assert_eq!(next_of(&mut challenger, "welcome").await["role"], "black");
    next_of(&mut taker, "welcome").await;
    drop(challenger);

    let mut watcher = client(&s.addr).await;
    send(&mut watcher, json!({"type": "join", "key": watch})).await;
    let answer = next_where(&mut watcher, |m| m["type"] != "hello").await;
    assert_eq!(answer["type"], "welcome", "{answer}");
    assert_eq!(answer["role"], "watcher", "{answer}");
}

/// One person with two cookies farms a rating by resigning one's games to
/// the other: from one machine, games between them are not rated (30 such
/// games took a rating from 1500 to 2162 before); from a second address
/// the same game is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_machine_cannot_farm_a_rating_with_two_cookies() {
    let s = serve(&["--db", ":memory:"]);
    let (_, farmer) = post_name(&s.addr, "Farmer", None).await;
    for (from, rated) in [
        ("127.0.0.1", false),
        ("127.0.0.1", false),
        ("127.0.0.2", true),
    ] {
        let (_, sock) = post_name(&s.addr, "Sock", None).await;
        let (mut winner, _) = client_with_cookie_from(&s.addr, &farmer, "127.0.0.1").await;
        let invite = open_game(&mut winner).await["invite"].clone();
        let (mut loser, _) = client_with_cookie_from(&s.addr, &sock, from).await;
        send(&mut loser, json!({"type": "join", "key": invite})).await;
        next_where(&mut winner, |m| {
            m["type"] == "state" && m["connected"][1] == true
        })
        .await;
        send(&mut winner, json!({"type": "move", "move": "d5:b7"})).await;
        next_where(&mut loser, |m| m["type"] == "state" && m["turn"] == "white").await;
        send(&mut loser, json!({"type": "move", "move": "e5:c7"})).await;
        next_where(&mut loser, |m| m["type"] == "state" && m["turn"] == "black").await;
        send(&mut loser, json!({"type": "resign"})).await;
        let over = next_where(&mut winner, |m| {
            m["type"] == "state" && m["game_over"] == true
        })
        .await;
        assert_eq!(over["winner"], "black", "{over}");
        assert_eq!(over["ratings"][0].is_i64(), rated, "from {from}: {over}");
    }
    let (_, hello) = client_with_cookie_from(&s.addr, &farmer, "127.0.0.1").await;
    assert!(hello["rating"].as_i64().unwrap() > 1500, "{hello}");
}

/// A seat's key opens the game in the same player's second tab, which takes
/// the seat over (the first one watches), but a key passed on to someone at
/// another address cannot take a connected seat, however often they try.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_tab_takes_its_seat_over_and_a_passed_on_key_does_not() {
    let s = serve(&["--db", ":memory:"]);
    let mut first = client_from(&s.addr, "127.0.0.1").await;
    let key = open_game(&mut first).await["key"].clone();

    let mut stranger = client_from(&s.addr, "127.0.0.9").await;
    for _ in 0..3 {
        send(&mut stranger, json!({"type": "join", "key": key})).await;
        let refused = next_of(&mut stranger, "error").await;
        assert!(
            refused["message"].as_str().unwrap().contains("taken"),
            "{refused}"
        );
    }

    let mut second = client_from(&s.addr, "127.0.0.1").await;
    send(&mut second, json!({"type": "join", "key": key})).await;
    assert_eq!(next_of(&mut second, "welcome").await["role"], "black");
    let moved = next_of(&mut first, "seat_moved").await;
    assert_eq!(moved["watching"], true, "{moved}");
    send(&mut second, json!({"type": "move", "move": "d5:b7"})).await;
    let seen = next_where(&mut first, |m| {
        m["type"] == "state" && m["moves"][0] == "d5:b7"
    })
    .await;
    assert_eq!(seen["connected"][0], true, "{seen}");
    send(&mut first, json!({"type": "move", "move": "e5:c7"})).await;
    let refused = next_of(&mut first, "error").await;
    assert!(
        refused["message"].as_str().unwrap().contains("watchers"),
        "{refused}"
    );

    // And back: the first tab plays again, the second watches.
    send(&mut first, json!({"type": "join", "key": key})).await;
    assert_eq!(next_of(&mut first, "welcome").await["role"], "black");
    next_of(&mut second, "seat_moved").await;
}
