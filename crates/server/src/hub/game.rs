//! One game in memory: its position and moves, who sits where, who
//! watches, and its search and retention state.

use super::ConnId;
use crate::protocol::GameState;
use crate::store::{KeyHash, StoredGame};
use std::time::Instant;
use yolah::{Color, Move, Position};
use yolah_players::Stop;

pub(super) enum Seat {
    /// A person, and their connection while they are here.
    Human { conn: Option<ConnId> },
    /// A computer player.
    Computer { spec: String },
}

impl Seat {
    pub(super) fn name(&self) -> &str {
        match self {
            Seat::Human { .. } => "human",
            Seat::Computer { spec } => spec,
        }
    }

    /// A person who is connected, or a computer (always there).
    pub(super) fn present(&self) -> bool {
        !matches!(self, Seat::Human { conn: None })
    }
}

/// A computer's move the database refused, to be saved again.
pub(super) struct Pending {
    /// The move.
    pub(super) mv: Move,
    /// Attempts made so far.
    pub(super) attempts: u32,
}

pub(super) struct Game {
    pub(super) pos: Position,
    pub(super) moves: Vec<Move>,
    pub(super) seats: [Seat; 2],
    pub(super) watchers: Vec<ConnId>,
    /// The watch key, while this process knows it (keys are stored hashed,
    /// so a game loaded from the database has none to hand out).
    pub(super) watch_key: Option<String>,
    /// The address that created it.
    pub(super) owner: String,
    /// The running or queued search, if the computer is thinking.
    pub(super) search: Option<Stop>,
    /// Key hashes in the hub's index that point here.
    pub(super) keys: Vec<KeyHash>,
    /// When the game ended.
    pub(super) finished_at: Option<Instant>,
    /// Since when no person has been seated (connected), if so.
    pub(super) unseated_since: Option<Instant>,
    /// A computer's move waiting to be saved again.
    pub(super) pending: Option<Pending>,
    /// When this game next wants the hub's attention (mirrored in the hub's
    /// wake-ups).
    pub(super) wake: Option<Instant>,
    /// Why the game cannot go on in this process (its moves cannot be
    /// saved), if so.
    pub(super) stopped: Option<String>,
}

impl Game {
    pub(super) fn from_stored(g: &StoredGame, now: Instant) -> Game {
        let seat = |name: &str| match name {
            "human" => Seat::Human { conn: None },
            spec => Seat::Computer {
                spec: spec.to_string(),
            },
        };
        let mut pos = Position::START;
        for &m in &g.moves {
            pos.play(m);
        }
        Game {
            pos,
            moves: g.moves.clone(),
            seats: [seat(&g.black), seat(&g.white)],
            watchers: Vec::new(),
            watch_key: None,
            owner: g.owner.clone(),
            search: None,
            keys: Vec::new(),
            finished_at: pos.is_game_over().then_some(now),
            unseated_since: Some(now),
            pending: None,
            wake: None,
            stopped: None,
        }
    }

    /// Neither a move waiting to be saved nor a stop: a computer to move
    /// may be asked to search.
    pub(super) fn waits_for_nothing(&self) -> bool {
        self.pending.is_none() && self.stopped.is_none()
    }

    pub(super) fn seat(&self, c: Color) -> &Seat {
        &self.seats[c as usize]
    }

    pub(super) fn state(&self) -> GameState {
        let over = self.pos.is_game_over();
        GameState {
            position: self.pos.to_text(),
            moves: self.moves.iter().map(Move::to_string).collect(),
            turn: self.pos.side_to_move().name().into(),
            black: self.seat(Color::Black).name().into(),
            white: self.seat(Color::White).name().into(),
            black_score: self.pos.score(Color::Black),
            white_score: self.pos.score(Color::White),
            legal: if over || self.stopped.is_some() {
                Vec::new()
            } else {
                self.pos.legal_moves().iter().map(Move::to_string).collect()
            },
            game_over: over,
            winner: over.then(|| self.pos.winner().map_or("draw", Color::name).to_string()),
            connected: (
                self.seat(Color::Black).present(),
                self.seat(Color::White).present(),
            ),
            stopped: self.stopped.clone(),
        }
    }

    /// The seated connections.
    pub(super) fn players(&self) -> impl Iterator<Item = ConnId> + '_ {
        self.seats.iter().filter_map(|s| match s {
            Seat::Human { conn } => *conn,
            Seat::Computer { .. } => None,
        })
    }

    pub(super) fn audience(&self) -> Vec<ConnId> {
        self.players()
            .chain(self.watchers.iter().copied())
            .collect()
    }

    pub(super) fn anyone_seated(&self) -> bool {
        self.players().next().is_some()
    }

    /// `m` and then every forced pass, as they would be appended.
    pub(super) fn moves_after(&self, m: Move) -> (Vec<Move>, Position) {
        let mut pos = self.pos;
        pos.play(m);
        let mut moves = vec![m];
        while !pos.is_game_over() && !pos.can_move(pos.side_to_move()) {
            pos.play(Move::PASS);
            moves.push(Move::PASS);
        }
        (moves, pos)
    }
}
