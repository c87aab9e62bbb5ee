//! The exceptions yolah raises, and which Rust error becomes which.
//!
//! Every one is a `YolahError`, itself a `ValueError`; below it come
//! `IllegalMoveError`, `ParseError` and `SpecError`; below `ParseError` one
//! class per thing parsed (move, position, record), below `SpecError` one
//! class per kind of bad spec, so that a caller can catch as broadly or as
//! narrowly as it wants. Each class is created in the module `yolah`,
//! whose `__init__` re-exports it, so that pickle finds it by name: an
//! exception raised in a Ray task or a `multiprocessing` worker reaches the
//! caller with its class and its message.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use yolah::record::{MoveProblem, RecordError};
use yolah_lab::positions::DataError;
use yolah_players::SpecError as Spec;

create_exception!(
    yolah,
    YolahError,
    PyValueError,
    "Base of every error yolah raises for bad input (a ValueError)."
);
create_exception!(
    yolah,
    IllegalMoveError,
    YolahError,
    "A move the rules do not allow in the position, or a move after the end."
);
create_exception!(
    yolah,
    ParseError,
    YolahError,
    "Text that is not a move, a position or a game record."
);
create_exception!(
    yolah,
    MoveParseError,
    ParseError,
    "Text that is not a move (\"zz\", \"d5:z9\"), or an action that is none."
);
create_exception!(
    yolah,
    PositionParseError,
    ParseError,
    "Text that is not a position."
);
create_exception!(
    yolah,
    RecordParseError,
    ParseError,
    "A game record that is not JSON of the record's shape, or whose moves are not moves."
);
create_exception!(
    yolah,
    SpecError,
    YolahError,
    "A player spec that names no player or has a bad key or value."
);
create_exception!(
    yolah,
    UnknownPlayerError,
    SpecError,
    "A spec whose name is no player's (\"chess\")."
);
create_exception!(
    yolah,
    UnknownKeyError,
    SpecError,
    "A spec with an option its player does not take (\"random:depth=3\")."
);
create_exception!(
    yolah,
    NotKeyValueError,
    SpecError,
    "A spec option that is not key=value (\"mcts:c\")."
);
create_exception!(
    yolah,
    DuplicateKeyError,
    SpecError,
    "A spec that gives a key twice (\"mcts:seed=1,seed=2\")."
);
create_exception!(
    yolah,
    BadValueError,
    SpecError,
    "A spec value its key does not take (\"mc:playouts=x\")."
);
create_exception!(
    yolah,
    ConflictingKeysError,
    SpecError,
    "Spec options that cannot go together, or one that needs another (\"mc:time=1s,playouts=9\")."
);
create_exception!(
    yolah,
    MissingKeyError,
    SpecError,
    "A spec without a key its player needs (\"engine\" without cmd=)."
);
create_exception!(
    yolah,
    NetFileError,
    SpecError,
    "A spec whose net= file cannot be read or is not a network this build runs."
);
create_exception!(
    yolah,
    WeightsFileError,
    SpecError,
    "A spec whose weights= name or file cannot be loaded."
);

/// The exception of a bad spec: the class of its kind, the Rust message.
pub fn spec_error(e: Spec) -> PyErr {
    let message = e.to_string();
    match e {
        Spec::UnknownPlayer { .. } => UnknownPlayerError::new_err(message),
        Spec::UnknownKey { .. } => UnknownKeyError::new_err(message),
        Spec::NotKeyValue { .. } => NotKeyValueError::new_err(message),
        Spec::DuplicateKey { .. } => DuplicateKeyError::new_err(message),
        Spec::BadValue { .. } => BadValueError::new_err(message),
        Spec::Conflict { .. } => ConflictingKeysError::new_err(message),
        Spec::MissingKey { .. } => MissingKeyError::new_err(message),
        Spec::Net { .. } => NetFileError::new_err(message),
        Spec::Weights { .. } => WeightsFileError::new_err(message),
        _ => SpecError::new_err(message),
    }
}

/// The exception of a self-play run or training file that fails: the
/// class of its spec's kind for a bad player, `YolahError` otherwise.
pub fn data_error(e: DataError) -> PyErr {
    match e {
        DataError::Spec(e) => spec_error(e),
        e => YolahError::new_err(e.to_string()),
    }
}

/// The exception of a record that cannot be replayed: `IllegalMoveError`
/// for a move the rules refuse (or one after the end), `PositionParseError`
/// for a bad start, `RecordParseError` for the rest; the message names the
/// ply and quotes the move.
pub fn record_error(e: RecordError) -> PyErr {
    let message = e.to_string();
    match e {
        RecordError::Move {
            reason: MoveProblem::Illegal(_) | MoveProblem::AfterGameOver,
            ..
        } => IllegalMoveError::new_err(message),
        RecordError::Start(_) => PositionParseError::new_err(message),
        _ => RecordParseError::new_err(message),
    }
}

/// Adds every exception class to the module `m`.
pub fn add_to(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("YolahError", py.get_type::<YolahError>())?;
    m.add("IllegalMoveError", py.get_type::<IllegalMoveError>())?;
    m.add("ParseError", py.get_type::<ParseError>())?;
    m.add("MoveParseError", py.get_type::<MoveParseError>())?;
    m.add("PositionParseError", py.get_type::<PositionParseError>())?;
    m.add("RecordParseError", py.get_type::<RecordParseError>())?;
    m.add("SpecError", py.get_type::<SpecError>())?;
    m.add("UnknownPlayerError", py.get_type::<UnknownPlayerError>())?;
    m.add("UnknownKeyError", py.get_type::<UnknownKeyError>())?;
    m.add("NotKeyValueError", py.get_type::<NotKeyValueError>())?;
    m.add("DuplicateKeyError", py.get_type::<DuplicateKeyError>())?;
    m.add("BadValueError", py.get_type::<BadValueError>())?;
    m.add(
        "ConflictingKeysError",
        py.get_type::<ConflictingKeysError>(),
    )?;
    m.add("MissingKeyError", py.get_type::<MissingKeyError>())?;
    m.add("NetFileError", py.get_type::<NetFileError>())?;
    m.add("WeightsFileError", py.get_type::<WeightsFileError>())?;
    Ok(())
}

/// `threads` as given when it is from 1 to `most`, else an error that says
/// so (a silent clamp would hide a typo such as `threads=0`).
pub fn threads_in(threads: usize, most: usize) -> PyResult<usize> {
    if (1..=most).contains(&threads) {
        Ok(threads)
    } else {
        Err(YolahError::new_err(format!(
            "threads={threads} must be from 1 to {most}"
        )))
    }
}
