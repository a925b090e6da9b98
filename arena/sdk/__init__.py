"""The bot author's kit: subclass :class:`Bot` (or write one ``act(view, legal)`` function) and call :func:`run`.

::

    from arena.sdk import Bot, run

    class First(Bot):
        name = "first"

        def act(self, view, legal):
            return legal[0]

    if __name__ == "__main__":
        run(First())

``view`` is the seat's :class:`~arena.engine.view.SeatView` (Card, Suit and Action values), ``legal`` a tuple of engine
actions (:mod:`arena.engine.actions`); ``act`` returns one of them or its JSON object. ``self.table`` is the
:class:`Table` kept from the events (rules, players, cards played, voids shown, scores), ``self.rng`` a random source
seeded from the view, so a game replays identically.
"""

from __future__ import annotations

from arena.sdk.bot import ActFunction, Answer, Bot, FunctionBot, as_bot, parse_view, view_rng, view_seed
from arena.sdk.loop import run
from arena.sdk.table import Table

__all__ = [
    "ActFunction",
    "Answer",
    "Bot",
    "FunctionBot",
    "Table",
    "as_bot",
    "parse_view",
    "run",
    "view_rng",
    "view_seed",
]
