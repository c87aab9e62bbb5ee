"""Many Yolah games stepped together in Rust: a Gymnasium ``VectorEnv``.

>>> import numpy as np, yolah.vector
>>> env = yolah.vector.VectorEnv(1024, threads=2, legal_actions=True)
>>> obs, info = env.reset(seed=0)
>>> obs["observation"].shape, obs["observation"].dtype
((1024, 4, 8, 8), dtype('uint8'))
>>> rng = np.random.default_rng(0)
>>> pick = (rng.random(1024) * obs["legal_count"]).astype(np.int64)
>>> actions = obs["legal_actions"][np.arange(1024), pick]
>>> obs, rewards, terminations, truncations, info = env.step(actions)

One step plays one action in each of ``num_envs`` games: the GIL is
released, the games are split over ``threads`` threads, and every result is
written into arrays allocated once. By default ``reset`` and ``step`` return
copies of them, as Gymnasium's vector environments do, so that what a
caller keeps (a replay buffer) stays as it was; ``copy=False`` returns the
arrays themselves, which the next step overwrites: faster, for a loop that
uses each result before it steps again (the speed figures are measured so).

**Two players, one policy.** Yolah has two sides that alternate (a side
with no move passes, action 0). The environment follows the self-play
convention: the observation is always from the point of view of the side
to move (its pieces in plane 0, its points first in ``scores``), so one
policy plays both colours; ``info["to_play"]`` says which colour that is
(0 Black, 1 White). ``rewards`` is the reward of the side that just moved:
+1 for a win, 0 for a draw, -1 for a loss, 0 before the end. The
opponent's reward is its negative; ``info["rewards"]`` has both by colour,
``(num_envs, 2)`` for Black and White, and ``info["points"]`` (``uint8
(num_envs, 2)``) Black's and White's points after the move: a game's final
points when it ends, even in ``SAME_STEP`` mode. Games end by the rules,
never by truncation.

**Observations** are a dict:

* ``observation``: ``uint8 (N, 4, 8, 8)``, 0 or 1: the side to move's
  pieces, the opponent's, the holes, the empty squares; ``[plane, rank,
  file]``, a1 at ``[p, 0, 0]`` (the planes of ``Position.observation()``,
  as bytes: a quarter of float32's memory traffic);
* ``scores``: ``uint8 (N, 2)``, the side to move's points and the
  opponent's (the planes cannot tell who is ahead: a hole does not remember
  who left it);
* with ``reach=True``, ``reach``: ``uint8 (N, 2, 8, 8)``, the squares the
  side to move's pieces can move to, and the opponent's (mobility and
  territory are made of them, and a small network cannot work them out of
  the planes);
* ``action_mask``, by ``action_mask=``:

  - ``"packed"`` (the default): ``uint8 (N, 512)``, the 4,096 legal-action
    bits; :func:`unpack_mask` (or ``np.unpackbits(m, axis=-1,
    bitorder="little")``) gives ``(N, 4096)``. A bool mask is 4 KB a game
    and a step writes it whole, which costs more than the step itself;
    512 bytes keep a thousand games' masks in the L2 cache. Bytes
    ``8*f .. 8*f+8`` are the bitboard of the squares a piece on ``f``
    reaches;
  - ``"bool"``: ``bool (N, 4096)``, as ``Position.action_mask()``;
  - ``None``: no mask;

* with ``legal_actions=True``, ``legal_actions``: ``int16 (N, MAX_MOVES)``,
  the legal actions in increasing order padded with -1, and
  ``legal_count``: ``uint8 (N,)``. To sample from logits over legal moves
  only: ``logits[np.arange(N)[:, None], np.maximum(legal, 0)]`` and mask
  the padding.

``observation=False`` leaves out the planes and scores (with
``action_mask=None``, only rewards and terminations are written: random
rollouts at engine speed with :meth:`VectorEnv.step_random`).

**Autoreset** (``autoreset_mode``, Gymnasium's :class:`AutoresetMode`):

* ``NEXT_STEP`` (Gymnasium's default): after a game ends, the next step
  starts a new one and ignores that game's action (any value);
* ``SAME_STEP``: the new game starts in the step that ended the old one;
  ``info["final_obs"]`` is an object array holding, for each game that
  ended, a dict of its final observation (``info["_final_obs"]`` flags
  them), as Gymnasium's ``SyncVectorEnv`` does;
* ``DISABLED``: a finished game must be reset with
  ``reset(options={"reset_mask": mask})``; stepping it raises.

**Actions** are ``from * 64 + to`` (the pass is 0), one per game, checked
before any game moves: an illegal one raises :class:`yolah.IllegalMoveError`
naming the game. :meth:`VectorEnv.step_random` plays uniformly random legal
moves drawn in Rust (``info["actions"]`` has them), from per-game
generators that ``reset(seed=s)`` restarts.
"""

from __future__ import annotations

import numpy as np

from ._extras import missing_extra

try:
    from gymnasium import spaces
    from gymnasium.vector import AutoresetMode
    from gymnasium.vector import VectorEnv as _GymVectorEnv
    from gymnasium.vector.utils import batch_space
except ModuleNotFoundError as e:
    missing_extra(e, "yolah.vector", "env", ("gymnasium",))

from ._yolah import ACTIONS, MAX_MOVES, PLANES, VectorGames

#: Bytes of a packed action mask.
PACKED_MASK_BYTES = ACTIONS // 8

_AUTORESET = {
    AutoresetMode.NEXT_STEP: "next_step",
    AutoresetMode.SAME_STEP: "same_step",
    AutoresetMode.DISABLED: "disabled",
}


def unpack_mask(packed):
    """The ``(…, 4096)`` bool mask of a packed ``(…, 512)`` one."""
    return np.unpackbits(np.asarray(packed, dtype=np.uint8), axis=-1, bitorder="little").view(bool)


def single_observation_space(observation=True, action_mask="packed", legal_actions=False, reach=False):
    """The observation space of one game, for these options."""
    fields = {}
    if observation:
        fields["observation"] = spaces.Box(0, 1, (PLANES, 8, 8), dtype=np.uint8)
        fields["scores"] = spaces.Box(0, 64, (2,), dtype=np.uint8)
    if reach:
        fields["reach"] = spaces.Box(0, 1, (2, 8, 8), dtype=np.uint8)
    if action_mask == "packed":
        fields["action_mask"] = spaces.Box(0, 255, (PACKED_MASK_BYTES,), dtype=np.uint8)
    elif action_mask == "bool":
        fields["action_mask"] = spaces.Box(0, 1, (ACTIONS,), dtype=np.bool_)
    if legal_actions:
        fields["legal_actions"] = spaces.Box(-1, ACTIONS - 1, (MAX_MOVES,), dtype=np.int16)
        fields["legal_count"] = spaces.Box(0, MAX_MOVES, (), dtype=np.uint8)
    return spaces.Dict(fields)


class VectorEnv(_GymVectorEnv):
    """``num_envs`` Yolah games stepped together (see the module's
    documentation for the observations, the two-player convention and the
    autoreset modes)."""

    metadata = {"render_modes": ["ansi"], "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        num_envs: int,
        *,
        threads: int = 1,
        autoreset_mode=AutoresetMode.NEXT_STEP,
        observation: bool = True,
        action_mask="packed",
        legal_actions: bool = False,
        reach: bool = False,
        copy: bool = True,
        render_mode=None,
    ):
        if isinstance(autoreset_mode, str):
            # "SameStep", "same_step" and "same-step" all name SAME_STEP.
            by_name = {m.value.lower(): m for m in _AUTORESET}
            key = autoreset_mode.replace("_", "").replace("-", "").lower()
            if key not in by_name:
                raise ValueError(f"autoreset_mode {autoreset_mode!r} is not one of {[m.value for m in _AUTORESET]}")
            autoreset_mode = by_name[key]
        if autoreset_mode not in _AUTORESET:
            raise ValueError(f"autoreset_mode {autoreset_mode!r} is not an AutoresetMode")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        self.games = VectorGames(
            num_envs,
            threads=threads,
            autoreset_mode=_AUTORESET[autoreset_mode],
            observation=observation,
            action_mask=action_mask,
            legal_actions=legal_actions,
            reach=reach,
        )
        self.num_envs = num_envs
        self.autoreset_mode = autoreset_mode
        self.metadata = dict(self.metadata, autoreset_mode=autoreset_mode)
        self.render_mode = render_mode
        self.copy = copy
        self.single_observation_space = single_observation_space(observation, action_mask, legal_actions, reach)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.single_action_space = spaces.Discrete(ACTIONS)
        self.action_space = spaces.MultiDiscrete(np.full(num_envs, ACTIONS))
        arrays = self.games.arrays()
        self._obs = arrays["obs"]
        self._final_obs = arrays.get("final_obs")
        self._final_flags = arrays["final_flags"]
        self._rewards = arrays["rewards"]
        self._colour_rewards = arrays["colour_rewards"]
        self._points = arrays["points"]
        self._terminated = arrays["terminated"]
        self._truncated = arrays["truncated"]
        self._to_play = arrays["to_play"]
        self._actions = arrays["actions"]
        self._everywhere = np.ones(num_envs, dtype=bool)

    def reset(self, *, seed=None, options=None):
        """Starts every game (or, with ``options={"reset_mask": mask}``,
        those flagged). ``seed`` restarts the generators of
        :meth:`step_random` (the game itself has no chance)."""
        super().reset(seed=seed)
        mask = None
        if options and "reset_mask" in options:
            mask = np.ascontiguousarray(options["reset_mask"], dtype=bool)
        self.games.reset(seed=None if seed is None else int(seed), mask=mask)
        return self._observations(), self._info(ended=False)

    def step(self, actions):
        """Plays ``actions[i]`` in game ``i``; returns ``(observations,
        rewards, terminations, truncations, infos)``."""
        actions = np.asarray(actions)
        if actions.size and actions.dtype.kind not in "iu":
            # A cast would truncate 3.7 to 3 without a word.
            raise TypeError(f"actions are integers from 0 to {ACTIONS - 1}, not {actions.dtype} values")
        self.games.step(np.ascontiguousarray(actions, dtype=np.int64).reshape(-1))
        return self._results()

    def step_random(self):
        """Plays a uniformly random legal move in every game (drawn in
        Rust); ``infos["actions"]`` are the actions played (-1 where a game
        was started instead)."""
        self.games.step_random()
        return self._results(actions=True)

    def rollout(self, steps: int):
        """``steps`` random steps in every game, in Rust, each game its
        steps in a row (the same games as ``steps`` calls of
        :meth:`step_random`, without coming back to Python in between).
        Returns the games that ended meanwhile: a dict of ``black_wins``,
        ``white_wins`` and ``draws``; the arrays of the last
        observations hold the last step's results."""
        return self.games.rollout(int(steps))

    def positions(self):
        """The games' positions, as :class:`yolah.Position` copies."""
        return self.games.positions()

    def render(self):
        if self.render_mode is None:
            return None
        return tuple(repr(p) for p in self.games.positions())

    def close_extras(self, **kwargs):
        pass

    def _observations(self):
        if self.copy:
            return {k: v.copy() for k, v in self._obs.items()}
        return dict(self._obs)

    def _results(self, actions=False):
        rewards, terminated, truncated = self._rewards, self._terminated, self._truncated
        if self.copy:
            rewards, terminated, truncated = rewards.copy(), terminated.copy(), truncated.copy()
        infos = self._info(ended=True)
        if actions:
            infos["actions"] = self._actions.copy() if self.copy else self._actions
            infos["_actions"] = self._everywhere
        return self._observations(), rewards, terminated, truncated, infos

    def _info(self, ended):
        copy = (lambda a: a.copy()) if self.copy else (lambda a: a)
        infos = {
            "to_play": copy(self._to_play),
            "_to_play": self._everywhere,
            "rewards": copy(self._colour_rewards),
            "_rewards": self._everywhere,
            "points": copy(self._points),
            "_points": self._everywhere,
        }
        if ended and self._final_obs is not None:
            flags = self._final_flags
            if flags.any():
                final = np.full(self.num_envs, None, dtype=object)
                for i in np.flatnonzero(flags):
                    final[i] = {k: v[i].copy() for k, v in self._final_obs.items()}
                infos["final_obs"] = final
                infos["_final_obs"] = flags.copy()
                infos["final_info"] = {}
                infos["_final_info"] = flags.copy()
        return infos


__all__ = ["MAX_MOVES", "PACKED_MASK_BYTES", "VectorEnv", "single_observation_space", "unpack_mask"]
