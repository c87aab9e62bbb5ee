//! A small WebSocket and HTTP client for the server's tests.

#![allow(dead_code)]

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{connect_async, MaybeTlsStream, WebSocketStream};

/// Starts a server on a free loopback port offering `players`, with an
/// in-memory database; its address.
pub async fn start_server(players: &[&str], limits: yolah_server::Limits) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let config = yolah_server::Config {
        players: players.iter().map(|s| s.to_string()).collect(),
        db: ":memory:".into(),
        limits,
        ..yolah_server::Config::default()
    };
    tokio::spawn(yolah_server::serve(
        listener,
        config,
        std::future::pending(),
    ));
    addr
}

/// A client's WebSocket.
pub type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Connects to `addr`'s `/ws` and reads the `hello`.
pub async fn client(addr: &str) -> Ws {
    let (mut ws, _) = connect_async(format!("ws://{addr}/ws")).await.unwrap();
    assert_eq!(next(&mut ws).await["type"], "hello");
    ws
}

/// Sends one JSON message.
pub async fn send(ws: &mut Ws, v: Value) {
    ws.send(Message::Text(v.to_string().into())).await.unwrap();
}

/// How long a test waits for a message it expects, in all.
const DEADLINE: Duration = Duration::from_secs(60);

/// The next JSON message before `end`, skipping other frames.
async fn next_before(ws: &mut Ws, end: tokio::time::Instant, waiting_for: &str) -> Value {
    loop {
        match tokio::time::timeout_at(end, ws.next()).await {
            Ok(Some(Ok(Message::Text(t)))) => return serde_json::from_str(&t).unwrap(),
            Ok(Some(Ok(_))) => continue,
            other => panic!("no {waiting_for} within {DEADLINE:?}: {other:?}"),
        }
    }
}

/// The next JSON message ([`DEADLINE`] at most), skipping other frames:
/// the deadline holds across them, so the server's pings cannot keep a
/// test waiting for a message that never comes.
pub async fn next(ws: &mut Ws) -> Value {
    next_before(ws, tokio::time::Instant::now() + DEADLINE, "message").await
}

/// Skips messages until a message for which `holds` is true, all within
/// [`DEADLINE`]; the panic names the last message skipped (an `error`,
/// usually, that says why the awaited one will not come).
async fn next_matching(ws: &mut Ws, what: &str, holds: impl Fn(&Value) -> bool) -> Value {
    let end = tokio::time::Instant::now() + DEADLINE;
    let mut skipped = Value::Null;
    loop {
        let waiting_for = format!("{what} (last message skipped: {skipped})");
        let v = next_before(ws, end, &waiting_for).await;
        if holds(&v) {
            return v;
        }
        skipped = v;
    }
}

/// Skips messages until one of type `kind`.
pub async fn next_of(ws: &mut Ws, kind: &str) -> Value {
    next_matching(ws, kind, |v| v["type"] == kind).await
}

/// Skips messages until a `state` for which `holds` is true.
pub async fn next_state_where(ws: &mut Ws, holds: impl Fn(&Value) -> bool) -> Value {
    next_matching(ws, "state", |v| v["type"] == "state" && holds(v)).await
}

/// The server's counters (`GET /stats`).
pub async fn stats(addr: &str) -> Value {
    serde_json::from_str(&http_get(addr, "/stats").await.1).unwrap()
}

/// Asks for `/stats` until `holds` is true of them, waiting a little longer
/// each time (from 10 ms to 200 ms), and panics with the last counters if
/// `deadline` passes first. For what the server does on its own time (a
/// closed connection noticed, a sweep), which no message announces.
pub async fn stats_once(addr: &str, deadline: Duration, holds: impl Fn(&Value) -> bool) -> Value {
    let end = Instant::now() + deadline;
    let mut pause = Duration::from_millis(10);
    loop {
        let s = stats(addr).await;
        if holds(&s) {
            return s;
        }
        assert!(
            Instant::now() < end,
            "the server's counters did not come true within {deadline:?}: {s}"
        );
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_millis(200));
    }
}

/// `GET path` on a fresh connection: the status and the body.
pub async fn http_get(addr: &str, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    let mut buf = String::new();
    s.read_to_string(&mut buf).await.unwrap();
    let status = buf[9..12].parse().unwrap();
    let body = buf
        .split_once("\r\n\r\n")
        .map(|x| x.1.to_string())
        .unwrap_or_default();
    (status, body)
}
