//! Round-robin tournaments kept in a JSONL file that survives crashes.
//!
//! The file starts with a header line naming the players and settings, then
//! one line per finished game, appended and flushed as soon as the game ends.
//! Opening the file again resumes: finished games are not replayed, a
//! half-written last line (a crash in the middle of a write) is cut off with a
//! warning, and a file written for other players or settings is refused.

use crate::games::play_match_game;
use crate::ratings::{rate, GameResult, Rating};
use crate::rng::splitmix64;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::sync::Mutex;

/// What a tournament is: its players and settings, as the header records.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// Player specs, in order.
    pub players: Vec<String>,
    /// Games each pair plays.
    pub games_per_pair: u64,
    /// Seed of openings and players.
    pub seed: u64,
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
    /// The games already in the file.
    pub games: Vec<GameLine>,
    /// Things worth telling the user (a cut-off last line, duplicates).
    pub warnings: Vec<String>,
}

impl Store {
    /// Opens (or creates) the tournament file at `path` for `settings`.
    pub fn open(path: &str, settings: &Settings) -> Result<Store, String> {
        let existing = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(format!("cannot read {path}: {e}")),
        };
        let mut warnings = Vec::new();
        // Keep whole lines only: everything after the last newline is a
        // write that a crash cut short.
        let complete = existing
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        if complete < existing.len() {
            warnings.push(format!(
                "{path}: ignoring a half-written last line ({} bytes)",
                existing.len() - complete
            ));
        }
        let text = std::str::from_utf8(&existing[..complete])
            .map_err(|_| format!("{path} is not a UTF-8 tournament file"))?;
        let mut games = Vec::new();
        let mut seen = BTreeSet::new();
        for (i, line) in text.lines().enumerate() {
            let parsed: Line = serde_json::from_str(line)
                .map_err(|e| format!("{path}:{}: not a tournament line: {e}", i + 1))?;
            match (i, parsed) {
                (0, Line::Header(found)) => {
                    if &found != settings {
                        return Err(format!(
                            "{path} belongs to another tournament (players {:?}, {} games per pair, seed {}); \
                             use another --out file or the same settings",
                            found.players, found.games_per_pair, found.seed
                        ));
                    }
                }
                (0, Line::Game(_)) | (_, Line::Header(_)) => {
                    return Err(format!(
                        "{path}:{}: the header must be the first line, and only it",
                        i + 1
                    ))
                }
                (_, Line::Game(g)) => {
                    let (a, b) = g.pair;
                    let k = settings.players.len();
                    if a >= k || b >= k || a >= b || g.game >= settings.games_per_pair {
                        return Err(format!(
                            "{path}:{}: game {:?}/{} is not in this tournament",
                            i + 1,
                            g.pair,
                            g.game
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
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| format!("cannot open {path}: {e}"))?;
        if complete < existing.len() {
            file.set_len(complete as u64)
                .map_err(|e| format!("cannot cut the half-written line off {path}: {e}"))?;
        }
        if complete == 0 {
            let header =
                serde_json::to_string(&Line::Header(settings.clone())).expect("serialises");
            file.write_all(format!("{header}\n").as_bytes())
                .and_then(|()| file.flush())
                .map_err(|e| format!("cannot write {path}: {e}"))?;
        }
        Ok(Store {
            file: Mutex::new(file),
            games,
            warnings,
        })
    }

    /// Appends one game as a single write of one whole line, and flushes it.
    pub fn append(&self, game: &GameLine) -> Result<(), String> {
        let line = serde_json::to_string(&Line::Game(game.clone())).expect("serialises") + "\n";
        let mut file = self
            .file
            .lock()
            .map_err(|_| "a writer panicked".to_string())?;
        file.write_all(line.as_bytes())
            .and_then(|()| file.flush())
            .map_err(|e| format!("cannot append to the tournament file: {e}"))
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
) -> Result<GameLine, String> {
    let seed = splitmix64(settings.seed ^ splitmix64(pair_index as u64 + 1));
    let (a, b) = (&settings.players[pair.0], &settings.players[pair.1]);
    let g = play_match_game(a, b, seed, game).map_err(|e| e.to_string())?;
    let text = |ms: &[crate::Move]| ms.iter().map(|m| m.to_string()).collect::<Vec<_>>();
    let (black, white) = if g.a_is_black { (a, b) } else { (b, a) };
    let result = match g.scores.0.cmp(&g.scores.1) {
        std::cmp::Ordering::Greater => "1-0",
        std::cmp::Ordering::Less => "0-1",
        std::cmp::Ordering::Equal => "1/2-1/2",
    };
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
        result: result.into(),
        a_points: g.a_points,
    })
}

/// Plays every game not yet in `store` over `threads` workers, appending
/// each as it ends; `progress` gets (done, total) after each game.
pub fn run(
    settings: &Settings,
    store: &Store,
    threads: usize,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Vec<GameLine>, String> {
    let done: BTreeSet<((usize, usize), u64)> =
        store.games.iter().map(|g| (g.pair, g.game)).collect();
    let todo: Vec<(usize, (usize, usize), u64)> = pairs(settings.players.len())
        .into_iter()
        .enumerate()
        .flat_map(|(k, p)| (0..settings.games_per_pair).map(move |g| (k, p, g)))
        .filter(|&(_, p, g)| !done.contains(&(p, g)))
        .collect();
    let total = (pairs(settings.players.len()).len() as u64) * settings.games_per_pair;
    let already = store.games.len() as u64;
    progress(already, total);
    let new_games = crate::parallel::map_indexed(
        todo.len(),
        threads,
        |t| {
            let (k, pair, game) = todo[t];
            let line = play(settings, k, pair, game)?;
            store.append(&line)?;
            Ok::<_, String>(line)
        },
        &|done| progress(already + done, total),
    )?;
    let mut all = store.games.clone();
    all.extend(new_games);
    all.sort_by_key(|g| (g.pair, g.game));
    Ok(all)
}

/// A pair's results, from the first player's side.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PairRecord {
    /// First player (index).
    pub a: usize,
    /// Second player (index).
    pub b: usize,
    /// Wins of `a`.
    pub a_wins: u64,
    /// Draws.
    pub draws: u64,
    /// Wins of `b`.
    pub b_wins: u64,
}

/// Ratings (anchored at `anchor`) and per-pair records of finished games.
pub fn standings(
    players: usize,
    games: &[GameLine],
    anchor: usize,
) -> (Vec<Rating>, Vec<PairRecord>) {
    let results: Vec<GameResult> = games
        .iter()
        .map(|g| GameResult {
            a: g.pair.0,
            b: g.pair.1,
            points: g.a_points,
        })
        .collect();
    let ratings = rate(players, &results, anchor);
    let records = pairs(players)
        .into_iter()
        .map(|(a, b)| {
            let of = |v: f64| {
                games
                    .iter()
                    .filter(|g| g.pair == (a, b) && g.a_points == v)
                    .count() as u64
            };
            PairRecord {
                a,
                b,
                a_wins: of(1.0),
                draws: of(0.5),
                b_wins: of(0.0),
            }
        })
        .collect();
    (ratings, records)
}
