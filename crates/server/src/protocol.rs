//! The WebSocket protocol: JSON text messages, one object each, with a
//! `type` field. See `docs/protocol.md` for the prose description.

use serde::{Deserialize, Serialize};

/// What a client may send.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMessage {
    /// Start a game against `opponent` (`human` or one of the server's
    /// computer players), playing `color`.
    New {
        /// `human` or a player spec from the server's list.
        opponent: String,
        /// `black` or `white`.
        color: String,
    },
    /// Take a seat (or reconnect to it) with a player key, or watch with a
    /// watch key.
    Join {
        /// The key from a link.
        key: String,
    },
    /// Play a move (`from:to`) in the joined game.
    Move {
        /// The move.
        #[serde(rename = "move")]
        mv: String,
    },
    /// Ask for every position of the joined game, for replaying it.
    History {},
}

impl ClientMessage {
    /// Parses one message strictly: a JSON object (not an array, which
    /// serde would otherwise read field by field), a known `type`, and no
    /// field the type does not have.
    pub fn parse(text: &str) -> Result<ClientMessage, String> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("not a valid message: {e}"))?;
        if !value.is_object() {
            return Err(
                "not a valid message: send a JSON object such as {\"type\": \"history\"}".into(),
            );
        }
        serde_json::from_value(value).map_err(|e| format!("not a valid message: {e}"))
    }
}

/// What the server sends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    /// The computer players offered.
    Hello {
        /// Specs a `new` message may name.
        players: Vec<String>,
    },
    /// You joined a game.
    Welcome {
        /// `black`, `white` or `watcher`.
        role: String,
        /// Your key (reconnect with it).
        key: String,
        /// The other seat's key, for a game between two people (to share).
        #[serde(skip_serializing_if = "Option::is_none", default)]
        invite: Option<String>,
        /// The key for watching this game; absent when the server no longer
        /// knows it (keys are stored hashed, so after a restart only the
        /// creator's first welcome had it).
        #[serde(skip_serializing_if = "Option::is_none", default)]
        watch: Option<String>,
    },
    /// The game as it stands; sent after every change.
    State(GameState),
    /// Every position of the game, from the start.
    History {
        /// Position texts, one per ply and the start.
        positions: Vec<String>,
        /// The moves between them.
        moves: Vec<String>,
    },
    /// A refused message; nothing changed.
    Error {
        /// What was wrong.
        message: String,
    },
}

/// A snapshot of one game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameState {
    /// The position in text form.
    pub position: String,
    /// All moves so far (passes are `a1:a1`).
    pub moves: Vec<String>,
    /// `black` or `white`: who moves now.
    pub turn: String,
    /// Who plays Black: `human` or a spec.
    pub black: String,
    /// Who plays White.
    pub white: String,
    /// Black's points.
    pub black_score: u8,
    /// White's points.
    pub white_score: u8,
    /// The legal moves of the side to move (empty when the game is over).
    pub legal: Vec<String>,
    /// Whether the game has ended.
    pub game_over: bool,
    /// `black`, `white` or `draw` once over.
    pub winner: Option<String>,
    /// Whether each seat has a connected player (black, white).
    pub connected: (bool, bool),
}
