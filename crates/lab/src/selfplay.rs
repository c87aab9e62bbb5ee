//! Training positions: the file format and self-play that writes it.
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
//! | 28..30 | search score for the side to move (`i16`, centipoints; a Monte Carlo win rate is converted, see [`Score::centipoints`]) |
//! | 30 | final result for the side to move (`i8`: 1 win, 0 draw, -1 loss) |
//! | 31 | flags: 1 if the score is exact (see [`Sample::exact`]), else 0 |

use crate::games::random_opening;
use crate::shard::{IncompleteShards, Shard};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::ops::Range;
use yolah::rng::{game_seed, splitmix64};
use yolah::{Bitboard, Color, ParsePositionError, Position, Symmetry};
use yolah_players::{from_spec, with_seed, Score, SpecError};

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
        /// Its player, games and seed.
        run: (String, u64, u64),
        /// The first shard's.
        expected: (String, u64, u64),
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
                "{spec:?} gives no score to learn from: self-play needs a player that values \
                 positions (alphabeta, nn, mcts, mc)"
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
                run: (player, games, seed),
                expected: (first_player, first_games, first_seed),
            } => write!(
                f,
                "{path} is a shard of another run ({games} games of {player} seeded {seed}, \
                 not {first_games} of {first_player} seeded {first_seed})"
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
    /// It is flagged exact but its score is not a win, a draw or a loss.
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
                "an exact score of {score} is not a win ({EXACT_WIN}), a draw (0) or a loss"
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
    /// Whether `score` is the proven result with best play rather than a
    /// search's estimate: then it is [`EXACT_WIN`], 0 or −[`EXACT_WIN`]
    /// (see [`crate::label`]).
    pub exact: bool,
}

/// The score of a proven win, in an exact sample: far enough out that its
/// sigmoid, the training target, is 1 in `f32`.
pub const EXACT_WIN: i16 = 30_000;

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
        if exact && ![-EXACT_WIN, 0, EXACT_WIN].contains(&score) {
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

/// Plays game `index` of a self-play run with `spec` on both sides (after a
/// random opening of 6 plies) and returns its positions: every position
/// where the side to move had a real choice, with the search score in
/// centipoints ([`Score::centipoints`] converts a Monte Carlo win rate on
/// the scale the network is trained on).
pub fn selfplay_game(spec: &str, seed: u64, index: u64) -> Result<Vec<Sample>, DataError> {
    let game_seed = game_seed(seed, index);
    let mut black = from_spec(&with_seed(spec, game_seed)).map_err(DataError::Spec)?;
    let mut white = from_spec(&with_seed(spec, splitmix64(game_seed))).map_err(DataError::Spec)?;
    let mut start = Position::START;
    for m in random_opening(seed, index, 6) {
        start.play(m);
    }
    let mut seen: Vec<(Position, i16)> = Vec::new();
    let mut pos = start;
    while !pos.is_game_over() {
        let player = match pos.side_to_move() {
            Color::Black => black.as_mut(),
            Color::White => white.as_mut(),
        };
        let a = player.analyse(&pos);
        if pos.legal_move_count() > 1 {
            let centipoints = match a.score {
                Score::Unknown => {
                    return Err(DataError::NoScore {
                        spec: spec.to_string(),
                    })
                }
                score => score.centipoints().unwrap_or(0),
            };
            seen.push((pos, centipoints.clamp(-30_000, 30_000) as i16));
        }
        if let Err(e) = pos.try_play(a.best_move) {
            panic!(
                "{spec} chose an illegal move {} in {pos:?}: {e}",
                a.best_move
            );
        }
    }
    let outcome = pos.outcome();
    Ok(seen
        .into_iter()
        .map(|(pos, score)| Sample {
            pos,
            score,
            result: outcome.sign(pos.side_to_move()),
            exact: false,
        })
        .collect())
}

/// Self-play of `games` games over `threads` workers; samples in game order,
/// whatever the number of threads.
pub fn selfplay(
    spec: &str,
    games: u64,
    seed: u64,
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<Sample>, DataError> {
    selfplay_range(spec, 0..games, seed, threads, progress)
}

/// Self-play of the games numbered `range` of a run seeded `seed`: the
/// samples of consecutive ranges, put end to end, are those of [`selfplay`]
/// over the whole run.
pub fn selfplay_range(
    spec: &str,
    range: Range<u64>,
    seed: u64,
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<Sample>, DataError> {
    from_spec(spec).map_err(DataError::Spec)?;
    let first = range.start;
    let games = crate::parallel::map_indexed(
        (range.end.saturating_sub(range.start)) as usize,
        threads,
        |i| selfplay_game(spec, seed, first + i as u64),
        progress,
    )?;
    Ok(games.into_iter().flatten().collect())
}

/// What a shard of a self-play run holds: written next to its training
/// file as `FILE.shard.json`, so that [`merge`] can check the shards are
/// one run's, all there, and put them in game order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardManifest {
    /// The player's spec.
    pub player: String,
    /// Games in the whole run.
    pub games: u64,
    /// The run's seed.
    pub seed: u64,
    /// Which shard.
    pub shard: Shard,
    /// The first game of the shard.
    pub first_game: u64,
    /// One past its last game.
    pub end_game: u64,
    /// Positions in the shard's file.
    pub positions: u64,
    /// The version of yolah that played it: shards of one run must all be
    /// played by the same players.
    pub version: String,
    /// FNV-1a (64 bits) of the file's records, `0x…`.
    pub checksum: String,
}

/// The version written in shard manifests.
pub(crate) const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The largest manifest [`ShardManifest::read`] takes.
pub(crate) const MAX_MANIFEST_BYTES: u64 = 64 << 10;

/// FNV-1a, 64 bits, of `bytes` continued from `hash`.
fn fnv1a(mut hash: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        hash = (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

/// The checksum of a training file's records, read in pieces.
pub(crate) fn checksum_of(path: &str) -> Result<(String, u64), DataError> {
    let io = |error| DataError::Io {
        action: "read",
        path: path.to_string(),
        error,
    };
    let mut input = BufReader::new(File::open(path).map_err(io)?);
    let mut magic = [0u8; 8];
    input.read_exact(&mut magic).map_err(io)?;
    let (mut hash, mut bytes) = (FNV_START, 0u64);
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match input.read(&mut buf).map_err(io)? {
            0 => break,
            n => {
                hash = fnv1a(hash, &buf[..n]);
                bytes += n as u64;
            }
        }
    }
    Ok((format!("0x{hash:016x}"), bytes))
}

impl ShardManifest {
    /// Where the manifest of the training file `data` lives.
    pub fn path_for(data: &str) -> String {
        format!("{data}.shard.json")
    }

    /// The manifest of the training file `data`, if it has one and that
    /// file is whole.
    pub fn read(data: &str) -> Result<ShardManifest, DataError> {
        let path = Self::path_for(data);
        let bad = |problem: String| DataError::BadShard {
            path: path.clone(),
            problem,
        };
        let mut text = String::new();
        File::open(&path)
            .and_then(|f| f.take(MAX_MANIFEST_BYTES + 1).read_to_string(&mut text))
            .map_err(|e| {
                bad(format!(
                    "cannot read it ({e}); a self-play shard is written by \
                     `yolah selfplay --shard K/N`"
                ))
            })?;
        if text.len() as u64 > MAX_MANIFEST_BYTES {
            return Err(bad("too long for a shard manifest".into()));
        }
        let m: ShardManifest =
            serde_json::from_str(&text).map_err(|e| bad(format!("not a shard manifest: {e}")))?;
        if m.shard.range(m.games) != (m.first_game..m.end_game) {
            return Err(bad(format!(
                "games {}..{} are not shard {} of {}",
                m.first_game, m.end_game, m.shard, m.games
            )));
        }
        let (checksum, bytes) = checksum_of(data)?;
        let expected = m.positions.checked_mul(RECORD_BYTES as u64);
        if expected != Some(bytes) {
            return Err(bad(format!(
                "{data} holds {bytes} bytes of records, not the {} positions the manifest counts",
                m.positions
            )));
        }
        if checksum != m.checksum {
            return Err(bad(format!(
                "{data} is not the file the manifest was written for (checksum {checksum}, \
                 not {})",
                m.checksum
            )));
        }
        Ok(m)
    }

    /// Writes the manifest of the training file `data` (after it).
    pub fn write(&self, data: &str) -> Result<(), DataError> {
        let path = Self::path_for(data);
        let text = serde_json::to_string_pretty(self).expect("serialises") + "\n";
        write_atomically(&path, text.as_bytes())
    }
}

/// The manifest of the training file `out` if it is already shard `shard`
/// of this run, whole.
pub fn finished_shard(
    out: &str,
    spec: &str,
    games: u64,
    seed: u64,
    shard: Shard,
) -> Option<ShardManifest> {
    ShardManifest::read(out).ok().filter(|m| {
        m.player == spec
            && m.games == games
            && m.seed == seed
            && m.shard == shard
            && m.version == VERSION
    })
}

/// Writes `samples`, the positions of shard `shard` of a self-play run, to
/// the training file `out` and then its manifest (each through a rename,
/// so a crash leaves no file that looks finished and is not).
pub fn save_shard(
    out: &str,
    spec: &str,
    games: u64,
    seed: u64,
    shard: Shard,
    samples: &[Sample],
) -> Result<ShardManifest, DataError> {
    // A stale manifest must not vouch for the new file while it is written.
    let _ = std::fs::remove_file(ShardManifest::path_for(out));
    let tmp = format!("{out}.tmp");
    write(&tmp, samples)?;
    std::fs::rename(&tmp, out).map_err(|error| DataError::Io {
        action: "write",
        path: out.to_string(),
        error,
    })?;
    let range = shard.range(games);
    let records = samples
        .iter()
        .fold(FNV_START, |h, s| fnv1a(h, &s.to_bytes()));
    let manifest = ShardManifest {
        player: spec.to_string(),
        games,
        seed,
        shard,
        first_game: range.start,
        end_game: range.end,
        positions: samples.len() as u64,
        version: VERSION.to_string(),
        checksum: format!("0x{records:016x}"),
    };
    manifest.write(out)?;
    Ok(manifest)
}

/// Plays shard `shard` of a self-play run into the training file `out`
/// and its manifest. A shard whose file and manifest are already there
/// for the same run is not played again (a killed run of many shards
/// resumes); returns the manifest and whether it was played now.
pub fn selfplay_shard(
    spec: &str,
    games: u64,
    seed: u64,
    shard: Shard,
    threads: usize,
    out: &str,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(ShardManifest, bool), DataError> {
    if let Some(m) = finished_shard(out, spec, games, seed, shard) {
        return Ok((m, false));
    }
    let samples = selfplay_range(spec, shard.range(games), seed, threads, progress)?;
    Ok((save_shard(out, spec, games, seed, shard, &samples)?, true))
}

/// Puts the self-play shards `inputs` (training files with manifests, in
/// any order) together into `out` in game order: the same bytes as one
/// `selfplay` of the whole run. Every shard must be there once, all of one
/// run. Returns the run (as a manifest of shard 1/1).
pub fn merge(inputs: &[String], out: &str) -> Result<ShardManifest, DataError> {
    let mut shards = Vec::new();
    for path in inputs {
        shards.push((ShardManifest::read(path)?, path));
    }
    let first = shards
        .first()
        .map(|(m, _)| m.clone())
        .ok_or(DataError::Shards(IncompleteShards::Empty))?;
    for (m, path) in &shards {
        if m.version != first.version {
            return Err(DataError::OtherVersion {
                path: path.to_string(),
                version: m.version.clone(),
                expected: first.version.clone(),
            });
        }
        let run = |m: &ShardManifest| (m.player.clone(), m.games, m.seed);
        if run(m) != run(&first) {
            return Err(DataError::OtherRun {
                path: path.to_string(),
                run: run(m),
                expected: run(&first),
            });
        }
    }
    let ordered =
        crate::shard::complete(shards.into_iter().map(|(m, p)| (m.shard, (m, p))).collect())
            .map_err(DataError::Shards)?;
    let tmp = format!("{out}.tmp");
    let result = concatenate(&ordered, &tmp).and_then(|positions| {
        std::fs::rename(&tmp, out).map_err(|error| DataError::Io {
            action: "write",
            path: out.to_string(),
            error,
        })?;
        Ok(positions)
    });
    let positions = result.inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })?;
    Ok(ShardManifest {
        shard: Shard::WHOLE,
        first_game: 0,
        end_game: first.games,
        positions,
        checksum: String::new(),
        ..first
    })
}

/// Writes the training file `tmp`: the records of the `shards`, in order.
fn concatenate(shards: &[(Shard, (ShardManifest, &String))], tmp: &str) -> Result<u64, DataError> {
    let io = |action, path: &str| {
        let path = path.to_string();
        move |error| DataError::Io {
            action,
            path,
            error,
        }
    };
    let mut output = BufWriter::new(File::create(tmp).map_err(io("write", tmp))?);
    output.write_all(MAGIC).map_err(io("write", tmp))?;
    let mut positions = 0u64;
    for (_, (m, path)) in shards {
        let mut input = File::open(path.as_str()).map_err(io("read", path))?;
        let mut magic = [0u8; 8];
        input.read_exact(&mut magic).map_err(io("read", path))?;
        let copied = std::io::copy(&mut input, &mut output).map_err(io("read", path))?;
        if &magic != MAGIC || Some(copied) != m.positions.checked_mul(RECORD_BYTES as u64) {
            return Err(DataError::Changed {
                path: path.to_string(),
            });
        }
        positions += m.positions;
    }
    output
        .into_inner()
        .map_err(|e| io("write", tmp)(e.into_error()))?
        .sync_all()
        .map_err(io("write", tmp))?;
    Ok(positions)
}

/// Writes `path` through a temporary file and a rename.
pub(crate) fn write_atomically(path: &str, bytes: &[u8]) -> Result<(), DataError> {
    let tmp = format!("{path}.tmp");
    File::create(&tmp)
        .and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_all()))
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|error| DataError::Io {
            action: "write",
            path: path.to_string(),
            error,
        })
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

    #[test]
    fn selfplay_round_trips_through_the_file_and_is_deterministic() {
        let a = selfplay("alphabeta:depth=1", 4, 3, 2, &|_| {}).unwrap();
        assert_eq!(a, selfplay("alphabeta:depth=1", 4, 3, 1, &|_| {}).unwrap());
        assert!(a.len() > 40);
        assert!(a.iter().all(|s| (-1..=1).contains(&s.result)));
        let path = std::env::temp_dir().join(format!("yolah-pos-{}.bin", std::process::id()));
        let path = path.to_str().unwrap();
        write(path, &a).unwrap();
        assert_eq!(read(path).unwrap(), a);
        std::fs::write(path, b"YOLAHPOS1234").unwrap();
        assert!(read(path).unwrap_err().to_string().contains("whole number"));
        std::fs::write(path, b"nonsense").unwrap();
        assert!(read(path)
            .unwrap_err()
            .to_string()
            .contains("not a training file"));
        let mut bad = b"YOLAHPOS".to_vec();
        bad.extend([0xff; RECORD_BYTES]);
        std::fs::write(path, bad).unwrap();
        let e = read(path).unwrap_err().to_string();
        assert!(e.contains("record 1: bad position"), "{e}");
        // The flags byte: exact samples round trip, other flags and exact
        // scores that are no result are refused.
        let exact = Sample {
            score: -EXACT_WIN,
            exact: true,
            ..a[3]
        };
        assert_eq!(Sample::from_bytes(&exact.to_bytes()), Ok(exact));
        let mut flags = a[3].to_bytes();
        flags[31] = 2;
        assert_eq!(Sample::from_bytes(&flags), Err(BadSample::Flags(2)));
        let odd = Sample { score: 5, ..exact };
        let e = Sample::from_bytes(&odd.to_bytes()).unwrap_err();
        assert!(e.to_string().contains("exact score of 5"), "{e}");
        assert!(read("/dev/zero")
            .unwrap_err()
            .to_string()
            .contains("not a training file"));
    }

    #[test]
    fn monte_carlo_win_rates_become_centipoints_and_random_is_refused() {
        // mcts reports win rates; the file must hold them as centipoints on
        // the training scale, not as 0 or 1.
        let samples = selfplay("mcts:iterations=300", 2, 1, 1, &|_| {}).unwrap();
        let spread = samples.iter().filter(|s| s.score.abs() > 1).count();
        assert!(spread * 2 > samples.len(), "most scores are real values");
        for s in &samples {
            let p = yolah_players::score::expected_result(f64::from(s.score));
            assert!((0.0..=1.0).contains(&p));
        }
        let e = selfplay("random", 1, 1, 1, &|_| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains("gives no score to learn from"), "{e}");
    }
}
