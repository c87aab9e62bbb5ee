//! The archive over HTTP: finished games worth listing, newest first, and
//! any game's record. Every query runs on the store's read-only
//! connections, never under the hub's lock, so a crowd reading the archive
//! does not hold back a single move.

use crate::store::{hash_key, StoreError};
use crate::Shared;
use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use std::collections::HashMap;
use std::sync::Arc;

/// Games one `/games` page lists at most.
const MAX_ARCHIVE_PAGE: usize = 100;

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

pub(crate) fn server_error(e: StoreError) -> Response {
    eprintln!("yolah serve: {e}");
    (StatusCode::INTERNAL_SERVER_ERROR, "database error\n").into_response()
}

fn no_such_game() -> Response {
    (StatusCode::NOT_FOUND, "no finished game with that number\n").into_response()
}

/// `GET /record?key=KEY`: the record of the game of any of its keys.
pub async fn record(
    State(shared): State<Arc<Shared>>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let Some(key) = q.get("key") else {
        return (StatusCode::BAD_REQUEST, "give ?key=KEY\n").into_response();
    };
    let hash = hash_key(key);
    let found = shared
        .reader
        .with(move |r| match r.find_key(&hash)? {
            Some((id, _)) => r.load(id),
            None => Ok(None),
        })
        .await;
    match found {
        Ok(Some(g)) => json_download(&g.record(), "yolah-game.json"),
        Ok(None) => (StatusCode::NOT_FOUND, "unknown key\n").into_response(),
        Err(e) => server_error(e),
    }
}

/// `GET /games?before=ID&limit=N`: a page of the archive.
pub async fn list(
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
    match shared.reader.with(move |r| r.finished(before, limit)).await {
        Ok(games) => {
            let next = (games.len() == limit)
                .then(|| games.last().map(|g| g.id))
                .flatten();
            Json(serde_json::json!({ "games": games, "next_before": next })).into_response()
        }
        Err(e) => server_error(e),
    }
}

/// Finished game `id`, if it is one.
async fn finished_game(
    shared: &Shared,
    id: u64,
) -> Result<Option<crate::store::StoredGame>, StoreError> {
    shared
        .reader
        .with(move |r| Ok(r.load(id)?.filter(|g| g.finished.is_some())))
        .await
}

/// `GET /games/ID`: a finished game's record, as a download.
pub async fn game_record(State(shared): State<Arc<Shared>>, Path(id): Path<u64>) -> Response {
    match finished_game(&shared, id).await {
        Ok(Some(g)) => json_download(&g.record(), &format!("yolah-game-{id}.json")),
        Ok(None) => no_such_game(),
        Err(e) => server_error(e),
    }
}

/// `GET /games/ID/history`: a finished game's positions, for the page.
pub async fn game_history(State(shared): State<Arc<Shared>>, Path(id): Path<u64>) -> Response {
    let game = match finished_game(&shared, id).await {
        Ok(Some(g)) => g,
        Ok(None) => return no_such_game(),
        Err(e) => return server_error(e),
    };
    let record = game.record();
    let mut pos = yolah::Position::START;
    let mut positions = vec![pos.to_text()];
    for &m in &game.moves {
        pos.play(m);
        positions.push(pos.to_text());
    }
    Json(serde_json::json!({
        "type": "history",
        "positions": positions,
        "moves": record.moves,
        "black": game.black,
        "white": game.white,
        "result": record.metadata.get("result"),
        "reason": game.reason,
        "names": game.names,
    }))
    .into_response()
}
