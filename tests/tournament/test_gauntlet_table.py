"""The gauntlet's table of a real gauntlet, every cell recomputed here from the games stored in SQLite.

The candidate is given as a path (``candidate = "cand.py"``, a copy of tests/bots/raw_random.py): its rows must be
there all the same. Its opponents give each kind of row: ``random`` and ``heuristic`` (results split: an interval
from the spread between deals) and ``quitter`` (exits before its hello: the candidate sweeps it, by forfeit). Each
deal is played in both seatings: the two games of a deal are one draw of its results (docs/sprt.md, gauntlets), and
a sweep's open interval is the exact bound of that many deals all won.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path
from statistics import NormalDist

import pytest
from configs import write_config
from helpers import RAW_RANDOM, arena_here

from arena.tournament.store import Store

Z = NormalDist().inv_cdf(0.975)
HEADER = "Gauntlet: cand against each opponent"
DEALS = 4  # per opponent, each in both seatings


@pytest.fixture(scope="module")
def gauntlet(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The config and what ``arena tournament run`` printed (Markdown)."""
    folder = tmp_path_factory.mktemp("gauntlet-table")
    shutil.copyfile(RAW_RANDOM, folder / "cand.py")
    (folder / "quitter.py").write_text("raise SystemExit(1)  # before its hello: every game forfeited\n")
    config = write_config(
        folder / "g.toml",
        entrants=["random", "cand.py", "quitter.py", "heuristic"],
        format="gauntlet",
        candidate="cand.py",
        games_per_pairing=DEALS,
        games_per_match=DEALS,
        seed=3,
        options={"points_to_win": 3},
    )
    ran = arena_here("tournament", "run", config, "--quiet", "--format", "markdown")
    assert ran.returncode == 0, ran.stderr
    return config, ran.stdout


def elo(score: float) -> float:
    return math.inf if score >= 1 else -math.inf if score <= 0 else -400 * math.log10(1 / score - 1)


def expected_rows(db: Path) -> dict[str, dict[str, float]]:
    """Each opponent's row from the stored games: results, score, Elo, interval and LOS, deal by deal."""
    deals: dict[str, dict[str, list[float]]] = {}  # opponent -> deal -> [points, results]
    with Store.open(db, create=False) as store:
        for _, key, record in store.records():
            players = record["players"]
            (opponent,) = set(players) - {"cand"}
            won = {players[s] for s in record["winners"]}
            tally = deals.setdefault(opponent, {}).setdefault(key.rsplit("/", 1)[0], [0.0, 0.0])
            tally[0] += 0.5 if not won else 1.0 if "cand" in won else 0.0
            tally[1] += 1
    rows = {}
    for opponent, by_deal in deals.items():
        count, total = len(by_deal), sum(n for _, n in by_deal.values())
        mean = sum(s for s, _ in by_deal.values()) / total
        sd = math.sqrt(sum((s - mean * n) ** 2 for s, n in by_deal.values()) / total**2 * count / (count - 1))
        if sd > 0:
            low, high, los = elo(mean - Z * sd), elo(mean + Z * sd), NormalDist().cdf((mean - 0.5) / sd)
        else:  # every result won (lost): the exact bound of ``count`` deals all won
            assert mean in (0.0, 1.0)
            bound = 0.025 ** (1 / count)
            low, high = (elo(bound), math.inf) if mean == 1 else (-math.inf, elo(1 - bound))
            los = mean
        rows[opponent] = {"games": total, "score": mean, "elo": elo(mean), "low": low, "high": high, "los": los}
    return rows


def shown_rows(output: str) -> dict[str, list[str]]:
    """The Markdown gauntlet table's cells after the candidate's name, by opponent."""
    assert HEADER in output, output
    table = output.split(HEADER)[1]
    cells = [[c.strip() for c in line.split("|")[2:-1]] for line in table.splitlines() if line.startswith("| cand ")]
    return {row[0]: row[1:] for row in cells}


def number(cell: str) -> float:
    return float(cell.replace("%", "").replace("+inf", "inf"))


def check(shown: dict[str, list[str]], expected: dict[str, dict[str, float]]) -> None:
    assert sorted(shown) == sorted(expected) == ["heuristic", "quitter", "random"]
    for opponent, (games, score, elo_diff, interval, los) in shown.items():
        want = expected[opponent]
        low, high = interval.strip("[]").split(", ")
        assert int(games) == want["games"] == 2 * DEALS, opponent
        assert number(score) == round(100 * want["score"], 1), opponent
        for cell, value in ((elo_diff, want["elo"]), (low, want["low"]), (high, want["high"])):
            assert number(cell) == (round(value) if math.isfinite(value) else value), (opponent, cell, value)
        assert number(los) == round(100 * want["los"], 1), opponent


def test_every_cell_of_the_gauntlet_table_is_what_the_stored_games_say(gauntlet: tuple[Path, str]) -> None:
    config, printed = gauntlet
    expected = expected_rows(config.with_suffix(".db"))
    # the kinds of row this test is for: a split result with spread between deals, and a sweep each way
    assert 0 < expected["random"]["score"] < 1 and expected["random"]["low"] > -math.inf
    assert expected["quitter"]["score"] == 1
    check(shown_rows(printed), expected)  # as the run ends
    for command in ("ranking", "crosstable"):  # and read back from the results file alone
        for source in ([config], ["--db", config.with_suffix(".db")]):
            shown = arena_here(command, *source, "--format", "markdown")
            assert shown.returncode == 0, shown.stderr
            check(shown_rows(shown.stdout), expected)


def test_the_plain_table_names_the_candidate_given_as_a_path(gauntlet: tuple[Path, str]) -> None:
    config, _ = gauntlet
    shown = arena_here("ranking", config)
    assert shown.returncode == 0, shown.stderr
    table = shown.stdout.split(HEADER)[1]
    rows = [line.split() for line in table.splitlines() if line.startswith("cand ")]
    assert sorted(row[1] for row in rows) == ["heuristic", "quitter", "random"]
    assert {row[2] for row in rows} == {str(2 * DEALS)}


def test_a_sweeps_interval_is_bounded_by_its_deals_not_its_games(gauntlet: tuple[Path, str]) -> None:
    """Four deals all won: the lower end is the Elo of 0.025^(1/4) (-72), not of eight games (0.025^(1/8): +93)."""
    _, printed = gauntlet
    low = shown_rows(printed)["quitter"][3].strip("[]").split(", ")[0]
    assert number(low) == round(elo(0.025 ** (1 / DEALS))) == -72
