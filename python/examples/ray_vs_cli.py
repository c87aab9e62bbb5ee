"""One tournament four ways: `yolah tournament --threads 1` and `--threads 2`,
and `yolah.distributed.tournament` on local Ray with 1 and 2 workers. Prints
the wall time of each and checks that all four files hold the same games.

    python python/examples/ray_vs_cli.py [--yolah target/release/yolah] [--games-per-pair 20]

The players search to fixed depths and counts, so every run plays the same
games; Ray's time includes starting Ray.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

PLAYERS = ["alphabeta:depth=6", "nn:depth=5", "mcts:iterations=20000", "mc:playouts=5000"]


def games(path):
    with open(path) as f:
        lines = [json.loads(line) for line in f][1:]
    return sorted(json.dumps(g, sort_keys=True) for g in lines)


def run(command):
    """Runs ``command``; if it fails, stops with what it wrote on stderr."""
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{command[0]} failed (exit {done.returncode}):\n{done.stderr.strip()}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--yolah", default="target/release/yolah")
    parser.add_argument("--games-per-pair", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not os.access(args.yolah, os.X_OK):
        parser.error(f"--yolah {args.yolah}: no such program; build it first "
                     "(cargo build --release, from the repository's root)")
    work = tempfile.mkdtemp(prefix="yolah-ray-")
    gpp, seed = str(args.games_per_pair), str(args.seed)
    rows = []
    for threads in (1, 2):
        out = os.path.join(work, f"cli-{threads}.jsonl")
        start = time.monotonic()
        run([args.yolah, "tournament", "--players", *PLAYERS, "--games-per-pair", gpp,
             "--seed", seed, "--threads", str(threads), "--out", out])
        rows.append((f"yolah tournament --threads {threads}", time.monotonic() - start, out))
    for workers in (1, 2):
        out = os.path.join(work, f"ray-{workers}.jsonl")
        # A fresh interpreter each time, so Ray's start is counted.
        code = (
            "import ray, yolah.distributed as yd; ray.init(num_cpus=2, include_dashboard=False,"
            " log_to_driver=False, logging_level='warning'); "
            f"yd.tournament({PLAYERS!r}, {gpp}, {out!r}, seed={seed}, workers={workers})"
        )
        start = time.monotonic()
        run([sys.executable, "-c", code])
        rows.append((f"yolah.distributed, {workers} worker{'s' if workers > 1 else ''}",
                     time.monotonic() - start, out))
    reference = games(rows[0][2])
    for name, seconds, out in rows:
        same = games(out) == reference
        print(f"{name:<36} {seconds:7.1f} s  {len(reference)} games  "
              f"{'same games' if same else 'DIFFERENT GAMES'}")
    if any(games(out) != reference for _, _, out in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
