"""What ``arena sprt`` says of a test, recomputed from the games it stored: the pairs it counts, the LLR, the Elo
estimate with its interval, the normalised Elo with its margin, and LOS (docs/sprt.md); and that pairs completed
after the verdict change none of it.

The stored games are read from SQLite in the order they were stored and paired by deal here; the LLR at each
completed pair is ``llr_logistic``'s (pinned by hand in test_stats.py), everything else is computed from the
formulas of docs/sprt.md.
"""

from __future__ import annotations

import math
import re
import shutil
import subprocess
from pathlib import Path
from statistics import NormalDist
from typing import Any

import pytest
from helpers import arena_here

from arena.sprt.stats import Pentanomial, bounds, llr_logistic
from arena.tournament.store import Store

Z = NormalDist().inv_cdf(0.975)
NELO_PER_T = 800 / math.log(10)

# heuristic against random, elo1 100: H1 within some 30 games (every pair won); and to the cap of 12 pairs in
# games to 2 points, some pairs split: an estimate with spread (LLR +2.11, nElo +223.9)
DECIDED = ("heuristic", "random", "--elo1", "100", "--max-games", "200", "--seed", "3")
UNDECIDED = ("heuristic", "random", "--option", "points_to_win=2", "--elo1", "100", "--max-games", "24", "--seed", "2")


def run(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = arena_here("sprt", *args[:2], "--variant", "two-hand", *args[2:], "--db", str(db), "--quiet")
    assert done.returncode == 0, done.stderr
    return done


@pytest.fixture(scope="module")
def decided(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    db = tmp_path_factory.mktemp("sprt-estimate") / "decided.db"
    return db, run(db, *DECIDED).stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def undecided(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    db = tmp_path_factory.mktemp("sprt-estimate") / "undecided.db"
    return db, run(db, *UNDECIDED).stdout.strip().splitlines()[-1]


def counted_pairs(db: Path, new: str, elo0: float = 0.0, elo1: float = 100.0) -> list[float]:
    """NEW's score (a fraction of 2 games) in each pair the test counts: the pairs in the order they were completed,
    up to the one at which the LLR reached a bound."""
    lower, upper = bounds(0.05, 0.05)
    open_deals: dict[str, list[float]] = {}
    pairs: list[float] = []
    counts = Pentanomial()
    with Store.open(db, create=False) as store:
        stored = list(store.records())
    for _, key, record in sorted(stored, key=lambda item: item[0]):
        deal = key.rsplit("/", 1)[0]
        won = [record["players"][seat] for seat in record["winners"]]
        points = open_deals.setdefault(deal, [])
        points.append(0.5 if not won else 1.0 if new in won else 0.0)
        if len(points) < 2:
            continue
        del open_deals[deal]
        pairs.append(sum(points) / 2)
        counts = counts.add(sum(points))
        if not lower < llr_logistic(counts, elo0, elo1) < upper:
            break
    return pairs


def elo(score: float) -> float:
    if score == 0.5:
        return 0.0
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def shown(value: float) -> str:
    return f"{value:+.1f}" if math.isfinite(value) else ("+inf" if value > 0 else "-inf")


def expected_estimate(pairs: list[float]) -> str:
    """The estimate as the verdict line shows it, from docs/sprt.md's formulas."""
    n = len(pairs)
    mu = sum(pairs) / n
    var = sum((a - mu) ** 2 for a in pairs) / n  # of a pair's fraction
    se = math.sqrt(var / n)
    if se > 0:
        low, high, los = elo(mu - Z * se), elo(mu + Z * se), NormalDist().cdf((mu - 0.5) / se)
        nelo = (mu - 0.5) / math.sqrt(2 * var) * NELO_PER_T
    else:  # every pair scored the same: the exact bound of n pairs all won (lost)
        bound = 0.025 ** (1 / n)
        low, high = (elo(bound), math.inf) if mu == 1 else (-math.inf, elo(1 - bound)) if mu == 0 else (elo(mu),) * 2
        los = 1.0 if mu > 0.5 else 0.0 if mu < 0.5 else 0.5
        nelo = math.inf if mu > 0.5 else -math.inf if mu < 0.5 else 0.0
    margin = Z * NELO_PER_T / math.sqrt(2 * n)  # over the games, two a pair
    return (
        f"Elo {shown(elo(mu))} [{shown(low)}, {shown(high)}]  nElo {shown(nelo)} +- {margin:.1f}  LOS {100 * los:.1f}%"
    )


def said(verdict: str) -> dict[str, Any]:
    """The figures of a verdict line."""
    found = re.search(r"\(LLR ([-+]\d+\.\d+), (\d+) games, (\d+) pairs, (Elo .*%), \d+ s this run\)$", verdict)
    assert found, verdict
    return {"llr": float(found[1]), "games": int(found[2]), "pairs": int(found[3]), "estimate": found[4]}


@pytest.mark.parametrize("which", ["undecided", "decided"])
def test_the_verdicts_estimate_is_what_the_stored_pairs_give(which: str, request: pytest.FixtureRequest) -> None:
    db, verdict = request.getfixturevalue(which)
    pairs = counted_pairs(db, "heuristic")
    figures = said(verdict)
    assert figures["pairs"] == len(pairs)
    assert figures["llr"] == pytest.approx(llr_logistic(_counts(pairs), 0, 100), abs=0.006)  # shown to 2 places
    assert figures["estimate"] == expected_estimate(pairs)
    if which == "undecided":  # the estimate has spread: a finite nElo and interval, both ends shown
        assert verdict.startswith("inconclusive at the cap") and len(pairs) == 12
        assert 0 < sum(pairs) < len(pairs) and "inf" not in figures["estimate"]
    else:
        assert verdict.startswith("H1 accepted") and set(pairs) == {1.0}


def _counts(pairs: list[float]) -> Pentanomial:
    counts = Pentanomial()
    for a in pairs:
        counts = counts.add(2 * a)
    return counts


def test_pairs_completed_after_the_verdict_do_not_move_it(decided: tuple[Path, str], tmp_path: Path) -> None:
    """A run whose other matches finish after the verdict stores their games; resumed, the test is decided as it
    was: the LLR, the pairs and the estimate of the verdict, whatever those later pairs say."""
    db, verdict = decided
    copy = tmp_path / "after.db"
    shutil.copyfile(db, copy)
    with Store.open(copy) as store:
        stored = list(store.records())
        keys = {key for _, key, _ in stored}
        pairing = stored[0][1].split("/")[0]
        last = max(int(key.split("/")[1]) for key in keys)
        # as many more pairs as it counted, every one lost twice by NEW: they would turn the test if they counted
        complete = sorted({int(key.split("/")[1]) for key in keys if f"{key[:-1]}{1 - int(key[-1])}" in keys})
        lost = 0
        for _, key, record in stored:
            deal, rotation = (int(part) for part in key.split("/")[1:])
            if deal not in complete:
                continue
            flipped = dict(record)
            flipped["winners"] = [s for s in range(len(record["players"])) if s not in record["winners"]]
            store.add_game(f"{pairing}/{last + 1 + deal}/{rotation}", f"late-{deal}", flipped)  # type: ignore[arg-type]
            lost += 1
    assert lost == 2 * len(complete) and len(complete) >= 10
    again = run(copy, *DECIDED)
    before, after = said(verdict), said(again.stdout.strip().splitlines()[-1])
    assert again.stdout.startswith("H1 accepted"), again.stdout
    assert after["games"] == before["games"] + lost  # every stored game is read
    assert (after["llr"], after["pairs"], after["estimate"]) == (before["llr"], before["pairs"], before["estimate"])
