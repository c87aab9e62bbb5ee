//! Game records: a JSON form for files and tools, a plain text move list for
//! people, and replaying either with every move checked.
//!
//! ```
//! use yolah::record::GameRecord;
//!
//! let record = GameRecord::parse(r#"{"moves": ["d5:b7", "e5:c7"], "black": "me"}"#).unwrap();
//! let end = record.replay().unwrap();
//! assert_eq!(end.ply(), 2);
//! assert_eq!(record.metadata["black"], "me");
//! ```

use crate::file::{read_text_limited, FileError};
use crate::{IllegalMove, Move, ParseMoveError, ParsePositionError, Position};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// A game: moves from a start position, plus any metadata.
///
/// JSON: `{"moves": ["d5:b7", ...], "start": "<position text>", ...}`; `start`
/// is optional (the usual start), every other field is kept as metadata
/// (players, result, date, ...).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct GameRecord {
    /// The start position in text form, when it is not the usual start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    /// The moves, `from:to`, passes written `a1:a1`.
    pub moves: Vec<String>,
    /// Every other field of the JSON object.
    #[serde(flatten)]
    pub metadata: BTreeMap<String, serde_json::Value>,
    /// The 1-based line of each move, for a record read from a text move
    /// list ([`GameRecord::parse`]); empty otherwise. Not part of the game:
    /// two records of the same game are equal wherever they were written.
    #[serde(skip)]
    lines: Vec<usize>,
}

impl PartialEq for GameRecord {
    fn eq(&self, other: &GameRecord) -> bool {
        (&self.start, &self.moves, &self.metadata) == (&other.start, &other.moves, &other.metadata)
    }
}

/// The largest record file [`GameRecord::load`] reads: a whole game with
/// generous metadata is a few kilobytes.
pub const MAX_RECORD_BYTES: u64 = 1 << 20;

/// Why a record cannot be read or replayed.
#[derive(Debug)]
pub enum RecordError {
    /// The file cannot be read (or is too large, or not text).
    File(FileError),
    /// The file holds nothing but white space.
    Empty,
    /// Not JSON of the record's shape.
    Json(serde_json::Error),
    /// The `start` field is not a position.
    Start(ParsePositionError),
    /// A move is malformed or illegal.
    Move {
        /// 1-based ply of the move.
        ply: usize,
        /// The 1-based line it is written on, for a record read from a
        /// text move list. The message leaves it out: whoever knows the
        /// file's name puts it in front, as in `game.txt:3: ply 4, ...`.
        line: Option<usize>,
        /// The move as written.
        text: String,
        /// What is wrong with it.
        reason: MoveProblem,
    },
}

/// What is wrong with one move of a record.
#[derive(Debug)]
pub enum MoveProblem {
    /// It is not `from:to`.
    Malformed(ParseMoveError),
    /// It breaks the rules here.
    Illegal(IllegalMove),
    /// The game had already ended.
    AfterGameOver,
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::File(e) => write!(f, "{e}"),
            RecordError::Empty => {
                f.write_str("the file is empty: expected a JSON record or a list of moves")
            }
            RecordError::Json(e) => write!(f, "not a game record ({{\"moves\": [...]}}): {e}"),
            RecordError::Start(e) => write!(f, "start: {e}"),
            RecordError::Move {
                ply, text, reason, ..
            } => {
                write!(f, "ply {ply}, move {text:?}: ")?;
                match reason {
                    MoveProblem::Malformed(e) => write!(f, "{e}"),
                    MoveProblem::Illegal(e) => write!(f, "illegal: {e}"),
                    MoveProblem::AfterGameOver => write!(f, "the game is already over"),
                }
            }
        }
    }
}

impl std::error::Error for RecordError {}

impl GameRecord {
    /// Reads and parses the record file at `path` (at most
    /// [`MAX_RECORD_BYTES`]).
    pub fn load(path: impl AsRef<std::path::Path>) -> Result<GameRecord, RecordError> {
        let text = read_text_limited(path, MAX_RECORD_BYTES).map_err(RecordError::File)?;
        if text.trim().is_empty() {
            return Err(RecordError::Empty);
        }
        GameRecord::parse(&text)
    }

    /// Reads a record: a JSON object if the text starts with `{`, otherwise a
    /// move list (moves separated by white space, `#` comments to the end of
    /// the line), whose moves keep the line they are written on
    /// ([`RecordError::line`]).
    ///
    /// ```
    /// use yolah::record::GameRecord;
    /// let record = GameRecord::parse("d5:b7 e5:c7  # opening\n\nb7:zz\n").unwrap();
    /// assert_eq!(record.moves, ["d5:b7", "e5:c7", "b7:zz"]);
    /// let e = record.replay().unwrap_err();
    /// assert_eq!(e.line(), Some(3));
    /// assert!(e.to_string().starts_with("ply 3, move \"b7:zz\""));
    /// ```
    pub fn parse(text: &str) -> Result<GameRecord, RecordError> {
        if text.trim_start().starts_with('{') {
            return serde_json::from_str(text).map_err(RecordError::Json);
        }
        let (lines, moves) = text_moves(text).map(|(l, m)| (l, m.to_string())).unzip();
        Ok(GameRecord {
            moves,
            lines,
            ..GameRecord::default()
        })
    }

    /// The start position.
    pub fn start_position(&self) -> Result<Position, RecordError> {
        match &self.start {
            Some(text) => text.parse().map_err(RecordError::Start),
            None => Ok(Position::START),
        }
    }

    /// Plays every move, checking each; returns the final position or the
    /// first bad move with its 1-based ply.
    pub fn replay(&self) -> Result<Position, RecordError> {
        let mut pos = self.start_position()?;
        for (i, text) in self.moves.iter().enumerate() {
            let fail = |reason| RecordError::Move {
                ply: i + 1,
                // Only while the moves are the ones read (`moves` is
                // public: a caller may have changed them since).
                line: (self.lines.len() == self.moves.len()).then(|| self.lines[i]),
                text: text.clone(),
                reason,
            };
            let m: Move = text.parse().map_err(|e| fail(MoveProblem::Malformed(e)))?;
            if pos.is_game_over() {
                return Err(fail(MoveProblem::AfterGameOver));
            }
            pos.try_play(m).map_err(|e| fail(MoveProblem::Illegal(e)))?;
        }
        Ok(pos)
    }

    /// The record of `moves` played from the usual start.
    pub fn from_moves(moves: &[Move]) -> GameRecord {
        GameRecord {
            moves: moves.iter().map(Move::to_string).collect(),
            ..GameRecord::default()
        }
    }

    /// The JSON text of the record.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a record always serialises")
    }
}

/// The moves of a text move list with the 1-based line each is on: white
/// space separates them, `#` starts a comment to the end of the line.
fn text_moves(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().flat_map(|(i, line)| {
        let code = line.split('#').next().unwrap_or("");
        code.split_whitespace().map(move |m| (i + 1, m))
    })
}

impl RecordError {
    /// The 1-based line of the text a bad move is written on, when the
    /// record was read from a text move list (and its moves not changed
    /// since).
    pub fn line(&self) -> Option<usize> {
        match self {
            RecordError::Move { line, .. } => *line,
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_lists_allow_comments() {
        let r = GameRecord::parse("d5:b7 e5:c7 # opening\n# a note\nb7:b8\n").unwrap();
        assert_eq!(r.moves, ["d5:b7", "e5:c7", "b7:b8"]);
    }

    #[test]
    fn json_round_trips_with_metadata() {
        let mut r = GameRecord::from_moves(&["d5:b7".parse().unwrap()]);
        r.metadata.insert("result".into(), "1-0".into());
        assert_eq!(GameRecord::parse(&r.to_json()).unwrap(), r);
    }

    #[test]
    fn move_lines_skip_comments_blank_lines_and_carriage_returns() {
        let text = "# a game\r\nd5:b7 e5:c7 # two\r\n\r\n  b7:b5#one\r\n";
        let r = GameRecord::parse(text).unwrap();
        assert_eq!(r.moves, ["d5:b7", "e5:c7", "b7:b5"]);
        assert_eq!(r.lines, [2, 2, 4]);
        let line_of_bad = |text: &str| {
            GameRecord::parse(text)
                .unwrap()
                .replay()
                .unwrap_err()
                .line()
        };
        assert_eq!(line_of_bad("d5:b7\n# x\n e5:c7 b7:b7\n"), Some(3));
        assert_eq!(line_of_bad("d5:b7 zz"), Some(1));
        assert_eq!(line_of_bad(r#"{"moves": ["d5:b7", "zz"]}"#), None);
        assert_eq!(
            GameRecord::parse(text).unwrap(),
            GameRecord::parse(&r.to_json()).unwrap()
        );
    }

    #[test]
    fn errors_name_the_ply_and_move() {
        let e = GameRecord::parse("d5:b7 a1:a1")
            .unwrap()
            .replay()
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "ply 2, move \"a1:a1\": illegal: white may not pass while it has moves"
        );
        let e = GameRecord::parse("d5:b7 e5").unwrap().replay().unwrap_err();
        assert!(e.to_string().starts_with("ply 2, move \"e5\""), "{e}");
        assert!(GameRecord::parse("{\"moves\": 3}").is_err());
    }
}
