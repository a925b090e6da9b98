"""What a seat may know (docs/rules.md section 10): the SeatView never holds another seat's hidden cards."""

from __future__ import annotations

import json
import random

import pytest
from helpers import act, cards_in_json, hidden_from, make_deal, make_hand, parse_cards

from arena.engine.actions import Discard, Play
from arena.engine.game import Game
from arena.engine.hand import HandState, Phase
from arena.engine.options import make_rules
from arena.engine.view import SeatView, hand_view, seat_view
from arena.play.outgoing import ViewCache

FOUR = ("9D TD QD KD AD", "TH 9S TS 9C TC", "JH JD AH KH QH", "QS KS AS QC KC")
BENNY_UP = FOUR


def view(hand: HandState, seat: int) -> SeatView:
    """The seat's view of a stand-alone hand."""
    return hand_view(hand, seat, hand_number=0, scores=(0,) * hand.players)


def assert_no_leak(hand: HandState) -> None:
    """No seat's view, as a value or as JSON, holds a card that seat may not know."""
    for seat in range(hand.players):
        v = view(hand, seat)
        hidden = hidden_from(hand, seat)
        shown = {str(c) for c in v.hand} | {str(c) for _, c in v.trick}
        shown |= {str(c) for t in v.tricks for _, c in t.cards} | {str(v.upcard)}
        if v.discarded is not None:
            shown.add(str(v.discarded))
        assert not shown & hidden, (seat, shown & hidden)
        assert not cards_in_json(json.loads(json.dumps(v.to_json()))) & hidden, seat


def test_a_seat_sees_its_own_cards_and_nobody_elses() -> None:
    hand = make_hand("four-hand", FOUR, "9H")
    for seat in range(4):
        assert view(hand, seat).hand == tuple(sorted(parse_cards(FOUR[seat])))
    assert_no_leak(hand)


def test_the_kitty_is_never_shown() -> None:
    hand = make_hand("four-hand", FOUR, "9H")
    act(hand, "1 order, 0 discard 9D")
    kitty = {str(c) for c in hand.deal.kitty}
    assert kitty == {"JC", "AC", "JS"}
    for seat in range(4):
        assert not cards_in_json(view(hand, seat).to_json()) & kitty


def test_the_dealers_discard_is_shown_to_the_dealer_only() -> None:
    hand = make_hand("four-hand", FOUR, "9H")
    act(hand, "1 order, 0 discard AD")
    assert view(hand, 0).discarded is not None and str(view(hand, 0).discarded) == "AD"
    for seat in (1, 2, 3):
        v = view(hand, seat)
        assert v.discarded is None and "AD" not in cards_in_json(v.to_json())
    assert all(not isinstance(a, Discard) for _, a in view(hand, 1).bids)
    assert_no_leak(hand)


def test_who_did_what_with_the_upcard_is_public() -> None:
    hand = make_hand("four-hand", FOUR, "9H")
    act(hand, "1 order, 0 discard AD")
    for seat in range(4):
        v = view(hand, seat)
        assert str(v.upcard) == "9H" and v.upcard_taken is True
        assert v.maker == 1 and str(v.trump) == "H"
    assert "9H" in {str(c) for c in view(hand, 0).hand}
    assert "9H" not in {str(c) for c in view(hand, 1).hand}


def test_the_dealer_sees_no_cards_before_naming_trump_on_the_benny() -> None:
    hand = make_hand("british", BENNY_UP, "JK")
    assert hand.phase is Phase.NAME_TRUMP
    assert view(hand, 0).hand == () and view(hand, 0).to_json()["hand"] == []
    assert len(view(hand, 1).hand) == 5
    act(hand, "0 name C")
    assert len(view(hand, 0).hand) == 6


def test_cards_of_a_seat_sitting_out_are_never_shown() -> None:
    hand = make_hand("four-hand", FOUR, "9H")
    act(hand, "1 pass, 2 order alone")
    out_cards = {str(c) for c in hand.hands[0]}
    rng = random.Random(5)
    while not hand.is_over():
        for seat in (1, 2, 3):
            assert not cards_in_json(view(hand, seat).to_json()) & out_cards
        assert view(hand, 1).sitting_out == (0,)
        hand.apply(rng.choice(hand.legal_actions()))
    assert_no_leak(hand)


def test_bids_and_defend_answers_are_public_and_plays_are_tricks() -> None:
    hand = make_hand("four-hand", FOUR, "9H", defend_alone=True)
    act(hand, "1 pass, 2 order alone, 1 pass, 3 defend, 2 JH")
    v = view(hand, 2)
    assert [(s, a.type) for s, a in v.bids] == [(1, "pass"), (2, "order_up"), (1, "pass"), (3, "defend_alone")]
    assert not any(isinstance(a, Play) for _, a in v.bids)
    assert [(s, str(c)) for s, c in v.trick] == [(2, "JH")]
    assert v.defender_alone == 3 and v.sitting_out == (0, 1)
    assert v.turn == 3


def test_the_order_of_a_seats_cards_does_not_leak_how_they_were_dealt() -> None:
    rules = make_rules("four-hand")
    one = HandState(rules, 0, make_deal(rules, FOUR, "9H"))
    shuffled = list(FOUR)
    shuffled[1] = "TC 9C TS 9S TH"
    two = HandState(rules, 0, make_deal(rules, shuffled, "9H"))
    assert view(one, 1) == view(two, 1)


def test_view_reports_tricks_won_and_scores() -> None:
    game = Game(make_rules("four-hand"), 1)
    rng = random.Random(1)
    while len(game.hands) < 2:
        game.apply(rng.choice(game.legal_actions()))
    v = seat_view(game, 1)
    assert v.hand_number == 2 and v.scores == game.scores() and v.dealer == game.hand.dealer
    last = game.hands[-1]
    finished = hand_view(last, 1, hand_number=1, scores=game.scores())
    assert sum(finished.tricks_won) == len(last.tricks)
    for s in range(4):
        assert finished.tricks_won[s] == sum(1 for t in last.tricks if t.winner == s)


@pytest.mark.parametrize("variant", ["two-hand", "three-hand", "four-hand", "four-hand-32", "british"])
def test_game_views_never_leak_over_a_whole_game(variant: str) -> None:
    rules = make_rules(variant, {"points_to_win": 5})
    game = Game(rules, 17)
    rng = random.Random(17)
    while not game.is_over():
        hand = game.hand
        for seat in range(rules.players):
            v = seat_view(game, seat)
            assert not cards_in_json(v.to_json()) & hidden_from(hand, seat)
            assert v.turn == game.current_seat()
        game.apply(rng.choice(game.legal_actions()))


def test_seat_view_is_frozen() -> None:
    v = view(make_hand("two-hand", FOUR[:2], "9H"), 0)
    with pytest.raises(AttributeError):
        v.hand = ()  # type: ignore[misc]


@pytest.mark.parametrize("variant", ["two-hand", "three-hand", "four-hand", "british"])
def test_the_referees_incremental_view_equals_theseat_view(variant: str) -> None:
    options = {"defend_alone": True} if variant.startswith("four") else {}
    for seed in range(4):
        rng = random.Random(seed)
        game = Game(make_rules(variant, options), seed)
        cache = ViewCache()
        while not game.is_over():
            for seat in range(game.rules.players):
                assert cache.view(game, seat) == seat_view(game, seat).to_json()
            game.apply(rng.choice(game.legal_actions()))
