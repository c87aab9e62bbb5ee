"""The PettingZoo environment."""

import numpy as np
import pytest

pettingzoo = pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402

import yolah  # noqa: E402


def test_pettingzoo_api():
    api_test(yolah.env(), num_cycles=200)


def test_pettingzoo_seed_and_render():
    # What the README says passes: the same seed, the same games; every
    # render mode draws.
    seed_test(yolah.env, num_cycles=50)
    render_test(yolah.env)


def test_random_games_to_the_end():
    rng = np.random.default_rng(0)
    env = yolah.env()
    for _ in range(5):
        env.reset()
        total = {"black": 0, "white": 0}
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            total[agent] += reward
            if termination or truncation:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            assert len(legal) > 0
            env.step(int(rng.choice(legal)))
        final = env.unwrapped.position
        assert final.is_game_over()
        expected = {"draw": (0, 0), "black": (1, -1), "white": (-1, 1)}[final.winner]
        assert (total["black"], total["white"]) == expected


def test_an_illegal_action_loses():
    env = yolah.env()
    env.reset()
    env.step(yolah.Move("d4:d3").action)  # a White piece, Black to move
    assert env.terminations["black"]
    assert env.rewards["black"] == -1


def test_an_action_that_is_no_move_loses_too():
    # 65 is b1:b1: in Discrete(4096), so an unmasked sample() may draw it,
    # and it loses like any other illegal action rather than raising.
    env = yolah.env()
    env.reset()
    env.step(65)
    assert env.terminations["black"]
    assert env.rewards["black"] == -1


def test_an_action_must_be_an_integer():
    env = yolah.environment.raw_env()
    env.reset()
    d5b7 = yolah.Move("d5:b7").action
    with pytest.raises(TypeError, match="an action is an integer from 0 to 4095, not 3.7"):
        env.step(3.7)  # was truncated to 3, a1:d1
    with pytest.raises(TypeError, match="an action is an integer"):
        env.step(np.float32(d5b7))
    env.step(np.array(d5b7))  # NumPy integers are integers
    assert env.position.black_score == 1


def test_the_wrapped_env_says_what_is_not_an_action():
    # PettingZoo's AssertOutOfBoundsWrapper said only "action is not in
    # action space", as an AssertionError.
    env = yolah.env()
    env.reset()
    with pytest.raises(yolah.MoveParseError, match="action 5000 is not from 0 to 4095"):
        env.step(5000)
    with pytest.raises(yolah.MoveParseError, match="action -1 is not from 0 to 4095"):
        env.step(-1)
    with pytest.raises(TypeError, match="an action is an integer from 0 to 4095, not 3.7"):
        env.step(3.7)
    with pytest.raises(TypeError, match="not None"):
        env.step(None)  # the game is not over
    env.step(np.int64(yolah.Move("d5:b7").action))
    assert env.unwrapped.position.black_score == 1


def test_observations_are_each_agents_own():
    env = yolah.env()
    env.reset()
    black = env.observe("black")["observation"]
    white = env.observe("white")["observation"]
    assert np.array_equal(black[0], white[1]) and np.array_equal(black[1], white[0])
    assert env.observe("white")["action_mask"].sum() == 0
