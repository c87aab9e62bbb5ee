"""Measures yolah.vector: environment steps a second with observations and
masks (actions picked in NumPy from the legal-action lists, as a learner
would), with Rust's random moves, and without observations (random
rollouts); on 1 and 2 threads; and the PettingZoo AEC environment for
comparison. Prints one JSON line; each figure is the best of `--repeat`
runs (the median too), as the machine may be shared, and steps a second of
the process's CPU time (`per_cpu_second`, all threads together: on a
loaded machine, what one dedicated core would do).

    python python/examples/vector_speed.py [--envs 4096] [--seconds 1] [--repeat 3]
"""

import argparse
import json
import statistics
import time

import numpy as np

import yolah
from yolah.vector import VectorEnv


def rate(run, steps_per_call, seconds, repeat):
    """Best and median steps a second of `run()` called for about
    `seconds`, over `repeat` runs, and the best steps a CPU-second."""
    rates, cpu_rates = [], []
    for _ in range(repeat):
        calls, start, cpu = 0, time.perf_counter(), time.process_time()
        while True:
            run()
            calls += 1
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
        rates.append(calls * steps_per_call / elapsed)
        cpu_rates.append(calls * steps_per_call / max(time.process_time() - cpu, 1e-9))
    return {
        "best": round(max(rates)),
        "median": round(statistics.median(rates)),
        "per_cpu_second": round(max(cpu_rates)),
    }


def with_observations(envs, threads, mask, seconds, repeat):
    """Steps with observations, a mask and legal-action lists; actions drawn
    uniformly from the lists in NumPy."""
    env = VectorEnv(envs, threads=threads, action_mask=mask, legal_actions=True, copy=False)
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    rows = np.arange(envs)

    def step():
        pick = (rng.random(envs) * obs["legal_count"]).astype(np.int64)
        env.step(obs["legal_actions"][rows, pick])

    return rate(step, envs, seconds, repeat)


def random_in_rust(envs, threads, observation, seconds, repeat):
    """Steps whose random moves Rust draws: `step_random` with observations
    and packed masks, or `rollout` with nothing but rewards and ends."""
    if observation:
        env = VectorEnv(envs, threads=threads, copy=False)
        env.reset(seed=0)
        return rate(env.step_random, envs, seconds, repeat)
    env = VectorEnv(envs, threads=threads, observation=False, action_mask=None, copy=False)
    env.reset(seed=0)
    steps = 64
    return rate(lambda: env.rollout(steps), envs * steps, seconds, repeat)


def aec(seconds, repeat):
    """PettingZoo AEC steps a second: random legal moves from the mask."""
    rng = np.random.default_rng(0)
    env = yolah.env()
    rates, cpu_rates = [], []
    for _ in range(repeat):
        steps, start, cpu = 0, time.perf_counter(), time.process_time()
        while time.perf_counter() - start < seconds:
            env.reset()
            for agent in env.agent_iter():
                obs, reward, termination, truncation, info = env.last()
                if termination or truncation:
                    env.step(None)
                else:
                    env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
                steps += 1
        rates.append(steps / (time.perf_counter() - start))
        cpu_rates.append(steps / max(time.process_time() - cpu, 1e-9))
    return {
        "best": round(max(rates)),
        "median": round(statistics.median(rates)),
        "per_cpu_second": round(max(cpu_rates)),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--envs", type=int, default=4096)
    parser.add_argument("--rollout-envs", type=int, default=65536)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-aec", action="store_true", help="skip the PettingZoo environment")
    args = parser.parse_args()
    s, r = args.seconds, args.repeat
    out = {"envs": args.envs, "rollout_envs": args.rollout_envs}
    for threads in (1, 2):
        t = f"{threads}_thread" + ("s" if threads > 1 else "")
        out[f"obs_packed_mask_numpy_actions_{t}"] = with_observations(args.envs, threads, "packed", s, r)
        out[f"obs_bool_mask_numpy_actions_{t}"] = with_observations(args.envs, threads, "bool", s, r)
        out[f"obs_packed_mask_rust_random_{t}"] = random_in_rust(args.envs, threads, True, s, r)
        out[f"no_obs_rollout_{t}"] = random_in_rust(args.rollout_envs, threads, False, s, r)
    if not args.no_aec:
        out["aec_env"] = aec(s, r)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
