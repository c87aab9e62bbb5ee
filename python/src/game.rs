//! `Move` and `Position` for Python.

use crate::errors::{
    record_error, IllegalMoveError, MoveParseError, PositionParseError, YolahError,
};
use crate::observe::{action_of, move_of_action};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use yolah::record::GameRecord;
use yolah::{Color, Move, Position};

/// A move, `from:to` (`d5:b7`); the pass is `a1:a1`.
///
/// As an action index it is `from * 64 + to` (squares from a1 = 0 to
/// h8 = 63), so the pass is action 0 and every action below 4096.
#[pyclass(name = "Move", module = "yolah", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PyMove(pub Move);

#[pymethods]
impl PyMove {
    /// Parses `from:to`, such as `"d5:b7"`.
    #[new]
    fn new(text: &str) -> PyResult<PyMove> {
        parse_move(text).map(PyMove)
    }

    /// The pass, `a1:a1`.
    #[staticmethod]
    fn pass_() -> PyMove {
        PyMove(Move::PASS)
    }

    /// The move of an action index (`from * 64 + to`).
    #[staticmethod]
    fn from_action(action: i64) -> PyResult<PyMove> {
        let bits = u16::try_from(action)
            .ok()
            .filter(|&a| a < 4096)
            .ok_or_else(|| {
                MoveParseError::new_err(format!("action {action} is not from 0 to 4095"))
            })?;
        move_of_action(bits)
            .map(PyMove)
            .ok_or_else(|| MoveParseError::new_err(format!("action {action} is not a move")))
    }

    /// The action index, `from * 64 + to`.
    #[getter]
    fn action(&self) -> u16 {
        action_of(self.0)
    }

    /// The square the piece leaves, as a name (`"d5"`).
    #[getter(from_square)]
    fn origin(&self) -> String {
        self.0.from().to_string()
    }

    /// The square the piece lands on, as a name (`"b7"`).
    #[getter(to_square)]
    fn destination(&self) -> String {
        self.0.to().to_string()
    }

    /// Whether this is the pass (`a1:a1`).
    #[getter]
    fn is_pass(&self) -> bool {
        self.0.is_pass()
    }

    fn __str__(&self) -> String {
        self.0.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Move('{}')", self.0)
    }
}

fn parse_move(text: &str) -> PyResult<Move> {
    text.trim()
        .parse::<Move>()
        .map_err(|e| MoveParseError::new_err(e.to_string()))
}

/// A move given as a `Move` or as text.
pub fn extract_move(obj: &Bound<'_, PyAny>) -> PyResult<Move> {
    if let Ok(m) = obj.cast::<PyMove>() {
        return Ok(m.get().0);
    }
    if let Ok(text) = obj.extract::<String>() {
        return parse_move(&text);
    }
    Err(PyTypeError::new_err(
        "a move is a yolah.Move or a string such as 'd5:b7'",
    ))
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

fn parse_color(name: &str) -> PyResult<Color> {
    match name {
        "black" => Ok(Color::Black),
        "white" => Ok(Color::White),
        other => Err(YolahError::new_err(format!(
            "{other:?} is not a colour (black or white)"
        ))),
    }
}

/// A Yolah position: pieces, holes, scores and the side to move.
///
/// `Position()` is the start (Black on a1 e4 d5 h8, White on h1 d4 e5 a8,
/// Black to move); `Position(text)` reads the position text that
/// `to_text()` writes. Moves are `Move`s or strings such as `"d5:b7"`.
///
/// >>> pos = Position()
/// >>> len(pos.legal_moves())
/// 56
/// >>> pos.play("d5:b7"); pos.black_score
/// 1
#[pyclass(name = "Position", module = "yolah", eq)]
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PyPosition(pub Position);

#[pymethods]
impl PyPosition {
    /// The start, or the position of `text` (as `to_text()` writes it).
    #[new]
    #[pyo3(signature = (text = None))]
    fn new(text: Option<&str>) -> PyResult<PyPosition> {
        match text {
            None => Ok(PyPosition(Position::START)),
            Some(t) => t
                .trim()
                .parse::<Position>()
                .map(PyPosition)
                .map_err(|e| PositionParseError::new_err(format!("{t:?}: {e}"))),
        }
    }

    /// The position text: the board from a8 to h1 (`b` Black, `w` White,
    /// `x` hole, digits for empty squares), the side to move, then Black's
    /// and White's scores and the ply.
    #[pyo3(name = "to_text")]
    fn text(&self) -> String {
        self.0.to_text()
    }

    /// The legal moves; a side with no move has the pass alone; a finished
    /// game has none.
    fn legal_moves(&self) -> Vec<PyMove> {
        if self.0.is_game_over() {
            return Vec::new();
        }
        self.0.legal_moves().iter().map(|&m| PyMove(m)).collect()
    }

    /// Plays a move after checking it; raises `IllegalMoveError` (and
    /// leaves the position as it was) when the rules refuse it.
    fn play(&mut self, m: &Bound<'_, PyAny>) -> PyResult<()> {
        let m = extract_move(m)?;
        if self.0.is_game_over() {
            return Err(IllegalMoveError::new_err(format!("{m}: the game is over")));
        }
        self.0
            .try_play(m)
            .map_err(|e| IllegalMoveError::new_err(format!("{m}: {e}")))
    }

    /// Takes back `m`, the last move played (the position does not keep a
    /// history: give the move).
    fn undo(&mut self, m: &Bound<'_, PyAny>) -> PyResult<()> {
        let m = extract_move(m)?;
        let wrong =
            || IllegalMoveError::new_err(format!("{m} is not the move that led to this position"));
        let pos = self.0;
        // The engine's undo trusts its move: look first that it can be the
        // last one (a piece of the side that moved on its target, a hole
        // where it came from, a point to take back)...
        let mover = pos.side_to_move().opponent();
        let plausible = pos.ply() > 0
            && (m.is_pass()
                || (pos.pieces(mover).contains(m.to())
                    && pos.holes().contains(m.from())
                    && pos.score(mover) > 0));
        if !plausible {
            return Err(wrong());
        }
        // ...then that playing it again gives this position.
        let mut before = pos;
        before.undo(m);
        let mut again = before;
        if again.try_play(m).is_err() || again != pos {
            return Err(wrong());
        }
        self.0 = before;
        Ok(())
    }

    /// Whether neither side can move.
    fn is_game_over(&self) -> bool {
        self.0.is_game_over()
    }

    /// The side to move, `"black"` or `"white"`.
    #[getter]
    fn side_to_move(&self) -> &'static str {
        color_name(self.0.side_to_move())
    }

    /// Plies played from the start, passes included.
    #[getter]
    fn ply(&self) -> u16 {
        self.0.ply()
    }

    /// Black's points.
    #[getter]
    fn black_score(&self) -> u8 {
        self.0.score(Color::Black)
    }

    /// White's points.
    #[getter]
    fn white_score(&self) -> u8 {
        self.0.score(Color::White)
    }

    /// The points of `color` (`"black"` or `"white"`).
    fn score(&self, color: &str) -> PyResult<u8> {
        Ok(self.0.score(parse_color(color)?))
    }

    /// `"black"`, `"white"` or `"draw"` once the game is over, else `None`.
    #[getter]
    fn winner(&self) -> Option<&'static str> {
        if !self.0.is_game_over() {
            return None;
        }
        Some(self.0.winner().map_or("draw", color_name))
    }

    /// Black's pieces as a 64-bit int (bit 0 = a1, bit 63 = h8).
    #[getter]
    fn black(&self) -> u64 {
        self.0.pieces(Color::Black).0
    }

    /// White's pieces as a 64-bit int.
    #[getter]
    fn white(&self) -> u64 {
        self.0.pieces(Color::White).0
    }

    /// The holes as a 64-bit int.
    #[getter]
    fn holes(&self) -> u64 {
        self.0.holes().0
    }

    /// The position as planes from the side to move's point of view: a
    /// float32 array of shape `(PLANES, 8, 8)`: the side to move's pieces,
    /// the opponent's, the holes and the empty squares, indexed
    /// `[plane, rank, file]` (a1 at `[p, 0, 0]`); see `yolah.environment`.
    fn observation<'py>(&self, py: Python<'py>) -> Bound<'py, numpy::PyArray3<f32>> {
        crate::observe::observation_array(py, &self.0)
    }

    /// The legal moves as a bool array of `ACTIONS` (4096) entries, true at
    /// each legal move's action index (`Move.action`).
    fn action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, numpy::PyArray1<bool>> {
        crate::observe::mask_array(py, &self.0)
    }

    /// A copy (positions are small values: this is cheap).
    fn copy(&self) -> PyPosition {
        *self
    }

    fn __copy__(&self) -> PyPosition {
        *self
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyPosition {
        *self
    }

    fn __hash__(&self) -> u64 {
        yolah::zobrist::key(&self.0)
    }

    /// The board, drawn as the `yolah` command draws it.
    fn __repr__(&self) -> String {
        format!("{}\n{}", self.0, self.0.to_text())
    }

    fn __str__(&self) -> String {
        self.0.to_string()
    }
}

/// Replays a game record (a dict or JSON text with `moves` and an optional
/// `start`) and returns the final position; raises `IllegalMoveError` for
/// a move the rules refuse, a `ParseError` (`RecordParseError`,
/// `PositionParseError`) for the rest, saying which move was wrong.
#[pyfunction]
pub fn replay(record: &Bound<'_, PyAny>) -> PyResult<PyPosition> {
    let text = if let Ok(text) = record.extract::<String>() {
        text
    } else if record.is_instance_of::<PyDict>() {
        let json = record.py().import("json")?;
        json.call_method1("dumps", (record,))?.extract::<String>()?
    } else {
        return Err(PyTypeError::new_err("a record is a dict or a JSON string"));
    };
    let record = GameRecord::parse(&text).map_err(record_error)?;
    record.replay().map(PyPosition).map_err(record_error)
}
