"""yolah.search: determinism, visit counts, noise at the root only, the
memory bound, the evaluator's batches; and the NumPy network (gradients,
symmetries, its file read by the Rust player)."""

import numpy as np
import pytest

pytest.importorskip("gymnasium")

import yolah  # noqa: E402
from yolah.aznet import Adam, Network, SYMMETRIES, transform  # noqa: E402
from yolah.search import AzNetwork, Search  # noqa: E402
from yolah.vector import VectorEnv, unpack_mask  # noqa: E402


def uniform(observations, masks):
    n = len(masks)
    return np.zeros((n, 4096), np.float32), np.zeros(n, np.float32)


def hashed(observations, masks):
    """Logits and values that depend on the position (a fixed random
    projection of the planes), to make priors and values uneven."""
    x = observations["observation"].reshape(len(observations["scores"]), -1).astype(np.float32)
    rng = np.random.default_rng(0)
    w = rng.standard_normal((256, 64)).astype(np.float32)
    h = np.tanh(x @ w / 8)
    logits = np.repeat(h, 64, axis=1)
    return logits, h[:, 0]


def softmax_at(logits, legal):
    x = logits[legal]
    e = np.exp(x - x.max())
    return e / e.sum()


def test_a_seed_repeats_the_search_whatever_the_threads():
    def play(threads, seed):
        env = VectorEnv(70, observation=False, action_mask=None)
        env.reset()
        search = Search(70, threads=threads, seed=seed)
        moves = []
        for _ in range(6):
            out = search.run(env, hashed, 30, temperature=1.0)
            moves.append((out.action.copy(), out.visit_counts.copy()))
            env.step(out.action)
        return moves

    one = play(1, 3)
    for (a, va), (b, vb) in zip(one, play(2, 3)):
        assert np.array_equal(a, b) and np.array_equal(va, vb)
    assert any(not np.array_equal(a, b) for (a, _), (b, _) in zip(one, play(1, 4)))


def test_visits_add_up_and_trees_are_kept():
    env = VectorEnv(4, observation=False, action_mask=None)
    env.reset()
    search = Search(4)
    out = search.run(env, hashed, 50)
    assert out.calls == 51, "one call a round, and one for the roots"
    assert np.all(out.visit_counts.sum(axis=1) == 50)
    legal = yolah.Position().action_mask()
    for i in range(4):
        n = int((out.legal_actions[i] >= 0).sum())
        assert sorted(out.legal_actions[i, :n]) == list(np.flatnonzero(legal))
    weights = out.action_weights
    assert np.allclose(weights.sum(axis=1), 1)
    kept = out.visit_counts[0][out.legal_actions[0] == out.action[0]][0]
    env.step(out.action)
    out = search.run(env, hashed, 20)
    assert out.visit_counts[0].sum() == kept - 1 + 20, "the child's visits, its first one the root's value"


def test_noise_is_at_the_root_only():
    env = VectorEnv(1, observation=False, action_mask=None)
    env.reset()
    search = Search(1, seed=2)
    out = search.run(env, hashed, 40, add_noise=True)
    legal = out.legal_actions[0][out.legal_actions[0] >= 0]
    obs = {"observation": yolah.Position().observation().astype(np.uint8)[None], "scores": np.zeros((1, 2), np.uint8)}
    clean = softmax_at(hashed(obs, np.zeros((1, 4096), bool))[0][0], legal)
    noisy = np.array(search.root_priors(0))
    assert not np.allclose(noisy, clean, atol=1e-4)
    assert np.isclose(noisy.sum(), 1, atol=1e-4)
    search.run(env, hashed, 1, add_noise=False)
    assert np.allclose(search.root_priors(0), clean, atol=1e-6)
    # The child the game moves to was expanded below the root, without
    # noise: its priors are the evaluator's.
    search.run(env, hashed, 1, add_noise=True)
    best = out.legal_actions[0][np.argmax(out.visit_counts[0])]
    env.step([best])
    pos = yolah.Position()
    pos.play(yolah.Move.from_action(int(best)))
    out = search.run(env, hashed, 1, add_noise=False)
    legal = out.legal_actions[0][out.legal_actions[0] >= 0]
    obs = {"observation": pos.observation().astype(np.uint8)[None], "scores": np.array([[0, 1]], np.uint8)}
    assert np.allclose(search.root_priors(0), softmax_at(hashed(obs, None)[0][0], legal), atol=1e-6)


def test_memory_is_bounded():
    env = VectorEnv(3, observation=False, action_mask=None)
    env.reset()
    search = Search(3, max_nodes=300)
    for _ in range(3):
        out = search.run(env, uniform, 400)
        assert max(search.tree_sizes()) <= 300
        env.step(out.action)
    assert out.visit_counts.sum() >= 3 * 400


def test_an_evaluator_that_returns_one_array_is_told_what_to_return():
    env = VectorEnv(2, observation=False, action_mask=None)
    env.reset()
    for wrong in [lambda o, m: np.zeros((len(m), 4096), np.float32), lambda o, m: np.zeros(2, np.float32)]:
        with pytest.raises(yolah.YolahError, match=r"evaluate must return \(logits, values\)"):
            Search(2).run(env, wrong, 10)


def test_the_evaluator_sees_each_leaf_once_a_round():
    seen = []

    def evaluate(observations, masks):
        planes = observations["observation"]
        assert planes.dtype == np.uint8 and masks.dtype == np.bool_
        assert np.all(planes.reshape(len(masks), -1).sum(axis=1) == 64)
        assert np.all(masks.sum(axis=1) >= 1)
        seen.append(len(masks))
        return uniform(observations, masks)

    env = VectorEnv(5, observation=False, action_mask=None)
    env.reset()
    out = Search(5).run(env, evaluate, [0, 3, 10, 3, 0])
    assert seen[0] == 3, "the three searched roots"
    assert seen[1:4] == [3, 3, 3] and seen[4:] == [1] * 7
    assert list(out.action[[0, 4]]) == [-1, -1]
    with pytest.raises(yolah.YolahError, match="4096"):
        Search(2).run(VectorEnv(2), lambda o, m: (np.zeros((len(m), 5)), np.zeros(len(m))), 2)
    # PettingZoo's one-game env is not what the batched search takes.
    with pytest.raises(TypeError, match="env must be a yolah.vector.VectorEnv"):
        Search(1).run(yolah.env(), evaluate, 2)


def random_net(reach=True):
    return Network.init(hidden1=32, hidden2=24, rank=3, seed=1, reach=reach)


@pytest.mark.parametrize("reach", [False, True])
def test_the_rust_network_is_the_numpy_network(tmp_path, reach):
    net = random_net(reach)
    # Make the heads large enough to matter.
    for k in ("wv", "Wf", "Wt", "Wu", "Wv"):
        net.params[k] *= 10
    path = tmp_path / "az.bin"
    net.save(path)
    assert Network.load(path).to_bytes() == net.to_bytes()
    env = VectorEnv(64, reach=True)
    obs, _ = env.reset()
    env.rollout(20)
    obs, *_ = env.step_random()
    logits, values = net(obs)
    rust_logits, rust_values = AzNetwork(str(path), threads=2)(obs)
    assert np.allclose(values, rust_values, atol=1e-4)
    assert np.allclose(logits, rust_logits, atol=1e-3)


def test_the_batched_search_plays_the_players_move(tmp_path):
    net = random_net()
    for k in ("wv", "Wf", "Wt"):
        net.params[k] *= 20
    path = str(tmp_path / "az.bin")
    net.save(path)
    env = VectorEnv(1, observation=False, action_mask=None)
    env.reset()
    player = yolah.Player(f"az:net={path},sims=60")
    search = Search(1)
    for _ in range(8):
        pos = env.positions()[0]
        out = search.run(env, AzNetwork(path), 60, temperature=0, add_noise=False)
        assert yolah.Move.from_action(int(out.action[0])) == player.choose_move(pos)
        env.step(out.action)


def test_gradients_match_finite_differences():
    net = Network.init(hidden1=8, hidden2=6, rank=2, seed=3, margin_head=True, reach=True)
    for k in net.params:
        net.params[k] = net.params[k].astype(np.float64) + 0.1
    env = VectorEnv(6, legal_actions=True, reach=True)
    obs, _ = env.reset()
    obs, *_ = env.step_random()
    obs = {k: v.copy() for k, v in obs.items()}
    legal = obs["legal_actions"].astype(np.int64)
    rng = np.random.default_rng(0)
    target = np.where(legal >= 0, rng.random(legal.shape), 0)
    target /= target.sum(axis=1, keepdims=True)
    z = rng.choice([-1.0, 0.0, 1.0], 6)
    margin = rng.integers(-20, 20, 6)
    loss, grads = net.loss_and_gradients(obs, legal, target, z, margin=margin)
    assert loss["margin"] > 0
    for name in ["W1", "W1", "b2", "wv", "Wf", "bt", "Wu", "bv2", "wm", "bm"]:
        p = net.params[name]
        i = tuple(rng.integers(0, s) for s in p.shape)
        if name == "W1":
            i = (int(rng.integers(256, 384)), i[1])  # a reach input
        old = p[i]
        p[i] = old + 1e-5
        up = net.loss_and_gradients(obs, legal, target, z, margin=margin)[0]["total"]
        p[i] = old - 1e-5
        down = net.loss_and_gradients(obs, legal, target, z, margin=margin)[0]["total"]
        p[i] = old
        assert np.isclose((up - down) / 2e-5, grads[name][i], rtol=1e-3, atol=1e-6), name


def test_adam_lowers_the_loss():
    net = Network.init(hidden1=32, hidden2=32, rank=2, seed=0)
    env = VectorEnv(64, legal_actions=True)
    obs, _ = env.reset()
    env.rollout(10)
    obs, *_ = env.step_random()
    obs = {k: v.copy() for k, v in obs.items()}
    legal = obs["legal_actions"].astype(np.int64)
    target = np.where(legal == legal.max(axis=1, keepdims=True), 1.0, 0.0)
    z = np.where(obs["scores"][:, 0] >= obs["scores"][:, 1], 1.0, -1.0)
    opt = Adam(net.params, lr=3e-3)
    first = net.loss_and_gradients(obs, legal, target, z)[0]["total"]
    for _ in range(60):
        _, grads = net.loss_and_gradients(obs, legal, target, z)
        opt.step(net.params, grads)
    assert net.loss_and_gradients(obs, legal, target, z)[0]["total"] < first / 2


def position_text(planes, scores, to_move, ply):
    """The engine's text of a board given as our/their/hole planes."""
    us, them = ("b", "w") if to_move == "black" else ("w", "b")
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for file in range(8):
            cell = [us, them, "x", None][int(np.argmax(planes[:, rank, file]))]
            if cell is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + cell
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    black, white = (scores[0], scores[1]) if to_move == "black" else (scores[1], scores[0])
    return f"{'/'.join(rows)} {to_move[0]} {black} {white} {ply}"


def test_symmetries_map_positions_and_legal_moves_together():
    assert sorted(map(tuple, SYMMETRIES.tolist())) == sorted(set(map(tuple, SYMMETRIES.tolist())))
    env = VectorEnv(8, legal_actions=True)
    env.reset()
    for _ in range(15):
        obs, *_ = env.step_random()
    positions = env.positions()
    for s in range(8):
        planes, legal = transform(obs["observation"], obs["legal_actions"], np.full(8, s))
        for i, pos in enumerate(positions):
            image = yolah.Position(position_text(planes[i], obs["scores"][i], pos.side_to_move, pos.ply))
            expected = np.flatnonzero(image.action_mask())
            assert sorted(legal[i][legal[i] >= 0]) == list(expected)
            assert np.array_equal(unpack_mask(obs["action_mask"][i]).sum(), len(expected))
