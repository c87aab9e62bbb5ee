//! Which kind of run a shard file is from, told by its first bytes:
//! `yolah merge` reads this before handing the files to the merge of
//! their kind. (Above [`crate::shard`], [`crate::selfplay`] and the other
//! formats, which do not know each other.)

use std::fmt;

/// What a shard file holds, as `yolah merge` tells it from its first
/// bytes: the format of one of the three kinds of run that shard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShardFile {
    /// A tournament's JSONL file ([`crate::tournament`]).
    Tournament,
    /// A self-play training file ([`crate::selfplay`]).
    Selfplay,
    /// The `--json` output of a random-games shard ([`crate::random_games`]).
    RandomGames,
}

/// Why a file is no shard of a run.
#[derive(Debug)]
pub enum ShardFileError {
    /// The file cannot be read.
    Io {
        /// The file.
        path: String,
        /// What the operating system said.
        error: std::io::Error,
    },
    /// Its start is none of the formats.
    Unknown {
        /// The file.
        path: String,
        /// Whether it starts with a JSON object (of another kind).
        json: bool,
    },
}

impl fmt::Display for ShardFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShardFileError::Io { path, error } => write!(f, "cannot read {path}: {error}"),
            ShardFileError::Unknown { path, json: false } => write!(
                f,
                "{path} is neither a tournament file, a self-play training file nor \
                 the --json output of a random-games shard"
            ),
            ShardFileError::Unknown { path, json: true } => write!(
                f,
                "{path}: a JSON object that is neither a tournament header nor random-games counts"
            ),
        }
    }
}

impl std::error::Error for ShardFileError {}

impl ShardFile {
    /// Reads the start of `path` (at most 64 KiB) to tell its kind.
    pub fn of(path: &str) -> Result<ShardFile, ShardFileError> {
        use std::io::Read;
        let mut head = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| f.take(64 << 10).read_to_end(&mut head))
            .map_err(|error| ShardFileError::Io {
                path: path.to_string(),
                error,
            })?;
        if head.starts_with(crate::positions::MAGIC) {
            return Ok(ShardFile::Selfplay);
        }
        let unknown = |json| ShardFileError::Unknown {
            path: path.to_string(),
            json,
        };
        let first_line = head.split(|&b| b == b'\n').next().unwrap_or_default();
        let value: serde_json::Value =
            serde_json::from_slice(first_line).map_err(|_| unknown(false))?;
        if value["type"] == "header" {
            Ok(ShardFile::Tournament)
        } else if value.get("black_wins").is_some() {
            Ok(ShardFile::RandomGames)
        } else {
            Err(unknown(true))
        }
    }
}
