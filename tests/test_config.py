"""Tournament configs: the bundled ones load, and every bad input names its key."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.tournament.config import ConfigError, load_config
from arena.tournament.run import resolve_entrants
from arena.tournament.schedule import plan_matches

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name", ["demo", "two-hand", "three-hand", "four-hand"])
def test_bundled_configs_load(name: str) -> None:
    config = load_config(ROOT / "tournaments" / f"{name}.toml")
    assert config.name == name and len(config.entrants) >= 2


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "t.toml"
    path.write_text(text)
    return path


BASE = 'entrants = ["random", "heuristic"]\n'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (BASE + "colour = 3\n", "unknown key 'colour'"),
        (BASE + "games_per_pairing = 0\n", "'games_per_pairing'"),
        (BASE + 'time = "fast"\n', "'time'"),
        (BASE + 'variant = "five-hand"\n', "unknown variant"),
        (BASE + "[options]\ndeck = 33\n", "'deck'"),
        (BASE + "[options]\ncolour = 1\n", "unknown rule option 'colour'"),
        (BASE + 'variant = "three-hand"\n[options]\nrubber = true\n', "'rubber'"),
        (BASE + "[rating]\nk = -1\n", "'rating.k'"),
        (BASE + "[rating]\nsurprise = 1\n", "unknown key 'rating.surprise'"),
        ('entrants = ["random"]\n', "'entrants'"),
        ('entrants = ["random", "random"]\n', "'entrants'"),
        ("entrants = [\n", "not valid TOML"),
        (BASE + 'partnership = "chaos"\n', "'partnership'"),
    ],
)
def test_bad_config_names_the_problem(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_config(write(tmp_path, text))


def test_missing_config_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such tournament config"):
        load_config(tmp_path / "absent.toml")


def test_fingerprint_ignores_jobs_and_pinning_but_not_seed(tmp_path: Path) -> None:
    a = load_config(write(tmp_path, BASE + "seed = 1\njobs = 1\n"))
    b = load_config(write(tmp_path, BASE + "seed = 1\njobs = 2\npin = false\n"))
    c = load_config(write(tmp_path, BASE + "seed = 2\n"))
    assert a.pin and not b.pin
    assert a.fingerprint() == b.fingerprint() != c.fingerprint()


def test_max_hands_reaches_every_match_and_counts_in_the_fingerprint_only_when_set(tmp_path: Path) -> None:
    default = load_config(write(tmp_path, BASE))
    capped = load_config(write(tmp_path, BASE + "max_hands = 7\n"))
    commands = resolve_entrants(capped.entrants)
    assert {spec.max_hands for spec, _ in plan_matches(capped, commands, done=set(), log_dir="logs")} == {7}
    assert {spec.max_hands for spec, _ in plan_matches(default, commands, done=set(), log_dir="logs")} == {1000}
    assert capped.fingerprint() != default.fingerprint()
    with pytest.raises(ConfigError, match="max_hands"):
        load_config(write(tmp_path, BASE + "max_hands = 0\n"))
