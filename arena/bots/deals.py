"""Sampled deals for the playouts of the bundled search bot at the tables its solver does not cover (Nap, and
call-partner and six-hand Euchre): every other seat dealt, from the cards this seat has not seen, as many as it
still holds, away from the suits it has shown void in."""

from __future__ import annotations

import random

from arena.engine.cards import EFFECTIVE_SUIT, JOKER_ID, make_deck, plain_suit
from arena.engine.view import SeatView
from arena.sdk import Table

TRIES = 20  # rejection draws of a deal that respects the voids shown, before one that need not


def sample_hands(view: SeatView, table: Table, rng: random.Random) -> list[list[int]]:
    """The cards each seat may hold now: this seat's own, the others' drawn from ``Table.outstanding`` (in deck
    order, then shuffled); a seat sitting out holds none, and a dealer known to hold the upcard holds it. Suits are
    Nap's printed ones, or euchre's with bowers."""
    outstanding = table.outstanding()
    n = view.players
    counts = [0 if s in view.sitting_out else 5 - len(table.played.get(s, [])) for s in range(n)]
    known: list[list[int]] = [[] for _ in range(n)]
    holder = table.holds_upcard()
    if holder is not None and holder != view.seat and view.upcard is not None:
        known[holder].append(int(view.upcard))
        outstanding.discard(view.upcard)
    unseen = [c for c in make_deck(table.rules.deck) if c in outstanding]
    trump = None if view.trump is None else int(view.trump)
    if table.rules.game == "nap":
        suit_of: tuple[int | None, ...] = tuple(plain_suit(c, trump) for c in range(JOKER_ID + 1))
    else:
        suit_of = EFFECTIVE_SUIT[trump or 0]
    hands: list[list[int]] = []
    for _ in range(TRIES):
        rng.shuffle(unseen)
        rest = iter(unseen)
        hands = [
            list(view.hand) if s == view.seat else known[s] + [next(rest) for _ in range(counts[s] - len(known[s]))]
            for s in range(n)
        ]
        voids = table.voids
        if all(not any(suit_of[c] in voids.get(s, ()) for c in hands[s]) for s in range(n) if s != view.seat):
            break
    return hands
