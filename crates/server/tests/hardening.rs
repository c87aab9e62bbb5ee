//! The server's bounds as a hostile or broken client meets them: close
//! codes, origins, timeouts, connection caps, shutdown, and games that
//! outlive the server.

mod common;

use common::{client, next_of, next_state_where, send, Ws};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::connect_async;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::Message;
use yolah_server::{Config, Limits};

struct Server {
    addr: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<Result<(), yolah_server::StoreError>>,
}

async fn start(limits: Limits, db: &str) -> Server {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let config = Config {
        players: vec!["random".into()],
        db: db.into(),
        limits,
        ..Config::default()
    };
    let task = tokio::spawn(yolah_server::serve(listener, config, async {
        let _ = rx.await;
    }));
    Server {
        addr,
        stop: Some(tx),
        task,
    }
}

fn relaxed() -> Limits {
    Limits {
        max_games_per_addr: 10_000,
        max_connections_per_addr: 10_000,
        ..Limits::default()
    }
}

/// The close code the server ends with (reading through anything else).
async fn close_code(ws: &mut Ws) -> Option<CloseCode> {
    loop {
        match tokio::time::timeout(Duration::from_secs(30), ws.next()).await {
            Ok(Some(Ok(Message::Close(frame)))) => return frame.map(|f| f.code),
            Ok(Some(Ok(_))) => continue,
            Ok(_) => return None,
            Err(_) => panic!("the server did not close"),
        }
    }
}

/// Whether the server closes a raw TCP connection (EOF) within `within`.
async fn closed_within(stream: &mut TcpStream, within: Duration) -> bool {
    let mut buf = [0u8; 1024];
    let deadline = Instant::now() + within;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, stream.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return true,
            Ok(Ok(_)) => continue,
            Err(_) => return false,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_messages_close_with_1009_and_nothing_else_changes() {
    let s = start(relaxed(), ":memory:").await;
    let mut ws = client(&s.addr).await;
    let huge = json!({"type": "join", "key": "a".repeat(10_000)}).to_string();
    let _ = ws.send(Message::Text(huge.into())).await;
    assert_eq!(close_code(&mut ws).await, Some(CloseCode::Size));
    // Arrays are refused as messages; the connection stays.
    let mut ws = client(&s.addr).await;
    ws.send(Message::Text(r#"["new","human","black"]"#.into()))
        .await
        .unwrap();
    assert!(next_of(&mut ws, "error").await["message"]
        .as_str()
        .unwrap()
        .contains("JSON object"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_origins_are_refused() {
    let s = start(relaxed(), ":memory:").await;
    let mut request = format!("ws://{}/ws", s.addr).into_client_request().unwrap();
    request
        .headers_mut()
        .insert("Origin", "https://evil.example".parse().unwrap());
    let refused = connect_async(request).await;
    assert!(
        refused.is_err(),
        "a page elsewhere may not drive the server"
    );
    let mut request = format!("ws://{}/ws", s.addr).into_client_request().unwrap();
    let own = format!("http://{}", s.addr);
    request.headers_mut().insert("Origin", own.parse().unwrap());
    assert!(
        connect_async(request).await.is_ok(),
        "the server's own page may"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_clients_lose_their_connection_and_free_their_seat() {
    let s = start(
        Limits {
            idle_timeout: Duration::from_millis(800),
            ping_interval: Duration::from_millis(200),
            header_timeout: Duration::from_millis(500),
            ..relaxed()
        },
        ":memory:",
    )
    .await;
    let mut ws = client(&s.addr).await;
    send(
        &mut ws,
        json!({"type": "new", "opponent": "human", "color": "black"}),
    )
    .await;
    let welcome = next_of(&mut ws, "welcome").await;
    let key = welcome["key"].as_str().unwrap().to_string();
    // `ws` stops reading (and so answering pings), like a frozen client; a
    // watcher hears when the server closes it and frees Black's seat.
    let mut watcher = client(&s.addr).await;
    send(
        &mut watcher,
        json!({"type": "join", "key": welcome["watch"]}),
    )
    .await;
    next_state_where(&mut watcher, |s| s["connected"] == json!([false, false])).await;
    let mut again = client(&s.addr).await;
    send(&mut again, json!({"type": "join", "key": key})).await;
    assert_eq!(next_of(&mut again, "welcome").await["role"], "black");
    drop(ws);

    // A TCP client that sends nothing, and one that trickles a header.
    let mut silent = TcpStream::connect(&s.addr).await.unwrap();
    let mut slow = TcpStream::connect(&s.addr).await.unwrap();
    slow.write_all(b"GET / HTTP/1.1\r\n").await.unwrap();
    let trickle = tokio::spawn(async move {
        for _ in 0..20 {
            if slow.write_all(b"X").await.is_err() {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        closed_within(&mut slow, Duration::from_millis(100)).await
    });
    assert!(closed_within(&mut silent, Duration::from_secs(5)).await);
    assert!(trickle.await.unwrap(), "a trickled header is cut off");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_are_capped_per_address() {
    let s = start(
        Limits {
            max_connections_per_addr: 3,
            ..Limits::default()
        },
        ":memory:",
    )
    .await;
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(TcpStream::connect(&s.addr).await.unwrap());
    }
    let mut fourth = TcpStream::connect(&s.addr).await.unwrap();
    assert!(closed_within(&mut fourth, Duration::from_secs(5)).await);
    // Another address is not held back by this one.
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.2:0".parse().unwrap()).unwrap();
    let other = socket.connect(s.addr.parse().unwrap()).await.unwrap();
    let mut other = other;
    other
        .write_all(b"GET /stats HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut body = String::new();
    other.read_to_string(&mut body).await.unwrap();
    assert!(body.starts_with("HTTP/1.1 200"), "{body}");
    assert!(body.contains("\"connections\":4"), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_sends_close_1001_and_games_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.db").to_str().unwrap().to_string();
    let mut s = start(relaxed(), &db).await;
    // A game between two people, and one against the computer.
    let mut black = client(&s.addr).await;
    send(
        &mut black,
        json!({"type": "new", "opponent": "human", "color": "black"}),
    )
    .await;
    let welcome = next_of(&mut black, "welcome").await;
    let (key, invite) = (welcome["key"].clone(), welcome["invite"].clone());
    send(&mut black, json!({"type": "move", "move": "d5:b7"})).await;
    next_of(&mut black, "state").await;
    let mut me = client(&s.addr).await;
    send(
        &mut me,
        json!({"type": "new", "opponent": "random", "color": "white"}),
    )
    .await;
    let my_key = next_of(&mut me, "welcome").await["key"].clone();
    let state = loop {
        let st = next_of(&mut me, "state").await;
        if st["turn"] == "white" {
            break st;
        }
    };
    // Stop: every client gets a Close 1001.
    s.stop.take().unwrap().send(()).unwrap();
    assert_eq!(close_code(&mut black).await, Some(CloseCode::Away));
    assert_eq!(close_code(&mut me).await, Some(CloseCode::Away));
    s.task.await.unwrap().unwrap();

    // A new server on the same database: the same keys, the same games.
    let s = start(relaxed(), &db).await;
    let mut white = client(&s.addr).await;
    send(&mut white, json!({"type": "join", "key": invite})).await;
    assert_eq!(next_of(&mut white, "welcome").await["role"], "white");
    assert_eq!(
        next_of(&mut white, "state").await["moves"],
        json!(["d5:b7"])
    );
    send(&mut white, json!({"type": "move", "move": "e5:c7"})).await;
    assert_eq!(
        next_of(&mut white, "state").await["moves"],
        json!(["d5:b7", "e5:c7"])
    );
    let mut black = client(&s.addr).await;
    send(&mut black, json!({"type": "join", "key": key})).await;
    assert_eq!(next_of(&mut black, "welcome").await["role"], "black");
    let mut me = client(&s.addr).await;
    send(&mut me, json!({"type": "join", "key": my_key})).await;
    next_of(&mut me, "welcome").await;
    assert_eq!(next_of(&mut me, "state").await["moves"], state["moves"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finished_games_are_in_the_archive() {
    let s = start(relaxed(), ":memory:").await;
    let mut me = client(&s.addr).await;
    send(
        &mut me,
        json!({"type": "new", "opponent": "random", "color": "black"}),
    )
    .await;
    let mut rng = yolah::Rng::new(3);
    loop {
        let st = next_of(&mut me, "state").await;
        if st["game_over"] == true {
            break;
        }
        if st["turn"] == "black" {
            let legal = st["legal"].as_array().unwrap();
            let m = legal[rng.below(legal.len() as u32) as usize].clone();
            send(&mut me, json!({"type": "move", "move": m})).await;
        }
    }
    let get = |path: String| {
        let addr = s.addr.clone();
        async move {
            let mut t = TcpStream::connect(&addr).await.unwrap();
            let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
            t.write_all(req.as_bytes()).await.unwrap();
            let mut out = String::new();
            t.read_to_string(&mut out).await.unwrap();
            out.split_once("\r\n\r\n").unwrap().1.to_string()
        }
    };
    let list: Value = serde_json::from_str(&get("/games".into()).await).unwrap();
    let game = &list["games"][0];
    assert_eq!(game["black"], "human");
    assert_eq!(game["white"], "random");
    let id = game["id"].as_u64().unwrap();
    let record = yolah::record::GameRecord::parse(&get(format!("/games/{id}")).await).unwrap();
    let end = record.replay().unwrap();
    assert!(end.is_game_over());
    assert_eq!(record.metadata["result"], end.outcome().notation());
    let history: Value = serde_json::from_str(&get(format!("/games/{id}/history")).await).unwrap();
    assert_eq!(
        history["positions"].as_array().unwrap().len(),
        record.moves.len() + 1
    );
}
