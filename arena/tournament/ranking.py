"""From stored game records to ranking tables and cross tables (the statistics live in arena.tournament.ratings)."""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass

from tabulate import tabulate

from arena.engine.record import GameRecord
from arena.tournament.ratings import Comparison, rank_table, standing_comparisons

FORMATS = ("table", "csv", "json", "markdown")


def cluster_of(game_key: str) -> str:
    """The bootstrap cluster of a game: its pairing and deal (a duplicate set), i.e. the key without the rotation."""
    return game_key.rsplit("/", 1)[0] if game_key.count("/") >= 2 else game_key


def comparisons(record: GameRecord, cluster: str) -> list[Comparison]:
    """The pairwise results of one game: winning side over losing side; three-hand by final standing."""
    players: list[str] = record["players"]
    winners = set(record["winners"])
    if len(players) == 3:
        scores = {players[s]: float(record["final_scores"][s]) for s in range(3)}
        forfeit = record.get("forfeit")
        if forfeit is not None:
            scores[players[forfeit["seat"]]] = -1.0  # the offender finishes last
        return standing_comparisons(scores, cluster=cluster)
    if not winners:  # drawn at the referee's hand limit: the two sides draw
        sides = [tuple(dict.fromkeys(players[s] for s in range(len(players)) if s % 2 == side)) for side in (0, 1)]
        return [Comparison(sides[0], sides[1], draw=True, cluster=cluster)]
    win = tuple(dict.fromkeys(players[s] for s in sorted(winners)))
    lose = tuple(dict.fromkeys(players[s] for s in range(len(players)) if s not in winners))
    return [Comparison(win, lose, cluster=cluster)]


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the ranking table."""

    rank: int
    bot: str
    elo: float
    plus_minus: float | None
    los_next: float | None
    games: int
    wins: int
    losses: int
    score: float
    points_per_hand: float
    violations: int


def ranking(
    records: Iterable[tuple[str, GameRecord]], *, bootstrap: int = 1000, seed: int = 0, confidence: float = 0.95
) -> list[Row]:
    """The ranking table of (game_key, record) pairs; independent of their order."""
    ordered = sorted(records, key=lambda kr: kr[0])
    all_comparisons: list[Comparison] = []
    games: dict[str, int] = defaultdict(int)
    wins: dict[str, int] = defaultdict(int)
    points: dict[str, int] = defaultdict(int)
    hands: dict[str, int] = defaultdict(int)
    violations: dict[str, int] = defaultdict(int)
    for key, record in ordered:
        all_comparisons.extend(comparisons(record, cluster_of(key)))
        players = record["players"]
        first_seat = {name: players.index(name) for name in players}
        for name, seat in first_seat.items():
            games[name] += 1
            wins[name] += seat in record["winners"] or any(players[w] == name for w in record["winners"])
            for hand in record["hands"]:
                points[name] += hand["result"]["points"][seat]
            hands[name] += len(record["hands"])
        for violation in record.get("violations", []):
            violations[players[violation["seat"]]] += 1
    if not all_comparisons:
        return []
    table = rank_table(all_comparisons, bootstrap=bootstrap, seed=seed, confidence=confidence)
    return [
        Row(
            rank=i + 1,
            bot=r.name,
            elo=r.elo,
            plus_minus=r.plus_minus,
            los_next=r.los_next,
            games=games[r.name],
            wins=wins[r.name],
            losses=games[r.name] - wins[r.name],
            score=r.score,
            points_per_hand=points[r.name] / hands[r.name] if hands[r.name] else 0.0,
            violations=violations[r.name],
        )
        for i, r in enumerate(table)
    ]


HEADERS = ["rank", "bot", "Elo", "+/- (95%)", "LOS next", "games", "W-L", "score %", "pts/hand", "violations"]


def format_ranking(rows: list[Row], fmt: str) -> str:
    """Render the table as text (tabulate), CSV, JSON or Markdown."""
    if fmt == "json":
        return json.dumps([asdict(r) for r in rows], indent=2)
    cells = [
        [
            r.rank,
            r.bot,
            f"{r.elo:+.0f}",
            "-" if r.plus_minus is None else f"{r.plus_minus:.0f}",
            "-" if r.los_next is None else f"{100 * r.los_next:.1f}%",
            r.games,
            f"{r.wins}-{r.losses}",
            f"{100 * r.score:.1f}",
            f"{r.points_per_hand:.3f}",
            r.violations,
        ]
        for r in rows
    ]
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(HEADERS)
        writer.writerows(cells)
        return out.getvalue().rstrip("\n")
    return tabulate(cells, headers=HEADERS, tablefmt="github" if fmt == "markdown" else "simple")


def crosstable(records: Iterable[tuple[str, GameRecord]], fmt: str = "table") -> str:
    """Score of each bot (row) against each other (column), as ``points won / games``, from pairwise results."""
    score: dict[tuple[str, str], float] = defaultdict(float)
    count: dict[tuple[str, str], int] = defaultdict(int)
    names: set[str] = set()
    for key, record in records:
        for c in comparisons(record, cluster_of(key)):
            for w in c.winners:
                for lo in c.losers:
                    names.update((w, lo))
                    score[w, lo] += 0.5 if c.draw else 1.0
                    score[lo, w] += 0.5 if c.draw else 0.0
                    count[w, lo] += 1
                    count[lo, w] += 1
    order = sorted(names)
    cells = [
        [a] + [("" if a == b else f"{score[a, b]:g}/{count[a, b]}" if count[a, b] else "-") for b in order]
        for a in order
    ]
    if fmt == "json":
        return json.dumps({a: {b: [score[a, b], count[a, b]] for b in order if b != a} for a in order}, indent=2)
    if fmt == "csv":
        out = io.StringIO()
        csv.writer(out).writerows([["bot", *order], *cells])
        return out.getvalue().rstrip("\n")
    return tabulate(cells, headers=["bot", *order], tablefmt="github" if fmt == "markdown" else "simple")
