"""Type stubs of the native module (the Rust engine, players and lab)."""

from typing import Any, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str
ACTIONS: int
"""Size of the action space: ``from * 64 + to``, 4096; the pass is 0."""
PLANES: int
"""Planes of an observation: ours, theirs, holes, empty squares."""

class YolahError(ValueError):
    """Base of every error yolah raises for bad input."""

class IllegalMoveError(YolahError):
    """A move the rules refuse, or a move after the end of the game."""

class ParseError(YolahError):
    """Text that is not a move, a position or a game record."""

class MoveParseError(ParseError):
    """Text that is not a move (``"zz"``, ``"d5:z9"``), or an action that is none."""

class PositionParseError(ParseError):
    """Text that is not a position; the message quotes it."""

class RecordParseError(ParseError):
    """A game record that is not JSON of the record's shape, or whose moves
    are not moves (a move the rules refuse raises IllegalMoveError)."""

class SpecError(YolahError):
    """A player spec with an unknown name, key or bad value; one subclass
    per kind below. Every message quotes the spec as typed."""

class UnknownPlayerError(SpecError):
    """No player has the spec's name (``"chess"``)."""

class UnknownKeyError(SpecError):
    """The player takes no such option (``"random:depth=3"``)."""

class NotKeyValueError(SpecError):
    """An option is not ``key=value`` (``"mcts:c"``)."""

class DuplicateKeyError(SpecError):
    """A key is given twice (``"mcts:seed=1,seed=2"``)."""

class BadValueError(SpecError):
    """A value its key does not take (``"mc:playouts=x"``)."""

class ConflictingKeysError(SpecError):
    """Options that cannot go together, or one that needs another
    (``"mc:time=1s,playouts=9"``, ``"mcts:net=FILE"`` without ``eval=nn``)."""

class MissingKeyError(SpecError):
    """A key the player needs is missing (``"engine"`` without ``cmd=``)."""

class NetFileError(SpecError):
    """The ``net=`` file cannot be read or is not a network this build runs."""

class WeightsFileError(SpecError):
    """The ``weights=`` name or file cannot be loaded."""

MoveLike = Union["Move", str]

class Move:
    """A move ``from:to``; the pass is ``a1:a1`` (action 0)."""

    def __init__(self, text: str) -> None: ...
    @staticmethod
    def pass_() -> Move: ...
    @staticmethod
    def from_action(action: int) -> Move:
        """The move of action ``from * 64 + to``; raises ParseError."""
    @property
    def action(self) -> int: ...
    @property
    def from_square(self) -> str: ...
    @property
    def to_square(self) -> str: ...
    @property
    def is_pass(self) -> bool: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Position:
    """A position; ``Position()`` is the start, ``Position(text)`` reads
    what ``to_text()`` writes."""

    def __init__(self, text: Optional[str] = None) -> None: ...
    def to_text(self) -> str: ...
    def legal_moves(self) -> list[Move]: ...
    def play(self, move: MoveLike) -> None:
        """Checked; raises IllegalMoveError and leaves the position as it was."""
    def undo(self, move: MoveLike) -> None:
        """Takes back ``move``, which must be the move that led here."""
    def is_game_over(self) -> bool: ...
    @property
    def side_to_move(self) -> str: ...
    @property
    def ply(self) -> int: ...
    @property
    def black_score(self) -> int: ...
    @property
    def white_score(self) -> int: ...
    def score(self, color: str) -> int: ...
    @property
    def winner(self) -> Optional[str]:
        """``"black"``, ``"white"`` or ``"draw"`` at the end, else None."""
    @property
    def black(self) -> int: ...
    @property
    def white(self) -> int: ...
    @property
    def holes(self) -> int: ...
    def observation(self) -> npt.NDArray[np.float32]:
        """``(PLANES, 8, 8)`` planes seen from the side to move."""
    def action_mask(self) -> npt.NDArray[np.bool_]:
        """``(ACTIONS,)``, true at each legal move's action."""
    def copy(self) -> Position: ...
    def __copy__(self) -> Position: ...
    def __deepcopy__(self, memo: Any) -> Position: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Player:
    """A computer player from a spec such as ``"nn:time=100ms"``."""

    def __init__(self, spec: str) -> None: ...
    @property
    def spec(self) -> str: ...
    def choose_move(self, position: Position) -> Move:
        """The player's move. Raises ``IllegalMoveError`` once the game is
        over, ``YolahError`` for a player that cannot start (an engine whose
        program does not run). An engine that breaks the protocol during a
        search does not raise: the position's first legal move is returned
        (and its analysis has no score)."""
    def analyse(self, position: Position) -> dict[str, Any]:
        """``best_move`` (a move as a string, ``"d5:b7"``), ``score`` (int
        centipoints, a float win rate, or None), ``score_unit``
        (``"centipoints"``, ``"win_rate"`` or ``"none"``), ``depth`` and ``iterations`` (int or None),
        ``nodes`` (int), ``seconds`` (float), ``pv`` (a list of move
        strings): the fields of ``yolah analyse --json``. Raises as
        ``choose_move`` does."""
    def new_game(self) -> None: ...

def random_games(games: int, seed: int = 0, threads: int = 1, first: int = 0) -> dict[str, int]: ...
def random_game_moves(games: int, seed: int = 0, first: int = 0) -> list[list[str]]: ...
def observations(
    positions: Sequence[Position],
) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]: ...
def replay(record: Union[dict[str, Any], str]) -> Position: ...
def play_match(
    a: str, b: str, games: int, seed: int = 0, threads: int = 1, tc: Optional[str] = None
) -> dict[str, Any]: ...
def tournament(
    players: Sequence[str],
    games_per_pair: int,
    seed: int = 0,
    threads: int = 1,
    out: Optional[str] = None,
    tc: Optional[str] = None,
    anchor: Union[int, str] = 0,
) -> dict[str, Any]: ...
def tournament_games(
    players: Sequence[str],
    games_per_pair: int,
    games: Sequence[Tuple[int, int]],
    seed: int = 0,
    threads: int = 1,
    tc: Optional[str] = None,
) -> list[dict[str, Any]]: ...

# The pieces of runs split by game index (yolah.distributed drives them).
def shard_range(shard: str, total: int) -> Tuple[int, int]: ...

class TournamentFile:
    def __init__(
        self,
        path: str,
        players: Sequence[str],
        games_per_pair: int,
        seed: int = 0,
        tc: Optional[str] = None,
    ) -> None: ...
    @property
    def warnings(self) -> list[str]: ...
    def todo(self, shard: Optional[str] = None) -> list[Tuple[int, int]]: ...
    def append(self, lines: list[dict[str, Any]]) -> int: ...
    def progress(self) -> Tuple[int, int]: ...
    def result(self, anchor: Union[int, str] = 0) -> dict[str, Any]: ...
    def table(self, anchor: Union[int, str] = 0, json: bool = False) -> str: ...

def selfplay_records(
    player: str, first: int, end: int, seed: int = 0, threads: int = 1, explore: float = 0.0
) -> bytes: ...
def save_selfplay_shard(
    path: str,
    player: str,
    games: int,
    seed: int,
    shard: str,
    records: bytes,
    explore: float = 0.0,
) -> int: ...
def selfplay_shard_done(
    path: str, player: str, games: int, seed: int, shard: str, explore: float = 0.0
) -> bool: ...
def merge_selfplay(paths: Sequence[str], out: str) -> dict[str, Any]: ...
def ray_command(argv: list[str]) -> dict[str, Any]: ...

# yolah.vector and yolah.search drive these (see those modules).
MAX_MOVES: int
"""The most legal moves a side can have: 108."""

class VectorGames:
    def __init__(
        self,
        num_envs: int,
        threads: int = 1,
        autoreset_mode: str = "next_step",
        observation: bool = True,
        action_mask: Optional[str] = "packed",
        legal_actions: bool = False,
        seed: int = 0,
        reach: bool = False,
    ) -> None: ...
    @property
    def num_envs(self) -> int: ...
    @property
    def threads(self) -> int: ...
    def arrays(self) -> dict[str, Any]: ...
    def reset(self, seed: Optional[int] = None, mask: Optional[npt.NDArray[np.bool_]] = None) -> None: ...
    def step(self, actions: npt.NDArray[np.int64]) -> None: ...
    def step_random(self) -> None: ...
    def rollout(self, steps: int) -> dict[str, int]: ...
    def positions(self) -> list[Position]: ...
    def ended(self) -> list[bool]: ...

class SearchTrees:
    def __init__(
        self,
        num_games: int,
        max_nodes: int,
        threads: int,
        seed: int,
        pb_c_init: float,
        pb_c_base: float,
        fpu_reduction: float,
        dirichlet_alpha: float,
        dirichlet_fraction: float,
    ) -> None: ...
    def run(self, games: VectorGames, evaluate: Any, simulations: Any, temperature: Any, add_noise: Any) -> dict[str, int]: ...
    def arrays(self) -> dict[str, Any]: ...
    def tree_sizes(self) -> list[int]: ...
    @property
    def max_nodes(self) -> int: ...
    def root_priors(self, game: int) -> list[float]: ...
    def clear(self) -> None: ...

class AzNetwork:
    def __init__(self, path: str, threads: int = 1) -> None: ...
    def __call__(
        self, observations: dict[str, Any], masks: Any = None
    ) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]: ...
