"""Yolah: the board game's engine, players and tournaments, from Python.

The engine is Rust (the ``yolah`` crate); this package is a thin layer over
it, so a whole random game or a search runs at Rust's speed, and long work
(searches, matches, tournaments, batches) releases the GIL.

Start with :class:`Position` and :class:`Player`::

    >>> import yolah
    >>> pos = yolah.Position()
    >>> len(pos.legal_moves())
    56
    >>> pos.play("d5:b7")
    >>> pos.black_score
    1

Learning: :meth:`Position.observation` gives ``(PLANES, 8, 8)`` planes from
the side to move's point of view and :meth:`Position.action_mask` the legal
moves over ``ACTIONS`` = 4096 actions (``from * 64 + to``; the pass, written
``a1:a1``, is action 0). :func:`env` is a PettingZoo AEC environment.

Runs too big for one machine: :mod:`yolah.distributed` plays tournaments,
self-play data and random games as Ray tasks, with the same results as the
``yolah`` command.
"""

from ._extras import missing_extra
from ._yolah import (
    ACTIONS,
    PLANES,
    BadValueError,
    ConflictingKeysError,
    DuplicateKeyError,
    IllegalMoveError,
    MissingKeyError,
    Move,
    MoveParseError,
    NetFileError,
    NotKeyValueError,
    ParseError,
    Player,
    Position,
    PositionParseError,
    RecordParseError,
    SpecError,
    TournamentFile,
    UnknownKeyError,
    UnknownPlayerError,
    WeightsFileError,
    YolahError,
    __version__,
    observations,
    play_match,
    random_game_moves,
    random_games,
    merge_selfplay,
    replay,
    save_selfplay_shard,
    selfplay_records,
    selfplay_shard_done,
    shard_range,
    tournament,
    tournament_games,
)


def env(**kwargs):
    """The PettingZoo AEC environment (needs ``pettingzoo``): its agents,
    observations (planes and action mask), actions and rewards are described
    in :mod:`yolah.environment` (``help(yolah.environment)``)."""
    try:
        from .environment import env as make
    except ModuleNotFoundError as e:
        missing_extra(e, "yolah.env()", "env", ("pettingzoo", "gymnasium"))

    return make(**kwargs)


def record(moves, start=None, **metadata):
    """A game record as a dict (the JSON ``yolah replay`` reads): ``moves``
    as ``from:to`` strings, an optional ``start`` position text, and any
    other metadata fields."""
    rec = {"moves": [str(m) for m in moves]}
    if start is not None:
        rec["start"] = start.to_text() if isinstance(start, Position) else str(start)
    rec.update(metadata)
    return rec


__all__ = [
    "ACTIONS",
    "PLANES",
    "BadValueError",
    "ConflictingKeysError",
    "DuplicateKeyError",
    "IllegalMoveError",
    "MissingKeyError",
    "Move",
    "MoveParseError",
    "NetFileError",
    "NotKeyValueError",
    "ParseError",
    "Player",
    "Position",
    "PositionParseError",
    "RecordParseError",
    "SpecError",
    "TournamentFile",
    "UnknownKeyError",
    "UnknownPlayerError",
    "WeightsFileError",
    "YolahError",
    "env",
    "observations",
    "play_match",
    "random_game_moves",
    "random_games",
    "record",
    "merge_selfplay",
    "replay",
    "save_selfplay_shard",
    "selfplay_records",
    "selfplay_shard_done",
    "shard_range",
    "tournament",
    "tournament_games",
]
