"""Nap (docs/rules.md section 15; arena.engine.nap): the engine checked decision by decision against an independent
referee written from the rule book alone (nap_reference.py), under every option and table size; views; game end;
and a test per fine point on a hand-built deal."""

from __future__ import annotations

import random
from typing import Any

import pytest
from helpers import cases, leaked_cards
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.engine.actions import JOKER_LEADS, NAP_BIDS, NAP_CONTRACTS, PASS, PLAY, JokerLead, NapBid, parse_action
from arena.engine.cards import JOKER, Card, Suit, cards, make_deck
from arena.engine.game import Game
from arena.engine.nap import NapDeal, NapHand
from arena.engine.options import Rules, make_rules
from arena.engine.phases import Phase
from arena.engine.record import game_record, replay
from arena.engine.view import hand_view, seat_view
from arena.errors import IllegalActionError, OptionsError

from .nap_reference import NapDeal as ReferenceDeal
from .nap_reference import game_over, nap_pack

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)

options_strategy = st.fixed_dictionaries(
    {
        "players": st.integers(2, 7),
        "deck": st.sampled_from([52, "stripped"]),
        "joker": st.booleans(),
        "min_bid": st.sampled_from([2, 3]),
        "misere": st.booleans(),
        "wellington": st.booleans(),
        "all_pass": st.sampled_from(["redeal", "dealer_must_bid"]),
        "scoring": st.sampled_from(["settlement", "bidder_only"]),
    },
    optional={
        "misere_trumps": st.booleans(),
        "misere_stakes": st.sampled_from(["3/3", "3/6"]),
        "bluecher": st.booleans(),
        "deals_per_player": st.integers(1, 3),
        "target_score": st.integers(0, 30),
    },
).map(
    lambda o: {
        **o,
        "bluecher": o.get("bluecher", False) and o["wellington"],
        "misere_trumps": o.get("misere_trumps", False) and o["misere"],
        "misere_stakes": o.get("misere_stakes", "3/3") if o["misere"] else "3/3",
    }
)


def wire(actions: Any) -> list[dict[str, object]]:
    """Actions as their wire form, sorted, for comparing sets."""
    return sorted((a.to_json() for a in actions), key=repr)


def play_against_reference(rules: Rules, dealer: int, deal: NapDeal, rng: random.Random) -> NapHand:
    """Play one deal with random legal actions on the engine and the reference side by side: the same seat to act
    and the same legal actions at every step, the same contract, trump, trick winners and points at the end."""
    hand = NapHand(rules, dealer, deal)
    reference = ReferenceDeal(rules.players, rules.options.to_json(), dealer, [list(map(str, h)) for h in deal.hands])
    while not hand.is_over():
        assert hand.current_seat() == reference.to_act()
        assert wire(hand.legal_actions()) == sorted(reference.legal(), key=repr), hand.actions
        check_views(hand)
        action = rng.choice(hand.legal_actions())
        seat = hand.current_seat()
        assert seat is not None
        hand.apply(action, seat)
        reference.apply(seat, action.to_json())
    assert reference.over() and hand.result is not None
    assert hand.result.passed_out == reference.passed_out()
    assert hand.maker == reference.declarer()
    assert (None if hand.contract is None else NAP_CONTRACTS[hand.contract]) == reference.contract()
    assert (None if hand.trump is None else str(hand.trump)) == reference.trump()
    assert [t.winner for t in hand.tricks] == reference.trick_winners()
    assert list(hand.result.points) == reference.points()
    return hand


def check_views(hand: NapHand) -> None:
    """No seat's view shows another seat's unplayed cards or the cards nobody was dealt (section 15.8)."""
    played = {str(c) for t in hand.tricks for _, c in t.cards} | {str(c) for _, c in hand.trick}
    for seat in range(hand.players):
        hidden = {str(c) for s, held in enumerate(hand.hands) if s != seat for c in held}
        hidden |= {str(c) for c in hand.deal.kitty}
        view = hand_view(hand, seat, hand_number=0, scores=(0,) * hand.players)
        assert not leaked_cards(view.to_json(), hidden - played)
        assert view.upcard is None and view.auction is None and view.best is None


@SETTINGS
@given(options_strategy, st.integers(0, 2**32 - 1))
def test_the_engine_agrees_with_the_reference_on_every_decision(options: dict[str, Any], seed: int) -> None:
    rules = make_rules("nap", options)
    rng = random.Random(seed)
    dealer = rng.randrange(rules.players)
    for _ in range(3):
        play_against_reference(rules, dealer, NapDeal.shuffled(rules, dealer, rng), rng)
        dealer = (dealer + 1) % rules.players


@SETTINGS
@given(options_strategy, st.integers(0, 2**32 - 1))
def test_a_game_ends_as_the_reference_says_and_replays_from_its_record(options: dict[str, Any], seed: int) -> None:
    """Game end (section 15.7) by the reference's reading, the settlement summing to zero, the pack conserved, and
    the record replaying to the same game."""
    rules = make_rules("nap", options)
    game = Game(rules, seed)
    rng = random.Random(seed)
    totals: list[list[int]] = []
    while not game.is_over() and len(game.hands) < 60:
        hand = game.hand
        assert isinstance(hand, NapHand)
        dealt = [c for h in hand.deal.hands for c in h] + list(hand.deal.kitty)
        assert sorted(map(str, dealt)) == sorted(nap_pack(rules.players, rules.options.to_json()))
        game.apply(rng.choice(game.legal_actions()))
        if len(game.hands) > len(totals):
            totals.append(list(game.scores()))
            assert game.is_over() == game_over(rules.players, rules.options.to_json(), totals)
            points = game.hands[-1].result.points  # type: ignore[union-attr]
            assert sum(points) == 0 or rules.options.scoring == "bidder_only"
    if not game.is_over():
        game.draw()
    else:
        assert game.winners == (max(range(rules.players), key=lambda s: game.scores()[s]),)
    assert game_record(replay(game_record(game))) == game_record(game)


# ---- fine points, on hand-built deals ----


def nap(players: int = 3, **options: Any) -> Rules:
    return make_rules("nap", {"players": players, **options})


def deal(*hands: str) -> NapDeal:
    """A deal of the given hands; the kitty is the rest of the 53-card pack."""
    held = [cards(h) for h in hands]
    dealt = {c for h in held for c in h}
    return NapDeal(tuple(tuple(h) for h in held), tuple(c for c in make_deck(53) if c not in dealt))


def bids(hand: NapHand) -> list[str]:
    return [a.contract if isinstance(a, NapBid) else "pass" for a in hand.legal_actions()]


THREE_HANDS = ("AS KS QS JS TS", "2C 3C 4C 5C 6C", "AH KH QH JH TH")


def test_wellington_is_bid_only_over_nap_and_bluecher_only_over_wellington() -> None:
    hand = NapHand(nap(), 2, deal(*THREE_HANDS))  # eldest: seat 0
    assert bids(hand) == ["pass", "two", "three", "misere", "four", "nap"]
    hand.apply(NAP_BIDS[5])
    assert bids(hand) == ["pass", "wellington"]
    hand.apply(NAP_BIDS[6])
    assert bids(hand) == ["pass", "bluecher"]


def test_the_bidding_ends_at_once_on_the_highest_bid_the_options_allow() -> None:
    hand = NapHand(nap(wellington=False, bluecher=False), 2, deal(*THREE_HANDS))
    hand.apply(NAP_BIDS[5])  # Nap: nothing is higher, so seats 1 and 2 are not asked
    assert hand.phase is Phase.PLAY and hand.current_seat() == 0 and hand.maker == 0


def test_min_bid_three_and_no_misere_leave_them_out_of_the_ladder() -> None:
    hand = NapHand(nap(min_bid=3, misere=False), 2, deal(*THREE_HANDS))
    assert bids(hand) == ["pass", "three", "four", "nap"]


def test_all_pass_redeals_or_makes_the_dealer_bid_one_or_more() -> None:
    passed = NapHand(nap(), 2, deal(*THREE_HANDS))
    for _ in range(3):
        passed.apply(PASS)
    assert passed.result is not None and passed.result.passed_out and passed.result.points == (0, 0, 0)
    forced = NapHand(nap(all_pass="dealer_must_bid"), 2, deal(*THREE_HANDS))
    forced.apply(PASS)
    forced.apply(PASS)
    assert bids(forced) == ["one", "two", "three", "misere", "four", "nap"]  # no pass


def test_the_first_lead_fixes_trump_and_nothing_obliges_a_trump_or_a_higher_card() -> None:
    hand = NapHand(nap(), 2, deal("AS 2D 3D 4D 5D", "KS 2H 3H 4H 5H", "QS 7C 8C 9C TC"))
    hand.apply(NAP_BIDS[2])  # three
    hand.apply(PASS)
    hand.apply(PASS)
    hand.apply(PLAY[Card.parse("2D")])
    assert hand.trump is Suit.D
    assert {str(a.card) for a in hand.legal_actions() if not isinstance(a, NapBid)} == {
        "KS",
        "2H",
        "3H",
        "4H",
        "5H",
    }  # void in diamonds: anything


def test_the_declarers_first_lead_of_the_joker_names_trump_and_followers_follow_it() -> None:
    hand = NapHand(nap(joker=True), 2, deal("JK 2D 3D 4D 5D", "KS 2H 3H 4H 5C", "QS 7C 8C 9C TC"))
    hand.apply(NAP_BIDS[4])
    hand.apply(PASS)
    hand.apply(PASS)
    legal = hand.legal_actions()
    assert PLAY[JOKER] not in legal and set(JOKER_LEADS) <= set(legal)
    hand.apply(JokerLead(Suit.H))
    assert hand.trump is Suit.H
    assert {str(a.to_json()["card"]) for a in hand.legal_actions()} == {"2H", "3H", "4H"}


def test_a_joker_lead_is_refused_as_an_action_without_the_joker() -> None:
    with pytest.raises(Exception, match="only the joker names trump"):
        parse_action({"type": "play", "card": "AS", "trump": "H"})


def test_in_a_no_trump_misere_the_joker_wins_its_trick_and_frees_the_followers_when_led() -> None:
    hand = NapHand(nap(joker=True), 2, deal("JK 2D 3D 4D 5D", "KS 2H 3H 4H 5C", "QS 7C 8C 9C TC"))
    hand.apply(NAP_BIDS[3])  # misere
    hand.apply(PASS)
    hand.apply(PASS)
    assert JOKER_LEADS[0] not in hand.legal_actions()  # no trump to name
    hand.apply(PLAY[JOKER])
    assert hand.trump is None and len(hand.legal_actions()) == 5  # any card
    hand.apply(PLAY[Card.parse("KS")])
    hand.apply(PLAY[Card.parse("7C")])
    assert hand.tricks[0].winner == 0  # the declarer took a trick: his Misere is lost, and play goes on
    assert not hand.is_over()


def test_a_misere_lost_pays_three_or_six_to_each_opponent() -> None:
    for stakes, loss in (("3/3", 3), ("3/6", 6)):
        hand = NapHand(nap(misere_stakes=stakes), 2, deal("AS AD AH AC KS", "2S 2H 3H 4H 5C", "3S 7C 8C 9C TC"))
        hand.apply(NAP_BIDS[3])
        hand.apply(PASS)
        hand.apply(PASS)
        while not hand.is_over():
            hand.apply(hand.legal_actions()[0])
        assert hand.result is not None and hand.result.points == (-2 * loss, loss, loss)


def test_nap_pays_ten_a_head_when_made_and_five_when_lost_and_bidder_only_scores_the_declarer_alone() -> None:
    made = NapHand(nap(), 2, deal("AS KS QS JS TS", "2C 3C 4C 5C 6C", "2H 3H 4H 5H 6H"))
    made.apply(NAP_BIDS[5])
    made.apply(PASS)
    made.apply(PASS)
    while not made.is_over():
        made.apply(made.legal_actions()[0])
    assert made.result is not None and made.result.points == (20, -10, -10)
    lost = NapHand(nap(scoring="bidder_only"), 2, deal("2S KS QS JS TS", "AS 3C 4C 5C 6C", "2H 3H 4H 5H 6H"))
    lost.apply(NAP_BIDS[5])
    lost.apply(PASS)
    lost.apply(PASS)
    while not lost.is_over():
        lost.apply(lost.legal_actions()[0])
    assert lost.result is not None and lost.result.points == (-5, 0, 0)


def test_a_bid_below_the_highest_and_a_seat_out_of_turn_are_refused_with_the_reason() -> None:
    hand = NapHand(nap(), 2, deal(*THREE_HANDS))
    hand.apply(NAP_BIDS[4])
    with pytest.raises(IllegalActionError, match="three is not a bid"):
        hand.apply(NAP_BIDS[2])
    with pytest.raises(IllegalActionError, match="seat 1's turn"):
        hand.apply(PASS, 2)


def test_a_game_lasts_its_deals_and_a_tie_at_the_top_plays_on() -> None:
    rules = nap(2, deals_per_player=1)
    game = Game(rules, 5)
    rng = random.Random(5)
    while len(game.hands) < 2:
        game.apply(rng.choice(game.legal_actions()))
    top = max(game.scores())
    assert game.is_over() == (game.scores().count(top) == 1)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"players": 8}, "'players' must be 2 to 7 in nap"),
        ({"min_bid": 1}, "'min_bid' must be 2 or 3 in Nap"),
        ({"all_pass": "stick_dealer"}, "'all_pass' must be 'redeal' or 'dealer_must_bid'"),
        ({"wellington": False}, "'bluecher' needs 'wellington'"),
        ({"misere": False, "misere_trumps": True}, "'misere_trumps' needs 'misere'"),
        ({"deck": 32}, "'deck' must be 52 or stripped in nap"),
        (
            {"going_alone": True},
            "'going_alone' exists only at tables of four or more|'going_alone' is not a choice in Nap",
        ),
        ({"deals_per_player": 0}, "'deals_per_player' must be at least 1"),
        ({"call": "ace"}, "'call' exists only in call-partner"),
    ],
)
def test_incoherent_nap_options_are_refused_naming_the_option(options: dict[str, Any], message: str) -> None:
    with pytest.raises(OptionsError, match=message):
        make_rules("nap", options)


@pytest.mark.parametrize(("players", "size"), [(2, 24), (3, 24), (4, 28), (5, 32), (6, 32), (7, 36)])
def test_the_stripped_pack_fits_the_table_and_the_joker_adds_one(players: int, size: int) -> None:
    assert nap(players, deck="stripped").deck == size
    assert nap(players, deck="stripped", joker=True).deck == size + 1
    assert nap(players).deck == 52


def test_a_seat_sees_every_bid_the_trump_once_led_and_its_own_cards_only() -> None:
    game = Game(nap(5), cases(3))
    rng = random.Random(1)
    while game.hand.phase is Phase.BID:
        game.apply(rng.choice(game.legal_actions()))
    if game.hand.phase is Phase.PLAY:
        declarer = game.current_seat()
        game.apply(game.legal_actions()[0])
        for seat in range(5):
            view = seat_view(game, seat)
            assert view.players == 5 and view.maker == declarer and view.trump is not None
            assert [b.contract for _, b in view.bids if isinstance(b, NapBid)]  # every bid is public
            assert len(view.hand) == (4 if seat == declarer else 5)
