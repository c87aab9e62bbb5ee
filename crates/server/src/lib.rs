//! # yolah-server
//!
//! `yolah serve`: a web page and a WebSocket game server, on top of `yolah`
//! (the rules) and `yolah-players` (the computer opponents).
//!
//! The page (`page.html`, compiled into the binary) talks JSON over `/ws`;
//! [`hub::Hub`] owns every game and checks every message. Computer moves are
//! searched on blocking worker threads, so a long search never stalls the
//! event loop. `GET /record?key=KEY` returns a game's JSON record.

#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod hub;
mod protocol;

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use futures_util::{SinkExt, StreamExt};
use hub::{ConnId, Hub, Outbox};
use protocol::{ServerMessage, MAX_MESSAGE_BYTES};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};

/// The page, served at `/`.
pub const PAGE: &str = include_str!("page.html");

/// Computer players a page may choose from, unless the server is told others.
pub const DEFAULT_PLAYERS: [&str; 5] = [
    "random",
    "mc:time=500ms",
    "mcts:time=500ms",
    "alphabeta:time=500ms",
    "alphabeta:time=2s",
];

/// Messages a connection may send per second on average, and in a burst.
const RATE_PER_SECOND: f64 = 20.0;
const BURST: f64 = 40.0;

struct Shared {
    hub: Mutex<Hub>,
    conns: Mutex<HashMap<ConnId, UnboundedSender<ServerMessage>>>,
    next_conn: AtomicU64,
}

/// An unguessable key: 128 bits from the operating system's CSPRNG, in hex.
pub fn random_key() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the operating system provides random bytes");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The server's routes, offering the computer players `players`.
pub fn router(players: Vec<String>) -> Router {
    let shared = Arc::new(Shared {
        hub: Mutex::new(Hub::new(players, Box::new(random_key))),
        conns: Mutex::new(HashMap::new()),
        next_conn: AtomicU64::new(1),
    });
    Router::new()
        .route("/", get(page))
        .route("/record", get(record))
        .route("/ws", get(websocket))
        .with_state(shared)
}

/// Serves on `listener` until the process ends.
pub async fn serve(listener: tokio::net::TcpListener, players: Vec<String>) -> std::io::Result<()> {
    axum::serve(listener, router(players)).await
}

async fn page() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], PAGE)
}

async fn record(
    State(shared): State<Arc<Shared>>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let found = q
        .get("key")
        .and_then(|k| shared.hub.lock().expect("hub lock").record(k));
    match found {
        Some(r) => (
            [
                (header::CONTENT_TYPE, "application/json"),
                (
                    header::CONTENT_DISPOSITION,
                    "attachment; filename=\"yolah-game.json\"",
                ),
            ],
            r.to_json(),
        )
            .into_response(),
        None => (StatusCode::NOT_FOUND, "unknown key\n").into_response(),
    }
}

async fn websocket(ws: WebSocketUpgrade, State(shared): State<Arc<Shared>>) -> Response {
    ws.max_message_size(MAX_MESSAGE_BYTES)
        .max_frame_size(MAX_MESSAGE_BYTES)
        .on_upgrade(move |socket| connection(socket, shared))
}

/// Delivers an outbox: messages to their connections, searches to worker
/// threads (whose results come back through the hub and here again).
fn dispatch(shared: &Arc<Shared>, out: Outbox) {
    {
        let conns = shared.conns.lock().expect("conns lock");
        for (conn, message) in out.messages {
            if let Some(tx) = conns.get(&conn) {
                // A closed receiver just means the connection is going away.
                let _ = tx.send(message);
            }
        }
    }
    for job in out.jobs {
        let shared = Arc::clone(shared);
        tokio::task::spawn_blocking(move || {
            let mut player = job.player;
            let m = player.choose_move(&job.pos);
            let next = shared
                .hub
                .lock()
                .expect("hub lock")
                .finish_job(job.game, job.pos, m, player);
            dispatch(&shared, next);
        });
    }
}

async fn connection(socket: WebSocket, shared: Arc<Shared>) {
    let id = shared.next_conn.fetch_add(1, Ordering::Relaxed);
    let (tx, mut rx) = unbounded_channel::<ServerMessage>();
    shared
        .conns
        .lock()
        .expect("conns lock")
        .insert(id, tx.clone());
    let (mut sink, mut stream) = socket.split();
    let writer = tokio::spawn(async move {
        while let Some(message) = rx.recv().await {
            let text = serde_json::to_string(&message).expect("server messages serialise");
            if sink.send(Message::Text(text.into())).await.is_err() {
                break;
            }
        }
    });
    let hello = shared.hub.lock().expect("hub lock").connect(id);
    dispatch(&shared, hello);
    // Token bucket: RATE_PER_SECOND on average, BURST at once.
    let mut tokens = BURST;
    let mut last = Instant::now();
    // Oversized or broken frames end the stream (and the connection).
    while let Some(Ok(message)) = stream.next().await {
        let text = match message {
            Message::Text(t) => t,
            Message::Binary(_) => {
                let _ = tx.send(ServerMessage::Error {
                    message: "send JSON text messages".into(),
                });
                continue;
            }
            Message::Close(_) => break,
            Message::Ping(_) | Message::Pong(_) => continue,
        };
        let now = Instant::now();
        tokens = (tokens + now.duration_since(last).as_secs_f64() * RATE_PER_SECOND).min(BURST);
        last = now;
        if tokens < 1.0 {
            let _ = tx.send(ServerMessage::Error {
                message: "too many messages: slow down".into(),
            });
            continue;
        }
        tokens -= 1.0;
        let out = shared
            .hub
            .lock()
            .expect("hub lock")
            .handle(id, text.as_str());
        dispatch(&shared, out);
    }
    shared.conns.lock().expect("conns lock").remove(&id);
    let out = shared.hub.lock().expect("hub lock").disconnect(id);
    dispatch(&shared, out);
    writer.abort();
}
