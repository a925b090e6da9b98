"""Deals consistent with what one seat knows: the hidden hands a bot can imagine, for sampling-based search.

:class:`Knowledge` reads a :class:`~arena.engine.view.SeatView` into where each unseen card may be: the cards each other
seat still holds (how many, any it is known to hold, the suits it has shown out of) and the rest, which no one will
play (the kitty, the dealer's discard unless you are the dealer). :func:`sample` draws one assignment of the unseen
cards that agrees with all of it.

What a seat knows (docs/rules.md section 10), as used here:

- its own cards and every card played, with who played it;
- a seat that failed to follow the suit led holds no card of that suit; suits are effective suits under trump, so
  the bowers and the Benny count as trump;
- the upcard: in the dealer's hand until he plays it once he took it (always on a Benny upcard), in the kitty when
  it was turned down or declined, or when the dealer sits out;
- its own discard, if it is the dealer; any other seat's discard is an unseen card among the rest;
- a seat sitting out keeps five cards that never play: they are unseen and that seat holds them;
- Railroad's calls for best: its own discards for a call are out of play; a card passed is in the receiver's hand
  (its own, where it received it). A partner who gave a card is still counted as holding five, one of them from the
  rest, since he sits out it changes no play, and nothing marks the passed card as the caller's, where the viewer
  did not see it: an approximation a bot may refine.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

from arena.engine.cards import EFFECTIVE_SUIT, Card, make_deck
from arena.engine.phases import Phase
from arena.engine.view import SeatView


class Sample(NamedTuple):
    """One imagined deal: every seat's cards now (the viewer's own as they are) and the unseen rest, out of play."""

    hands: tuple[tuple[Card, ...], ...]
    rest: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Knowledge:
    """What ``seat`` knows about the place of each card it has not seen.

    ``counts`` is the number of cards each seat holds now; ``known`` the cards a seat is known to hold (the
    viewer's own hand, the upcard in the dealer's hand); ``voids`` the effective suits a seat has shown out of;
    ``unseen`` the cards whose place is unknown, which fill the other seats' hands and the rest.
    """

    seat: int
    trump: int | None
    counts: tuple[int, ...]
    known: tuple[tuple[Card, ...], ...]
    voids: tuple[frozenset[int], ...]
    unseen: tuple[Card, ...]

    @property
    def players(self) -> int:
        """Number of seats."""
        return len(self.counts)

    @property
    def rest_size(self) -> int:
        """How many unseen cards are in no hand."""
        return len(self.unseen) - sum(self.counts[s] - len(self.known[s]) for s in range(self.players))

    @classmethod
    def from_view(cls, view: SeatView, deck: int) -> Knowledge:
        """Read a seat's view of a hand of a ``deck``-card game."""
        n, seat, trump = view.players, view.seat, view.trump
        played: list[list[Card]] = [[] for _ in range(n)]
        voids: list[set[int]] = [set() for _ in range(n)]
        for trick in (*(t.cards for t in view.tricks), view.trick):
            if not trick:
                continue
            assert trump is not None
            eff = EFFECTIVE_SUIT[trump]
            led = eff[trick[0][1]]
            for s, c in trick:
                played[s].append(c)
                if eff[c] != led:
                    voids[s].add(led)
        seen: set[Card] = {c for cards in played for c in cards}
        known: list[tuple[Card, ...]] = [() for _ in range(n)]
        size = 5 if view.upcard is not None else 6  # Hasenpfeffer, which turns up no card, deals six
        counts = [size - len(played[s]) for s in range(n)]
        if view.phase is Phase.DISCARD:
            counts[view.dealer] = 6  # the upcard taken, the discard still to come
        if view.sees_own_cards() or view.hand:
            known[seat] = tuple(view.hand)
            counts[seat] = len(view.hand)
            seen.update(view.hand)
        up, dealer = view.upcard, view.dealer
        if up is not None and up not in seen:
            seen.add(up)  # wherever it is, the upcard is no unseen card
            if _upcard_held(view) and dealer != seat:
                known[dealer] = (*known[dealer], up)
        if view.discarded is not None:
            seen.add(view.discarded)
        if view.best is not None:
            seen.update(view.best.discards)
        unseen = tuple(c for c in make_deck(deck) if c not in seen)
        return cls(seat, trump, tuple(counts), tuple(known), tuple(frozenset(v) for v in voids), unseen)

    def consistent(self, sample: Sample) -> bool:
        """Whether a sample agrees with this knowledge (sizes, known cards, voids, every unseen card placed once)."""
        if len(sample.hands) != self.players:
            return False
        placed = [c for h in sample.hands for c in h] + list(sample.rest)
        expected = list(self.unseen) + [c for h in self.known for c in h]
        if sorted(placed) != sorted(expected):
            return False
        for s, h in enumerate(sample.hands):
            if len(h) != self.counts[s] or not set(self.known[s]) <= set(h):
                return False
            if self.trump is not None and any(EFFECTIVE_SUIT[self.trump][c] in self.voids[s] for c in h):
                return False
        return True


def _upcard_held(view: SeatView) -> bool:
    """Whether the upcard is (or was, until played) in the dealer's hand."""
    if view.upcard_taken is not None:
        return view.upcard_taken
    # In the discard phase the dealer holds six cards, the upcard among them; otherwise it is face up (round 1, or
    # the Benny before trump is named) or turned down.
    return view.phase is Phase.DISCARD


def sample(knowledge: Knowledge, rng: random.Random) -> Sample:
    """One deal of the unseen cards consistent with ``knowledge``, drawn with ``rng``.

    Cards go one by one, in random order, to a place chosen with odds proportional to its free room, among the
    places that may hold it and keep the rest of the deal possible (Hall's condition on the suits shown out of).
    Without voids this is exactly a uniform deal; with them it is close to one.
    """
    k = knowledge
    n = k.players
    eff = EFFECTIVE_SUIT[k.trump] if k.trump is not None else None
    room = [k.counts[s] - len(k.known[s]) for s in range(n)]
    rest = k.rest_size
    if rest < 0 or min(room) < 0:
        raise ValueError("the knowledge is inconsistent: more cards held than unseen")
    hands: list[list[Card]] = [list(k.known[s]) for s in range(n)]
    rest_cards: list[Card] = []
    pool = list(k.unseen)
    rng.shuffle(pool)
    constrained = eff is not None and any(k.voids[s] and room[s] for s in range(n))
    if not constrained and len(pool) == sum(room) + rest:
        # Every place may hold every card: the draw below would be a uniform deal, and so is the shuffled pool cut
        # into the places' room (most samples of a search bot's two-hand game, at a fraction of the cost).
        start = 0
        for s in range(n):
            hands[s] += pool[start : start + room[s]]
            start += room[s]
        return Sample(tuple(tuple(sorted(h)) for h in hands), tuple(sorted(pool[start:])))
    # Only a void constrains the draw from here on; a seat's voids as the mask of the suits it may still hold.
    assert eff is not None
    allowed = [15 & ~sum(1 << v for v in k.voids[s]) for s in range(n)]
    voided = [s for s in range(n) if k.voids[s]]
    left = [0, 0, 0, 0]
    for c in pool:
        left[eff[c]] += 1
    for c in pool:
        suit = eff[c]
        places = [s for s in range(n) if room[s] and allowed[s] >> suit & 1]
        weights = [room[s] for s in places]
        if rest:
            places.append(n)
            weights.append(rest)
        while True:
            if not places:
                raise ValueError("no deal of the unseen cards agrees with this knowledge")
            i = _weighted(rng, weights)
            place = places[i]
            # Would the cards still to deal fit once this one goes there? Tried in place, then undone.
            left[suit] -= 1
            if place < n:
                room[place] -= 1
            fits = _fits(room, left, allowed, voided)
            if place < n:
                room[place] += 1
            if fits:
                break
            left[suit] += 1
            del places[i], weights[i]
        if place == n:
            rest -= 1
            rest_cards.append(c)
        else:
            room[place] -= 1
            hands[place].append(c)
    return Sample(tuple(tuple(sorted(h)) for h in hands), tuple(sorted(rest_cards)))


def samples(knowledge: Knowledge, rng: random.Random, count: int) -> Iterator[Sample]:
    """``count`` independent samples."""
    for _ in range(count):
        yield sample(knowledge, rng)


def _weighted(rng: random.Random, weights: list[int]) -> int:
    r = rng.random() * sum(weights)
    for i, w in enumerate(weights):
        r -= w
        if r < 0:
            return i
    return len(weights) - 1


def _fits(room: list[int], left: list[int], allowed: list[int], voided: list[int]) -> bool:
    """Whether ``left`` cards of each suit can fill the seats' ``room`` (Hall's condition): every group of the seats
    with voids (``voided``) that still take cards needs no more cards than there are of the suits ``allowed`` them
    (a mask of suits by seat); the seats without voids and the rest take any card."""
    seats = [s for s in voided if room[s]]
    for mask in range(1, 1 << len(seats)):
        need = cover = 0
        for i, s in enumerate(seats):
            if mask >> i & 1:
                need += room[s]
                cover |= allowed[s]
        supply = 0
        for x in range(4):
            if cover >> x & 1:
                supply += left[x]
        if need > supply:
            return False
    return True
