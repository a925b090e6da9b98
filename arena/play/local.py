"""Plays games in-process, with bots as plain message handlers: the same messages as the referee, no processes."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import orjson

from arena.engine.game import Game
from arena.engine.options import make_rules
from arena.engine.record import GameRecord
from arena.play.incoming import MessageError, Reply, canonical_reply, read_bot_message
from arena.play.runner import Message, Response, Violation, play

Handler = Callable[[Message], Message | None]


class LocalSeats:
    """Seats whose bots are callables taking one referee message and returning the reply (or None)."""

    def __init__(self, handlers: Sequence[Handler], *, views: bool | Sequence[bool] = True) -> None:
        self.handlers = list(handlers)
        self.strikes = [0] * len(handlers)
        self.views = [views] * len(handlers) if isinstance(views, bool) else list(views)
        self._viewed: list[int] = [-1] * len(handlers)

    def prepare(self, seat: int) -> None:
        """Nothing to get ready: a handler is always there."""

    def tell(self, seat: int, message: Message) -> None:
        """Hand the message to the seat's handler."""
        self.handlers[seat](message)

    def ask(self, seat: int, message: Message, allowed: float) -> Response:
        """Call the handler and validate its reply as the referee would."""
        start = time.perf_counter()
        reply = self.handlers[seat](message)
        elapsed = time.perf_counter() - start
        raw = orjson.dumps(reply)
        # Read as the referee reads a frame (Ask.frame): the canonical form without a parse (the SDK's replies
        # are in it), then the plain form, then the validator, which is loaded only for a reply in neither.
        action = canonical_reply(raw, message["request_id"])
        if action is not None:
            return Response(action, None, elapsed)
        try:
            parsed = read_bot_message(raw)
        except MessageError as exc:
            return Response(None, Violation(exc.kind, exc.detail, repr(reply)[:200]), elapsed)
        if not isinstance(parsed, Reply) or parsed.request_id != message["request_id"]:
            return Response(None, Violation("out_of_turn", "not an answer to this request", repr(reply)[:200]), elapsed)
        return Response(parsed.action, None, elapsed)

    def penalize(self, seat: int, violation: Violation, *, game: int) -> bool:
        """Count a strike; in-process bots are never disqualified."""
        self.strikes[seat] += 1
        return False

    def disqualified(self, seat: int) -> bool:
        """In-process bots are never disqualified."""
        return False

    def interrupts(self) -> list[tuple[int, Violation]]:
        """In-process bots speak only when asked."""
        return []

    def wants_view(self, seat: int, hand_number: int) -> bool:
        """Always, or at the first request of each hand for a handler that keeps its own picture."""
        if self.views[seat]:
            return True
        first, self._viewed[seat] = self._viewed[seat] != hand_number, hand_number
        return first


def play_game(
    handlers: Sequence[Handler],
    variant: str,
    options: dict[str, Any] | None = None,
    seed: int = 0,
    players: Sequence[str] | None = None,
    *,
    views: bool | Sequence[bool] = True,
) -> GameRecord:
    """Play one game with the handlers by seat and return its record (with violations and timing).

    ``views`` says, per seat or for all, whether every request carries the full view (as a bot's hello asks).
    """
    game = Game(make_rules(variant, options), seed, players)
    seats = LocalSeats(handlers, views=views)
    return play(game, seats, game_index=0, time_control=None, policy="forfeit").record
