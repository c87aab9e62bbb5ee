//! One server per database: a lock on `DB.lock` next to the file, held as
//! long as the server runs (the system releases it when the process ends,
//! however it ends). A second server on the same file is refused, with the
//! process id of the first; two would each play the same games from their
//! own memory, and the games would diverge.

use std::fs::File;
use std::io::{Read, Seek, Write};

/// The held lock; dropping it releases it.
pub struct Lock {
    _file: File,
}

impl Lock {
    /// Takes the lock of the database at `db`, or says who holds it.
    pub fn take(db: &str) -> Result<Lock, String> {
        let path = format!("{db}.lock");
        let mut file = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| format!("cannot open the lock file {path}: {e}"))?;
        if let Err(e) = try_lock(&file) {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = holder.trim();
            let who = if holder.is_empty() {
                "another process".to_string()
            } else {
                format!("another yolah serve (process {holder})")
            };
            return Err(format!(
                "{who} is serving {db} ({path}: {e}); one server per database: \
                 stop it first, or give this one another --db"
            ));
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
        let db = std::env::temp_dir().join(format!("yolah-lock-{}.db", std::process::id()));
        let db = db.to_str().unwrap();
        let first = Lock::take(db).unwrap();
        let refused = Lock::take(db).err().unwrap();
        assert!(
            refused.contains(&format!("process {}", std::process::id())),
            "{refused}"
        );
        drop(first);
        assert!(Lock::take(db).is_ok());
        let _ = std::fs::remove_file(format!("{db}.lock"));
    }
}
