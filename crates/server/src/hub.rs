//! Every game the server runs, as a plain state machine: messages in,
//! messages out. The network layer only carries them, so the rules of the
//! protocol are tested here without sockets.

use crate::protocol::{ClientMessage, GameState, ServerMessage};
use std::collections::HashMap;
use yolah::record::GameRecord;
use yolah::{Color, Move, Position};
use yolah_players::{from_spec, Player};

/// A connection, numbered by the network layer.
pub type ConnId = u64;

/// Where a key puts you.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A player's seat.
    Seat(Color),
    /// A spectator.
    Watcher,
}

impl Role {
    fn name(self) -> &'static str {
        match self {
            Role::Seat(c) => c.name(),
            Role::Watcher => "watcher",
        }
    }
}

enum Occupant {
    Human {
        key: String,
    },
    Computer {
        spec: String,
        player: Option<Box<dyn Player>>,
    },
}

struct Seat {
    occupant: Occupant,
    conn: Option<ConnId>,
}

struct Game {
    pos: Position,
    moves: Vec<Move>,
    seats: [Seat; 2],
    watchers: Vec<ConnId>,
    watch_key: String,
}

impl Game {
    fn seat(&self, c: Color) -> &Seat {
        &self.seats[c as usize]
    }

    fn name(&self, c: Color) -> String {
        match &self.seat(c).occupant {
            Occupant::Human { .. } => "human".into(),
            Occupant::Computer { spec, .. } => spec.clone(),
        }
    }

    fn state(&self) -> GameState {
        let over = self.pos.is_game_over();
        GameState {
            position: self.pos.to_text(),
            moves: self.moves.iter().map(Move::to_string).collect(),
            turn: self.pos.side_to_move().name().into(),
            black: self.name(Color::Black),
            white: self.name(Color::White),
            black_score: self.pos.score(Color::Black),
            white_score: self.pos.score(Color::White),
            legal: if over {
                Vec::new()
            } else {
                self.pos.legal_moves().iter().map(Move::to_string).collect()
            },
            game_over: over,
            winner: over.then(|| self.pos.winner().map_or("draw", Color::name).to_string()),
            connected: (
                self.seat(Color::Black).conn.is_some()
                    || matches!(self.seat(Color::Black).occupant, Occupant::Computer { .. }),
                self.seat(Color::White).conn.is_some()
                    || matches!(self.seat(Color::White).occupant, Occupant::Computer { .. }),
            ),
        }
    }

    fn audience(&self) -> Vec<ConnId> {
        self.seats
            .iter()
            .filter_map(|s| s.conn)
            .chain(self.watchers.iter().copied())
            .collect()
    }

    /// Plays `m` and then every forced pass.
    fn play(&mut self, m: Move) {
        self.pos.play(m);
        self.moves.push(m);
        while !self.pos.is_game_over() && !self.pos.can_move(self.pos.side_to_move()) {
            self.pos.play(Move::PASS);
            self.moves.push(Move::PASS);
        }
    }

    fn record(&self) -> GameRecord {
        let mut r = GameRecord::from_moves(&self.moves);
        r.metadata
            .insert("black".into(), self.name(Color::Black).into());
        r.metadata
            .insert("white".into(), self.name(Color::White).into());
        let result = match self.pos.is_game_over() {
            false => "*",
            true => self.pos.outcome().notation(),
        };
        r.metadata.insert("result".into(), result.into());
        r
    }
}

/// A computer move to search off the event loop.
pub struct Job {
    /// The game.
    pub game: u64,
    /// The position to search.
    pub pos: Position,
    /// The player, lent out for the search and handed back with the move.
    pub player: Box<dyn Player>,
}

/// What the hub wants done after a step.
#[derive(Default)]
pub struct Outbox {
    /// Messages to send.
    pub messages: Vec<(ConnId, ServerMessage)>,
    /// Computer searches to start.
    pub jobs: Vec<Job>,
}

impl Outbox {
    fn error(conn: ConnId, message: impl Into<String>) -> Outbox {
        Outbox {
            messages: vec![(
                conn,
                ServerMessage::Error {
                    message: message.into(),
                },
            )],
            ..Outbox::default()
        }
    }
}

/// All games and who is where.
pub struct Hub {
    games: HashMap<u64, Game>,
    keys: HashMap<String, (u64, Role)>,
    joined: HashMap<ConnId, (u64, Role)>,
    next_game: u64,
    offered: Vec<String>,
    new_key: Box<dyn FnMut() -> String + Send>,
}

impl Hub {
    /// A hub offering the computer players `offered`, drawing keys from
    /// `new_key` (a cryptographic source in the server).
    pub fn new(offered: Vec<String>, new_key: Box<dyn FnMut() -> String + Send>) -> Hub {
        Hub {
            games: HashMap::new(),
            keys: HashMap::new(),
            joined: HashMap::new(),
            next_game: 1,
            offered,
            new_key,
        }
    }

    /// A new connection: tell it what is offered.
    pub fn connect(&mut self, conn: ConnId) -> Outbox {
        Outbox {
            messages: vec![(
                conn,
                ServerMessage::Hello {
                    players: self.offered.clone(),
                },
            )],
            ..Outbox::default()
        }
    }

    /// A connection closed: free its seat for a reconnect.
    pub fn disconnect(&mut self, conn: ConnId) -> Outbox {
        let Some((id, role)) = self.joined.remove(&conn) else {
            return Outbox::default();
        };
        let Some(game) = self.games.get_mut(&id) else {
            return Outbox::default();
        };
        match role {
            Role::Seat(c) => game.seats[c as usize].conn = None,
            Role::Watcher => game.watchers.retain(|&w| w != conn),
        }
        self.broadcast(id)
    }

    /// The JSON record of the game a key belongs to.
    pub fn record(&self, key: &str) -> Option<GameRecord> {
        let (id, _) = self.keys.get(key)?;
        Some(self.games.get(id)?.record())
    }

    /// One text message from `conn`.
    pub fn handle(&mut self, conn: ConnId, text: &str) -> Outbox {
        let message: ClientMessage = match serde_json::from_str(text) {
            Ok(m) => m,
            Err(e) => return Outbox::error(conn, format!("not a valid message: {e}")),
        };
        match message {
            ClientMessage::New { opponent, color } => self.new_game(conn, &opponent, &color),
            ClientMessage::Join { key } => self.join(conn, &key),
            ClientMessage::Move { mv } => self.play(conn, &mv),
            ClientMessage::History => self.history(conn),
        }
    }

    fn new_game(&mut self, conn: ConnId, opponent: &str, color: &str) -> Outbox {
        if self.joined.contains_key(&conn) {
            return Outbox::error(conn, "this connection is already in a game; open a new one");
        }
        let mine = match color {
            "black" => Color::Black,
            "white" => Color::White,
            _ => return Outbox::error(conn, format!("color {color:?} is not black or white")),
        };
        let other = if opponent == "human" {
            Occupant::Human {
                key: (self.new_key)(),
            }
        } else if self.offered.iter().any(|p| p == opponent) {
            match from_spec(opponent) {
                Ok(player) => Occupant::Computer {
                    spec: opponent.to_string(),
                    player: Some(player),
                },
                Err(e) => return Outbox::error(conn, e.to_string()),
            }
        } else {
            return Outbox::error(
                conn,
                format!(
                    "opponent {opponent:?} is not human or one of {:?}",
                    self.offered
                ),
            );
        };
        let id = self.next_game;
        self.next_game += 1;
        let my_key = (self.new_key)();
        let watch_key = (self.new_key)();
        let invite = match &other {
            Occupant::Human { key } => Some(key.clone()),
            Occupant::Computer { .. } => None,
        };
        let me = Seat {
            occupant: Occupant::Human {
                key: my_key.clone(),
            },
            conn: Some(conn),
        };
        let them = Seat {
            occupant: other,
            conn: None,
        };
        let seats = if mine == Color::Black {
            [me, them]
        } else {
            [them, me]
        };
        self.keys.insert(my_key.clone(), (id, Role::Seat(mine)));
        if let Some(k) = &invite {
            self.keys
                .insert(k.clone(), (id, Role::Seat(mine.opponent())));
        }
        self.keys.insert(watch_key.clone(), (id, Role::Watcher));
        self.games.insert(
            id,
            Game {
                pos: Position::START,
                moves: Vec::new(),
                seats,
                watchers: Vec::new(),
                watch_key: watch_key.clone(),
            },
        );
        self.joined.insert(conn, (id, Role::Seat(mine)));
        let mut out = Outbox::default();
        out.messages.push((
            conn,
            ServerMessage::Welcome {
                role: mine.name().into(),
                key: my_key,
                invite,
                watch: watch_key,
            },
        ));
        let rest = self.broadcast(id);
        out.messages.extend(rest.messages);
        out.jobs.extend(rest.jobs);
        out
    }

    fn join(&mut self, conn: ConnId, key: &str) -> Outbox {
        if self.joined.contains_key(&conn) {
            return Outbox::error(conn, "this connection is already in a game; open a new one");
        }
        let Some(&(id, role)) = self.keys.get(key) else {
            return Outbox::error(conn, "unknown key");
        };
        let game = self.games.get_mut(&id).expect("keys point at games");
        match role {
            Role::Seat(c) => {
                let seat = &mut game.seats[c as usize];
                if seat.conn.is_some() {
                    return Outbox::error(
                        conn,
                        format!("the {} seat is taken by a connected player", c.name()),
                    );
                }
                seat.conn = Some(conn);
            }
            Role::Watcher => game.watchers.push(conn),
        }
        self.joined.insert(conn, (id, role));
        let invite = None;
        let watch = game.watch_key.clone();
        let mut out = Outbox::default();
        out.messages.push((
            conn,
            ServerMessage::Welcome {
                role: role.name().into(),
                key: key.to_string(),
                invite,
                watch,
            },
        ));
        let rest = self.broadcast(id);
        out.messages.extend(rest.messages);
        out.jobs.extend(rest.jobs);
        out
    }

    fn play(&mut self, conn: ConnId, text: &str) -> Outbox {
        let Some(&(id, role)) = self.joined.get(&conn) else {
            return Outbox::error(conn, "join or start a game first");
        };
        let Role::Seat(color) = role else {
            return Outbox::error(conn, "watchers cannot move");
        };
        let game = self.games.get_mut(&id).expect("joined games exist");
        if game.pos.is_game_over() {
            return Outbox::error(conn, "the game is over");
        }
        if game.pos.side_to_move() != color {
            return Outbox::error(
                conn,
                format!("it is {}'s turn", game.pos.side_to_move().name()),
            );
        }
        let m: Move = match text.parse() {
            Ok(m) => m,
            Err(e) => return Outbox::error(conn, e.to_string()),
        };
        if let Err(e) = game.pos.check_move(m) {
            return Outbox::error(conn, format!("illegal: {e}"));
        }
        game.play(m);
        self.broadcast(id)
    }

    fn history(&mut self, conn: ConnId) -> Outbox {
        let Some(&(id, _)) = self.joined.get(&conn) else {
            return Outbox::error(conn, "join or start a game first");
        };
        let game = &self.games[&id];
        let mut pos = Position::START;
        let mut positions = vec![pos.to_text()];
        for &m in &game.moves {
            pos.play(m);
            positions.push(pos.to_text());
        }
        Outbox {
            messages: vec![(
                conn,
                ServerMessage::History {
                    positions,
                    moves: game.moves.iter().map(Move::to_string).collect(),
                },
            )],
            ..Outbox::default()
        }
    }

    /// A computer search finished: play its move if the game still waits
    /// for it, and hand the player back.
    pub fn finish_job(
        &mut self,
        id: u64,
        searched: Position,
        m: Move,
        player: Box<dyn Player>,
    ) -> Outbox {
        let Some(game) = self.games.get_mut(&id) else {
            return Outbox::default();
        };
        let side = searched.side_to_move();
        if let Occupant::Computer { player: slot, .. } = &mut game.seats[side as usize].occupant {
            *slot = Some(player);
        }
        if game.pos != searched || game.pos.check_move(m).is_err() {
            return Outbox::default();
        }
        game.play(m);
        self.broadcast(id)
    }

    /// Sends the state to everyone in game `id` and lends out the computer
    /// player if it is its turn.
    fn broadcast(&mut self, id: u64) -> Outbox {
        let game = self
            .games
            .get_mut(&id)
            .expect("broadcast to a game that exists");
        let state = game.state();
        let mut out = Outbox::default();
        for conn in game.audience() {
            out.messages
                .push((conn, ServerMessage::State(state.clone())));
        }
        if !game.pos.is_game_over() {
            let side = game.pos.side_to_move();
            if let Occupant::Computer { player, .. } = &mut game.seats[side as usize].occupant {
                if let Some(player) = player.take() {
                    out.jobs.push(Job {
                        game: id,
                        pos: game.pos,
                        player,
                    });
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hub() -> Hub {
        let mut n = 0;
        Hub::new(
            vec!["random".into()],
            Box::new(move || {
                n += 1;
                format!("key{n}")
            }),
        )
    }

    fn errors(out: &Outbox) -> Vec<String> {
        out.messages
            .iter()
            .filter_map(|(_, m)| match m {
                ServerMessage::Error { message } => Some(message.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn two_people_play_and_others_are_refused() {
        let mut h = hub();
        h.connect(1);
        let out = h.handle(1, r#"{"type":"new","opponent":"human","color":"black"}"#);
        let (invite, watch) = match &out.messages[0].1 {
            ServerMessage::Welcome { invite, watch, .. } => {
                (invite.clone().unwrap(), watch.clone())
            }
            m => panic!("{m:?}"),
        };
        assert!(errors(&h.handle(2, &format!(r#"{{"type":"join","key":"{invite}"}}"#))).is_empty());
        assert!(errors(&h.handle(3, &format!(r#"{{"type":"join","key":"{watch}"}}"#))).is_empty());
        // A third person cannot take a connected seat.
        assert!(
            errors(&h.handle(4, &format!(r#"{{"type":"join","key":"{invite}"}}"#)))[0]
                .contains("taken")
        );
        assert!(
            errors(&h.handle(2, r#"{"type":"move","move":"d4:b2"}"#))[0].contains("black's turn")
        );
        assert!(errors(&h.handle(3, r#"{"type":"move","move":"d5:b7"}"#))[0]
            .contains("watchers cannot move"));
        assert!(errors(&h.handle(1, r#"{"type":"move","move":"d5:d4"}"#))[0].contains("illegal"));
        assert!(errors(&h.handle(1, r#"{"type":"move","move":"x"}"#))[0].contains("not a move"));
        assert!(errors(&h.handle(1, r#"{"type":"mvoe"}"#))[0].contains("not a valid message"));
        assert!(
            errors(&h.handle(1, r#"{"type":"move","move":"d5:b7","extra":1}"#))[0]
                .contains("unknown field")
        );
        assert!(errors(&h.handle(1, "{")).len() == 1);
        let ok = h.handle(1, r#"{"type":"move","move":"d5:b7"}"#);
        assert!(errors(&ok).is_empty());
        assert_eq!(
            ok.messages.len(),
            3,
            "both players and the watcher hear of it"
        );
        // Player 2 drops and comes back with the same key.
        h.disconnect(2);
        assert!(errors(&h.handle(5, &format!(r#"{{"type":"join","key":"{invite}"}}"#))).is_empty());
        assert!(errors(&h.handle(5, r#"{"type":"move","move":"e5:c7"}"#)).is_empty());
        let record = h.record(&watch).unwrap();
        assert_eq!(record.moves, ["d5:b7", "e5:c7"]);
    }

    #[test]
    fn computer_turns_become_jobs() {
        let mut h = hub();
        let out = h.handle(1, r#"{"type":"new","opponent":"random","color":"white"}"#);
        assert_eq!(out.jobs.len(), 1, "black is the computer and moves first");
        assert!(errors(&h.handle(
            1,
            r#"{"type":"new","opponent":"mcts:time=99s","color":"white"}"#
        ))[0]
            .contains("already"));
        assert!(errors(&h.handle(
            2,
            r#"{"type":"new","opponent":"mcts:time=99s","color":"white"}"#
        ))[0]
            .contains("not human or one of"));
        let job = out.jobs.into_iter().next().unwrap();
        let mut player = job.player;
        let m = player.choose_move(&job.pos);
        let after = h.finish_job(job.game, job.pos, m, player);
        assert!(after.jobs.is_empty(), "now it is the person's turn");
        assert!(
            matches!(&after.messages[0].1, ServerMessage::State(s) if s.moves.len() == 1 && s.turn == "white")
        );
    }
}
