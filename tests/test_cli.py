"""The arena command line: every command has help text; results commands through CliRunner on a real store."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from arena.cli import main

ROOT = Path(__file__).resolve().parent.parent


def all_commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], click.Command]]:
    found = []
    for name, command in group.commands.items():
        found.append(((*prefix, name), command))
        if isinstance(command, click.Group):
            found.extend(all_commands(command, (*prefix, name)))
    return found


COMMANDS = all_commands(main)


def test_the_cli_has_the_documented_commands() -> None:
    names = {" ".join(path) for path, _ in COMMANDS}
    for expected in [
        "match",
        "tournament run",
        "ranking",
        "crosstable",
        "games",
        "replay",
        "submit",
        "bots",
        "bench engine",
        "bench protocol",
        "bench tournament",
        "protocol schema",
        "doctor",
    ]:
        assert expected in names


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[" ".join(p) for p, _ in COMMANDS])
def test_every_command_has_help_text(path: tuple[str, ...], command: click.Command) -> None:
    assert command.help and command.help.strip(), f"`arena {' '.join(path)}` has no help text"
    result = CliRunner().invoke(main, [*path, "--help"])
    assert result.exit_code == 0
    first_words = " ".join(command.help.split()[:4])
    assert first_words in " ".join(result.output.split())


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("cli")
    config = tmp / "small.toml"
    config.write_text(
        'name = "small"\nvariant = "two-hand"\nentrants = ["heuristic", "random"]\n'
        "games_per_pairing = 2\njobs = 1\n[rating]\nbootstrap = 50\n"
    )
    result = CliRunner().invoke(main, ["tournament", "run", str(config), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "4/4 games" in result.output
    return config, tmp / "small.db"


@pytest.mark.parametrize("fmt", ["table", "csv", "json", "markdown"])
def test_ranking_in_every_format(played: tuple[Path, Path], fmt: str) -> None:
    config, db = played
    for source in (str(config), str(db)):
        result = CliRunner().invoke(main, ["ranking", source, "--format", fmt])
        assert result.exit_code == 0, result.output
        assert "heuristic" in result.output and "random" in result.output
    if fmt == "json":
        rows = json.loads(result.output)
        assert [r["rank"] for r in rows] == [1, 2]
        assert sum(r["games"] for r in rows) == 8
    if fmt == "csv":
        rows = list(csv.reader(io.StringIO(result.output)))
        assert rows[0][:3] == ["rank", "bot", "Elo"] and len(rows) == 3


def test_crosstable_games_and_replay(played: tuple[Path, Path]) -> None:
    config, _ = played
    cross = CliRunner().invoke(main, ["crosstable", str(config)])
    assert cross.exit_code == 0 and "/4" in cross.output
    listing = CliRunner().invoke(main, ["games", str(config), "--format", "json"])
    assert listing.exit_code == 0
    games = json.loads(listing.output)
    assert len(games) == 4
    only = CliRunner().invoke(main, ["games", str(config), "--bot", "random", "--limit", "2", "--format", "json"])
    assert len(json.loads(only.output)) == 2
    replay = CliRunner().invoke(main, ["replay", str(games[0]["id"]), str(config)])
    assert replay.exit_code == 0, replay.output
    assert "trick" in replay.output.lower()
    as_json = CliRunner().invoke(main, ["replay", games[0]["game"], str(config), "--json"])
    assert json.loads(as_json.output)["format"] == "euchre-arena/game/1"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ranking", "nowhere.db"], "no results database"),
        (["replay", "1", "nowhere.db"], "no results database"),
        (["tournament", "run", "nowhere.toml"], "no such tournament config"),
        (["ranking"], "give a tournament CONFIG"),
    ],
)
def test_bad_input_is_one_clear_line_and_exit_code_2(args: list[str], message: str) -> None:
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_a_corrupted_database_is_refused_and_left_untouched(tmp_path: Path) -> None:
    db = tmp_path / "bad.db"
    db.write_bytes(b"this is not a database" * 100)
    before = db.read_bytes()
    result = CliRunner().invoke(main, ["ranking", str(db)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert db.read_bytes() == before


@pytest.mark.slow
def test_bench_protocol_prints_both_rates_and_their_ratio_as_json() -> None:
    result = CliRunner().invoke(main, ["bench", "protocol", "--seconds", "0.5", "--games", "5", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    assert figures["arena_decisions_per_second"] > 0 and figures["pyzmq_round_trips_per_second"] > 0
    assert round(figures["ratio"], 3) == sorted(figures["round_ratios"])[2]  # the median of five rounds
    assert figures["request_bytes"] > figures["reply_bytes"] > 0
    assert "load_average" in figures
    stdio = figures["stdio"]  # the same for bots on stdin/stdout, beside pipe ping-pong
    assert stdio["arena_decisions_per_second"] > 0 and stdio["pipe_round_trips_per_second"] > 0
    assert round(stdio["ratio"], 3) == sorted(stdio["round_ratios"])[2]
    assert stdio["request_bytes"] > stdio["reply_bytes"] > 0


def test_doctor_says_what_confinement_this_host_gives_a_bot_one_line_each() -> None:
    from arena.play import cgroups
    from arena.play.sandbox import capabilities

    result = CliRunner().invoke(main, ["doctor"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[: len(capabilities().describe())] == capabilities().describe()
    assert lines[-1].startswith("memory and tasks: ")
    kind = cgroups.detect().kind
    assert (f"cgroup {kind}" in lines[-1]) if kind != "none" else ("RLIMIT_AS" in lines[-1])
