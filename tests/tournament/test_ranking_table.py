"""The ranking table of real stored games, column by column, and the numbers the ratings maths documents.

Real referee and bots (tests/bots/probe.py), a real SQLite store, the arena's ``ranking`` and ``crosstable``
commands; every column is recomputed here from the game records themselves.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from helpers import ROOT
from probing import match, probe

from arena.cli import main
from arena.play.referee import run_match
from arena.tournament.ratings import Comparison, fit_elo, rank_table
from arena.tournament.store import Store

# A hang fails the test instead of stalling the suite (pytest-timeout).
pytestmark = pytest.mark.timeout(60)


def cli_json(*args: str | Path) -> Any:
    result = CliRunner().invoke(main, [*map(str, args), "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple[str, dict[str, Any]]]]:
    """Four two-hand games (two deals, both rotations) of ``ann`` and ``ben``; ben plays an illegal card twice, and
    the substitute policy plays on. Stored as a tournament stores them."""
    tmp = tmp_path_factory.mktemp("table")
    bots = [probe("ann", "--passes", "0.4"), probe("ben", "--illegal-at", "0:3", "--illegal-at", "2:5")]
    games = [(0, [0, 1]), (0, [1, 0]), (1, [0, 1]), (1, [1, 0])]
    records = run_match(match(tmp, bots, games, variant="two-hand", policy="substitute", options={"points_to_win": 5}))
    keyed = [(f"ann|ben/{g // 2}/{g % 2}", record) for g, record in enumerate(records)]
    db = tmp / "results.db"
    with Store.open(db) as store:
        for key, record in keyed:
            store.add_game(key, record["match_id"], record)
    return db, keyed


def test_every_column_of_the_ranking_table_is_what_the_records_say(
    stored: tuple[Path, list[tuple[str, dict[str, Any]]]],
) -> None:
    db, keyed = stored
    rows = {row["bot"]: row for row in cli_json("ranking", db, "--bootstrap", "50")}
    assert set(rows) == {"ann", "ben"}
    for name, row in rows.items():
        games = [r for _, r in keyed]
        seats = [r["players"].index(name) for r in games]
        wins = sum(seat in r["winners"] for seat, r in zip(seats, games, strict=True))
        points = sum(h["result"]["points"][seat] for seat, r in zip(seats, games, strict=True) for h in r["hands"])
        hands = sum(len(r["hands"]) for r in games)
        violations = sum(1 for seat, r in zip(seats, games, strict=True) for v in r["violations"] if v["seat"] == seat)
        assert (row["games"], row["wins"], row["losses"]) == (4, wins, 4 - wins)
        assert row["points_per_hand"] == pytest.approx(points / hands)
        assert row["violations"] == violations
    assert rows["ben"]["violations"] == 2 and rows["ann"]["violations"] == 0
    assert [row["rank"] for row in sorted(rows.values(), key=lambda r: -r["elo"])] == [1, 2]
    assert sum(row["elo"] for row in rows.values()) == pytest.approx(0.0, abs=1e-6)


def test_the_store_files_each_game_under_its_seats_and_its_violations_under_the_offender(
    stored: tuple[Path, list[tuple[str, dict[str, Any]]]],
) -> None:
    db, keyed = stored
    with Store.open(db, create=False) as store:
        violations = store.violations("ben")
        assert [(v["game_key"], v["seat"], v["kind"]) for v in violations] == [
            (key, r["players"].index("ben"), "illegal") for key, r in keyed for _ in r["violations"]
        ]
        assert store.violations("ann") == []
        assert [g.game_key for g in store.list_games(bot="ann")] == [key for key, _ in keyed]
        assert [g.hands for g in store.list_games()] == [len(r["hands"]) for _, r in keyed]
    with sqlite3.connect(db) as conn:  # the tables themselves, for whoever queries the file
        seats = conn.execute(
            "SELECT g.game_key, s.seat, s.bot FROM seats s JOIN games g ON g.id = s.game_id"
        ).fetchall()
    assert sorted(seats) == sorted((key, seat, name) for key, r in keyed for seat, name in enumerate(r["players"]))


def test_a_game_drawn_at_the_hand_limit_is_a_draw_in_the_ranking(tmp_path: Path) -> None:
    bots = [probe("shy", "--passes", "1"), probe("meek", "--passes", "1")]  # everyone always passes
    (record,) = run_match(match(tmp_path, bots, [(0, [0, 1])], variant="two-hand", max_hands=3))
    assert record["drawn"] == {"hand_number": 3} and record["winners"] == []
    db = tmp_path / "results.db"
    with Store.open(db) as store:
        store.add_game("meek|shy/0/0", record["match_id"], record)
    rows = cli_json("ranking", db, "--bootstrap", "0")
    assert [row["score"] for row in rows] == [0.5, 0.5]
    assert rows[0]["elo"] == pytest.approx(0.0) and rows[1]["elo"] == pytest.approx(0.0)
    assert cli_json("crosstable", db) == {"meek": {"shy": [0.5, 1]}, "shy": {"meek": [0.5, 1]}}


# ---- the numbers the ratings maths documents (arena/tournament/ratings.py) ----


def record(wins: int, losses: int) -> list[Comparison]:
    return [Comparison(("a",), ("b",), cluster=f"w{i}") for i in range(wins)] + [
        Comparison(("b",), ("a",), cluster=f"l{i}") for i in range(losses)
    ]


def test_the_prior_keeps_a_clean_sweep_finite_and_fades_with_games() -> None:
    sweep = fit_elo(record(10, 0))
    assert sweep["a"] - sweep["b"] == pytest.approx(580.5, abs=0.5)  # "a 10-0 record gets ... about 580 Elo"
    many = fit_elo(record(300, 100))
    assert many["a"] - many["b"] == pytest.approx(190.54, abs=0.01)  # "a 300-100 record fits at 190.54 Elo"


def test_the_table_is_centred_on_zero_unless_anchored() -> None:
    teams = [Comparison(("a", "b"), ("c", "d"), cluster=f"t{i}") for i in range(4)]  # the raw fit is off centre
    comparisons = [*record(10, 0), *[Comparison(("b",), ("c",), cluster=f"x{i}") for i in range(3)], *teams]
    rows = rank_table(comparisons, bootstrap=0)
    assert sum(r.elo for r in rows) == pytest.approx(0.0, abs=1e-9)
    fitted = fit_elo(comparisons)
    assert sum(fitted.values()) == pytest.approx(0.0, abs=1e-9)
    anchored = fit_elo(comparisons, anchor=("c", 1500.0))
    assert anchored["c"] == pytest.approx(1500.0)
    assert anchored["a"] - anchored["b"] == pytest.approx(fitted["a"] - fitted["b"])


@pytest.mark.parametrize("fmt", ["table", "markdown", "json", "csv"])
def test_a_table_with_games_of_copies_as_partners_says_so_under_it(tmp_path: Path, fmt: str) -> None:
    """Two copies of one bot as partners (partnership = "self") can show each other their hands on one host: the
    table says how many of its games were played so, in the formats people read, and not where none were."""
    four = next(
        r for r in map(json.loads, (ROOT / "tests" / "data" / "records-v1.jsonl").open()) if len(r["players"]) == 4
    )
    copies, mixed = tmp_path / "copies.db", tmp_path / "mixed.db"
    for db, players in ((copies, ["a", "b", "a", "b"]), (mixed, ["a", "b", "c", "d"])):
        with Store.open(db) as store:
            for deal in range(3):
                store.add_game(f"{'|'.join(players)}/{deal}/0", "m", {**four, "players": players})
    said = {db: CliRunner().invoke(main, ["ranking", str(db), "--format", fmt]) for db in (copies, mixed)}
    assert all(result.exit_code == 0 for result in said.values())
    note = "3 games were played by teams of two copies of one bot"
    assert (note in said[copies].output) == (fmt in ("table", "markdown"))
    assert note not in said[mixed].output and "copies" not in said[mixed].output
