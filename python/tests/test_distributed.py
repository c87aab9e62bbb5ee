"""yolah.distributed on a local 2-CPU Ray: the same results as the ``yolah``
command for the same seed, whatever the number of workers or the size of a
task, and killed runs that resume. Tests that play on Ray are skipped
when Ray is not installed; the rest (files, shards, the command line) run
anyway.

The command is ``$YOLAH_BIN``, or the workspace's target/release or
target/debug build."""

import json
import os
import pathlib
import subprocess

import pytest

import yolah
import yolah.distributed as yd

ROOT = pathlib.Path(__file__).resolve().parents[2]
PLAYERS = ["random", "alphabeta:depth=1", "mcts:iterations=60"]


def yolah_bin():
    candidates = [os.environ.get("YOLAH_BIN")] + [
        str(ROOT / "target" / kind / "yolah") for kind in ("release", "debug")
    ]
    for c in candidates:
        if c and os.access(c, os.X_OK):
            return c
    pytest.fail("no yolah command: set YOLAH_BIN or build it (cargo build -p yolah-cli)")


def cli(*args):
    out = subprocess.run([yolah_bin(), *args], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


try:
    import ray
except ImportError:
    ray = None


@pytest.fixture(scope="module")
def local_ray():
    """A local 2-CPU Ray for the module; the test is skipped without Ray."""
    if ray is None:
        pytest.skip('Ray is not installed (pip install "./python[ray]")')
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="warning")
    yield
    ray.shutdown()


def game_lines(path):
    with open(path) as f:
        lines = [json.loads(line) for line in f]
    header, games = lines[0], lines[1:]
    return header, sorted(games, key=lambda g: (g["pair"], g["game"]))


def test_shard_ranges_are_the_commands():
    assert [yolah.shard_range(f"{k}/3", 10) for k in (1, 2, 3)] == [(0, 3), (3, 6), (6, 10)]
    with pytest.raises(yolah.YolahError, match="K/N"):
        yolah.shard_range("4/3", 10)


def test_a_ray_tournament_is_the_commands_whatever_the_split(local_ray, tmp_path):
    cli_out = tmp_path / "cli.jsonl"
    table = json.loads(
        cli("tournament", "--players", *PLAYERS, "--games-per-pair", "4", "--seed", "3",
            "--out", str(cli_out), "--json")
    )
    header, expected = game_lines(cli_out)
    for workers, per_task in [(1, 5), (2, 1), (2, 3)]:
        out = tmp_path / f"ray-{workers}-{per_task}.jsonl"
        result = yd.tournament(PLAYERS, 4, str(out), seed=3, workers=workers, games_per_task=per_task)
        assert game_lines(out) == (header, expected), (workers, per_task)
        assert result["games"] == [{k: v for k, v in g.items() if k != "type"} for g in expected]
        by_player = {r["player"]: r for r in result["ratings"]}
        for row in table["ratings"]:
            assert by_player[row["player"]]["points"] == row["points"]
            assert by_player[row["player"]]["elo"] == pytest.approx(row["elo"])
        # The command reads the file Ray wrote and plays nothing more.
        again = json.loads(
            cli("tournament", "--players", *PLAYERS, "--games-per-pair", "4", "--seed", "3",
                "--out", str(out), "--json")
        )
        assert again == table


def test_a_killed_ray_tournament_resumes(local_ray, tmp_path):
    whole = tmp_path / "whole.jsonl"
    yd.tournament(PLAYERS, 2, str(whole), seed=5)
    header, expected = game_lines(whole)
    # Keep the header and two games, then half a line: a crash mid-write.
    lines = whole.read_text().splitlines(keepends=True)
    killed = tmp_path / "killed.jsonl"
    killed.write_text("".join(lines[:3]) + lines[3][:40])
    seen = []
    yd.tournament(PLAYERS, 2, str(killed), seed=5, progress=lambda d, t: seen.append((d, t)))
    assert seen[0] == (2, 6) and seen[-1] == (6, 6)
    assert game_lines(killed) == (header, expected)
    with pytest.raises(yolah.YolahError, match="another tournament"):
        yd.tournament(PLAYERS, 2, str(killed), seed=6)


def test_ray_selfplay_is_the_commands_file_byte_for_byte(local_ray, tmp_path):
    cli_out = tmp_path / "cli.bin"
    cli("selfplay", "--player", "alphabeta:depth=1", "--games", "7", "--seed", "4",
        "--out", str(cli_out))
    expected = cli_out.read_bytes()
    for workers, per_task in [(1, 7), (2, 2), (2, 3)]:
        out = tmp_path / f"ray-{workers}-{per_task}.bin"
        info = yd.selfplay("alphabeta:depth=1", 7, str(out), seed=4, workers=workers,
                           games_per_task=per_task)
        assert out.read_bytes() == expected, (workers, per_task)
        assert info["positions"] == (len(expected) - 8) // 32
        assert not (tmp_path / f"ray-{workers}-{per_task}.bin.shards").exists()


def test_ray_selfplay_strays_as_the_command_does(local_ray, tmp_path):
    cli_out = tmp_path / "cli.bin"
    cli("selfplay", "--player", "alphabeta:depth=1", "--games", "5", "--seed", "4",
        "--explore", "0.3", "--out", str(cli_out))
    out = tmp_path / "ray.bin"
    info = yd.selfplay("alphabeta:depth=1", 5, str(out), seed=4, explore=0.3, workers=2,
                       games_per_task=2)
    assert out.read_bytes() == cli_out.read_bytes()
    assert info["explore"] == 0.3
    # A shard played without straying is no shard of this run: played again.
    work = tmp_path / "work"
    yd.selfplay("alphabeta:depth=1", 5, str(out), seed=4, games_per_task=5,
                work_dir=str(work), keep_shards=True)
    yd.selfplay("alphabeta:depth=1", 5, str(out), seed=4, explore=0.3, games_per_task=5,
                work_dir=str(work))
    assert out.read_bytes() == cli_out.read_bytes()
    with pytest.raises(ValueError, match="probability"):
        yd.selfplay("alphabeta:depth=1", 5, str(out), explore=1.5)


def test_a_killed_ray_selfplay_resumes_from_its_shards(local_ray, tmp_path):
    out = tmp_path / "data.bin"
    work = tmp_path / "work"
    yd.selfplay("alphabeta:depth=1", 6, str(out), seed=2, games_per_task=2,
                work_dir=str(work), keep_shards=True)
    expected = out.read_bytes()
    # One shard lost, one cut short (its manifest no longer matches): only
    # those two are played again.
    (work / "shard-2-of-3.bin").unlink()
    third = work / "shard-3-of-3.bin"
    third.write_bytes(third.read_bytes()[:-32])
    seen = []
    yd.selfplay("alphabeta:depth=1", 6, str(out), seed=2, games_per_task=2,
                work_dir=str(work), progress=lambda d, t: seen.append((d, t)))
    assert seen[0] == (1, 3) and seen[-1] == (3, 3)
    assert out.read_bytes() == expected
    assert not work.exists()


def test_selfplay_removes_only_its_own_shards(local_ray, tmp_path):
    mine = tmp_path / "keep.txt"
    mine.write_text("a file of the user's")
    yd.selfplay("alphabeta:depth=1", 2, str(tmp_path / "d.bin"), seed=1, games_per_task=1,
                work_dir=str(tmp_path))
    assert mine.read_text() == "a file of the user's"
    assert not list(tmp_path.glob("shard-*"))


def test_ray_random_games_are_the_commands_counts(local_ray):
    expected = json.loads(cli("random-games", "--games", "30000", "--seed", "8", "--json"))
    for per_task in (30000, 7000):
        counts = yd.random_games(30000, seed=8, workers=2, games_per_task=per_task)
        for key in ("games", "black_wins", "white_wins", "draws", "plies"):
            assert counts[key] == expected[key], key
    assert yd.random_games(0) == {"games": 0, "black_wins": 0, "white_wins": 0, "draws": 0, "plies": 0}


def test_bad_runs_fail_before_any_task(tmp_path):
    with pytest.raises(yolah.SpecError):
        yd.selfplay("nosuchplayer", 4, str(tmp_path / "x.bin"))
    with pytest.raises(yolah.SpecError):
        yd.tournament(["random", "nosuchplayer"], 2, str(tmp_path / "x.jsonl"))
    with pytest.raises(ValueError):
        yd.random_games(10, games_per_task=0)


def test_no_worker_is_refused(local_ray, tmp_path):
    with pytest.raises(ValueError):
        yd.tournament(PLAYERS, 2, str(tmp_path / "y.jsonl"), workers=0)


def test_a_tournament_file_takes_only_its_own_games(tmp_path):
    f = yolah.TournamentFile(str(tmp_path / "t.jsonl"), PLAYERS, 2)
    assert f.progress() == (0, 6)
    assert len(f.todo()) == 6 and f.todo("2/3") == f.todo()[2:4]
    with pytest.raises(yolah.YolahError, match="not a tournament game line"):
        f.append([{"pair": [0, 1]}])
    line = yolah.tournament_games(PLAYERS, 2, [(0, 1)])[0]
    assert f.append([line, line]) == 1
    assert f.progress() == (1, 6) and (0, 1) not in f.todo()
    with pytest.raises(yolah.YolahError, match="not in this tournament"):
        f.append([dict(line, game=5)])
    assert "1 of 6 games" in repr(f)
    # The command's table, anchored by index or by spec.
    table = f.table("alphabeta:depth=1")
    assert "1 games; alphabeta:depth=1 anchored at 0" in table
    assert f.table(1) == table
    assert json.loads(f.table(json=True))["anchor"] == "random"
    assert f.result("mcts:iterations=60")["ratings"][2]["elo"] == 0
    with pytest.raises(yolah.YolahError, match='"mcts" is not one of'):
        f.table("mcts")
    with pytest.raises(yolah.YolahError, match="anchor 3 is not a player's index"):
        f.result(3)


def test_the_yolah_ray_command(local_ray, tmp_path, capsys):
    out = tmp_path / "t.jsonl"
    args = ["tournament", "--players", *PLAYERS, "--games-per-pair", "2", "--seed", "3",
            "--out", str(out), "--anchor", "random"]
    assert yd.main(["--games-per-task", "3", *args]) == 0
    text = capsys.readouterr().out
    assert "6 games; random anchored at 0" in text and "alphabeta:depth=1" in text
    # The table is the command's, byte for byte (the command plays nothing more).
    assert text == cli(*args)
    assert yd.main(args + ["--json"]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(cli(*args, "--json"))
    assert yd.main(["random-games", "--games", "5000", "--seed", "2"]) == 0
    counts = json.loads(capsys.readouterr().out)
    assert counts["games"] == 5000 and counts["seed"] == 2
    data, cli_data = tmp_path / "s.bin", tmp_path / "c.bin"
    run = ["selfplay", "--player", "alphabeta:depth=1", "--games", "3", "--explore", "0.5"]
    assert yd.main([*run, "--out", str(data)]) == 0
    cli(*run, "--out", str(cli_data))
    assert data.read_bytes() == cli_data.read_bytes()


def test_yolah_ray_takes_the_commands_options_and_checks_them(tmp_path, capsys):
    """No Ray needed: the command line is parsed and checked before any task."""
    bad = [
        (["selfplay", "--player", "nosuchplayer", "--games", "2", "--out", "x.bin"], "nosuchplayer"),
        (["tournament", "--players", "random", "random", "--games-per-pair", "2", "--out", "x"],
         "listed twice"),
        (["tournament", "--players", "random", "mc", "--games-per-pair", "2", "--out", "x",
          "--anchor", "mcts"], '--anchor "mcts" is not one of the --players'),
        (["tournament", "--players", "random", "mc", "--games-per-pair", "2", "--out", "x",
          "--tc", "10+"], '--tc: "10+"'),
    ]
    for argv, reason in bad:
        assert yd.main(argv) == 1, argv
        err = capsys.readouterr().err
        assert err.startswith("yolah-ray: error:") and reason in err, err
    assert not (tmp_path / "x").exists()
    # Usage errors and help are clap's, as for the command.
    assert yd.main(["tournament", "--players", "random"]) == 2
    assert "--games-per-pair" in capsys.readouterr().err
    assert yd.main(["--workers", "0", "random-games"]) == 2
    capsys.readouterr()
    argv = ["selfplay", "--player", "random", "--games", "2", "--out", "x.bin", "--explore", "2"]
    assert yd.main(argv) == 2
    assert "2 is not a probability (from 0 to 1)" in capsys.readouterr().err
    for command in ("tournament", "selfplay", "random-games"):
        assert yd.main([command, "--help"]) == 0
        ray_help = capsys.readouterr().out
        cli_help = cli(command, "--help")
        ray_flags = {line.split()[0] for line in ray_help.splitlines() if line.startswith("      --")}
        cli_flags = {line.split()[0] for line in cli_help.splitlines() if line.startswith("      --")}
        # The run's options are the command's; only how it is played differs.
        assert ray_flags - cli_flags <= {"--work-dir"}, command
        assert cli_flags - ray_flags <= {"--threads", "--shard", "--json"}, command
        # Each shared option reads the same (up to the padding of the column).
        words = lambda text: {" ".join(line.split()) for line in text.splitlines()}
        for line in ray_help.splitlines():
            if line.startswith("      --") and line.split()[0] in cli_flags:
                assert " ".join(line.split()) in words(cli_help), line
