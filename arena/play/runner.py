"""Plays one game between seats through an interface, whatever is behind it (processes or in-process handlers).

The runner owns the order of messages (what each seat is told and when), the clocks, the legality check of every
answer, and what a violation costs under the match's policy. The referee puts real processes behind ``Seats``; the
local driver puts plain callables there.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypedDict

from arena.engine.actions import Action
from arena.engine.game import Game
from arena.engine.record import GameRecord, ViolationJSON, ViolationKind, game_record
from arena.play import outgoing as messages
from arena.play.clock import Clock, TimeControl
from arena.text import printable

Policy = Literal["forfeit", "substitute"]
Message = dict[str, Any]


# A violation's detail and excerpt are cut to these lengths (a 4,000-digit request id makes no 4,000-character line).
DETAIL_LIMIT = 300
EXCERPT_LIMIT = 200


class Forfeit(TypedDict):
    """Who forfeited the game and why (in the record's ``forfeit`` and the ``game_end`` message)."""

    seat: int
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
class Answer:
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

    def ask(self, seat: int, message: Message, allowed: float) -> Answer:
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
    max_hands: int = 1000,
) -> GameOutcome:
    """Play ``game`` to its end through ``seats`` and return its record."""
    n = game.rules.players
    started, started_at = time.monotonic(), time.time()
    clocks = [Clock(time_control) if time_control else None for _ in range(n)]
    time_json = (time_control or TimeControl(0, 0, 0)).to_json()
    pending: list[list[Message]] = [[] for _ in range(n)]
    violations: list[ViolationJSON] = []
    thinking = [0.0] * n
    decisions = [0] * n
    each: list[list[float]] = [[] for _ in range(n)]  # every decision's seconds, per seat
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
            seats.prepare(seat)
            clock = clocks[seat]
            allowed = clock.allowed() if clock else 3600.0
            request = messages.act_request(
                game,
                seat,
                next(request_ids),
                pending[seat],
                round(allowed * 1000),
                views,
                with_view=seats.wants_view(seat, hand_seen),
            )
            pending[seat] = []
            answer = seats.ask(seat, request, allowed)
            thinking[seat] += answer.elapsed
            decisions[seat] += 1
            each[seat].append(answer.elapsed)
            if clock:
                clock.spend(answer.elapsed)
            action = answer.action
            legal = game.legal_actions()
            if answer.violation is None and action not in legal:
                assert action is not None
                text = json.dumps(action.to_json())
                offences.append((seat, Violation("illegal", f"{text} is not legal now", answer.excerpt or text)))
            elif answer.violation is not None:
                offences.append((seat, answer.violation))
            offences.extend(seats.interrupts())
        for offender, offence in offences:
            out_of_strikes = offence.kind != "disqualified" and seats.penalize(offender, offence, game=game_index)
            violations.append(_violation_json(offence, offender, len(game.hands), time.monotonic() - started))
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
    record["timing"] = {
        "seconds": round(time.monotonic() - started, 4),
        "started_at": round(started_at, 3),
        "ended_at": round(time.time(), 3),
        "thinking": [round(t, 4) for t in thinking],
        "decisions": decisions,
        "decision_ms": [[round(1000 * t, 2) for t in times] for times in each],
    }
    if time_control is not None:
        record["timing"]["clock_left"] = [round(c.bank, 4) if c else 0.0 for c in clocks]
    end = {
        "type": "game_end",
        "game": game_index,
        "final_scores": record["final_scores"],
        "winners": record["winners"],
        "forfeit": None if forfeit is None else forfeit,
        "rubber_points": record["rubber"]["points"] if "rubber" in record else None,
    }
    for seat in range(n):
        if pending[seat]:
            seats.tell(seat, {"type": "events", "events": pending[seat]})
        seats.tell(seat, end)
    return GameOutcome(record, violations)


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
