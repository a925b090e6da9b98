"""What a seat is told (arena.play.outgoing): the referee's fast paths write exactly what the engine's own wire forms
say, over whole games of every variant."""

from __future__ import annotations

import random

import pytest

from arena.engine.actions import Discard
from arena.engine.game import Game
from arena.engine.options import make_rules
from arena.engine.view import action_json, trick_json
from arena.play import outgoing as messages
from arena.play.incoming import ALL_ACTIONS

VARIANTS = [
    ("two-hand", {"stick_the_dealer": True}),
    ("three-hand", {}),
    ("four-hand", {"defend_alone": True}),
    ("british", {"defend_alone": True}),
]


def test_action_json_is_the_actions_own_wire_form() -> None:
    for action in ALL_ACTIONS:
        assert action_json(action) == action.to_json()


@pytest.mark.parametrize(("variant", "options"), VARIANTS)
def test_requests_offer_the_legal_actions_in_their_wire_form(variant: str, options: dict[str, object]) -> None:
    rng = random.Random(variant)
    game = Game(make_rules(variant, options), 3)
    while not game.is_over():
        seat = game.current_seat()
        assert seat is not None
        request = messages.act_request(game, seat, 9, [], 1000, with_view=False)
        assert request["legal"] == [a.to_json() for a in game.legal_actions()]
        game.apply(rng.choice(game.legal_actions()))


@pytest.mark.parametrize(("variant", "options"), VARIANTS)
def test_the_events_of_an_action_are_appended_to_what_each_seat_has_pending(
    variant: str, options: dict[str, object]
) -> None:
    """``add_action_events`` adds to each seat's list (the runner's pending events), leaving what was there, what
    each seat may learn of the action: its wire form (a discard only to the dealer), the trick it ends, the hand it
    ends."""
    rng = random.Random(variant)
    game = Game(make_rules(variant, options), 5)
    n = game.rules.players
    pending: list[list[messages.Message]] = [[{"type": "earlier"}] for _ in range(n)]
    while not game.is_over():
        seat = game.current_seat()
        assert seat is not None
        action = rng.choice(game.legal_actions())
        hand, number, tricks = game.hand, len(game.hands), len(game.hand.tricks)
        game.apply(action, seat)
        before = [list(events) for events in pending]
        messages.add_action_events(pending, game, hand, number, seat, action, tricks)
        added = [events[len(old) :] for events, old in zip(pending, before, strict=True)]
        assert [events[: len(old)] for events, old in zip(pending, before, strict=True)] == before
        for s, events in enumerate(added):
            first = events[0]
            if isinstance(action, Discard):
                assert first["type"] == "exchange" and first["discard"] == (str(action.card) if s == seat else None)
            else:
                assert first == {"type": "action", "seat": seat, "action": action.to_json()}
            kinds = [e["type"] for e in events]
            assert ("trick" in kinds) == (len(hand.tricks) > tricks)
            if "trick" in kinds:
                assert events[kinds.index("trick")] == {"type": "trick", **trick_json(hand.tricks[-1])}
            assert ("hand_end" in kinds) == hand.is_over()
    assert all(events[0] == {"type": "earlier"} for events in pending)
