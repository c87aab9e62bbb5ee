//! The client side of `yolah serve`'s tests: WebSockets and raw HTTP over
//! loopback, as a real (or hostile) client meets the server.
//!
//! One copy for every test that talks to a server, in-process
//! (`crates/server/tests`) or a `yolah serve` process (`crates/cli/tests`),
//! so that a fix to how they wait reaches them all. Nothing here sleeps to
//! synchronise: every wait is for a message or a condition, under one
//! deadline ([`DEADLINE`]) that the server's pings cannot extend.

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use std::future::Future;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{client_async, connect_async, MaybeTlsStream, WebSocketStream};

/// The longest any single wait in the tests may take before it fails.
pub const DEADLINE: Duration = Duration::from_secs(60);

/// A client's WebSocket.
pub type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A TCP connection to `addr` from the local address `from` (loopback has
/// every `127.x.y.z`: each is a different client address to the server).
pub async fn tcp_from(addr: &str, from: &str) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket
        .bind(format!("{from}:0").parse::<SocketAddr>().unwrap())
        .unwrap();
    socket.connect(addr.parse().unwrap()).await.unwrap()
}

/// A WebSocket to `addr`'s `/ws`, its `hello` read.
pub async fn client(addr: &str) -> Ws {
    let (mut ws, _) = connect_async(format!("ws://{addr}/ws")).await.unwrap();
    assert_eq!(next(&mut ws).await["type"], "hello");
    ws
}

/// [`client`] from the local address `from`.
pub async fn client_from(addr: &str, from: &str) -> Ws {
    connect_from(addr, from, None).await.0
}

/// A WebSocket to `addr` from the local address `from`, bringing the
/// cookie `cookie` (`name=value`): the socket and its `hello`.
pub async fn client_with_cookie_from(addr: &str, cookie: &str, from: &str) -> (Ws, Value) {
    connect_from(addr, from, Some(cookie)).await
}

async fn connect_from(addr: &str, from: &str, cookie: Option<&str>) -> (Ws, Value) {
    let mut request = format!("ws://{addr}/ws").into_client_request().unwrap();
    if let Some(cookie) = cookie {
        request
            .headers_mut()
            .insert("Cookie", cookie.parse().unwrap());
    }
    let stream = MaybeTlsStream::Plain(tcp_from(addr, from).await);
    let (mut ws, _) = client_async(request, stream).await.unwrap();
    let hello = next(&mut ws).await;
    assert_eq!(hello["type"], "hello");
    (ws, hello)
}

/// Sends one JSON message.
pub async fn send(ws: &mut Ws, v: Value) {
    ws.send(Message::Text(v.to_string().into())).await.unwrap();
}

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

/// Skips messages until one for which `holds` is true, all within
/// [`DEADLINE`]; the panic names `what` and the last message skipped (an
/// `error`, usually, that says why the awaited one will not come).
pub async fn next_matching(ws: &mut Ws, what: &str, holds: impl Fn(&Value) -> bool) -> Value {
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

/// Skips messages until one for which `holds` is true.
pub async fn next_where(ws: &mut Ws, holds: impl Fn(&Value) -> bool) -> Value {
    next_matching(ws, "a message that holds", holds).await
}

/// Skips messages until a `state` for which `holds` is true.
pub async fn next_state_where(ws: &mut Ws, holds: impl Fn(&Value) -> bool) -> Value {
    next_matching(ws, "state", |v| v["type"] == "state" && holds(v)).await
}

/// A game against the computer `opponent`, the client playing `color`: the
/// connection and its welcome.
pub async fn new_game(addr: &str, opponent: &str, color: &str) -> (Ws, Value) {
    let mut ws = client(addr).await;
    let new = serde_json::json!({"type": "new", "opponent": opponent, "color": color});
    send(&mut ws, new).await;
    let welcome = next_of(&mut ws, "welcome").await;
    (ws, welcome)
}

/// Waits until `holds()` is true, looking again after short and growing
/// pauses (5 ms to 200 ms); panics with `what` after [`DEADLINE`]. For
/// what no message announces.
pub async fn until<F, Fut>(what: &str, mut holds: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let end = Instant::now() + DEADLINE;
    let mut pause = Duration::from_millis(5);
    while !holds().await {
        assert!(Instant::now() < end, "waited {DEADLINE:?} for {what}");
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_millis(200));
    }
}

/// An HTTP/1.1 request's raw text, sent on a fresh connection: the status
/// and the raw answer (head and body; the request should ask the server to
/// close after answering).
async fn exchange(addr: &str, request: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(request.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    tokio::time::timeout(DEADLINE, s.read_to_end(&mut buf))
        .await
        .expect("the server answers")
        .unwrap();
    let answer = String::from_utf8_lossy(&buf).into_owned();
    let status = answer.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, answer)
}

/// The body of a raw HTTP answer.
fn body(answer: &str) -> String {
    answer
        .split_once("\r\n\r\n")
        .map(|x| x.1.to_string())
        .unwrap_or_default()
}

/// An HTTP/1.1 request's raw text, sent on a fresh connection; the status
/// (0 if there was none) and the body.
pub async fn http(addr: &str, request: &str) -> (u16, String) {
    let (status, answer) = exchange(addr, request).await;
    (status, body(&answer))
}

/// `GET path`, with the server's own address as `Host`: the status and
/// the body.
pub async fn get(addr: &str, path: &str) -> (u16, String) {
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    http(addr, &request).await
}

/// The status of the answer to a raw request (only its first line is read:
/// the connection may stay open, as a WebSocket's does); `None` if the
/// server closed or reset the connection first.
pub async fn status_of(addr: &str, request: &str) -> Option<u16> {
    let mut s = TcpStream::connect(addr).await.ok()?;
    s.write_all(request.as_bytes()).await.ok()?;
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n") {
        match tokio::time::timeout(DEADLINE, s.read(&mut byte)).await {
            Ok(Ok(1)) => head.push(byte[0]),
            Ok(_) => return None,
            Err(_) => panic!("no answer to {request:?}"),
        }
    }
    String::from_utf8_lossy(&head).get(9..12)?.parse().ok()
}

/// The server's counters (`GET /stats`).
pub async fn stats(addr: &str) -> Value {
    let (status, body) = get(addr, "/stats").await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
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

/// `POST /name` with `name`, bringing `cookie` if given: the status, and
/// the cookie the answer sets (`yolah_name=…`), or the body if none.
pub async fn post_name(addr: &str, name: &str, cookie: Option<&str>) -> (u16, String) {
    let cookie = cookie.map_or(String::new(), |c| format!("Cookie: {c}\r\n"));
    let request = format!(
        "POST /name HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://{addr}\r\n{cookie}\
         Content-Length: {}\r\nConnection: close\r\n\r\n{name}",
        name.len()
    );
    let (status, answer) = exchange(addr, &request).await;
    let set = answer
        .lines()
        .find_map(|l| l.strip_prefix("set-cookie: "))
        .and_then(|c| c.split(';').next());
    (status, set.map_or_else(|| body(&answer), str::to_string))
}
