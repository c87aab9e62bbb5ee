"""The Python API: positions, moves, errors, players, batches and records."""

import copy
import json

import numpy as np
import pytest

import yolah


def test_start_position():
    pos = yolah.Position()
    assert len(pos.legal_moves()) == 56
    assert pos.side_to_move == "black"
    assert (pos.black_score, pos.white_score, pos.ply) == (0, 0, 0)
    assert pos.winner is None and not pos.is_game_over()
    # a1 e4 d5 h8 are Black's; h1 d4 e5 a8 White's (bit 0 = a1).
    sq = lambda name: 1 << ((ord(name[0]) - ord("a")) + 8 * (int(name[1]) - 1))
    assert pos.black == sq("a1") | sq("e4") | sq("d5") | sq("h8")
    assert pos.white == sq("h1") | sq("d4") | sq("e5") | sq("a8")
    assert pos.holes == 0
    assert "b" in repr(pos) and pos.to_text() in repr(pos)


def test_play_undo_and_text_round_trip():
    pos = yolah.Position()
    before = pos.copy()
    pos.play("d5:b7")
    assert pos.black_score == 1 and pos.side_to_move == "white"
    assert yolah.Position(pos.to_text()) == pos
    assert hash(yolah.Position(pos.to_text())) == hash(pos)
    pos.undo(yolah.Move("d5:b7"))
    assert pos == before
    other = copy.deepcopy(pos)
    other.play(yolah.Move("d5:b7"))
    assert other != pos


def test_moves_and_actions():
    m = yolah.Move("d5:b7")
    assert (str(m), m.from_square, m.to_square, m.is_pass) == ("d5:b7", "d5", "b7", False)
    assert m.action == 35 * 64 + 49
    assert yolah.Move.from_action(m.action) == m
    assert yolah.Move.pass_().action == 0 and yolah.Move("a1:a1").is_pass
    assert {m, yolah.Move("d5:b7")} == {m}
    for a in range(4096):
        if a != 0 and a // 64 == a % 64:
            # A piece cannot stay where it is: no move but the pass has from == to.
            with pytest.raises(yolah.ParseError):
                yolah.Move.from_action(a)
        else:
            assert yolah.Move.from_action(a).action == a


@pytest.mark.parametrize("bad", ["", "d5", "d5:b9", "z1:a1", "d5-b7", "d5:b7:c3", "\x00"])
def test_malformed_moves_raise_parse_errors(bad):
    with pytest.raises(yolah.ParseError):
        yolah.Move(bad)
    with pytest.raises(yolah.ParseError):
        yolah.Position().play(bad)


def test_illegal_moves_raise_and_change_nothing():
    pos = yolah.Position()
    for bad, why in [("d4:d3", "does not hold a black piece"), ("a1:a1", "may not pass"),
                     ("a1:g7", "a white piece on d4 is in the way"),
                     ("d5:d4", "d4 is occupied by a white piece")]:
        with pytest.raises(yolah.IllegalMoveError, match=why):
            pos.play(bad)
    assert pos == yolah.Position()
    for wrong in ["d5:b7", "a1:a1", "h8:a1"]:
        with pytest.raises(yolah.IllegalMoveError, match="not the move that led"):
            pos.undo(wrong)
    played = pos.copy()
    played.play("d5:b7")
    for wrong in ["a1:a1", "e4:e6", "d5:b6", "h1:h2"]:
        with pytest.raises(yolah.IllegalMoveError):
            played.undo(wrong)
    played.undo("d5:b7")
    assert played == pos
    with pytest.raises(TypeError):
        pos.play(42)
    with pytest.raises(yolah.ParseError):
        yolah.Move.from_action(4096)
    # Every yolah error is a ValueError.
    assert issubclass(yolah.IllegalMoveError, ValueError)


def test_bad_positions_raise_parse_errors():
    for bad in ["", "nonsense", "8/8/8/8/8/8/8/8 b 0 0 0 extra", "b" * 100_000]:
        with pytest.raises(yolah.ParseError):
            yolah.Position(bad)


def test_a_game_to_the_end():
    pos = yolah.Position()
    moves = []
    while not pos.is_game_over():
        m = pos.legal_moves()[0]
        pos.play(m)
        moves.append(m)
    assert pos.legal_moves() == []
    assert pos.winner in ("black", "white", "draw")
    with pytest.raises(yolah.IllegalMoveError, match="over"):
        pos.play("a1:a1")
    record = yolah.record(moves, event="test")
    assert yolah.replay(record) == pos
    assert yolah.replay(json.dumps(record)) == pos
    record["moves"][1] = "a1:a1"
    with pytest.raises(yolah.IllegalMoveError, match="ply 2"):
        yolah.replay(record)
    with pytest.raises(yolah.ParseError):
        yolah.replay("{not json")


def test_observation_and_mask():
    pos = yolah.Position()
    obs = pos.observation()
    assert obs.shape == (yolah.PLANES, 8, 8) and obs.dtype == np.float32
    assert obs[0, 0, 0] == 1  # a1: Black's, and Black moves
    assert obs[1, 0, 7] == 1  # h1: White's
    mask = pos.action_mask()
    assert mask.shape == (yolah.ACTIONS,) and mask.dtype == np.bool_
    assert mask.sum() == 56
    assert all(mask[m.action] for m in pos.legal_moves())
    pos.play("d5:b7")
    obs = pos.observation()
    assert obs[0, 0, 7] == 1 and obs[1, 0, 0] == 1 and obs[2, 4, 3] == 1  # d5 is a hole
    many, masks = yolah.observations([yolah.Position(), pos])
    assert many.shape == (2, yolah.PLANES, 8, 8) and masks.shape == (2, yolah.ACTIONS)
    assert np.array_equal(many[1], obs) and np.array_equal(masks[1], pos.action_mask())


def test_random_games_match_the_cli_and_the_moves():
    stats = yolah.random_games(2000, seed=1, threads=2)
    assert stats == yolah.random_games(2000, seed=1, threads=1)
    assert stats["games"] == 2000
    assert stats["black_wins"] + stats["white_wins"] + stats["draws"] == 2000
    games = yolah.random_game_moves(300, seed=1)
    replayed = [yolah.replay({"moves": g}) for g in games]
    counted = yolah.random_games(300, seed=1)
    assert sum(p.winner == "black" for p in replayed) == counted["black_wins"]
    assert sum(len(g) for g in games) == counted["plies"]
    assert yolah.random_game_moves(1, seed=1, first=7) == yolah.random_game_moves(8, seed=1)[7:]


def test_players():
    pos = yolah.Position()
    for spec in ["random:seed=1", "mc:playouts=200", "mcts:iterations=500", "alphabeta:depth=3",
                 "nn:depth=2"]:
        p = yolah.Player(spec)
        assert p.spec == spec and repr(p) == f"Player('{spec}')"
        assert p.choose_move(pos) in pos.legal_moves()
    a = yolah.Player("alphabeta:depth=4").analyse(pos)
    assert a["score_unit"] == "centipoints" and isinstance(a["score"], int)
    assert a["depth"] == 4 and a["nodes"] > 0 and a["pv"][0] == a["best_move"]
    assert yolah.Player("mcts:iterations=300").analyse(pos)["score_unit"] == "win_rate"
    assert yolah.Player("random").analyse(pos)["score"] is None
    with pytest.raises(yolah.SpecError, match="iteratoins"):
        yolah.Player("mcts:iteratoins=5")
    with pytest.raises(yolah.SpecError):
        yolah.Player("chess")
    done = yolah.replay({"moves": []})
    while not done.is_game_over():
        done.play(done.legal_moves()[-1])
    with pytest.raises(yolah.IllegalMoveError, match="over"):
        yolah.Player("random").choose_move(done)


def test_match_and_tournament():
    m = yolah.play_match("alphabeta:depth=2", "random", games=6, seed=3, threads=2)
    assert m["games"] == 6 and m["a_wins"] + m["b_wins"] + m["draws"] == 6
    assert m["a_wins"] >= 5 and len(m["records"]) == 6
    assert m == yolah.play_match("alphabeta:depth=2", "random", games=6, seed=3, threads=1)
    players = ["random:seed=1", "mc:playouts=50", "alphabeta:depth=1"]
    t = yolah.tournament(players, games_per_pair=2, seed=5, threads=2)
    assert len(t["games"]) == 6 and [r["player"] for r in t["ratings"]] == players
    assert t["ratings"][0]["elo"] == 0
    # Any subset of games, in any order, is the same games.
    some = yolah.tournament_games(players, 2, [(2, 1), (0, 0)], seed=5)
    assert some == [t["games"][5], t["games"][0]]
    with pytest.raises(yolah.YolahError, match="not in a tournament of 3 pairs"):
        yolah.tournament_games(players, 2, [(3, 0)], seed=5)
    with pytest.raises(yolah.SpecError):
        yolah.tournament(["random", "nonsense"], 2)
    with pytest.raises(yolah.YolahError):
        yolah.play_match("random", "random", 2, tc="fast")
    with pytest.raises(yolah.YolahError, match="at least one game"):
        yolah.play_match("random", "random", games=0)


def test_tournament_file_resumes(tmp_path):
    out = tmp_path / "t.jsonl"
    players = ["random:seed=1", "random:seed=2"]
    first = yolah.tournament(players, 4, seed=2, out=str(out))
    lines = out.read_text().splitlines()
    assert len(lines) == 5  # a header and four games
    # Cut the last game off mid-line, as a crash would: the rerun replays it alone.
    out.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:20])
    again = yolah.tournament(players, 4, seed=2, out=str(out))
    assert again["games"] == first["games"]
    with pytest.raises(yolah.YolahError):
        yolah.tournament(["random", "mc:playouts=10"], 4, seed=2, out=str(out))


def test_an_engine_that_cannot_start_stops_the_match():
    with pytest.raises(yolah.YolahError, match=r"engine:cmd=false did not start: the engine exited"):
        yolah.play_match("engine:cmd=false", "random", 2)
    with pytest.raises(yolah.YolahError, match="did not start"):
        yolah.tournament(["random", "engine:cmd=false"], 1)


def test_a_player_that_cannot_start_says_so_when_asked_to_move():
    p = yolah.Player("engine:cmd=false")
    with pytest.raises(yolah.YolahError, match=r"the player is not ready: engine:cmd=false did not start"):
        p.choose_move(yolah.Position())
    with pytest.raises(yolah.YolahError, match="the player is not ready"):
        p.analyse(yolah.Position())
