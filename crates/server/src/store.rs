//! The server's database: every game, its keys (hashed) and every move, in
//! an embedded SQLite file, so that games outlive the process.
//!
//! A move is committed before it is broadcast, so what any client has seen
//! is on disk (in the write-ahead log: `synchronous = NORMAL` survives a
//! crash of the process, `kill -9` included; a power cut may lose the last
//! moves). `:memory:` keeps everything in memory instead.
//!
//! Keys are stored as SHA-256 hashes: the database alone does not let anyone
//! take a seat.

use rusqlite::{params, Connection, OptionalExtension};
use sha2::{Digest, Sha256};
use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};
use yolah::record::GameRecord;
use yolah::{Color, Move, Position};

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

/// A database failure.
#[derive(Debug)]
pub struct StoreError(String);

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "database: {}", self.0)
    }
}

impl std::error::Error for StoreError {}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> StoreError {
        StoreError(e.to_string())
    }
}

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
    /// The client address that created it.
    pub owner: String,
    /// Seconds since 1970 when it was created.
    pub created: u64,
    /// Seconds since 1970 when it ended.
    pub finished: Option<u64>,
}

impl StoredGame {
    /// The JSON record `yolah replay` reads.
    pub fn record(&self) -> GameRecord {
        let mut r = GameRecord::from_moves(&self.moves);
        let mut end = Position::START;
        for &m in &self.moves {
            end.play(m);
        }
        let result = if end.is_game_over() {
            end.outcome().notation()
        } else {
            "*"
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
}

/// The database connection.
pub struct Store {
    db: Connection,
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

const SCHEMA: &str = "
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
PRAGMA foreign_keys = ON;
CREATE TABLE IF NOT EXISTS games (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    black    TEXT NOT NULL,
    white    TEXT NOT NULL,
    owner    TEXT NOT NULL,
    created  INTEGER NOT NULL,
    finished INTEGER,
    result   TEXT
);
CREATE TABLE IF NOT EXISTS keys (
    hash BLOB PRIMARY KEY,
    game INTEGER NOT NULL REFERENCES games(id),
    role TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS moves (
    game INTEGER NOT NULL REFERENCES games(id),
    ply  INTEGER NOT NULL,
    mv   INTEGER NOT NULL,
    PRIMARY KEY (game, ply)
);
CREATE INDEX IF NOT EXISTS games_finished ON games(finished) WHERE finished IS NOT NULL;
";

impl Store {
    /// Opens (or creates) the database at `path`; `:memory:` for one that
    /// lives only as long as the server.
    pub fn open(path: &str) -> Result<Store, StoreError> {
        let db =
            Connection::open(path).map_err(|e| StoreError(format!("cannot open {path}: {e}")))?;
        db.execute_batch(SCHEMA)
            .map_err(|e| StoreError(format!("{path}: {e}")))?;
        Ok(Store { db })
    }

    /// Records a new game and its keys; returns its number.
    pub fn create_game(
        &mut self,
        black: &str,
        white: &str,
        owner: &str,
        keys: &[(KeyHash, Role)],
    ) -> Result<u64, StoreError> {
        let tx = self.db.transaction()?;
        tx.execute(
            "INSERT INTO games (black, white, owner, created) VALUES (?1, ?2, ?3, ?4)",
            params![black, white, owner, now() as i64],
        )?;
        let id = tx.last_insert_rowid();
        for (hash, role) in keys {
            tx.execute(
                "INSERT INTO keys (hash, game, role) VALUES (?1, ?2, ?3)",
                params![&hash[..], id, role.name()],
            )?;
        }
        tx.commit()?;
        Ok(id as u64)
    }

    /// Appends moves to game `id` from ply `first` on, and marks the game
    /// finished with `result` if given, in one transaction.
    pub fn add_moves(
        &mut self,
        id: u64,
        first: usize,
        moves: &[Move],
        result: Option<&str>,
    ) -> Result<(), StoreError> {
        let tx = self.db.transaction()?;
        for (i, m) in moves.iter().enumerate() {
            tx.execute(
                "INSERT INTO moves (game, ply, mv) VALUES (?1, ?2, ?3)",
                params![id as i64, (first + i) as i64, m.to_u16()],
            )?;
        }
        if let Some(result) = result {
            tx.execute(
                "UPDATE games SET finished = ?1, result = ?2 WHERE id = ?3",
                params![now() as i64, result, id as i64],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    /// The game and role a key hash belongs to.
    pub fn find_key(&self, hash: &KeyHash) -> Result<Option<(u64, Role)>, StoreError> {
        let found: Option<(i64, String)> = self
            .db
            .query_row(
                "SELECT game, role FROM keys WHERE hash = ?1",
                params![&hash[..]],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()?;
        Ok(found.and_then(|(game, role)| Some((game as u64, Role::parse(&role)?))))
    }

    /// Game `id` with its moves.
    pub fn load(&self, id: u64) -> Result<Option<StoredGame>, StoreError> {
        type Row = (String, String, String, i64, Option<i64>);
        let row: Option<Row> = self
            .db
            .query_row(
                "SELECT black, white, owner, created, finished FROM games WHERE id = ?1",
                params![id as i64],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )
            .optional()?;
        let Some((black, white, owner, created, finished)) = row else {
            return Ok(None);
        };
        let mut stmt = self
            .db
            .prepare_cached("SELECT mv FROM moves WHERE game = ?1 ORDER BY ply")?;
        let moves = stmt
            .query_map(params![id as i64], |r| r.get::<_, u16>(0))?
            .map(|m| {
                let bits = m?;
                Move::from_u16(bits)
                    .ok_or_else(|| StoreError(format!("game {id}: bad move {bits}")))
            })
            .collect::<Result<Vec<Move>, StoreError>>()?;
        Ok(Some(StoredGame {
            id,
            black,
            white,
            moves,
            owner,
            created: created as u64,
            finished: finished.map(|f| f as u64),
        }))
    }

    /// Finished games, newest first: at most `limit` with numbers below
    /// `before` (all when `None`).
    pub fn finished(&self, before: Option<u64>, limit: usize) -> Result<Vec<Summary>, StoreError> {
        let mut stmt = self.db.prepare_cached(
            "SELECT g.id, g.black, g.white, g.result, g.finished,
                    (SELECT COUNT(*) FROM moves m WHERE m.game = g.id)
             FROM games g
             WHERE g.finished IS NOT NULL AND g.id < ?1
             ORDER BY g.id DESC LIMIT ?2",
        )?;
        let before = before.map_or(i64::MAX, |b| b as i64);
        let rows = stmt.query_map(params![before, limit as i64], |r| {
            Ok(Summary {
                id: r.get::<_, i64>(0)? as u64,
                black: r.get(1)?,
                white: r.get(2)?,
                result: r.get::<_, Option<String>>(3)?.unwrap_or_default(),
                finished: r.get::<_, i64>(4)? as u64,
                plies: r.get::<_, i64>(5)? as u64,
            })
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }
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
        let id = s
            .create_game("human", "random", "127.0.0.1", &keys)
            .unwrap();
        let m: Move = "d5:b7".parse().unwrap();
        s.add_moves(id, 0, &[m], None).unwrap();
        assert_eq!(
            s.find_key(&hash_key("b")).unwrap(),
            Some((id, Role::Seat(Color::Black)))
        );
        assert_eq!(s.find_key(&hash_key("nope")).unwrap(), None);
        let g = s.load(id).unwrap().unwrap();
        assert_eq!((g.black.as_str(), g.white.as_str()), ("human", "random"));
        assert_eq!(g.moves, vec![m]);
        assert!(s.finished(None, 10).unwrap().is_empty());
        s.add_moves(id, 1, &[Move::PASS], Some("1-0")).unwrap();
        let list = s.finished(None, 10).unwrap();
        assert_eq!(
            (list.len(), list[0].plies, list[0].result.as_str()),
            (1, 2, "1-0")
        );
        // The same ply twice is refused: nothing is written twice.
        assert!(s.add_moves(id, 1, &[Move::PASS], None).is_err());
    }
}
