//! Every game the server holds, as a plain state machine: messages in,
//! messages and searches out. The network layer only carries them, so the
//! rules of the protocol and every bound are tested here without sockets.
//!
//! Memory is a cache over the database: a game is written to the store when
//! it is created and every move is committed before anyone hears of it; a
//! game leaves memory once it has been finished, or nobody has sat at it,
//! for the retention time, and a key of it brings it back.

use crate::limits::Limits;
use crate::protocol::{ClientMessage, ServerMessage};
use crate::search::{Job, Outcome as SearchOutcome};
use crate::store::{hash_key, Ending, KeyHash, NewGame, Role, Store, StoreError};
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};
#[cfg(test)]
use yolah::record::GameRecord;
use yolah::{Color, Move, Position, Rng};
use yolah_players::Stop;

mod game;

use game::{Game, Pending, Seat};

/// Times the hub tries to save a computer's move before it stops the game.
const SAVE_ATTEMPTS: u32 = 5;
/// The wait before the second attempt; each later wait doubles it.
const FIRST_RETRY: Duration = Duration::from_millis(100);

/// Why a game that was played to its end ended.
const NO_MOVES_LEFT: &str = "neither side can move";
/// How far back the per-address quota of new games looks.
const QUOTA_WINDOW: Duration = Duration::from_secs(24 * 3600);

/// Where the hub reads the time (the tests set it by hand).
pub type Clock = Arc<dyn Fn() -> Instant + Send + Sync>;

/// A connection, numbered by the network layer.
pub type ConnId = u64;

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

    fn extend(&mut self, other: Outbox) {
        self.messages.extend(other.messages);
        self.jobs.extend(other.jobs);
        self.rearm |= other.rearm;
    }
}

struct Conn {
    addr: String,
    joined: Option<(u64, Role)>,
}

/// All games in memory, the database behind them, and who is where.
pub struct Hub {
    games: HashMap<u64, Game>,
    keys: HashMap<KeyHash, (u64, Role)>,
    conns: HashMap<ConnId, Conn>,
    offered: Vec<String>,
    new_key: Box<dyn FnMut() -> String + Send>,
    store: Store,
    limits: Limits,
    rng: Rng,
    /// When each game wants the hub's attention on its own (a move to save
    /// again), earliest first; a game has one entry at most (`Game::wake`).
    wakes: BTreeSet<(Instant, u64)>,
    now: Clock,
}

impl Hub {
    /// A hub offering the computer players `offered`, drawing keys from
    /// `new_key` (a cryptographic source in the server), keeping games in
    /// `store`, within `limits`.
    pub fn new(
        offered: Vec<String>,
        new_key: Box<dyn FnMut() -> String + Send>,
        store: Store,
        limits: Limits,
    ) -> Hub {
        Hub {
            games: HashMap::new(),
            keys: HashMap::new(),
            conns: HashMap::new(),
            offered,
            new_key,
            store,
            limits,
            rng: Rng::new(0x5eed),
            wakes: BTreeSet::new(),
            now: Arc::new(Instant::now),
        }
    }

    /// Reads the time from `now` instead of the system's clock.
    #[cfg(test)]
    pub fn set_clock(&mut self, now: Clock) {
        self.now = now;
    }

    /// When the hub next wants [`Hub::wake`] called, if ever.
    pub fn next_wake(&self) -> Option<Instant> {
        self.wakes.first().map(|&(t, _)| t)
    }

    /// Does what was due by `now`: saves again the moves the database
    /// refused.
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
            if let Some(Pending { mv, attempts }) = game.pending.take() {
                out.extend(self.save_computer_move(id, mv, attempts + 1));
            }
        }
        out
    }

    /// Sets (or clears) game `id`'s wake-up.
    fn set_wake(&mut self, id: u64, at: Option<Instant>) -> Outbox {
        let Some(game) = self.games.get_mut(&id) else {
            return Outbox::default();
        };
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

    /// Games in memory.
    pub fn games_in_memory(&self) -> usize {
        self.games.len()
    }

    /// A new connection from `addr`: tell it what is offered.
    pub fn connect(&mut self, conn: ConnId, addr: &str) -> Outbox {
        self.conns.insert(
            conn,
            Conn {
                addr: addr.to_string(),
                joined: None,
            },
        );
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
        let Some(Conn {
            joined: Some((id, role)),
            ..
        }) = self.conns.remove(&conn)
        else {
            return Outbox::default();
        };
        let Some(game) = self.games.get_mut(&id) else {
            return Outbox::default();
        };
        match role {
            Role::Seat(c) => {
                game.seats[c as usize] = Seat::Human { conn: None };
                if !game.anyone_seated() {
                    game.unseated_since = Some((self.now)());
                }
                self.broadcast(id)
            }
            // Watchers come and go without telling anyone.
            Role::Watcher => {
                game.watchers.retain(|&w| w != conn);
                Outbox::default()
            }
        }
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
            self.connect(conn, "unknown");
        }
        match message {
            ClientMessage::New { opponent, color } => self.new_game(conn, &opponent, &color),
            ClientMessage::Join { key } => self.join(conn, &key),
            ClientMessage::Move { mv } => self.play(conn, &mv),
            ClientMessage::History {} => self.history(conn),
        }
    }

    fn joined(&self, conn: ConnId) -> Option<(u64, Role)> {
        self.conns.get(&conn).and_then(|c| c.joined)
    }

    fn new_game(&mut self, conn: ConnId, opponent: &str, color: &str) -> Outbox {
        if self.joined(conn).is_some() {
            return Outbox::error(conn, "this connection is already in a game; open a new one");
        }
        let mine = match color {
            "black" => Color::Black,
            "white" => Color::White,
            _ => return Outbox::error(conn, format!("color {color:?} is not black or white")),
        };
        let other = if opponent == "human" {
            Seat::Human { conn: None }
        } else if self.offered.iter().any(|p| p == opponent) {
            Seat::Computer {
                spec: opponent.to_string(),
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
        let addr = self.conns[&conn].addr.clone();
        let held = self
            .games
            .values()
            .filter(|g| g.owner == addr && g.finished_at.is_none())
            .count();
        if held >= self.limits.max_games_per_addr {
            return Outbox::error(
                conn,
                format!(
                    "your address already has {held} unfinished games, the most it may have; \
                     finish or leave one first"
                ),
            );
        }
        let since = crate::store::now().saturating_sub(QUOTA_WINDOW.as_secs());
        match self.store.created_since(&addr, since) {
            Ok(n) if n >= self.limits.max_daily_games_per_addr as u64 => {
                return Outbox::error(
                    conn,
                    format!(
                        "your address has started {n} games in the last 24 hours, the most it \
                         may; come back later"
                    ),
                )
            }
            Ok(_) => {}
            Err(e) => return Outbox::error(conn, format!("cannot start a game: {e}")),
        }
        let mut out = match self.make_room() {
            Ok(out) => out,
            Err(e) => return Outbox::error(conn, e),
        };
        let my_key = (self.new_key)();
        let watch_key = (self.new_key)();
        let invite = matches!(other, Seat::Human { .. }).then(|| (self.new_key)());
        let me = Seat::Human { conn: Some(conn) };
        let seats = if mine == Color::Black {
            [me, other]
        } else {
            [other, me]
        };
        let mut keys = vec![
            (hash_key(&my_key), Role::Seat(mine)),
            (hash_key(&watch_key), Role::Watcher),
        ];
        if let Some(k) = &invite {
            keys.push((hash_key(k), Role::Seat(mine.opponent())));
        }
        let stored = self.store.create_game(&NewGame {
            players: [seats[0].name(), seats[1].name()],
            names: [None, None],
            owner: &addr,
            time_control: None,
            keys: &keys,
        });
        let id = match stored {
            Ok(id) => id,
            Err(e) => return Outbox::error(conn, format!("cannot start a game: {e}")),
        };
        for &(hash, role) in &keys {
            self.keys.insert(hash, (id, role));
        }
        self.games.insert(
            id,
            Game {
                pos: Position::START,
                moves: Vec::new(),
                seats,
                watchers: Vec::new(),
                watch_key: Some(watch_key.clone()),
                owner: addr,
                search: None,
                keys: keys.iter().map(|k| k.0).collect(),
                finished_at: None,
                unseated_since: None,
                pending: None,
                wake: None,
                stopped: None,
            },
        );
        if let Some(c) = self.conns.get_mut(&conn) {
            c.joined = Some((id, Role::Seat(mine)));
        }
        out.messages.push((
            conn,
            ServerMessage::Welcome {
                role: mine.name().into(),
                key: my_key,
                invite,
                watch: Some(watch_key),
            },
        ));
        out.extend(self.broadcast(id));
        out
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

    fn join(&mut self, conn: ConnId, key: &str) -> Outbox {
        if self.joined(conn).is_some() {
            return Outbox::error(conn, "this connection is already in a game; open a new one");
        }
        let mut out = Outbox::default();
        let (id, role) = match self.find(key, &mut out) {
            Ok(Some(found)) => found,
            Ok(None) => {
                out.error_to(conn, "unknown key");
                return out;
            }
            Err(e) => {
                out.error_to(conn, e);
                return out;
            }
        };
        let max_watchers = self.limits.max_watchers;
        let game = self.games.get_mut(&id).expect("find loads the game");
        match role {
            Role::Seat(c) => {
                let seat = &mut game.seats[c as usize];
                if seat.present() {
                    out.error_to(
                        conn,
                        format!("the {} seat is taken by a connected player", c.name()),
                    );
                    return out;
                }
                *seat = Seat::Human { conn: Some(conn) };
                game.unseated_since = None;
            }
            Role::Watcher => {
                if game.watchers.len() >= max_watchers {
                    out.error_to(
                        conn,
                        format!("this game has {max_watchers} watchers, the most it may have"),
                    );
                    return out;
                }
                game.watchers.push(conn);
            }
        }
        if let Some(c) = self.conns.get_mut(&conn) {
            c.joined = Some((id, role));
        }
        out.messages.push((
            conn,
            ServerMessage::Welcome {
                role: role.name().into(),
                key: key.to_string(),
                invite: None,
                watch: game.watch_key.clone(),
            },
        ));
        match role {
            // A seat changes the game's state for everyone (and a game just
            // loaded may be waiting for its computer).
            Role::Seat(_) => out.extend(self.broadcast(id)),
            // A watcher is told the state; nobody else hears of it.
            Role::Watcher => out
                .messages
                .push((conn, ServerMessage::State(game.state()))),
        }
        out
    }

    fn play(&mut self, conn: ConnId, text: &str) -> Outbox {
        let Some((id, role)) = self.joined(conn) else {
            return Outbox::error(conn, "join or start a game first");
        };
        let Role::Seat(color) = role else {
            return Outbox::error(conn, "watchers cannot move");
        };
        let Some(game) = self.games.get(&id) else {
            return Outbox::error(conn, "join or start a game first");
        };
        if let Some(why) = &game.stopped {
            return Outbox::error(conn, why.clone());
        }
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
        match self.commit(id, m) {
            Ok(()) => self.broadcast(id),
            Err(e) => Outbox::error(conn, format!("the move was not played: {e}")),
        }
    }

    /// Stores `m` (a legal move) and its forced passes, then plays them: the
    /// database has every move before any client hears of it.
    fn commit(&mut self, id: u64, m: Move) -> Result<(), StoreError> {
        let game = self
            .games
            .get_mut(&id)
            .expect("committing to a game in memory");
        let (moves, end) = game.moves_after(m);
        let ending = end.is_game_over().then(|| Ending {
            result: end.outcome().notation(),
            reason: NO_MOVES_LEFT,
        });
        let timed: Vec<(Move, Option<Duration>)> = moves.iter().map(|&m| (m, None)).collect();
        self.store.add_moves(id, game.moves.len(), &timed, ending)?;
        game.pos = end;
        game.moves.extend(moves);
        if ending.is_some() {
            game.finished_at = Some((self.now)());
            if let Some(stop) = game.search.take() {
                stop.request();
            }
        }
        Ok(())
    }

    fn history(&mut self, conn: ConnId) -> Outbox {
        let Some(game) = self.joined(conn).and_then(|(id, _)| self.games.get(&id)) else {
            return Outbox::error(conn, "join or start a game first");
        };
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

    /// A search finished: play its move if the game still waits for it.
    /// A failed search, or a move the rules refuse, is replaced by a random
    /// legal move and the seated players are told, so a game never waits
    /// forever for a computer.
    pub fn finish_search(&mut self, job: &Job, outcome: SearchOutcome) -> Outbox {
        let Some(game) = self.games.get_mut(&job.game) else {
            return Outbox::default();
        };
        if game.pos != job.pos || game.search.is_none() {
            return Outbox::default();
        }
        game.search = None;
        let (m, problem) = match outcome {
            SearchOutcome::Cancelled => return Outbox::default(),
            SearchOutcome::Move(m) => match game.pos.check_move(m) {
                Ok(()) => (m, None),
                Err(e) => (
                    game.pos.random_move(&mut self.rng),
                    Some(format!("{} chose an illegal move {m}: {e}", job.spec)),
                ),
            },
            SearchOutcome::Failed(why) => (game.pos.random_move(&mut self.rng), Some(why)),
        };
        let mut out = Outbox::default();
        if let Some(why) = &problem {
            eprintln!(
                "yolah serve: game {}: {why}; a random move is played instead",
                job.game
            );
            for conn in game.players().collect::<Vec<_>>() {
                out.error_to(
                    conn,
                    format!("the computer's search failed ({why}); it played a random move"),
                );
            }
        }
        out.extend(self.save_computer_move(job.game, m, 1));
        out
    }

    /// Saves the computer's move `m` in game `id` (this is attempt number
    /// `attempt`) and plays it. A database that refuses it is asked again
    /// later, each wait twice the last, and never while the hub waits: after
    /// [`SAVE_ATTEMPTS`] the game is stopped and its people told, so a
    /// broken disk costs a few log lines per game, not a loop.
    fn save_computer_move(&mut self, id: u64, m: Move, attempt: u32) -> Outbox {
        let error = match self.commit(id, m) {
            Ok(()) => return self.broadcast(id),
            Err(e) => e,
        };
        eprintln!(
            "yolah serve: game {id}: the computer's move was not saved \
             (attempt {attempt} of {SAVE_ATTEMPTS}): {error}"
        );
        let now = (self.now)();
        let Some(game) = self.games.get_mut(&id) else {
            return Outbox::default();
        };
        let mut out = Outbox::default();
        if attempt < SAVE_ATTEMPTS {
            if attempt == 1 {
                for conn in game.players().collect::<Vec<_>>() {
                    out.error_to(
                        conn,
                        format!("the computer's move was not saved ({error}); trying again"),
                    );
                }
            }
            game.pending = Some(Pending {
                mv: m,
                attempts: attempt,
            });
            let wait = FIRST_RETRY * 2u32.pow(attempt - 1);
            out.extend(self.set_wake(id, Some(now + wait)));
            return out;
        }
        // Stopped: nothing more happens to it in memory; it leaves after the
        // retention time, and its keys load it again from the database
        // (where the computer will think again) once the disk is back.
        let why = format!(
            "this game is stopped: the server could not save the computer's move \
             ({error}); come back later with your link"
        );
        game.stopped = Some(why.clone());
        game.finished_at = Some(now);
        for conn in game.players().collect::<Vec<_>>() {
            out.error_to(conn, why.clone());
        }
        out.extend(self.broadcast(id));
        out
    }

    /// Sends the state to everyone in game `id` and asks for the computer's
    /// search if it is its turn.
    fn broadcast(&mut self, id: u64) -> Outbox {
        let Some(game) = self.games.get_mut(&id) else {
            return Outbox::default();
        };
        let state = game.state();
        let mut out = Outbox::default();
        for conn in game.audience() {
            out.messages
                .push((conn, ServerMessage::State(state.clone())));
        }
        if !game.pos.is_game_over() && game.search.is_none() && game.waits_for_nothing() {
            if let Seat::Computer { spec } = game.seat(game.pos.side_to_move()) {
                let spec = spec.clone();
                let stop = Stop::new();
                game.search = Some(stop.clone());
                out.jobs.push(Job {
                    game: id,
                    pos: game.pos,
                    spec,
                    stop,
                    owner: game.owner.clone(),
                });
            }
        }
        out
    }

    /// Drops game `id` from memory (it stays in the database): its search
    /// is stopped, its keys leave the index, and whoever was in it is told.
    fn evict(&mut self, id: u64) -> Outbox {
        let Some(game) = self.games.remove(&id) else {
            return Outbox::default();
        };
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
    }

    /// Drops the games that were finished, or that nobody has sat at, for
    /// longer than the retention time.
    pub fn sweep(&mut self, now: Instant) -> Outbox {
        let retention = self.limits.retention;
        let old =
            |t: Option<Instant>| t.is_some_and(|t| now.saturating_duration_since(t) >= retention);
        let gone: Vec<u64> = self
            .games
            .iter()
            .filter(|(_, g)| old(g.finished_at) || old(g.unseated_since))
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
