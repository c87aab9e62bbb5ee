//! # yolah-server
//!
//! `yolah serve`: a web page and a WebSocket game server, on top of `yolah`
//! (the rules) and `yolah-players` (the computer opponents).
//!
//! The page (`page.html`, compiled into the binary) talks JSON over `/ws`;
//! the hub owns the games in memory and checks every message; the store
//! (SQLite) keeps every game and move, so games outlive the process; a fixed
//! pool of threads runs the computer players' searches. Every resource a
//! client can make the server hold is bounded by [`Limits`].
//!
//! Routes: `/` the page, `/ws` the game protocol (`docs/protocol.md`),
//! `/record?key=KEY` a game's JSON record, `/games` the archive of finished
//! games (JSON, newest first, `?before=ID&limit=N`), `/games/ID` a finished
//! game's record, `/games/ID/history` its positions for the page's replay,
//! `/stats` the server's counters.
#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod hub;
mod limits;
mod net;
mod protocol;
mod search;
mod store;
mod ws;

pub use limits::Limits;
pub use store::StoreError;

use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Json, Router};
use hub::{ConnId, Hub, Outbox};
use protocol::ServerMessage;
use search::{Job, Pool};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use ws::{Handle, Outgoing};

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

/// Games one `/games` page lists at most.
const MAX_ARCHIVE_PAGE: usize = 100;

/// How the server runs.
#[derive(Clone, Debug)]
pub struct Config {
    /// The computer players offered.
    pub players: Vec<String>,
    /// The database file, or `:memory:`.
    pub db: String,
    /// Origins other than the server's own that may open `/ws`, such as
    /// `https://example.com`.
    pub allowed_origins: Vec<String>,
    /// The bounds.
    pub limits: Limits,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            players: DEFAULT_PLAYERS.iter().map(|s| s.to_string()).collect(),
            db: ":memory:".into(),
            allowed_origins: Vec::new(),
            limits: Limits::default(),
        }
    }
}

/// What every connection and search thread shares.
pub(crate) struct Shared {
    hub: Mutex<Hub>,
    conns: Mutex<HashMap<ConnId, Handle>>,
    next_conn: AtomicU64,
    pool: Mutex<Option<Pool>>,
    limits: Limits,
    allowed_origins: Vec<String>,
    shutdown: tokio::sync::watch::Sender<bool>,
    counter: Arc<net::Counter>,
    /// Protocol messages queued to clients since the start.
    messages_sent: AtomicU64,
}

impl Shared {
    /// The hub. A panic while it was held cannot have left a half-made move
    /// (moves are stored, then applied), so a poisoned lock is still used.
    fn hub(&self) -> MutexGuard<'_, Hub> {
        self.hub.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn conns(&self) -> MutexGuard<'_, HashMap<ConnId, Handle>> {
        self.conns.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues `message` for `conn`; a connection whose queue is full does
    /// not read, and is told to go.
    fn send(&self, conn: ConnId, message: ServerMessage) {
        let mut conns = self.conns();
        let full = match conns.get(&conn) {
            Some(h) => {
                self.messages_sent.fetch_add(1, Ordering::Relaxed);
                h.tx.try_send(Outgoing::Message(message)).is_err()
            }
            None => false,
        };
        if full {
            if let Some(h) = conns.remove(&conn) {
                h.kill.notify_one();
            }
        }
    }

    /// Delivers an outbox: messages to their connections, searches to the
    /// pool.
    fn dispatch(&self, out: Outbox) {
        for (conn, message) in out.messages {
            self.send(conn, message);
        }
        if out.jobs.is_empty() {
            return;
        }
        let pool = self.pool.lock().unwrap_or_else(PoisonError::into_inner);
        match pool.as_ref() {
            Some(pool) => out.jobs.into_iter().for_each(|job| pool.submit(job)),
            // Shutting down: nobody will search.
            None => out.jobs.iter().for_each(|job| job.stop.request()),
        }
    }
}

/// An unguessable key: 128 bits from the operating system's CSPRNG, in hex.
pub fn random_key() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the operating system provides random bytes");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Serves on `listener` until `shutdown` completes: then stops accepting,
/// closes every WebSocket with code 1001 after what was queued for it, and
/// waits (a few seconds at most) for open exchanges to end.
pub async fn serve(
    listener: TcpListener,
    config: Config,
    shutdown: impl std::future::Future<Output = ()>,
) -> Result<(), StoreError> {
    let store = store::Store::open(&config.db)?;
    let limits = config.limits.clone();
    let (shutdown_tx, shutdown_rx) = tokio::sync::watch::channel(false);
    let shared = Arc::new(Shared {
        hub: Mutex::new(Hub::new(
            config.players.clone(),
            Box::new(random_key),
            store,
            limits.clone(),
        )),
        conns: Mutex::new(HashMap::new()),
        next_conn: AtomicU64::new(1),
        pool: Mutex::new(None),
        limits: limits.clone(),
        allowed_origins: config.allowed_origins.clone(),
        shutdown: shutdown_tx,
        counter: net::Counter::new(limits.max_connections, limits.max_connections_per_addr),
        messages_sent: AtomicU64::new(0),
    });
    let weak: Weak<Shared> = Arc::downgrade(&shared);
    let on_done = Arc::new(move |job: &Job, outcome| {
        if let Some(shared) = weak.upgrade() {
            let out = shared.hub().finish_search(job, outcome);
            shared.dispatch(out);
        }
    });
    *shared.pool.lock().unwrap_or_else(PoisonError::into_inner) = Some(Pool::new(
        limits.search_threads,
        {
            let threads = limits.threads_per_search;
            Arc::new(move |spec: &str| {
                search::make_player(&yolah_players::with_default_threads(spec, threads))
            })
        },
        on_done,
    ));

    // Retention: every few seconds, drop what has been kept long enough.
    let sweeper = {
        let shared = Arc::clone(&shared);
        let every =
            (limits.retention / 10).clamp(Duration::from_millis(100), Duration::from_secs(5));
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            loop {
                tick.tick().await;
                let out = shared.hub().sweep(Instant::now());
                shared.dispatch(out);
            }
        })
    };

    let accept = tokio::spawn(net::accept_loop(
        listener,
        router(Arc::clone(&shared)),
        Arc::clone(&shared.counter),
        limits.header_timeout,
        shutdown_rx,
        Duration::from_secs(5),
    ));
    shutdown.await;
    // Stop accepting and close every WebSocket (each sends its Close).
    let _ = shared.shutdown.send(true);
    let _ = accept.await;
    let deadline = Instant::now() + Duration::from_secs(5);
    while !shared.conns().is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    sweeper.abort();
    // Stop the searches and the workers.
    let pool = shared
        .pool
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take();
    shared.hub().stop_searches();
    let _ = tokio::task::spawn_blocking(move || drop(pool)).await;
    Ok(())
}

/// [`serve`] until SIGTERM or SIGINT (Ctrl-C).
pub async fn serve_until_signal(listener: TcpListener, config: Config) -> Result<(), StoreError> {
    serve(listener, config, async {
        let ctrl_c = tokio::signal::ctrl_c();
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            match signal(SignalKind::terminate()) {
                Ok(mut term) => {
                    tokio::select! {
                        _ = ctrl_c => {}
                        _ = term.recv() => {}
                    }
                }
                Err(_) => {
                    let _ = ctrl_c.await;
                }
            }
        }
        #[cfg(not(unix))]
        {
            let _ = ctrl_c.await;
        }
        eprintln!("yolah serve: shutting down");
    })
    .await
}

fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/", get(page))
        .route("/record", get(record))
        .route("/games", get(archive))
        .route("/games/{id}", get(archived_record))
        .route("/games/{id}/history", get(archived_history))
        .route("/ws", get(websocket))
        .route("/stats", get(stats))
        .with_state(shared)
}

/// The server's counters: `games_in_memory`, `connections`, `websockets`,
/// `searches_queued`, `messages_sent`.
async fn stats(State(shared): State<Arc<Shared>>) -> Response {
    let queued = shared
        .pool
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .as_ref()
        .map_or(0, Pool::queued);
    Json(serde_json::json!({
        "games_in_memory": shared.hub().games_in_memory(),
        "connections": shared.counter.open(),
        "websockets": shared.conns().len(),
        "searches_queued": queued,
        "messages_sent": shared.messages_sent.load(Ordering::Relaxed),
    }))
    .into_response()
}

async fn page() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], PAGE)
}

fn json_download(record: &yolah::record::GameRecord, name: &str) -> Response {
    (
        [
            (header::CONTENT_TYPE, "application/json".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
        ],
        record.to_json(),
    )
        .into_response()
}

fn server_error(e: StoreError) -> Response {
    eprintln!("yolah serve: {e}");
    (StatusCode::INTERNAL_SERVER_ERROR, "database error\n").into_response()
}

async fn record(
    State(shared): State<Arc<Shared>>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let Some(key) = q.get("key") else {
        return (StatusCode::BAD_REQUEST, "give ?key=KEY\n").into_response();
    };
    match shared.hub().record(key) {
        Ok(Some(r)) => json_download(&r, "yolah-game.json"),
        Ok(None) => (StatusCode::NOT_FOUND, "unknown key\n").into_response(),
        Err(e) => server_error(e),
    }
}

async fn archive(
    State(shared): State<Arc<Shared>>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let number = |k: &str| q.get(k).map(|v| v.parse::<u64>());
    let before = match number("before").transpose() {
        Ok(b) => b,
        Err(_) => {
            return (StatusCode::BAD_REQUEST, "before= must be a game number\n").into_response()
        }
    };
    let limit = match number("limit").transpose() {
        Ok(l) => l.map_or(20, |l| (l as usize).clamp(1, MAX_ARCHIVE_PAGE)),
        Err(_) => return (StatusCode::BAD_REQUEST, "limit= must be a number\n").into_response(),
    };
    match shared.hub().archive(before, limit) {
        Ok(games) => {
            let next = (games.len() == limit)
                .then(|| games.last().map(|g| g.id))
                .flatten();
            Json(serde_json::json!({ "games": games, "next_before": next })).into_response()
        }
        Err(e) => server_error(e),
    }
}

async fn archived_record(State(shared): State<Arc<Shared>>, Path(id): Path<u64>) -> Response {
    match shared.hub().archived_record(id) {
        Ok(Some(r)) => json_download(&r, &format!("yolah-game-{id}.json")),
        Ok(None) => (StatusCode::NOT_FOUND, "no finished game with that number\n").into_response(),
        Err(e) => server_error(e),
    }
}

async fn archived_history(State(shared): State<Arc<Shared>>, Path(id): Path<u64>) -> Response {
    let record = match shared.hub().archived_record(id) {
        Ok(Some(r)) => r,
        Ok(None) => {
            return (StatusCode::NOT_FOUND, "no finished game with that number\n").into_response()
        }
        Err(e) => return server_error(e),
    };
    let mut pos = yolah::Position::START;
    let mut positions = vec![pos.to_text()];
    for text in &record.moves {
        if let Ok(m) = text.parse() {
            pos.play(m);
        }
        positions.push(pos.to_text());
    }
    Json(serde_json::json!({
        "type": "history",
        "positions": positions,
        "moves": record.moves,
        "black": record.metadata.get("black"),
        "white": record.metadata.get("white"),
        "result": record.metadata.get("result"),
    }))
    .into_response()
}

/// Whether a WebSocket may be opened from the page at `Origin`: the
/// server's own origin (same host as the request's `Host`), one allowed by
/// `--allow-origin`, or no `Origin` at all (not a browser).
fn origin_allowed(headers: &HeaderMap, allowed: &[String]) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    if allowed.iter().any(|a| a.trim_end_matches('/') == origin) {
        return true;
    }
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    let origin_host = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .unwrap_or("");
    !host.is_empty() && origin_host == host
}

async fn websocket(
    ws: WebSocketUpgrade,
    State(shared): State<Arc<Shared>>,
    Extension(peer): Extension<net::Peer>,
    headers: HeaderMap,
) -> Response {
    if !origin_allowed(&headers, &shared.allowed_origins) {
        return (
            StatusCode::FORBIDDEN,
            "this origin may not open a game connection (see yolah serve --allow-origin)\n",
        )
            .into_response();
    }
    let limits = &shared.limits;
    ws.max_message_size(limits.max_message_bytes)
        .max_frame_size(limits.max_message_bytes)
        .max_write_buffer_size(limits.max_write_buffer)
        .on_upgrade(move |socket| ws::connection(socket, shared, peer))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins() {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, "127.0.0.1:8080".parse().unwrap());
        assert!(origin_allowed(&h, &[]), "no Origin: not a browser");
        h.insert(header::ORIGIN, "http://127.0.0.1:8080".parse().unwrap());
        assert!(origin_allowed(&h, &[]));
        h.insert(header::ORIGIN, "https://evil.example".parse().unwrap());
        assert!(!origin_allowed(&h, &[]));
        assert!(origin_allowed(&h, &["https://evil.example/".into()]));
    }
}
