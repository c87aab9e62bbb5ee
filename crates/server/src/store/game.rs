//! The games that go into the database and come out of it.

use super::{KeyHash, Role};
use crate::clock::TimeControl;
use std::time::Duration;
use yolah::record::GameRecord;
use yolah::{Move, Position};

/// A game as the database holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredGame {
    /// Its number.
    pub id: u64,
    /// `human` or the computer's spec.
    pub black: String,
    /// `human` or the computer's spec.
    pub white: String,
    /// Every move, passes included.
    pub moves: Vec<Move>,
    /// After each move, the mover's time left (timed games; not after a
    /// pass, which takes no time).
    pub clocks: Vec<Option<Duration>>,
    /// The client address that created it.
    pub owner: String,
    /// Seconds since 1970 when it was created.
    pub created: u64,
    /// Seconds since 1970 when it ended.
    pub finished: Option<u64>,
    /// `1-0`, `0-1` or `1/2-1/2` once over.
    pub result: Option<String>,
    /// Why it ended, in words, once over.
    pub reason: Option<String>,
    /// The people's display names, Black's then White's, when they gave one.
    pub names: [Option<String>; 2],
    /// The ids of the people who sat there (from their name cookies), when
    /// they had one.
    pub people: [Option<String>; 2],
    /// Its time control, if it has a clock.
    pub time_control: Option<TimeControl>,
}

impl StoredGame {
    /// The JSON record `yolah replay` reads.
    pub fn record(&self) -> GameRecord {
        let mut r = GameRecord::from_moves(&self.moves);
        let mut end = Position::START;
        for &m in &self.moves {
            end.play(m);
        }
        let result = match &self.result {
            Some(result) => result.as_str(),
            None if end.is_game_over() => end.outcome().notation(),
            None => "*",
        };
        for (k, v) in [
            ("black", self.black.as_str()),
            ("white", self.white.as_str()),
            ("result", result),
        ] {
            r.metadata.insert(k.into(), v.into());
        }
        r.metadata.insert("game".into(), self.id.into());
        r.metadata.insert("created".into(), self.created.into());
        if let Some(f) = self.finished {
            r.metadata.insert("finished".into(), f.into());
        }
        if let Some(reason) = &self.reason {
            r.metadata
                .insert("termination".into(), reason.as_str().into());
        }
        for (key, name) in ["black_name", "white_name"].iter().zip(&self.names) {
            if let Some(name) = name {
                r.metadata.insert((*key).into(), name.as_str().into());
            }
        }
        if let Some(tc) = self.time_control {
            r.metadata
                .insert("time_control".into(), tc.to_string().into());
        }
        r
    }
}

/// One line of the archive.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Summary {
    /// The game's number (`/games/ID` is its record).
    pub id: u64,
    /// Black's player.
    pub black: String,
    /// White's player.
    pub white: String,
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: String,
    /// Plies played, passes included.
    pub plies: u64,
    /// Seconds since 1970 when it ended.
    pub finished: u64,
    /// Why it ended.
    pub reason: Option<String>,
    /// The people's names, Black's then White's.
    pub names: [Option<String>; 2],
    /// Its time control (`3+2`), if it had a clock.
    pub clock: Option<String>,
}

/// A game to record.
pub struct NewGame<'a> {
    /// `human` or the computer's spec, Black's then White's.
    pub players: [&'a str; 2],
    /// The people's names, Black's then White's.
    pub names: [Option<&'a str>; 2],
    /// The people's ids (from their name cookies), Black's then White's.
    pub people: [Option<&'a str>; 2],
    /// The address that created it.
    pub owner: &'a str,
    /// Its time control.
    pub time_control: Option<TimeControl>,
    /// Its keys' hashes, and what each lets one do.
    pub keys: &'a [(KeyHash, Role)],
}

/// How a game ended.
#[derive(Clone, Copy, Debug)]
pub struct Ending<'a> {
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: &'a str,
    /// Why, in words.
    pub reason: &'a str,
}
