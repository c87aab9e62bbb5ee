"""AlphaZero on a laptop: self-play with the batched search (yolah.search)
over a vector of games (yolah.vector), a small policy-value network in
NumPy (yolah.aznet: forward, backward, Adam), a replay buffer read through
the eight board symmetries, checkpoints that resume, and evaluation games
of the exported network (the native `az` player) against `mcts` and
`alphabeta` at fixed budgets, plotted against training time.

    python python/examples/alphazero.py --dir runs/az --hours 2
    python python/examples/alphazero.py --dir /tmp/az --toy --minutes 0.5   # CI

Everything lives in --dir: checkpoint.npz (network, optimiser, replay
buffer, counters: run the same command again to resume), nets/ (the
exported networks, each playable as `az:net=FILE`), log.jsonl (one line an
evaluation) and strength.png. Training time counts self-play and training,
not evaluation or checkpoints; it is wall time, and the CPU time of the
process is logged beside it (the machine may be shared).

Self-play follows AlphaZero with KataGo's playout-cap randomisation: a
quarter of the moves get a full search (--sims, Dirichlet noise at the
root) and become training positions; the others get a fast search
(--fast-sims, no noise) that only moves the game on, so that a move costs
64 simulations on average instead of 160 (with the defaults: 0.25 x 160 +
0.75 x 32), and games, and so value targets, come faster. The first
--sample-plies plies of a
game are drawn in proportion to the visits, later ones are the most
visited move. The value target is the result for the side to move; a
training-only head also learns the final margin of points (KataGo's
auxiliary targets in miniature), which speeds up the value's learning.
With --q-weight, the value target mixes in the full search's root value.

Self-play runs in --actors processes (spawned; 2 by default) beside the
learner: an actor plays with the weights the learner last published
(shared memory, every --publish-every steps) and sends the positions of
its finished games through a queue of at most --queue messages. The
learner takes them between training steps, trains at most --train-ratio
positions for each one received, and waits for the actors only when it
has nothing to train on. Evaluations and checkpoints pause the actors
(training time does not count them). An actor's error or death stops the
run with its message, after a checkpoint. --actors 0: self-play and
training take turns in one process.
"""

import os

# One BLAS thread: the search has its own threads, and the machine may be
# shared; NumPy's default (every core) thrashes on small matrices.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import multiprocessing  # noqa: E402
import signal  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from queue import Empty, Full  # noqa: E402

import numpy as np  # noqa: E402

import yolah  # noqa: E402
from yolah.aznet import NAMES, Adam, Network, transform  # noqa: E402
from yolah.search import Search  # noqa: E402
from yolah.vector import MAX_MOVES, VectorEnv  # noqa: E402


class Replay:
    """The last `capacity` training positions: packed planes, scores, the
    root's moves and their visit distribution, and the result."""

    def __init__(self, capacity):
        self.capacity = capacity
        # The four planes, then the two reach planes (zero when unused).
        self.planes = np.zeros((capacity, 48), np.uint8)
        self.scores = np.zeros((capacity, 2), np.uint8)
        self.legal = np.full((capacity, MAX_MOVES), -1, np.int16)
        self.policy = np.zeros((capacity, MAX_MOVES), np.float16)
        self.z = np.zeros(capacity, np.int8)
        self.margin = np.zeros(capacity, np.int8)
        # The full search's root value for the side to move.
        self.q = np.zeros(capacity, np.float16)
        self.size = 0
        self.next = 0
        self.added = 0

    def add(self, positions):
        """Adds a dict of arrays (as `SelfPlay` makes them), one row a
        position."""
        n = len(positions["z"])
        # The rows written, wrapping around; a chunk larger than the buffer
        # keeps its last `capacity` rows.
        rows = (self.next + np.arange(n)) % self.capacity
        keep = slice(max(0, n - self.capacity), n)
        for name in ("planes", "scores", "legal", "policy", "z", "margin", "q"):
            getattr(self, name)[rows[keep]] = positions[name][keep]
        self.next = (self.next + n) % self.capacity
        self.size = min(self.size + n, self.capacity)
        self.added += n

    def sample(self, rng, n, q_weight=0.0):
        """A batch under a random symmetry each: (observations, legal,
        target, value target, margin). The value target is the result,
        mixed with the search's root value with weight `q_weight`."""
        idx = rng.integers(0, self.size, n)
        planes = np.unpackbits(self.planes[idx], axis=1).reshape(n, 6, 8, 8)
        planes, legal = transform(planes, self.legal[idx], rng.integers(0, 8, n))
        obs = {"observation": planes[:, :4], "reach": planes[:, 4:], "scores": self.scores[idx]}
        target = self.policy[idx].astype(np.float32)
        value = (1 - q_weight) * self.z[idx].astype(np.float32) + q_weight * self.q[idx].astype(np.float32)
        return obs, legal.astype(np.int64), target, value, self.margin[idx].astype(np.float32)

    def state(self):
        n = self.size
        return {
            "replay_planes": self.planes[:n],
            "replay_scores": self.scores[:n],
            "replay_legal": self.legal[:n],
            "replay_policy": self.policy[:n],
            "replay_z": self.z[:n],
            "replay_margin": self.margin[:n],
            "replay_q": self.q[:n],
            "replay_next": self.next,
            "replay_added": self.added,
        }

    def load(self, state):
        n = len(state["replay_z"])
        if n > len(self.z):
            sys.exit(f"the checkpoint holds {n} positions, more than --buffer {len(self.z)}: "
                     f"resume with --buffer {n} or more")
        self.planes[:n] = state["replay_planes"]
        self.scores[:n] = state["replay_scores"]
        self.legal[:n] = state["replay_legal"]
        self.policy[:n] = state["replay_policy"]
        self.z[:n] = state["replay_z"]
        self.margin[:n] = state["replay_margin"]
        # Checkpoints from before the root values were kept: the result.
        self.q[:n] = state["replay_q"] if "replay_q" in state else state["replay_z"]
        self.size, self.next, self.added = n, int(state["replay_next"]), int(state["replay_added"])


class SelfPlay:
    """`games` games played at once by the batched search with a network;
    each move returns the positions of the games it finished."""

    def __init__(self, args, seed, threads):
        n = args.games
        self.args = args
        self.env = VectorEnv(n, threads=threads, autoreset_mode="SameStep", action_mask=None, reach=True, copy=False)
        self.obs, info = self.env.reset(seed=seed)
        self.to_play = info["to_play"].copy()
        self.search = Search(n, threads=threads, seed=seed, max_nodes=args.max_nodes)
        self.rng = np.random.default_rng(seed)
        self.ply = np.zeros(n, np.int64)
        # Per game, the positions recorded and the colour to move in each.
        self.pending = [[] for _ in range(n)]
        self.pending_colours = [[] for _ in range(n)]
        self.games = 0
        self.moves = 0
        self.results = {"black": 0, "white": 0, "draw": 0}

    def move(self, net):
        """One move in every game; returns the number of positions recorded
        and the positions of the games finished (a dict of arrays for
        `Replay.add`, None if no game ended with positions)."""
        a = self.args
        n = a.games
        full = self.rng.random(n) < a.full_fraction
        sims = np.where(full, a.sims, a.fast_sims)
        temperature = np.where(self.ply < a.sample_plies, 1.0, 0.0)
        out = self.search.run(self.env, net, sims, temperature=temperature, add_noise=full)
        planes = np.packbits(
            np.concatenate([self.obs["observation"].reshape(n, 256), self.obs["reach"].reshape(n, 128)], axis=1), axis=1
        )
        scores = self.obs["scores"].copy()
        recorded = 0
        visits = out.visit_counts.astype(np.float32)
        policy = visits / np.maximum(visits.sum(axis=1, keepdims=True), 1)
        for i in np.flatnonzero(full):
            self.pending[i].append((planes[i], scores[i], out.legal_actions[i].copy(), policy[i].astype(np.float16),
                                    out.root_value[i]))
            self.pending_colours[i].append(self.to_play[i])
            recorded += 1
        self.obs, _, terminated, _, info = self.env.step(out.action)
        self.to_play = info["to_play"].copy()
        self.ply += 1
        self.moves += n
        finished = []
        for i in np.flatnonzero(terminated):
            colour_rewards = info["rewards"][i]
            points = info["points"][i].astype(np.int64)
            black = colour_rewards[0]
            self.results["black" if black > 0 else "white" if black < 0 else "draw"] += 1
            if self.pending[i]:
                colours = self.pending_colours[i]
                finished.extend(
                    (*position, colour_rewards[c], points[c] - points[1 - c])
                    for position, c in zip(self.pending[i], colours)
                )
            self.pending[i], self.pending_colours[i] = [], []
            self.ply[i] = 0
            self.games += 1
        if not finished:
            return recorded, None
        columns = list(zip(*finished))
        positions = {
            name: np.array(column, dtype)
            for name, column, dtype in zip(
                ("planes", "scores", "legal", "policy", "q", "z", "margin"),
                columns,
                (np.uint8, np.uint8, np.int16, np.float16, np.float16, np.int8, np.int8),
            )
        }
        return recorded, positions


class ActorFailed(RuntimeError):
    """A self-play actor process died."""


def actor_main(options, layout, seed, queue, weights, version, lock, running, stop):
    """A self-play actor (run in its own process): plays with the latest
    weights the learner has published and sends the positions of its
    finished games, with its counters, through the bounded `queue`. It
    stops when `stop` is set or the learner is gone; an error ends the
    process with its traceback on stderr (the learner reports the exit).
    Ctrl-C is the learner's to handle: it stops the actors through `stop`."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Nothing waits, at exit, for messages the learner will never read.
    queue.cancel_join_thread()
    args = argparse.Namespace(**options)
    learner = multiprocessing.parent_process()
    selfplay = SelfPlay(args, seed, threads=1)
    net, seen = None, None
    games_sent, cpu_sent = 0, time.process_time()
    while not stop.is_set() and learner.is_alive():
        if not running.wait(timeout=1.0):
            continue
        if version.value != seen:
            with lock:
                flat = np.frombuffer(weights, np.float32).copy()
                seen = version.value
            net = Network(unflatten(flat, layout))
        _, positions = selfplay.move(net)
        if positions is None:
            continue
        cpu = time.process_time()
        stats = {"games": selfplay.games - games_sent, "cpu": cpu - cpu_sent, "version": seen}
        games_sent, cpu_sent = selfplay.games, cpu
        # A full queue means the learner is busy: wait for room, unless it
        # stops or is gone.
        while not stop.is_set() and learner.is_alive():
            try:
                queue.put((positions, stats), timeout=1.0)
                break
            except Full:
                pass


def flatten(net, layout):
    return np.concatenate([net.params[name].ravel() for name, _ in layout])


def unflatten(flat, layout):
    params, at = {}, 0
    for name, shape in layout:
        n = int(np.prod(shape))
        params[name] = flat[at : at + n].reshape(shape)
        at += n
    return params


class Actors:
    """`count` self-play processes (started with `spawn`, one BLAS and one
    search thread each) fed with the learner's weights through shared
    memory and sending positions through a queue of at most `args.queue`
    messages. An actor's death raises `ActorFailed` in the learner."""

    def __init__(self, args, net, seed, count):
        ctx = multiprocessing.get_context("spawn")
        self.layout = [(name, net.params[name].shape) for name in NAMES]
        self.weights = ctx.RawArray("f", sum(int(np.prod(shape)) for _, shape in self.layout))
        self.version = ctx.RawValue("q", 0)
        self.lock = ctx.Lock()
        self.queue = ctx.Queue(maxsize=args.queue)
        self.running, self.stop = ctx.Event(), ctx.Event()
        self.running.set()
        self.publish(net)
        options = {k: v for k, v in vars(args).items() if k in SELFPLAY_OPTIONS}
        self.processes = [
            ctx.Process(
                target=actor_main,
                args=(options, self.layout, seed + 7 * i, self.queue, self.weights, self.version, self.lock,
                      self.running, self.stop),
                name=f"self-play actor {i}",
                daemon=True,
            )
            for i in range(count)
        ]
        for p in self.processes:
            p.start()

    def publish(self, net):
        """Makes `net`'s weights the ones the actors play with next."""
        flat = flatten(net, self.layout)
        with self.lock:
            np.frombuffer(self.weights, np.float32)[:] = flat
            self.version.value += 1

    def pause(self):
        """The actors stop after their current move (for evaluations and
        checkpoints, which training time does not count)."""
        self.running.clear()

    def resume(self):
        self.running.set()

    def receive(self, wait):
        """The messages waiting, `(positions, stats)` each; with `wait`,
        blocks until one comes (checking every second that the actors
        live). Raises `ActorFailed` if an actor has died."""
        self.check()
        messages = []
        while True:
            try:
                message = self.queue.get(timeout=1.0) if wait and not messages else self.queue.get_nowait()
            except Empty:
                if messages or not wait:
                    return messages
                self.check()
                continue
            messages.append(message)

    def check(self):
        """Raises `ActorFailed` if an actor has died."""
        for i, p in enumerate(self.processes):
            if not p.is_alive():
                # An error's traceback is on stderr, above.
                raise ActorFailed(f"self-play actor {i} died (exit code {p.exitcode})")

    def close(self):
        """Stops the actors and waits for them (terminating any that do
        not stop within 10 s)."""
        self.stop.set()
        self.running.set()
        deadline = time.monotonic() + 10.0
        for p in self.processes:
            while p.is_alive() and time.monotonic() < deadline:
                # Empty the queue so that no actor stays blocked on it.
                try:
                    self.queue.get(timeout=0.1)
                except Empty:
                    pass
                p.join(timeout=0.1)
            if p.is_alive():
                p.terminate()
                p.join()
        self.queue.close()
        self.queue.cancel_join_thread()


#: The options a self-play actor reads.
SELFPLAY_OPTIONS = ("games", "sims", "fast_sims", "full_fraction", "sample_plies", "max_nodes")


def export(net, directory, name):
    os.makedirs(os.path.join(directory, "nets"), exist_ok=True)
    path = os.path.join(directory, "nets", f"{name}.bin")
    net.save(path + ".tmp")
    os.replace(path + ".tmp", path)
    return path


def evaluate(path, args, seed):
    """Matches of the exported network against each opponent, paired
    openings, as `yolah match` plays them."""
    results = {}
    for opponent in args.opponents:
        r = yolah.play_match(
            f"az:net={path},sims={args.eval_sims}", opponent, games=args.eval_games, seed=seed, threads=args.threads
        )
        results[opponent] = {
            "score": round(r["a_points"] / r["games"], 4),
            "wins": r["a_wins"],
            "draws": r["draws"],
            "losses": r["b_wins"],
            "elo": r["elo_diff"],
            # Infinite after a sweep (one-sided interval): None, so that the
            # log stays JSON.
            "elo_ci95": r["elo_ci95"] if math.isfinite(r["elo_ci95"]) else None,
        }
    return results


def save_checkpoint(path, net, opt, replay, counters):
    state = {f"param_{k}": v for k, v in net.params.items()}
    state.update({f"adam_m_{k}": v for k, v in opt.m.items()})
    state.update({f"adam_v_{k}": v for k, v in opt.v.items()})
    state.update(replay.state())
    state["adam_t"] = opt.t
    state["counters"] = json.dumps(counters)
    with open(path + ".tmp", "wb") as f:
        np.savez(f, **state)
    os.replace(path + ".tmp", path)


def load_checkpoint(path, replay):
    data = np.load(path)
    params = {k[len("param_"):]: data[k] for k in data.files if k.startswith("param_")}
    net = Network(params)
    opt = Adam(net.params)
    opt.load_state(
        {
            "t": int(data["adam_t"]),
            "m": {k: data[f"adam_m_{k}"].copy() for k in params},
            "v": {k: data[f"adam_v_{k}"].copy() for k in params},
        }
    )
    replay.load(data)
    return net, opt, json.loads(str(data["counters"]))


def can_plot():
    """Whether matplotlib is there to draw strength.png; without it the run
    goes on (log.jsonl has the same figures) and says so once."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("alphazero.py: matplotlib is not installed, so there will be no strength.png "
              "(log.jsonl has the same figures; pip install matplotlib to draw it)", file=sys.stderr)
        return False
    return True


def plot(directory, log):
    """strength.png: the score against each opponent by training time, and
    the losses."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    evals = [e for e in log if e.get("eval")]
    if not evals:
        return
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 7), sharex=True, gridspec_kw={"height_ratios": [3, 2]})
    minutes = [e["train_seconds"] / 60 for e in evals]
    for opponent in evals[-1]["eval"]:
        scores = np.array([e["eval"].get(opponent, {}).get("score", np.nan) for e in evals])
        games = np.array([e["eval_games"] for e in evals])
        # The 95% interval of a score over that many games (draws ignored).
        spread = 1.96 * np.sqrt(np.clip(scores * (1 - scores), 0.01, None) / games)
        top.errorbar(minutes, scores, yerr=spread, marker="o", capsize=3, label=f"vs {opponent}")
    top.axhline(0.5, color="grey", lw=0.8, ls=":")
    top.axhline(0.6, color="grey", lw=0.8, ls="--")
    top.set_ylim(0, 1)
    top.set_ylabel("score of az (1 win, ½ draw)")
    top.set_title(f"az, {evals[-1]['eval_sims']} simulations a move, {evals[-1]['eval_games']} games a point")
    top.legend(loc="upper left", fontsize=8)
    loss = lambda key: [np.nan if e[key] is None else e[key] for e in evals]
    bottom.plot(minutes, loss("loss_policy"), label="policy loss")
    bottom.plot(minutes, loss("loss_value"), label="value loss")
    bottom.set_xlabel("training time (minutes: self-play and training, wall clock)")
    bottom.legend(fontsize=8)
    # The machine may be shared: the process's CPU time at each point, above.
    cpu = top.twiny()
    cpu.set_xlim(top.get_xlim())
    cpu.set_xticks(minutes)
    digits = 0 if evals[-1]["cpu_seconds"] >= 600 else 1
    cpu.set_xticklabels([f"{e['cpu_seconds'] / 60:.{digits}f}" for e in evals], fontsize=7)
    cpu.set_xlabel("CPU minutes of the run (learner and actors)", fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(directory, "strength.png") + ".tmp.png", dpi=100)
    os.replace(os.path.join(directory, "strength.png") + ".tmp.png", os.path.join(directory, "strength.png"))
    plt.close(fig)


class Progress:
    """One line on stderr, rewritten in place."""

    def __init__(self, total):
        self.total = total
        self.last = 0.0

    def show(self, done, text, force=False):
        now = time.monotonic()
        if not force and now - self.last < 1.0:
            return
        self.last = now
        frac = min(done / self.total, 1.0) if self.total else 1.0
        bar = "#" * int(30 * frac) + "." * (30 - int(30 * frac))
        line = f"\r[{bar}] {100 * frac:5.1f}% {done / 60:6.1f}/{self.total / 60:.1f} min {text}"
        sys.stderr.write(line[:200].ljust(120))
        sys.stderr.flush()


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dir", default="runs/alphazero", help="run directory (resumed if it has a checkpoint)")
    p.add_argument("--hours", type=float, default=2.0, help="training time to reach")
    p.add_argument("--minutes", type=float, help="training time to reach, in minutes (instead of --hours)")
    p.add_argument("--toy", action="store_true",
                   help="tiny sizes, for CI: sets --games, --sims, --fast-sims, --hidden, --rank, --batch, --buffer, "
                        "--min-buffer, --eval-games, --eval-sims, --eval-every, --checkpoint-every and --opponents, "
                        "over any given")
    p.add_argument("--games", type=int, default=128,
                   help="games played at once by each actor (by the learner with --actors 0)")
    p.add_argument("--sims", type=int, default=160, help="simulations of a full search")
    p.add_argument("--fast-sims", type=int, default=32, help="simulations of a fast search")
    p.add_argument("--full-fraction", type=float, default=0.25, help="share of moves with a full search")
    p.add_argument("--sample-plies", type=int, default=10, help="plies drawn in proportion to the visits")
    p.add_argument("--max-nodes", type=int, default=1 << 14, help="tree size a game")
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--rank", type=int, default=8)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--reach", action=argparse.BooleanOptionalAction, default=True,
                   help="the network reads the reach planes (where each side's pieces can move)")
    p.add_argument("--margin-weight", type=float, default=0.5,
                   help="weight of the training-only final-margin head (0: none)")
    p.add_argument("--train-ratio", type=float, default=8.0, help="positions trained on per position recorded")
    p.add_argument("--buffer", type=int, default=150_000)
    p.add_argument("--min-buffer", type=int, default=4096)
    p.add_argument("--eval-every", type=float, default=10.0, help="minutes of training between evaluations")
    p.add_argument("--eval-games", type=int, default=40)
    p.add_argument("--eval-sims", type=int, default=200)
    p.add_argument("--opponents", default="mcts:iterations=2000;mcts:iterations=20000;alphabeta:depth=2",
                   help="';'-separated player specs")
    p.add_argument("--checkpoint-every", type=float, default=5.0, help="minutes")
    p.add_argument("--cpu-minutes", type=float,
                   help="stop at this much CPU time of all the processes instead (for comparisons on a shared machine)")
    p.add_argument("--q-weight", type=float, default=0.0,
                   help="value target: the result mixed with the full search's root value at this weight")
    p.add_argument("--actors", type=int, default=2,
                   help="self-play processes beside the learner (0: self-play and training take turns in one process)")
    p.add_argument("--publish-every", type=int, default=10, help="training steps between weights sent to the actors")
    p.add_argument("--queue", type=int, default=64, help="messages of positions waiting for the learner, at most")
    p.add_argument("--threads", type=int, default=2,
                   help="threads of the evaluation games, and of self-play with --actors 0")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    if args.toy:
        args.games, args.sims, args.fast_sims, args.hidden, args.rank = 16, 16, 4, 32, 2
        args.batch, args.buffer, args.min_buffer, args.eval_games, args.eval_sims = 64, 20_000, 256, 2, 16
        args.eval_every, args.checkpoint_every = 0.25, 0.25
        args.opponents = "mcts:iterations=200;alphabeta:depth=1"
    args.opponents = [o.strip() for o in args.opponents.split(";") if o.strip()]
    args.cpu_budget = args.cpu_minutes is not None
    if args.cpu_budget:
        args.budget = args.cpu_minutes * 60
    else:
        args.budget = args.minutes * 60 if args.minutes is not None else args.hours * 3600
    for name, value in (("minutes", args.minutes), ("hours", args.hours), ("cpu-minutes", args.cpu_minutes)):
        if value is not None and not value > 0:
            p.error(f"--{name} {value}: the training time must be more than 0")
    for name in ("games", "sims", "fast_sims", "eval_games", "eval_sims", "buffer", "batch"):
        if getattr(args, name, 1) < 1:
            p.error(f"--{name.replace('_', '-')} {getattr(args, name)}: must be at least 1")
    # Only moves with a full search are learnt from, and training waits for
    # --min-buffer of them: settings that never reach it would self-play
    # to the end of the budget and export an untrained network.
    if not 0 < args.full_fraction <= 1:
        p.error(f"--full-fraction {args.full_fraction}: must be more than 0 and at most 1 "
                "(only moves with a full search are learnt from)")
    if args.min_buffer > args.buffer:
        p.error(f"--min-buffer {args.min_buffer} is more than --buffer {args.buffer}: "
                "training would never start")
    if not args.train_ratio > 0:
        p.error(f"--train-ratio {args.train_ratio}: must be more than 0")
    for spec in args.opponents:
        try:
            yolah.Player(spec)
        except yolah.YolahError as e:
            p.error(f"--opponents: {e}")
    if os.path.exists(args.dir) and not os.path.isdir(args.dir):
        p.error(f"--dir {args.dir}: is a file, not a directory")
    for name in ("actors", "queue", "publish_every"):
        if getattr(args, name) < (0 if name == "actors" else 1):
            p.error(f"--{name.replace('_', '-')} {getattr(args, name)}: too small")
    return args


def main(argv=None):
    args = parse_args(argv)
    plotting = can_plot()
    os.makedirs(args.dir, exist_ok=True)
    checkpoint = os.path.join(args.dir, "checkpoint.npz")
    log_path = os.path.join(args.dir, "log.jsonl")
    replay = Replay(args.buffer)
    if os.path.exists(checkpoint):
        net, opt, counters = load_checkpoint(checkpoint, replay)
        print(f"resuming {args.dir}: {counters['train_seconds'] / 60:.1f} min trained, "
              f"{counters['games']} games, {replay.added} positions", file=sys.stderr)
    else:
        net = Network.init(args.hidden, args.hidden, args.rank, seed=args.seed, margin_head=args.margin_weight > 0,
                           reach=args.reach)
        opt = Adam(net.params, lr=args.lr)
        counters = {"train_seconds": 0.0, "cpu_seconds": 0.0, "games": 0, "steps": 0, "evals": 0,
                    "session": 0, "next_eval": 0.0, "trained": 0.0, "margin_weight": args.margin_weight}
    opt.lr = args.lr
    counters["session"] += 1
    log = []
    if os.path.exists(log_path):
        with open(log_path) as f:
            log = [json.loads(line) for line in f if line.strip()]
    # A new session plays new games: its seed differs from the last one's.
    seed = args.seed * 1000 + counters["session"]
    rng = np.random.default_rng(args.seed * 7919 + counters["session"])
    stop = {"now": False}
    signal.signal(signal.SIGTERM, lambda *_: stop.update(now=True))
    # The budget's clock: wall time of self-play and training, or the CPU
    # time of every process.
    clock = "cpu_seconds" if args.cpu_budget else "train_seconds"
    progress = Progress(args.budget)
    losses = []
    last_checkpoint = time.monotonic()
    actors = selfplay = failure = None
    # This session's figures, for the summary: wall time of self-play and
    # training, the learner's time waiting for the actors, and CPU time.
    session = {"seconds": 0.0, "waiting": 0.0, "learner_cpu": 0.0, "actors_cpu": 0.0, "games": 0, "positions": 0,
               "steps": 0}

    def save():
        if actors:
            actors.pause()
        save_checkpoint(checkpoint, net, opt, replay, counters)

    def run_eval():
        path = export(net, args.dir, f"net-{counters['evals']:03d}")
        # No training step yet in this process (a resumed run starts its
        # window of losses afresh): no loss to report, null in the log
        # (strict JSON has no NaN).
        recent = losses[-200:]
        mean = lambda key: float(np.mean([x.get(key, 0.0) for x in recent])) if recent else None
        entry = {
            "train_seconds": round(counters["train_seconds"], 1),
            "cpu_seconds": round(counters["cpu_seconds"], 1),
            "games": counters["games"],
            "positions": replay.added,
            "steps": counters["steps"],
            "net": os.path.relpath(path, args.dir),
            "loss_policy": mean("policy"),
            "loss_value": mean("value"),
            "loss_margin": mean("margin"),
            "eval_sims": args.eval_sims,
            "eval_games": args.eval_games,
            "eval": evaluate(path, args, seed=counters["evals"]),
        }
        counters["evals"] += 1
        log.append(entry)
        with open(log_path, "a") as f:
            f.write(json.dumps(entry) + "\n")
        if plotting:
            plot(args.dir, log)
        return entry

    def add(positions):
        """Puts a chunk of finished games' positions into the buffer and
        owes `--train-ratio` training positions for each."""
        replay.add(positions)
        session["positions"] += len(positions["z"])
        if replay.size >= args.min_buffer:
            counters["trained"] += len(positions["z"]) * args.train_ratio / args.batch

    def train_step():
        counters["trained"] -= 1
        obs, legal, target, value, margin = replay.sample(rng, args.batch, args.q_weight)
        loss, grads = net.loss_and_gradients(obs, legal, target, value, margin=margin,
                                             margin_weight=args.margin_weight)
        opt.step(net.params, grads)
        counters["steps"] += 1
        session["steps"] += 1
        losses.append(loss)

    last_eval = log[-1]["eval"] if log else {}
    try:
        if args.actors:
            actors = Actors(args, net, seed, args.actors)
        else:
            selfplay = SelfPlay(args, seed, threads=args.threads)
        while counters[clock] < args.budget and not stop["now"]:
            wall, cpu = time.perf_counter(), time.process_time()
            if actors:
                # The learner trains one step at a time and takes what the
                # actors sent between steps; it waits for them only when
                # it owes no training.
                owed = replay.size >= args.min_buffer and counters["trained"] >= 1
                waited = time.perf_counter()
                messages = actors.receive(wait=not owed)
                if not owed:
                    session["waiting"] += time.perf_counter() - waited
                for positions, stats in messages:
                    add(positions)
                    counters["games"] += stats["games"]
                    counters["cpu_seconds"] += stats["cpu"]
                    session["games"] += stats["games"]
                    session["actors_cpu"] += stats["cpu"]
                if replay.size >= args.min_buffer and counters["trained"] >= 1:
                    train_step()
                    if counters["steps"] % args.publish_every == 0:
                        actors.publish(net)
            else:
                games = selfplay.games
                _, positions = selfplay.move(net)
                counters["games"] += selfplay.games - games
                session["games"] += selfplay.games - games
                if positions is not None:
                    add(positions)
                while replay.size >= args.min_buffer and counters["trained"] >= 1:
                    train_step()
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            counters["train_seconds"] += wall
            counters["cpu_seconds"] += cpu
            session["seconds"] += wall
            session["learner_cpu"] += cpu
            recent = losses[-50:]
            text = (f"games {counters['games']} pos {replay.added} steps {counters['steps']}"
                    + (f" loss p {np.mean([x['policy'] for x in recent]):.2f} v {np.mean([x['value'] for x in recent]):.3f}" if recent else "")
                    + "".join(f" | {o.split(':')[0]}{o.split('=')[-1] if '=' in o else ''} {r['score']:.2f}" for o, r in last_eval.items()))
            progress.show(counters[clock], text)
            if counters["train_seconds"] >= counters["next_eval"]:
                counters["next_eval"] = counters["train_seconds"] + args.eval_every * 60
                progress.show(counters[clock], text + " | evaluating…", force=True)
                if actors:
                    actors.pause()
                last_eval = run_eval()["eval"]
            if time.monotonic() - last_checkpoint > args.checkpoint_every * 60:
                save()
                last_checkpoint = time.monotonic()
            if actors:
                actors.resume()
    except KeyboardInterrupt:
        pass
    except ActorFailed as e:
        failure = e
    finally:
        if actors:
            actors.close()
    save()
    if failure:
        # The work so far is kept; the run stops with the actor's error.
        sys.exit(f"alphazero.py: {failure} (checkpoint saved in {checkpoint})")
    if counters[clock] >= args.budget and (not log or log[-1]["steps"] != counters["steps"]):
        last_eval = run_eval()["eval"]
    export(net, args.dir, "last")
    sys.stderr.write("\n")
    print(json.dumps({"train_minutes": round(counters["train_seconds"] / 60, 2),
                      "cpu_minutes": round(counters["cpu_seconds"] / 60, 2),
                      "games": counters["games"], "positions": replay.added,
                      "steps": counters["steps"], "eval": last_eval,
                      "session": {k: round(v, 1) for k, v in session.items()}}))


if __name__ == "__main__":
    main()
