"""The ranking's intervals resample whole deals: the rotations of one duplicate deal are not independent games.

When the games of a deal go the same way (the deal decided them, not the bots), counting them as independent
evidence makes the interval too narrow. The property pinned here, whatever the interval method: the same results
give a wider interval when they come in correlated pairs from one deal each than when each game is a deal of its own.
Real games (a real referee and bots), a real SQLite store, the arena's ``ranking`` command; and the same property
of the ratings maths, and of the game keys the scheduler makes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from configs import tournament_config
from probing import match, probe

from arena.cli import main
from arena.engine.options import make_rules
from arena.play.referee import run_match
from arena.tournament.ranking import cluster_of
from arena.tournament.ratings import Comparison, rank_table
from arena.tournament.schedule import pairings_for, plan_games
from arena.tournament.store import Store

GAMES = 24


# A hang fails the test instead of stalling the suite (pytest-timeout).
pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """Short two-hand games of two probe bots, one deal each, seats alternating."""
    tmp = tmp_path_factory.mktemp("games")
    bots = [probe("alpha", "--passes", "0.3"), probe("beta", "--passes", "0.6")]
    games = [(deal, [0, 1] if deal % 2 == 0 else [1, 0]) for deal in range(GAMES)]
    played = run_match(match(tmp, bots, games, variant="two-hand", options={"points_to_win": 3}))
    wins = sum(1 for r in played if r["players"][r["winners"][0]] == "alpha")
    assert 4 <= wins <= GAMES - 4, "both bots must win some games, or there is no interval to speak of"
    return played


def interval(db: Path, bot: str) -> float:
    """Half the width of ``bot``'s interval in ``arena ranking`` of the database."""
    result = CliRunner().invoke(main, ["ranking", str(db), "--format", "json", "--bootstrap", "400"])
    assert result.exit_code == 0, result.output
    (row,) = [row for row in json.loads(result.output) if row["bot"] == bot]
    return float(row["plus_minus"])


def stored(db: Path, games: list[tuple[str, dict[str, Any]]]) -> Path:
    with Store.open(db) as store:
        for key, record in games:
            store.add_game(key, record["match_id"], record)
    return db


def test_the_rotations_of_a_deal_that_went_the_same_way_widen_the_interval(
    records: list[dict[str, Any]], tmp_path: Path
) -> None:
    """Each game stored twice: as both rotations of one deal (the deal decided both), or as two deals of their own."""
    paired = stored(
        tmp_path / "paired.db",
        [(f"alpha|beta/{deal}/{rotation}", r) for deal, r in enumerate(records) for rotation in (0, 1)],
    )
    apart = stored(
        tmp_path / "apart.db",
        [(f"alpha|beta/{2 * deal + rotation}/0", r) for deal, r in enumerate(records) for rotation in (0, 1)],
    )
    correlated, independent = interval(paired, "alpha"), interval(apart, "alpha")
    assert independent > 0
    assert correlated >= 1.2 * independent, (correlated, independent)  # about sqrt(2) for pairs that always agree


def comparisons(outcomes: list[bool], clusters: list[str]) -> list[Comparison]:
    return [
        Comparison(("a",), ("b",), cluster=c) if won else Comparison(("b",), ("a",), cluster=c)
        for won, c in zip(outcomes, clusters, strict=True)
    ]


@pytest.mark.parametrize("size", [2, 3])
def test_the_ratings_resample_clusters_not_comparisons(size: int) -> None:
    """The same results, in clusters of ``size`` that agree, or each a cluster of its own."""
    pattern = [True, True, False, True, False, True, True, False, True, True, False, False, True, True, False, True]
    outcomes = [won for won in pattern for _ in range(size)]
    together = rank_table(comparisons(outcomes, [f"deal{i // size}" for i in range(len(outcomes))]), seed=3)
    alone = rank_table(comparisons(outcomes, [f"game{i}" for i in range(len(outcomes))]), seed=3)
    unlabelled = rank_table(comparisons(outcomes, [""] * len(outcomes)), seed=3)
    assert [r.elo for r in together] == [r.elo for r in alone]  # the fit itself does not depend on clusters
    wide, narrow = together[0].plus_minus, alone[0].plus_minus
    assert wide is not None and narrow is not None
    assert wide >= 1.15 * narrow, (size, wide, narrow)
    assert unlabelled[0].plus_minus is not None and unlabelled[0].plus_minus > 0  # one cluster of everything
    # a gap between them is less certain too
    assert together[0].los_next is not None and alone[0].los_next is not None
    assert together[0].los_next < alone[0].los_next


@pytest.mark.parametrize(
    ("variant", "partnership", "entrants"),
    [
        ("two-hand", "self", ["a", "b", "c"]),
        ("three-hand", "self", ["a", "b", "c", "d"]),
        ("four-hand", "self", ["a", "b", "c"]),
        ("four-hand", "mixed", ["a", "b", "c", "d"]),
    ],
)
@pytest.mark.parametrize("duplicate", [True, False])
def test_a_cluster_is_one_deal_of_one_pairing_in_every_rotation(
    variant: str, partnership: str, entrants: list[str], duplicate: bool
) -> None:
    config = tournament_config(
        variant=variant, entrants=entrants, partnership=partnership, games_per_pairing=3, duplicate=duplicate, seed=1
    )
    games = [g for p in pairings_for(entrants, make_rules(variant), partnership) for g in plan_games(config, p)]
    by_cluster: dict[str, set[tuple[str, int]]] = {}
    for game in games:
        by_cluster.setdefault(cluster_of(game.key), set()).add((game.pairing, game.deal))
    assert all(len(deals) == 1 for deals in by_cluster.values())  # never two deals, or two pairings, in one
    assert len(by_cluster) == len({(g.pairing, g.deal) for g in games})  # every rotation of a deal in one
