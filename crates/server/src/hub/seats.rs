//! Starting games (`new`, an accepted challenge, a rematch), taking a seat
//! with a key, and watching.

use super::game::{Game, Seat};
use super::{ConnId, Hub, Outbox};
use crate::clock::{Clock, TimeControl};
use crate::protocol::ServerMessage;
use crate::store::{hash_key, NewGame, Role};
use std::time::Duration;
use yolah::Color;

/// The seats' colours, in their order.
const COLORS: [Color; 2] = [Color::Black, Color::White];

/// How far back the per-address quota of new games looks.
const QUOTA_WINDOW: Duration = Duration::from_secs(24 * 3600);

/// A game to start.
pub(super) struct Start {
    /// `human` or a spec, Black's then White's.
    pub(super) players: [String; 2],
    /// Who sits down at once, Black's seat then White's.
    pub(super) conns: [Option<ConnId>; 2],
    /// The address it counts against.
    pub(super) owner: String,
    /// Its time control.
    pub(super) control: Option<TimeControl>,
}

/// `black`, `white` or `random` (drawn with `rng`).
fn parse_color(text: &str, rng: &mut yolah::Rng) -> Result<Color, String> {
    match text {
        "black" => Ok(Color::Black),
        "white" => Ok(Color::White),
        "random" if rng.below(2) == 0 => Ok(Color::Black),
        "random" => Ok(Color::White),
        _ => Err(format!("color {text:?} is not black, white or random")),
    }
}

impl Hub {
    pub(super) fn new_game(
        &mut self,
        conn: ConnId,
        opponent: &str,
        color: &str,
        clock: Option<&str>,
    ) -> Outbox {
        let mine = match parse_color(color, &mut self.rng) {
            Ok(c) => c,
            Err(e) => return Outbox::error(conn, e),
        };
        if opponent != "human" && !self.offer.levels.iter().any(|l| l.spec == opponent) {
            return Outbox::error(
                conn,
                format!(
                    "opponent {opponent:?} is not human or one of {:?}",
                    self.offer.specs()
                ),
            );
        }
        let control =
            match TimeControl::choose(clock.unwrap_or(crate::clock::UNTIMED), &self.offer.clocks) {
                Ok(c) => c,
                Err(e) => return Outbox::error(conn, e),
            };
        let mut out = match self.free_for_another(conn) {
            Ok(out) => out,
            Err(e) => return Outbox::error(conn, e.replace("is playing", "is already playing")),
        };
        let mut players = [String::new(), String::new()];
        players[mine as usize] = "human".into();
        players[mine.opponent() as usize] = opponent.to_string();
        let mut conns = [None, None];
        conns[mine as usize] = Some(conn);
        let owner = self.conns[&conn].addr.clone();
        match self.start(Start {
            players,
            conns,
            owner,
            control,
        }) {
            Ok(started) => out.extend(started),
            Err(e) => out.error_to(conn, e),
        }
        out
    }

    /// Starts a game: checks the bounds of its owner and of memory, stores
    /// it with its keys, seats whoever sits down at once and welcomes them
    /// (the creator of a game between people gets the other seat's key to
    /// share).
    pub(super) fn start(&mut self, s: Start) -> Result<Outbox, String> {
        let held = self
            .games
            .values()
            .filter(|g| g.owner == s.owner && g.in_play())
            .count();
        if held >= self.limits.max_games_per_addr {
            return Err(format!(
                "your address already has {held} unfinished games, the most it may have; \
                 finish or leave one first"
            ));
        }
        let since = crate::store::now().saturating_sub(QUOTA_WINDOW.as_secs());
        let started = self
            .store
            .created_since(&s.owner, since)
            .map_err(|e| format!("cannot start a game: {e}"))?;
        if started >= self.limits.max_daily_games_per_addr as u64 {
            return Err(format!(
                "your address has started {started} games in the last 24 hours, the most it \
                 may; come back later"
            ));
        }
        let mut out = self.make_room()?;
        let keys: [Option<String>; 2] =
            [0, 1].map(|i| (s.players[i] == "human").then(|| (self.new_key)()));
        let watch_key = (self.new_key)();
        let mut hashes = vec![(hash_key(&watch_key), Role::Watcher)];
        for (i, key) in keys.iter().enumerate() {
            if let Some(k) = key {
                hashes.push((hash_key(k), Role::Seat(COLORS[i])));
            }
        }
        let conn_of = |c: Option<ConnId>| c.and_then(|c| self.conns.get(&c));
        let names: [Option<String>; 2] = s.conns.map(|c| conn_of(c)?.name.clone());
        let people: [Option<String>; 2] = s.conns.map(|c| conn_of(c)?.person.clone());
        let ratings = s.conns.map(|c| conn_of(c)?.rating);
        let addrs = s.conns.map(|c| Some(conn_of(c)?.addr.clone()));
        let id = self
            .store
            .create_game(&NewGame {
                players: [&s.players[0], &s.players[1]],
                names: [names[0].as_deref(), names[1].as_deref()],
                people: [people[0].as_deref(), people[1].as_deref()],
                owner: &s.owner,
                time_control: s.control,
                keys: &hashes,
            })
            .map_err(|e| format!("cannot start a game: {e}"))?;
        let seats = [0, 1].map(|i| match (&s.players[i][..], s.conns[i]) {
            ("human", conn) => Seat::Human { conn },
            (spec, _) => Seat::Computer {
                spec: spec.to_string(),
            },
        });
        let mut game = Game::new(id, seats, s.owner, s.control.map(Clock::new));
        game.names = names;
        game.people = people;
        game.ratings = ratings;
        game.addrs = addrs;
        game.watch_key = Some(watch_key.clone());
        for &(hash, role) in &hashes {
            self.keys.insert(hash, (id, role));
            game.keys.push(hash);
        }
        self.games.insert(id, game);
        self.lobby_changed = true;
        for (i, &conn) in s.conns.iter().enumerate() {
            let Some(conn) = conn else { continue };
            // A challenger may watch a game while waiting: a connection is
            // in one game at a time, so it leaves that one first.
            out.extend(self.withdraw_seek(conn));
            out.extend(self.leave(conn));
            let color = COLORS[i];
            if let Some(c) = self.conns.get_mut(&conn) {
                c.joined = Some((id, Role::Seat(color)));
                c.lobby = false;
            }
            let other = 1 - i;
            let invite = (s.conns[other].is_none())
                .then(|| keys[other].clone())
                .flatten();
            out.to(
                conn,
                ServerMessage::Welcome {
                    role: color.name().into(),
                    key: keys[i].clone(),
                    invite,
                    watch: Some(watch_key.clone()),
                    game: id,
                },
            );
        }
        out.extend(self.broadcast(id));
        Ok(out)
    }

    pub(super) fn join(&mut self, conn: ConnId, key: &str) -> Outbox {
        let mut out = match self.free_for_another(conn) {
            Ok(out) => out,
            Err(e) => return Outbox::error(conn, e),
        };
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
        match role {
            Role::Seat(c) => out.extend(self.sit(conn, id, c, key)),
            Role::Watcher => out.extend(self.add_watcher(conn, id, Some(key.to_string()))),
        }
        out
    }

    /// `conn` takes seat `c` of game `id` with its key.
    fn sit(&mut self, conn: ConnId, id: u64, c: Color, key: &str) -> Outbox {
        let (name, person, rating, addr) = self
            .conns
            .get(&conn)
            .map(|c| (c.name.clone(), c.person.clone(), c.rating, c.addr.clone()))
            .unwrap_or_default();
        let holder = self.games.get(&id).expect("find loads the game").seats[c as usize].conn();
        let mut out = match holder {
            // A second tab or window of the same player takes the seat over.
            Some(old) if self.same_player(old, conn) => self.hand_over(old, id),
            _ if self.games[&id].seats[c as usize].present() => {
                return Outbox::error(
                    conn,
                    format!("the {} seat is taken by a connected player", c.name()),
                );
            }
            _ => Outbox::default(),
        };
        let game = self.games.get_mut(&id).expect("find loads the game");
        game.seats[c as usize] = Seat::Human { conn: Some(conn) };
        game.addrs[c as usize] = Some(addr);
        if game.unseated_since.take().is_some() {
            self.lobby_changed = true;
        }
        // A person who comes with a name, to a seat that has none, gives it
        // (and their id, which their rating belongs to).
        let i = c as usize;
        if let (None, Some(name), Some(person)) = (&game.names[i], &name, &person) {
            if let Err(e) = self.store.set_person(id, c, name, person) {
                eprintln!("yolah serve: game {id}: the name was not saved: {e}");
            } else {
                game.names[i] = Some(name.clone());
                game.people[i] = Some(person.clone());
            }
        }
        if person.is_some() && game.people[i] == person {
            game.ratings[i] = rating;
        }
        let watch = game.watch_key.clone();
        if let Some(cn) = self.conns.get_mut(&conn) {
            cn.joined = Some((id, Role::Seat(c)));
            cn.lobby = false;
        }
        out.extend(self.withdraw_seek(conn));
        out.to(
            conn,
            ServerMessage::Welcome {
                role: c.name().into(),
                key: Some(key.to_string()),
                invite: None,
                watch,
                game: id,
            },
        );
        // A seat changes the game's state for everyone (and a game just
        // loaded may be waiting for its computer).
        out.extend(self.broadcast(id));
        out
    }

    /// Whether `new`, come with a seat's key, is the player `old` who holds
    /// that seat, in another tab or window: the same person by their name
    /// cookie where both connections have one, else the same address. Anyone
    /// else the key reaches (an invite passed on) cannot take a connected
    /// seat.
    fn same_player(&self, old: ConnId, new: ConnId) -> bool {
        let (Some(a), Some(b)) = (self.conns.get(&old), self.conns.get(&new)) else {
            return false;
        };
        match (&a.person, &b.person) {
            (Some(x), Some(y)) => x == y,
            _ => a.addr == b.addr,
        }
    }

    /// Moves `old` out of its seat in game `id` for the same player's new
    /// connection: it watches the game from now on (if the game has room
    /// for another watcher; else it leaves it) and is told so.
    fn hand_over(&mut self, old: ConnId, id: u64) -> Outbox {
        let max_watchers = self.limits.max_watchers;
        let game = self.games.get_mut(&id).expect("a seat's game");
        let watching = game.watchers.len() < max_watchers;
        if watching {
            game.watchers.push(old);
        }
        if let Some(cn) = self.conns.get_mut(&old) {
            cn.joined = watching.then_some((id, Role::Watcher));
        }
        let mut out = Outbox::default();
        out.to(old, ServerMessage::SeatMoved { game: id, watching });
        out
    }

    /// `conn` watches game `id` (with its watch key, or by its number).
    fn add_watcher(&mut self, conn: ConnId, id: u64, key: Option<String>) -> Outbox {
        let max_watchers = self.limits.max_watchers;
        let now = (self.now)();
        let Some(game) = self.games.get_mut(&id) else {
            return Outbox::error(conn, format!("game {id} is not being played now"));
        };
        if game.watchers.len() >= max_watchers {
            return Outbox::error(
                conn,
                format!("this game has {max_watchers} watchers, the most it may have"),
            );
        }
        game.watchers.push(conn);
        let state = game.state(now);
        let watch = game.watch_key.clone();
        if let Some(c) = self.conns.get_mut(&conn) {
            c.joined = Some((id, Role::Watcher));
            c.lobby = false;
        }
        // A watcher is told the state; nobody else hears of it.
        let mut out = Outbox::default();
        out.to(
            conn,
            ServerMessage::Welcome {
                role: "watcher".into(),
                key: key.or(watch.clone()),
                invite: None,
                watch,
                game: id,
            },
        );
        out.to(conn, ServerMessage::State(Box::new(state)));
        out
    }

    /// Watch a game being played by its number (the live list's games,
    /// public like every game in progress): one in memory, or an unfinished
    /// one the database has (after a restart, a watcher's page may come
    /// back before the players').
    pub(super) fn watch(&mut self, conn: ConnId, id: u64) -> Outbox {
        let mut out = match self.free_for_another(conn) {
            Ok(out) => out,
            Err(e) => return Outbox::error(conn, e),
        };
        if !self.games.contains_key(&id) {
            match self.store.load(id) {
                Ok(Some(stored)) if stored.finished.is_none() => match self.make_room() {
                    Ok(room) => {
                        out.extend(room);
                        self.games
                            .insert(id, Game::from_stored(&stored, (self.now)()));
                    }
                    Err(e) => {
                        out.error_to(conn, e);
                        return out;
                    }
                },
                Ok(_) => {}
                Err(e) => {
                    out.error_to(conn, format!("cannot load game {id}: {e}"));
                    return out;
                }
            }
        }
        out.extend(self.add_watcher(conn, id, None));
        out
    }

    /// After a game: against the computer, the next game starts at once
    /// with the colours swapped; between people, once both have asked.
    pub(super) fn rematch(&mut self, conn: ConnId) -> Outbox {
        let Some((id, Role::Seat(mine))) = self.joined(conn) else {
            return Outbox::error(
                conn,
                "only a player of a finished game may ask for a rematch",
            );
        };
        let Some(game) = self.games.get_mut(&id) else {
            return Outbox::error(conn, "join or start a game first");
        };
        if !game.is_over() {
            return Outbox::error(conn, "the game is not over");
        }
        let theirs = mine.opponent();
        let their_conn = match game.seat(theirs) {
            Seat::Computer { .. } => None,
            Seat::Human { conn: other } => {
                if game.rematch != Some(theirs) {
                    game.rematch = Some(mine);
                    return self.broadcast(id);
                }
                match other {
                    Some(c) => Some(*c),
                    None => return Outbox::error(conn, "your opponent has left"),
                }
            }
        };
        game.rematch = None;
        // Colours swapped: my seat's player plays `theirs` now, and theirs
        // mine.
        let mut players = [String::new(), String::new()];
        players[theirs as usize] = game.seat(mine).name().to_string();
        players[mine as usize] = game.seat(theirs).name().to_string();
        let control = game.clock.map(|c| c.control);
        let owner = game.owner.clone();
        let mut conns = [None, None];
        conns[theirs as usize] = Some(conn);
        conns[mine as usize] = their_conn;
        let mut out = self.leave(conn);
        if let Some(c) = their_conn {
            out.extend(self.leave(c));
        }
        match self.start(Start {
            players,
            conns,
            owner,
            control,
        }) {
            Ok(started) => out.extend(started),
            Err(e) => {
                out.error_to(conn, e.clone());
                if let Some(c) = their_conn {
                    out.error_to(c, e);
                }
            }
        }
        out
    }
}
