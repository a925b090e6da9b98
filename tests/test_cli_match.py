"""The ``arena match`` command, through click's CliRunner and as a real subprocess, with the raw pyzmq bot."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import game_line, main
from arena.engine.record import replay
from arena.play.lineup import build_match
from arena.play.matchspec import MatchSpec

RAW = str(Path(__file__).resolve().parent / "bots" / "raw_random.py")
ARENA = Path(sys.executable).with_name("arena")
SUMMARY_HEADER = ["bot", "games", "wins", "win", "%", "points", "violations"]


def two_hand(tmp_path: Path, *extra: str) -> list[str]:
    """Arguments of a short two-hand match between two copies of the raw bot, logs under ``tmp_path``."""
    return ["match", RAW, RAW, "--variant", "two-hand", "--log-dir", str(tmp_path / "logs"), *extra]


def check_output(stdout: str, records: list[dict[str, Any]]) -> None:
    """One line per game (in order, with its seed and winner), then a summary table with a row per bot."""
    lines = stdout.splitlines()
    game_lines = [line for line in lines if line.startswith("game ")]
    assert len(game_lines) == len(records)
    for number, (line, record) in enumerate(zip(game_lines, records, strict=True), start=1):
        assert line.split()[:4] == ["game", str(number), "seed", str(record["seed"])]
        assert f"winner {record['players'][record['winners'][0]]}" in line
    summary = lines[len(game_lines) :]
    assert summary[0].split() == SUMMARY_HEADER
    rows = {line.split()[0]: line.split()[1:] for line in summary[2:]}
    assert set(rows) == {"raw_random-1", "raw_random-2"}
    assert all(row[0] == str(len(records)) for row in rows.values())  # games
    assert sum(int(row[1]) for row in rows.values()) == len(records)  # wins


def read_records(path: Path) -> list[dict[str, Any]]:
    """The JSONL file's records, each checked to replay."""
    records = [json.loads(line) for line in path.read_text().splitlines()]
    for record in records:
        replay(record)
    return records


def test_match_prints_a_line_per_game_and_a_summary_and_records_one_game_per_line(tmp_path: Path) -> None:
    path = tmp_path / "not" / "yet" / "games.jsonl"  # its folder is created, as --log-dir's is
    result = CliRunner().invoke(main, two_hand(tmp_path, "--games", "3", "--seed", "7", "--record", str(path)))
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    records = read_records(path)
    assert [r["game_index"] for r in records] == [0, 1, 2]
    assert len({r["match_id"] for r in records}) == 1
    assert all(r["violations"] == [] for r in records)
    check_output(result.stdout, records)


def test_a_match_without_a_seed_deals_from_a_secret_one_its_lines_show(tmp_path: Path) -> None:
    """A bot that knows the seed can deal every card itself: by default each match draws its own."""
    seeds = []
    for run in ("first", "second"):
        path = tmp_path / f"{run}.jsonl"
        result = CliRunner().invoke(main, two_hand(tmp_path, "--games", "2", "--record", str(path)))
        assert result.exit_code == 0, result.output
        records = read_records(path)
        check_output(result.stdout, records)  # each game's line shows its seed: the match can be dealt again
        seeds.append({r["seed"] for r in records})
    assert len(seeds[0]) == 1 and seeds[0] != seeds[1]
    assert not (seeds[0] | seeds[1]) & set(range(1000))  # not a small number a bot could try in turn


def test_match_appends_to_an_existing_record_file(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    for seed in ("1", "2"):
        result = CliRunner().invoke(main, two_hand(tmp_path, "--games", "1", "--seed", seed, "--record", str(path)))
        assert result.exit_code == 0, result.output
    assert [r["seed"] for r in read_records(path)] == [1, 2]


def test_max_hands_draws_a_game_still_undecided_after_that_many_hands(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    result = CliRunner().invoke(main, two_hand(tmp_path, "--games", "1", "--max-hands", "2", "--record", str(path)))
    assert result.exit_code == 0, result.output
    (record,) = read_records(path)
    assert len(record["hands"]) == 2 and record["winners"] == []


def test_match_runs_as_a_real_command(tmp_path: Path) -> None:
    if not ARENA.exists():
        pytest.skip("the arena console script is not installed next to this Python")
    path = tmp_path / "games.jsonl"
    completed = subprocess.run(
        [ARENA, *two_hand(tmp_path, "--games", "2", "--record", str(path))],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stderr == ""
    check_output(completed.stdout, read_records(path))


def usage_error(tmp_path: Path, *flags: str) -> list[str]:
    """Arguments of a match with extra, bad flags."""
    return two_hand(tmp_path, "--games", "1", *flags)


BAD: list[Any] = [
    pytest.param(["--games", "0"], "--games", id="zero-games"),
    pytest.param(["--frobnicate"], "--frobnicate", id="unknown-flag"),
    pytest.param(["--option", "frobnicate=1"], "frobnicate", id="unknown-rule-option"),
    pytest.param(["--option", "deck"], "KEY=VALUE", id="option-without-value"),
    pytest.param(["--option", "deck=23"], "deck", id="bad-rule-option-value"),
    pytest.param(["--time", "fast"], "fast", id="bad-time"),
    pytest.param(["--time", "0+0"], "0+0", id="no-time"),
    pytest.param(["--max-decision", "0"], "--max-decision", id="zero-max-decision"),
    pytest.param(["--handshake-timeout", "0"], "--handshake-timeout", id="zero-handshake-timeout"),
    pytest.param(["--policy", "lenient"], "lenient", id="unknown-policy"),
    pytest.param(["--variant", "five-hand"], "five-hand", id="unknown-variant"),
    pytest.param(["--max-strikes", "none"], "--max-strikes", id="bad-max-strikes"),
    pytest.param(["--limit", "colour=red"], "colour", id="unknown-limit"),
    pytest.param(["--limit", "memory_mb"], "KEY=VALUE", id="limit-without-value"),
    pytest.param(["--limit", "memory_mb=12"], "memory_mb", id="limit-too-small"),
    pytest.param(["--limit", "processes=many"], "processes", id="limit-not-a-number"),
]


def check_one_line_error(exit_code: int, stdout: str, stderr: str, culprit: str) -> None:
    """Exit code 2, nothing played, no traceback, and exactly one ``Error:`` line that names the culprit."""
    assert exit_code == 2
    assert stdout == ""
    assert "Traceback" not in stderr
    errors = [line for line in stderr.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1, stderr
    assert culprit in errors[0]


@pytest.mark.parametrize(("flags", "culprit"), BAD)
def test_a_bad_flag_is_a_one_line_error_with_exit_code_2(tmp_path: Path, flags: list[str], culprit: str) -> None:
    result = CliRunner().invoke(main, usage_error(tmp_path, *flags))
    assert isinstance(result.exception, SystemExit)
    check_one_line_error(result.exit_code, result.stdout, result.stderr, culprit)


def test_the_handshake_timeout_from_the_command_line_reaches_the_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    played: list[MatchSpec] = []
    monkeypatch.setattr("arena.cli._play_match", lambda spec, record_path: played.append(spec))
    for flags, expected in (([], 10.0), (["--handshake-timeout", "42.5"], 42.5)):
        result = CliRunner().invoke(main, two_hand(tmp_path, "--games", "1", *flags))
        assert result.exit_code == 0, result.output
        assert played.pop().handshake_timeout == expected


def test_limits_from_the_command_line_reach_the_bots(tmp_path: Path) -> None:
    """``--limit`` sets what each bot may use: the first line of its log says how it was confined."""
    logs = tmp_path / "logs"
    args = ["match", RAW, RAW, "--variant", "two-hand", "--games", "1", "--log-dir", str(logs)]
    result = CliRunner().invoke(main, [*args, "--limit", "processes=32", "--limit", "cpu_seconds=30"])
    assert result.exit_code == 0, result.output
    for log in logs.glob("*.log"):
        first = log.read_text().splitlines()[0]
        assert first.startswith("[arena: ") and "32 tasks" in first and "cpu 30 s" in first


@pytest.mark.parametrize(
    ("bots", "culprit"),
    [
        pytest.param(["no-such-bot.py", RAW], "no-such-bot.py", id="missing-bot"),
        pytest.param([RAW, RAW, RAW], "two-hand needs 2 bots", id="too-many-bots"),
        pytest.param([], "BOTS", id="no-bots"),
    ],
)
def test_a_bad_line_up_is_a_one_line_error_with_exit_code_2(tmp_path: Path, bots: list[str], culprit: str) -> None:
    result = CliRunner().invoke(main, ["match", *bots, "--variant", "two-hand", "--log-dir", str(tmp_path)])
    assert isinstance(result.exception, SystemExit)
    check_one_line_error(result.exit_code, result.stdout, result.stderr, culprit)


def test_a_record_path_whose_folder_cannot_be_created_is_a_one_line_error(tmp_path: Path) -> None:
    """A missing folder is created (the first test above); one under a file cannot be."""
    (tmp_path / "file").write_text("")
    result = CliRunner().invoke(main, usage_error(tmp_path, "--record", str(tmp_path / "file" / "games.jsonl")))
    check_one_line_error(result.exit_code, result.stdout, result.stderr, str(tmp_path / "file"))


def test_a_log_dir_that_cannot_be_created_is_a_one_line_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    result = CliRunner().invoke(
        main, ["match", RAW, RAW, "--variant", "two-hand", "--log-dir", str(tmp_path / "file/logs")]
    )
    check_one_line_error(result.exit_code, result.stdout, result.stderr, "logs")


@pytest.mark.parametrize(
    ("args", "culprit"),
    [
        pytest.param(["match", "no-such-bot.py", RAW, "--variant", "two-hand"], "no-such-bot.py", id="missing-bot"),
        pytest.param(["match", RAW, RAW, "--variant", "two-hand", "--time", "fast"], "fast", id="bad-time"),
    ],
)
def test_a_real_command_with_a_bad_argument_prints_one_line_and_exits_2(
    tmp_path: Path, args: list[str], culprit: str
) -> None:
    if not ARENA.exists():
        pytest.skip("the arena console script is not installed next to this Python")
    completed = subprocess.run([ARENA, *args], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert completed.stderr.count("\n") == 1
    check_one_line_error(completed.returncode, completed.stdout, completed.stderr, culprit)


def build(bots: list[str], variant: str, games: int, seed: int = 5) -> MatchSpec:
    """The match ``arena match BOTS --variant VARIANT --games GAMES --seed SEED`` would play."""
    return build_match(
        bots,
        variant=variant,
        options={},
        games=games,
        seed=seed,
        time="5+0.1",
        max_decision=10.0,
        policy="forfeit",
        max_strikes=3,
        log_dir="logs",
    )


@pytest.mark.parametrize("games", [1, 2, 3, 8, 9])
def test_two_teams_play_each_deal_once_per_team_seating(games: int) -> None:
    """Two teams of copies in four-hand: team A in seats 0+2, then team B there, on each deal; no game twice."""
    spec = build([RAW, RAW], "four-hand", games)
    assert len(spec.games) == games
    played = [(g.seed, tuple(spec.bots[b].name for b in g.seating)) for g in spec.games]
    assert len(set(played)) == games, played  # copies are interchangeable: the same seed and team seating repeats
    a, b = "raw_random-1", "raw_random-2"
    expected = [(5 + k // 2, (a, b, a, b) if k % 2 == 0 else (b, a, b, a)) for k in range(games)]
    assert played == expected


@pytest.mark.parametrize(("variant", "n"), [("two-hand", 2), ("three-hand", 3), ("four-hand", 4)])
def test_distinct_bots_play_each_deal_in_every_rotation(variant: str, n: int) -> None:
    spec = build([RAW] * n, variant, 2 * n + 1)
    assert [g.seed for g in spec.games] == [5 + k // n for k in range(2 * n + 1)]
    for k, game in enumerate(spec.games):
        assert game.seating == [(seat - k) % n for seat in range(n)]
    assert len({(g.seed, tuple(g.seating)) for g in spec.games}) == len(spec.games)


CRASHER = 'import sys\nprint("warming up")\nraise RuntimeError("boom: no strategy")\n'


def test_a_bot_that_crashes_every_time_is_told_with_its_log_and_its_error(tmp_path: Path) -> None:
    crasher = tmp_path / "crasher.py"
    crasher.write_text(CRASHER)
    result = CliRunner().invoke(main, ["match", str(crasher), RAW, *two_hand(tmp_path, "--games", "2")[3:]])
    assert result.exit_code == 0, result.output  # the match was played: forfeits are results
    lines = result.stdout.splitlines()
    assert lines[0].endswith("forfeit by seat 0 (handshake: bot exited with code 1 before hello)")
    (log,) = (tmp_path / "logs").glob("*-bot0-crasher.log")
    assert lines[1] == f"  crasher: handshake; its log: {log}"  # once, at its first violation
    assert lines[2].endswith("forfeit by seat 1 (handshake: bot exited with code 1 before hello)")
    block = result.stdout.split("\n\nViolations by bot and kind:\n", 1)[1].splitlines()
    assert block == [
        "  crasher: handshake 2; forfeited 2 of its 2 games",
        "    first: handshake: bot exited with code 1 before hello",
        f"    log {log}: RuntimeError: boom: no strategy",
    ]
    assert result.stderr == "warning: crasher forfeited all 2 of its games: see its log above\n"


LINES_BOT = """import json, os, sys
print(json.dumps({"type": "hello", "name": "lines", "protocol": 1, "token": os.environ["ARENA_TOKEN"]}), flush=True)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "act":
        answer = {"type": "action", "request_id": message["request_id"], "action": message["legal"][0]}
        print(json.dumps(answer), flush=True)
    elif message["type"] == "match_end":
        break
"""


def test_a_stdio_bot_given_without_its_prefix_forfeits_with_a_hint_and_plays_with_it(tmp_path: Path) -> None:
    bot = tmp_path / "lines_bot.py"
    bot.write_text(LINES_BOT)
    bare = CliRunner().invoke(main, ["match", str(bot), RAW, *two_hand(tmp_path, "--games", "1")[3:]])
    assert bare.exit_code == 0, bare.output
    assert (
        "first: handshake: bot exited with code 0 before hello (its stdin is /dev/null: a bot that speaks JSON lines"
        " on stdin and stdout is given as stdio:PATH)" in bare.stdout
    )
    prefixed = CliRunner().invoke(main, ["match", f"stdio:{bot}", RAW, *two_hand(tmp_path, "--games", "1")[3:]])
    assert prefixed.exit_code == 0 and "Violations" not in prefixed.output, prefixed.output


def test_a_clean_match_prints_no_violations_block(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, two_hand(tmp_path, "--games", "1"))
    assert result.exit_code == 0 and "Violations" not in result.output


def test_ctrl_c_ends_a_match_with_the_table_of_the_games_played_so_far(tmp_path: Path) -> None:
    if not ARENA.exists():
        pytest.skip("the arena console script is not installed next to this Python")
    path = tmp_path / "games.jsonl"
    process = subprocess.Popen(
        [ARENA, *two_hand(tmp_path, "--games", "200", "--record", str(path))],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    try:
        first = process.stdout.readline() if process.stdout else ""  # a game is over: Ctrl-C now
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
        process.wait()
    assert process.returncode == 130, err
    played = read_records(path)
    assert 1 <= len(played) < 200
    check_output(first + out, played)  # every game line, then the table of those games
    assert err == f"Interrupted after {len(played)} of 200 games; their records are in {path}.\n"


def test_a_slam_says_so_on_its_game_line() -> None:
    record: dict[str, Any] = {"players": ["a", "b", "a", "b"], "final_scores": [10, 0, 10, 0], "winners": [0, 2]}
    record |= {"seed": 5, "game_index": 0, "hands": []}
    assert "slam" not in game_line(record)  # type: ignore[arg-type]
    line = game_line(record | {"slam": True, "forfeit": {"seat": 1, "kind": "timeout"}})  # type: ignore[arg-type]
    assert "winner a" in line and "slam" in line and "forfeit by seat 1 (timeout)" in line


def test_a_bot_that_does_not_play_the_variant_is_named_once_for_all_its_copies(tmp_path: Path) -> None:
    only_two = str(Path(__file__).resolve().parent / "bots" / "two_hand_only.py")
    args = ["match", only_two, RAW, "--variant", "four-hand", "--log-dir", str(tmp_path / "logs")]
    result = CliRunner().invoke(main, args)  # four seats: two copies of each bot
    assert result.exit_code != 0
    assert result.output.count("does not play 'four-hand': its hello lists two-hand") == 1, result.output
