//! Players from specs, matches and tournaments, for Python. Every search,
//! match and tournament runs with the GIL released.

use crate::errors::{spec_error, threads_in, IllegalMoveError, YolahError};
use crate::game::PyPosition;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::sync::{Mutex, PoisonError};
use yolah::Position;
use yolah_lab::games::{run_match, GameError, Match, MatchSummary, TimeControl};
use yolah_lab::standings::Standings;
use yolah_lab::tournament::{self as rounds, Anchor, GameLine, Settings, SettingsError, Store};
use yolah_players::{from_spec, Player, Score};

pub(crate) fn lab_error(e: impl std::fmt::Display) -> PyErr {
    YolahError::new_err(e.to_string())
}

/// A computer player made from a spec such as `"nn:time=100ms"`,
/// `"mcts:iterations=20000,seed=3"` or `"alphabeta:depth=6,threads=2"`
/// (the specs of the `yolah` command; docs/players.md lists every player
/// and key).
///
/// >>> p = Player("alphabeta:depth=3")
/// >>> p.choose_move(Position())
/// Move('…')
#[pyclass(name = "Player", module = "yolah")]
pub struct PyPlayer {
    /// Python may share the object between threads; one search at a time.
    player: Mutex<Box<dyn Player>>,
}

impl PyPlayer {
    fn lock(&self) -> std::sync::MutexGuard<'_, Box<dyn Player>> {
        self.player.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Searches `pos` with `search` after readying the player (an
    /// alpha-beta player's table is faulted in, an engine's program
    /// started; nothing after the first call), so that the first search
    /// gets its whole budget; with the GIL released.
    fn ready_then<T: Send>(
        &self,
        py: Python<'_>,
        search: impl FnOnce(&mut dyn Player) -> T + Send,
    ) -> PyResult<T> {
        py.detach(|| {
            let mut player = self.lock();
            player.start().map_err(|e| e.not_ready())?;
            Ok(search(player.as_mut()))
        })
        .map_err(|e: String| YolahError::new_err(e))
    }
}

#[pymethods]
impl PyPlayer {
    /// Makes the player of `spec`; raises `SpecError` for a bad spec.
    #[new]
    fn new(spec: &str) -> PyResult<PyPlayer> {
        Ok(PyPlayer {
            player: Mutex::new(from_spec(spec).map_err(spec_error)?),
        })
    }

    /// The spec the player was made from.
    #[getter]
    fn spec(&self) -> String {
        self.lock().spec().to_string()
    }

    /// The move the player makes in `position` (raises `IllegalMoveError`
    /// once the game is over, `YolahError` for a player that cannot start,
    /// such as an engine whose program does not run). An engine that breaks
    /// the protocol during a search does not raise: the position's first
    /// legal move is returned (and its analysis has no score).
    fn choose_move(&self, py: Python<'_>, position: &PyPosition) -> PyResult<crate::PyMove> {
        let pos = checked(position)?;
        Ok(crate::PyMove(self.ready_then(py, |p| p.choose_move(&pos))?))
    }

    /// Searches `position` and returns a dict: `best_move`, `score` (a
    /// number, or `None` for a player with no opinion), `score_unit`
    /// (`"centipoints"`: 100 per point of final margin; `"win_rate"`: 0 to
    /// 1; `"none"`), `depth`, `iterations`, `nodes`, `seconds`, `pv`.
    /// Raises as `choose_move` does.
    fn analyse<'py>(&self, py: Python<'py>, position: &PyPosition) -> PyResult<Bound<'py, PyDict>> {
        let pos = checked(position)?;
        let a = self.ready_then(py, |p| p.analyse(&pos))?;
        let d = PyDict::new(py);
        d.set_item("best_move", a.best_move.to_string())?;
        match a.score {
            Score::Centipoints(c) => d.set_item("score", c)?,
            Score::WinRate(p) => d.set_item("score", p)?,
            Score::Unknown => d.set_item("score", py.None())?,
        }
        d.set_item("score_unit", a.score.unit())?;
        d.set_item("depth", a.depth)?;
        d.set_item("iterations", a.iterations)?;
        d.set_item("nodes", a.nodes)?;
        d.set_item("seconds", a.seconds)?;
        let pv: Vec<String> = a.pv.iter().map(|m| m.to_string()).collect();
        d.set_item("pv", pv)?;
        Ok(d)
    }

    /// Forgets what the player learnt in the last game (tables, trees).
    fn new_game(&self) {
        self.lock().new_game();
    }

    fn __repr__(&self) -> String {
        format!("Player('{}')", self.lock().spec())
    }
}

/// A position that still has a move to make.
fn checked(position: &PyPosition) -> PyResult<Position> {
    if position.0.is_game_over() {
        return Err(IllegalMoveError::new_err(
            "the game is over: there is no move to choose",
        ));
    }
    Ok(position.0)
}

fn time_control(tc: Option<&str>) -> PyResult<Option<TimeControl>> {
    tc.map(TimeControl::parse).transpose().map_err(lab_error)
}

/// Plays `games` games between the players of specs `a` and `b`, as `yolah
/// match` does (colours alternate, each pair of games from the same random
/// opening, game `i` seeded by `(seed, i)`), on `threads` threads with the
/// GIL released. Returns a dict: `games`, `a_wins`, `b_wins`, `draws`,
/// `a_points`, `elo_diff`, `elo_ci95`, `elo_low95` and `elo_high95` (the
/// 95% interval's ends, infinite where a sweep leaves none; `elo_ci95` is
/// then infinite too), `a_forfeits`, `b_forfeits` and
/// `records`, one game record (`moves`, `a_is_black`, `result`, scores)
/// per game.
#[pyfunction]
#[pyo3(signature = (a, b, games, seed = 0, threads = 1, tc = None))]
pub fn play_match<'py>(
    py: Python<'py>,
    a: &str,
    b: &str,
    games: u64,
    seed: u64,
    threads: usize,
    tc: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    from_spec(a).map_err(spec_error)?;
    from_spec(b).map_err(spec_error)?;
    if games == 0 {
        // As `yolah match --games 0` refuses it: no games, no result.
        return Err(YolahError::new_err(
            "games=0: a match needs at least one game",
        ));
    }
    let tc = time_control(tc)?;
    let threads = threads_in(threads, yolah_lab::MAX_RUN_THREADS as usize)?;
    let played = py
        .detach(|| {
            let mut m = Match::new(a, b, games, seed);
            m.tc = tc;
            run_match(&m, threads, &|_| {})
        })
        .map_err(|e| match e {
            GameError::Spec(e) => spec_error(e),
            GameError::Start(e) => lab_error(e),
        })?;
    let points: Vec<f64> = played.iter().map(|g| g.a_points).collect();
    let summary: MatchSummary = MatchSummary::from_points(&points);
    let d = PyDict::new(py);
    d.set_item("games", summary.games)?;
    d.set_item("a_wins", summary.a_wins)?;
    d.set_item("b_wins", summary.b_wins)?;
    d.set_item("draws", summary.draws)?;
    d.set_item("a_points", summary.a_points)?;
    d.set_item("elo_diff", summary.elo_diff)?;
    d.set_item("elo_ci95", summary.elo_ci95)?;
    d.set_item("elo_low95", summary.elo_low95)?;
    d.set_item("elo_high95", summary.elo_high95)?;
    let forfeits = |a_side: bool| {
        played
            .iter()
            .filter(|g| {
                g.forfeit
                    .as_ref()
                    .is_some_and(|(c, _)| (*c == yolah::Color::Black) == (g.a_is_black == a_side))
            })
            .count()
    };
    d.set_item("a_forfeits", forfeits(true))?;
    d.set_item("b_forfeits", forfeits(false))?;
    let records = PyList::empty(py);
    for g in &played {
        let r = PyDict::new(py);
        let moves: Vec<String> = g.moves.iter().map(|m| m.to_string()).collect();
        r.set_item("moves", moves)?;
        r.set_item("opening_plies", g.opening_plies)?;
        r.set_item("a_is_black", g.a_is_black)?;
        r.set_item("result", g.result)?;
        r.set_item("black_score", g.scores.0)?;
        r.set_item("white_score", g.scores.1)?;
        r.set_item("a_points", g.a_points)?;
        r.set_item("forfeit", g.forfeit.as_ref().map(|(_, why)| why.clone()))?;
        records.append(r)?;
    }
    d.set_item("records", records)?;
    Ok(d)
}

/// The exception of settings that make no tournament: `SpecError` for a
/// player spec, `YolahError` for the rest.
pub(crate) fn settings_error(e: SettingsError) -> PyErr {
    match e {
        SettingsError::Spec(e) => spec_error(e),
        e => lab_error(e),
    }
}

/// A tournament's settings, checked by the lab as the command checks them.
pub(crate) fn settings(
    players: Vec<String>,
    games_per_pair: u64,
    seed: u64,
    tc: Option<&str>,
) -> PyResult<Settings> {
    Settings::new(players, games_per_pair, seed, tc.map(str::to_string)).map_err(settings_error)
}

/// The player rated 0: its index, or its spec.
#[derive(FromPyObject)]
pub(crate) enum PyAnchor {
    /// The player at this index.
    Index(usize),
    /// The player of this spec.
    Spec(String),
}

impl PyAnchor {
    /// The anchor's index among the players of `settings`.
    pub(crate) fn index(self, settings: &Settings) -> PyResult<usize> {
        let anchor = match self {
            PyAnchor::Index(i) => Anchor::Index(i),
            PyAnchor::Spec(spec) => Anchor::Named(spec),
        };
        settings.anchor(&anchor).map_err(settings_error)
    }
}

/// A game line as the dict `json.loads` makes of its JSONL line.
pub(crate) fn line_to_dict<'py>(py: Python<'py>, line: &GameLine) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(line).map_err(lab_error)?;
    py.import("json")?.call_method1("loads", (text,))
}

/// Plays a round robin as `yolah tournament` does and returns a dict:
/// `players`, `games` (one dict per game, the lines of the JSONL file) and
/// `ratings` (per player: `elo` with `anchor` — an index or a spec — at 0,
/// `ci95`, `games`, `points`). With `out`, games are appended to that
/// JSONL file as they end and a rerun resumes it, exactly like the
/// command's `--out`.
#[pyfunction]
#[pyo3(signature = (players, games_per_pair, seed = 0, threads = 1, out = None, tc = None, anchor = PyAnchor::Index(0)))]
#[allow(clippy::too_many_arguments)]
pub fn tournament<'py>(
    py: Python<'py>,
    players: Vec<String>,
    games_per_pair: u64,
    seed: u64,
    threads: usize,
    out: Option<&str>,
    tc: Option<&str>,
    anchor: PyAnchor,
) -> PyResult<Bound<'py, PyDict>> {
    let settings = settings(players, games_per_pair, seed, tc)?;
    let anchor = anchor.index(&settings)?;
    let threads = threads_in(threads, yolah_lab::MAX_RUN_THREADS as usize)?;
    let games = py.detach(|| -> Result<Vec<GameLine>, String> {
        match out {
            Some(path) => {
                let store = Store::open(path, &settings).map_err(|e| e.to_string())?;
                rounds::run(
                    &settings,
                    &store,
                    yolah_lab::shard::Shard::WHOLE,
                    threads,
                    &|_, _| {},
                )
                .map_err(|e| e.to_string())
            }
            None => {
                let todo = all_games(&settings);
                play_games(&settings, &todo, threads)
            }
        }
    });
    let games = games.map_err(YolahError::new_err)?;
    tournament_result(py, &settings, &games, anchor)
}

/// The dict `tournament` returns: `players`, `games` (line dicts) and
/// `ratings` with player `anchor` (an index checked by the caller) at 0.
pub(crate) fn tournament_result<'py>(
    py: Python<'py>,
    settings: &Settings,
    games: &[GameLine],
    anchor: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let ratings = Standings::new(&settings.players, games, anchor).ratings;
    let d = PyDict::new(py);
    d.set_item("players", settings.players.clone())?;
    let lines = PyList::empty(py);
    for g in games {
        lines.append(line_to_dict(py, g)?)?;
    }
    d.set_item("games", lines)?;
    let rated = PyList::empty(py);
    for (spec, r) in settings.players.iter().zip(&ratings) {
        let e = PyDict::new(py);
        e.set_item("player", spec)?;
        e.set_item("elo", r.elo)?;
        e.set_item("ci95", r.ci95)?;
        e.set_item("games", r.games)?;
        e.set_item("points", r.points)?;
        rated.append(e)?;
    }
    d.set_item("ratings", rated)?;
    Ok(d)
}

/// Every (pair index, game) of a tournament, in the command's order.
fn all_games(settings: &Settings) -> Vec<(usize, u64)> {
    let pairs = rounds::pairs(settings.players.len()).len();
    (0..pairs)
        .flat_map(|k| (0..settings.games_per_pair).map(move |g| (k, g)))
        .collect()
}

/// Plays `todo` in memory (nothing stored).
fn play_games(
    settings: &Settings,
    todo: &[(usize, u64)],
    threads: usize,
) -> Result<Vec<GameLine>, String> {
    rounds::play_games(settings, todo, threads, &|_| Ok(()), &|_| {}).map_err(|e| e.to_string())
}

/// Plays chosen games of a tournament: `games` is a list of `(pair_index,
/// game)` (pairs numbered as the command numbers them: (0,1), (0,2), …,
/// (1,2), …). Game results depend only on the settings and the indices,
/// so any split of a tournament's games over processes or machines gives
/// the same lines as one `yolah tournament` run. Returns the line dicts in
/// the order asked.
#[pyfunction]
#[pyo3(signature = (players, games_per_pair, games, seed = 0, threads = 1, tc = None))]
pub fn tournament_games<'py>(
    py: Python<'py>,
    players: Vec<String>,
    games_per_pair: u64,
    games: Vec<(usize, u64)>,
    seed: u64,
    threads: usize,
    tc: Option<&str>,
) -> PyResult<Bound<'py, PyList>> {
    let settings = settings(players, games_per_pair, seed, tc)?;
    let threads = threads_in(threads, yolah_lab::MAX_RUN_THREADS as usize)?;
    let lines = py
        .detach(|| play_games(&settings, &games, threads))
        .map_err(YolahError::new_err)?;
    let list = PyList::empty(py);
    for g in &lines {
        list.append(line_to_dict(py, g)?)?;
    }
    Ok(list)
}
