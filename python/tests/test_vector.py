"""yolah.vector against the engine and the AEC environment, its autoreset
modes, its checks and its seeds."""

import numpy as np
import pytest

pytest.importorskip("gymnasium")
from gymnasium.vector import AutoresetMode  # noqa: E402

import yolah  # noqa: E402
from yolah.vector import MAX_MOVES, VectorEnv, unpack_mask  # noqa: E402


def expected_row(pos):
    """What the environment should show for `pos`."""
    planes = pos.observation().astype(np.uint8)
    us = pos.side_to_move
    them = "white" if us == "black" else "black"
    scores = np.array([pos.score(us), pos.score(them)], dtype=np.uint8)
    mask = pos.action_mask() if not pos.is_game_over() else np.zeros(yolah.ACTIONS, bool)
    return planes, scores, mask


def check_row(obs, i, pos):
    planes, scores, mask = expected_row(pos)
    assert np.array_equal(obs["observation"][i], planes)
    assert np.array_equal(obs["scores"][i], scores)
    assert np.array_equal(unpack_mask(obs["action_mask"][i]), mask)
    legal = np.flatnonzero(mask)
    n = int(obs["legal_count"][i])
    assert n == len(legal)
    assert np.array_equal(obs["legal_actions"][i, :n], legal)
    assert np.all(obs["legal_actions"][i, n:] == -1)


def sign(pos, colour):
    if pos.winner == "draw":
        return 0
    return 1 if pos.winner == colour else -1


def test_next_step_games_are_the_engines_games():
    n = 12
    env = VectorEnv(n, legal_actions=True)
    obs, info = env.reset(seed=3)
    positions = [yolah.Position() for _ in range(n)]
    ended = [False] * n
    rng = np.random.default_rng(1)
    games_ended = 0
    for _ in range(400):
        for i in range(n):
            check_row(obs, i, positions[i])
        assert env.observation_space.contains({k: v.copy() for k, v in obs.items()})
        actions = np.zeros(n, dtype=np.int64)
        for i in range(n):
            legal = np.flatnonzero(positions[i].action_mask())
            # A finished game ignores its action: give it a nonsense one.
            actions[i] = 9999 if ended[i] else rng.choice(legal)
        obs, rewards, terminations, truncations, info = env.step(actions)
        assert not truncations.any()
        for i in range(n):
            if ended[i]:
                positions[i], ended[i] = yolah.Position(), False
                assert rewards[i] == 0 and not terminations[i]
                continue
            mover = positions[i].side_to_move
            positions[i].play(yolah.Move.from_action(int(actions[i])))
            over = positions[i].is_game_over()
            assert terminations[i] == over
            if over:
                ended[i] = True
                games_ended += 1
                assert rewards[i] == sign(positions[i], mover)
                assert list(info["rewards"][i]) == [sign(positions[i], "black"), sign(positions[i], "white")]
            else:
                assert rewards[i] == 0
            assert info["to_play"][i] == (0 if positions[i].side_to_move == "black" else 1)
            assert list(info["points"][i]) == [positions[i].black_score, positions[i].white_score]
    assert games_ended >= 20


def test_same_step_keeps_the_final_observation():
    n = 8
    env = VectorEnv(n, autoreset_mode=AutoresetMode.SAME_STEP, legal_actions=True)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    env.reset(seed=5)
    positions = [yolah.Position() for _ in range(n)]
    finals = 0
    for _ in range(300):
        obs, rewards, terminations, truncations, info = env.step_random()
        for i in range(n):
            positions[i].play(yolah.Move.from_action(int(info["actions"][i])))
            if terminations[i]:
                finals += 1
                assert info["_final_obs"][i]
                final = info["final_obs"][i]
                planes, scores, mask = expected_row(positions[i])
                assert np.array_equal(final["observation"], planes)
                assert np.array_equal(final["scores"], scores)
                assert not unpack_mask(final["action_mask"]).any()
                assert list(info["points"][i]) == [positions[i].black_score, positions[i].white_score]
                positions[i] = yolah.Position()
            elif "_final_obs" in info:
                assert not info["_final_obs"][i] and info["final_obs"][i] is None
            check_row(obs, i, positions[i])
    assert finals >= 10


def test_disabled_mode_waits_for_a_reset():
    env = VectorEnv(3, autoreset_mode="Disabled")
    env.reset(seed=0)
    for _ in range(200):
        _, _, terminations, _, _ = env.step_random()
        if terminations.any():
            break
    done = terminations.copy()
    assert done.any()
    with pytest.raises(yolah.IllegalMoveError, match="reset"):
        env.step_random()
    obs, _ = env.reset(options={"reset_mask": done})
    start = yolah.Position().observation().astype(np.uint8)
    for i in np.flatnonzero(done):
        assert np.array_equal(obs["observation"][i], start)
    env.step_random()


def test_a_bad_action_raises_and_no_game_moves():
    env = VectorEnv(3)
    env.reset()
    before = env.positions()
    good = yolah.Move("d5:b7").action
    for bad, message in [(yolah.Move("d4:d3").action, "env 1: action .* is illegal"), (4096, "env 1: action 4096"), (-1, "env 1")]:
        with pytest.raises(yolah.IllegalMoveError, match=message):
            env.step([good, bad, good])
        assert env.positions() == before
    with pytest.raises(TypeError, match="actions are integers from 0 to 4095, not float64 values"):
        env.step(np.array([good, good, good], dtype=np.float64) + 0.5)
    assert env.positions() == before
    with pytest.raises(yolah.YolahError, match="2 actions for 3 games"):
        env.step([good, good])
    with pytest.raises(yolah.YolahError):
        VectorEnv(2, action_mask="bits")


def test_bool_masks_and_copies():
    env = VectorEnv(4, action_mask="bool", copy=True)
    obs, _ = env.reset()
    assert obs["action_mask"].dtype == np.bool_ and obs["action_mask"].shape == (4, yolah.ACTIONS)
    assert np.array_equal(obs["action_mask"][0], yolah.Position().action_mask())
    again, *_ = env.step_random()
    assert not np.array_equal(obs["observation"], again["observation"]), "copies are not overwritten"


def test_seeds_repeat_whatever_the_threads():
    def actions(threads, seed):
        env = VectorEnv(1500, threads=threads, observation=False, action_mask=None)
        env.reset(seed=seed)
        return np.stack([env.step_random()[4]["actions"].copy() for _ in range(30)])

    one = actions(1, 7)
    assert np.array_equal(one, actions(2, 7))
    assert not np.array_equal(one, actions(1, 8))


def test_a_rollout_is_that_many_random_steps():
    a = VectorEnv(50, observation=False, action_mask=None)
    b = VectorEnv(50, observation=False, action_mask=None)
    a.reset(seed=2)
    b.reset(seed=2)
    counts = a.rollout(500)
    wins = {"black": 0, "white": 0, "draw": 0}
    for _ in range(500):
        _, _, terminations, _, info = b.step_random()
        for i in np.flatnonzero(terminations):
            black = info["rewards"][i, 0]
            wins["black" if black > 0 else "white" if black < 0 else "draw"] += 1
    assert a.positions() == b.positions()
    assert counts == {"black_wins": wins["black"], "white_wins": wins["white"], "draws": wins["draw"]}
    assert sum(counts.values()) > 300


def test_the_aec_environment_sees_the_same_game():
    aec = yolah.env()
    aec.reset()
    vec = VectorEnv(1, action_mask="bool")
    obs, _ = vec.reset()
    rng = np.random.default_rng(4)
    for agent in aec.agent_iter():
        observation, reward, termination, truncation, _ = aec.last()
        if termination:
            # The vector env's reward is the last mover's; the other side
            # gets its negative.
            assert reward == (last_reward if agent == mover else -last_reward)
            aec.step(None)
            continue
        assert np.array_equal(observation["observation"], obs["observation"][0].astype(np.float32))
        assert np.array_equal(observation["action_mask"].astype(bool), obs["action_mask"][0])
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        mover = agent
        aec.step(action)
        obs, rewards, terminations, _, _ = vec.step([action])
        last_reward = rewards[0]
    assert terminations[0]


def test_spaces_follow_gymnasium():
    env = VectorEnv(5, legal_actions=True)
    assert env.single_action_space.n == yolah.ACTIONS
    assert env.action_space.shape == (5,)
    assert env.single_observation_space["legal_actions"].shape == (MAX_MOVES,)
    assert env.observation_space["observation"].shape == (5, yolah.PLANES, 8, 8)
