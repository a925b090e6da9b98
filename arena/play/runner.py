"""Plays one game between seats through an interface, whatever is behind it (processes or in-process handlers).

The runner owns the order of messages (what each seat is told and when), the clocks, the legality check of every
answer, and what a violation costs under the match's policy. The referee puts real processes behind ``Seats``; the
local driver puts plain callables there.
"""

from __future__ import annotations

import functools
import itertools
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypedDict

from arena.engine.actions import Action
from arena.engine.game import Game
from arena.engine.phases import SeatNumber
from arena.engine.record import GameRecord, TimingJSON, ViolationJSON, ViolationKind, game_record
from arena.play import outgoing as messages
from arena.play.clock import Clock, TimeControl
from arena.play.matchspec import DEFAULT_MAX_HANDS
from arena.text import printable

Policy = Literal["forfeit", "substitute"]
Message = messages.Message  # one JSON object to or from a bot (its definition: outgoing.py)


# A violation's detail and excerpt are cut to these lengths (a 4,000-digit request id makes no 4,000-character line).
DETAIL_LIMIT = 300
EXCERPT_LIMIT = 200


class Forfeit(TypedDict):
    """Who forfeited the game and why (in the record's ``forfeit`` and the ``game_end`` message): the one definition,
    from which arena.play.protocol builds the wire model."""

    seat: SeatNumber
    kind: str
    detail: str


@dataclass(frozen=True, slots=True)
class Violation:
    """A broken rule of the protocol: its kind, a description, and an excerpt of what the bot sent.

    Both texts may quote the bot: they are made printable and cut to their limits here, once for every consumer.
    """

    kind: ViolationKind | Literal["foreign"]  # "foreign": a stranger's hello, dropped by the referee, never recorded
    detail: str
    excerpt: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "detail", printable(self.detail, DETAIL_LIMIT))
        object.__setattr__(self, "excerpt", printable(self.excerpt, EXCERPT_LIMIT))


@dataclass(slots=True)
class Response:
    """What came back from a decision request: an action or a violation, and the seconds it took.

    Not frozen: one is made at every decision, and a frozen dataclass sets each field through ``object.__setattr__``
    (five times the cost). Nothing keeps an answer past the decision that made it.
    """

    action: Action | None
    violation: Violation | None
    elapsed: float
    excerpt: str = ""


class Seats(Protocol):
    """The contestants of one game, by seat."""

    def tell(self, seat: int, message: Message) -> None:
        """Send a message that needs no answer."""

    def ask(self, seat: int, message: Message, allowed: float) -> Response:
        """Send a decision request and wait at most ``allowed`` seconds for a valid action reply."""

    def penalize(self, seat: int, violation: Violation, *, game: int) -> bool:
        """Record a violation of ``seat``; True when its bot has run out of strikes for the match."""

    def disqualified(self, seat: int) -> bool:
        """Whether the bot in ``seat`` has forfeited the rest of the match."""

    def interrupts(self) -> list[tuple[int, Violation]]:
        """Violations of seats that were not asked (e.g. unsolicited messages), collected since the last call."""

    def wants_view(self, seat: int, hand_number: int) -> bool:
        """Whether this request to ``seat`` carries the full view (always, or at a hand's first request only)."""

    def prepare(self, seat: int) -> None:
        """Get ``seat`` ready to be asked, before its request is built (a bot to replace is replaced now, so that
        its first request carries the view)."""


@dataclass
class GameOutcome:
    """A finished game: its record (with violations and timing) and what decided it."""

    record: GameRecord
    violations: list[ViolationJSON] = field(default_factory=list)


def play(
    game: Game,
    seats: Seats,
    *,
    game_index: int,
    time_control: TimeControl | None,
    policy: Policy = "forfeit",
    request_ids: Iterator[int] | None = None,
    max_hands: int = DEFAULT_MAX_HANDS,
) -> GameOutcome:
    """Play ``game`` to its end through ``seats`` and return its record."""
    n = game.rules.players
    timing = _Timing(time_control, n)
    time_json = (time_control or TimeControl(0, 0, 0)).to_json()
    pending: list[list[Message]] = [[] for _ in range(n)]  # events each seat has yet to be told
    violations: list[ViolationJSON] = []
    forfeit: Forfeit | None = None
    for seat in range(n):
        seats.tell(seat, messages.game_start(game, game_index, seat, time_json))
    hand_seen = -1
    request_ids = request_ids or itertools.count(1)
    views = messages.ViewCache()
    while not game.is_over():
        if len(game.hands) >= max_hands:
            game.draw()  # bots that pass every hand forever must not hang the match
            break
        if hand_seen != len(game.hands):
            hand_seen = len(game.hands)
            for seat, event in enumerate(messages.hand_start_events(game)):
                pending[seat].append(event)
        current = game.current_seat()
        assert current is not None
        seat = current
        offences = seats.interrupts()
        action = None
        if not offences and seats.disqualified(seat):
            offences = [(seat, Violation("disqualified", "out of strikes earlier in the match"))]
        if not offences:
            request = functools.partial(messages.act_request, game, seat, next(request_ids), pending[seat], views=views)
            action, offences = _decide(game, seats, seat, request, timing, hand_seen)
            pending[seat] = []
            offences.extend(seats.interrupts())
        for offender, offence in offences:
            out_of_strikes = offence.kind != "disqualified" and seats.penalize(offender, offence, game=game_index)
            violations.append(_violation_json(offence, offender, len(game.hands), time.monotonic() - timing.started))
            if forfeit is None and (policy == "forfeit" or out_of_strikes or offence.kind == "disqualified"):
                forfeit = {"seat": offender, "kind": offence.kind, "detail": offence.detail}
        if forfeit is not None:
            game.forfeit(forfeit["seat"])
            break
        if offences and (action is None or action not in game.legal_actions()):
            if offences[0][0] != seat:
                continue  # someone else misbehaved; the seat to act is asked again
            action = game.legal_actions()[0]  # policy "substitute": the referee plays the first legal action
        assert action is not None
        hand, hand_number, tricks_before = game.hand, len(game.hands), len(game.hand.tricks)
        game.apply(action, seat)
        messages.add_action_events(pending, game, hand, hand_number, seat, action, tricks_before)
    record = game_record(game)
    if forfeit is not None and "forfeit" in record:
        record["forfeit"]["kind"], record["forfeit"]["detail"] = forfeit["kind"], forfeit["detail"]
    record["violations"] = violations
    record["timing"] = timing.json()
    _end(seats, game_index, record, forfeit, pending)
    return GameOutcome(record, violations)


class _Timing:
    """The clocks of one game's seats, and what each seat's decisions took (the record's ``timing``)."""

    def __init__(self, time_control: TimeControl | None, players: int) -> None:
        self.time_control = time_control
        self.started, self.started_at = time.monotonic(), time.time()
        self.clocks = [Clock(time_control) if time_control else None for _ in range(players)]
        self.each: list[list[float]] = [[] for _ in range(players)]  # every decision's seconds, per seat

    def allowed(self, seat: int) -> float:
        """The seconds ``seat`` may take for its next decision (an hour where no clock runs)."""
        clock = self.clocks[seat]
        return clock.allowed() if clock else 3600.0

    def spend(self, seat: int, elapsed: float) -> None:
        """Charge ``seat``'s decision of ``elapsed`` seconds to its clock."""
        self.each[seat].append(elapsed)
        if (clock := self.clocks[seat]) is not None:
            clock.spend(elapsed)

    def json(self) -> TimingJSON:
        """The record's ``timing``: the game's span and each seat's thinking."""
        timing: TimingJSON = {
            "seconds": round(time.monotonic() - self.started, 4),
            "started_at": round(self.started_at, 3),
            "ended_at": round(time.time(), 3),
            "thinking": [round(sum(times), 4) for times in self.each],
            "decisions": [len(times) for times in self.each],
            "decision_ms": [[round(1000 * t, 2) for t in times] for times in self.each],
        }
        if self.time_control is not None:
            timing["clock_left"] = [round(c.bank, 4) if c else 0.0 for c in self.clocks]
        return timing


def _decide(
    game: Game,
    seats: Seats,
    seat: int,
    request: Callable[..., Message],
    timing: _Timing,
    hand_number: int,
) -> tuple[Action | None, list[tuple[int, Violation]]]:
    """Ask ``seat`` for its action (``request`` builds the message, given the time allowed and whether it carries
    the view): the action, or None with the seat's offence (a violation, or an action not legal now)."""
    seats.prepare(seat)
    allowed = timing.allowed(seat)
    message = request(round(allowed * 1000), with_view=seats.wants_view(seat, hand_number))
    answer = seats.ask(seat, message, allowed)
    timing.spend(seat, answer.elapsed)
    if answer.violation is not None:
        return answer.action, [(seat, answer.violation)]
    if answer.action not in game.legal_actions():
        assert answer.action is not None
        text = json.dumps(answer.action.to_json())
        return answer.action, [(seat, Violation("illegal", f"{text} is not legal now", answer.excerpt or text))]
    return answer.action, []


def _end(
    seats: Seats, game_index: int, record: GameRecord, forfeit: Forfeit | None, pending: list[list[Message]]
) -> None:
    """Tell every seat what it has yet to hear, then the game's end."""
    end = {
        "type": "game_end",
        "game": game_index,
        "final_scores": record["final_scores"],
        "winners": record["winners"],
        "forfeit": None if forfeit is None else forfeit,
        "rubber_points": record["rubber"]["points"] if "rubber" in record else None,
    }
    for seat, events in enumerate(pending):
        if events:
            seats.tell(seat, {"type": "events", "events": events})
        seats.tell(seat, end)


def _violation_json(violation: Violation, seat: int, hand_number: int, at: float) -> ViolationJSON:
    return {
        "seat": seat,
        "kind": violation.kind,
        "detail": violation.detail,
        "excerpt": violation.excerpt,
        "hand_number": hand_number,
        "at_seconds": round(at, 4),
        "wall_time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def violation_notice(kind: str, detail: str, strikes: int, max_strikes: int) -> Message:
    """The ``violation`` message that tells a bot what it did (``kind``, ``detail``) and where it stands."""
    return {
        "type": "violation",
        "kind": kind,
        "detail": detail[:DETAIL_LIMIT],
        "strikes": strikes,
        "max_strikes": max_strikes,
    }


def excerpt(raw: bytes) -> str:
    """The start of a frame as printable text: every byte a bot controls is escaped before it reaches a terminal."""
    return printable(raw[:EXCERPT_LIMIT].decode("utf-8", errors="replace"))
