"""arena submit and arena bots: validation by a real smoke game, versions by content hash, nothing kept on failure."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from configs import write_config
from helpers import ROOT

from arena.cli import main

RAW = (ROOT / "tests" / "bots" / "raw_random.py").read_text()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def submit(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["submit", *args])
    return result.exit_code, result.output


def test_a_good_bot_is_registered_with_its_content_hash_and_listed(home: Path, tmp_path: Path) -> None:
    bot = tmp_path / "mine.py"
    bot.write_text(RAW)
    code, output = submit(str(bot), "--name", "mine")
    assert code == 0, output
    assert "mine version" in output and "registered" in output
    listing = CliRunner().invoke(main, ["bots"])
    assert "mine" in listing.output and "random" in listing.output
    copies = list((home / "bots" / "mine").iterdir())
    assert len(copies) == 1 and copies[0].read_text() == RAW

    again_code, again = submit(str(bot), "--name", "mine")
    assert again_code == 0 and "already registered" in again

    bot.write_text(RAW + "\n# a new version\n")
    code, output = submit(str(bot), "--name", "mine")
    assert code == 0 and "registered" in output and "already" not in output
    assert len(list((home / "bots" / "mine").iterdir())) == 2
    listing = CliRunner().invoke(main, ["bots"])
    rows = [line for line in listing.output.splitlines() if line.startswith("mine ")]
    assert len(rows) == 2 and sum("(latest)" in row for row in rows) == 1


def test_a_registered_bot_plays_in_a_tournament_by_its_name(home: Path, tmp_path: Path) -> None:
    bot = tmp_path / "mine.py"
    bot.write_text(RAW)
    assert submit(str(bot), "--name", "mine")[0] == 0
    bot.unlink()  # the registry runs its own copy
    config = write_config(
        tmp_path / "t.toml", name="t", entrants=["mine", "random"], games_per_pairing=1, jobs=1, rating={"bootstrap": 0}
    )
    result = CliRunner().invoke(main, ["tournament", "run", str(config), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "mine" in result.output and "2/2 games" in result.output


def test_a_bot_that_fails_validation_is_reported_and_not_registered(home: Path, tmp_path: Path) -> None:
    bot = tmp_path / "broken.py"
    bot.write_text("import sys\nprint('I give up', file=sys.stderr)\nsys.exit(3)\n")
    code, output = submit(str(bot), "--time", "2+0.1")
    assert code == 1
    assert "Rejected" in output and "handshake" in output and "I give up" in output
    assert not (home / "bots" / "broken").exists()
    listing = CliRunner().invoke(main, ["bots"])
    assert "broken" not in listing.output


def test_submitting_a_missing_file_or_a_bad_name_is_a_clear_error(home: Path, tmp_path: Path) -> None:
    code, output = submit(str(tmp_path / "absent.py"))
    assert code == 2 and "no bot" in output and "Traceback" not in output
    bot = tmp_path / "ok.py"
    bot.write_text(RAW)
    code, output = submit(str(bot), "--name", "no spaces please")
    assert code == 2 and "bot name" in output


@pytest.mark.parametrize("bundled", ["random", "heuristic", "search"])
def test_a_submitted_bot_cannot_take_a_bundled_bots_name(home: Path, tmp_path: Path, bundled: str) -> None:
    bot = tmp_path / "impostor.py"
    bot.write_text(RAW)
    code, output = submit(str(bot), "--name", bundled)
    assert code == 2 and f"bot name {bundled!r} is a bundled bot's" in output
    assert not (home / "bots" / bundled).exists()


def test_a_registered_name_plays_in_an_ad_hoc_match(home: Path, tmp_path: Path) -> None:
    """arena match takes a registered name as the README says, beside bundled names and paths."""
    from arena.play.lineup import build_match
    from arena.tournament.registry import Registry

    bot = tmp_path / "mine.py"
    bot.write_text(RAW)
    assert submit(str(bot), "--name", "mine")[0] == 0
    spec = build_match(
        ["mine", "random"],
        variant="two-hand",
        options={},
        games=2,
        seed=1,
        time="5+0.1",
        max_decision=10.0,
        policy="forfeit",
        max_strikes=3,
        log_dir=str(tmp_path / "logs"),
        lookup=Registry.default().lookup,
    )
    mine, random_bot = spec.bots
    assert mine.name == "mine" and mine.argv[-1].startswith(str(home)) and random_bot.name == "random"


def test_a_configs_bot_paths_are_taken_from_the_configs_folder(home: Path, tmp_path: Path) -> None:
    """The same config runs from any folder: a relative script path is found beside the config first."""
    from arena.tournament.run import resolve_entrants

    (tmp_path / "league" / "bots").mkdir(parents=True)
    (tmp_path / "league" / "bots" / "mine.py").write_text(RAW)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    old = Path.cwd()
    try:
        os.chdir(elsewhere)
        commands = resolve_entrants(["random", "bots/mine.py"], None, folder=tmp_path / "league")
        stdio = resolve_entrants(["stdio:bots/mine.py"], None, folder=tmp_path / "league")["mine"]
    finally:
        os.chdir(old)
    assert stdio.transport == "stdio" and stdio.argv[-1] == str((tmp_path / "league" / "bots" / "mine.py").resolve())
    assert commands["mine"].argv[-1] == str((tmp_path / "league" / "bots" / "mine.py").resolve())
    assert commands["random"].argv[-1].endswith("arena/bots/random_bot.py")


def test_a_bundled_name_means_the_bundled_bot_even_if_a_registry_knows_it(home: Path, tmp_path: Path) -> None:
    from arena.play.botproc import BotCommand
    from arena.tournament.run import resolve_entrants

    def impostor(name: str) -> BotCommand:
        return BotCommand(name, ("/bin/false",))

    assert resolve_entrants(["random"], impostor)["random"].argv[-1].endswith("arena/bots/random_bot.py")
