"""What a seat is told in call-partner and six-hand Euchre (arena.play.outgoing): the partner shown to every seat
when he plays a called card and not before, the dealer's exchange kept his, the hand's partners at its end, and the
referee's incremental view equal to the SeatView's over whole games."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.engine.actions import CallPartner
from arena.engine.game import Game
from arena.engine.options import make_rules
from arena.engine.view import seat_view
from arena.play import outgoing as messages

GAMES: list[tuple[str, dict[str, Any]]] = [
    ("five-hand", {}),
    ("five-hand", {"players": 7, "called_cards": 2}),
    ("call-ace", {"players": 6}),
    ("seven-hand", {"deck": 37}),
    ("six-hand", {"lone_call_for_best": "each"}),
    ("six-hand-pairs", {"lone_call_for_best": "one"}),
]


def events_of_a_game(variant: str, options: dict[str, Any], seed: int) -> tuple[Game, list[list[dict[str, Any]]]]:
    """A random game and every event each seat was told, checking at each step that the referee's incremental view
    is the SeatView's."""
    rng = random.Random(seed)
    game = Game(make_rules(variant, options), seed)
    n = game.rules.players
    pending: list[list[dict[str, Any]]] = [[] for _ in range(n)]
    cache = messages.ViewCache()
    while not game.is_over():
        for seat in range(n):
            assert cache.view(game, seat) == seat_view(game, seat).to_json()
        seat = game.current_seat()
        assert seat is not None
        action = rng.choice(game.legal_actions())
        hand, number, tricks = game.hand, len(game.hands), len(game.hand.tricks)
        game.apply(action, seat)
        messages.add_action_events(pending, game, hand, number, seat, action, tricks)
    return game, pending


@pytest.mark.parametrize(("variant", "options"), GAMES)
def test_the_incremental_view_is_the_seat_view(variant: str, options: dict[str, Any]) -> None:
    events_of_a_game(variant, options, 1)


@pytest.mark.parametrize(("variant", "options"), GAMES[:4])
def test_a_partner_is_shown_to_every_seat_when_he_plays_a_called_card(variant: str, options: dict[str, Any]) -> None:
    for seed in range(3):
        _, pending = events_of_a_game(variant, options, seed)
        told = pending[0]
        called: tuple[Any, ...] = ()
        shown: list[tuple[int, str]] = []
        for i, event in enumerate(told):
            if event["type"] == "action" and event["action"]["type"] == "call_partner":
                called = tuple(event["action"]["cards"])
            if event["type"] == "action" and event["action"]["type"] == "play" and event["action"]["card"] in called:
                assert told[i + 1] == {
                    "type": "partner_revealed",
                    "seat": event["seat"],
                    "card": event["action"]["card"],
                }
                shown.append((event["seat"], event["action"]["card"]))
            if event["type"] == "partner_revealed":
                assert (event["seat"], event["card"]) in shown
            if event["type"] == "hand_end":  # (the hand_start events are the referee's, not made here)
                assert event["passed_out"] or event["partners"] == sorted({s for s, _ in shown})
                called, shown = (), []
        for events in pending:  # every seat is told the same reveals at the same moments
            assert [e for e in events if e["type"] == "partner_revealed"] == [
                e for e in told if e["type"] == "partner_revealed"
            ]


def test_the_dealers_exchange_is_his_secret_in_call_partner_alone() -> None:
    for variant, took in (("five-hand", None), ("six-hand", True)):
        game, pending = events_of_a_game(variant, {}, 2)
        n = game.rules.players
        exchanges = [[e for e in pending[s] if e["type"] == "exchange"] for s in range(n)]
        assert exchanges[0]
        for index, dealer_event in enumerate(exchanges[0]):
            dealer = dealer_event["seat"]
            for seat in range(n):
                event = exchanges[seat][index]
                assert (event["discard"] is None) == (seat != dealer)
                if seat != dealer and took is None:
                    assert event["took_upcard"] is None
                else:
                    assert isinstance(event["took_upcard"], bool)


def test_the_old_variants_are_told_no_new_field() -> None:
    four = Game(make_rules("four-hand"), 3)
    rng = random.Random(3)
    told: list[list[dict[str, Any]]] = [[] for _ in range(4)]
    while not four.is_over():
        seat = four.current_seat()
        assert seat is not None
        assert "partner_call" not in seat_view(four, seat).to_json()
        action = rng.choice(four.legal_actions())
        hand, number, tricks = four.hand, len(four.hands), len(four.hand.tricks)
        four.apply(action, seat)
        messages.add_action_events(told, four, hand, number, seat, action, tricks)
        assert not isinstance(action, CallPartner)
    ends = [e for e in told[0] if e["type"] == "hand_end"]
    assert ends and all("partners" not in e for e in ends)
    assert all(e["type"] != "partner_revealed" for e in told[0])
    assert all(isinstance(e["took_upcard"], bool) for events in told for e in events if e["type"] == "exchange")
