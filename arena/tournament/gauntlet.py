"""Gauntlets: the candidate against each opponent, with the score, an Elo difference with its interval, and LOS.

A gauntlet (``format = "gauntlet"``) plays only the pairings that include its candidate (schedule.py); this is the
table that reads it. Each opponent's row counts every pairwise result between the candidate and that opponent
(three-hand by final standing, four-hand side against side), a draw counting half. The results of one duplicate
deal are correlated (the rotations share the cards), so the interval treats each deal as one independent draw of
its results: the variance of the mean score is ``sum_c (S_c - m n_c)^2 / N^2 * C / (C - 1)`` over the ``C`` deals,
``S_c`` the candidate's points and ``n_c`` the results of deal ``c``, ``N`` all the results, ``m`` the mean. The
score's interval ``m +- z sd`` maps to logistic Elo, ``400 log10(s / (1 - s))``; LOS is ``Phi((m - 0.5) / sd)``.
With no spread to go on (one deal, or all alike) the results are taken as independent (``sd^2 = m (1 - m) / N``);
a candidate that won (lost) every result gets the exact one-sided bound of ``C`` deals all won, ``((1 - c) / 2) ^
(1 / C)``, and an open other end.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from arena.engine.record import GameRecord
from arena.tournament.ranking import cluster_of, comparisons
from arena.tournament.ratings import elo_of_score, score_interval
from arena.tournament.tables import render

if TYPE_CHECKING:  # for the reading commands (ranking, crosstable), which need neither the config nor the referee
    from arena.play.botproc import BotCommand
    from arena.tournament.config import TournamentConfig
    from arena.tournament.store import Store

CANDIDATE_META = "gauntlet.candidate"
"""The store's meta key that names a gauntlet's candidate (its resolved name, as in the game records)."""


def candidate_name(config: TournamentConfig, commands: dict[str, BotCommand]) -> str | None:
    """The candidate's name in the records (commands in the order of ``config.entrants``), or None."""
    if config.format != "gauntlet" or config.candidate is None:
        return None
    return list(commands)[config.entrant_keys().index(config.candidate)]


def remember_candidate(store: Store, config: TournamentConfig, commands: dict[str, BotCommand]) -> None:
    """Note the gauntlet's candidate in ``store``, so that its tables read it from the results alone."""
    name = candidate_name(config, commands)
    if name is not None and store.get_meta(CANDIDATE_META) != name:
        store.set_meta(CANDIDATE_META, name)


@dataclass(frozen=True, slots=True)
class Duel:
    """The candidate against one opponent."""

    opponent: str
    games: int  # pairwise results between the two (a game of two teams or a three-hand standing: one each)
    score: float  # the candidate's share, a draw counting half
    elo: float  # the candidate's logistic Elo difference over the opponent
    elo_low: float
    elo_high: float
    los: float  # the probability that the candidate is the stronger


def duels(records: Iterable[tuple[str, GameRecord]], candidate: str, *, confidence: float = 0.95) -> list[Duel]:
    """The candidate against each opponent it met, by opponent name."""
    by_deal: dict[str, dict[str, list[float]]] = {}  # opponent -> deal -> [points, results]
    for key, record in records:
        cluster = cluster_of(key)
        for c in comparisons(record, cluster):
            if candidate in c.winners:
                mine, theirs, points = c.winners, c.losers, 0.5 if c.draw else 1.0
            elif candidate in c.losers:
                mine, theirs, points = c.losers, c.winners, 0.5 if c.draw else 0.0
            else:
                continue
            for opponent in theirs:
                if opponent in mine:
                    continue
                tally = by_deal.setdefault(opponent, {}).setdefault(cluster, [0.0, 0.0])
                tally[0] += points
                tally[1] += 1
    result = []
    for opponent in sorted(by_deal):
        deals = list(by_deal[opponent].values())
        total = sum(n for _, n in deals)
        mean = sum(s for s, _ in deals) / total
        count = len(deals)
        var = sum((s - mean * n) ** 2 for s, n in deals) / total**2 * count / (count - 1) if count > 1 else 0.0
        sd = math.sqrt(var)
        if sd == 0 and 0 < mean < 1:  # one deal, or every deal alike: as if the results were independent
            sd = math.sqrt(mean * (1 - mean) / total)
        low, high, los = score_interval(mean, sd, count, confidence)  # sd 0: every result won (lost)
        result.append(Duel(opponent, int(total), mean, elo_of_score(mean), low, high, los))
    return result


HEADERS = ["candidate", "opponent", "games", "score %", "Elo diff", "95% interval", "LOS"]


def format_duels(candidate: str, rows: list[Duel], fmt: str) -> str:
    """The candidate-against-each-opponent table as text, CSV, JSON or Markdown."""
    if fmt == "json":
        return json.dumps([{"candidate": candidate, **asdict(r)} for r in rows], indent=2)
    cells = [
        [
            candidate,
            r.opponent,
            r.games,
            f"{100 * r.score:.1f}",
            _shown(r.elo),
            f"[{_shown(r.elo_low)}, {_shown(r.elo_high)}]",
            f"{100 * r.los:.1f}%",
        ]
        for r in rows
    ]
    return render(HEADERS, cells, fmt)


def _shown(elo: float) -> str:
    return f"{elo:+.0f}" if math.isfinite(elo) else ("+inf" if elo > 0 else "-inf")


def gauntlet_section(records: Iterable[tuple[str, GameRecord]], candidate: str | None, fmt: str) -> str:
    """The table to print after a gauntlet's ranking or crosstable (table and Markdown formats), else ``""``."""
    if candidate is None or fmt not in ("table", "markdown"):
        return ""
    rows = duels(records, candidate)
    if not rows:
        return ""
    return f"\n\nGauntlet: {candidate} against each opponent\n\n{format_duels(candidate, rows, fmt)}"
