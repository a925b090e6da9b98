"""Tournament configs: the bundled ones load, and every bad input names the file and its key, in the project's words
(never pydantic's), with the nearest known key for a typo."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import ROOT

from arena.play.botproc import file_digest
from arena.tournament.binding import entrant_digests
from arena.tournament.config import ConfigError, load_config, partnership_problem
from arena.tournament.run import resolve_entrants
from arena.tournament.schedule import plan_matches


@pytest.mark.parametrize("name", ["demo", "two-hand", "three-hand", "four-hand"])
def test_bundled_configs_load(name: str) -> None:
    config = load_config(ROOT / "tournaments" / f"{name}.toml")
    assert config.name == name and len(config.entrants) >= 2


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "t.toml"
    path.write_text(text)
    return path


BASE = 'entrants = ["random", "heuristic"]\npartnership = "self"\n'


@pytest.mark.parametrize("entrants", [2, 3])
def test_four_hand_teams_need_four_entrants_unless_copies_are_asked_for(tmp_path: Path, entrants: int) -> None:
    """``partnership = "mixed"`` is the default (two copies of one bot as partners can share their hands): with fewer
    than four entrants a config must ask for copies, and is told so in one line naming the option."""
    names = ", ".join(f'"{n}"' for n in ["random", "heuristic", "search"][:entrants])
    problem = partnership_problem(load_config(write(tmp_path, f"entrants = [{names}]\n")))
    assert problem is not None and "\n" not in problem
    assert re.search(rf'partnership = "mixed" \(the default\).*there are {entrants}.*partnership = "self"', problem)
    copies = load_config(write(tmp_path, f'entrants = [{names}]\npartnership = "self"\n'))
    assert copies.partnership == "self" and partnership_problem(copies) is None
    four = load_config(write(tmp_path, 'entrants = ["random", "heuristic", "search", "r2.py"]\n'))
    assert four.partnership == "mixed"
    assert load_config(write(tmp_path, f'variant = "two-hand"\nentrants = [{names}]\n')).partnership == "mixed"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (BASE + "colour = 3\n", "unknown key 'colour'"),
        (BASE + "games_per_pairing = 0\n", "'games_per_pairing'"),
        (BASE + 'time = "fast"\n', "'time'"),
        (BASE + 'variant = "nine-hand"\n', "unknown variant"),
        (BASE + "[options]\ndeck = 28\n", "'deck'"),
        (BASE + "[options]\ncolour = 1\n", "unknown rule option 'colour'"),
        (BASE + 'variant = "three-hand"\n[options]\nrubber = true\n', "'rubber'"),
        (BASE + "[rating]\nk = -1\n", "'rating.k'"),
        (BASE + "[rating]\nsurprise = 1\n", "unknown key 'rating.surprise'"),
        ('entrants = ["random"]\n', "'entrants'"),
        ('entrants = ["random", "random"]\n', "'entrants'"),
        ("entrants = [\n", "not valid TOML"),
        ('entrants = ["random", "heuristic"]\npartnership = "chaos"\n', "'partnership'"),
    ],
)
def test_bad_config_names_the_problem(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_config(write(tmp_path, text))


def test_a_config_saved_with_a_byte_order_mark_and_windows_line_ends_reads_as_without(tmp_path: Path) -> None:
    """Notepad's UTF-8 (a BOM, CRLF): tomllib alone refuses the BOM ("Invalid statement at line 1, column 1")."""
    plain = load_config(write(tmp_path, BASE + "seed = 3\n"))
    windows = tmp_path / "windows" / "t.toml"
    windows.parent.mkdir()
    windows.write_bytes(b"\xef\xbb\xbf" + (BASE + "seed = 3\n").replace("\n", "\r\n").encode())
    config = load_config(windows)
    assert config.entrants == plain.entrants and config.fingerprint() == plain.fingerprint()


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
    default = load_config(write(tmp_path, BASE + "seed = 1\n"))
    capped = load_config(write(tmp_path, BASE + "seed = 1\nmax_hands = 7\n"))
    commands = resolve_entrants(capped.entrants)
    assert {spec.max_hands for spec, _ in plan_matches(capped, commands, done=set(), log_dir="logs")} == {7}
    assert {spec.max_hands for spec, _ in plan_matches(default, commands, done=set(), log_dir="logs")} == {1000}
    assert capped.fingerprint() != default.fingerprint()
    with pytest.raises(ConfigError, match="max_hands"):
        load_config(write(tmp_path, BASE + "max_hands = 0\n"))


def test_handshake_timeout_reaches_every_match_and_counts_in_the_fingerprint_only_when_set(tmp_path: Path) -> None:
    default = load_config(write(tmp_path, BASE + "seed = 1\n"))
    patient = load_config(write(tmp_path, BASE + "seed = 1\nhandshake_timeout = 45\n"))
    commands = resolve_entrants(patient.entrants)
    assert {spec.handshake_timeout for spec, _ in plan_matches(patient, commands, done=set(), log_dir="l")} == {45.0}
    assert {spec.handshake_timeout for spec, _ in plan_matches(default, commands, done=set(), log_dir="l")} == {10.0}
    assert patient.fingerprint() != default.fingerprint()
    with pytest.raises(ConfigError, match="handshake_timeout"):
        load_config(write(tmp_path, BASE + "handshake_timeout = 0\n"))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            'entrants = ["random"]\n', "bad value for 'entrants': needs at least 2 entries (got [\"random\"])"
        ),
        pytest.param(
            'entrants = ["random", "heuristic", "random"]\n',
            "bad value for 'entrants': each entrant may appear once ('random' more than once)",
            id="entrant-twice",
        ),
        pytest.param(BASE + "games_per_pairing = 0\n", "bad value for 'games_per_pairing': must be at least 1 (got 0)"),
        pytest.param(BASE + "max_decision = 0\n", "bad value for 'max_decision': must be more than 0 (got 0)"),
        pytest.param(BASE + "[rating]\nconfidence = 1.5\n", "'rating.confidence': must be less than 1 (got 1.5)"),
        pytest.param(BASE + "jobs = 1.5\n", "bad value for 'jobs': must be a whole number (got 1.5)"),
        pytest.param(BASE + 'pin = "maybe"\n', "bad value for 'pin': must be true or false (got \"maybe\")"),
        pytest.param(BASE + "time = 5\n", "bad value for 'time': must be a string (in quotes) (got 5)"),
        pytest.param(
            'entrants = ["random", "heuristic"]\npartnership = "chaos"\n',
            "bad value for 'partnership': must be 'self' or 'mixed'",
        ),
        pytest.param(BASE + "rating = 3\n", "bad value for 'rating': must be a table (got 3)"),
        pytest.param(
            BASE + 'time = "fast"\n',
            "bad value for 'time': time control 'fast' is not BANK+INC in seconds, e.g. 5+0.1",
            id="time-validator",
        ),
        pytest.param(BASE + "[limits]\nreadable = ['data']\n", "'limits.readable': 'data' is not an absolute path"),
        pytest.param(
            BASE + "[limits]\nreadable = ['/var/tmp/']\n",
            "'limits.readable': '/var/tmp/' is one of the folders each bot has its own of: name a folder inside it",
            id="a-bots-own-folder",
        ),
        pytest.param(
            BASE + "[options]\ndeck = 28\n", "rule option 'deck' must be 24, 25, 32 or 33 in four-hand, not 28"
        ),
        pytest.param(BASE + "[options]\ndeck = 30\n", "bad value for rule option 'deck': must be 24, 32, 25, 33, 28"),
        pytest.param('name = ""\n', "missing key 'entrants': the bots that play", id="missing-entrants"),
    ],
)
def test_config_errors_speak_the_projects_language_not_pydantics(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    said = str(caught.value)
    assert said.startswith(f"{path}: ") and message in said
    for pydantic in ("Value error", "Input should", "should have", "after validation", "valid dictionary", "[type="):
        assert pydantic not in said


def test_every_problem_of_a_config_is_told_at_once_on_one_line(tmp_path: Path) -> None:
    path = write(tmp_path, 'name = ""\ngames_per_pairing = 0\ncolour = 1\n')
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    said = str(caught.value)
    assert "\n" not in said
    assert all(part in said for part in ("'name': must not be empty", "'games_per_pairing'", "'colour'", "'entrants'"))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (BASE + "games_per_pair = 3\n", "unknown key 'games_per_pair' (did you mean 'games_per_pairing'?)"),
        (BASE + "seeed = 3\n", "unknown key 'seeed' (did you mean 'seed'?)"),
        (BASE + "[rating]\nconfidnce = 0.9\n", "unknown key 'rating.confidnce' (did you mean 'confidence'?)"),
        (BASE + "[limits]\nmemroy_mb = 512\n", "unknown key 'limits.memroy_mb' (did you mean 'memory_mb'?)"),
        (BASE + "memory_mb = 512\n", "unknown key 'memory_mb' (it belongs in the [limits] table)"),
        (
            BASE + "stick_the_dealer = true\n",
            "unknown key 'stick_the_dealer' (a rule option: it belongs in the [options]",
        ),
        (BASE + "colour = 3\n", "unknown key 'colour' (every key: `arena config keys`, docs/config.md)"),
        (BASE + 'variant = "four-hnd"\n', "unknown variant 'four-hnd' (did you mean 'four-hand'? known: two-hand,"),
        (BASE + "[options]\nstick_dealer = true\n", "unknown rule option 'stick_dealer' in [options] (did you mean"),
    ],
)
def test_a_typo_gets_the_nearest_known_key(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError, match=re.escape(f"{path}: {message}")):
        load_config(path)


def test_a_bad_limit_on_the_command_line_is_told_like_one_in_a_config() -> None:
    from click.testing import CliRunner

    from arena.cli import main

    result = CliRunner().invoke(main, ["match", "random", "random", "--variant", "two-hand", "--limit", "memory_mb=12"])
    assert result.exit_code == 2
    assert "bad value for 'memory_mb': must be at least 64" in result.stderr and "Input should" not in result.stderr


def test_a_bad_rule_option_on_the_command_line_is_told_like_one_in_a_config() -> None:
    from click.testing import CliRunner

    from arena.cli import main

    result = CliRunner().invoke(main, ["match", "random", "random", "--variant", "two-hand", "--option", "deck=28"])
    assert result.exit_code == 2
    assert result.stderr == "Error: rule option 'deck' must be 24, 25, 32 or 33 in two-hand, not 28\n"


def test_a_results_file_played_with_copies_goes_on_with_them_when_its_config_does_not_say(tmp_path: Path) -> None:
    """Results files of four-hand tournaments played before ``mixed`` was the default hold teams of copies: their
    config, without a partnership, resumes, ranks and counts its games as they were played (found by a review:
    such a file was refused, and its ranking said games were missing); a new file is refused the same config."""
    from helpers import arena_here

    config = tmp_path / "old.toml"
    text = 'variant = "four-hand"\nentrants = ["random", "heuristic"]\ngames_per_pairing = 1\nseed = 4\n'
    config.write_text(text + 'partnership = "self"\n')
    played = arena_here("tournament", "run", config, "--quiet")
    assert played.returncode == 0 and "2/2 games (2 played now)" in played.stdout, played.stdout + played.stderr
    config.write_text(text)  # as the config of those days read: no partnership
    again = arena_here("tournament", "run", config, "--quiet")
    assert again.returncode == 0 and "2/2 games (0 played now)" in again.stdout, again.stdout + again.stderr
    assert "2 games were played by teams of two copies of one bot" in again.stdout  # the run's table says it too
    ranked = arena_here("ranking", config)
    assert ranked.returncode == 0 and "not stored" not in ranked.stderr, ranked.stderr
    assert "2 games were played by teams of two copies of one bot" in ranked.stdout
    fresh = arena_here("tournament", "run", config, "--db", tmp_path / "new.db", "--quiet")
    assert fresh.returncode == 2 and 'partnership = "mixed" (the default)' in fresh.stderr, fresh.stderr
    assert not (tmp_path / "new.db").exists() or "config.settings" not in (tmp_path / "new.db").read_bytes().decode(
        errors="replace"
    )
    checked = arena_here("config", "check", config)
    assert checked.returncode == 2 and "partnership" in checked.stderr


ENTRANT_TABLES = """\
variant = "two-hand"
seed = 1
entrants = [
  "random",
  { name = "search-fast", bot = "search", args = ["--samples", "0.5"] },
  { name = "search-deep", bot = "search", args = ["--samples", "4"], runtime_flags = ["-Xdev"] },
]
"""


def test_entrant_tables_name_one_program_with_two_settings_and_their_arguments_reach_every_match(
    tmp_path: Path,
) -> None:
    config = load_config(write(tmp_path, ENTRANT_TABLES))
    assert config.entrant_keys() == ["random", "search-fast", "search-deep"]
    commands = resolve_entrants(config.entrants)
    assert list(commands) == ["random", "search-fast", "search-deep"]
    entries = {b.name: b for spec, _ in plan_matches(config, commands, done=set(), log_dir="l") for b in spec.bots}
    assert entries["search-fast"].args == ["--samples", "0.5"] and entries["search-fast"].runtime_flags == []
    assert entries["search-deep"].runtime_flags == ["-Xdev"]
    assert entries["search-fast"].argv == entries["search-deep"].argv == entries["search-deep"].argv[:2]
    digests = entrant_digests(commands)
    assert digests["search-fast"] != digests["search-deep"]  # their arguments are part of what identifies them
    assert digests["random"] == file_digest(commands["random"].argv[-1])  # a plain entrant's digest as before


def test_every_entrant_may_be_a_table_of_its_own_and_a_gauntlet_names_its_candidate_by_the_table_s_name(
    tmp_path: Path,
) -> None:
    text = (
        'variant = "two-hand"\nseed = 1\nformat = "gauntlet"\ncandidate = "fast"\n'
        '[[entrants]]\nname = "fast"\nbot = "search"\nargs = ["--samples", "0.5"]\n'
        '[[entrants]]\nname = "plain"\nbot = "random"\n'
        '[[entrants]]\nname = "other"\nbot = "heuristic"\n'
    )
    config = load_config(write(tmp_path, text))
    commands = resolve_entrants(config.entrants)
    planned = plan_matches(config, commands, done=set(), log_dir="l")
    names = {frozenset(b.name for b in spec.bots) for spec, _ in planned}
    assert names == {frozenset({"fast", "plain"}), frozenset({"fast", "other"})}


@pytest.mark.parametrize(
    ("entrant", "message"),
    [
        ('{ name = "x", bot = "search", runtime_flags = ["Xmx1g"] }', "'Xmx1g' is not an option in one word"),
        ('{ name = "x", bot = "search", colour = 1 }', "colour"),
        ('{ bot = "search" }', "name"),
        ('{ name = "random", bot = "search" }', "each entrant may appear once"),
    ],
)
def test_a_bad_entrant_table_names_the_problem(tmp_path: Path, entrant: str, message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_config(write(tmp_path, f'variant = "two-hand"\nentrants = ["random", {entrant}]\n'))
