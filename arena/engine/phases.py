"""The phases of a hand, its finished tricks and its calls for best: the values of the hand's state that a seat's
view holds too.

They live apart from :mod:`arena.engine.hand` (which re-exports them) so that a bot, which reads views but never
runs a hand, starts without loading the rules engine.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, NamedTuple

from arena.engine.cards import Card

SEAT = "seat"
SeatNumber = Annotated[int, SEAT]
"""A seat's number (0 is the first seat): an int that the wire model checks against the table's size."""


class Phase(StrEnum):
    """Where a hand stands; each decision phase names the kind of action it asks for."""

    BID1 = "bid1"
    NAME_TRUMP = "name_trump"
    DISCARD = "discard"
    BID2 = "bid2"
    DEFEND = "defend"
    CALL_BEST = "call_best"  # a lone player (or lone defender) may call for his partner's best card
    GIVE_BEST = "give_best"  # his partner passes him a card
    BEST_DISCARD = "best_discard"  # he discards one of six (best_order = "receive_first")
    BID = "bid"  # Hasenpfeffer's auction (arena.engine.hasenpfeffer)
    DECLARE = "declare"  # Hasenpfeffer: the high bidder, holding the widow, names trump and discards
    PLAY = "play"
    DONE = "done"
    CALL_PARTNER = "call_partner"  # call-partner Euchre: the maker calls his partner's card(s), or goes alone


class Trick(NamedTuple):
    """A finished trick: who led, the cards in the order played, and who won it."""

    leader: int
    cards: tuple[tuple[int, Card], ...]
    winner: int


class BestCall(NamedTuple):
    """A lone player's (or lone defender's) answer on calling for his partner's best card: public."""

    seat: SeatNumber
    called: bool


class BestView(NamedTuple):
    """What a seat knows of the calls for best of a hand (Railroad): whose call is under way, every answer on
    calling (public), every card passed (the card only to giver and receiver), its own discards for a call."""

    caller: SeatNumber | None
    calls: tuple[BestCall, ...]
    passed: tuple[PassedCard, ...]
    discards: tuple[Card, ...]


class AuctionView(NamedTuple):
    """What a seat knows of a Hasenpfeffer auction's outcome: the contract (the high bid, once the auction is
    over), whether it was the joker holder's forced bid, whether the joker was the widow (the hand thrown in), and
    the widow card, to the bidder who took it (None to everyone else)."""

    contract: int | None
    forced: bool
    widow_joker: bool
    widow: Card | None


class PassedCard(NamedTuple):
    """A card passed on a call for best: who gave it to whom, and the card only where the seat may know it (the
    giver's and the receiver's views), else None."""

    giver: SeatNumber
    receiver: SeatNumber
    card: Card | None


class PartnerCallView(NamedTuple):
    """What a seat knows of the maker's call in call-partner Euchre: the cards called (public; none before the call
    or when he went alone), the seats that have shown themselves his partners by playing a called card (public, in
    the order shown), and whether this seat holds a called card (in its own view alone; it stays true once played)."""

    cards: tuple[Card, ...]
    revealed: tuple[SeatNumber, ...]
    partner: bool
