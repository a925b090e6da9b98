"""A tournament's database holds the results of one set of bots under one set of rules: a changed bot, or a changed
rule, is refused when the tournament is resumed, never mixed into the old table without a word, and the refusal
names what changed. A tournament may grow: more deal sequences per pairing, more entrants, every stored game kept.

Through the command line (``arena tournament run``, ``arena submit``) with real referees, bots and SQLite files.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from configs import tournament_toml, write_config
from probing import BOTS

from arena.cli import main
from arena.tournament.binding import LEGACY_SEED, entrant_digests
from arena.tournament.config import load_config
from arena.tournament.growth import LEGACY
from arena.tournament.run import resolve_entrants
from arena.tournament.schedule import deal_seed
from arena.tournament.store import Store

CONFIG = dict(
    games_per_pairing=1,
    games_per_match=2,
    seed=3,
    # Generous: the entrants play by their views alone (a hash of each), so their games are the same whatever the
    # host's speed unless a clock runs out; a loaded host once timed one out at 5+0.1, and a fresh run differed.
    time="60+1",
    max_decision=30.0,
    jobs=1,
    options={"points_to_win": 3},
    rating={"bootstrap": 20},
)  # [rating] last: changed_config cuts the text there


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

    def write_config(self, entrants: list[str], name: str = "fingerprint") -> Path:
        return write_config(self.config, name=name, entrants=entrants, **CONFIG)

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
    assert "2/2 games (2 played now)" in result.output and "secret seed" not in result.output  # a seed of its own
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
    config = write_config(tmp_path / "registered.toml", name="registered", entrants=["random", "mine"], **CONFIG)
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

    def fingerprint() -> dict[str, str]:
        return entrant_digests(resolve_entrants(entrants))

    start = fingerprint()
    assert fingerprint() == start  # stable
    assert list(start) == ["alpha", "beta", "random"]
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
    assert entrant_digests(resolve_entrants([str(twin), str(program), "random"])) != start
    assert entrant_digests(resolve_entrants(["random", "heuristic"])) != entrant_digests(
        resolve_entrants(["random", "search"])
    )


# config changes that decide which games are played, or how: refused, naming the key; and settings that do not:
# accepted. Each refused change: (the line, the key the message must name)
REFUSED = {
    "time": ('time = "5+0.2"', "'time'"),
    "max_decision": ("max_decision = 9.0", "'max_decision'"),
    "seed": (None, "'seed'"),
    "points_to_win": (None, "'options.points_to_win'"),
    "duplicate": ("duplicate = false", "'duplicate'"),
    "policy": ('policy = "substitute"', "'policy'"),
    "max_strikes": ("max_strikes = 2", "'max_strikes'"),
    "max_hands": ("max_hands = 500", "'max_hands'"),
    "limits": ("[limits]\ncpu_seconds = 30", "'limits.cpu_seconds'"),
    "name": (None, "'name'"),
    "games_per_match": ("games_per_match = 1", "'games_per_match'"),
}
ACCEPTED = {
    "jobs": "jobs = 2",
    "pin": "pin = false",
    "rating": "[rating]\nbootstrap = 50\nconfidence = 0.9\nk = 24.0",
    "executor": '[executor]\nkind = "local"\nscheduler = "tcp://127.0.0.1:8786"\nshared = ["/srv/bots"]',
}


def changed_config(tournament: Tournament, tmp_path: Path, what: str, line: str | None) -> Path:
    """The tournament's config with one setting changed."""
    text = tournament.config.read_text()
    if line is None:
        old, new = {
            "seed": ("seed = 3", "seed = 4"),
            "points_to_win": ("points_to_win = 3", "points_to_win = 4"),
            "games_per_pairing": ("games_per_pairing = 1", "games_per_pairing = 2"),
            "more entrants": ('entrants = ["random", ', 'entrants = ["random", "heuristic", '),
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


@pytest.mark.parametrize(("what", "line", "key"), [(w, *v) for w, v in REFUSED.items()], ids=list(REFUSED))
def test_a_changed_rule_of_the_tournament_is_refused_naming_the_key(
    tournament: Tournament, tmp_path: Path, what: str, line: str | None, key: str
) -> None:
    db = tournament.copy_db(tmp_path)
    before = stored(db)
    config = changed_config(tournament, tmp_path, what, line)
    result = arena("tournament", "run", config, "--db", db, "--quiet", home=tournament.home)
    assert result.exit_code == 2, result.output
    assert "belongs to tournament config 'fingerprint'" in result.output
    assert f"{key} was " in result.output
    assert result.output.count(" was ") == 1  # only the key that changed
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


# ---- a tournament grows ----


def same_games(a: dict[str, dict[str, Any]], b: dict[str, dict[str, Any]]) -> bool:
    """The same games by key: the same deals, play and results (timings aside)."""
    played = ("seed", "players", "hands", "final_scores", "winners")
    return a.keys() == b.keys() and all({k: a[g][k] for k in played} == {k: b[g][k] for k in played} for g in a)


def test_more_games_per_pairing_grows_the_tournament_keeping_every_stored_game(
    tournament: Tournament, tmp_path: Path
) -> None:
    db = tournament.copy_db(tmp_path)
    before = stored(db)
    grown = changed_config(tournament, tmp_path, "games_per_pairing", None)
    result = arena("tournament", "run", grown, "--db", db, "--quiet", home=tournament.home)
    assert result.exit_code == 0, result.output
    assert "4/4 games (2 played now)" in result.output
    assert "grown: games_per_pairing 1 -> 2" in result.output
    after = stored(db)
    assert {key: after[key] for key in before} == before  # the old games are untouched
    # the same as a tournament that had two deal sequences from the start: games played out, no one charged
    fresh = tmp_path / "fresh.db"
    assert arena("tournament", "run", grown, "--db", fresh, "--quiet", home=tournament.home).exit_code == 0
    assert all(record["violations"] == [] for record in [*after.values(), *stored(fresh).values()])
    assert same_games(after, stored(fresh))
    # and it cannot shrink back: the games of the second deal would stay in the table
    shrunk = arena("tournament", "run", tournament.config, "--db", db, "--quiet", home=tournament.home)
    assert shrunk.exit_code == 2, shrunk.output
    assert "'games_per_pairing' was 2, now 1" in shrunk.output and "may not go down" in shrunk.output
    assert stored(db) == after


def test_the_ranking_of_a_tournament_with_games_missing_says_so(tournament: Tournament, tmp_path: Path) -> None:
    """A match that failed (a referee that stopped) leaves games unplayed: the table is of those stored, and it says
    so (an outside check: a table printed with exit code 0 and no word of the 8 games missing)."""
    db = tournament.copy_db(tmp_path)
    complete = arena("ranking", tournament.config, "--db", db, home=tournament.home)
    assert complete.exit_code == 0 and "warning" not in complete.output, complete.output
    grown = changed_config(tournament, tmp_path, "games_per_pairing", None)  # two deals a pairing, one played
    partial = arena("ranking", grown, "--db", db, home=tournament.home)
    assert partial.exit_code == 0, partial.output
    assert "warning: 2 of the tournament's 4 games are not stored: the table is of the 2 played" in partial.stderr


def test_a_new_entrant_grows_the_tournament_and_an_entrant_may_not_leave_or_move(
    tournament: Tournament, tmp_path: Path
) -> None:
    db = tournament.copy_db(tmp_path)
    before = stored(db)
    grown = changed_config(tournament, tmp_path, "more entrants", None)
    result = arena("tournament", "run", grown, "--db", db, "--quiet", home=tournament.home)
    assert result.exit_code == 0, result.output
    assert "6/6 games (4 played now)" in result.output and "entrants + heuristic" in result.output
    after = stored(db)
    assert {key: after[key] for key in before} == before
    assert sum("heuristic" in record["players"] for record in after.values()) == 4
    gone = tmp_path / "gone.toml"
    gone.write_text(grown.read_text().replace('"random", ', ""))
    left = arena("tournament", "run", gone, "--db", db, "--quiet", home=tournament.home)
    assert left.exit_code == 2, left.output
    assert "'random' is no longer an entrant" in left.output
    moved = tmp_path / "moved.toml"
    moved.write_text(
        grown.read_text().replace('"random", "heuristic", ', '"heuristic", ').replace("]", ', "random"]', 1)
    )
    reordered = arena("tournament", "run", moved, "--db", db, "--quiet", home=tournament.home)
    assert reordered.exit_code == 2, reordered.output
    assert "order of the entrants" in reordered.output
    assert stored(db) == after


def test_a_results_file_of_an_older_version_resumes_unchanged_then_may_grow(
    tournament: Tournament, tmp_path: Path
) -> None:
    db = tournament.copy_db(tmp_path)
    with Store.open(db) as store:  # as an older version wrote it: a fingerprint only (of no deals key: every
        # pairing dealt the same deals, and four-hand teams were copies by default), entrants as name=digest
        legacy = load_config(tournament.config).model_copy(update=LEGACY)
        store.set_meta("config.fingerprint", legacy.fingerprint())
        digests = json.loads(store.get_meta("entrants") or "{}")
        store.set_meta("entrants", ";".join(f"{name}={digest}" for name, digest in sorted(digests.items())))
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM meta WHERE key = 'config.settings'")
    conn.close()
    grown = changed_config(tournament, tmp_path, "games_per_pairing", None)
    refused = arena("tournament", "run", grown, "--db", db, "--quiet", home=tournament.home)
    assert refused.exit_code == 2 and "older version" in refused.output, refused.output
    same = arena("tournament", "run", tournament.config, "--db", db, "--quiet", home=tournament.home)
    assert same.exit_code == 0 and "2/2 games (0 played now)" in same.output, same.output
    again = arena("tournament", "run", grown, "--db", db, "--quiet", home=tournament.home)
    assert again.exit_code == 0 and "4/4 games (2 played now)" in again.output, again.output


def test_a_config_without_a_seed_draws_a_secret_one_per_results_file_and_keeps_it_as_the_file_grows(
    tmp_path: Path,
) -> None:
    """A known seed tells a bot every card (it can deal the game itself): without one, no two results files share
    their deals, none is dealt from the old default seed, and a resumed file keeps dealing from its own."""
    home = tmp_path / "home"
    text = tournament_toml(name="secret", entrants=["random", "heuristic"], **(CONFIG | {"seed": None}))
    config = tmp_path / "secret.toml"
    config.write_text(text)
    first, second = tmp_path / "first.db", tmp_path / "second.db"
    said = []
    for db in (first, second):
        result = arena("tournament", "run", config, "--db", db, "--quiet", home=home)
        assert result.exit_code == 0, result.output
        said.append(result.output)
    seeds = [{record["seed"] for record in stored(db).values()} for db in (first, second)]
    assert len(seeds[0]) == 1 and len(seeds[1]) == 1 and seeds[0] != seeds[1]  # one deal each, not the same one
    assert deal_seed(LEGACY_SEED, 0) not in seeds[0] | seeds[1]
    with Store.open(first, create=False) as store:
        drawn = json.loads(store.get_meta("config.settings") or "{}")["seed"]
    assert seeds[0] == {deal_seed(drawn, 0, "random|heuristic")}
    assert said[0].startswith(f"secret: 2/2 games (2 played now), results in {first}, secret seed {drawn} (")
    assert "secret seed" in said[1] and f"secret seed {drawn}" not in said[1]  # its own
    config.write_text(text.replace("games_per_pairing = 1", "games_per_pairing = 2"))
    grown = arena("tournament", "run", config, "--db", first, "--quiet", home=home)
    assert grown.exit_code == 0 and "4/4 games (2 played now)" in grown.output, grown.output
    by_deal = {key.split("/")[1]: record["seed"] for key, record in stored(first).items()}
    assert by_deal == {"0": deal_seed(drawn, 0, "random|heuristic"), "1": deal_seed(drawn, 1, "random|heuristic")}
