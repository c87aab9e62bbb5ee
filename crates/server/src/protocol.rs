//! The WebSocket protocol: JSON text messages, one object each, with a
//! `type` field. See `docs/protocol.md` for the prose description.

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::fmt;

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
        // A field given twice would be read as its last value by one parser
        // and its first by another: refused.
        let mut reader = serde_json::Deserializer::from_str(text);
        NoDuplicateFields
            .deserialize(&mut reader)
            .and_then(|()| reader.end())
            .map_err(|e| format!("not a valid message: {e}"))?;
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

/// Reads a JSON document and fails on an object that has a key twice, at
/// any depth.
struct NoDuplicateFields;

impl<'de> DeserializeSeed<'de> for NoDuplicateFields {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for NoDuplicateFields {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("JSON")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(NoDuplicateFields)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(de::Error::custom(format!("field {key:?} given twice")));
            }
            map.next_value_seed(NoDuplicateFields)?;
        }
        Ok(())
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
    /// Why the game cannot go on for now (the server cannot save its
    /// moves), if so.
    pub stopped: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_given_twice_is_refused_at_any_depth() {
        let twice = ClientMessage::parse(r#"{"type":"move","move":"d5:b7","move":"d5:c6"}"#);
        assert!(twice.unwrap_err().contains(r#"field "move" given twice"#));
        let type_twice = ClientMessage::parse(r#"{"type":"history","type":"history"}"#);
        assert!(type_twice.unwrap_err().contains("given twice"));
        let nested = ClientMessage::parse(r#"{"type":"join","key":{"a":1,"a":2}}"#);
        assert!(nested.unwrap_err().contains("given twice"));
        assert_eq!(
            ClientMessage::parse(r#"{"type":"move","move":"d5:b7"}"#),
            Ok(ClientMessage::Move { mv: "d5:b7".into() })
        );
        assert!(ClientMessage::parse(r#"{"type":"history"} x"#).is_err());
    }
}
