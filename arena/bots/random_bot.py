"""A bot that plays a uniformly random legal action, chosen by a hash of its view (no random source to seed).

The same game therefore replays identically: no clock, no os randomness. Runnable as ``python -m arena.bots.random_bot``
under a referee (it reads ARENA_ENDPOINT and ARENA_TOKEN).
"""

from __future__ import annotations

from arena.engine.actions import Action
from arena.engine.view import SeatView
from arena.sdk import Bot, run


class RandomBot(Bot):
    """Uniformly random legal actions."""

    name = "random"
    want_view = False  # its table is picture enough: the referee sends the view once per hand

    def act(self, view: SeatView, legal: tuple[Action, ...]) -> Action:
        """Any legal action, each as likely, chosen by the view's hash (``self.pick``: like ``self.rng``, cheaper)."""
        return self.pick(legal)


if __name__ == "__main__":
    run(RandomBot())
