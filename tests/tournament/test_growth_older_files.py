"""Results files written by versions that stored some of today's settings but not all: read with the missing
settings at the values those versions played (today's defaults, or the legacy values of ``deals`` and
``partnership``), so that they resume and grow; a config that sets a missing setting to another value is refused.

A real two-hand tournament is stored, then its stored settings lose the keys an older version did not know (as that
version would have written them), and ``arena tournament run`` resumes and grows it.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from configs import write_config
from helpers import RAW_RANDOM

from arena.cli import main
from arena.tournament.store import Store

pytestmark = pytest.mark.timeout(90)

CONFIG = dict(
    name="older",
    entrants=["random", "mine.py"],
    games_per_pairing=1,
    games_per_match=2,
    seed=3,
    options={"points_to_win": 3},
    deals="shared",  # what every results file before the setting played
    partnership="self",
)

# The settings each older version lacked (docs/config.md names when each came): removed from the stored ones.
LATER = {
    "format": ["format", "candidate"],
    "deals": ["deals"],
    "partnership": ["partnership"],
    "max_hands": ["max_hands"],
    "limits": "limits.",  # every key of the [limits] table
    "disk": ["limits.disk_mb", "limits.readable", "limits.writable"],
    "call-for-best": ["options.call_for_best", "options.best_order", "options.defender_calls_best"],
    "all": "*",
}


def arena(*args: str | Path, home: Path) -> Result:
    result = CliRunner().invoke(main, [str(a) for a in args], env={"ARENA_HOME": str(home)})
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """The folder (config, bot, registry home) and the results file of a finished two-game tournament."""
    folder = tmp_path_factory.mktemp("older")
    shutil.copyfile(RAW_RANDOM, folder / "mine.py")
    config = write_config(folder / "t.toml", **CONFIG)
    result = arena("tournament", "run", config, "--quiet", home=folder / "home")
    assert result.exit_code == 0 and "2/2 games (2 played now)" in result.output, result.output
    yield folder, config.with_suffix(".db")


def older(finished: tuple[Path, Path], tmp_path: Path, which: str) -> tuple[Path, set[str]]:
    """A copy of the results file as an older version wrote it: without the settings of ``which``."""
    _, db = finished
    copy = tmp_path / "older.db"
    shutil.copyfile(db, copy)
    with Store.open(copy) as store:
        settings = json.loads(store.get_meta("config.settings") or "{}")
        keys = LATER[which]
        later = [k for w in LATER.values() if w != "*" for k in ([w] if isinstance(w, str) else w)]
        if isinstance(keys, str):
            keys = later if keys == "*" else [k for k in settings if k.startswith(keys)]
        gone = {k for k in settings if any(k == g or (g.endswith(".") and k.startswith(g)) for g in keys)}
        assert gone and gone <= set(settings)
        store.set_meta("config.settings", json.dumps({k: v for k, v in settings.items() if k not in gone}))
    return copy, gone


def games(db: Path) -> dict[str, object]:
    with Store.open(db, create=False) as store:
        return {key: record for _, key, record in store.records()}


@pytest.mark.parametrize("which", list(LATER))
def test_a_results_file_without_later_settings_resumes_and_grows(
    finished: tuple[Path, Path], tmp_path: Path, which: str
) -> None:
    folder, _ = finished
    db, gone = older(finished, tmp_path, which)
    before = games(db)
    config = folder / "t.toml"
    same = arena("tournament", "run", config, "--db", db, "--quiet", home=folder / "home")
    assert same.exit_code == 0, same.output
    assert "2/2 games (0 played now)" in same.output
    grown = folder / "grown.toml"  # beside the bot: its path is read from the config's folder
    grown.write_text(config.read_text().replace("games_per_pairing = 1", "games_per_pairing = 2"))
    more = arena("tournament", "run", grown, "--db", db, "--quiet", home=folder / "home")
    assert more.exit_code == 0, more.output
    assert "4/4 games (2 played now)" in more.output and "grown: games_per_pairing 1 -> 2" in more.output
    after = games(db)
    assert {key: after[key] for key in before} == before
    with Store.open(db, create=False) as store:  # written whole again: the file names every setting from now on
        assert gone <= set(json.loads(store.get_meta("config.settings") or "{}"))


@pytest.mark.parametrize(
    ("which", "line", "said"),
    [
        ("max_hands", "max_hands = 500", "'max_hands' was 1000, now 500"),
        ("format", 'games_per_pairing = 1\nformat = "gauntlet"\ncandidate = "random"', "'format' was \"round-robin\""),
        ("disk", "[limits]\ndisk_mb = 32", "'limits.disk_mb' was 64, now 32"),
        ("deals", 'deals = "pairing"', '\'deals\' was "shared", now "pairing"'),
    ],
    ids=["max_hands", "format", "limits", "deals"],
)
def test_a_missing_setting_is_taken_at_its_old_value_not_as_anything(
    finished: tuple[Path, Path], tmp_path: Path, which: str, line: str, said: str
) -> None:
    folder, _ = finished
    db, _ = older(finished, tmp_path, which)
    before = games(db)
    text = (folder / "t.toml").read_text()
    if line.startswith("["):
        text += "\n" + line + "\n"
    elif line.startswith("games_per_pairing"):
        text = text.replace("games_per_pairing = 1", line)
    else:
        key = line.split(" =")[0]
        text = "\n".join(ln for ln in text.splitlines() if not ln.startswith(f"{key} =")) + "\n"
        text = text.replace("\n", f"\n{line}\n", 1)
    changed = folder / "changed.toml"
    changed.write_text(text)
    refused = arena("tournament", "run", changed, "--db", db, "--quiet", home=folder / "home")
    assert refused.exit_code == 2, refused.output
    assert said in refused.output
    assert games(db) == before
