//! Attacks on what people do together, against a separate `yolah serve`
//! process: challenges, takebacks and ratings, as a hostile client would
//! try them.

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
