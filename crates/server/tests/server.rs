//! The game server over real WebSockets on loopback: protocol rules, and a
//! load test of 200 concurrent games between scripted clients.

mod common;

use common::{client, client_from, get, next, next_of, next_state_where, send, start_server, Ws};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;
use yolah::record::GameRecord;
use yolah::Rng;
use yolah_server::Limits;

/// A server for the tests: every client is on 127.0.0.1, so the
/// per-address bounds are raised; the rest are the defaults.
async fn start() -> String {
    start_server(
        &["random"],
        Limits {
            max_games_per_addr: 10_000,
            max_connections_per_addr: 10_000,
            ..Limits::default()
        },
    )
    .await
}

async fn refuse(ws: &mut Ws, message: Value, expected: &str) {
    send(ws, message).await;
    let reply = next_of(ws, "error").await;
    assert!(
        reply["message"].as_str().unwrap().contains(expected),
        "{reply}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_messages_are_refused_and_change_nothing() {
    let addr = start().await;
    let mut black = client(&addr).await;
    send(
        &mut black,
        json!({"type": "new", "opponent": "human", "color": "black"}),
    )
    .await;
    let welcome = next_of(&mut black, "welcome").await;
    let invite = welcome["invite"].as_str().unwrap().to_string();
    let watch = welcome["watch"].as_str().unwrap().to_string();
    assert_eq!(invite.len(), 32, "128-bit keys");
    let first = next_of(&mut black, "state").await;

    let mut white = client(&addr).await;
    send(&mut white, json!({"type": "join", "key": invite})).await;
    assert_eq!(next_of(&mut white, "welcome").await["role"], "white");
    let mut watcher = client(&addr).await;
    send(&mut watcher, json!({"type": "join", "key": watch})).await;
    assert_eq!(next_of(&mut watcher, "welcome").await["role"], "watcher");
    // Someone else, at another address, with the invite passed on (the
    // same player's second tab would take the seat over).
    let mut third = client_from(&addr, "127.0.0.3").await;
    send(&mut third, json!({"type": "join", "key": invite})).await;
    assert!(next(&mut third).await["message"]
        .as_str()
        .unwrap()
        .contains("taken"));
    send(
        &mut third,
        json!({"type": "join", "key": "0123456789abcdef0123456789abcdef"}),
    )
    .await;
    assert_eq!(next(&mut third).await["message"], "unknown key");

    refuse(
        &mut white,
        json!({"type": "move", "move": "d4:b2"}),
        "black's turn",
    )
    .await;
    refuse(
        &mut watcher,
        json!({"type": "move", "move": "d5:b7"}),
        "watchers cannot move",
    )
    .await;
    refuse(
        &mut black,
        json!({"type": "move", "move": "d5:e5"}),
        "illegal",
    )
    .await;
    refuse(
        &mut black,
        json!({"type": "move", "move": "d5-b7"}),
        "not a move",
    )
    .await;
    refuse(&mut black, json!({"type": "dance"}), "not a valid message").await;
    refuse(
        &mut black,
        json!({"type": "move", "move": "d5:b7", "key": "x"}),
        "unknown field",
    )
    .await;
    black.send(Message::Text("{not json".into())).await.unwrap();
    assert_eq!(next_of(&mut black, "error").await["type"], "error");

    // Nothing changed: the record is still empty.
    let (status, body) = get(&addr, &format!("/record?key={watch}")).await;
    assert_eq!(status, 200);
    assert!(GameRecord::parse(&body).unwrap().moves.is_empty());
    assert_eq!(first["moves"], json!([]));

    // An oversized message closes that connection; the game goes on.
    let mut big = client(&addr).await;
    let huge = json!({"type": "join", "key": "a".repeat(10_000)}).to_string();
    let _ = big.send(Message::Text(huge.into())).await;
    let closed = tokio::time::timeout(Duration::from_secs(10), big.next())
        .await
        .unwrap();
    assert!(!matches!(closed, Some(Ok(Message::Text(_)))), "{closed:?}");
    send(&mut black, json!({"type": "move", "move": "d5:b7"})).await;
    let state = next_of(&mut watcher, "state").await;
    assert_eq!(state["moves"], json!(["d5:b7"]));

    // White drops and comes back with its key; the game goes on.
    drop(white);
    // The server tells the game that White's seat is empty.
    next_state_where(&mut watcher, |s| s["connected"] == json!([true, false])).await;
    let mut again = client(&addr).await;
    send(&mut again, json!({"type": "join", "key": invite})).await;
    assert_eq!(next_of(&mut again, "welcome").await["role"], "white");
    assert_eq!(
        next_of(&mut again, "state").await["moves"],
        json!(["d5:b7"])
    );
    send(&mut again, json!({"type": "move", "move": "e5:c7"})).await;
    let state = next_of(&mut again, "state").await;
    assert_eq!(state["moves"], json!(["d5:b7", "e5:c7"]));
    assert_eq!(get(&addr, "/record?key=nope").await.0, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_against_the_computer_runs_to_the_end() {
    let addr = start().await;
    let mut me = client(&addr).await;
    send(
        &mut me,
        json!({"type": "new", "opponent": "random", "color": "white"}),
    )
    .await;
    let key = next_of(&mut me, "welcome").await["key"]
        .as_str()
        .unwrap()
        .to_string();
    let mut rng = Rng::new(4);
    loop {
        let s = next_of(&mut me, "state").await;
        if s["game_over"] == true {
            let (_, body) = get(&addr, &format!("/record?key={key}")).await;
            let end = GameRecord::parse(&body).unwrap().replay().unwrap();
            assert_eq!(end.to_text(), s["position"]);
            break;
        }
        if s["turn"] == "white" {
            let legal = s["legal"].as_array().unwrap();
            let m = &legal[rng.below(legal.len() as u32) as usize];
            send(&mut me, json!({"type": "move", "move": m})).await;
        }
    }
}

/// One side of a scripted game: plays random legal moves; returns the final
/// state and the latencies from each move sent to the state that follows.
async fn scripted(mut ws: Ws, role: &str, seed: u64) -> (Value, Vec<Duration>) {
    let mut rng = Rng::new(seed);
    let mut latencies = Vec::new();
    let mut sent: Option<Instant> = None;
    loop {
        let s = next_of(&mut ws, "state").await;
        if let Some(t) = sent.take() {
            latencies.push(t.elapsed());
        }
        if s["game_over"] == true {
            return (s, latencies);
        }
        if s["turn"] == role {
            let legal = s["legal"].as_array().unwrap();
            let m = legal[rng.below(legal.len() as u32) as usize].clone();
            sent = Some(Instant::now());
            send(&mut ws, json!({"type": "move", "move": m})).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_concurrent_games() {
    const GAMES: u64 = 200;
    let addr = start().await;
    let begin = Instant::now();
    let mut handles = Vec::new();
    for g in 0..GAMES {
        let addr = addr.clone();
        handles.push(tokio::spawn(async move {
            let mut black = client(&addr).await;
            send(
                &mut black,
                json!({"type": "new", "opponent": "human", "color": "black"}),
            )
            .await;
            let welcome = next_of(&mut black, "welcome").await;
            let invite = welcome["invite"].as_str().unwrap().to_string();
            let watch = welcome["watch"].as_str().unwrap().to_string();
            let mut white = client(&addr).await;
            send(&mut white, json!({"type": "join", "key": invite})).await;
            next_of(&mut white, "welcome").await;
            let b = tokio::spawn(scripted(black, "black", 2 * g));
            let w = tokio::spawn(scripted(white, "white", 2 * g + 1));
            let (b, w) = (b.await.unwrap(), w.await.unwrap());
            assert_eq!(b.0, w.0, "both players see the same final state");
            let (_, body) = get(&addr, &format!("/record?key={watch}")).await;
            let end = GameRecord::parse(&body).unwrap().replay().unwrap();
            assert_eq!(
                end.to_text(),
                b.0["position"],
                "the record replays to the final state"
            );
            [b.1, w.1].concat()
        }));
    }
    let mut latencies = Vec::new();
    for h in handles {
        latencies.extend(h.await.unwrap());
    }
    let seconds = begin.elapsed().as_secs_f64();
    latencies.sort();
    let p99 = latencies[latencies.len() * 99 / 100];
    eprintln!(
        "load: {GAMES} games, {} moves in {seconds:.2} s: {:.1} games/s, p99 move latency {:.2} ms",
        latencies.len(),
        GAMES as f64 / seconds,
        p99.as_secs_f64() * 1e3
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn floods_are_rate_limited() {
    let addr = start().await;
    let mut ws = client(&addr).await;
    for _ in 0..100 {
        send(&mut ws, json!({"type": "history"})).await;
    }
    // The burst is answered; the rest is dropped, with one notice.
    let mut replies = Vec::new();
    while let Ok(Some(Ok(Message::Text(t)))) =
        tokio::time::timeout(Duration::from_millis(500), ws.next()).await
    {
        replies.push(serde_json::from_str::<Value>(&t).unwrap());
    }
    let limited = replies
        .iter()
        .filter(|m| m["message"] == "too many messages: slow down")
        .count();
    assert_eq!(limited, 1, "{replies:?}");
    assert!(
        replies.len() <= 45,
        "{} replies to 100 messages",
        replies.len()
    );
}
