"""The arena command line: every command and option has help text (-h too); results commands through CliRunner on a
real store: listings that say when they are empty or a page of more, replay of stored games and of JSONL records,
and one-line errors for what is not a game."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner
from configs import match_spec, write_config

from arena.cli import main
from arena.errors import ArenaError
from arena.play import forkserver
from arena.play.matchspec import BotEntry, MatchSpec
from arena.play.referee import fitted_limits

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
        "config keys",
        "config check",
    ]:
        assert expected in names


HELP_PATHS = [(), *(path for path, _ in COMMANDS)]


@pytest.mark.parametrize("path", HELP_PATHS, ids=[" ".join(p) or "arena" for p in HELP_PATHS])
def test_dash_h_is_help_everywhere(path: tuple[str, ...]) -> None:
    short = CliRunner().invoke(main, [*path, "-h"])
    assert short.exit_code == 0, short.output
    assert short.output == CliRunner().invoke(main, [*path, "--help"]).output
    assert "-h, --help" in short.output


GROUPS = [((), main), *((path, c) for path, c in COMMANDS if isinstance(c, click.Group))]


@pytest.mark.parametrize(("path", "group"), GROUPS, ids=[" ".join(p) or "arena" for p, _ in GROUPS])
def test_no_summary_is_cut_off_or_wrapped_in_a_command_list(path: tuple[str, ...], group: click.Group) -> None:
    result = CliRunner().invoke(main, [*path, "--help"], terminal_width=78)  # what click uses in an 80-column terminal
    assert result.exit_code == 0
    listing = result.output.split("Commands:\n", 1)[1].splitlines()
    assert len(listing) == len(group.commands), listing  # one line each: nothing wrapped
    for name, command in group.commands.items():
        summary = command.get_short_help_str(limit=1000)
        assert not summary.endswith("..."), summary
        assert f"  {name}" in "\n".join(listing) and any(line.endswith(summary) for line in listing), (name, listing)


ALL_COMMANDS = [(("arena",), main), *COMMANDS]


@pytest.mark.parametrize(("path", "command"), ALL_COMMANDS, ids=[" ".join(p) for p, _ in ALL_COMMANDS])
def test_every_option_has_a_description(path: tuple[str, ...], command: click.Command) -> None:
    for param in command.params:
        if isinstance(param, click.Option):
            assert param.help and param.help.strip(), f"{' '.join(path)} {param.opts[0]} has no help text"


def test_every_variant_option_lists_all_the_variants() -> None:
    from arena.engine.options import VARIANTS

    found = 0
    for path, command in COMMANDS:
        for param in command.params:
            if isinstance(param, click.Option) and "--variant" in param.opts:
                found += 1
                for variant in VARIANTS:
                    assert variant in (param.help or ""), f"arena {' '.join(path)} --variant does not list {variant}"
    assert found >= 2


def test_ranking_help_explains_its_columns() -> None:
    text = " ".join(CliRunner().invoke(main, ["ranking", "-h"]).output.split())
    for column in ("Elo", "+/- (95%)", "LOS next", "W-D-L", "score %", "pts/hand", "violations"):
        assert column in text
    assert "centred on the mean" in text and "per hand it played" in text and "docs/ratings.md" in text


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
    config = write_config(tmp / "small.toml", name="small", games_per_pairing=2, jobs=1, rating={"bootstrap": 50})
    result = CliRunner().invoke(main, ["tournament", "run", str(config), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "4/4 games" in result.output
    return config, tmp / "small.db"


def test_tournament_run_starts_the_referees_fork_server_before_it_prepares_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """So that the server's imports overlap the command's own (its first referee forks ~0.1 s sooner): the server
    is running when the run starts."""
    config = write_config(tmp_path / "small.toml", name="small")
    seen: list[bool] = []

    def run_tournament(*args: Any, **kwargs: Any) -> None:
        server = forkserver._servers.get(forkserver.REFEREES)
        seen.append(server is not None and server.alive())
        raise ArenaError("stopped by the test")

    monkeypatch.setattr("arena.tournament.run.run_tournament", run_tournament)
    monkeypatch.setenv("ARENA_FORK_SERVER", "1")
    forkserver.reset()
    try:
        result = CliRunner().invoke(main, ["tournament", "run", str(config), "--quiet"])
    finally:
        forkserver.reset()
    assert "stopped by the test" in result.output
    assert seen == [True]


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


@pytest.mark.parametrize("command", ["ranking", "crosstable", "games"])
def test_reading_a_database_imports_neither_the_config_models_nor_the_referee(
    played: tuple[Path, Path], command: str
) -> None:
    """What a reading command costs is its own work: the config's models and the referee's modules took 0.25 s of
    the 0.37 s that ``arena ranking --db`` took (checked in a fresh interpreter, where nothing was imported before).
    pydantic itself it loads, to check every record it reads (``read_record``; its cost: docs/performance.md)."""
    _, db = played
    code = (
        "import sys; from arena.cli import main\n"
        "try:\n    main([sys.argv[1], '--db', sys.argv[2]])\nexcept SystemExit as stop:\n    assert not stop.code\n"
        "print(sorted(m for m in sys.modules if m in ('arena.tournament.config', 'arena.play.botproc')))"
    )
    done = subprocess.run([sys.executable, "-c", code, command, str(db)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "random" in done.stdout and done.stdout.splitlines()[-1] == "[]"


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


def test_games_says_how_many_it_shows_of_how_many_and_where_the_next_page_starts(played: tuple[Path, Path]) -> None:
    config, _ = played
    first = CliRunner().invoke(main, ["games", str(config), "--limit", "3"])
    assert first.exit_code == 0, first.output
    assert first.stdout.splitlines()[-1] == "3 of 4 games (1-3); next page: --offset 3"
    rest = CliRunner().invoke(main, ["games", str(config), "--limit", "3", "--offset", "3"])
    assert rest.stdout.splitlines()[-1] == "1 of 4 games (4)"
    whole = CliRunner().invoke(main, ["games", str(config)])
    assert " of 4 games" not in whole.stdout and len(whole.stdout.splitlines()) == 2 + 4  # header, rule, rows
    as_json = CliRunner().invoke(main, ["games", str(config), "--limit", "3", "--format", "json"])
    assert len(json.loads(as_json.stdout)) == 3  # the machine formats stay clean


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bot", "nobody"], "no game matches --bot nobody (4 stored) in "),
        (["--offset", "4"], "no games past --offset 4: 4 stored in "),
    ],
)
def test_an_empty_listing_says_why_instead_of_printing_a_blank_line(
    played: tuple[Path, Path], args: list[str], message: str
) -> None:
    config, _ = played
    result = CliRunner().invoke(main, ["games", str(config), *args])
    assert result.exit_code == 0
    assert result.stdout == "" and result.stderr.startswith(message)
    csv_out = CliRunner().invoke(main, ["games", str(config), *args, "--format", "csv"])
    assert csv_out.stdout.strip() == "id,game,players,scores,winners,hands,forfeit,violations"
    assert json.loads(CliRunner().invoke(main, ["games", str(config), *args, "--format", "json"]).stdout) == []


@pytest.mark.parametrize("command", ["games", "ranking", "crosstable"])
def test_an_empty_database_says_so(tmp_path: Path, command: str) -> None:
    from arena.tournament.store import Store

    db = tmp_path / "empty.db"
    with Store.open(db):
        pass
    result = CliRunner().invoke(main, [command, str(db)])
    assert result.exit_code == 0
    assert result.stdout == "" and result.stderr == f"no games stored yet in {db}\n"


@pytest.fixture(scope="module")
def records(played: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A JSONL record file of the played tournament's four games, as `arena match --record` writes one."""
    config, _ = played
    listing = json.loads(CliRunner().invoke(main, ["games", str(config), "--format", "json"]).stdout)
    path = tmp_path_factory.mktemp("records") / "games.jsonl"
    lines = [CliRunner().invoke(main, ["replay", str(g["id"]), str(config), "--json"]).stdout for g in listing]
    path.write_text("".join(json.dumps(json.loads(line)) + "\n" for line in lines))
    return path


def test_replay_of_a_jsonl_file_shows_every_game_and_a_number_picks_one(records: Path) -> None:
    every = CliRunner().invoke(main, ["replay", str(records)])
    assert every.exit_code == 0, every.output
    assert [line for line in every.stdout.splitlines() if line.startswith("===")] == [
        f"=== game {n} of 4 ({records} line {n})" for n in range(1, 5)
    ]
    assert every.stdout.count("Final scores:") == 4
    third = CliRunner().invoke(main, ["replay", "3", str(records)])
    assert third.exit_code == 0, third.output
    lines = records.read_text().splitlines()
    from arena.tournament.account import describe

    assert third.stdout == describe(json.loads(lines[2]))
    as_json = CliRunner().invoke(main, ["replay", "2", str(records), "--json"])
    assert json.loads(as_json.stdout) == json.loads(lines[1])


def write_lines(tmp_path: Path, *lines: str) -> str:
    path = tmp_path / "games.jsonl"
    path.write_text("".join(line + "\n" for line in lines))
    return str(path)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(lambda c, d, r, t: [str(c)], "give the game to replay: arena replay GAME {c}", id="config-alone"),
        pytest.param(lambda c, d, r, t: [str(d)], "give the game to replay: arena replay GAME {d}", id="db-alone"),
        pytest.param(lambda c, d, r, t: ["5", str(r)], "{r} holds games 1 to 4: no game '5'", id="past-the-end"),
        pytest.param(lambda c, d, r, t: ["0", str(r)], "{r} holds games 1 to 4: no game '0'", id="zero"),
        pytest.param(
            lambda c, d, r, t: [write_lines(t, '{"seed": 1}')],
            '{t}/games.jsonl line 1: not a game record (no "format": "euchre-arena/game/1")',
            id="json-not-a-record",
        ),
        pytest.param(
            lambda c, d, r, t: ["2", write_lines(t, "{}", "", "[1, 2]")],
            "{t}/games.jsonl line 3: not a game record",
            id="second-record-on-line-3",
        ),
        pytest.param(
            lambda c, d, r, t: [write_lines(t, "this is not json")],
            "{t}/games.jsonl line 1: not JSON (Expecting value at column 1)",
            id="not-json",
        ),
        pytest.param(
            lambda c, d, r, t: [write_lines(t, '{"format": "euchre-arena/game/1", "players": ["a", "b"]}')],
            "line 1: not a game record: variant: Field required",
            id="record-without-its-parts",
        ),
        pytest.param(lambda c, d, r, t: [write_lines(t, "")], "{t}/games.jsonl holds no game record", id="empty"),
        pytest.param(lambda c, d, r, t: [str(t / "absent.jsonl")], "{t}/absent.jsonl", id="missing-file"),
    ],
)
def test_replay_of_what_is_not_a_game_is_one_line(
    played: tuple[Path, Path], records: Path, tmp_path: Path, args: Any, message: str
) -> None:
    config, db = played
    result = CliRunner().invoke(main, ["replay", *args(config, db, records, tmp_path)])
    assert result.exit_code == 2, result.output
    assert result.stdout == "" and "Traceback" not in result.output
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("Error: ")
    assert message.format(c=config, d=db, r=records, t=tmp_path) in result.stderr


def test_replay_of_a_binary_file_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "noise.bin"
    path.write_bytes(bytes(range(256)) * 4)
    result = CliRunner().invoke(main, ["replay", str(path)])
    assert (
        result.exit_code == 2 and result.stderr == f"Error: {path}: not a JSONL file of game records (not UTF-8 text)\n"
    )


def test_config_keys_prints_the_generated_reference() -> None:
    from arena.tournament.config import config_reference

    result = CliRunner().invoke(main, ["config", "keys"])
    assert result.exit_code == 0 and result.stdout == config_reference()


def test_config_check_says_what_a_config_would_play_or_what_is_wrong(tmp_path: Path) -> None:
    good = write_config(tmp_path / "good.toml", entrants=["random", "heuristic"], games_per_pairing=3)
    result = CliRunner().invoke(main, ["config", "check", str(good)])
    assert result.exit_code == 0 and result.stdout == f"{good}: good, two-hand, 2 entrants, 6 games\n"
    bad = tmp_path / "bad.toml"
    bad.write_text('entrants = ["random", "no-such-bot"]\npartnership = "self"\n')
    result = CliRunner().invoke(main, ["config", "check", str(bad)])
    assert result.exit_code == 2 and result.stderr.startswith(f"Error: {bad}: entrants: no bot 'no-such-bot'")


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


def spec_of(bots: int) -> MatchSpec:
    entrants = [BotEntry(name=f"b{k}", argv=["x"]) for k in range(bots)]
    return match_spec(entrants)


def test_doctor_says_what_confinement_this_host_gives_a_bot_one_line_each(monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.play import cgroups, forkserver
    from arena.play.sandbox import capabilities

    result = CliRunner().invoke(main, ["doctor"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[: len(capabilities().describe())] == capabilities().describe()
    assert lines[-4].startswith("memory and tasks: ")
    kind = cgroups.detect().kind
    assert (f"cgroup {kind}" in lines[-4]) if kind != "none" else ("RLIMIT_AS" in lines[-4])
    two, four, seven = (fitted_limits(spec_of(bots), 2).open_files for bots in (2, 4, 7))  # a tournament's
    assert lines[-3].startswith("open files a bot process: ")
    assert f"in a tournament {two}, {four} and {seven} (of 256" in lines[-3]
    assert lines[-2].startswith("a match at most: 2 seats 2048 MiB and 128 tasks")
    assert "7 seats 7168 MiB and 448 tasks" in lines[-2]
    assert lines[-1].startswith("python bots: forked" if forkserver.enabled() else "python bots: started by exec")
    monkeypatch.setenv("ARENA_FORK_SERVER", "0")
    off = CliRunner().invoke(main, ["doctor"]).output.splitlines()[-1]
    assert off.startswith("python bots: started by exec")
