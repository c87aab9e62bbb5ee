"""Batched PUCT search (AlphaZero, DeepMind's ``mctx`` style) over the games
of a :class:`yolah.vector.VectorEnv`, in Rust, with a Python evaluator.

>>> import numpy as np, yolah.vector, yolah.search
>>> env = yolah.vector.VectorEnv(64)
>>> obs, _ = env.reset()
>>> def evaluate(observations, masks):          # uniform priors, value 0
...     n = len(masks)
...     return np.zeros((n, 4096), np.float32), np.zeros(n, np.float32)
>>> search = yolah.search.Search(64, seed=1)
>>> out = search.run(env, evaluate, num_simulations=100)
>>> obs, rewards, terminations, truncations, info = env.step(out.action)

Each game has its own tree; a simulation round descends every tree to a
leaf and calls ``evaluate(observations, masks)`` **once** for all the leaves
that need it: ``observations`` is a dict like the environment's,
``observation`` ``uint8 (B, 4, 8, 8)``, ``scores`` ``uint8 (B, 2)`` and
``reach`` ``uint8 (B, 2, 8, 8)``, from the point of view of the side to move
at the leaf; ``masks`` is ``bool (B,
4096)``. It returns ``(logits, values)``: ``(B, 4096)`` logits (only the
legal moves' entries are read; the priors are their softmax) and ``(B,)``
values in ``[-1, 1]`` for the side to move. The arrays passed are
overwritten by the next round: copy what you keep.

Next to mctx (``mctx.muzero_policy`` with a recurrent function that steps
the real game, as for AlphaZero):

============================  ==============================================
mctx                          yolah.search
============================  ==============================================
``root = RootFnOutput(        the roots are the games of the ``VectorEnv``;
prior_logits, value, …)``     never-valued roots are valued by ``evaluate``
``recurrent_fn(params, key,   ``evaluate(observations, masks)``: the game
action, embedding)``          itself is stepped in Rust
``num_simulations``           ``num_simulations`` (an int or one per game)
``invalid_actions``           from the rules
``dirichlet_fraction=0.25``   ``dirichlet_fraction=0.25``
``dirichlet_alpha=0.3``       ``dirichlet_alpha=0.3``
``pb_c_init=1.25``            ``pb_c_init=1.25``
``pb_c_base=19652``           ``pb_c_base=19652``
``temperature=1.0``           ``temperature`` (a float or one per game)
``qtransform``                Q of a visited child is its mean value; an
                              unvisited child's is its parent's value minus
                              ``fpu_reduction`` (0)
``policy_output.action``      ``out.action`` (int64, -1 where not searched)
``policy_output               ``out.action_weights`` (N, 4096), the visit
.action_weights``             distribution; compactly ``out.legal_actions``
                              and ``out.visit_counts`` (N, MAX_MOVES)
``search_tree.summary()       ``out.root_value`` (for the side to move)
.value``
tree of ``num_simulations``   ``max_nodes`` nodes a game, allocated once;
+ 1 nodes, rebuilt each move  the subtree of the new position is **kept**
                              between moves (one or two plies down)
``rng_key``                   ``seed``: game ``i`` draws its noise and move
                              from ``(seed, i)``; a run repeats whatever
                              ``threads``
============================  ==============================================

Noise is mixed into the root's priors only (replacing, never adding to,
the noise of an earlier run on the same root); ``add_noise=False`` searches
with the evaluator's own priors. Visit counts include the visits kept from
earlier moves. Games that are over, and games given 0 simulations, are
left out (``action`` -1). When a tree's arena is full, leaves are still
valued but no longer expanded, and a leaf met again backs up its mean
value without another evaluation: a game's tree never takes more than
44 bytes a node of ``max_nodes`` (two arenas of 20-byte nodes, between
which the kept subtree is copied, and a 4-byte index), 720 KB at the
default 16,384.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._yolah import ACTIONS, AzNetwork, SearchTrees


class SearchOutput(NamedTuple):
    """A run's results, one row a game (arrays overwritten by the next run)."""

    #: int64 (N,): the move drawn at the temperature, -1 where not searched.
    action: np.ndarray
    #: int16 (N, MAX_MOVES): the root's moves as actions, -1 padded.
    legal_actions: np.ndarray
    #: int32 (N, MAX_MOVES): their visits.
    visit_counts: np.ndarray
    #: float32 (N,): the root's mean value for the side to move.
    root_value: np.ndarray
    #: Leaves valued by the evaluator, and the calls made.
    evaluations: int
    calls: int

    @property
    def action_weights(self):
        """float32 (N, 4096): the visit distribution over actions (zero rows
        for games not searched), mctx's ``action_weights``."""
        n = len(self.action)
        weights = np.zeros((n, ACTIONS), dtype=np.float32)
        totals = self.visit_counts.sum(axis=1, keepdims=True).astype(np.float32)
        rows, cols = np.nonzero(self.legal_actions >= 0)
        weights[rows, self.legal_actions[rows, cols]] = self.visit_counts[rows, cols] / np.maximum(totals[rows, 0], 1)
        return weights


class Search:
    """Search trees for ``num_games`` games (see the module's
    documentation)."""

    def __init__(
        self,
        num_games: int,
        *,
        max_nodes: int = 1 << 14,
        threads: int = 1,
        seed: int = 0,
        pb_c_init: float = 1.25,
        pb_c_base: float = 19652.0,
        fpu_reduction: float = 0.0,
        dirichlet_alpha: float = 0.3,
        dirichlet_fraction: float = 0.25,
    ):
        self.trees = SearchTrees(
            num_games,
            max_nodes,
            threads,
            seed,
            pb_c_init,
            pb_c_base,
            fpu_reduction,
            dirichlet_alpha,
            dirichlet_fraction,
        )
        self.num_games = num_games
        arrays = self.trees.arrays()
        self._action = arrays["actions"]
        self._legal = arrays["legal_actions"]
        self._visits = arrays["visit_counts"]
        self._values = arrays["root_values"]

    def run(self, env, evaluate, num_simulations, *, temperature=1.0, add_noise=True) -> SearchOutput:
        """Searches the current position of every game of ``env`` (a
        :class:`yolah.vector.VectorEnv`) with ``num_simulations``
        simulations (one number, or one a game: 0 leaves a game out) and
        draws a move at ``temperature`` (0: the most visited); ``add_noise``
        (a bool, or one a game) mixes Dirichlet noise into the root's
        priors."""
        games = getattr(env, "games", None)
        if games is None:
            raise TypeError(
                f"env must be a yolah.vector.VectorEnv (many games at once), not {type(env).__name__}"
            )

        def checked(observations, masks):
            answer = evaluate(observations, masks)
            if not isinstance(answer, (tuple, list)) or len(answer) != 2:
                # Not a pair: the Rust side says what evaluate must return.
                return answer
            logits, values = answer
            return (
                np.ascontiguousarray(logits, dtype=np.float32),
                np.ascontiguousarray(values, dtype=np.float32).reshape(-1),
            )

        sims = num_simulations if np.isscalar(num_simulations) else np.asarray(num_simulations, dtype=np.float64).tolist()
        temp = temperature if np.isscalar(temperature) else np.asarray(temperature, dtype=np.float64).tolist()
        noise = float(add_noise) if np.isscalar(add_noise) else np.asarray(add_noise, dtype=np.float64).tolist()
        counts = self.trees.run(games, checked, sims, temp, noise)
        return SearchOutput(
            self._action, self._legal, self._visits, self._values, counts["evaluations"], counts["calls"]
        )

    def tree_sizes(self):
        """Nodes in use in each game's tree."""
        return self.trees.tree_sizes()

    def root_priors(self, game: int):
        """The root priors of game ``game`` (noise included), in the order
        of ``legal_actions``."""
        return self.trees.root_priors(game)

    def clear(self):
        """Forgets every tree."""
        self.trees.clear()


__all__ = ["AzNetwork", "Search", "SearchOutput"]
