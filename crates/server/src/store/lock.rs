//! One server per database: a lock on `DB.lock` next to the file, held as
//! long as the server runs (the system releases it when the process ends,
//! however it ends). A second server on the same file is refused, with the
//! process id of the first; two would each play the same games from their
//! own memory, and the games would diverge.

use std::fmt;
use std::fs::File;
use std::io::{Read, Seek, Write};

/// Why the lock of a database cannot be taken.
#[derive(Debug)]
pub enum LockError {
    /// The lock file cannot be opened or made (the folder is missing, say).
    Open {
        /// The database.
        db: String,
        /// Its lock file.
        path: String,
        /// What the system said.
        error: std::io::Error,
    },
    /// Another process holds it.
    Held {
        /// The database.
        db: String,
        /// Its lock file.
        path: String,
        /// The process id the holder wrote in it, if it did.
        holder: Option<String>,
        /// What the system said.
        error: std::io::Error,
    },
}

impl fmt::Display for LockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockError::Open { db, path, error } => {
                write!(f, "cannot open {db} (its lock file {path}: {error})")
            }
            LockError::Held {
                db,
                path,
                holder,
                error,
            } => {
                match holder {
                    Some(pid) => write!(f, "another yolah serve (process {pid})")?,
                    None => f.write_str("another process")?,
                }
                write!(
                    f,
                    " is serving {db} ({path}: {error}); one server per database: \
                     stop it first, or give this one another --db"
                )
            }
        }
    }
}

impl std::error::Error for LockError {}

/// The held lock; dropping it releases it.
pub struct Lock {
    _file: File,
}

impl Lock {
    /// Takes the lock of the database at `db`, or says who holds it.
    pub fn take(db: &str) -> Result<Lock, LockError> {
        let path = format!("{db}.lock");
        let file = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path);
        let mut file = match file {
            Ok(file) => file,
            Err(error) => {
                let db = db.to_string();
                return Err(LockError::Open { db, path, error });
            }
        };
        if let Err(error) = try_lock(&file) {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = Some(holder.trim().to_string()).filter(|h| !h.is_empty());
            return Err(LockError::Held {
                db: db.to_string(),
                path,
                holder,
                error,
            });
        }
        // Who holds it, for the next one to be told.
        let _ = file.set_len(0);
        let _ = file.rewind();
        let _ = write!(file, "{}", std::process::id());
        let _ = file.flush();
        Ok(Lock { _file: file })
    }
}

/// An exclusive lock on `file`, without waiting (`flock`; the standard
/// library's `File::try_lock` is newer than the workspace's Rust).
#[cfg(unix)]
fn try_lock(file: &File) -> std::io::Result<()> {
    use std::os::unix::io::AsRawFd;
    // SAFETY: the descriptor is open (it belongs to `file`) for the call.
    match unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

#[cfg(not(unix))]
fn try_lock(_: &File) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_the_same_database_is_refused_until_the_first_goes() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("games.db");
        let db = db.to_str().unwrap();
        let first = Lock::take(db).unwrap();
        let refused = Lock::take(db).err().unwrap();
        let me = std::process::id().to_string();
        assert!(
            matches!(&refused, LockError::Held { holder: Some(pid), .. } if *pid == me),
            "{refused:?}"
        );
        assert!(refused.to_string().contains(&format!("process {me}")));
        let missing = Lock::take("/no/such/dir/games.db").err().unwrap();
        assert!(matches!(missing, LockError::Open { .. }), "{missing:?}");
        assert!(missing
            .to_string()
            .starts_with("cannot open /no/such/dir/games.db (its lock file"));
        drop(first);
        assert!(Lock::take(db).is_ok());
    }
}
