"""Measures yolah.search: simulations a second of the batched PUCT search
with a trivial evaluator (uniform priors, value 0), so that the figure is
the search's own overhead, on 1 and 2 threads. Each move searches every
game, then plays the drawn moves (trees are kept between moves). Prints one
JSON line; best and median of `--repeat` runs (the machine may be shared),
and the best simulations a second of the process's CPU time (all threads
together).

    python python/examples/search_speed.py [--games 512] [--simulations 200] [--moves 4]
"""

import argparse
import json
import statistics
import time

import numpy as np

from yolah.search import Search
from yolah.vector import VectorEnv


def trivial(observations, masks):
    """Uniform priors and a value of 0, whatever the position."""
    n = len(masks)
    return np.zeros((n, 4096), np.float32), np.zeros(n, np.float32)


def simulations_per_second(games, simulations, moves, threads, repeat):
    rates, cpu_rates = [], []
    for r in range(repeat):
        env = VectorEnv(games, observation=False, action_mask=None, copy=False)
        env.reset()
        search = Search(games, threads=threads, seed=r)
        start, cpu = time.perf_counter(), time.process_time()
        for _ in range(moves):
            out = search.run(env, trivial, simulations)
            env.step(out.action)
        sims = games * simulations * moves
        rates.append(sims / (time.perf_counter() - start))
        cpu_rates.append(sims / max(time.process_time() - cpu, 1e-9))
    return {"best": round(max(rates)), "median": round(statistics.median(rates)), "per_cpu_second": round(max(cpu_rates))}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=512)
    parser.add_argument("--simulations", type=int, default=200)
    parser.add_argument("--moves", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    out = {"games": args.games, "simulations": args.simulations, "moves": args.moves}
    for threads in (1, 2):
        key = f"simulations_per_second_{threads}_thread" + ("s" if threads > 1 else "")
        out[key] = simulations_per_second(args.games, args.simulations, args.moves, threads, args.repeat)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
