//! The archive's side of the database: a few read-only connections, each
//! used by one request at a time on a blocking thread, never under the
//! hub's lock. Requests beyond the connections wait their turn, without a
//! thread each.

use super::{find_key, finished, load, KeyHash, Location, Role, StoreError, StoredGame, Summary};
use rusqlite::{Connection, OpenFlags};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// How long a read may wait for SQLite (only while the file is being
/// recovered or its log restarted: readers of a write-ahead log do not wait
/// for writers).
const READ_BUSY_TIMEOUT: Duration = Duration::from_secs(2);

/// Read-only connections for the archive.
pub struct Reader {
    idle: Mutex<Vec<Connection>>,
    turns: tokio::sync::Semaphore,
    _location: Arc<Location>,
}

impl Reader {
    pub(super) fn open(location: Arc<Location>, connections: usize) -> Result<Reader, StoreError> {
        let connections = connections.max(1);
        let idle = (0..connections)
            .map(|_| {
                let db = Connection::open_with_flags(
                    &location.path,
                    OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )?;
                db.busy_timeout(READ_BUSY_TIMEOUT)?;
                Ok(db)
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        Ok(Reader {
            idle: Mutex::new(idle),
            turns: tokio::sync::Semaphore::new(connections),
            _location: location,
        })
    }

    /// Runs `read` on a free connection on a blocking thread, once one is
    /// free.
    pub async fn with<T: Send + 'static>(
        self: &Arc<Self>,
        read: impl FnOnce(&Reader) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let _turn = self
            .turns
            .acquire()
            .await
            .map_err(|_| StoreError::ArchiveClosed)?;
        let me = Arc::clone(self);
        tokio::task::spawn_blocking(move || read(&me))
            .await
            .map_err(StoreError::ArchiveRead)?
    }

    /// Runs `query` on one of the idle connections (there is one: a turn
    /// was taken for it).
    fn query<T>(
        &self,
        query: impl FnOnce(&Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let db = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop()
            .ok_or(StoreError::NoConnection)?;
        let result = query(&db);
        self.idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(db);
        result
    }

    /// The game and role a key hash belongs to.
    pub fn find_key(&self, hash: &KeyHash) -> Result<Option<(u64, Role)>, StoreError> {
        self.query(|db| find_key(db, hash))
    }

    /// Game `id` with its moves.
    pub fn load(&self, id: u64) -> Result<Option<StoredGame>, StoreError> {
        self.query(|db| load(db, id))
    }

    /// Finished games worth listing, newest first (see `finished`).
    pub fn finished(&self, before: Option<u64>, limit: usize) -> Result<Vec<Summary>, StoreError> {
        self.query(|db| finished(db, before, limit))
    }
}
