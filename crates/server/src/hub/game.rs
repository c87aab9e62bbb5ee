//! One game in memory: its position and moves, who sits where, who
//! watches, its clock, its offers, and its search and retention state.

use super::ConnId;
use crate::clock::Clock;
use crate::protocol::{ClockState, GameState, LiveGame};
use crate::rating::Rating;
use crate::store::{KeyHash, StoredGame};
use std::time::{Duration, Instant};
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

    pub(super) fn is_human(&self) -> bool {
        matches!(self, Seat::Human { .. })
    }

    pub(super) fn conn(&self) -> Option<ConnId> {
        match self {
            Seat::Human { conn } => *conn,
            Seat::Computer { .. } => None,
        }
    }

    /// The seat of `player` (`human` or a spec), nobody in it yet.
    pub(super) fn of(player: &str) -> Seat {
        match player {
            "human" => Seat::Human { conn: None },
            spec => Seat::Computer {
                spec: spec.to_string(),
            },
        }
    }
}

/// A computer's move the database refused, to be saved again.
pub(super) struct Pending {
    /// The move.
    pub(super) mv: Move,
    /// The clock once it is saved, if the game has one.
    pub(super) clock: Option<(Clock, Duration)>,
    /// Attempts made so far.
    pub(super) attempts: u32,
    /// When to try again.
    pub(super) retry_at: Instant,
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Ending {
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub(super) result: String,
    /// Why, in words.
    pub(super) reason: String,
}

impl Ending {
    /// `black`, `white` or `draw`.
    pub(super) fn winner(&self) -> &'static str {
        match self.result.as_str() {
            "1-0" => "black",
            "0-1" => "white",
            _ => "draw",
        }
    }
}

pub(super) struct Game {
    pub(super) id: u64,
    pub(super) pos: Position,
    pub(super) moves: Vec<Move>,
    pub(super) seats: [Seat; 2],
    /// The people's display names, where they gave one.
    pub(super) names: [Option<String>; 2],
    /// The people's ids (from their name cookies), where they had one.
    pub(super) people: [Option<String>; 2],
    /// Their ratings, as known to this process (shown in the state).
    pub(super) ratings: [Option<Rating>; 2],
    /// The client address each seat was last taken from, as known to this
    /// process: a game is rated only between two addresses.
    pub(super) addrs: [Option<String>; 2],
    pub(super) watchers: Vec<ConnId>,
    /// The watch key, while this process knows it (keys are stored hashed,
    /// so a game loaded from the database has none to hand out).
    pub(super) watch_key: Option<String>,
    /// The address that created it.
    pub(super) owner: String,
    /// The clock, if the game has one.
    pub(super) clock: Option<Clock>,
    /// How it ended, once it has.
    pub(super) ending: Option<Ending>,
    /// Who offers a draw.
    pub(super) draw_offer: Option<Color>,
    /// Who asks for a rematch.
    pub(super) rematch: Option<Color>,
    /// Who asks to take back their last move.
    pub(super) takeback: Option<Color>,
    /// The running or queued search, if the computer is thinking.
    pub(super) search: Option<Stop>,
    /// Key hashes in the hub's index that point here.
    pub(super) keys: Vec<KeyHash>,
    /// When the game ended (or stopped).
    pub(super) finished_at: Option<Instant>,
    /// Since when no person has been seated (connected), if so.
    pub(super) unseated_since: Option<Instant>,
    /// A computer's move waiting to be saved again.
    pub(super) pending: Option<Pending>,
    /// When this game next wants the hub's attention (mirrored in the hub's
    /// wake-ups): a save to try again, a flag to fall.
    pub(super) wake: Option<Instant>,
    /// Why the game cannot go on in this process (its moves cannot be
    /// saved), if so.
    pub(super) stopped: Option<String>,
}

impl Game {
    /// A new game, nobody seated yet.
    pub(super) fn new(id: u64, seats: [Seat; 2], owner: String, clock: Option<Clock>) -> Game {
        Game {
            id,
            pos: Position::START,
            moves: Vec::new(),
            seats,
            names: [None, None],
            people: [None, None],
            ratings: [None, None],
            addrs: [None, None],
            watchers: Vec::new(),
            watch_key: None,
            owner,
            clock,
            ending: None,
            draw_offer: None,
            rematch: None,
            takeback: None,
            search: None,
            keys: Vec::new(),
            finished_at: None,
            unseated_since: None,
            pending: None,
            wake: None,
            stopped: None,
        }
    }

    /// A game from the database, as of `now`: its clock (if any) resumes
    /// with the time each side had after its last move.
    pub(super) fn from_stored(g: &StoredGame, now: Instant) -> Game {
        let mut pos = Position::START;
        let mut last_left: [Option<Duration>; 2] = [None, None];
        for (&m, &left) in g.moves.iter().zip(&g.clocks) {
            let mover = pos.side_to_move();
            pos.play(m);
            if left.is_some() {
                last_left[mover as usize] = left;
            }
        }
        let ending = g.result.as_ref().map(|result| Ending {
            result: result.clone(),
            reason: g.reason.clone().unwrap_or_default(),
        });
        let over = ending.is_some() || pos.is_game_over();
        let clock = g.time_control.map(|tc| {
            let left = last_left.map(|l| l.unwrap_or(tc.base));
            Clock::resume(tc, left, !g.moves.is_empty() && !over, now)
        });
        let mut game = Game::new(
            g.id,
            [Seat::of(&g.black), Seat::of(&g.white)],
            g.owner.clone(),
            clock,
        );
        game.pos = pos;
        game.moves = g.moves.clone();
        game.names = g.names.clone();
        game.people = g.people.clone();
        game.ending = ending;
        game.finished_at = over.then_some(now);
        game.unseated_since = Some(now);
        game
    }

    pub(super) fn seat(&self, c: Color) -> &Seat {
        &self.seats[c as usize]
    }

    /// Whether the game has ended.
    pub(super) fn is_over(&self) -> bool {
        self.ending.is_some()
    }

    /// Neither over nor stopped: moves may be played.
    pub(super) fn in_play(&self) -> bool {
        self.ending.is_none() && self.stopped.is_none()
    }

    /// Neither a move waiting to be saved nor a stop: a computer to move
    /// may be asked to search.
    pub(super) fn waits_for_nothing(&self) -> bool {
        self.pending.is_none() && self.in_play()
    }

    /// When the game next wants the hub: a save to try again, or the flag
    /// of the side to move.
    pub(super) fn next_wake(&self) -> Option<Instant> {
        let retry = self.pending.as_ref().map(|p| p.retry_at);
        let flag = self
            .clock
            .filter(|_| self.in_play())
            .and_then(|c| c.deadline(self.pos.side_to_move()));
        match (retry, flag) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    pub(super) fn clock_state(&self, now: Instant) -> Option<ClockState> {
        let clock = self.clock?;
        let to_move = self.pos.side_to_move();
        let ms = |c: Color| clock.left(c, to_move, now).as_millis() as u64;
        Some(ClockState {
            control: clock.control.to_string(),
            black_ms: ms(Color::Black),
            white_ms: ms(Color::White),
            running: (clock.is_running() && self.in_play()).then(|| to_move.name().to_string()),
        })
    }

    pub(super) fn state(&self, now: Instant) -> GameState {
        let over = self.is_over();
        GameState {
            game: self.id,
            position: self.pos.to_text(),
            moves: self.moves.iter().map(Move::to_string).collect(),
            turn: self.pos.side_to_move().name().into(),
            black: self.seat(Color::Black).name().into(),
            white: self.seat(Color::White).name().into(),
            names: self.names.clone(),
            black_score: self.pos.score(Color::Black),
            white_score: self.pos.score(Color::White),
            legal: if self.in_play() {
                self.pos.legal_moves().iter().map(Move::to_string).collect()
            } else {
                Vec::new()
            },
            game_over: over,
            winner: self.ending.as_ref().map(|e| e.winner().to_string()),
            result: self.ending.as_ref().map(|e| e.result.clone()),
            reason: self.ending.as_ref().map(|e| e.reason.clone()),
            connected: (
                self.seat(Color::Black).present(),
                self.seat(Color::White).present(),
            ),
            clock: self.clock_state(now),
            draw_offer: self.draw_offer.map(|c| c.name().to_string()),
            rematch: self.rematch.map(|c| c.name().to_string()),
            takeback: self.takeback.map(|c| c.name().to_string()),
            ratings: self.ratings.map(|r| r.map(Rating::shown)),
            stopped: self.stopped.clone(),
        }
    }

    /// Its line in the live list.
    pub(super) fn live_line(&self) -> LiveGame {
        LiveGame {
            game: self.id,
            black: self.seat(Color::Black).name().into(),
            white: self.seat(Color::White).name().into(),
            names: self.names.clone(),
            clock: self
                .clock
                .map_or(crate::clock::UNTIMED.to_string(), |c| c.control.to_string()),
            plies: self.moves.len(),
            black_score: self.pos.score(Color::Black),
            white_score: self.pos.score(Color::White),
        }
    }

    /// Whether it belongs in the live list: in play, with a person seated.
    pub(super) fn is_live(&self) -> bool {
        self.in_play() && self.anyone_seated()
    }

    /// The seated connections.
    pub(super) fn players(&self) -> impl Iterator<Item = ConnId> + '_ {
        self.seats.iter().filter_map(Seat::conn)
    }

    pub(super) fn audience(&self) -> Vec<ConnId> {
        self.players()
            .chain(self.watchers.iter().copied())
            .collect()
    }

    pub(super) fn anyone_seated(&self) -> bool {
        self.players().next().is_some()
    }

    /// Whether both seats hold people.
    pub(super) fn between_people(&self) -> bool {
        self.seats.iter().all(Seat::is_human)
    }

    /// The ply of `color`'s last move (a pass is no move), if it has made
    /// one.
    pub(super) fn last_move_by(&self, color: Color) -> Option<usize> {
        let mut pos = Position::START;
        let mut last = None;
        for (ply, &m) in self.moves.iter().enumerate() {
            if pos.side_to_move() == color && m != Move::PASS {
                last = Some(ply);
            }
            pos.play(m);
        }
        last
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
