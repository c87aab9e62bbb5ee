"""Tournaments, self-play data and random-game counts on Ray.

A run is cut by game index into tasks of consecutive games; each task is
one Ray task that plays its games in Rust, and the driver stores what comes
back in the formats the ``yolah`` command writes. A game depends only on
the run's settings and its index, so the result is the one
``yolah tournament`` / ``selfplay`` / ``random-games`` gives for the same
seed and settings, whatever the number of workers or the size of a task
(players searching on one thread to a fixed depth, iterations or node count
give the same games; a player with a time budget or several threads plays as
it would under that load).

``ray.init()`` runs locally unless ``address`` names a cluster (such as
``"auto"`` on a node of it, or ``"ray://head:10001"``); every node needs
this package installed (``pip install "./python[ray]"`` from the
repository, or ``pip install ray`` beside it). ``workers`` is the
most tasks running at once (default: the cluster's CPUs); each task uses
one CPU.

Killed runs resume: a tournament's games are appended to its JSONL file as
tasks finish, and self-play shards are kept as training files with
manifests in ``work_dir`` until the merge, so running the same call again
plays only what is missing::

    import yolah.distributed as yd

    table = yd.tournament(["random", "mcts:iterations=2000", "alphabeta:depth=4"],
                          games_per_pair=100, out="t.jsonl", seed=1)
    yd.selfplay("nn:depth=5", games=32000, out="data.bin", seed=9)
    yd.random_games(100_000_000, seed=1)

The same shards can run without Ray: ``yolah … --shard K/N`` and
``yolah merge`` (Slurm arrays, Kubernetes indexed jobs).
"""

from __future__ import annotations

import os
from typing import Callable, Iterable, Optional, Sequence, Union

from . import _yolah
from ._extras import missing_extra

#: Games a self-play task plays unless told: fixed, so that the shards of
#: a run, and so a resumed run, do not depend on the number of workers.
SELFPLAY_GAMES_PER_TASK = 16
#: Tournament games a task plays unless told.
TOURNAMENT_GAMES_PER_TASK = 2
#: Random games a task plays unless told.
RANDOM_GAMES_PER_TASK = 2_000_000

Progress = Optional[Callable[[int, int], None]]


def _ray():
    try:
        import ray
    except ModuleNotFoundError as e:  # pragma: no cover - depends on the environment
        missing_extra(e, "yolah.distributed", "ray", ("ray",))
    return ray


def _connect(address: Optional[str], workers: Optional[int]):
    """Ray, initialised (locally unless ``address``), and the number of
    tasks to keep running."""
    ray = _ray()
    if not ray.is_initialized():
        ray.init(
            address=address,
            include_dashboard=False,
            ignore_reinit_error=True,
            logging_level="warning",
            log_to_driver=False,
        )
    if workers is None:
        workers = int(ray.cluster_resources().get("CPU", 1))
    if workers < 1:
        raise ValueError(f"workers must be 1 or more, not {workers}")
    return ray, workers


def _remote(ray, fn):
    return ray.remote(num_cpus=1, max_retries=2)(fn)


def _run_tasks(ray, task, jobs: Iterable[tuple], workers: int, on_result) -> None:
    """Runs ``task.remote(*job)`` for every job, at most ``workers`` at once,
    and gives each result to ``on_result(job, result)`` as it arrives (in
    the order they finish)."""
    jobs = iter(jobs)
    running = {}

    def submit():
        job = next(jobs, None)
        if job is not None:
            running[task.remote(*job)] = job

    for _ in range(workers):
        submit()
    try:
        while running:
            ready, _ = ray.wait(list(running), num_returns=1)
            for ref in ready:
                job = running.pop(ref)
                on_result(job, ray.get(ref))
                submit()
    finally:
        for ref in running:
            ray.cancel(ref)


def _chunks(items: Sequence, size: int) -> list:
    if size < 1:
        raise ValueError(f"a task must play 1 game or more, not {size}")
    return [items[i : i + size] for i in range(0, len(items), size)]


# ---------------------------------------------------------------- tournament


def _tournament_task(players, games_per_pair, games, seed, tc):
    from yolah import _yolah as y

    return y.tournament_games(players, games_per_pair, games, seed=seed, threads=1, tc=tc)


def tournament(
    players: Sequence[str],
    games_per_pair: int,
    out: str,
    seed: int = 0,
    tc: Optional[str] = None,
    anchor: Union[int, str] = 0,
    workers: Optional[int] = None,
    games_per_task: int = TOURNAMENT_GAMES_PER_TASK,
    address: Optional[str] = None,
    progress: Progress = None,
) -> dict:
    """Plays the round robin ``yolah tournament --players … --games-per-pair
    N --seed S --out OUT`` plays, as Ray tasks, appending each game to
    ``out`` (the same resumable JSONL file: a rerun plays only what is
    missing, and the command can read it). Returns what
    :func:`yolah.tournament` returns: ``players``, ``games`` and
    ``ratings`` with player ``anchor`` (an index or a spec) at 0."""
    store = _play_tournament(players, games_per_pair, out, seed, tc, workers, games_per_task,
                             address, progress)
    return store.result(anchor)


def _play_tournament(players, games_per_pair, out, seed, tc, workers, games_per_task, address,
                     progress) -> "_yolah.TournamentFile":
    """Plays the games of the tournament not yet in ``out`` and returns the
    file, still open (and locked)."""
    players = list(players)
    store = _yolah.TournamentFile(out, players, games_per_pair, seed, tc)
    todo = store.todo()
    done, total = store.progress()
    if progress:
        progress(done, total)
    if todo:
        ray, workers = _connect(address, workers)
        task = _remote(ray, _tournament_task)
        jobs = [(players, games_per_pair, chunk, seed, tc) for chunk in _chunks(todo, games_per_task)]

        def stored(_job, lines):
            store.append(lines)
            if progress:
                progress(*store.progress())

        _run_tasks(ray, task, jobs, workers, stored)
    return store


# ----------------------------------------------------------------- self-play


def _selfplay_task(player, first, end, seed, explore):
    from yolah import _yolah as y

    return y.selfplay_records(player, first, end, seed=seed, threads=1, explore=explore)


def selfplay(
    player: str,
    games: int,
    out: str,
    seed: int = 0,
    explore: float = 0.0,
    workers: Optional[int] = None,
    games_per_task: int = SELFPLAY_GAMES_PER_TASK,
    work_dir: Optional[str] = None,
    keep_shards: bool = False,
    address: Optional[str] = None,
    progress: Progress = None,
) -> dict:
    """Writes the training file ``yolah selfplay --player P --games N --seed
    S --explore E --out OUT`` writes, byte for byte, from Ray tasks of
    ``games_per_task`` games. Each task's positions are saved as a shard
    (``work_dir``, default ``OUT.shards/``: training file plus manifest, as
    ``--shard K/N`` writes them) as soon as it ends; a rerun skips the
    shards already there, then all are merged into ``out`` in game order
    and the shards removed unless ``keep_shards``. Returns ``player``,
    ``games``, ``seed``, ``explore`` and ``positions``."""
    _yolah.Player(player)  # a bad spec fails here, before any task
    if games < 1:
        raise ValueError(f"games must be 1 or more, not {games}")
    if not 0.0 <= explore <= 1.0:
        raise ValueError(f"explore must be a probability from 0 to 1, not {explore}")
    if games_per_task < 1:
        raise ValueError(f"a task must play 1 game or more, not {games_per_task}")
    count = -(-games // games_per_task)
    work_dir = work_dir or out + ".shards"
    os.makedirs(work_dir, exist_ok=True)
    shards = [f"{k}/{count}" for k in range(1, count + 1)]
    path = {s: os.path.join(work_dir, "shard-{}-of-{}.bin".format(*s.split("/"))) for s in shards}
    todo = [s for s in shards if not _yolah.selfplay_shard_done(path[s], player, games, seed, s, explore)]
    finished = [count - len(todo)]
    if progress:
        progress(finished[0], count)
    if todo:
        ray, workers = _connect(address, workers)
        task = _remote(ray, _selfplay_task)
        jobs = [(player, *_yolah.shard_range(s, games), seed, explore) for s in todo]
        shard_of = {job: s for job, s in zip(jobs, todo)}

        def saved(job, records):
            s = shard_of[job]
            _yolah.save_selfplay_shard(path[s], player, games, seed, s, records, explore)
            finished[0] += 1
            if progress:
                progress(finished[0], count)

        _run_tasks(ray, task, jobs, workers, saved)
    merged = _yolah.merge_selfplay([path[s] for s in shards], out)
    if not keep_shards:
        # Only what this run wrote: work_dir may be a folder of the user's.
        for s in shards:
            for f in (path[s], path[s] + ".shard.json"):
                try:
                    os.remove(f)
                except FileNotFoundError:
                    pass
        try:
            os.rmdir(work_dir)
        except OSError:
            pass  # not empty: other files of the user's are there
    return merged


# -------------------------------------------------------------- random games


def _random_games_task(first, count, seed):
    from yolah import _yolah as y

    return y.random_games(count, seed=seed, threads=1, first=first)


def random_games(
    games: int,
    seed: int = 0,
    workers: Optional[int] = None,
    games_per_task: int = RANDOM_GAMES_PER_TASK,
    address: Optional[str] = None,
) -> dict:
    """The counts ``yolah random-games --games N --seed S`` prints
    (``games``, ``black_wins``, ``white_wins``, ``draws``, ``plies``),
    from Ray tasks of ``games_per_task`` games each."""
    if games < 0:
        raise ValueError(f"games must be 0 or more, not {games}")
    if games_per_task < 1:
        raise ValueError(f"a task must play 1 game or more, not {games_per_task}")
    total = {"games": 0, "black_wins": 0, "white_wins": 0, "draws": 0, "plies": 0}
    if games == 0:
        return total
    ray, workers = _connect(address, workers)
    task = _remote(ray, _random_games_task)
    jobs = [(first, min(games_per_task, games - first), seed) for first in range(0, games, games_per_task)]

    def add(_job, counts):
        for key in total:
            total[key] += counts[key]

    _run_tasks(ray, task, jobs, workers, add)
    return total


# ------------------------------------------------------------ the command


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``yolah-ray`` (or ``python -m yolah.distributed``): the runs above
    from a shell. The options of each run are the ``yolah`` command's own
    (parsed and checked in Rust by the same definitions), and the table
    of a tournament is the one ``yolah tournament`` prints."""
    import json
    import sys
    import time

    argv = sys.argv[1:] if argv is None else list(argv)
    start = time.monotonic()
    try:
        args = _yolah.ray_command(argv)
        if "exit" in args:
            print(args["message"], end="", file=sys.stderr if args["stderr"] else sys.stdout)
            return args["exit"]
        common = {"workers": args["workers"], "address": args["address"]}
        per_task = args["games_per_task"]
        if args["command"] == "tournament":
            store = _play_tournament(args["players"], args["games_per_pair"], args["out"],
                                     args["seed"], args["tc"], args["workers"],
                                     per_task or TOURNAMENT_GAMES_PER_TASK, args["address"], None)
            print(store.table(args["anchor"], json=args["json"]), end="")
        elif args["command"] == "selfplay":
            info = selfplay(args["player"], args["games"], args["out"], seed=args["seed"],
                            explore=args["explore"], work_dir=args["work_dir"],
                            games_per_task=per_task or SELFPLAY_GAMES_PER_TASK, **common)
            print(f"{info['positions']} positions from {info['games']} games of "
                  f"{info['player']} written to {args['out']}")
        else:
            counts = random_games(args["games"], seed=args["seed"],
                                  games_per_task=per_task or RANDOM_GAMES_PER_TASK, **common)
            counts.update(seed=args["seed"], seconds=time.monotonic() - start)
            print(json.dumps(counts))
    except (_yolah.YolahError, ValueError, OSError) as e:
        print(f"yolah-ray: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = [
    "RANDOM_GAMES_PER_TASK",
    "SELFPLAY_GAMES_PER_TASK",
    "TOURNAMENT_GAMES_PER_TASK",
    "main",
    "random_games",
    "selfplay",
    "tournament",
]
