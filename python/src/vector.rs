//! `yolah.vector`'s engine: many games stepped at once in Rust, the GIL
//! released, the batch split over threads, every result written into NumPy
//! arrays allocated once (see `python/yolah/vector.py` for the Gymnasium
//! `VectorEnv` around it, and [`crate::encode`] for the array forms).
//!
//! A step plays one action in every game. The observation written for a
//! game is always from the point of view of the side to move after the
//! step (the two players share one policy, as in self-play); `to_play`
//! says which colour that is, `rewards` is the reward of the side that
//! just moved (+1 win, 0 draw, −1 loss, 0 until the end) and
//! `colour_rewards` the rewards of Black and White, `points` Black's and
//! White's points after the move (the final points when a game ends, even
//! if `same_step` starts the next one at once).
//!
//! The end of a game is handled as Gymnasium's autoreset modes say:
//! `next_step` (the step after the end starts a new game and ignores its
//! action), `same_step` (the new game starts at once, the final
//! observation is written into separate arrays and flagged), `disabled`
//! (a finished game must be reset by the caller).

use crate::encode::{Forms, Rows, PACKED_MASK_BYTES};
use crate::errors::{IllegalMoveError, YolahError};
use crate::game::PyPosition;
use numpy::{
    PyArray1, PyArray2, PyArray4, PyArrayMethods, PyReadonlyArray1, PyReadwriteArray1,
    PyReadwriteArray2, PyReadwriteArray4,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use yolah::playout::Playout;
use yolah::{Color, Move, Position, Rng, MAX_MOVES};
use yolah_players::az::encoding::{action_index, move_of_action, ACTIONS, PLANES, REACH_PLANES};

/// Games a thread takes at least: below this, starting a thread costs more
/// than it saves.
const MIN_GAMES_PER_THREAD: usize = 512;

/// What happens when a game ends (Gymnasium's `AutoresetMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Autoreset {
    /// The next step starts a new game and ignores its action.
    NextStep,
    /// The new game starts in the same step; the final observation is kept.
    SameStep,
    /// The caller resets finished games.
    Disabled,
}

impl Autoreset {
    fn parse(name: &str) -> PyResult<Autoreset> {
        match name {
            "next_step" => Ok(Autoreset::NextStep),
            "same_step" => Ok(Autoreset::SameStep),
            "disabled" => Ok(Autoreset::Disabled),
            other => Err(YolahError::new_err(format!(
                "autoreset mode {other:?} is not next_step, same_step or disabled"
            ))),
        }
    }
}

/// A game's position, with every piece's moves kept up to date while it
/// plays random moves.
#[derive(Clone, Debug)]
enum State {
    /// After a reset or a given action.
    Position(Position),
    /// While it plays random moves: a random move costs one lookup instead
    /// of four (the engine's own random games).
    Playout(Playout),
}

/// One game of the batch.
#[derive(Clone, Debug)]
pub struct Game {
    state: State,
    /// Draws `step_random`'s moves.
    rng: Rng,
    /// The game ended at the last step and has not been reset.
    ended: bool,
}

impl Game {
    fn new(rng: Rng) -> Game {
        Game {
            state: State::Position(Position::START),
            rng,
            ended: false,
        }
    }

    /// The position.
    pub fn pos(&self) -> &Position {
        match &self.state {
            State::Position(pos) => pos,
            State::Playout(playout) => playout.position(),
        }
    }

    /// Starts again from the start.
    fn restart(&mut self) {
        self.state = State::Position(Position::START);
        self.ended = false;
    }

    /// Plays `m`.
    fn play(&mut self, m: Move) {
        let mut next = *self.pos();
        next.play(m);
        self.state = State::Position(next);
    }

    /// Plays a uniformly random legal move (the game goes on) and returns it.
    fn play_random(&mut self) -> Move {
        if let State::Position(pos) = self.state {
            self.state = State::Playout(Playout::new(pos));
        }
        let State::Playout(playout) = &mut self.state else {
            unreachable!("a playout was just set")
        };
        playout
            .step(&mut self.rng)
            .expect("a game that goes on has a move or the pass")
    }
}

/// The arrays of one set of observations (the current ones, or the final
/// ones of `same_step`).
struct Arrays {
    planes: Option<Py<PyArray4<u8>>>,
    scores: Option<Py<PyArray2<u8>>>,
    reach: Option<Py<PyArray4<u8>>>,
    packed_mask: Option<Py<PyArray2<u8>>>,
    bool_mask: Option<Py<PyArray2<bool>>>,
    legal_actions: Option<Py<PyArray2<i16>>>,
    legal_count: Option<Py<PyArray1<u8>>>,
}

/// The borrows of [`Arrays`] for one call.
pub struct ArraysRw<'py> {
    planes: Option<PyReadwriteArray4<'py, u8>>,
    scores: Option<PyReadwriteArray2<'py, u8>>,
    reach: Option<PyReadwriteArray4<'py, u8>>,
    packed_mask: Option<PyReadwriteArray2<'py, u8>>,
    bool_mask: Option<PyReadwriteArray2<'py, bool>>,
    legal_actions: Option<PyReadwriteArray2<'py, i16>>,
    legal_count: Option<PyReadwriteArray1<'py, u8>>,
}

fn contiguous<T>(r: Result<T, numpy::AsSliceError>) -> PyResult<T> {
    r.map_err(|e| PyValueError::new_err(format!("an output array is not contiguous: {e}")))
}

fn borrow_error(e: numpy::BorrowError) -> PyErr {
    PyValueError::new_err(format!("an output array is in use elsewhere: {e}"))
}

macro_rules! rw {
    ($py:expr, $a:expr) => {
        $a.as_ref()
            .map(|a| a.bind($py).try_readwrite())
            .transpose()
            .map_err(borrow_error)?
    };
}

macro_rules! slice {
    ($a:expr) => {
        $a.as_mut()
            .map(|a| contiguous(a.as_slice_mut()))
            .transpose()?
    };
}

impl Arrays {
    fn new(py: Python<'_>, n: usize, forms: Forms) -> Arrays {
        let when = |on: bool| on.then_some(());
        Arrays {
            planes: when(forms.observation)
                .map(|_| PyArray4::zeros(py, [n, PLANES, 8, 8], false).unbind()),
            scores: when(forms.observation).map(|_| PyArray2::zeros(py, [n, 2], false).unbind()),
            reach: when(forms.reach)
                .map(|_| PyArray4::zeros(py, [n, REACH_PLANES, 8, 8], false).unbind()),
            packed_mask: when(forms.packed_mask)
                .map(|_| PyArray2::zeros(py, [n, PACKED_MASK_BYTES], false).unbind()),
            bool_mask: when(forms.bool_mask)
                .map(|_| PyArray2::zeros(py, [n, ACTIONS], false).unbind()),
            legal_actions: when(forms.legal_actions)
                .map(|_| PyArray2::zeros(py, [n, MAX_MOVES], false).unbind()),
            legal_count: when(forms.legal_actions)
                .map(|_| PyArray1::zeros(py, [n], false).unbind()),
        }
    }

    fn borrow<'py>(&self, py: Python<'py>) -> PyResult<ArraysRw<'py>> {
        Ok(ArraysRw {
            planes: rw!(py, self.planes),
            scores: rw!(py, self.scores),
            reach: rw!(py, self.reach),
            packed_mask: rw!(py, self.packed_mask),
            bool_mask: rw!(py, self.bool_mask),
            legal_actions: rw!(py, self.legal_actions),
            legal_count: rw!(py, self.legal_count),
        })
    }

    /// The arrays by their observation keys.
    fn dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let add = |key: &str, a: Option<Bound<'py, PyAny>>| match a {
            Some(a) => d.set_item(key, a),
            None => Ok(()),
        };
        add(
            "observation",
            self.planes.as_ref().map(|a| a.bind(py).clone().into_any()),
        )?;
        add(
            "scores",
            self.scores.as_ref().map(|a| a.bind(py).clone().into_any()),
        )?;
        add(
            "reach",
            self.reach.as_ref().map(|a| a.bind(py).clone().into_any()),
        )?;
        add(
            "action_mask",
            self.packed_mask
                .as_ref()
                .map(|a| a.bind(py).clone().into_any()),
        )?;
        add(
            "action_mask",
            self.bool_mask
                .as_ref()
                .map(|a| a.bind(py).clone().into_any()),
        )?;
        add(
            "legal_actions",
            self.legal_actions
                .as_ref()
                .map(|a| a.bind(py).clone().into_any()),
        )?;
        add(
            "legal_count",
            self.legal_count
                .as_ref()
                .map(|a| a.bind(py).clone().into_any()),
        )?;
        Ok(d)
    }
}

impl ArraysRw<'_> {
    /// Every row, as slices.
    pub fn rows(&mut self) -> PyResult<Rows<'_>> {
        Ok(Rows {
            planes: slice!(self.planes),
            scores: slice!(self.scores),
            reach: slice!(self.reach),
            packed_mask: slice!(self.packed_mask),
            bool_mask: slice!(self.bool_mask),
            legal_actions: slice!(self.legal_actions),
            legal_count: slice!(self.legal_count),
        })
    }
}

/// Everything one step writes, for a range of games.
struct StepRows<'a> {
    obs: Rows<'a>,
    finals: Option<Rows<'a>>,
    final_flags: Option<&'a mut [bool]>,
    rewards: &'a mut [f32],
    colour_rewards: &'a mut [f32],
    points: &'a mut [u8],
    terminated: &'a mut [bool],
    to_play: &'a mut [i8],
    played: &'a mut [i16],
}

impl<'a> StepRows<'a> {
    fn split_at(self, n: usize) -> (StepRows<'a>, StepRows<'a>) {
        let (obs, obs2) = self.obs.split_at(n);
        let (finals, finals2) = match self.finals {
            Some(f) => {
                let (a, b) = f.split_at(n);
                (Some(a), Some(b))
            }
            None => (None, None),
        };
        let (final_flags, final_flags2) = match self.final_flags {
            Some(f) => {
                let (a, b) = f.split_at_mut(n);
                (Some(a), Some(b))
            }
            None => (None, None),
        };
        let (rewards, rewards2) = self.rewards.split_at_mut(n);
        let (colour_rewards, colour_rewards2) = self.colour_rewards.split_at_mut(2 * n);
        let (points, points2) = self.points.split_at_mut(2 * n);
        let (terminated, terminated2) = self.terminated.split_at_mut(n);
        let (to_play, to_play2) = self.to_play.split_at_mut(n);
        let (played, played2) = self.played.split_at_mut(n);
        (
            StepRows {
                obs,
                finals,
                final_flags,
                rewards,
                colour_rewards,
                points,
                terminated,
                to_play,
                played,
            },
            StepRows {
                obs: obs2,
                finals: finals2,
                final_flags: final_flags2,
                rewards: rewards2,
                colour_rewards: colour_rewards2,
                points: points2,
                terminated: terminated2,
                to_play: to_play2,
                played: played2,
            },
        )
    }

    /// Clears row `i`'s step results (no reward, not terminated).
    #[inline]
    fn clear(&mut self, i: usize) {
        self.rewards[i] = 0.0;
        self.colour_rewards[2 * i..2 * i + 2].fill(0.0);
        self.terminated[i] = false;
        if let Some(flags) = self.final_flags.as_deref_mut() {
            flags[i] = false;
        }
    }

    /// Writes Black's and White's points in `pos` into row `i`.
    #[inline]
    fn score(&mut self, i: usize, pos: &Position) {
        self.points[2 * i] = pos.score(Color::Black);
        self.points[2 * i + 1] = pos.score(Color::White);
    }

    /// Writes the observation of `pos` into row `i`.
    #[inline]
    fn observe(&mut self, i: usize, pos: &Position) {
        self.obs.write(i, pos);
        self.to_play[i] = colour_index(pos.side_to_move());
    }
}

fn colour_index(c: Color) -> i8 {
    match c {
        Color::Black => 0,
        Color::White => 1,
    }
}

/// What a step does in each game.
#[derive(Clone, Copy)]
enum Step<'a> {
    /// Plays the given actions (checked beforehand).
    Actions(&'a [i64]),
    /// Plays a uniformly random legal move.
    Random,
    /// Starts the games (all, or those flagged) afresh.
    Reset(Option<&'a [bool]>),
}

/// One game's step, written into row `i` of `out`; whether the game
/// ended at this step. A finished game in `disabled` mode stays as it is.
#[inline]
fn step_game(
    game: &mut Game,
    i: usize,
    global: usize,
    step: Step<'_>,
    mode: Autoreset,
    out: &mut StepRows<'_>,
) -> bool {
    if game.ended && mode == Autoreset::Disabled && !matches!(step, Step::Reset(_)) {
        return false;
    }
    out.clear(i);
    out.played[i] = -1;
    let m = match step {
        Step::Reset(mask) => {
            if mask.is_none_or(|m| m[global]) {
                game.restart();
            }
            out.score(i, game.pos());
            out.observe(i, game.pos());
            return false;
        }
        _ if game.ended => {
            // next_step: this step starts the new game.
            game.restart();
            out.score(i, game.pos());
            out.observe(i, game.pos());
            return false;
        }
        Step::Actions(actions) => {
            let m = move_of_action(actions[global] as usize)
                .expect("actions are checked before the step");
            game.play(m);
            m
        }
        Step::Random => game.play_random(),
    };
    out.played[i] = action_index(m) as i16;
    let pos = *game.pos();
    // The side that moved: the one not to move now.
    let mover = pos.side_to_move().opponent();
    out.score(i, &pos);
    let over = pos.is_game_over();
    if over {
        let outcome = pos.outcome();
        out.rewards[i] = f32::from(outcome.sign(mover));
        out.colour_rewards[2 * i] = f32::from(outcome.sign(Color::Black));
        out.colour_rewards[2 * i + 1] = f32::from(outcome.sign(Color::White));
        out.terminated[i] = true;
        if mode == Autoreset::SameStep {
            if let Some(finals) = out.finals.as_mut() {
                finals.write(i, &pos);
            }
            if let Some(flags) = out.final_flags.as_deref_mut() {
                flags[i] = true;
            }
            game.restart();
        } else {
            game.ended = true;
        }
    }
    out.observe(i, game.pos());
    over
}

/// Games ended during a call, by result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Ended {
    black_wins: u64,
    white_wins: u64,
    draws: u64,
}

impl Ended {
    fn add(self, other: Ended) -> Ended {
        Ended {
            black_wins: self.black_wins + other.black_wins,
            white_wins: self.white_wins + other.white_wins,
            draws: self.draws + other.draws,
        }
    }

    /// Counts the end written in row `i`, if the game ended there.
    #[inline]
    fn count(&mut self, rows: &StepRows<'_>, i: usize) {
        if rows.terminated[i] {
            match rows.colour_rewards[2 * i] {
                r if r > 0.0 => self.black_wins += 1,
                r if r < 0.0 => self.white_wins += 1,
                _ => self.draws += 1,
            }
        }
    }
}

/// Runs `steps` steps of `step` over `games` on up to `threads` threads,
/// each on a contiguous range of games and rows. Games are independent:
/// each takes its `steps` steps in a row while its state is in cache, and
/// the rows hold the last step's results.
fn run_steps(
    threads: usize,
    games: &mut [Game],
    rows: StepRows<'_>,
    step: Step<'_>,
    steps: u64,
    mode: Autoreset,
) -> Ended {
    let chunk = games
        .len()
        .div_ceil(threads.max(1))
        .max(MIN_GAMES_PER_THREAD);
    let work = |games: &mut [Game], offset: usize, mut rows: StepRows<'_>| {
        let mut ended = Ended::default();
        for (i, game) in games.iter_mut().enumerate() {
            for _ in 0..steps {
                if step_game(game, i, offset + i, step, mode, &mut rows) {
                    ended.count(&rows, i);
                }
            }
        }
        ended
    };
    std::thread::scope(|s| {
        let (mut games, mut rows, mut offset) = (games, rows, 0);
        let mut helpers = Vec::new();
        while games.len() > chunk {
            let (here, rest) = games.split_at_mut(chunk);
            let (here_rows, rest_rows) = rows.split_at(chunk);
            let work = &work;
            helpers.push(s.spawn(move || work(here, offset, here_rows)));
            (games, rows, offset) = (rest, rest_rows, offset + chunk);
        }
        let own = work(games, offset, rows);
        helpers
            .into_iter()
            .map(|h| h.join().expect("a step does not panic"))
            .fold(own, Ended::add)
    })
}

/// Many Yolah games stepped together: the engine of `yolah.vector.VectorEnv`
/// (use that: it adds Gymnasium's spaces and conventions).
///
/// `VectorGames(num_envs, threads=1, autoreset_mode="next_step",
/// observation=True, action_mask="packed", legal_actions=False, seed=0,
/// reach=False)`;
/// `action_mask` is `"packed"`, `"bool"` or `None`. Every method writes into
/// the arrays of `arrays()`, allocated once: read or copy them before the
/// next call.
#[pyclass(name = "VectorGames", module = "yolah")]
pub struct VectorGames {
    games: Vec<Game>,
    threads: usize,
    autoreset: Autoreset,
    obs: Arrays,
    finals: Option<Arrays>,
    final_flags: Option<Py<PyArray1<bool>>>,
    rewards: Py<PyArray1<f32>>,
    colour_rewards: Py<PyArray2<f32>>,
    points: Py<PyArray2<u8>>,
    terminated: Py<PyArray1<bool>>,
    truncated: Py<PyArray1<bool>>,
    to_play: Py<PyArray1<i8>>,
    played: Py<PyArray1<i16>>,
}

impl VectorGames {
    /// The games' positions.
    pub fn game_positions(&self) -> impl Iterator<Item = &Position> {
        self.games.iter().map(|g| g.pos())
    }

    /// Checks every action before any game moves, so that a bad one leaves
    /// every game as it was.
    fn check_actions(&self, actions: &[i64]) -> PyResult<()> {
        if actions.len() != self.games.len() {
            return Err(YolahError::new_err(format!(
                "{} actions for {} games",
                actions.len(),
                self.games.len()
            )));
        }
        for (i, (game, &a)) in self.games.iter().zip(actions).enumerate() {
            if game.ended {
                if self.autoreset == Autoreset::Disabled {
                    return Err(IllegalMoveError::new_err(format!(
                        "env {i}: the game is over; reset it (reset(options={{'reset_mask': …}}))"
                    )));
                }
                continue;
            }
            let m = usize::try_from(a)
                .ok()
                .filter(|&a| a < ACTIONS)
                .and_then(move_of_action)
                .ok_or_else(|| {
                    IllegalMoveError::new_err(format!(
                        "env {i}: action {a} is not a move (0 to 4095, from * 64 + to)"
                    ))
                })?;
            if let Err(e) = game.pos().check_move(m) {
                return Err(IllegalMoveError::new_err(format!(
                    "env {i}: action {a} ({m}) is illegal: {e}"
                )));
            }
        }
        Ok(())
    }

    fn run(&mut self, py: Python<'_>, step: Step<'_>, steps: u64) -> PyResult<Ended> {
        let mut obs = self.obs.borrow(py)?;
        let mut finals = self.finals.as_ref().map(|f| f.borrow(py)).transpose()?;
        let mut final_flags = rw!(py, self.final_flags);
        let mut rewards = self
            .rewards
            .bind(py)
            .try_readwrite()
            .map_err(borrow_error)?;
        let mut colour_rewards = self
            .colour_rewards
            .bind(py)
            .try_readwrite()
            .map_err(borrow_error)?;
        let mut points = self.points.bind(py).try_readwrite().map_err(borrow_error)?;
        let mut terminated = self
            .terminated
            .bind(py)
            .try_readwrite()
            .map_err(borrow_error)?;
        let mut to_play = self
            .to_play
            .bind(py)
            .try_readwrite()
            .map_err(borrow_error)?;
        let mut played = self.played.bind(py).try_readwrite().map_err(borrow_error)?;
        let rows = StepRows {
            obs: obs.rows()?,
            finals: finals.as_mut().map(|f| f.rows()).transpose()?,
            final_flags: slice!(final_flags),
            rewards: contiguous(rewards.as_slice_mut())?,
            colour_rewards: contiguous(colour_rewards.as_slice_mut())?,
            points: contiguous(points.as_slice_mut())?,
            terminated: contiguous(terminated.as_slice_mut())?,
            to_play: contiguous(to_play.as_slice_mut())?,
            played: contiguous(played.as_slice_mut())?,
        };
        let (threads, mode, games) = (self.threads, self.autoreset, &mut self.games);
        Ok(py.detach(|| run_steps(threads, games, rows, step, steps, mode)))
    }
}

#[pymethods]
impl VectorGames {
    #[new]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (num_envs, threads = 1, autoreset_mode = "next_step", observation = true, action_mask = Some("packed"), legal_actions = false, seed = 0, reach = false))]
    fn new(
        py: Python<'_>,
        num_envs: usize,
        threads: usize,
        autoreset_mode: &str,
        observation: bool,
        action_mask: Option<&str>,
        legal_actions: bool,
        seed: u64,
        reach: bool,
    ) -> PyResult<VectorGames> {
        if num_envs == 0 || num_envs > 1 << 24 {
            return Err(YolahError::new_err(format!(
                "num_envs={num_envs}: give from 1 to {} games",
                1 << 24
            )));
        }
        let (packed_mask, bool_mask) = match action_mask {
            Some("packed") => (true, false),
            Some("bool") => (false, true),
            None => (false, false),
            Some(other) => {
                return Err(YolahError::new_err(format!(
                    "action_mask={other:?} is not \"packed\", \"bool\" or None"
                )))
            }
        };
        let autoreset = Autoreset::parse(autoreset_mode)?;
        let forms = Forms {
            observation,
            reach,
            packed_mask,
            bool_mask,
            legal_actions,
        };
        let same_step = autoreset == Autoreset::SameStep;
        let games = (0..num_envs)
            .map(|i| Game::new(Rng::for_game(seed, i as u64)))
            .collect();
        Ok(VectorGames {
            games,
            threads: threads.clamp(1, yolah_players::MAX_THREADS),
            autoreset,
            obs: Arrays::new(py, num_envs, forms),
            finals: same_step.then(|| Arrays::new(py, num_envs, forms)),
            final_flags: same_step.then(|| PyArray1::zeros(py, [num_envs], false).unbind()),
            rewards: PyArray1::zeros(py, [num_envs], false).unbind(),
            colour_rewards: PyArray2::zeros(py, [num_envs, 2], false).unbind(),
            points: PyArray2::zeros(py, [num_envs, 2], false).unbind(),
            terminated: PyArray1::zeros(py, [num_envs], false).unbind(),
            truncated: PyArray1::zeros(py, [num_envs], false).unbind(),
            to_play: PyArray1::zeros(py, [num_envs], false).unbind(),
            played: PyArray1::zeros(py, [num_envs], false).unbind(),
        })
    }

    /// The number of games.
    #[getter]
    fn num_envs(&self) -> usize {
        self.games.len()
    }

    /// The threads a step may use.
    #[getter]
    fn threads(&self) -> usize {
        self.threads
    }

    /// The output arrays, by name: `obs` (a dict of the observation's
    /// arrays), `final_obs` (the same, `same_step` only), `final_flags`,
    /// `rewards`, `colour_rewards`, `points`, `terminated`, `truncated`, `to_play`
    /// and `actions` (the actions played, -1 where a game was reset).
    fn arrays<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("obs", self.obs.dict(py)?)?;
        if let Some(finals) = &self.finals {
            d.set_item("final_obs", finals.dict(py)?)?;
        }
        d.set_item("final_flags", &self.final_flags)?;
        d.set_item("rewards", &self.rewards)?;
        d.set_item("colour_rewards", &self.colour_rewards)?;
        d.set_item("points", &self.points)?;
        d.set_item("terminated", &self.terminated)?;
        d.set_item("truncated", &self.truncated)?;
        d.set_item("to_play", &self.to_play)?;
        d.set_item("actions", &self.played)?;
        Ok(d)
    }

    /// Starts every game (or those where `mask` is true) from the start
    /// position. With `seed`, the reset games' generators (for
    /// `step_random`) restart from it: game `i` draws from `(seed, i)`.
    #[pyo3(signature = (seed = None, mask = None))]
    fn reset(
        &mut self,
        py: Python<'_>,
        seed: Option<u64>,
        mask: Option<PyReadonlyArray1<'_, bool>>,
    ) -> PyResult<()> {
        let mask = mask
            .as_ref()
            .map(|m| m.as_slice())
            .transpose()
            .map_err(|e| {
                PyValueError::new_err(format!("reset_mask is not a contiguous bool array: {e}"))
            })?;
        if let Some(m) = mask {
            if m.len() != self.games.len() {
                return Err(YolahError::new_err(format!(
                    "reset_mask has {} entries for {} games",
                    m.len(),
                    self.games.len()
                )));
            }
        }
        if let Some(seed) = seed {
            for (i, game) in self.games.iter_mut().enumerate() {
                if mask.is_none_or(|m| m[i]) {
                    game.rng = Rng::for_game(seed, i as u64);
                }
            }
        }
        self.run(py, Step::Reset(mask), 1).map(|_| ())
    }

    /// Plays `actions[i]` in game `i` (an int64 array, one action a game).
    /// Every action is checked first: an illegal one raises
    /// `IllegalMoveError` naming the game, and no game moves.
    fn step(&mut self, py: Python<'_>, actions: PyReadonlyArray1<'_, i64>) -> PyResult<()> {
        let actions = actions.as_slice().map_err(|e| {
            PyValueError::new_err(format!("actions are not a contiguous int64 array: {e}"))
        })?;
        self.check_actions(actions)?;
        self.run(py, Step::Actions(actions), 1).map(|_| ())
    }

    /// Plays a uniformly random legal move in every game, drawn in Rust
    /// from each game's own generator; `arrays()["actions"]` has them.
    fn step_random(&mut self, py: Python<'_>) -> PyResult<()> {
        self.rollout(py, 1).map(|_| ())
    }

    /// Plays `steps` uniformly random steps in every game without coming
    /// back to Python, each game its steps in a row (the same as `steps`
    /// calls of `step_random`, faster): the arrays hold the last step's
    /// results. Returns the games that ended meanwhile, as a dict of
    /// `black_wins`, `white_wins` and `draws`. In `disabled` mode a game
    /// stops at its end and the call raises if one had ended before.
    fn rollout<'py>(&mut self, py: Python<'py>, steps: u64) -> PyResult<Bound<'py, PyDict>> {
        if self.autoreset == Autoreset::Disabled {
            if let Some(i) = self.games.iter().position(|g| g.ended) {
                return Err(IllegalMoveError::new_err(format!(
                    "env {i}: the game is over; reset it (reset(options={{'reset_mask': …}}))"
                )));
            }
        }
        let ended = self.run(py, Step::Random, steps)?;
        let d = PyDict::new(py);
        d.set_item("black_wins", ended.black_wins)?;
        d.set_item("white_wins", ended.white_wins)?;
        d.set_item("draws", ended.draws)?;
        Ok(d)
    }

    /// The games' positions (copies).
    fn positions(&self) -> Vec<PyPosition> {
        self.games.iter().map(|g| PyPosition(*g.pos())).collect()
    }

    /// Whether each game ended at the last step and awaits its reset
    /// (`next_step` and `disabled`).
    fn ended(&self) -> Vec<bool> {
        self.games.iter().map(|g| g.ended).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn autoreset_names() {
        assert_eq!(
            Autoreset::parse("same_step").ok(),
            Some(Autoreset::SameStep)
        );
        assert!(Autoreset::parse("SameStep").is_err());
    }

    #[test]
    fn a_random_step_never_plays_into_a_finished_game() {
        let mut game = Game::new(Rng::new(1));
        let (mut rewards, mut colour, mut term, mut to_play, mut played) =
            ([0f32; 1], [0f32; 2], [false; 1], [0i8; 1], [0i16; 1]);
        let mut points = [0u8; 2];
        let mut ends = 0;
        for _ in 0..500 {
            let mut rows = StepRows {
                obs: Rows::default(),
                finals: None,
                final_flags: None,
                rewards: &mut rewards,
                colour_rewards: &mut colour,
                points: &mut points,
                terminated: &mut term,
                to_play: &mut to_play,
                played: &mut played,
            };
            let before = *game.pos();
            let over = step_game(
                &mut game,
                0,
                0,
                Step::Random,
                Autoreset::NextStep,
                &mut rows,
            );
            assert_eq!(over, term[0]);
            if before.is_game_over() {
                assert_eq!((*game.pos(), played[0]), (Position::START, -1));
            }
            if term[0] {
                ends += 1;
                assert_eq!(colour[0], -colour[1]);
                assert!(game.pos().is_game_over());
            }
        }
        assert!(ends > 3);
    }
}
