//! The pieces a distributed run is made of (`yolah.distributed` drives
//! them on Ray): game-index shards, a tournament file that workers' games
//! are appended to, and self-play shards saved and merged in game order.
//! Every piece is the one the `yolah` command's `--shard` and `merge` use,
//! so a run on Ray and a run of the command give the same files.

use crate::errors::{data_error, threads_in};
use crate::players::{lab_error, settings, tournament_result, PyAnchor};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use yolah_lab::options::check_probability;
use yolah_lab::positions::{Sample, RECORD_BYTES};
use yolah_lab::selfplay;
use yolah_lab::shard::Shard;
use yolah_lab::standings::Standings;
use yolah_lab::tournament::{self as rounds, GameLine, Settings, Store};

fn parse_shard(text: &str) -> PyResult<Shard> {
    text.parse().map_err(lab_error)
}

/// The game indices `(start, end)` of shard `shard` (`"K/N"`, 1-based) of
/// a run of `total` games: the contiguous block `total*(K-1)//N ..
/// total*K//N` that `yolah … --shard K/N` plays.
#[pyfunction]
pub fn shard_range(shard: &str, total: u64) -> PyResult<(u64, u64)> {
    let r = parse_shard(shard)?.range(total);
    Ok((r.start, r.end))
}

/// A tournament's JSONL file, opened for appending as `yolah tournament
/// --out` opens it: created with its header if missing, resumed if it holds
/// games of the same tournament, refused if it records another.
///
/// A driver takes `todo()`, has the games played anywhere (`tournament_games`
/// plays any of them), and `append`s the lines as they come back.
#[pyclass(name = "TournamentFile", module = "yolah")]
pub struct PyTournamentFile {
    settings: Settings,
    store: Store,
    /// The games in the file (read at opening, then appended to).
    games: std::sync::Mutex<Games>,
}

/// The games of a file, and which (pair, game) they are.
#[derive(Default)]
struct Games {
    lines: Vec<GameLine>,
    seen: std::collections::HashSet<((usize, usize), u64)>,
}

#[pymethods]
impl PyTournamentFile {
    #[new]
    #[pyo3(signature = (path, players, games_per_pair, seed = 0, tc = None))]
    fn new(
        path: &str,
        players: Vec<String>,
        games_per_pair: u64,
        seed: u64,
        tc: Option<&str>,
    ) -> PyResult<PyTournamentFile> {
        let settings = settings(players, games_per_pair, seed, tc)?;
        let store = Store::open(path, &settings).map_err(lab_error)?;
        let games = std::sync::Mutex::new(Games {
            lines: store.games.clone(),
            seen: store.games.iter().map(|g| (g.pair, g.game)).collect(),
        });
        Ok(PyTournamentFile {
            settings,
            store,
            games,
        })
    }

    /// Things worth knowing about the file as it was opened (a half-written
    /// last line cut off, a game there twice).
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.store.warnings.clone()
    }

    /// The games of the tournament (or of shard `"K/N"` of it) not yet in
    /// the file, as `(pair_index, game)` in the order shards cut them.
    #[pyo3(signature = (shard = None))]
    fn todo(&self, shard: Option<&str>) -> PyResult<Vec<(usize, u64)>> {
        let shard = shard.map(parse_shard).transpose()?.unwrap_or(Shard::WHOLE);
        let pairs = rounds::pairs(self.settings.players.len());
        let games = self.lock();
        let mine = rounds::scheduled(&self.settings, shard.range(self.total()));
        Ok(mine
            .into_iter()
            .filter(|&(k, g)| !games.seen.contains(&(pairs[k], g)))
            .collect())
    }

    /// Appends game lines (dicts as `tournament_games` returns them) to the
    /// file, each flushed as one whole line; a game already there is skipped.
    /// Returns how many were added.
    fn append(&self, lines: &Bound<'_, PyList>) -> PyResult<usize> {
        let json = lines.py().import("json")?;
        let mut games = self.lock();
        let mut added = 0;
        for item in lines.iter() {
            let text: String = json.call_method1("dumps", (item,))?.extract()?;
            let line: GameLine = serde_json::from_str(&text)
                .map_err(|e| lab_error(format!("not a tournament game line: {e}")))?;
            let (a, b) = line.pair;
            let k = self.settings.players.len();
            if a >= b || b >= k || line.game >= self.settings.games_per_pair {
                return Err(lab_error(format!(
                    "game {:?}/{} is not in this tournament",
                    line.pair, line.game
                )));
            }
            if !games.seen.insert((line.pair, line.game)) {
                continue;
            }
            self.store.append(&line).map_err(lab_error)?;
            games.lines.push(line);
            added += 1;
        }
        Ok(added)
    }

    /// How many games the file holds, and how many the tournament has.
    fn progress(&self) -> (u64, u64) {
        (self.lock().lines.len() as u64, self.total())
    }

    /// The tournament so far, as `tournament()` returns it: `players`,
    /// `games` (sorted by pair and game) and `ratings` with `anchor` (an
    /// index or a spec) at 0.
    #[pyo3(signature = (anchor = PyAnchor::Index(0)))]
    fn result<'py>(&self, py: Python<'py>, anchor: PyAnchor) -> PyResult<Bound<'py, PyDict>> {
        let anchor = anchor.index(&self.settings)?;
        tournament_result(py, &self.settings, &self.sorted_games(), anchor)
    }

    /// The table `yolah tournament` prints of the games so far, with
    /// `anchor` (an index or a spec) at 0: text, or with `json` one JSON
    /// object (a line).
    #[pyo3(signature = (anchor = PyAnchor::Index(0), json = false))]
    fn table(&self, anchor: PyAnchor, json: bool) -> PyResult<String> {
        let anchor = anchor.index(&self.settings)?;
        let standings = Standings::new(&self.settings.players, &self.sorted_games(), anchor);
        Ok(if json {
            format!("{}\n", standings.to_json())
        } else {
            standings.text()
        })
    }

    fn __repr__(&self) -> String {
        let (done, total) = self.progress();
        format!(
            "TournamentFile({:?}, {done} of {total} games)",
            self.store_path()
        )
    }
}

impl PyTournamentFile {
    fn lock(&self) -> std::sync::MutexGuard<'_, Games> {
        self.games.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn total(&self) -> u64 {
        self.settings.total_games()
    }

    /// The games in the file, sorted by pair and game.
    fn sorted_games(&self) -> Vec<GameLine> {
        let mut games = self.lock().lines.clone();
        games.sort_by_key(|g| (g.pair, g.game));
        games
    }

    fn store_path(&self) -> String {
        self.store.path().to_string()
    }
}

/// The self-play run of `games` games of `player` seeded `seed` whose moves
/// stray with probability `explore` (checked as `--explore` is).
fn selfplay_run(player: &str, games: u64, seed: u64, explore: f64) -> PyResult<selfplay::Run> {
    check_probability(explore).map_err(|e| lab_error(format!("explore: {e}")))?;
    Ok(selfplay::Run::new(player, games, seed).exploring(explore))
}

/// Self-play of games `first .. end` of a run of `player` seeded `seed`
/// whose moves stray with probability `explore` (as `yolah selfplay
/// --explore`), on `threads` threads with the GIL released: their
/// positions as the 32-byte records of the training format (without its
/// 8-byte header), in game order.
#[pyfunction]
#[pyo3(signature = (player, first, end, seed = 0, threads = 1, explore = 0.0))]
pub fn selfplay_records<'py>(
    py: Python<'py>,
    player: &str,
    first: u64,
    end: u64,
    seed: u64,
    threads: usize,
    explore: f64,
) -> PyResult<Bound<'py, PyBytes>> {
    let threads = threads_in(threads, yolah_lab::MAX_RUN_THREADS as usize)?;
    // A run's count of games places its shards; it changes no game.
    let run = selfplay_run(player, end, seed, explore)?;
    let samples = py
        .detach(|| selfplay::selfplay_range(&run, first..end.max(first), threads, &|_| {}))
        .map_err(data_error)?;
    let bytes: Vec<u8> = samples.iter().flat_map(|s| s.to_bytes()).collect();
    Ok(PyBytes::new(py, &bytes))
}

/// Saves `records` (from `selfplay_records`) as shard `shard` (`"K/N"`) of
/// a self-play run of `games` games: the training file `path` and its
/// manifest `path + ".shard.json"`, as `yolah selfplay --shard` writes them.
/// Returns the number of positions.
#[pyfunction]
#[pyo3(signature = (path, player, games, seed, shard, records, explore = 0.0))]
pub fn save_selfplay_shard(
    path: &str,
    player: &str,
    games: u64,
    seed: u64,
    shard: &str,
    records: &[u8],
    explore: f64,
) -> PyResult<u64> {
    let run = selfplay_run(player, games, seed, explore)?;
    let shard = parse_shard(shard)?;
    if !records.len().is_multiple_of(RECORD_BYTES) {
        return Err(lab_error(format!(
            "{} bytes is not a whole number of {RECORD_BYTES}-byte records",
            records.len()
        )));
    }
    let samples = records
        .chunks_exact(RECORD_BYTES)
        .enumerate()
        .map(|(i, r)| {
            Sample::from_bytes(r).map_err(|e| lab_error(format!("record {}: {e}", i + 1)))
        })
        .collect::<PyResult<Vec<Sample>>>()?;
    let m = selfplay::save_shard(path, &run, shard, &samples).map_err(data_error)?;
    Ok(m.positions)
}

/// Whether `path` already holds shard `shard` of this self-play run, whole
/// (its manifest matches and the file has every record it counts).
#[pyfunction]
#[pyo3(signature = (path, player, games, seed, shard, explore = 0.0))]
pub fn selfplay_shard_done(
    path: &str,
    player: &str,
    games: u64,
    seed: u64,
    shard: &str,
    explore: f64,
) -> PyResult<bool> {
    let shard = parse_shard(shard)?;
    let run = selfplay_run(player, games, seed, explore)?;
    Ok(selfplay::finished_shard(path, &run, shard).is_some())
}

/// Joins self-play shards (training files with manifests, any order) into
/// `out` in game order, as `yolah merge` does: the bytes of one `yolah
/// selfplay` of the whole run. Returns `player`, `games`, `seed`,
/// `explore` and `positions`.
#[pyfunction]
pub fn merge_selfplay<'py>(
    py: Python<'py>,
    paths: Vec<String>,
    out: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let m = py
        .detach(|| selfplay::merge(&paths, out))
        .map_err(data_error)?;
    let d = PyDict::new(py);
    d.set_item("player", m.player)?;
    d.set_item("games", m.games)?;
    d.set_item("seed", m.seed)?;
    d.set_item("explore", m.explore)?;
    d.set_item("positions", m.positions)?;
    Ok(d)
}
