//! The HTTP routes: the page and its files (`page`), the WebSocket, names
//! (`names`), the archive (`archive`), the live list, the counters; and who
//! may open a game connection.

use crate::search::Pool;
use crate::{archive, host, names, net, page, ws, Shared};
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Json, Router};
use std::sync::atomic::Ordering;
use std::sync::{Arc, PoisonError};

/// Every route, served with `shared`.
pub fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/", get(page::html))
        .route("/page.js", get(page::script))
        .route("/favicon.svg", get(page::favicon_svg))
        .route("/favicon.ico", get(page::favicon_ico))
        .route(
            "/name",
            axum::routing::post(names::set)
                .layer(axum::extract::DefaultBodyLimit::max(names::MAX_BODY_BYTES)),
        )
        .route("/live", get(live))
        .route("/record", get(archive::record))
        .route("/games", get(archive::list))
        .route("/games/{id}", get(archive::game_record))
        .route("/games/{id}/history", get(archive::game_history))
        .route("/ws", get(websocket))
        .route("/stats", get(stats))
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&shared),
            host::check,
        ))
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

/// Games being played a page at most.
const MAX_LIVE_PAGE: usize = 50;

/// `GET /live?offset=N&limit=M`: the games being played, newest first.
async fn live(
    State(shared): State<Arc<Shared>>,
    Query(q): Query<std::collections::HashMap<String, String>>,
) -> Response {
    let number = |k: &str, default: usize| match q.get(k) {
        None => Ok(default),
        Some(v) => v
            .parse::<usize>()
            .map_err(|_| format!("{k}= must be a number, not {v:?}\n")),
    };
    let (offset, limit) = match (number("offset", 0), number("limit", 20)) {
        (Ok(o), Ok(l)) => (o, l.clamp(1, MAX_LIVE_PAGE)),
        (Err(e), _) | (_, Err(e)) => return (StatusCode::BAD_REQUEST, e).into_response(),
    };
    let (games, total) = shared.hub().live(offset, limit);
    Json(serde_json::json!({ "games": games, "total": total })).into_response()
}

async fn websocket(
    ws: WebSocketUpgrade,
    State(shared): State<Arc<Shared>>,
    Extension(peer): Extension<net::Peer>,
    headers: HeaderMap,
) -> Response {
    if !host::origin_allowed(&headers, &shared.allowed_origins) {
        return (
            StatusCode::FORBIDDEN,
            "this origin may not open a game connection (see yolah serve --allow-origin)\n",
        )
            .into_response();
    }
    let person = shared.signer.person_in(&headers);
    let limits = &shared.limits;
    // Buffers sized to the messages: tungstenite's defaults (128 KiB each,
    // the read buffer zero-filled at once) would cost every idle connection
    // more than a hundred kilobytes.
    ws.max_message_size(limits.max_message_bytes)
        .max_frame_size(limits.max_message_bytes)
        .read_buffer_size(limits.max_message_bytes + ws::FRAME_HEADER_BYTES)
        .write_buffer_size(limits.max_message_bytes)
        .max_write_buffer_size(limits.max_write_buffer)
        .on_upgrade(move |socket| ws::connection(socket, shared, peer, person))
}
