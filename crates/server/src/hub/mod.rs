//! Every game the server holds, as a plain state machine: messages in,
//! messages and searches out. The network layer only carries them, so the
//! rules of the protocol and every bound are tested here without sockets.
//!
//! Memory is a cache over the database: a game is written to the store when
//! it is created and every move is committed before anyone hears of it; a
//! game leaves memory once it has been finished, or nobody has sat at it,
//! for the retention time, and a key of it brings it back.
//!
//! The parts: [`game`] (one game's state in memory), [`seats`] (starting,
//! joining, watching, rematches), [`play`] (moves, the computer's, clocks,
//! endings), [`takeback`] (asking for a move back), [`ratings`] (rated games
//! between people), [`lobby`] (open challenges and the live list),
//! [`analysis`] (the engine on any position).

use crate::clock::TimeControl;
use crate::limits::Limits;
use crate::names::Person;
use crate::protocol::{ClientMessage, Level, ServerMessage};
use crate::rating::Rating;
use crate::search::{Job, Outcome as SearchOutcome, Target};
#[cfg(test)]
use crate::store::StoreError;
use crate::store::{hash_key, KeyHash, Role, Store};
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};
#[cfg(test)]
use yolah::record::GameRecord;
use yolah::Rng;
use yolah_players::Stop;

mod analysis;
mod game;
mod lobby;
mod play;
mod ratings;
mod seats;
mod takeback;

use game::{Game, Seat};
use lobby::Seeks;

/// Where the hub reads the time (the tests set it by hand).
pub type TimeSource = Arc<dyn Fn() -> Instant + Send + Sync>;

/// A connection, numbered by the network layer.
pub type ConnId = u64;

/// What the server offers its players.
#[derive(Clone, Debug)]
pub struct Offer {
    /// The computer players, as named levels, weakest first.
    pub levels: Vec<Level>,
    /// The time controls a game may have (besides none).
    pub clocks: Vec<TimeControl>,
    /// The player that analyses positions.
    pub analysis: String,
    /// How long it thinks about one position.
    pub analysis_time: Duration,
}

impl Offer {
    /// The computer players' specs.
    pub fn specs(&self) -> Vec<String> {
        self.levels.iter().map(|l| l.spec.clone()).collect()
    }
}

/// What the hub wants done after a step.
#[derive(Default)]
pub struct Outbox {
    /// Messages to send.
    pub messages: Vec<(ConnId, ServerMessage)>,
    /// Computer searches to start.
    pub jobs: Vec<Job>,
    /// The hub's next wake-up moved earlier: whoever waits for it must
    /// look again ([`Hub::next_wake`]).
    pub rearm: bool,
    /// What the message cost beyond one, in the sender's rate limit (an
    /// analysis costs more than a move).
    pub cost: u32,
}

impl Outbox {
    fn error(conn: ConnId, message: impl Into<String>) -> Outbox {
        let mut out = Outbox::default();
        out.error_to(conn, message);
        out
    }

    fn error_to(&mut self, conn: ConnId, message: impl Into<String>) {
        self.messages.push((
            conn,
            ServerMessage::Error {
                message: message.into(),
            },
        ));
    }

    fn to(&mut self, conn: ConnId, message: ServerMessage) {
        self.messages.push((conn, message));
    }

    fn extend(&mut self, other: Outbox) {
        self.messages.extend(other.messages);
        self.jobs.extend(other.jobs);
        self.rearm |= other.rearm;
        self.cost += other.cost;
    }
}

struct Conn {
    addr: String,
    /// The display name from the connection's cookie.
    name: Option<String>,
    /// The person's id from the same cookie.
    person: Option<String>,
    /// Their rating, once they have played a rated game.
    rating: Option<Rating>,
    joined: Option<(u64, Role)>,
    /// Whether it hears of the lobby's changes.
    lobby: bool,
    /// Its open challenge.
    seek: Option<u64>,
    /// Its analysis in the queue or running: its number and its stop flag.
    analysis: Option<(u64, Stop)>,
}

/// All games in memory, the database behind them, and who is where.
pub struct Hub {
    games: HashMap<u64, Game>,
    keys: HashMap<KeyHash, (u64, Role)>,
    conns: HashMap<ConnId, Conn>,
    offer: Offer,
    new_key: Box<dyn FnMut() -> String + Send>,
    store: Store,
    limits: Limits,
    rng: Rng,
    /// When each game wants the hub's attention on its own (a move to save
    /// again, a flag), earliest first; one entry per game at most
    /// (`Game::wake`).
    wakes: BTreeSet<(Instant, u64)>,
    now: TimeSource,
    seeks: Seeks,
    /// Whether the lobby changed since it was last sent.
    lobby_changed: bool,
    /// Connections waiting for an analysis.
    analyses: usize,
    /// Numbers analyses, so that a late answer is known as such.
    next_analysis: u64,
}

impl Hub {
    /// A hub offering `offer`, drawing keys from `new_key` (a cryptographic
    /// source in the server), keeping games in `store`, within `limits`.
    pub fn new(
        offer: Offer,
        new_key: Box<dyn FnMut() -> String + Send>,
        store: Store,
        limits: Limits,
    ) -> Hub {
        Hub {
            games: HashMap::new(),
            keys: HashMap::new(),
            conns: HashMap::new(),
            offer,
            new_key,
            store,
            limits,
            rng: Rng::new(0x5eed),
            wakes: BTreeSet::new(),
            now: Arc::new(Instant::now),
            seeks: Seeks::default(),
            lobby_changed: false,
            analyses: 0,
            next_analysis: 1,
        }
    }

    /// Reads the time from `now` instead of the system's clock.
    #[cfg(test)]
    pub fn set_clock(&mut self, now: TimeSource) {
        self.now = now;
    }

    /// Games in memory.
    pub fn games_in_memory(&self) -> usize {
        self.games.len()
    }

    /// A new connection from `addr`, from `person` (their name cookie) if
    /// they have one: tell it what is offered.
    pub fn connect(&mut self, conn: ConnId, addr: &str, person: Option<Person>) -> Outbox {
        let rating = person
            .as_ref()
            .and_then(|p| match self.store.rating(&p.id) {
                Ok(rating) => rating,
                Err(e) => {
                    eprintln!("yolah serve: a rating could not be read: {e}");
                    None
                }
            });
        let (person, name) = person.map(|p| (p.id, p.name)).unzip();
        self.conns.insert(
            conn,
            Conn {
                addr: addr.to_string(),
                name: name.clone(),
                person,
                rating,
                joined: None,
                lobby: false,
                seek: None,
                analysis: None,
            },
        );
        let mut clocks: Vec<String> = self.offer.clocks.iter().map(ToString::to_string).collect();
        clocks.push(crate::clock::UNTIMED.to_string());
        let mut out = Outbox::default();
        out.to(
            conn,
            ServerMessage::Hello {
                players: self.offer.specs(),
                levels: self.offer.levels.clone(),
                clocks,
                name,
                rating: rating.map(Rating::shown),
                analysis: self.offer.analysis.clone(),
            },
        );
        out
    }

    /// A connection closed: free its seat for a reconnect, withdraw its
    /// challenge, stop its analysis.
    pub fn disconnect(&mut self, conn: ConnId) -> Outbox {
        let mut out = self.withdraw_seek(conn);
        out.extend(self.leave(conn));
        if let Some(c) = self.conns.remove(&conn) {
            if let Some((_, stop)) = c.analysis {
                stop.request();
                self.analyses -= 1;
            }
        }
        out
    }

    /// Takes `conn` out of the game it is in: a seat is freed (and everyone
    /// hears of it), a watcher leaves quietly.
    fn leave(&mut self, conn: ConnId) -> Outbox {
        let Some((id, role)) = self.conns.get_mut(&conn).and_then(|c| c.joined.take()) else {
            return Outbox::default();
        };
        let now = (self.now)();
        let Some(game) = self.games.get_mut(&id) else {
            return Outbox::default();
        };
        match role {
            Role::Seat(c) => {
                game.seats[c as usize] = Seat::Human { conn: None };
                if !game.anyone_seated() {
                    game.unseated_since = Some(now);
                    self.lobby_changed = true;
                }
                self.broadcast(id)
            }
            Role::Watcher => {
                game.watchers.retain(|&w| w != conn);
                Outbox::default()
            }
        }
    }

    /// Frees `conn` for another game: it may leave a game that is over (or
    /// stopped, or that it only watches), not one it is playing.
    fn free_for_another(&mut self, conn: ConnId) -> Result<Outbox, String> {
        let Some((id, role)) = self.joined(conn) else {
            return Ok(Outbox::default());
        };
        let playing = self
            .games
            .get(&id)
            .is_some_and(|g| g.in_play() && role != Role::Watcher);
        if playing {
            return Err("this connection is playing a game; open a new one".into());
        }
        Ok(self.leave(conn))
    }

    /// The JSON record of the game a key belongs to (the server reads it
    /// from the archive's connections instead).
    #[cfg(test)]
    pub fn record(&self, key: &str) -> Result<Option<GameRecord>, StoreError> {
        let Some((id, _)) = self.store.find_key(&hash_key(key))? else {
            return Ok(None);
        };
        Ok(self.store.load(id)?.map(|g| g.record()))
    }

    /// One text message from `conn`.
    pub fn handle(&mut self, conn: ConnId, text: &str) -> Outbox {
        let message = match ClientMessage::parse(text) {
            Ok(m) => m,
            Err(e) => return Outbox::error(conn, e),
        };
        if !self.conns.contains_key(&conn) {
            // Only the tests skip `connect`.
            self.connect(conn, "unknown", None);
        }
        match message {
            ClientMessage::New {
                opponent,
                color,
                clock,
            } => self.new_game(conn, &opponent, &color, clock.as_deref()),
            ClientMessage::Join { key } => self.join(conn, &key),
            ClientMessage::Watch { game } => self.watch(conn, game),
            ClientMessage::Move { mv } => self.play(conn, &mv),
            ClientMessage::History {} => self.history(conn),
            ClientMessage::Resign {} => self.resign(conn),
            ClientMessage::OfferDraw {} => self.offer_draw(conn),
            ClientMessage::DeclineDraw {} => self.decline_draw(conn),
            ClientMessage::Takeback {} => self.takeback(conn),
            ClientMessage::DeclineTakeback {} => self.decline_takeback(conn),
            ClientMessage::Rematch {} => self.rematch(conn),
            ClientMessage::Lobby {} => self.subscribe(conn),
            ClientMessage::Seek { color, clock } => self.seek(conn, &color, &clock),
            ClientMessage::CancelSeek {} => self.cancel_seek(conn),
            ClientMessage::Accept { seek } => self.accept(conn, seek),
            ClientMessage::Analyse { position } => self.analyse(conn, &position),
        }
    }

    fn joined(&self, conn: ConnId) -> Option<(u64, Role)> {
        self.conns.get(&conn).and_then(|c| c.joined)
    }

    /// A finished search: a game's move, or an analysis.
    pub fn finish_job(&mut self, job: &Job, outcome: SearchOutcome) -> Outbox {
        match &job.target {
            Target::Move { game } => self.finish_search(*game, job, outcome),
            Target::Analysis { conn, serial, .. } => {
                self.finish_analysis(*conn, *serial, job, outcome)
            }
        }
    }

    /// When the hub next wants [`Hub::wake`] called, if ever.
    pub fn next_wake(&self) -> Option<Instant> {
        self.wakes.first().map(|&(t, _)| t)
    }

    /// Does what was due by `now`: saves again the moves the database
    /// refused, and lets flags fall.
    pub fn wake(&mut self, now: Instant) -> Outbox {
        let mut out = Outbox::default();
        while let Some(&(t, id)) = self.wakes.first() {
            if t > now {
                break;
            }
            self.wakes.pop_first();
            let Some(game) = self.games.get_mut(&id) else {
                continue;
            };
            game.wake = None;
            out.extend(self.due(id, now));
            out.extend(self.refresh_wake(id));
        }
        out
    }

    /// Puts game `id`'s next wake-up in the hub's list (or takes it out).
    fn refresh_wake(&mut self, id: u64) -> Outbox {
        let Some(game) = self.games.get_mut(&id) else {
            return Outbox::default();
        };
        let at = game.next_wake();
        if at == game.wake {
            return Outbox::default();
        }
        let earliest = self.wakes.first().map(|&(t, _)| t);
        if let Some(old) = game.wake.take() {
            self.wakes.remove(&(old, id));
        }
        game.wake = at;
        if let Some(at) = at {
            self.wakes.insert((at, id));
        }
        Outbox {
            rearm: at.is_some_and(|at| earliest.is_none_or(|e| at < e)),
            ..Outbox::default()
        }
    }

    /// Sends the state to everyone in game `id`, asks for the computer's
    /// search if it is its turn, and sets the game's next wake-up.
    fn broadcast(&mut self, id: u64) -> Outbox {
        let now = (self.now)();
        let Some(game) = self.games.get_mut(&id) else {
            return Outbox::default();
        };
        let state = game.state(now);
        let mut out = Outbox::default();
        for conn in game.audience() {
            out.to(conn, ServerMessage::State(Box::new(state.clone())));
        }
        if game.search.is_none() && game.waits_for_nothing() {
            let to_move = game.pos.side_to_move();
            if let Seat::Computer { spec } = game.seat(to_move) {
                let stop = Stop::new();
                let clock = game.clock.map(|c| yolah_players::GameClock {
                    remaining: [
                        c.left(yolah::Color::Black, to_move, now),
                        c.left(yolah::Color::White, to_move, now),
                    ],
                    increment: [c.control.increment; 2],
                });
                out.jobs.push(Job {
                    target: Target::Move { game: id },
                    pos: game.pos,
                    spec: spec.clone(),
                    stop: stop.clone(),
                    owner: game.owner.clone(),
                    clock,
                    budget: None,
                });
                game.search = Some(stop);
            }
        }
        out.extend(self.refresh_wake(id));
        out
    }

    /// The game of a key: in memory, or loaded from the database (which may
    /// evict another: `out` tells its watchers).
    fn find(&mut self, key: &str, out: &mut Outbox) -> Result<Option<(u64, Role)>, String> {
        let hash = hash_key(key);
        if let Some(&found) = self.keys.get(&hash) {
            return Ok(Some(found));
        }
        let Some((id, role)) = self.store.find_key(&hash).map_err(|e| e.to_string())? else {
            return Ok(None);
        };
        if !self.games.contains_key(&id) {
            out.extend(self.make_room()?);
            let stored = self
                .store
                .load(id)
                .map_err(|e| e.to_string())?
                .ok_or("the key's game is missing from the database")?;
            self.games
                .insert(id, Game::from_stored(&stored, (self.now)()));
        }
        self.keys.insert(hash, (id, role));
        if let Some(g) = self.games.get_mut(&id) {
            g.keys.push(hash);
        }
        Ok(Some((id, role)))
    }

    /// Makes room for one more game in memory: drops the game finished
    /// longest ago, or else the one nobody has sat at for longest, if the
    /// hub is full. Its watchers are told (the outbox).
    fn make_room(&mut self) -> Result<Outbox, String> {
        if self.games.len() < self.limits.max_games {
            return Ok(Outbox::default());
        }
        let finished = self
            .games
            .iter()
            .filter_map(|(&id, g)| Some((g.finished_at?, id)))
            .min();
        let unseated = || {
            self.games
                .iter()
                .filter_map(|(&id, g)| Some((g.unseated_since?, id)))
                .min()
        };
        match finished.or_else(unseated) {
            Some((_, id)) => Ok(self.evict(id)),
            None => Err(format!(
                "the server holds the most games it may ({}); try again later",
                self.limits.max_games
            )),
        }
    }

    /// Drops game `id` from memory (it stays in the database): its search
    /// is stopped, its keys leave the index, and whoever was in it is told.
    fn evict(&mut self, id: u64) -> Outbox {
        let Some(game) = self.games.remove(&id) else {
            return Outbox::default();
        };
        self.lobby_changed = true;
        if let Some(at) = game.wake {
            self.wakes.remove(&(at, id));
        }
        if let Some(stop) = game.search {
            stop.request();
        }
        for hash in &game.keys {
            self.keys.remove(hash);
        }
        let mut out = Outbox::default();
        for (&conn_id, conn) in self.conns.iter_mut() {
            if conn.joined.is_some_and(|(g, _)| g == id) {
                conn.joined = None;
                out.error_to(
                    conn_id,
                    "this game has left the server's memory; join again with its key to see it",
                );
            }
        }
        out
    }

    /// Stops every search (the server is shutting down).
    pub fn stop_searches(&mut self) {
        for game in self.games.values_mut() {
            if let Some(stop) = game.search.take() {
                stop.request();
            }
        }
        for conn in self.conns.values_mut() {
            if let Some((_, stop)) = conn.analysis.take() {
                stop.request();
                self.analyses -= 1;
            }
        }
    }

    /// Drops the games that were finished, or that nobody has sat at, for
    /// longer than the retention time. A game with a running clock stays:
    /// its flag will end it.
    pub fn sweep(&mut self, now: Instant) -> Outbox {
        let retention = self.limits.retention;
        let old =
            |t: Option<Instant>| t.is_some_and(|t| now.saturating_duration_since(t) >= retention);
        let gone: Vec<u64> = self
            .games
            .iter()
            .filter(|(_, g)| old(g.finished_at) || (old(g.unseated_since) && g.wake.is_none()))
            .map(|(&id, _)| id)
            .collect();
        let mut out = Outbox::default();
        for id in gone {
            out.extend(self.evict(id));
        }
        out
    }
}

#[cfg(test)]
mod tests;
