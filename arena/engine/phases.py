"""The phases of a hand and its finished tricks: the two values of the hand's state that a seat's view holds too.

They live apart from :mod:`arena.engine.hand` (which re-exports them) so that a bot, which reads views but never
runs a hand, starts without loading the rules engine.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

from arena.engine.cards import Card


class Phase(StrEnum):
    """Where a hand stands; each decision phase names the kind of action it asks for."""

    BID1 = "bid1"
    NAME_TRUMP = "name_trump"
    DISCARD = "discard"
    BID2 = "bid2"
    DEFEND = "defend"
    PLAY = "play"
    DONE = "done"


class Trick(NamedTuple):
    """A finished trick: who led, the cards in the order played, and who won it."""

    leader: int
    cards: tuple[tuple[int, Card], ...]
    winner: int
