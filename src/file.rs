//! Reading the files a user names, with a size limit.
//!
//! Every file a yolah tool reads (game records, weights, networks,
//! tournament and training files) goes through [`read_limited`], so that a
//! wrong path such as `/dev/zero` or a 50 MB binary ends in a one-line error
//! at once instead of filling memory first.
//!
//! ```
//! use yolah::file::{read_text_limited, FileError};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("game.txt");
//! std::fs::write(&path, "d5:b7 e5:c7").unwrap();
//! assert_eq!(read_text_limited(&path, 100).unwrap(), "d5:b7 e5:c7");
//! let e = read_text_limited(&path, 5).unwrap_err();
//! assert!(matches!(e, FileError::TooLarge { .. }));
//! assert!(e.to_string().ends_with("is larger than 5 bytes"), "{e}");
//! ```

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Why a file could not be read.
#[derive(Debug)]
pub enum FileError {
    /// Opening or reading failed.
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        error: std::io::Error,
    },
    /// The file holds more than the limit.
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The most bytes this kind of file may have.
        limit: u64,
    },
    /// A text file that is not UTF-8.
    NotUtf8 {
        /// The file.
        path: PathBuf,
    },
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::Io { path, error } => write!(f, "cannot read {}: {error}", path.display()),
            FileError::TooLarge { path, limit } => {
                write!(f, "{} is larger than {}", path.display(), bytes(*limit))
            }
            FileError::NotUtf8 { path } => write!(f, "{} is not UTF-8 text", path.display()),
        }
    }
}

impl std::error::Error for FileError {}

/// `limit` for people: `5 bytes`, `64 KiB`, `16 MiB`, `1 GiB`.
fn bytes(limit: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (size, unit) in UNITS {
        if limit >= size && limit.is_multiple_of(size) {
            return format!("{} {unit}", limit / size);
        }
    }
    format!("{limit} bytes")
}

/// The bytes of the file at `path`, or an error if it cannot be read or
/// holds more than `limit` bytes. Never reads more than `limit + 1` bytes, so
/// endless files (`/dev/zero`, a pipe that never closes its end early) fail
/// after that much.
pub fn read_limited(path: impl AsRef<Path>, limit: u64) -> Result<Vec<u8>, FileError> {
    let path = path.as_ref();
    let io = |error| FileError::Io {
        path: path.to_path_buf(),
        error,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(FileError::TooLarge {
            path: path.to_path_buf(),
            limit,
        });
    }
    Ok(bytes)
}

/// [`read_limited`] for a UTF-8 text file.
pub fn read_text_limited(path: impl AsRef<Path>, limit: u64) -> Result<String, FileError> {
    let path = path.as_ref();
    String::from_utf8(read_limited(path, limit)?).map_err(|_| FileError::NotUtf8 {
        path: path.to_path_buf(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endless_and_missing_files_fail_cleanly() {
        let e = read_limited("/dev/zero", 1 << 20).unwrap_err();
        assert_eq!(e.to_string(), "/dev/zero is larger than 1 MiB");
        let e = read_limited("/no/such/file", 10).unwrap_err();
        assert!(
            e.to_string().starts_with("cannot read /no/such/file: "),
            "{e}"
        );
        assert_eq!(bytes(64 << 10), "64 KiB");
        assert_eq!(bytes(1000), "1000 bytes");
    }
}
