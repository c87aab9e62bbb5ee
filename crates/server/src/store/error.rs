//! What can go wrong with the server's database, and what each failure
//! reports.

use super::LockError;
use std::fmt;

/// A database failure.
#[derive(Debug)]
#[non_exhaustive]
pub enum StoreError {
    /// The database's lock cannot be taken: another server has it, or its
    /// folder is missing.
    Lock(LockError),
    /// The database file cannot be opened.
    Open {
        /// The file.
        path: String,
        /// What SQLite said.
        error: rusqlite::Error,
    },
    /// Its tables cannot be made or brought up to date.
    Schema {
        /// The file.
        path: String,
        /// What SQLite said.
        error: rusqlite::Error,
    },
    /// A query failed.
    Sqlite(rusqlite::Error),
    /// A stored move is no move.
    BadMove {
        /// The game.
        game: u64,
        /// The move's bits as stored.
        bits: u16,
    },
    /// The archive's readers are closed (the server is stopping).
    ArchiveClosed,
    /// An archive read did not finish (it panicked or was cancelled).
    ArchiveRead(tokio::task::JoinError),
    /// No idle archive connection, although a turn was taken for one.
    NoConnection,
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("database: ")?;
        match self {
            StoreError::Lock(e) => write!(f, "{e}"),
            StoreError::Open { path, error } => write!(f, "cannot open {path}: {error}"),
            StoreError::Schema { path, error } => write!(f, "{path}: {error}"),
            StoreError::Sqlite(e) => write!(f, "{e}"),
            StoreError::BadMove { game, bits } => write!(f, "game {game}: bad move {bits}"),
            StoreError::ArchiveClosed => f.write_str("the archive is closed"),
            StoreError::ArchiveRead(e) => write!(f, "an archive read failed: {e}"),
            StoreError::NoConnection => f.write_str("no free archive connection"),
        }
    }
}

impl std::error::Error for StoreError {}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> StoreError {
        StoreError::Sqlite(e)
    }
}
