"""A tournament's database holds the results of one set of bots under one set of rules: a changed bot, or a changed
rule, is refused when the tournament is resumed, never mixed into the old table without a word.

Through the command line (``arena tournament run``, ``arena submit``) with real referees, bots and SQLite files.
"""

from __future__ import annotations

import shutil
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from probing import BOTS

from arena.cli import main
from arena.tournament.run import entrant_fingerprint, resolve_entrants
from arena.tournament.store import Store

CONFIG = """
name = "{name}"
variant = "two-hand"
entrants = {entrants}
games_per_pairing = 1
games_per_match = 2
seed = 3
time = "5+0.1"
jobs = 1
{extra}

[options]
points_to_win = 3

[rating]
bootstrap = 20
"""


# A hang fails the test instead of stalling the suite (pytest-timeout).
pytestmark = pytest.mark.timeout(90)


def arena(*args: str | Path, home: Path) -> Result:
    """Run the arena command line in-process, with its bot registry in ``home``."""
    result = CliRunner().invoke(main, [str(a) for a in args], env={"ARENA_HOME": str(home)})
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def stored(db: Path) -> dict[str, dict[str, Any]]:
    """Every stored game by key."""
    with Store.open(db, create=False) as store:
        return {key: record for _, key, record in store.records()}


@dataclass
class Tournament:
    """A small finished tournament: its config, its database, the entrant's script and where the registry lives."""

    folder: Path
    config: Path
    db: Path
    bot: Path
    home: Path

    def write_config(self, entrants: list[str], extra: str = "", name: str = "fingerprint") -> Path:
        quoted = "[" + ", ".join(f'"{e}"' for e in entrants) + "]"
        self.config.write_text(CONFIG.format(name=name, entrants=quoted, extra=extra))
        return self.config

    def copy_db(self, tmp_path: Path) -> Path:
        """A copy of the finished tournament's database, for a test to resume."""
        copy = tmp_path / "copy.db"
        shutil.copyfile(self.db, copy)
        return copy


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tournament]:
    """Two games of ``random`` against ``mine.py`` (a copy of tests/bots/raw_random.py), stored."""
    folder = tmp_path_factory.mktemp("fingerprint")
    bot = folder / "mine.py"
    shutil.copyfile(BOTS / "raw_random.py", bot)
    setup = Tournament(folder, folder / "t.toml", folder / "t.db", bot, folder / "registry")
    config = setup.write_config(["random", str(bot)])
    result = arena("tournament", "run", config, "--db", setup.db, "--quiet", home=setup.home)
    assert result.exit_code == 0, result.output
    assert "2/2 games (2 played now)" in result.output
    yield setup


@pytest.fixture
def edited(tournament: Tournament) -> Iterator[Path]:
    """The entrant's script with one comment added (put back as it was afterwards)."""
    original = tournament.bot.read_bytes()
    tournament.bot.write_bytes(original + b"# tuned: plays the same, but it is another program now\n")
    try:
        yield tournament.bot
    finally:
        tournament.bot.write_bytes(original)


def test_resuming_with_the_same_bots_and_rules_plays_nothing_again(tournament: Tournament, tmp_path: Path) -> None:
    db = tournament.copy_db(tmp_path)
    before = stored(db)
    result = arena("tournament", "run", tournament.config, "--db", db, "--quiet", home=tournament.home)
    assert result.exit_code == 0, result.output
    assert "2/2 games (0 played now)" in result.output
    assert stored(db) == before


def test_a_bot_edited_since_the_tournament_began_is_refused_not_mixed_into_the_old_results(
    tournament: Tournament, edited: Path, tmp_path: Path
) -> None:
    db = tournament.copy_db(tmp_path)
    before = stored(db)
    result = arena("tournament", "run", tournament.config, "--db", db, "--quiet", home=tournament.home)
    assert result.exit_code == 2, result.output
    assert "entrants changed" in result.output and "mine" in result.output
    assert "Traceback" not in result.output
    assert stored(db) == before


def test_a_registered_bot_submitted_again_with_other_code_is_refused(tournament: Tournament, tmp_path: Path) -> None:
    home = tmp_path / "registry"
    config = tmp_path / "registered.toml"
    config.write_text(CONFIG.format(name="registered", entrants='["random", "mine"]', extra=""))
    db = tmp_path / "registered.db"
    script = tmp_path / "mine.py"
    shutil.copyfile(tournament.bot, script)
    assert arena("submit", script, "--name", "mine", home=home).exit_code == 0
    first = arena("tournament", "run", config, "--db", db, "--quiet", home=home)
    assert first.exit_code == 0 and "(2 played now)" in first.output, first.output
    script.write_text(script.read_text() + "# version 2\n")
    submitted = arena("submit", script, "--name", "mine", home=home)
    assert submitted.exit_code == 0 and "registered" in submitted.output, submitted.output
    again = arena("tournament", "run", config, "--db", db, "--quiet", home=home)
    assert again.exit_code == 2, again.output
    assert "entrants changed" in again.output
    assert len(stored(db)) == 2


def test_an_entrants_fingerprint_follows_its_own_files_and_names_not_the_interpreter(tmp_path: Path) -> None:
    script = tmp_path / "alpha.py"
    script.write_text("print('alpha')\n")
    program = tmp_path / "beta"  # an executable that is not a .py script: it runs as it is
    program.write_text("#!/bin/sh\nexit 0\n")
    program.chmod(program.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    entrants = [str(script), str(program), "random"]

    def fingerprint() -> str:
        return entrant_fingerprint(resolve_entrants(entrants))

    start = fingerprint()
    assert fingerprint() == start  # stable
    assert {"alpha", "beta", "random"} <= {part.partition("=")[0] for part in start.split(";")}
    script.write_text("print('alpha, tuned')\n")
    edited_script = fingerprint()
    assert edited_script != start
    script.write_text("print('alpha')\n")
    assert fingerprint() == start
    program.write_text("#!/bin/sh\nexit 1\n")
    assert fingerprint() not in (start, edited_script)
    program.write_text("#!/bin/sh\nexit 0\n")
    assert fingerprint() == start
    twin = tmp_path / "gamma.py"  # the same code under another name is another entrant
    shutil.copyfile(script, twin)
    assert entrant_fingerprint(resolve_entrants([str(twin), str(program), "random"])) != start
    assert entrant_fingerprint(resolve_entrants(["random", "heuristic"])) != entrant_fingerprint(
        resolve_entrants(["random", "search"])
    )


# config changes that decide which games are played, or how: refused; and settings that do not: accepted
REFUSED = {
    "time": 'time = "5+0.2"',
    "max_decision": "max_decision = 9.0",
    "seed": None,
    "points_to_win": None,
    "games_per_pairing": None,
    "duplicate": "duplicate = false",
    "policy": 'policy = "substitute"',
    "max_strikes": "max_strikes = 2",
    "max_hands": "max_hands = 500",
    "limits": "[limits]\ncpu_seconds = 30",
    "name": None,
}
ACCEPTED = {
    "jobs": "jobs = 2",
    "pin": "pin = false",
    "rating": "[rating]\nbootstrap = 50\nconfidence = 0.9\nk = 24.0",
}


def changed_config(tournament: Tournament, tmp_path: Path, what: str, line: str | None) -> Path:
    """The tournament's config with one setting changed."""
    text = tournament.config.read_text()
    if line is None:
        old, new = {
            "seed": ("seed = 3", "seed = 4"),
            "points_to_win": ("points_to_win = 3", "points_to_win = 4"),
            "games_per_pairing": ("games_per_pairing = 1", "games_per_pairing = 2"),
            "name": ('name = "fingerprint"', 'name = "renamed"'),
        }[what]
        assert old in text
        text = text.replace(old, new)
    elif line.startswith("[rating]"):
        text = text[: text.index("[rating]")] + line + "\n"
    elif line.startswith("["):
        text += "\n" + line + "\n"
    else:
        key = line.split(" =")[0]
        lines = [ln for ln in text.splitlines() if not ln.startswith(f"{key} =")]
        text = "\n".join([lines[0], line, *lines[1:]]) + "\n"
    path = tmp_path / "changed.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(("what", "line"), list(REFUSED.items()), ids=list(REFUSED))
def test_a_changed_rule_of_the_tournament_is_refused(
    tournament: Tournament, tmp_path: Path, what: str, line: str | None
) -> None:
    db = tournament.copy_db(tmp_path)
    before = stored(db)
    config = changed_config(tournament, tmp_path, what, line)
    result = arena("tournament", "run", config, "--db", db, "--quiet", home=tournament.home)
    assert result.exit_code == 2, result.output
    assert "belongs to tournament config" in result.output
    assert stored(db) == before


@pytest.mark.parametrize(("what", "line"), list(ACCEPTED.items()), ids=list(ACCEPTED))
def test_settings_that_do_not_change_the_games_may_change(
    tournament: Tournament, tmp_path: Path, what: str, line: str
) -> None:
    db = tournament.copy_db(tmp_path)
    config = changed_config(tournament, tmp_path, what, line)
    result = arena("tournament", "run", config, "--db", db, "--quiet", home=tournament.home)
    assert result.exit_code == 0, result.output
    assert "2/2 games (0 played now)" in result.output
