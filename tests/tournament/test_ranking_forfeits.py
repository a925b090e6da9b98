"""A bot that forfeits a game loses it, and is ranked for it as a loser, even when it was ahead on points.

In three-hand there are no sides: results enter the ratings by final standing, and the offender must stand last,
whatever its score (protocol.md section 11: the winners are the better of the other two, both if tied). Real
referee, real bots (tests/bots/probe.py plays an illegal card when it leads), a real SQLite store, the arena's own
``ranking`` and ``crosstable`` commands.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from probing import match, probe

from arena.cli import main
from arena.play.referee import run_match
from arena.tournament.store import Store

# A hang fails the test instead of stalling the suite (pytest-timeout).
pytestmark = pytest.mark.timeout(60)


def results(db: Path, *args: str) -> Any:
    """The JSON output of ``arena ranking`` or ``arena crosstable`` on a database."""
    result = CliRunner().invoke(main, [*args, str(db), "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def store(db: Path, pairing: str, records: list[dict[str, Any]]) -> None:
    """Store the records as a tournament would: one deal each, in its first rotation."""
    with Store.open(db) as results_store:
        for deal, record in enumerate(records):
            results_store.add_game(f"{pairing}/{deal}/0", record["match_id"], record)


def test_a_three_hand_player_who_forfeits_while_leading_is_ranked_last(tmp_path: Path) -> None:
    bots = [
        probe("alice", "--passes", "0.5"),
        probe("bob", "--passes", "0.5"),
        probe("cheat", "--illegal-when-leading", "--illegal-at", "1:1"),
    ]
    spec = match(tmp_path, bots, [(1, [0, 1, 2]), (1, [1, 2, 0])], variant="three-hand")
    leading, early = run_match(spec)
    # game 0: the cheat (seat 2) forfeits as soon as it leads; game 1: at its first request, all scores still 0
    assert leading["forfeit"]["seat"] == 2 and leading["forfeit"]["kind"] == "illegal"
    scores = leading["final_scores"]
    assert scores[2] > max(scores[0], scores[1]) > 0, f"the cheat must forfeit while ahead: {scores}"
    best = [s for s in (0, 1) if scores[s] == max(scores[0], scores[1])]
    assert leading["winners"] == best
    cheat = early["forfeit"]["seat"]
    assert early["players"][cheat] == "cheat" and early["final_scores"] == [0, 0, 0]
    assert early["winners"] == [s for s in range(3) if s != cheat]  # the other two tie, both win

    db = tmp_path / "results.db"
    store(db, "alice|bob|cheat", [leading, early])
    table = results(db, "ranking")
    assert [row["bot"] for row in table][-1] == "cheat"
    assert table[-1]["elo"] < min(row["elo"] for row in table[:-1])
    assert table[-1]["wins"] == 0 and table[-1]["losses"] == 2
    cross = results(db, "crosstable")
    assert cross["cheat"] == {"alice": [0.0, 2], "bob": [0.0, 2]}
    ahead = leading["players"][best[0]]
    behind = ({"alice", "bob"} - {ahead}).pop()
    assert cross[ahead][behind] == ([1.5, 2] if len(best) == 1 else [1.0, 2])  # game 1 was a draw between them


@pytest.mark.parametrize(
    ("variant", "seating", "seed"),
    [("two-hand", [0, 1], 0), ("four-hand", [0, 1, 2, 3], 1)],
)
def test_a_side_that_forfeits_while_leading_loses_in_the_ranking(
    tmp_path: Path, variant: str, seating: list[int], seed: int
) -> None:
    cheat, honest = probe("cheat", "--illegal-when-leading"), probe("honest", "--passes", "0.5")
    bots = [cheat, honest] * (len(seating) // 2)
    spec = match(tmp_path, bots, [(seed, seating)], variant=variant)
    (record,) = run_match(spec)
    offender = record["forfeit"]["seat"]
    scores = record["final_scores"]
    assert record["players"][offender] == "cheat"
    assert scores[offender] > scores[(offender + 1) % len(seating)], f"the cheat must forfeit while ahead: {scores}"
    others = [s for s in range(len(seating)) if s % 2 != offender % 2]  # the other side, partners and all
    assert record["winners"] == others and {record["players"][s] for s in others} == {"honest"}
    db = tmp_path / "results.db"
    store(db, "cheat|honest", [record])
    table = results(db, "ranking")
    assert [row["bot"] for row in table] == ["honest", "cheat"]
    assert results(db, "crosstable")["cheat"] == {"honest": [0.0, 1]}
