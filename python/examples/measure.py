"""Measures the Python package: random games a second through the batch
helper (compare with `yolah random-games --games N --seed 1`), the cost of
one call from a Python loop, and PettingZoo environment steps a second.

    python python/examples/measure.py [GAMES]
"""

import json
import time

import numpy as np

import yolah


def best_of(runs, f):
    """The best time of `runs` calls of f()."""
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - start)
    return best


def main(games: int = 1_000_000) -> None:
    out = {}
    seconds = best_of(3, lambda: yolah.random_games(games, seed=1, threads=1))
    out["batch_random_games_per_second"] = round(games / seconds)

    # One `play` per call from Python: whole random games, the moves
    # chosen in Rust beforehand so that the loop times the calls alone.
    moves = [[yolah.Move(m) for m in g] for g in yolah.random_game_moves(2000, seed=2)]
    plies = sum(len(g) for g in moves)

    def play_all():
        for g in moves:
            pos = yolah.Position()
            for m in g:
                pos.play(m)

    out["play_call_ns"] = round(best_of(3, play_all) / plies * 1e9)

    def legal_all():
        pos = yolah.Position()
        for _ in range(plies):
            pos.legal_moves()

    out["legal_moves_call_ns"] = round(best_of(3, legal_all) / plies * 1e9)

    rng = np.random.default_rng(0)
    env = yolah.env()
    steps = 0
    start = time.perf_counter()
    for _ in range(300):
        env.reset()
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                env.step(None)
            else:
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
    out["env_steps_per_second"] = round(steps / (time.perf_counter() - start))
    print(json.dumps(out))


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Measures the Python package: random games, calls and environment steps a second.")
    parser.add_argument("games", nargs="?", type=int, default=1_000_000, help="random games to time (a million)")
    games = parser.parse_args().games
    if games < 1:
        parser.error(f"games {games}: at least 1")
    main(games)
