"""The ranking of team games, every player's record recomputed from the stored games: a four-hand tournament of
four entrants partnered in every way (``partnership = "mixed"``), so that each player meets each other as partner
and as opponent, on both sides of the fitted matchups.

``arena ranking`` (JSON and the text table) and ``rank_table`` fed with the games' team results must give every
player the wins, draws, losses and score its side had: a player credited with the other side's result shows in
some rows and not others, so every row is checked.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from configs import write_config
from helpers import RAW_RANDOM, arena_here

from arena.tournament.ratings import Comparison, rank_table
from arena.tournament.store import Store

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def teams(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple[str, dict[str, Any]]]]:
    """The config of a finished four-hand tournament and its stored games (key, record)."""
    folder = tmp_path_factory.mktemp("teams")
    shutil.copyfile(RAW_RANDOM, folder / "mine.py")
    shutil.copyfile(RAW_RANDOM, folder / "yours.py")
    config = write_config(
        folder / "teams.toml",
        variant="four-hand",
        entrants=["random", "heuristic", "mine.py", "yours.py"],
        partnership="mixed",
        games_per_pairing=2,
        games_per_match=2,
        seed=3,
        options={"points_to_win": 3},
    )
    ran = arena_here("tournament", "run", config, "--quiet")
    assert ran.returncode == 0, ran.stderr
    with Store.open(config.with_suffix(".db"), create=False) as store:
        return config, [(key, record) for _, key, record in store.records()]


def records_say(games: list[tuple[str, dict[str, Any]]]) -> dict[str, tuple[int, int, int, int]]:
    """Each player's games, wins, draws and losses: its side's result in each game it played."""
    said: dict[str, list[int]] = {}
    for _, record in games:
        won = {record["players"][s] for s in record["winners"]}
        for name in set(record["players"]):
            tally = said.setdefault(name, [0, 0, 0, 0])
            tally[0] += 1
            tally[1 if name in won else 2 if not won else 3] += 1
    return {name: (g, w, d, lo) for name, (g, w, d, lo) in said.items()}


def test_every_players_record_in_the_ranking_is_its_sides(
    teams: tuple[Path, list[tuple[str, dict[str, Any]]]],
) -> None:
    config, games = teams
    expected = records_say(games)
    assert len(expected) == 4 and len(games) == 12
    assert len({(w, lo) for _, w, _, lo in expected.values()}) > 1  # not every player with the same record
    shown = arena_here("ranking", config, "--format", "json")
    assert shown.returncode == 0, shown.stderr
    rows = {row["bot"]: row for row in json.loads(shown.stdout)}
    assert set(rows) == set(expected)
    for name, (played, won, drawn, lost) in expected.items():
        row = rows[name]
        assert (row["games"], row["wins"], row["draws"], row["losses"]) == (played, won, drawn, lost), name
        assert row["score"] == pytest.approx((won + drawn / 2) / played), name
    text = arena_here("ranking", config)
    for line in text.stdout.splitlines()[2:6]:
        cells = line.split()
        played, won, drawn, lost = expected[cells[1]]
        assert cells[5:7] == [str(played), f"{won}-{drawn}-{lost}"], line
        assert float(cells[7]) == round(100 * (won + drawn / 2) / played, 1), line


def test_rank_table_gives_every_team_player_its_sides_record(
    teams: tuple[Path, list[tuple[str, dict[str, Any]]]],
) -> None:
    _, games = teams
    comparisons = []
    for key, record in games:
        players, winners = record["players"], record["winners"]
        sides = [tuple(sorted({players[0], players[2]})), tuple(sorted({players[1], players[3]}))]
        first = 0 if not winners or winners[0] % 2 == 0 else 1
        comparisons.append(Comparison(sides[first], sides[1 - first], draw=not winners, cluster=key.rsplit("/", 1)[0]))
    rows = {row.name: row for row in rank_table(comparisons)}
    for name, (played, won, drawn, lost) in records_say(games).items():
        row = rows[name]
        assert (row.games, row.wins, row.draws, row.losses) == (played, won, drawn, lost), name
        assert row.score == pytest.approx((won + drawn / 2) / played), name
