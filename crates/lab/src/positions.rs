//! Training positions: the file format that self-play writes, `yolah
//! label` rewrites and `yolah train` reads.
//!
//! A file is the 8 bytes `YOLAHPOS` and then 32-byte records, little endian:
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | black pieces (bitboard, bit 0 = a1) |
//! | 8..16 | white pieces |
//! | 16..24 | holes |
//! | 24 | black score |
//! | 25 | white score |
//! | 26..28 | ply (`u16`; the side to move is Black on even plies) |
//! | 28..30 | search score for the side to move (`i16`, centipoints; a Monte Carlo win rate is converted, see [`Score::centipoints`](yolah_players::Score::centipoints)) |
//! | 30 | final result for the side to move (`i8`: 1 win, 0 draw, -1 loss) |
//! | 31 | flags: 1 if the score is exact, a proven result or margin (see [`Sample::exact`]), else 0 |

use crate::shard::IncompleteShards;
use std::fmt;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use yolah::{Bitboard, Color, ParsePositionError, Position, Symmetry};
use yolah_players::SpecError;

/// The first 8 bytes of a training file.
pub const MAGIC: &[u8; 8] = b"YOLAHPOS";
/// Bytes per record.
pub const RECORD_BYTES: usize = 32;
/// The largest training file [`read`] takes: 2^25 positions (1 GiB), more
/// than a 2-core machine trains on in a day.
pub const MAX_DATA_BYTES: u64 = 1 << 30;

/// Why self-play cannot run, or a training file cannot be written or read.
#[derive(Debug)]
pub enum DataError {
    /// A player spec is bad.
    Spec(SpecError),
    /// The player gives no score to learn from.
    NoScore {
        /// The player's spec.
        spec: String,
    },
    /// Opening, reading or writing the file failed.
    Io {
        /// What was being done: `read` or `write`.
        action: &'static str,
        /// The file.
        path: String,
        /// What the operating system said.
        error: std::io::Error,
    },
    /// The file does not start with `YOLAHPOS`.
    NotTrainingFile {
        /// The file.
        path: String,
    },
    /// The file holds more than [`MAX_DATA_BYTES`].
    TooLarge {
        /// The file.
        path: String,
    },
    /// The file ends inside a record.
    Truncated {
        /// The file.
        path: String,
        /// Its size.
        bytes: u64,
    },
    /// A shard's manifest is missing or does not match its file.
    BadShard {
        /// The manifest.
        path: String,
        /// What is wrong.
        problem: String,
    },
    /// Shards that do not make one whole run.
    Shards(IncompleteShards),
    /// A shard played by another version of yolah than the first shard.
    OtherVersion {
        /// The shard's training file.
        path: String,
        /// Its version.
        version: String,
        /// The first shard's.
        expected: String,
    },
    /// A shard of another run than the first shard.
    OtherRun {
        /// The shard's training file.
        path: String,
        /// Its run, described (as `7 games of alphabeta:depth=1 seeded 2`).
        run: String,
        /// The first shard's.
        expected: String,
    },
    /// A shard's training file changed while it was merged.
    Changed {
        /// The training file.
        path: String,
    },
    /// A record does not hold a position and result.
    BadRecord {
        /// The file.
        path: String,
        /// 1-based record number.
        record: u64,
        /// What is wrong with it.
        problem: BadSample,
    },
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataError::Spec(e) => write!(f, "{e}"),
            DataError::NoScore { spec } => write!(
                f,
                "{spec:?} gives no score to learn from: self-play and labels need a player \
                 that values positions (alphabeta, nn, mcts, mc)"
            ),
            DataError::Io {
                action,
                path,
                error,
            } => write!(f, "cannot {action} {path}: {error}"),
            DataError::NotTrainingFile { path } => {
                write!(
                    f,
                    "{path} is not a training file (it must start with YOLAHPOS)"
                )
            }
            DataError::TooLarge { path } => write!(
                f,
                "{path} is larger than {} GiB; split it into several files",
                MAX_DATA_BYTES >> 30
            ),
            DataError::Truncated { path, bytes } => write!(
                f,
                "{path}: {bytes} bytes is not a whole number of 32-byte records"
            ),
            DataError::BadRecord {
                path,
                record,
                problem,
            } => write!(f, "{path}: record {record}: {problem}"),
            DataError::BadShard { path, problem } => write!(f, "{path}: {problem}"),
            DataError::Shards(why) => write!(f, "{why}"),
            DataError::OtherVersion {
                path,
                version,
                expected,
            } => write!(
                f,
                "{path} was played by yolah {version}, the other shards by {expected}: replay it"
            ),
            DataError::OtherRun {
                path,
                run,
                expected,
            } => write!(
                f,
                "{path} is a shard of another run ({run}, not {expected})"
            ),
            DataError::Changed { path } => write!(f, "{path} changed while it was merged"),
        }
    }
}

impl std::error::Error for DataError {}

/// Why a record of the training file format holds no sample.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BadSample {
    /// It is not [`RECORD_BYTES`] long: its length.
    Length(usize),
    /// Its bitboards, scores and ply are no position.
    Position(ParsePositionError),
    /// Its result is not -1, 0 or 1: the byte read.
    Result(i8),
    /// Its flags are not 0 or 1: the byte read.
    Flags(u8),
    /// It is flagged exact but its score is neither a win, a draw or a loss
    /// nor a proven margin.
    ExactScore(i16),
}

impl fmt::Display for BadSample {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BadSample::Length(bytes) => write!(f, "a record is {RECORD_BYTES} bytes, not {bytes}"),
            BadSample::Position(e) => write!(f, "{e}"),
            BadSample::Result(r) => write!(f, "result {r} is not -1, 0 or 1"),
            BadSample::Flags(x) => write!(f, "flags {x} are not 0 or 1"),
            BadSample::ExactScore(score) => write!(
                f,
                "an exact score of {score} is not a win ({EXACT_WIN}), a draw (0), a loss \
                 (-{EXACT_WIN}) or a proven margin (a multiple of {CENTIPOINTS_PER_POINT} \
                 from -{MAX_MARGIN} to {MAX_MARGIN})"
            ),
        }
    }
}

impl std::error::Error for BadSample {}

/// One training position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// The position.
    pub pos: Position,
    /// The searching player's score for the side to move, in centipoints.
    pub score: i16,
    /// How the game ended for the side to move: 1, 0 or -1.
    pub result: i8,
    /// Whether `score` is proven with best play rather than a search's
    /// estimate: then it is the result, [`EXACT_WIN`], 0 or −[`EXACT_WIN`],
    /// or the final margin in centipoints, [`CENTIPOINTS_PER_POINT`] a
    /// point (`yolah label --exact-margin`; see [`crate::label`]).
    pub exact: bool,
}

/// The score of a proven win, in an exact sample: far enough out that its
/// sigmoid, the training target, is 1 in `f32`.
pub const EXACT_WIN: i16 = 30_000;

/// Centipoints per point of a proven margin, the players' scale (see
/// [`yolah_players::score`]).
pub const CENTIPOINTS_PER_POINT: i16 = 100;

/// The largest proven margin an exact sample holds, in centipoints: 64
/// points, more than a game has moves.
pub const MAX_MARGIN: i16 = 64 * CENTIPOINTS_PER_POINT;

/// Whether `score` may be an exact sample's: a proven result or margin.
fn is_exact_score(score: i16) -> bool {
    score.abs() == EXACT_WIN || (score.abs() <= MAX_MARGIN && score % CENTIPOINTS_PER_POINT == 0)
}

impl Sample {
    /// The sample as a record of the file format.
    pub fn to_bytes(self) -> [u8; RECORD_BYTES] {
        let mut b = [0u8; RECORD_BYTES];
        b[0..8].copy_from_slice(&self.pos.pieces(Color::Black).0.to_le_bytes());
        b[8..16].copy_from_slice(&self.pos.pieces(Color::White).0.to_le_bytes());
        b[16..24].copy_from_slice(&self.pos.holes().0.to_le_bytes());
        b[24] = self.pos.score(Color::Black);
        b[25] = self.pos.score(Color::White);
        b[26..28].copy_from_slice(&self.pos.ply().to_le_bytes());
        b[28..30].copy_from_slice(&self.score.to_le_bytes());
        b[30] = self.result as u8;
        b[31] = u8::from(self.exact);
        b
    }

    /// The sample a record of the file format holds, or what is wrong with
    /// it; `b` is one record ([`RECORD_BYTES`] long).
    pub fn from_bytes(b: &[u8]) -> Result<Sample, BadSample> {
        if b.len() != RECORD_BYTES {
            return Err(BadSample::Length(b.len()));
        }
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        let pos = Position::from_parts(
            Bitboard(u64_at(0)),
            Bitboard(u64_at(8)),
            Bitboard(u64_at(16)),
            b[24],
            b[25],
            u16::from_le_bytes([b[26], b[27]]),
        )
        .map_err(BadSample::Position)?;
        let result = b[30] as i8;
        if !(-1..=1).contains(&result) {
            return Err(BadSample::Result(result));
        }
        let exact = match b[31] {
            0 => false,
            1 => true,
            other => return Err(BadSample::Flags(other)),
        };
        let score = i16::from_le_bytes([b[28], b[29]]);
        if exact && !is_exact_score(score) {
            return Err(BadSample::ExactScore(score));
        }
        Ok(Sample {
            pos,
            score,
            result,
            exact,
        })
    }
}

/// Writes samples in the file format.
pub fn write(path: &str, samples: &[Sample]) -> Result<(), DataError> {
    let io = |error| DataError::Io {
        action: "write",
        path: path.to_string(),
        error,
    };
    let mut out = BufWriter::new(File::create(path).map_err(io)?);
    out.write_all(MAGIC).map_err(io)?;
    for s in samples {
        out.write_all(&s.to_bytes()).map_err(io)?;
    }
    // On the disk before anything (a rename, a manifest) vouches for it.
    out.into_inner()
        .map_err(|e| io(e.into_error()))?
        .sync_all()
        .map_err(io)
}

/// Reads a training file, record by record, checking every one.
pub fn read(path: &str) -> Result<Vec<Sample>, DataError> {
    let io = |error| DataError::Io {
        action: "read",
        path: path.to_string(),
        error,
    };
    let mut input = BufReader::new(File::open(path).map_err(io)?).take(MAX_DATA_BYTES + 1);
    let mut magic = [0u8; 8];
    let mut got = 0;
    while got < magic.len() {
        match input.read(&mut magic[got..]).map_err(io)? {
            0 => break,
            n => got += n,
        }
    }
    if got < magic.len() || &magic != MAGIC {
        return Err(DataError::NotTrainingFile {
            path: path.to_string(),
        });
    }
    let mut samples = Vec::new();
    let mut record = [0u8; RECORD_BYTES];
    let mut bytes = magic.len() as u64;
    loop {
        let mut filled = 0;
        while filled < RECORD_BYTES {
            match input.read(&mut record[filled..]).map_err(io)? {
                0 => break,
                n => filled += n,
            }
        }
        bytes += filled as u64;
        if bytes > MAX_DATA_BYTES {
            return Err(DataError::TooLarge {
                path: path.to_string(),
            });
        }
        match filled {
            0 => return Ok(samples),
            RECORD_BYTES => {}
            _ => {
                return Err(DataError::Truncated {
                    path: path.to_string(),
                    bytes,
                })
            }
        }
        let sample = Sample::from_bytes(&record).map_err(|problem| DataError::BadRecord {
            path: path.to_string(),
            record: samples.len() as u64 + 1,
            problem,
        })?;
        samples.push(sample);
    }
}

/// Keeps the first of every set of samples whose positions are the same
/// up to a symmetry of the board (the pieces, holes, scores and side to
/// move), so that the openings every game passes through do not outweigh
/// the rest; returns how many were dropped. Deterministic: the order of
/// the samples kept is theirs.
pub fn dedup(samples: &mut Vec<Sample>) -> usize {
    let canonical = |pos: &Position| {
        Symmetry::ALL
            .iter()
            .map(|&s| {
                let p = pos.transformed(s);
                let black = p.pieces(Color::Black).0;
                (black, p.pieces(Color::White).0, p.holes().0)
            })
            .min()
            .map(|board| {
                (
                    board,
                    pos.score(Color::Black),
                    pos.score(Color::White),
                    pos.side_to_move(),
                )
            })
    };
    let before = samples.len();
    let mut seen = std::collections::HashSet::with_capacity(before);
    samples.retain(|s| seen.insert(canonical(&s.pos)));
    before - samples.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dedup_keeps_the_first_of_each_position_up_to_symmetry() {
        let start = Position::START;
        let m = start.legal_moves()[3];
        let mut after = start;
        after.play(m);
        let mirrored = after.transformed(Symmetry::ALL[5]);
        assert_ne!(after, mirrored);
        let sample = |pos, score| Sample {
            pos,
            score,
            result: 0,
            exact: false,
        };
        let mut samples = vec![
            sample(start, 1),
            sample(after, 2),
            sample(start, 3),
            sample(mirrored, 4),
        ];
        assert_eq!(dedup(&mut samples), 2);
        assert_eq!(samples, vec![sample(start, 1), sample(after, 2)]);
    }
}
