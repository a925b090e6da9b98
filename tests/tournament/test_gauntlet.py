"""Gauntlets: only the candidate's pairings are scheduled, config errors name the problem, and the tables show it."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest
from configs import tournament_config, write_config
from helpers import RAW_RANDOM, arena_here

from arena.play.botproc import BotCommand
from arena.tournament.config import ConfigError, TournamentConfig, load_config
from arena.tournament.gauntlet import duels
from arena.tournament.growth import planned_keys
from arena.tournament.schedule import plan_matches, scheduled_pairings
from arena.tournament.store import Store

NAMES = ["a", "b", "c", "d", "e"]


def gauntlet(variant: str, candidate: str = "c", **extra: object) -> TournamentConfig:
    return tournament_config(
        **{"name": "g", "variant": variant, "entrants": NAMES, "format": "gauntlet", "candidate": candidate, "seed": 1}
        | extra
    )


@pytest.mark.parametrize(
    ("variant", "partnership", "players"),
    [("two-hand", "self", 2), ("three-hand", "self", 3), ("four-hand", "self", 4), ("four-hand", "mixed", 4)],
)
def test_the_schedule_has_exactly_the_candidates_pairings(variant: str, partnership: str, players: int) -> None:
    config = gauntlet(variant, partnership=partnership)
    found = scheduled_pairings(config, NAMES)
    others = [n for n in NAMES if n != "c"]
    if players == 4 and partnership == "mixed":  # every four with c, each split in three ways
        expected = {frozenset([*four, "c"]) for four in itertools.combinations(others, 3)}
        assert len(found) == 3 * len(expected)
        assert {frozenset(p.slots) for p in found} == expected
    else:  # every group of the table's size that includes c, once
        size = 2 if players == 4 else players
        expected = {frozenset([*rest, "c"]) for rest in itertools.combinations(others, size - 1)}
        assert len(found) == len(expected) == math.comb(4, size - 1)
        assert {frozenset(p.slots) for p in found} == expected
    # the matches and the planned games follow the same pairings (and the round-robin keeps every one)
    commands = {n: BotCommand(n, ("true",)) for n in NAMES}
    matches = plan_matches(config, commands, done=set(), log_dir="/tmp")
    assert {frozenset(b.name for b in spec.bots) for spec, _ in matches} == {frozenset(p.slots) for p in found}
    assert all("c" in key for key in planned_keys(config, NAMES))
    round_robin = config.model_copy(update={"format": "round-robin", "candidate": None})
    assert len(scheduled_pairings(round_robin, NAMES)) > len(found)


def test_the_candidate_is_found_by_its_place_among_the_entrants() -> None:
    # written as a path in entrants, the candidate is the resolved name at the same place
    config = TournamentConfig(name="g", variant="two-hand", entrants=["x", "bots/my_bot.py", "y"], format="gauntlet",
                              candidate="bots/my_bot.py")  # fmt: skip
    assert {frozenset(p.slots) for p in scheduled_pairings(config, ["x", "my", "y"])} == {
        frozenset({"x", "my"}),
        frozenset({"my", "y"}),
    }


@pytest.mark.parametrize(
    ("lines", "problem"),
    [
        ('format = "gauntlet"', "bad value for 'candidate': a gauntlet needs a candidate"),
        ('format = "gauntlet"\ncandidate = "search"', "'search' is not an entrant (entrants: 'random', 'heuristic')"),
        ('candidate = "random"', "'random' is a candidate, but format is \"round-robin\""),
        ('format = "knockout"', "bad value for 'format': must be 'round-robin' or 'gauntlet'"),
    ],
)
def test_a_config_error_names_the_problem(tmp_path: Path, lines: str, problem: str) -> None:
    path = tmp_path / "g.toml"
    path.write_text(f'entrants = ["random", "heuristic"]\n{lines}\n')
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert problem in str(caught.value)


def test_a_round_robin_keeps_its_fingerprint() -> None:
    plain = TournamentConfig(name="t", entrants=["a", "b"])
    assert "format" not in plain.model_dump(exclude={"format"})  # the new keys are left out at their defaults
    assert plain.fingerprint() == TournamentConfig(name="t", entrants=["a", "b"], format="round-robin").fingerprint()
    assert plain.fingerprint() != gauntlet("two-hand").fingerprint()


def test_duels_count_each_opponent_with_an_interval_by_deal() -> None:
    # c against a over two deals (both seatings each): c wins 3 of 4; c against b: one deal, split
    def game(players: list[str], winner: int) -> dict[str, object]:
        return {
            "variant": "two-hand",
            "options": {},
            "players": players,
            "winners": [winner],
            "final_scores": [10, 5],
            "hands": [],
        }

    records = [
        ("a|c/0/0", game(["a", "c"], 1)),
        ("a|c/0/1", game(["c", "a"], 0)),
        ("a|c/1/0", game(["a", "c"], 1)),
        ("a|c/1/1", game(["c", "a"], 1)),
        ("b|c/0/0", game(["b", "c"], 0)),
        ("b|c/0/1", game(["c", "b"], 0)),
    ]
    rows = {d.opponent: d for d in duels(records, "c")}  # type: ignore[arg-type]
    a, b = rows["a"], rows["b"]
    assert (a.games, a.score) == (4, 0.75)
    assert a.elo == pytest.approx(190.85, abs=0.01)
    # by deal: points 2 and 1 of 2 each, mean 0.75: var = ((2 - 1.5)^2 + (1 - 1.5)^2) / 4^2 * 2 / 1 = 0.0625, sd 0.25
    # LOS = Phi(0.25 / 0.25) = Phi(1) = 0.841345; the interval 0.75 -+ 1.96 * 0.25 reaches past 1
    assert a.los == pytest.approx(0.841345, abs=1e-6)
    assert a.elo_high == math.inf and a.elo_low == pytest.approx(-400 * math.log10(1 / (0.75 - 1.959964 * 0.25) - 1))
    assert (b.games, b.score, b.los) == (2, 0.5, 0.5)  # one deal: no spread to go on


CONFIG = dict(
    entrants=["random", "heuristic", RAW_RANDOM],
    format="gauntlet",
    candidate="heuristic",
    games_per_pairing=2,
    games_per_match=2,
    seed=4,
)


@pytest.mark.slow
def test_a_small_real_gauntlet_plays_only_the_candidate_and_shows_every_opponent(tmp_path: Path) -> None:
    path = write_config(tmp_path / "gauntlet.toml", **CONFIG)
    # in this process (``arena_here``): what is tested is what the commands play and print, not their processes
    ran = arena_here("tournament", "run", path, "--quiet", "--jobs", "2")
    assert ran.returncode == 0, ran.stderr
    assert "Gauntlet: heuristic against each opponent" in ran.stdout
    with Store.open(path.with_suffix(".db"), create=False) as store:
        players = [set(r.players) for r in store.list_games()]
    assert len(players) == 8 and all("heuristic" in p for p in players)
    for command in ("ranking", "crosstable"):
        shown = arena_here(command, path, "--format", "markdown")
        assert shown.returncode == 0, shown.stderr
        table = shown.stdout.split("Gauntlet: heuristic against each opponent")[1]
        rows = [line for line in table.splitlines() if line.startswith("| heuristic")]
        assert sorted(row.split("|")[2].strip() for row in rows) == ["random", "raw_random"]
        assert all("%" in row and "[" in row for row in rows)  # score, interval and LOS
