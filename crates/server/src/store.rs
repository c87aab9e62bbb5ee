//! The server's database: every game, its keys (hashed) and every move, in
//! an embedded SQLite file, so that games outlive the process.
//!
//! A move is committed before it is broadcast, so what any client has seen
//! is on disk (in the write-ahead log: `synchronous = NORMAL` survives a
//! crash of the process, `kill -9` included; a power cut may lose the last
//! moves). `:memory:` keeps nothing: a temporary file, removed when the
//! server stops.
//!
//! Two kinds of connection: the [`Store`], which the hub writes through
//! (it never waits for SQLite's lock: a refused write fails at once, and
//! the hub tries again later), and the [`Reader`], a few read-only
//! connections for the archive, used without the hub's lock (the
//! write-ahead log lets them read while the hub writes). One server per
//! file ([`lock`]).
//!
//! Keys are stored as SHA-256 hashes: the database alone does not let anyone
//! take a seat.

mod error;
mod game;
mod lock;
mod players;
mod reader;
mod schema;

pub use error::StoreError;
pub use game::{Ending, NewGame, StoredGame, Summary};
pub use reader::Reader;

use crate::clock::TimeControl;
pub use lock::LockError;
use rusqlite::{params, Connection, OptionalExtension};
use sha2::{Digest, Sha256};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use yolah::{Color, Move};

/// Plies a finished game needs to be listed in the archive: shorter ones
/// (abandoned, resigned at once) are kept, and reachable by their keys,
/// but not worth a line.
pub const MIN_LISTED_PLIES: u64 = 10;

/// The SHA-256 of a key.
pub type KeyHash = [u8; 32];

/// The hash under which `key` is stored.
pub fn hash_key(key: &str) -> KeyHash {
    Sha256::digest(key.as_bytes()).into()
}

/// What a key lets one do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// A player's seat.
    Seat(Color),
    /// A spectator.
    Watcher,
}

impl Role {
    /// `black`, `white` or `watcher`.
    pub fn name(self) -> &'static str {
        match self {
            Role::Seat(c) => c.name(),
            Role::Watcher => "watcher",
        }
    }

    fn parse(text: &str) -> Option<Role> {
        match text {
            "black" => Some(Role::Seat(Color::Black)),
            "white" => Some(Role::Seat(Color::White)),
            "watcher" => Some(Role::Watcher),
            _ => None,
        }
    }
}

/// Where the database is: a file, or a temporary one removed when the last
/// connection to it closes.
struct Location {
    path: String,
    temporary: bool,
}

impl Drop for Location {
    fn drop(&mut self) {
        if self.temporary {
            for ext in ["", "-wal", "-shm", ".lock"] {
                let _ = std::fs::remove_file(format!("{}{ext}", self.path));
            }
        }
    }
}

/// The connection the hub writes through.
pub struct Store {
    db: Connection,
    location: Arc<Location>,
    _lock: lock::Lock,
}

impl Store {
    /// Opens (or creates) the database at `path`, and takes its lock (one
    /// server per file); `:memory:` for a temporary one that is removed
    /// when the server stops.
    pub fn open(path: &str) -> Result<Store, StoreError> {
        let location = if path == ":memory:" {
            let name = format!(
                "yolah-serve-{}-{}.db",
                std::process::id(),
                crate::random_key()
            );
            Location {
                path: std::env::temp_dir()
                    .join(name)
                    .to_string_lossy()
                    .into_owned(),
                temporary: true,
            }
        } else {
            Location {
                path: path.to_string(),
                temporary: false,
            }
        };
        let lock = lock::Lock::take(&location.path).map_err(StoreError::Lock)?;
        let mut db = Connection::open(&location.path).map_err(|error| StoreError::Open {
            path: path.to_string(),
            error,
        })?;
        schema::migrate(&mut db).map_err(|error| StoreError::Schema {
            path: path.to_string(),
            error,
        })?;
        // The hub writes while every game waits for it: a write the database
        // refuses (another process holds its lock) fails at once instead of
        // waiting up to five seconds; the hub tries again later, unlocked.
        db.busy_timeout(Duration::ZERO)?;
        Ok(Store {
            db,
            location: Arc::new(location),
            _lock: lock,
        })
    }

    /// `connections` read-only connections to the same database, for the
    /// archive.
    pub fn reader(&self, connections: usize) -> Result<Reader, StoreError> {
        Reader::open(Arc::clone(&self.location), connections)
    }

    /// Records a new game and its keys; returns its number.
    pub fn create_game(&mut self, game: &NewGame<'_>) -> Result<u64, StoreError> {
        let tx = self.db.transaction()?;
        let ms = |d: Duration| d.as_millis() as i64;
        tx.execute(
            "INSERT INTO games (black, white, owner, created, black_name, white_name,
                                base_ms, increment_ms, black_player, white_player)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                game.players[0],
                game.players[1],
                game.owner,
                now() as i64,
                game.names[0],
                game.names[1],
                game.time_control.map(|tc| ms(tc.base)),
                game.time_control.map(|tc| ms(tc.increment)),
                game.people[0],
                game.people[1],
            ],
        )?;
        let id = tx.last_insert_rowid();
        for (hash, role) in game.keys {
            tx.execute(
                "INSERT INTO keys (hash, game, role) VALUES (?1, ?2, ?3)",
                params![&hash[..], id, role.name()],
            )?;
        }
        tx.commit()?;
        Ok(id as u64)
    }

    /// Appends moves (each with the mover's time left, on a clock) to game
    /// `id` from ply `first` on, and ends the game if `ending` says so, in
    /// one transaction.
    pub fn add_moves(
        &mut self,
        id: u64,
        first: usize,
        moves: &[(Move, Option<Duration>)],
        ending: Option<Ending<'_>>,
    ) -> Result<(), StoreError> {
        let tx = self.db.transaction()?;
        for (i, (m, clock)) in moves.iter().enumerate() {
            tx.execute(
                "INSERT INTO moves (game, ply, mv, clock_ms) VALUES (?1, ?2, ?3, ?4)",
                params![
                    id as i64,
                    (first + i) as i64,
                    m.to_u16(),
                    clock.map(|c| c.as_millis() as i64)
                ],
            )?;
        }
        tx.execute(
            "UPDATE games SET plies = ?1 WHERE id = ?2",
            params![(first + moves.len()) as i64, id as i64],
        )?;
        if let Some(end) = ending {
            tx.execute(
                "UPDATE games SET finished = ?1, result = ?2, reason = ?3 WHERE id = ?4",
                params![now() as i64, end.result, end.reason, id as i64],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Ends game `id`, which has `plies` moves, without a move (a
    /// resignation, a flag, a draw agreed).
    pub fn end_game(
        &mut self,
        id: u64,
        plies: usize,
        ending: Ending<'_>,
    ) -> Result<(), StoreError> {
        self.add_moves(id, plies, &[], Some(ending))
    }

    /// Keeps the first `plies` moves of game `id` and forgets the rest (a
    /// takeback both people agreed to).
    pub fn take_back(&mut self, id: u64, plies: usize) -> Result<(), StoreError> {
        let tx = self.db.transaction()?;
        tx.execute(
            "DELETE FROM moves WHERE game = ?1 AND ply >= ?2",
            params![id as i64, plies as i64],
        )?;
        tx.execute(
            "UPDATE games SET plies = ?1 WHERE id = ?2",
            params![plies as i64, id as i64],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Gives seat `color` of game `id` the person who sat there: their
    /// display name and their id.
    pub fn set_person(
        &mut self,
        id: u64,
        color: Color,
        name: &str,
        person: &str,
    ) -> Result<(), StoreError> {
        let side = match color {
            Color::Black => "black",
            Color::White => "white",
        };
        self.db.execute(
            &format!("UPDATE games SET {side}_name = ?1, {side}_player = ?2 WHERE id = ?3"),
            params![name, person, id as i64],
        )?;
        Ok(())
    }

    /// The secret called `name`, made with `make` and kept the first time
    /// it is asked for.
    pub fn secret(
        &mut self,
        name: &str,
        make: impl FnOnce() -> Vec<u8>,
    ) -> Result<Vec<u8>, StoreError> {
        let found: Option<Vec<u8>> = self
            .db
            .query_row(
                "SELECT value FROM secrets WHERE name = ?1",
                params![name],
                |r| r.get(0),
            )
            .optional()?;
        if let Some(value) = found {
            return Ok(value);
        }
        let value = make();
        self.db.execute(
            "INSERT INTO secrets (name, value) VALUES (?1, ?2)",
            params![name, &value],
        )?;
        Ok(value)
    }

    /// Games created by `owner` since `since` (seconds since 1970).
    pub fn created_since(&self, owner: &str, since: u64) -> Result<u64, StoreError> {
        let n: i64 = self.db.query_row(
            "SELECT COUNT(*) FROM games WHERE owner = ?1 AND created >= ?2",
            params![owner, since as i64],
            |r| r.get(0),
        )?;
        Ok(n as u64)
    }

    /// The game and role a key hash belongs to.
    pub fn find_key(&self, hash: &KeyHash) -> Result<Option<(u64, Role)>, StoreError> {
        find_key(&self.db, hash)
    }

    /// Game `id` with its moves.
    pub fn load(&self, id: u64) -> Result<Option<StoredGame>, StoreError> {
        load(&self.db, id)
    }
}

/// Seconds since 1970.
pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The game and role a key hash belongs to.
fn find_key(db: &Connection, hash: &KeyHash) -> Result<Option<(u64, Role)>, StoreError> {
    let found: Option<(i64, String)> = db
        .prepare_cached("SELECT game, role FROM keys WHERE hash = ?1")?
        .query_row(params![&hash[..]], |row| Ok((row.get(0)?, row.get(1)?)))
        .optional()?;
    Ok(found.and_then(|(game, role)| Some((game as u64, Role::parse(&role)?))))
}

/// Game `id` with its moves.
fn load(db: &Connection, id: u64) -> Result<Option<StoredGame>, StoreError> {
    let game = db
        .prepare_cached(
            "SELECT black, white, owner, created, finished, result, reason,
                    black_name, white_name, base_ms, increment_ms,
                    black_player, white_player
             FROM games WHERE id = ?1",
        )?
        .query_row(params![id as i64], |r| {
            let ms = |i| r.get::<_, Option<i64>>(i);
            let time_control = match (ms(9)?, ms(10)?) {
                (Some(base), Some(increment)) => Some(TimeControl {
                    base: Duration::from_millis(base as u64),
                    increment: Duration::from_millis(increment as u64),
                }),
                _ => None,
            };
            Ok(StoredGame {
                id,
                black: r.get(0)?,
                white: r.get(1)?,
                moves: Vec::new(),
                clocks: Vec::new(),
                owner: r.get(2)?,
                created: r.get::<_, i64>(3)? as u64,
                finished: r.get::<_, Option<i64>>(4)?.map(|f| f as u64),
                result: r.get(5)?,
                reason: r.get(6)?,
                names: [r.get(7)?, r.get(8)?],
                people: [r.get(11)?, r.get(12)?],
                time_control,
            })
        })
        .optional()?;
    let Some(mut game) = game else {
        return Ok(None);
    };
    let mut stmt =
        db.prepare_cached("SELECT mv, clock_ms FROM moves WHERE game = ?1 ORDER BY ply")?;
    let rows = stmt.query_map(params![id as i64], |r| {
        Ok((r.get::<_, u16>(0)?, r.get::<_, Option<i64>>(1)?))
    })?;
    for row in rows {
        let (bits, clock) = row?;
        let m = Move::from_u16(bits).ok_or(StoreError::BadMove { game: id, bits })?;
        game.moves.push(m);
        game.clocks
            .push(clock.map(|c| Duration::from_millis(c.max(0) as u64)));
    }
    Ok(Some(game))
}

/// Finished games worth listing (at least [`MIN_LISTED_PLIES`] plies),
/// newest first: at most `limit` with numbers below `before` (all when
/// `None`).
fn finished(
    db: &Connection,
    before: Option<u64>,
    limit: usize,
) -> Result<Vec<Summary>, StoreError> {
    let mut stmt = db.prepare_cached(
        "SELECT id, black, white, result, finished, plies, reason, black_name, white_name,
                base_ms, increment_ms
         FROM games
         WHERE finished IS NOT NULL AND id < ?1 AND plies >= ?3
         ORDER BY id DESC LIMIT ?2",
    )?;
    let before = before.map_or(i64::MAX, |b| b as i64);
    let rows = stmt.query_map(
        params![before, limit as i64, MIN_LISTED_PLIES as i64],
        |r| {
            let clock = match (r.get::<_, Option<i64>>(9)?, r.get::<_, Option<i64>>(10)?) {
                (Some(base), Some(increment)) => Some(
                    TimeControl {
                        base: Duration::from_millis(base as u64),
                        increment: Duration::from_millis(increment as u64),
                    }
                    .to_string(),
                ),
                _ => None,
            };
            Ok(Summary {
                id: r.get::<_, i64>(0)? as u64,
                black: r.get(1)?,
                white: r.get(2)?,
                result: r.get::<_, Option<String>>(3)?.unwrap_or_default(),
                finished: r.get::<_, i64>(4)? as u64,
                plies: r.get::<_, i64>(5)? as u64,
                reason: r.get(6)?,
                names: [r.get(7)?, r.get(8)?],
                clock,
            })
        },
    )?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_keys_and_moves_round_trip() {
        let mut s = Store::open(":memory:").unwrap();
        let keys = [
            (hash_key("b"), Role::Seat(Color::Black)),
            (hash_key("w"), Role::Watcher),
        ];
        let tc = TimeControl {
            base: Duration::from_secs(180),
            increment: Duration::from_secs(2),
        };
        let id = s
            .create_game(&NewGame {
                players: ["human", "random"],
                names: [Some("Ada"), None],
                people: [Some("00000000000000ad"), None],
                owner: "127.0.0.1",
                time_control: Some(tc),
                keys: &keys,
            })
            .unwrap();
        let m: Move = "d5:b7".parse().unwrap();
        let left = Duration::from_millis(179_500);
        s.add_moves(id, 0, &[(m, Some(left))], None).unwrap();
        assert_eq!(
            s.find_key(&hash_key("b")).unwrap(),
            Some((id, Role::Seat(Color::Black)))
        );
        assert_eq!(s.find_key(&hash_key("nope")).unwrap(), None);
        let g = s.load(id).unwrap().unwrap();
        assert_eq!((g.black.as_str(), g.white.as_str()), ("human", "random"));
        assert_eq!(g.moves, vec![m]);
        assert_eq!(g.clocks, vec![Some(left)]);
        assert_eq!(g.time_control, Some(tc));
        assert_eq!(g.names, [Some("Ada".to_string()), None]);
        assert_eq!(g.people, [Some("00000000000000ad".to_string()), None]);
        let reader = s.reader(1).unwrap();
        assert!(reader.finished(None, 10).unwrap().is_empty());
        let ending = Ending {
            result: "1-0",
            reason: "White resigned",
        };
        s.add_moves(id, 1, &[(Move::PASS, None)], Some(ending))
            .unwrap();
        assert!(
            reader.finished(None, 10).unwrap().is_empty(),
            "two plies are not worth listing"
        );
        let g = reader.load(id).unwrap().unwrap();
        assert_eq!(g.record().metadata["termination"], "White resigned");
        assert_eq!(g.record().metadata["result"], "1-0");
        // The same ply twice is refused: nothing is written twice.
        assert!(s.add_moves(id, 1, &[(Move::PASS, None)], None).is_err());
        assert_eq!(s.created_since("127.0.0.1", 0).unwrap(), 1);
        assert_eq!(s.created_since("127.0.0.1", now() + 10).unwrap(), 0);
    }

    #[test]
    fn a_temporary_database_is_removed_with_its_last_connection() {
        let s = Store::open(":memory:").unwrap();
        let path = s.location.path.clone();
        let reader = s.reader(1).unwrap();
        assert!(std::path::Path::new(&path).exists());
        drop(s);
        assert!(
            std::path::Path::new(&path).exists(),
            "the reader still reads it"
        );
        drop(reader);
        assert!(!std::path::Path::new(&path).exists());
    }
}
