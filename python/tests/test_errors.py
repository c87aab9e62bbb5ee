"""The exceptions: one class per kind, each under the class callers already
catch, each saying once what was typed and what is wrong, and each
surviving pickle (Ray and multiprocessing send exceptions pickled)."""

import pickle
from concurrent.futures import ProcessPoolExecutor

import pytest

import yolah

EVERY_ERROR = [
    getattr(yolah, name)
    for name in dir(yolah)
    if isinstance(getattr(yolah, name), type) and issubclass(getattr(yolah, name), yolah.YolahError)
]

SPEC_KINDS = [
    ("chess", yolah.UnknownPlayerError, 'unknown player "chess"'),
    ("random:depth=3", yolah.UnknownKeyError, 'random has no option "depth"'),
    ("mcts:c", yolah.NotKeyValueError, 'option "c" is not key=value'),
    ("mcts:seed=1,seed=2", yolah.DuplicateKeyError, "seed is given twice"),
    ("mc:playouts=x", yolah.BadValueError, "playouts=x is not a whole number"),
    ("mc:time=1s,playouts=9", yolah.ConflictingKeysError, "give time= or playouts=, not both"),
    ("engine", yolah.MissingKeyError, "engine needs cmd="),
    ("nn:net=/no/such/file", yolah.NetFileError, "/no/such/file"),
    ("alphabeta:weights=/no/such/file", yolah.WeightsFileError, "/no/such/file"),
]


def test_every_error_is_a_yolah_error_and_a_value_error():
    assert len(EVERY_ERROR) >= 13
    for cls in EVERY_ERROR:
        assert issubclass(cls, yolah.YolahError) and issubclass(cls, ValueError)
        assert cls.__module__ == "yolah", cls


@pytest.mark.parametrize("spec, kind, words", SPEC_KINDS)
def test_each_kind_of_bad_spec_has_its_class(spec, kind, words):
    with pytest.raises(kind) as caught:
        yolah.Player(spec)
    # Existing `except yolah.SpecError` clauses still catch it.
    assert isinstance(caught.value, yolah.SpecError)
    message = str(caught.value)
    assert message.startswith(f'"{spec}": ') and words in message, message


@pytest.mark.parametrize("cls", EVERY_ERROR, ids=lambda c: c.__name__)
def test_every_error_pickles_with_its_class_and_message(cls):
    e = cls("what went wrong")
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is cls and str(back) == "what went wrong"


def test_raised_errors_pickle():
    for spec, kind, _ in SPEC_KINDS:
        with pytest.raises(kind) as caught:
            yolah.Player(spec)
        back = pickle.loads(pickle.dumps(caught.value))
        assert type(back) is kind and str(back) == str(caught.value)


def play_illegal_move():
    yolah.Position().play("d5:d4")


def test_an_error_in_a_worker_process_reaches_the_caller():
    with ProcessPoolExecutor(max_workers=1) as pool:
        with pytest.raises(yolah.IllegalMoveError, match="d5:d4"):
            pool.submit(play_illegal_move).result()


@pytest.mark.parametrize(
    "text, message",
    [
        ("zz", '"zz" is not a move: write from:to, like d5:b7 (a1:a1 to pass)'),
        ("zz:a1", '"zz:a1" is not a move: "zz" is not a square (files a-h, ranks 1-8, like d5)'),
        ("d5:d5", '"d5:d5" does not move: only the pass a1:a1 starts and ends on one square'),
    ],
)
def test_a_bad_move_is_explained_once(text, message):
    with pytest.raises(yolah.MoveParseError) as caught:
        yolah.Move(text)
    assert str(caught.value) == message


def test_an_illegal_move_names_the_actual_reason():
    pos = yolah.Position()
    for move, reason in [
        ("d5:d4", "d5:d4: d4 is occupied by a white piece"),
        ("a1:g7", "a1:g7: a white piece on d4 is in the way from a1 to g7"),
        ("a1:c2", "a1:c2: c2 is not on a line from a1"),
        ("b2:b3", "b2:b3: b2 does not hold a black piece (it is empty)"),
    ]:
        with pytest.raises(yolah.IllegalMoveError) as caught:
            pos.play(move)
        assert str(caught.value).startswith(reason), str(caught.value)
    pos.play("d5:b7")
    pos.play("d4:b6")
    with pytest.raises(yolah.IllegalMoveError, match="d4 is a hole"):
        pos.play("e4:d4")


def test_a_thread_count_out_of_range_is_refused_not_clamped():
    with pytest.raises(yolah.YolahError, match="threads=0 must be from 1 to 1024"):
        yolah.random_games(10, threads=0)
    with pytest.raises(yolah.YolahError, match="threads=2000 must be from 1 to 1024"):
        yolah.play_match("random", "random", 2, threads=2000)
    pytest.importorskip("gymnasium")
    from yolah.vector import VectorEnv

    with pytest.raises(yolah.YolahError, match="threads=0 must be from 1 to 256"):
        VectorEnv(2, threads=0)


def test_a_bad_position_quotes_the_text():
    with pytest.raises(yolah.PositionParseError) as caught:
        yolah.Position("nonsense")
    assert str(caught.value) == (
        '"nonsense": bad position: expected 5 fields '
        "(BOARD SIDE BLACK_SCORE WHITE_SCORE PLY), found 1"
    )


def test_a_bad_spec_has_its_class_wherever_it_is_given():
    with pytest.raises(yolah.UnknownPlayerError, match='"chess"'):
        yolah.play_match("random", "chess", games=2)
    with pytest.raises(yolah.UnknownPlayerError, match='"chess"'):
        yolah.tournament(["random", "chess"], 1)
    with pytest.raises(yolah.BadValueError, match="depth=0"):
        yolah.selfplay_records("alphabeta:depth=0", 0, 1)


def test_a_record_fails_with_the_class_of_what_is_wrong():
    with pytest.raises(yolah.RecordParseError):
        yolah.replay("{not json")
    with pytest.raises(yolah.RecordParseError, match='ply 1, move "zz"'):
        yolah.replay({"moves": ["zz"]})
    with pytest.raises(yolah.IllegalMoveError, match='ply 1, move "d5:d4": illegal: d4 is occupied'):
        yolah.replay({"moves": ["d5:d4"]})
    with pytest.raises(yolah.PositionParseError, match="start"):
        yolah.replay({"moves": [], "start": "nonsense"})
