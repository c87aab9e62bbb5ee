"""Yolah as a PettingZoo AEC environment.

Agents are ``"black"`` and ``"white"``; Black moves first. Each step the
agent to move picks one of ``ACTIONS`` = 4096 actions, ``from * 64 + to``
(squares rank by rank: a1 = 0, b1 = 1, …, a2 = 8, …, h8 = 63); a side with no move must play the pass, action
0 (``a1:a1``). Observations are dicts:

* ``observation``: float32 ``(PLANES, 8, 8)`` planes from the observing
  agent's point of view (its pieces, the opponent's, holes, empty squares;
  ``[plane, rank, file]``, a1 at ``[p, 0, 0]``);
* ``action_mask``: int8 ``(4096,)``, 1 at the legal actions of the agent
  to move (all 0 for the agent that waits, and at the end).

Rewards come at the end: +1 to the winner, -1 to the loser, 0 each for a
draw (most points wins; every move scores one point). An illegal action
ends the game with -1 for the agent that played it (PettingZoo's
``TerminateIllegalWrapper``), as in PettingZoo's classic games.

>>> import yolah
>>> e = yolah.env()
>>> e.reset(seed=1)
>>> obs, reward, termination, truncation, info = e.last()
>>> int(obs["action_mask"].sum())
56
"""

from __future__ import annotations

import operator

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ._yolah import ACTIONS, PLANES, Move, MoveParseError, Position

AGENTS = ["black", "white"]


def _action_index(action) -> int:
    """``action`` as an int, if it is an integer (Python's, NumPy's, or a
    0-d integer array): a float such as 3.7 is refused, not truncated to 3."""
    try:
        return operator.index(action)
    except TypeError:
        raise TypeError(f"an action is an integer from 0 to {ACTIONS - 1}, not {action!r}") from None


def env(render_mode=None):
    """The environment with PettingZoo's usual classic-game wrappers: an
    illegal move loses, and the AEC call order is enforced. What is not an
    action at all (3.7, 5000) is refused with an error that says so, where
    PettingZoo's ``AssertOutOfBoundsWrapper`` would raise a bare
    ``AssertionError`` (and, under ``python -O``, no check at all)."""
    e = raw_env(render_mode=render_mode)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = _ActionChecked(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class _ActionChecked(wrappers.BaseWrapper):
    """Refuses a step whose action is not one of the 4096, before the
    wrappers below index the action mask with it: ``TypeError`` for a
    non-integer, ``yolah.MoveParseError`` for an integer out of range. The
    ``None`` step of an agent whose game is over passes through."""

    def step(self, action):
        agent = self.agent_selection
        if action is None and (self.terminations[agent] or self.truncations[agent]):
            super().step(action)
            return
        index = _action_index(action)
        if not 0 <= index < ACTIONS:
            raise MoveParseError(f"action {index} is not from 0 to {ACTIONS - 1}")
        # Every action in range goes on, 65 (b1:b1, no move at all) too: one
        # the mask does not allow loses, as Discrete(4096)'s sample() may
        # draw it.
        super().step(index)


class raw_env(AECEnv):
    """The unwrapped environment (see the module's documentation)."""

    metadata = {
        "render_modes": ["human", "ansi"],
        "name": "yolah_v0",
        "is_parallelizable": False,
    }

    def __init__(self, render_mode=None):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, (PLANES, 8, 8), dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, (ACTIONS,), dtype=np.int8),
                }
            )
            for a in AGENTS
        }
        self.action_spaces = {a: spaces.Discrete(ACTIONS) for a in AGENTS}
        self.position = Position()

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def observe(self, agent):
        pos = self.position
        planes = pos.observation()
        if agent != pos.side_to_move:
            # The observation is the observer's: swap "ours" and "theirs".
            planes = planes[[1, 0, 2, 3]]
        if agent == self.agent_selection and not pos.is_game_over():
            mask = pos.action_mask().astype(np.int8)
        else:
            mask = np.zeros(ACTIONS, dtype=np.int8)
        return {"observation": planes, "action_mask": mask}

    def reset(self, seed=None, options=None):
        # The game has no chance: the seed changes nothing, but is accepted.
        self.position = Position()
        self.agents = list(AGENTS)
        self.rewards = {a: 0 for a in AGENTS}
        self._cumulative_rewards = {a: 0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = {a: {} for a in AGENTS}
        self.agent_selection = self.position.side_to_move

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0
        self.position.play(Move.from_action(_action_index(action)))
        self.rewards = {a: 0 for a in AGENTS}
        if self.position.is_game_over():
            winner = self.position.winner
            for a in AGENTS:
                self.terminations[a] = True
                self.rewards[a] = 0 if winner == "draw" else (1 if a == winner else -1)
                self.infos[a] = {
                    "black_score": self.position.black_score,
                    "white_score": self.position.white_score,
                }
        else:
            self.agent_selection = self.position.side_to_move
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        if self.render_mode is None:
            return None
        text = repr(self.position)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self):
        pass
