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

use crate::encode::Forms;
use crate::errors::{threads_in, IllegalMoveError, YolahError};
use crate::game::PyPosition;
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use yolah::playout::Playout;
use yolah::{Move, Position, Rng};
use yolah_players::az::encoding::{move_of_action, ACTIONS};

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

mod arrays;
mod step;

use arrays::{Arrays, StepRows};
use step::{run_steps, Ended, Step};

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
            threads: threads_in(threads, yolah_players::MAX_THREADS)?,
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
    use super::step::step_game;
    use super::*;
    use crate::encode::Rows;

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
