//! The WebSocket protocol: JSON text messages, one object each, with a
//! `type` field. See `docs/protocol.md` for the prose description; every
//! message a client sends is read by [`strict::parse`].

mod strict;

use serde::{Deserialize, Serialize};

/// What a client may send.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMessage {
    /// Start a game against `opponent` (`human` or one of the server's
    /// computer players), playing `color`, with a clock.
    New {
        /// `human` or a player spec from the server's list.
        opponent: String,
        /// `black`, `white` or `random`.
        color: String,
        /// A time control from `hello.clocks` (`3+2`), or `none`; no clock
        /// if left out.
        #[serde(default)]
        clock: Option<String>,
    },
    /// Take a seat (or reconnect to it) with a player key, or watch with a
    /// watch key.
    Join {
        /// The key from a link.
        key: String,
    },
    /// Watch a game being played, by its number (from the live list).
    Watch {
        /// The game's number.
        game: u64,
    },
    /// Play a move (`from:to`) in the joined game.
    Move {
        /// The move.
        #[serde(rename = "move")]
        mv: String,
    },
    /// Ask for every position of the joined game, for replaying it.
    History {},
    /// Give up the game one is seated at.
    Resign {},
    /// Offer a draw to the other person, or accept theirs.
    OfferDraw {},
    /// Turn down the other person's draw offer.
    DeclineDraw {},
    /// Ask the other person to let one take back one's last move, or
    /// accept their request.
    Takeback {},
    /// Turn down the other person's takeback request.
    DeclineTakeback {},
    /// After a game: ask for another with the colours swapped (against the
    /// computer, or once the other person asks too, it starts).
    Rematch {},
    /// Hear of the open challenges and the games being played, now and
    /// (at most once a second) whenever they change.
    Lobby {},
    /// Open a challenge that anyone may accept.
    Seek {
        /// The colour the challenger plays: `black`, `white` or `random`.
        color: String,
        /// A time control from `hello.clocks`, or `none`.
        clock: String,
    },
    /// Withdraw one's open challenge.
    CancelSeek {},
    /// Accept an open challenge: the game starts.
    Accept {
        /// The challenge's number.
        seek: u64,
    },
    /// Ask the engine about a position (within the server's budget).
    Analyse {
        /// The position in text form.
        position: String,
    },
}

impl ClientMessage {
    /// Parses one message strictly (see [`strict::parse`]).
    pub fn parse(text: &str) -> Result<ClientMessage, String> {
        strict::parse(text)
    }
}

/// A computer level: a name for people, and the spec it plays.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Level {
    /// `Beginner`, …, `Strongest`.
    pub name: String,
    /// The player spec (`nn:time=2s`).
    pub spec: String,
}

/// What the server sends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    /// What is on offer.
    Hello {
        /// Specs a `new` message may name.
        players: Vec<String>,
        /// The same players as named levels, weakest first.
        levels: Vec<Level>,
        /// Time controls a game may have (`none` last).
        clocks: Vec<String>,
        /// Your display name (from your cookie), if you gave one.
        name: Option<String>,
        /// Your rating, once you have played a rated game.
        rating: Option<i32>,
        /// The player that analyses positions.
        analysis: String,
    },
    /// You joined a game.
    Welcome {
        /// `black`, `white` or `watcher`.
        role: String,
        /// Your key (reconnect with it); absent for a watcher who came by
        /// the game's number.
        #[serde(skip_serializing_if = "Option::is_none", default)]
        key: Option<String>,
        /// The other seat's key, for a game between two people (to share).
        #[serde(skip_serializing_if = "Option::is_none", default)]
        invite: Option<String>,
        /// The key for watching this game; absent when the server no longer
        /// knows it (keys are stored hashed, so after a restart only the
        /// creator's first welcome had it).
        #[serde(skip_serializing_if = "Option::is_none", default)]
        watch: Option<String>,
        /// The game's number.
        game: u64,
    },
    /// The game as it stands; sent after every change.
    State(Box<GameState>),
    /// Every position of the game, from the start.
    History {
        /// Position texts, one per ply and the start.
        positions: Vec<String>,
        /// The moves between them.
        moves: Vec<String>,
    },
    /// The open challenges and the games being played.
    Lobby(Lobby),
    /// The engine's view of a position.
    Analysis(Analysis),
    /// Your seat was taken over, with its key, by another connection of
    /// yours (the game opened in another tab or window): this connection
    /// plays no more. Joining with the key again takes the seat back.
    SeatMoved {
        /// The game's number.
        game: u64,
        /// Whether this connection now watches the game (it does unless the
        /// game has its most watchers, when it leaves it).
        watching: bool,
    },
    /// A refused message; nothing changed.
    Error {
        /// What was wrong.
        message: String,
    },
}

/// A game's clock as the server sees it when it sends the state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClockState {
    /// The time control (`3+2`).
    pub control: String,
    /// Black's time left, in milliseconds.
    pub black_ms: u64,
    /// White's time left, in milliseconds.
    pub white_ms: u64,
    /// Whose clock is running (`black` or `white`), if one is.
    pub running: Option<String>,
}

/// A snapshot of one game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameState {
    /// The game's number.
    pub game: u64,
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
    /// The people's display names (Black's, White's), where they gave one.
    pub names: [Option<String>; 2],
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
    /// `1-0`, `0-1` or `1/2-1/2` once over.
    pub result: Option<String>,
    /// Why it ended, in words, once over.
    pub reason: Option<String>,
    /// Whether each seat has a connected player (black, white).
    pub connected: (bool, bool),
    /// The clock, if the game has one.
    pub clock: Option<ClockState>,
    /// Who offers a draw (`black` or `white`), if someone does.
    pub draw_offer: Option<String>,
    /// Who asks for a rematch (`black` or `white`), if someone does.
    pub rematch: Option<String>,
    /// Who asks to take back their last move (`black` or `white`), if
    /// someone does.
    pub takeback: Option<String>,
    /// The seated people's ratings (black, white), where they have one.
    pub ratings: [Option<i32>; 2],
    /// Why the game cannot go on for now (the server cannot save its
    /// moves), if so.
    pub stopped: Option<String>,
}

/// An open challenge.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeekLine {
    /// Its number (`accept` names it).
    pub id: u64,
    /// The challenger's display name, if any.
    pub name: Option<String>,
    /// The challenger's rating, if they have one.
    pub rating: Option<i32>,
    /// The colour the challenger plays: `black`, `white` or `random`.
    pub color: String,
    /// The time control, or `none`.
    pub clock: String,
    /// Whether it is this connection's own.
    pub yours: bool,
}

/// A game being played, in the live list.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LiveGame {
    /// Its number (`watch` names it).
    pub game: u64,
    /// Who plays Black: `human` or a spec.
    pub black: String,
    /// Who plays White.
    pub white: String,
    /// The people's display names.
    pub names: [Option<String>; 2],
    /// The time control, or `none`.
    pub clock: String,
    /// Plies played.
    pub plies: usize,
    /// Black's points.
    pub black_score: u8,
    /// White's points.
    pub white_score: u8,
}

/// The lobby: open challenges, and the first page of the games being
/// played (`GET /live` has the others).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Lobby {
    /// The open challenges, oldest first.
    pub seeks: Vec<SeekLine>,
    /// The newest games being played.
    pub live: Vec<LiveGame>,
    /// How many games are being played in all.
    pub live_total: usize,
}

/// What the engine found in a position.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// The position asked about, as it was sent.
    pub position: String,
    /// The engine's score for Black in centipoints (100 a point of final
    /// margin; beyond ±29,000 a proven result).
    pub score: Option<i32>,
    /// Black's expected result, 0 to 1 (the bar).
    pub black_win_rate: Option<f64>,
    /// The line the engine expects, best move first.
    pub line: Vec<String>,
    /// Depth reached.
    pub depth: Option<u32>,
    /// The exact result, when the endgame was solved: Black's final margin
    /// with best play from here.
    pub solved_margin: Option<i32>,
    /// The player that analysed.
    pub engine: String,
}
