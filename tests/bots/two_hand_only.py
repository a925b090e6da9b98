"""A bot that says in its hello that it plays two-hand only (random legal actions)."""

from __future__ import annotations

from arena.bots.random_bot import RandomBot
from arena.sdk import run


class TwoHandOnly(RandomBot):
    """Random play, two-hand only."""

    name = "two-hand-only"
    variants = ("two-hand",)


if __name__ == "__main__":
    run(TwoHandOnly())
