"""Cards, suits and decks, and how a card ranks once a trump suit is known.

A card is a small int: ``rank_index * 4 + suit`` for the ranks 2 3 4 5 6 7 8 9 T J Q K A and the suits C D H S, and
52 for the joker (the Benny). The effective suit of a bower or the Benny is computed from the trump suit, never stored.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import IntEnum

from arena.errors import InvalidActionError

SUIT_LETTERS = "CDHS"
RANK_LETTERS = "23456789TJQKA"
JOKER_ID = 52
JACK = RANK_LETTERS.index("J")
ACE = RANK_LETTERS.index("A")


class Suit(IntEnum):
    """A suit; ``str(Suit.H) == "H"``."""

    C = 0
    D = 1
    H = 2
    S = 3

    def __str__(self) -> str:
        return self.name

    @property
    def partner(self) -> Suit:
        """The other suit of the same colour (C/S black, D/H red)."""
        return Suit(3 - self)

    @classmethod
    def parse(cls, text: object) -> Suit:
        """Parse one suit letter: C, D, H or S (anything else, a value that is not text too, raises)."""
        if not isinstance(text, str) or text not in SUIT_LETTERS or len(text) != 1:
            raise InvalidActionError(f"not a suit: {text!r} (expected one of C, D, H, S)")
        return cls(SUIT_LETTERS.index(text))


SUITS: tuple[Suit, ...] = tuple(Suit)  # the suit of an index, without the cost of calling the enum


class Card(int):
    """A playing card; ``str(Card.parse("JH")) == "JH"`` and ``repr`` rebuilds it."""

    __slots__ = ()

    def __new__(cls, value: int) -> Card:
        if not 0 <= value <= JOKER_ID:
            raise InvalidActionError(f"not a card id: {value}")
        return _CARDS[value]

    @classmethod
    def parse(cls, text: object) -> Card:
        """Parse rank-then-suit text such as ``9C``, ``TD``, ``JH`` or ``JK`` (the joker); anything else, a value
        that is not text too, raises."""
        card = _BY_TEXT.get(text) if isinstance(text, str) else None
        if card is None:
            raise InvalidActionError(f"not a card: {text!r} (expected rank 23456789TJQKA then suit CDHS, or JK)")
        return card

    @property
    def is_joker(self) -> bool:
        """Whether this is the Benny."""
        return self == JOKER_ID

    @property
    def suit(self) -> Suit | None:
        """The printed suit (None for the joker)."""
        return None if self == JOKER_ID else Suit(self & 3)

    @property
    def rank(self) -> int:
        """Index of the printed rank in ``23456789TJQKA`` (13 for the joker)."""
        return 13 if self == JOKER_ID else self >> 2

    def __str__(self) -> str:
        return _TEXT[self]

    def __repr__(self) -> str:
        return f"Card.parse({_TEXT[self]!r})"


_CARDS: list[Card] = [int.__new__(Card, i) for i in range(JOKER_ID + 1)]
_TEXT = [RANK_LETTERS[i >> 2] + SUIT_LETTERS[i & 3] for i in range(JOKER_ID)] + ["JK"]
_BY_TEXT = {text: _CARDS[i] for i, text in enumerate(_TEXT)}
JOKER = _CARDS[JOKER_ID]
CARD_TEXT: tuple[str, ...] = tuple(_TEXT)  # text of a card by id, for hot paths
CARD_BY_TEXT: dict[str, Card] = dict(_BY_TEXT)  # the card of a text, for hot paths reading trusted input


DECK_SIZES = (24, 25, 28, 29, 32, 33, 36, 37, 52, 53)
"""The packs by card count: 9 to ace (24), 8 to ace (28), 7 to ace (32), 6 to ace (36), 2 to ace (52), each also with
the joker (the odd count)."""


def _build_deck(size: int) -> tuple[Card, ...]:
    low = ACE + 1 - size // 4  # the lowest rank: 13 ranks in 52 cards, 6 in 24 (and in 25, with the joker)
    deck = [_CARDS[r * 4 + s] for s in range(4) for r in range(low, ACE + 1)]
    return (*deck, JOKER) if size % 2 else tuple(deck)


_DECKS = {size: _build_deck(size) for size in DECK_SIZES}


def card(text: str) -> Card:
    """Shorthand for :meth:`Card.parse`."""
    return Card.parse(text)


def cards(text: str) -> list[Card]:
    """Parse a space-separated list of cards, e.g. ``cards("JH JD AH")``."""
    return [Card.parse(t) for t in text.split()]


def make_deck(size: int) -> list[Card]:
    """The deck of ``size`` cards (one of DECK_SIZES), in a fixed order (suit by suit, low to high, the joker
    last)."""
    return list(_DECKS[size])


# ---- ranking under a trump suit: precomputed tables, indexed [trump][card] ----


def _effective_suit(card_id: int, trump: int) -> int:
    if card_id == JOKER_ID:
        return trump
    suit, rank = card_id & 3, card_id >> 2
    if rank == JACK and suit == 3 - trump:
        return trump
    return suit


def _trump_power(card_id: int, trump: int) -> int:
    """Strength among trumps, higher wins; -1 when the card is not trump."""
    if card_id == JOKER_ID:
        return 100
    suit, rank = card_id & 3, card_id >> 2
    if rank == JACK and suit == trump:
        return 99
    if rank == JACK and suit == 3 - trump:
        return 98
    return 50 + rank if suit == trump else -1


EFFECTIVE_SUIT: tuple[tuple[int, ...], ...] = tuple(
    tuple(_effective_suit(c, t) for c in range(JOKER_ID + 1)) for t in range(4)
)
TRUMP_POWER: tuple[tuple[int, ...], ...] = tuple(
    tuple(_trump_power(c, t) for c in range(JOKER_ID + 1)) for t in range(4)
)


def effective_suit(card: Card | int, trump: Suit | int) -> Suit:
    """The suit a card belongs to once ``trump`` is known (bowers and the Benny are trump)."""
    return Suit(EFFECTIVE_SUIT[trump][card])


def card_power(card: Card | int, trump: Suit | int, led: Suit | int) -> int:
    """How strongly ``card`` competes for a trick led in suit ``led``; -1 when it cannot win it."""
    power = TRUMP_POWER[trump][card]
    if power >= 0:
        return power
    return card >> 2 if EFFECTIVE_SUIT[trump][card] == led else -1


TRICK_POWER: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(card_power(c, t, led) for c in range(JOKER_ID + 1)) for led in range(4)) for t in range(4)
)  # card_power by [trump][led][card], for hot paths


def trick_winner_index(played: Sequence[int], trump: int) -> int:
    """Index in ``played`` (in play order) of the card that wins the trick."""
    eff, power_t = EFFECTIVE_SUIT[trump], TRUMP_POWER[trump]
    led = eff[played[0]]
    best, best_power = 0, -2
    for i, c in enumerate(played):
        p = power_t[c]
        if p < 0:
            p = (c >> 2) if eff[c] == led else -1
        if p > best_power:
            best, best_power = i, p
    return best


# ---- ranking without bowers (Nap): a card's suit is its printed suit, the joker's the trump suit ----


def plain_suit(card: int, trump: int | None) -> int | None:
    """A card's suit where there are no bowers: its printed suit; the joker's is trump (None without trump)."""
    return trump if card == JOKER_ID else card & 3


def plain_power(card: int, trump: int | None, led: int | None) -> int:
    """How strongly ``card`` competes for a trick led in ``led`` where there are no bowers: the joker above all,
    then trumps by rank, then the suit led by rank; -1 when it cannot win."""
    if card == JOKER_ID:
        return 100
    suit = card & 3
    if suit == trump:
        return 50 + (card >> 2)
    return card >> 2 if suit == led else -1


def plain_trick_winner(played: Sequence[tuple[int, int]], trump: int | None) -> int:
    """The seat that wins a trick of (seat, card) pairs where there are no bowers."""
    led = plain_suit(played[0][1], trump)
    return max(played, key=lambda seat_card: plain_power(seat_card[1], trump, led))[0]


def format_cards(items: Iterable[int]) -> str:
    """Cards as space-separated text."""
    return " ".join(_TEXT[c] for c in items)
