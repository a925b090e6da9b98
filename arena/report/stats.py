"""Per-bot statistics of a report, gathered record by record in one pass (no record is kept).

What each figure counts (docs/report.md):

- bids: hands in which the bot named trump (the maker); made when its side scored, euchred when the defenders did;
  lone: the bids it played alone, and how many of those scored.
- points per hand as maker: its seat's points over the hands it made trump; as defender: over the hands the other
  side made trump (a four-hand bot whose partner made trump is neither; passed-out hands count for nobody).
- decision time: mean from ``timing.thinking`` / ``timing.decisions``; p99 (nearest rank) and max from each
  decision's ``timing.decision_ms`` (records without it are left out of those two).
- time left: ``timing.clock_left`` of each of its seats at the end of a game (games with a clock only).
- violations by kind, time-outs being one kind.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import TypedDict

from arena.engine.record import GameRecord, record_rules

DISTINCT_TIMES = 4096
"""Distinct decision times kept per bot before they are rounded to 3 significant digits (p99 within 0.5 %)."""


def _three_digits(ms: float) -> float:
    return float(f"{ms:.3g}")


class BotStatsJSON(TypedDict):
    """A bot's figures as the index page's data holds them (averages None where there is nothing to average)."""

    bot: str
    games: int
    seats: int
    bids: int
    made: int
    euchred: int
    alone: int
    aloneMade: int
    makerPoints: float | None
    defenderPoints: float | None
    decisions: int
    msPerDecision: float
    p99Ms: float | None
    maxMs: float | None
    meanLeft: float | None
    minLeft: float | None
    violations: dict[str, int]


@dataclass
class BotStats:
    """What the records tell about one bot beyond the ranking: bids, lone hands, time, violations."""

    bot: str
    games: int = 0
    seats: int = 0
    bids: int = 0
    made: int = 0
    euchred: int = 0
    alone: int = 0
    alone_made: int = 0
    maker_points: int = 0
    defender_hands: int = 0
    defender_points: int = 0
    decisions: int = 0
    thinking: float = 0.0
    times: Counter[float] = field(default_factory=Counter)  # decision ms -> how many
    timed: int = 0  # decisions with a recorded time
    slowest: float | None = None
    clock_games: int = 0
    clock_left: float = 0.0
    least_left: float | None = None
    violations: Counter[str] = field(default_factory=Counter)

    @property
    def ms_per_decision(self) -> float:
        """Mean thinking time per decision, in milliseconds."""
        return 1000 * self.thinking / self.decisions if self.decisions else 0.0

    @property
    def p99_ms(self) -> float | None:
        """The 99th percentile (nearest rank) of the recorded decision times, in milliseconds."""
        if not self.timed:
            return None
        rank = math.ceil(0.99 * self.timed)
        seen = 0
        for ms in sorted(self.times):
            seen += self.times[ms]
            if seen >= rank:
                return ms
        raise AssertionError("the counts add up to the decisions timed")

    @property
    def mean_left(self) -> float | None:
        """Mean seconds left on the bot's clock at the end of its games."""
        return self.clock_left / self.clock_games if self.clock_games else None

    def add_times(self, times: list[float]) -> None:
        """Count one seat's decision times of one game (milliseconds)."""
        if not times:
            return
        self.times.update(times)
        self.timed += len(times)
        top = max(times)
        if self.slowest is None or top > self.slowest:
            self.slowest = top
        if len(self.times) > DISTINCT_TIMES:
            coarse: Counter[float] = Counter()
            for ms, count in self.times.items():
                coarse[_three_digits(ms)] += count
            self.times = coarse

    def to_json(self) -> BotStatsJSON:
        """The figures shown, as the index page's data holds them."""
        return {
            "bot": self.bot,
            "games": self.games,
            "seats": self.seats,
            "bids": self.bids,
            "made": self.made,
            "euchred": self.euchred,
            "alone": self.alone,
            "aloneMade": self.alone_made,
            "makerPoints": self.maker_points / self.bids if self.bids else None,
            "defenderPoints": self.defender_points / self.defender_hands if self.defender_hands else None,
            "decisions": self.decisions,
            "msPerDecision": self.ms_per_decision,
            "p99Ms": self.p99_ms,
            "maxMs": self.slowest,
            "meanLeft": self.mean_left,
            "minLeft": self.least_left,
            "violations": dict(self.violations),
        }


class Stats:
    """Every bot's statistics, added game by game."""

    def __init__(self) -> None:
        self.bots: dict[str, BotStats] = {}

    def _of(self, name: str) -> BotStats:
        entry = self.bots.get(name)
        if entry is None:
            entry = self.bots[name] = BotStats(name)
        return entry

    def add(self, record: GameRecord) -> None:
        """Count one game."""
        players = record["players"]
        seats = [self._of(name) for name in players]
        for entry in {id(e): e for e in seats}.values():
            entry.games += 1
        rules = record_rules(record)
        for hand in record["hands"]:
            result = hand["result"]
            maker = result["maker"]
            if maker is None:
                continue
            points = result["points"]
            scored = points[maker] > 0
            side = rules.side_of(maker) if rules.partnerships else None
            for seat, entry in enumerate(seats):
                if seat == maker:
                    entry.bids += 1
                    entry.maker_points += points[seat]
                    if scored:
                        entry.made += 1
                    else:
                        entry.euchred += 1
                    if result["alone"]:
                        entry.alone += 1
                        entry.alone_made += scored
                elif side is None or rules.side_of(seat) != side:  # (not the maker's partners)
                    entry.defender_hands += 1
                    entry.defender_points += points[seat]
        timing = record.get("timing")
        decisions = timing.get("decisions") if timing else None
        thinking = timing.get("thinking") if timing else None
        each = timing.get("decision_ms") if timing else None
        left = timing.get("clock_left") if timing else None
        for seat, entry in enumerate(seats):
            entry.seats += 1
            if decisions:
                entry.decisions += int(decisions[seat])
            if thinking:
                entry.thinking += float(thinking[seat])
            if each:
                entry.add_times(each[seat])
            if left:
                seconds = float(left[seat])
                entry.clock_games += 1
                entry.clock_left += seconds
                if entry.least_left is None or seconds < entry.least_left:
                    entry.least_left = seconds
        for violation in record.get("violations") or ():
            seats[violation["seat"]].violations[violation["kind"]] += 1

    def ordered(self, order: list[str]) -> list[BotStats]:
        """The bots in ``order`` (the ranking's), then any others by name."""
        return [self.bots[n] for n in order if n in self.bots] + [
            s for n, s in sorted(self.bots.items()) if n not in order
        ]
