"""python/examples/alphazero.py: its replay buffer, and its self-play actor
processes met as separate processes (a killed actor stops the learner with
a message, never a hang)."""

import importlib.util
import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "examples" / "alphazero.py"


@pytest.fixture(scope="module")
def alphazero():
    spec = importlib.util.spec_from_file_location("alphazero_example", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def positions(n, first):
    """`n` positions whose result and root value say which they are."""
    from yolah.vector import MAX_MOVES

    return {
        "planes": np.zeros((n, 48), np.uint8),
        "scores": np.zeros((n, 2), np.uint8),
        "legal": np.zeros((n, MAX_MOVES), np.int16),
        "policy": np.zeros((n, MAX_MOVES), np.float16),
        "z": ((first + np.arange(n)) % 2 * 2 - 1).astype(np.int8),
        "margin": np.zeros(n, np.int8),
        "q": ((first + np.arange(n)) / 100).astype(np.float16),
    }


def test_the_replay_keeps_the_last_positions_and_mixes_the_value_target(alphazero):
    replay = alphazero.Replay(8)
    replay.add(positions(5, 0))
    replay.add(positions(6, 5))
    assert (replay.size, replay.next, replay.added) == (8, 3, 11)
    assert sorted(np.round(replay.q.astype(np.float64) * 100).astype(int)) == list(range(3, 11))
    # A chunk larger than the buffer keeps its last rows.
    replay.add(positions(20, 100))
    assert sorted(np.round(replay.q.astype(np.float64) * 100).astype(int)) == list(range(112, 120))
    rng = np.random.default_rng(0)
    _, _, _, value, _ = replay.sample(rng, 64, q_weight=0.0)
    assert set(value) <= {-1.0, 1.0}
    rng = np.random.default_rng(0)
    _, _, _, mixed, _ = replay.sample(rng, 64, q_weight=0.25)
    # The same rows (same draws): 0.75 z + 0.25 q.
    q = (mixed - 0.75 * value) / 0.25
    assert np.all((q > 1.1) & (q < 1.2))


def test_a_checkpoint_without_root_values_loads_with_the_results(alphazero):
    replay = alphazero.Replay(8)
    replay.add(positions(4, 0))
    state = {k: v for k, v in replay.state().items() if k != "replay_q"}
    again = alphazero.Replay(8)
    again.load(state)
    assert np.array_equal(again.q[:4], replay.z[:4].astype(np.float16))


def children(pid):
    with open(f"/proc/{pid}/task/{pid}/children") as f:
        return [int(c) for c in f.read().split()]


def command_line(pid):
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        return f.read().replace(b"\0", b" ").decode()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds the actor through /proc")
def test_a_killed_actor_stops_the_learner_with_a_message(tmp_path):
    run = tmp_path / "run"
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    learner = subprocess.Popen(
        [sys.executable, str(SCRIPT), "--dir", str(run), "--toy", "--minutes", "10", "--actors", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        # Training has started once the progress line shows a loss: the
        # actor has sent positions.
        seen, deadline = b"", time.monotonic() + 120
        while b"loss p" not in seen:
            left = deadline - time.monotonic()
            assert left > 0, f"no training after 120 s: {seen[-500:]!r}"
            ready, _, _ = select.select([learner.stderr], [], [], left)
            if ready:
                chunk = os.read(learner.stderr.fileno(), 65536)
                assert chunk, f"the learner stopped: {seen[-2000:]!r}"
                seen += chunk
        actors = [c for c in children(learner.pid) if "spawn_main" in command_line(c)]
        assert len(actors) == 2, [command_line(c) for c in children(learner.pid)]
        # One of them: the other goes on sending positions.
        os.kill(actors[1], signal.SIGKILL)
        _, err = learner.communicate(timeout=120)
    finally:
        if learner.poll() is None:
            learner.kill()
            # The actors see their learner gone and stop (closing its pipes).
            learner.communicate(timeout=120)
    assert learner.returncode != 0
    assert re.search(rb"self-play actor [01] died \(exit code -9\)", err), err[-2000:]
    # The work so far is kept, and no actor is left behind.
    assert (run / "checkpoint.npz").exists()
    for pid in actors:
        assert not os.path.exists(f"/proc/{pid}") or "spawn_main" not in command_line(pid)
