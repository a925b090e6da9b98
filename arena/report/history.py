"""Each bot's rating over the games played: the ranking's Elo refitted every ``step`` games, at most ``POINTS`` times.

When the points would pass ``POINTS``, every other one is dropped and the step doubles, so a report of any length
keeps between ``POINTS / 2`` and ``POINTS`` of them, evenly spaced, at the cost of that many fits (each costs
O(distinct matchups), not O(games)).
"""

from __future__ import annotations

from typing import TypedDict

from arena.tournament.ranking import Standings
from arena.tournament.ratings import tally_table

POINTS = 120


class HistoryJSON(TypedDict):
    """The games counts of the history's points, and each bot's rating at each (null before its first game)."""

    games: list[int]
    elo: dict[str, list[float | None]]


class RatingHistory:
    """The Elo of every bot after every ``step`` games, as the ranking would have shown it then."""

    def __init__(self) -> None:
        self.step = 1
        self.points: list[tuple[int, dict[str, float]]] = []

    def after(self, games: int, standings: Standings) -> None:
        """Note the ratings after ``games`` games, if that is a point of the history."""
        if games % self.step:
            return
        self.points.append((games, {r.name: r.elo for r in tally_table(standings.tally, intervals=False)}))
        if len(self.points) > POINTS:
            self.points = self.points[1::2]
            self.step *= 2

    def to_json(self, games: int, elo: dict[str, float]) -> HistoryJSON:
        """``{"games": [...], "elo": {bot: [...]}}``, ending with ``elo``, the ratings after all ``games``; a bot's
        value is null before its first game."""
        points = list(self.points)
        if not points or points[-1][0] != games:
            points.append((games, elo))
        return {
            "games": [n for n, _ in points],
            "elo": {bot: [ratings.get(bot) for _, ratings in points] for bot in elo},
        }
