"""From stored game records to ranking tables and cross tables (the statistics live in arena.tournament.ratings)."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass

from arena.engine.record import GameRecord, record_rules
from arena.tournament.ratings import Comparison, Result, Tally, seat_standing_results, tally_table
from arena.tournament.tables import render


def cluster_of(game_key: str) -> str:
    """The cluster of a game: its pairing and deal (a duplicate set), i.e. the key without the rotation."""
    return game_key.rsplit("/", 1)[0] if game_key.count("/") >= 2 else game_key


def by_standing(record: GameRecord) -> bool:
    """Whether a game is ranked by its final standing: each for himself at a table of three or more (three-hand,
    Nap, call-partner Euchre), not by one side winning."""
    return len(record["players"]) > 2 and not record_rules(record).partnerships


def _results(record: GameRecord) -> list[Result]:
    """The pairwise results of one game as (winners, losers, drawn); games each for himself at a table of three or
    more by final standing."""
    players: list[str] = record["players"]
    winners = set(record["winners"])
    if by_standing(record):
        scores = [float(score) for score in record["final_scores"]]
        forfeit = record.get("forfeit")
        if forfeit is not None:
            scores[forfeit["seat"]] = min(scores) - 1.0  # the offender finishes last
        return seat_standing_results(players, scores)
    if not winners:  # drawn at the referee's hand limit: the sides draw
        rules = record_rules(record)
        sides = [
            tuple(dict.fromkeys(players[s] for s in range(len(players)) if rules.side_of(s) == side))
            for side in range(rules.sides)
        ]
        return [(a, b, True) for i, a in enumerate(sides) for b in sides[i + 1 :]]
    win = tuple(dict.fromkeys(players[s] for s in sorted(winners)))
    rules = record_rules(record)
    if rules.partnerships and rules.sides > 2:  # six-hand's three teams: the winners over each other team
        won = rules.side_of(min(winners))
        return [
            (win, tuple(dict.fromkeys(players[s] for s in range(len(players)) if rules.side_of(s) == side)), False)
            for side in range(rules.sides)
            if side != won
        ]
    lose = tuple(dict.fromkeys(players[s] for s in range(len(players)) if s not in winners))
    return [(win, lose, False)] * (2 if record.get("slam") else 1)  # Railroad's slam counts as two games won


def comparisons(record: GameRecord, cluster: str) -> list[Comparison]:
    """The pairwise results of one game: winning side over losing side; games each for himself by final standing."""
    return [Comparison(w, lo, draw=d, cluster=cluster) for w, lo, d in _results(record)]


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the ranking table (docs/ratings.md).

    ``wins``, ``draws`` and ``losses`` count games: a draw is a game undecided at the hand limit. In games ranked by
    standing (``standing``: three-hand, Nap, call-partner) ``wins`` counts first places and ``losses`` the other
    decided games. ``group`` numbers the groups
    of bots linked by games (1 when all are); ``rank`` counts within a group, and ``los_next`` is None on the last row
    of a group (no LOS across groups).
    """

    rank: int
    bot: str
    elo: float
    plus_minus: float | None
    los_next: float | None
    games: int
    wins: int
    draws: int
    losses: int
    score: float
    points_per_hand: float
    violations: int
    group: int = 1
    seats: int = 2
    standing: bool = False


def _people(record: GameRecord) -> list[tuple[str, int, int]]:
    """Each bot of a game once, with its first seat and its result: 0 won (first place), 1 drawn, 2 lost."""
    players, winners = record["players"], record["winners"]
    won = {players[s] for s in winners}
    first = {name: players.index(name) for name in players}
    return [(name, seat, 0 if name in won else 2 if winners else 1) for name, seat in first.items()]


class Standings:
    """The ranking table's tallies, kept game by game: add (game_key, record) pairs in any order, read ``rows``.

    It holds the pairwise results by cluster and a few counts per bot, never the records: a report kept current
    while a tournament runs adds only the games stored since it last looked.
    """

    def __init__(self) -> None:
        self.tally = Tally()
        self.stats: dict[str, list[int]] = {}  # games, won, drawn, lost, points, hands, violations
        self._seen: dict[tuple[object, ...], tuple[list[Result], list[tuple[str, int, int]]]] = {}
        self.seats = 0
        self.standing = False  # whether the games are ranked by standing (each for himself, three seats or more)

    def add(self, key: str, record: GameRecord) -> None:
        """Count one game under its game key (its cluster is the key without the rotation)."""
        players, winners = record["players"], record["winners"]
        if by_standing(record):  # the standing depends on the scores, and a forfeit
            self.standing = True
            forfeit = record.get("forfeit")
            signature: tuple[object, ...] = (
                tuple(players),
                tuple(winners),
                tuple(record["final_scores"]),
                None if forfeit is None else forfeit["seat"],
            )
        else:  # a slam's results count twice: part of what the results depend on
            signature = (tuple(players), tuple(winners), bool(record.get("slam")))
        digest = self._seen.get(signature)
        if digest is None:
            digest = self._seen[signature] = (_results(record), _people(record))
            self.seats = max(self.seats, len(players))
        cluster = cluster_of(key)
        for win, lose, draw in digest[0]:
            self.tally.add(win, lose, draw, cluster)
        hands = record["hands"]
        totals = [sum(column) for column in zip(*[hand["result"]["points"] for hand in hands], strict=True)]
        stats = self.stats
        for name, seat, result in digest[1]:
            entry = stats.get(name)
            if entry is None:
                entry = stats[name] = [0] * 7
            entry[0] += 1
            entry[1 + result] += 1
            entry[4] += totals[seat] if totals else 0
            entry[5] += len(hands)
        for violation in record.get("violations", ()):
            stats[players[violation["seat"]]][6] += 1

    def rows(self, *, intervals: bool = True, confidence: float = 0.95) -> list[Row]:
        """The ranking table of the games added so far (empty before the first)."""
        if not len(self.tally):
            return []
        table = tally_table(self.tally, intervals=intervals, confidence=confidence)
        rows: list[Row] = []
        for i, r in enumerate(table):
            games, won, drawn, lost, points, hands_played, violations = self.stats[r.name]
            rank = 1 if i == 0 or table[i - 1].group != r.group else rows[-1].rank + 1
            rows.append(
                Row(
                    rank=rank,
                    bot=r.name,
                    elo=r.elo,
                    plus_minus=r.plus_minus,
                    los_next=r.los_next,
                    games=games,
                    wins=won,
                    draws=drawn,
                    losses=lost,
                    score=r.score,
                    points_per_hand=points / hands_played if hands_played else 0.0,
                    violations=violations,
                    group=r.group,
                    seats=self.seats,
                    standing=self.standing,
                )
            )
        return rows


def ranking(
    records: Iterable[tuple[str, GameRecord]],
    *,
    intervals: bool = True,
    confidence: float = 0.95,
    bootstrap: int | None = None,
    seed: int | None = None,
) -> list[Row]:
    """The ranking table of (game_key, record) pairs; independent of their order.

    ``bootstrap`` and ``seed`` are accepted for callers of the former bootstrap intervals: ``bootstrap=0`` still
    means no intervals, and the seed is not used (the intervals are computed, not resampled).
    """
    del seed
    if bootstrap == 0:
        intervals = False
    standings = Standings()
    for key, record in records:
        standings.add(key, record)
    return standings.rows(intervals=intervals, confidence=confidence)


def headers(rows: list[Row]) -> list[str]:
    """The column names of ``format_ranking`` for these rows (a group column only when the bots form several)."""
    record = "1st-D-L" if rows and rows[0].standing else "W-D-L"
    grouped = ["group"] if any(r.group > 1 for r in rows) else []
    return [
        "rank",
        *grouped,
        "bot",
        "Elo",
        "+/- (95%)",
        "LOS next",
        "games",
        record,
        "score %",
        "pts/hand",
        "violations",
    ]


def copies_partnered(record: GameRecord) -> bool:
    """Whether a game had two copies of one bot as partners (four-hand or six-hand, ``partnership = "self"``)."""
    players = record["players"]
    rules = record_rules(record)
    if not rules.partnerships:
        return False
    seen: set[tuple[int, str]] = set()
    for seat, name in enumerate(players):
        if (rules.side_of(seat), name) in seen:
            return True
        seen.add((rules.side_of(seat), name))
    return False


def format_ranking(rows: list[Row], fmt: str, *, partnered: int = 0) -> str:
    """Render the table as text (tabulate), CSV, JSON or Markdown; say so when the bots form separate groups, and
    when ``partnered`` of its games had two copies of one bot as partners (who can share their hands)."""
    if fmt == "json":
        return json.dumps([asdict(r) for r in rows], indent=2)
    grouped = any(r.group > 1 for r in rows)
    cells = []
    for i, r in enumerate(rows):
        apart = i + 1 < len(rows) and rows[i + 1].group != r.group
        cells.append(
            [
                r.rank,
                *([r.group] if grouped else []),
                r.bot,
                f"{r.elo:+.0f}",
                "-" if r.plus_minus is None else f"{r.plus_minus:.0f}",
                "unknown" if apart else "-" if r.los_next is None else f"{100 * r.los_next:.1f}%",
                r.games,
                f"{r.wins}-{r.draws}-{r.losses}",
                f"{100 * r.score:.1f}",
                f"{r.points_per_hand:.3f}",
                r.violations,
            ]
        )
    text = render(headers(rows), cells, fmt)
    if fmt == "csv":
        return text
    if grouped:
        count = max(r.group for r in rows)
        text += (
            f"\n\nThe bots form {count} separate groups that never met, directly or through others: each group's"
            " Elo is centred on its own mean, and no LOS compares bots of different groups."
        )
    if partnered:
        text += (
            f'\n\n{partnered} games were played by teams of two copies of one bot (partnership = "self"): copies on '
            "one host can show each other their hands (SECURITY.md), so this table ranks bots you trust; rank "
            'strangers with partnership = "mixed".'
        )
    return text


class Cross:
    """The cross table's tallies, kept game by game: points won and games of each bot against each other."""

    def __init__(self) -> None:
        self.score: dict[tuple[str, str], float] = defaultdict(float)
        self.count: dict[tuple[str, str], int] = defaultdict(int)
        self.names: set[str] = set()

    def add(self, key: str, record: GameRecord) -> None:
        """Count one game's pairwise results."""
        for c in comparisons(record, cluster_of(key)):
            for w in c.winners:
                for lo in c.losers:
                    self.names.update((w, lo))
                    self.score[w, lo] += 0.5 if c.draw else 1.0
                    self.score[lo, w] += 0.5 if c.draw else 0.0
                    self.count[w, lo] += 1
                    self.count[lo, w] += 1

    def cells(self) -> dict[str, dict[str, list[float]]]:
        """``{row: {column: [points won, games]}}`` for every pair of bots met so far (as ``crosstable`` JSON)."""
        order = sorted(self.names)
        return {a: {b: [self.score[a, b], self.count[a, b]] for b in order if b != a} for a in order}


def crosstable(records: Iterable[tuple[str, GameRecord]], fmt: str = "table") -> str:
    """Score of each bot (row) against each other (column), as ``points won / games``, from pairwise results."""
    cross = Cross()
    for key, record in records:
        cross.add(key, record)
    if fmt == "json":
        return json.dumps(cross.cells(), indent=2)
    order = sorted(cross.names)
    score, count = cross.score, cross.count
    cells = [
        [a] + [("" if a == b else f"{score[a, b]:g}/{count[a, b]}" if count[a, b] else "-") for b in order]
        for a in order
    ]
    return render(["bot", *order], cells, fmt)
