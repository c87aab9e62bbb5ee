//! Round-robin tournaments kept in a JSONL file that survives crashes.
//!
//! The file starts with a header line naming the players and settings, then
//! one line per finished game, appended and flushed as soon as the game ends.
//! Opening the file again resumes: finished games are not replayed, a
//! half-written last line (a crash in the middle of a write) is cut off with a
//! warning, and a file written for other players or settings is refused.

use crate::games::{play_match_game, GameError};
use crate::shard::Shard;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::sync::Mutex;
use yolah::rng::game_seed;
use yolah::Move;
use yolah_players::StartError;

mod settings;
pub use settings::{Anchor, Settings, SettingsError, MAX_GAMES, MAX_GAMES_PER_PAIR, MAX_PLAYERS};

/// The longest line a tournament file may hold: a game line is a few hundred
/// bytes, so anything longer is not a tournament file.
pub const MAX_LINE_BYTES: usize = 64 << 10;

/// Why a tournament cannot be read, written or played.
#[derive(Debug)]
pub enum TournamentError {
    /// The file cannot be opened, read, written or cut.
    Io {
        /// What was being done: `read`, `open`, `write`, `cut the half-written line off`.
        action: &'static str,
        /// The file.
        path: String,
        /// What the operating system said.
        error: std::io::Error,
    },
    /// A line of the file is not what it should be.
    Line {
        /// The file.
        path: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        problem: String,
    },
    /// The file records another tournament.
    OtherSettings {
        /// The file.
        path: String,
        /// The settings in its header.
        found: Settings,
    },
    /// The settings make no tournament, or a player spec no player.
    Settings(SettingsError),
    /// A player cannot start (an engine that cannot be run, or exits or
    /// stays silent before its handshake): the run stops.
    Start(StartError),
    /// Another run has the file open (it holds the file's lock).
    InUse {
        /// The file.
        path: String,
    },
    /// A game asked for is not one of the tournament's.
    Game(String),
}

impl fmt::Display for TournamentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TournamentError::Io {
                action,
                path,
                error,
            } => write!(f, "cannot {action} {path}: {error}"),
            TournamentError::Line {
                path,
                line,
                problem,
            } => write!(f, "{path}:{line}: {problem}"),
            TournamentError::OtherSettings { path, found } => write!(
                f,
                "{path} belongs to another tournament (players {:?}, {} games per pair, seed {}); \
                 use another --out file or the same settings",
                found.players, found.games_per_pair, found.seed
            ),
            TournamentError::Settings(e) => write!(f, "{e}"),
            TournamentError::Start(e) => write!(f, "{e}"),
            TournamentError::InUse { path } => write!(
                f,
                "{path} is in use: another run (a yolah tournament or merge, or a \
                 Python TournamentFile) has it open and is writing its games there; \
                 let that run end, or give this one another --out file"
            ),
            TournamentError::Game(why) => write!(f, "{why}"),
        }
    }
}

/// Its text says it all (no `source`, which would print it twice).
impl std::error::Error for TournamentError {}

impl From<SettingsError> for TournamentError {
    fn from(e: SettingsError) -> TournamentError {
        TournamentError::Settings(e)
    }
}

/// One finished game, one JSONL line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameLine {
    /// Indices of the two players, `a` first.
    pub pair: (usize, usize),
    /// Index of the game within the pair.
    pub game: u64,
    /// Spec of the black player.
    pub black: String,
    /// Spec of the white player.
    pub white: String,
    /// Whether player `a` had Black.
    pub a_is_black: bool,
    /// The shared random opening.
    pub opening: Vec<String>,
    /// The moves after the opening.
    pub moves: Vec<String>,
    /// Final scores.
    pub black_score: u8,
    /// Final scores.
    pub white_score: u8,
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: String,
    /// Player `a`'s points.
    pub a_points: f64,
    /// The side that lost by forfeit (`black` or `white`), if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forfeit: Option<String>,
    /// Why it forfeited (`illegal move d5:d5`, `the engine exited …`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl GameLine {
    /// The index of the player who forfeited this game, if one did.
    pub fn forfeited_by(&self) -> Option<usize> {
        let black_forfeited = self.forfeit.as_deref()? == "black";
        Some(if black_forfeited == self.a_is_black {
            self.pair.0
        } else {
            self.pair.1
        })
    }
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Line {
    Header(Settings),
    Game(GameLine),
}

/// A tournament file opened for appending.
pub struct Store {
    file: Mutex<File>,
    path: String,
    /// The games already in the file.
    pub games: Vec<GameLine>,
    /// Things worth telling the user (a cut-off last line, duplicates).
    pub warnings: Vec<String>,
}

/// What a tournament file holds.
struct Contents {
    settings: Settings,
    games: Vec<GameLine>,
    warnings: Vec<String>,
    /// Bytes of whole lines.
    complete: u64,
    /// Bytes of a half-written last line after them.
    partial: usize,
}

/// Reads the tournament file at `path` line by line (no line may exceed
/// [`MAX_LINE_BYTES`]), checking its header against `expected` if given.
/// `None` when there is no file or it is empty.
fn scan(path: &str, expected: Option<&Settings>) -> Result<Option<Contents>, TournamentError> {
    let io = |action| {
        move |error| TournamentError::Io {
            action,
            path: path.to_string(),
            error,
        }
    };
    let line_error = |line: usize, problem: String| TournamentError::Line {
        path: path.to_string(),
        line,
        problem,
    };
    let file = match File::open(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io("read")(e)),
        Ok(file) => file,
    };
    let mut settings: Option<Settings> = None;
    let mut warnings = Vec::new();
    let mut games = Vec::new();
    let mut seen = BTreeSet::new();
    // Bytes of whole lines: everything after the last newline is a write
    // that a crash cut short, and is cut off before appending.
    let mut complete = 0u64;
    let mut partial = 0usize;
    let mut reader = BufReader::new(file);
    let mut buf = Vec::new();
    for i in 0.. {
        buf.clear();
        let n = (&mut reader)
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(io("read"))?;
        if n == 0 {
            break;
        }
        if buf.last() != Some(&b'\n') {
            if n > MAX_LINE_BYTES {
                return Err(line_error(
                    i + 1,
                    format!("line longer than {MAX_LINE_BYTES} bytes: not a tournament file"),
                ));
            }
            // Shorter than the limit and no newline: the end of the file.
            partial = n;
            break;
        }
        complete += n as u64;
        let text = std::str::from_utf8(&buf)
            .map_err(|_| line_error(i + 1, "not UTF-8: not a tournament file".into()))?;
        let parsed: Line = serde_json::from_str(text)
            .map_err(|e| line_error(i + 1, format!("not a tournament line: {e}")))?;
        match (&settings, parsed) {
            (None, Line::Header(found)) => {
                found
                    .check()
                    .map_err(|why| line_error(i + 1, format!("not a tournament header: {why}")))?;
                if expected.is_some_and(|s| s != &found) {
                    return Err(TournamentError::OtherSettings {
                        path: path.to_string(),
                        found,
                    });
                }
                settings = Some(found);
            }
            (None, Line::Game(_)) | (Some(_), Line::Header(_)) => {
                return Err(line_error(
                    i + 1,
                    "the header must be the first line, and only it".into(),
                ))
            }
            (Some(settings), Line::Game(g)) => {
                let (a, b) = g.pair;
                let k = settings.players.len();
                if a >= k || b >= k || a >= b || g.game >= settings.games_per_pair {
                    return Err(line_error(
                        i + 1,
                        format!("game {:?}/{} is not in this tournament", g.pair, g.game),
                    ));
                }
                if seen.insert((g.pair, g.game)) {
                    games.push(g);
                } else {
                    warnings.push(format!(
                        "{path}:{}: game {:?}/{} is there twice; counted once",
                        i + 1,
                        g.pair,
                        g.game
                    ));
                }
            }
        }
    }
    if partial > 0 {
        warnings.push(format!(
            "{path}: ignoring a half-written last line ({partial} bytes)"
        ));
    }
    Ok(settings.map(|settings| Contents {
        settings,
        games,
        warnings,
        complete,
        partial,
    }))
}

/// The settings and games of an existing tournament file (a half-written
/// last line is ignored, with a warning), without changing it.
pub fn read(path: &str) -> Result<(Settings, Vec<GameLine>, Vec<String>), TournamentError> {
    match scan(path, None)? {
        Some(c) => Ok((c.settings, c.games, c.warnings)),
        None => Err(TournamentError::Line {
            path: path.to_string(),
            line: 1,
            problem: "no header: not a tournament file (or an empty one)".into(),
        }),
    }
}

impl Store {
    /// Opens (or creates) the tournament file at `path` for `settings`,
    /// reading it line by line (no line may exceed [`MAX_LINE_BYTES`]).
    ///
    /// The file stays locked (an exclusive advisory lock) while the store
    /// is open, and the operating system releases the lock when the
    /// process ends, however it ends: a file that another run has open is
    /// refused with [`TournamentError::InUse`], rather than both appending
    /// their games to it.
    pub fn open(path: &str, settings: &Settings) -> Result<Store, TournamentError> {
        settings.check()?;
        let io = |action| {
            move |error| TournamentError::Io {
                action,
                path: path.to_string(),
                error,
            }
        };
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(io("open"))?;
        // Locked before it is read: what is read is what this run appends to.
        file.try_lock().map_err(|e| match e {
            std::fs::TryLockError::WouldBlock => TournamentError::InUse {
                path: path.to_string(),
            },
            std::fs::TryLockError::Error(error) => io("lock")(error),
        })?;
        let (games, warnings, complete, partial) = match scan(path, Some(settings))? {
            Some(c) => (c.games, c.warnings, c.complete, c.partial),
            // No file, an empty one, or only half a header line.
            None => (Vec::new(), Vec::new(), 0, 0),
        };
        if partial > 0 || complete == 0 {
            file.set_len(complete)
                .map_err(io("cut the half-written line off"))?;
        }
        if complete == 0 {
            let header =
                serde_json::to_string(&Line::Header(settings.clone())).expect("serialises");
            file.write_all(format!("{header}\n").as_bytes())
                .and_then(|()| file.flush())
                .map_err(io("write"))?;
        }
        Ok(Store {
            file: Mutex::new(file),
            path: path.to_string(),
            games,
            warnings,
        })
    }

    /// The file's path.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Appends one game as a single write of one whole line, and flushes it.
    pub fn append(&self, game: &GameLine) -> Result<(), TournamentError> {
        let line = serde_json::to_string(&Line::Game(game.clone())).expect("serialises") + "\n";
        // A writer that panicked mid-append cannot have left half a line in
        // the file's buffer (every write is whole and flushed), so the lock
        // is still good.
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        file.write_all(line.as_bytes())
            .and_then(|()| file.flush())
            .map_err(|error| TournamentError::Io {
                action: "append to",
                path: self.path.clone(),
                error,
            })
    }
}

/// The pairs of a round robin: (i, j) with i < j, in order.
pub fn pairs(players: usize) -> Vec<(usize, usize)> {
    (0..players)
        .flat_map(|i| (i + 1..players).map(move |j| (i, j)))
        .collect()
}

/// Plays game `game` of pair `pair` (index `pair_index` among the pairs).
pub fn play(
    settings: &Settings,
    pair_index: usize,
    pair: (usize, usize),
    game: u64,
) -> Result<GameLine, TournamentError> {
    let seed = game_seed(settings.seed, pair_index as u64 + 1);
    let (a, b) = (&settings.players[pair.0], &settings.players[pair.1]);
    let tc = settings.time_control()?;
    let g = play_match_game(a, b, seed, game, tc).map_err(|e| match e {
        GameError::Spec(e) => TournamentError::Settings(SettingsError::Spec(e)),
        GameError::Start(e) => TournamentError::Start(e),
    })?;
    let text = |ms: &[Move]| ms.iter().map(|m| m.to_string()).collect::<Vec<_>>();
    let (black, white) = if g.a_is_black { (a, b) } else { (b, a) };
    Ok(GameLine {
        pair,
        game,
        black: black.clone(),
        white: white.clone(),
        a_is_black: g.a_is_black,
        opening: text(&g.moves[..g.opening_plies]),
        moves: text(&g.moves[g.opening_plies..]),
        black_score: g.scores.0,
        white_score: g.scores.1,
        result: g.result.into(),
        a_points: g.a_points,
        forfeit: g.forfeit.as_ref().map(|(c, _)| c.name().to_string()),
        reason: g.forfeit.map(|(_, why)| why),
    })
}

/// Games `range` of a tournament as (pair index, game), numbered
/// game-major: game 0 of every pair, then game 1 of every pair, and so on.
/// Shards cut this order, so each shard gets a fair share of every pair's
/// games.
pub fn scheduled(settings: &Settings, range: std::ops::Range<u64>) -> Vec<(usize, u64)> {
    let pairs = pairs(settings.players.len()).len() as u64;
    let end = range.end.min(settings.total_games());
    (range.start..end)
        .map(|t| ((t % pairs) as usize, t / pairs))
        .collect()
}

/// Plays every game of `shard` ([`Shard::WHOLE`] for the whole tournament)
/// not yet in `store` over `threads` workers, appending each as it ends;
/// `progress` gets (done, total) of the shard after each game. Returns
/// every game in the store, sorted by pair and game.
pub fn run(
    settings: &Settings,
    store: &Store,
    shard: Shard,
    threads: usize,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Vec<GameLine>, TournamentError> {
    let done: BTreeSet<((usize, usize), u64)> =
        store.games.iter().map(|g| (g.pair, g.game)).collect();
    let pairs = pairs(settings.players.len());
    let mine = scheduled(settings, shard.range(settings.total_games()));
    let todo: Vec<(usize, u64)> = mine
        .iter()
        .copied()
        .filter(|&(k, g)| !done.contains(&(pairs[k], g)))
        .collect();
    let total = mine.len() as u64;
    let already = total - todo.len() as u64;
    progress(already, total);
    let new_games = play_games(
        settings,
        &todo,
        threads,
        &|line| store.append(line),
        &|done| progress(already + done, total),
    )?;
    let mut all = store.games.clone();
    all.extend(new_games);
    all.sort_by_key(|g| (g.pair, g.game));
    Ok(all)
}

/// What [`merge`] did.
#[derive(Debug)]
pub struct Merged {
    /// The tournament.
    pub settings: Settings,
    /// Every game now in the output, sorted by pair and game.
    pub games: Vec<GameLine>,
    /// Games the inputs added to the output.
    pub added: usize,
    /// Things worth telling the user (cut-off lines, games in several inputs).
    pub warnings: Vec<String>,
}

/// Merges the tournament files `inputs` (shards of one tournament, or
/// partial runs of it) into `out`, which may already hold games of it: the
/// union of their games, each once. Every input is read and checked before
/// `out` is touched, so files of another tournament are refused with `out`
/// as it was; a game found twice keeps its first line.
pub fn merge(inputs: &[String], out: &str) -> Result<Merged, TournamentError> {
    let first = inputs
        .first()
        .ok_or_else(|| TournamentError::Game("no tournament files to merge".into()))?;
    let (settings, _, _) = read(first)?;
    let out_path = std::fs::canonicalize(out).ok();
    let is_out = |path: &str| match (&out_path, std::fs::canonicalize(path)) {
        (Some(o), Ok(p)) => *o == p,
        _ => path == out,
    };
    let mut warnings = Vec::new();
    let mut found_games = Vec::new();
    for path in inputs.iter().filter(|p| !is_out(p)) {
        let (found, lines, mut notes) = read(path)?;
        if found != settings {
            return Err(TournamentError::OtherSettings {
                path: path.clone(),
                found,
            });
        }
        warnings.append(&mut notes);
        found_games.push((path, lines));
    }
    let store = Store::open(out, &settings)?;
    warnings.extend(store.warnings.iter().cloned());
    let mut have: BTreeSet<((usize, usize), u64)> =
        store.games.iter().map(|g| (g.pair, g.game)).collect();
    let mut games = store.games.clone();
    let mut added = 0;
    for (path, lines) in found_games {
        let mut repeated = 0;
        for g in lines {
            if have.insert((g.pair, g.game)) {
                store.append(&g)?;
                games.push(g);
                added += 1;
            } else {
                repeated += 1;
            }
        }
        if repeated > 0 {
            warnings.push(format!(
                "{path}: {repeated} game(s) already merged from another file; kept the first"
            ));
        }
    }
    games.sort_by_key(|g| (g.pair, g.game));
    Ok(Merged {
        settings,
        games,
        added,
        warnings,
    })
}

/// Plays the games `todo`, each a (pair index, game) with pairs numbered as
/// [`pairs`] numbers them, over `threads` workers, and returns their lines
/// in the order of `todo`; `finished` sees each line as its game ends (to
/// store it), `progress` the number finished. A game's line depends only
/// on the settings and its indices, so any split of a tournament's games,
/// over threads, processes or machines, gives the lines of one run.
pub fn play_games(
    settings: &Settings,
    todo: &[(usize, u64)],
    threads: usize,
    finished: &(dyn Fn(&GameLine) -> Result<(), TournamentError> + Sync),
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<GameLine>, TournamentError> {
    let pairs = pairs(settings.players.len());
    crate::parallel::map_indexed(
        todo.len(),
        threads,
        |t| {
            let (k, game) = todo[t];
            let pair = *pairs.get(k).ok_or_else(|| {
                TournamentError::Game(format!(
                    "pair {k} is not in a tournament of {} pairs",
                    pairs.len()
                ))
            })?;
            if game >= settings.games_per_pair {
                return Err(TournamentError::Game(format!(
                    "game {game} is not in a tournament of {} games a pair",
                    settings.games_per_pair
                )));
            }
            let line = play(settings, k, pair, game)?;
            finished(&line)?;
            Ok(line)
        },
        progress,
    )
}
