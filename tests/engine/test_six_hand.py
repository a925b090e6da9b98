"""Six-hand Euchre (six-hand, six-hand-pairs; docs/rules.md section 16): sides, lone hands and their partners sitting
out, the lone maker's call for best, the scoring table and the game's end."""

from __future__ import annotations

import random
from typing import Any

import pytest
from helpers import make_hand

from arena.engine.actions import CallForBest, parse_action
from arena.engine.cards import Card
from arena.engine.game import Game
from arena.engine.hand import HandState, Phase
from arena.engine.options import make_rules
from arena.engine.scoring import six_hand_points
from arena.engine.view import hand_view
from arena.errors import IllegalActionError, OptionsError

# Dealer 0, eldest 1; the kitty is JC.
DEAL = ("7C 8C 9C TC QC", "JH JD AH KH QH", "AS KS QS JS TS", "AD KD QD TD 9D", "AC KC 7H 8H 9H", "9S 8S 7S 7D 8D")
UPCARD = "TH"


def do(hand: HandState, script: str) -> None:
    """Apply ``SEAT TYPE [CARD]`` steps, comma-separated (``1 pass``, ``1 order_up``, ``0 discard 7C``)."""
    for step in script.split(","):
        seat, kind, *card = step.split()
        hand.apply(parse_action({"type": kind, **({"card": card[0]} if card else {})}), int(seat))


def phase(hand: HandState) -> Phase:
    return hand.phase


def view(hand: HandState, seat: int) -> dict[str, Any]:
    return dict(hand_view(hand, seat, hand_number=0, scores=(0,) * 6).to_json())


def call(hand: Any, seat: int, data: dict[str, Any]) -> None:
    hand.apply(parse_action({"type": "call_for_best", **data}), seat)


def give(hand: Any, seat: int, card: str) -> None:
    hand.apply(parse_action({"type": "give_best", "card": card}), seat)


@pytest.mark.parametrize(
    ("variant", "sides", "of"),
    [("six-hand", 2, [0, 1, 0, 1, 0, 1]), ("six-hand-pairs", 3, [0, 1, 2, 0, 1, 2])],
)
def test_the_sides(variant: str, sides: int, of: list[int]) -> None:
    rules = make_rules(variant)
    assert rules.players == 6 and rules.options.deck == 32 and rules.sides == sides
    assert [rules.side_of(s) for s in range(6)] == of


def test_a_lone_makers_two_partners_sit_out_and_eldest_leads() -> None:
    hand = make_hand("six-hand", DEAL, UPCARD)
    do(hand, "1 order_up")
    assert phase(hand) is Phase.DISCARD  # a plain bid: no one sits out
    lone = make_hand("six-hand", DEAL, UPCARD)
    lone.apply(parse_action({"type": "order_up", "alone": True}), 1)
    assert lone.out == {3, 5}
    do(lone, "0 discard 7C")
    assert phase(lone) is Phase.PLAY and lone.current_seat() == 1
    assert view(lone, 2)["sitting_out"] == [3, 5]
    pairs = make_hand("six-hand-pairs", DEAL, UPCARD)
    pairs.apply(parse_action({"type": "order_up", "alone": True}), 1)
    assert pairs.out == {4}


def test_the_dealers_partner_alone_the_dealer_sits_out_and_may_give_the_upcard() -> None:
    hand = make_hand("six-hand", DEAL, UPCARD, lone_call_for_best="one")
    do(hand, "1 pass")
    hand.apply(parse_action({"type": "order_up", "alone": True}), 2)
    assert hand.out == {0, 4} and hand.upcard_taken is False  # no exchange
    assert phase(hand) is Phase.CALL_BEST and hand.current_seat() == 2
    legal = hand.legal_actions()
    assert legal[0] == parse_action({"type": "pass"}) and len(legal) == 1 + 2 * 5
    assert [a.partner for a in legal[1:] if isinstance(a, CallForBest)][::5] == [4, 0]  # nearer his left first
    call(hand, 2, {"card": "TS", "partner": 0})
    assert phase(hand) is Phase.GIVE_BEST and hand.current_seat() == 0
    assert "TH" in {str(a.card) for a in hand.legal_actions() if hasattr(a, "card")}
    give(hand, 0, "TH")
    assert phase(hand) is Phase.PLAY and hand.current_seat() == 1
    assert sorted(map(str, hand.hands[2])) == sorted(["AS", "KS", "QS", "JS", "TH"])
    # the card passed is the giver's and the receiver's secret; the discard the caller's
    assert view(hand, 2)["best"]["passed"] == [{"giver": 0, "receiver": 2, "card": "TH"}]
    assert view(hand, 1)["best"]["passed"] == [{"giver": 0, "receiver": 2, "card": None}]
    assert view(hand, 2)["best"]["discards"] == ["TS"] and view(hand, 4)["best"]["discards"] == []


def test_each_partner_gives_one_card_the_nearer_left_first() -> None:
    hand = make_hand("six-hand", DEAL, UPCARD, lone_call_for_best="each")
    hand.apply(parse_action({"type": "order_up", "alone": True}), 1)  # partners 3 and 5
    do(hand, "0 discard 7C")
    legal = hand.legal_actions()
    assert len(legal) == 1 + 10 and all(len(a.cards) == 2 for a in legal[1:] if isinstance(a, CallForBest))
    with pytest.raises(IllegalActionError):
        call(hand, 1, {"cards": ["QH", "QH"]})
    call(hand, 1, {"cards": ["QH", "KH"]})
    assert hand.current_seat() == 3
    give(hand, 3, "AD")
    assert phase(hand) is Phase.GIVE_BEST and hand.current_seat() == 5
    give(hand, 5, "9S")
    assert phase(hand) is Phase.PLAY and sorted(map(str, hand.hands[1])) == ["9S", "AD", "AH", "JD", "JH"]


def test_each_with_teams_of_two_puts_away_one_card_for_the_one_partner() -> None:
    hand = make_hand("six-hand-pairs", DEAL, UPCARD, lone_call_for_best="each")
    hand.apply(parse_action({"type": "order_up", "alone": True}), 1)
    do(hand, "0 discard 7C")
    assert all(len(a.cards) == 1 for a in hand.legal_actions()[1:] if isinstance(a, CallForBest))
    call(hand, 1, {"cards": ["QH"]})
    assert hand.current_seat() == 4


def test_declining_the_call_is_a_pass() -> None:
    hand = make_hand("six-hand", DEAL, UPCARD, lone_call_for_best="one")
    hand.apply(parse_action({"type": "order_up", "alone": True}), 1)
    do(hand, "0 discard 7C, 1 pass")
    assert phase(hand) is Phase.PLAY and hand.passed == [] and hand.calls == [(1, False)]


def test_no_call_for_best_by_default() -> None:
    hand = make_hand("six-hand", DEAL, UPCARD)
    hand.apply(parse_action({"type": "order_up", "alone": True}), 1)
    do(hand, "0 discard 7C")
    assert phase(hand) is Phase.PLAY and "best" not in view(hand, 1)


@pytest.mark.parametrize(
    ("variant", "options", "won", "alone", "makers", "defenders"),
    [
        ("six-hand", {}, 3, False, 1, 0),
        ("six-hand", {}, 4, True, 1, 0),
        ("six-hand", {}, 5, False, 2, 0),
        ("six-hand", {}, 5, True, 5, 0),
        ("six-hand", {"lone_march_points": 6}, 5, True, 6, 0),
        ("six-hand", {}, 2, True, 0, 2),
        ("six-hand-pairs", {}, 5, True, 4, 0),
        ("six-hand-pairs", {}, 5, False, 2, 0),
        ("six-hand-pairs", {}, 1, False, 0, 2),  # each defending side +2
    ],
)
def test_the_scoring_table(
    variant: str, options: dict[str, Any], won: int, alone: bool, makers: int, defenders: int
) -> None:
    rules = make_rules(variant, options)
    points = six_hand_points(rules, 1, won, alone=alone)
    side = rules.side_of(1)
    assert points == tuple(makers if rules.side_of(s) == side else defenders for s in range(6))


@pytest.mark.parametrize("variant", ["six-hand", "six-hand-pairs"])
def test_games_end_with_one_side_alone_on_top(variant: str) -> None:
    rules = make_rules(variant, {"points_to_win": 3})
    for seed in range(4):
        game, rng = Game(rules, seed), random.Random(seed)
        while not game.is_over():
            game.apply(rng.choice(game.legal_actions()))
        sides = [list(s[: rules.sides]) for s in game.scores_after]
        for scores in sides[:-1]:
            assert max(scores) < 3 or scores.count(max(scores)) > 1
        final = sides[-1]
        top = final.index(max(final))
        assert final.count(max(final)) == 1 and set(game.winners) == {s for s in range(6) if rules.side_of(s) == top}


def test_a_hand_scores_by_the_sides_tricks() -> None:
    hand = make_hand("six-hand-pairs", DEAL, UPCARD)
    do(hand, "1 order_up, 0 discard 7C")
    while not hand.is_over():
        hand.apply(hand.legal_actions()[0])
    assert hand.result is not None
    won = sum(1 for t in hand.tricks if t.winner in (1, 4))
    assert hand.result.points == six_hand_points(hand.rules, 1, won, alone=False)
    assert sum(len(t.cards) for t in hand.tricks) == 30 and Card.parse("JC") in hand.deal.kitty


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ({"lone_call_for_best": "one", "going_alone": False}, "'lone_call_for_best'"),
        ({"call": "ace"}, "'call'"),
        ({"players": 5}, "'players'"),
        ({"deck": 36}, "'deck'"),
        ({"defend_alone": True}, "'defend_alone'"),
        ({"call_for_best": True}, "'call_for_best'"),
    ],
)
def test_incoherent_options_are_refused_naming_the_option(options: dict[str, Any], problem: str) -> None:
    with pytest.raises(OptionsError, match=problem):
        make_rules("six-hand", options)
