//! A real `yolah serve` process for the tests, as an attacker meets it: the
//! binary started on a free port, and clients that talk to it over TCP.
//! Nothing here sleeps to synchronise: every wait is for a condition, with
//! a deadline.
#![allow(dead_code)] // each test file uses some of these

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{client_async, connect_async, MaybeTlsStream, WebSocketStream};

/// The longest any single wait in these tests may take before it fails.
pub const DEADLINE: Duration = Duration::from_secs(60);

/// A running `yolah serve`, killed when dropped.
pub struct Served {
    child: Child,
    /// `127.0.0.1:PORT`.
    pub addr: String,
    stderr: Arc<Mutex<Vec<String>>>,
}

/// `yolah serve --port 0 ARGS…` (on `127.0.0.1`), once it says where it
/// serves. Every line it writes to stderr is kept ([`Served::stderr`]).
pub fn serve(args: &[&str]) -> Served {
    serve_with(Command::new(env!("CARGO_BIN_EXE_yolah")), args)
}

/// [`serve`], from a command already set up (to run it under `sh -c
/// 'ulimit …; exec …'`, say): `cmd` gets `serve --port 0 ARGS…` appended.
pub fn serve_with(mut cmd: Command, args: &[&str]) -> Served {
    let mut child = cmd
        .args(["serve", "--port", "0"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("yolah serve starts");
    let lines = Arc::new(Mutex::new(Vec::new()));
    let (tx, rx) = std::sync::mpsc::channel();
    {
        let lines = Arc::clone(&lines);
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            let mut told = false;
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if !told {
                    if let Some(rest) = line.split("serving http://").nth(1) {
                        let _ = tx.send(rest.split('/').next().unwrap().to_string());
                        told = true;
                    }
                }
                lines.lock().unwrap().push(line);
            }
        });
    }
    let addr = match rx.recv_timeout(DEADLINE) {
        Ok(addr) => addr,
        Err(_) => {
            let _ = child.kill();
            panic!("yolah serve did not start: {:?}", lines.lock().unwrap());
        }
    };
    Served {
        child,
        addr,
        stderr: lines,
    }
}

/// `yolah serve --port 0 ARGS…` that must fail: its exit status and its
/// standard error (it must exit within [`DEADLINE`]).
pub fn serve_fails(args: &[&str]) -> (std::process::ExitStatus, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_yolah"))
        .args(["serve", "--port", "0"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("yolah serve starts");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            panic!("yolah serve {args:?} did not exit");
        }
        std::thread::park_timeout(Duration::from_millis(20));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    (status, err)
}

impl Served {
    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What it has written to stderr so far, a line each.
    pub fn stderr(&self) -> Vec<String> {
        self.stderr.lock().unwrap().clone()
    }

    /// SIGKILL, and wait for it to be gone.
    pub fn kill9(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// A field of `/proc/PID/status` in kB (such as `VmRSS:`).
    pub fn status_kb(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix(field))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or_else(|| panic!("no {field} in /proc/PID/status"))
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits until `holds()` is true, looking again after short and growing
/// pauses; panics with `what` after [`DEADLINE`].
pub async fn until<F, Fut>(what: &str, mut holds: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let end = Instant::now() + DEADLINE;
    let mut pause = Duration::from_millis(5);
    while !holds().await {
        assert!(Instant::now() < end, "waited {DEADLINE:?} for {what}");
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_millis(200));
    }
}

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
    let stream = tcp_from(addr, from).await;
    let request = format!("ws://{addr}/ws").into_client_request().unwrap();
    let (ws, _) = client_async(request, MaybeTlsStream::Plain(stream))
        .await
        .unwrap();
    let mut ws = ws;
    assert_eq!(next(&mut ws).await["type"], "hello");
    ws
}

/// Sends one JSON message.
pub async fn send(ws: &mut Ws, v: Value) {
    ws.send(Message::Text(v.to_string().into())).await.unwrap();
}

/// The next JSON message, skipping other frames (within [`DEADLINE`] in
/// all: the server's pings do not make it wait longer).
pub async fn next(ws: &mut Ws) -> Value {
    let end = tokio::time::Instant::now() + DEADLINE;
    loop {
        match tokio::time::timeout_at(end, ws.next()).await {
            Ok(Some(Ok(Message::Text(t)))) => return serde_json::from_str(&t).unwrap(),
            Ok(Some(Ok(_))) => continue,
            other => panic!("no message: {other:?}"),
        }
    }
}

/// Skips messages until one of type `kind`.
pub async fn next_of(ws: &mut Ws, kind: &str) -> Value {
    loop {
        let v = next(ws).await;
        if v["type"] == kind {
            return v;
        }
    }
}

/// Skips messages until one for which `holds` is true.
pub async fn next_where(ws: &mut Ws, holds: impl Fn(&Value) -> bool) -> Value {
    loop {
        let v = next(ws).await;
        if holds(&v) {
            return v;
        }
    }
}

/// An HTTP/1.1 request's raw text, sent on a fresh connection; the status
/// and the body (the server closes after answering).
pub async fn http(addr: &str, request: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(request.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    tokio::time::timeout(DEADLINE, s.read_to_end(&mut buf))
        .await
        .expect("the server answers")
        .unwrap();
    let buf = String::from_utf8_lossy(&buf).into_owned();
    let status = buf.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = buf
        .split_once("\r\n\r\n")
        .map(|x| x.1.to_string())
        .unwrap_or_default();
    (status, body)
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

/// `GET path`, with the server's own address as `Host`.
pub async fn get(addr: &str, path: &str) -> (u16, String) {
    http(
        addr,
        &format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"),
    )
    .await
}

/// The server's counters.
pub async fn stats(addr: &str) -> Value {
    let (status, body) = get(addr, "/stats").await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

/// A game against the computer `spec`, the client playing `color`: the
/// connection and its welcome.
pub async fn new_game(addr: &str, opponent: &str, color: &str) -> (Ws, Value) {
    let mut ws = client(addr).await;
    send(
        &mut ws,
        serde_json::json!({"type": "new", "opponent": opponent, "color": color}),
    )
    .await;
    let welcome = next_of(&mut ws, "welcome").await;
    (ws, welcome)
}

/// `POST /name` with `name`, bringing `cookie` if given: the status, and
/// the cookie the answer sets (`yolah_name=…`), or the body if none.
pub async fn post_name(addr: &str, name: &str, cookie: Option<&str>) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let cookie = cookie.map_or(String::new(), |c| format!("Cookie: {c}\r\n"));
    let request = format!(
        "POST /name HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://{addr}\r\n{cookie}\
         Content-Length: {}\r\nConnection: close\r\n\r\n{name}",
        name.len()
    );
    let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    tcp.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    tcp.read_to_string(&mut answer).await.unwrap();
    let status = answer.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    let set = answer
        .lines()
        .find_map(|l| l.strip_prefix("set-cookie: "))
        .and_then(|c| c.split(';').next());
    let body = answer.split_once("\r\n\r\n").map_or("", |x| x.1);
    (status, set.unwrap_or(body).to_string())
}

/// A WebSocket to `addr` from the local address `from`, bringing
/// `cookie`: its `hello` read.
pub async fn client_with_cookie_from(addr: &str, cookie: &str, from: &str) -> (Ws, Value) {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut request = format!("ws://{addr}/ws").into_client_request().unwrap();
    request
        .headers_mut()
        .insert("Cookie", cookie.parse().unwrap());
    let stream = tokio_tungstenite::MaybeTlsStream::Plain(tcp_from(addr, from).await);
    let (mut ws, _) = tokio_tungstenite::client_async(request, stream)
        .await
        .unwrap();
    let hello = next(&mut ws).await;
    (ws, hello)
}
