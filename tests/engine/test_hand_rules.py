"""Hand-written scenarios for every rule of a hand in docs/rules.md (sections 2, 4, 5, 6, 7 and 9)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from helpers import act, action, legal_cards, legal_texts, make_hand, parse_cards, play_random, snapshot

from arena.engine.actions import PASS, Call, OrderUp
from arena.engine.cards import JOKER, Card, Suit
from arena.engine.hand import HandState, Phase
from arena.engine.view import hand_view
from arena.errors import IllegalActionError

# Four-hand deal, dealer 0 (so seat 1 is eldest); upcard 9H, kitty JC AC JS.
# Seat 2 holds the five top hearts; seat 1 a weak hand with one small heart.
FOUR = ("9D TD QD KD AD", "TH 9S TS 9C TC", "JH JD AH KH QH", "QS KS AS QC KC")

# Four-hand deal with clubs trump in view (upcard 9C): seat 2 holds the J of spades *and* a plain spade.
LEFT_AND_SPADE = ("TC QC KC AC TS", "KS QH KH AH 9D", "JS 9S TD JD QD", "AD KD TH 9H JH")
# Seat 1 (eldest) holds the J of spades and leads it; seat 2 holds a plain spade and no club.
LEFT_LEAD = ("TC QC KC AC TS", "JS KS QH KH AH", "9S TD JD QD 9D", "AD KD TH 9H JH")
# The same but seat 2's only "spade" is the J of spades.
LEFT_ONLY = ("TC QC KC AC TS", "KS QH KH AH 9D", "JS TD JD QD 9H", "AD KD TH 9S JH")

# British deals (25 cards).
BENNY_UP = ("9D TD QD KD AD", "TH 9S TS 9C TC", "JH JD AH KH QH", "QS KS AS QC KC")  # upcard JK
BENNY_HELD = ("JH JD AH KH QH", "JK 9S TS 9C TC", "9D TD QD KD AD", "QS KS AS QC KC")  # dealer 3, upcard 9H
BENNY_LEAD = ("9D TD QD KD AD", "JK 9S TS 9C TC", "JH JD AH KH QH", "QS KS AS QC KC")  # dealer 0, upcard 9H


def phase(hand: HandState) -> Phase:
    """The hand's phase (a call, so that type checkers do not narrow it across actions)."""
    return hand.phase


# ---- following suit: bowers and the Benny ----


def test_left_bower_does_not_follow_a_lead_of_its_printed_suit() -> None:
    hand = make_hand("four-hand", LEFT_AND_SPADE, "9C")
    act(hand, "1 pass, 2 pass, 3 pass, 0 order, 0 discard TS, 1 KS")
    assert hand.trump == Suit.C
    assert legal_cards(hand) == {"9S"}
    with pytest.raises(IllegalActionError):
        act(hand, "2 JS")


def test_left_bower_follows_trump_not_its_printed_suit() -> None:
    hand = make_hand("four-hand", LEFT_AND_SPADE, "9C")
    act(hand, "1 pass, 2 pass, 3 pass, 0 order, 0 discard TS, 1 KS, 2 9S, 3 AD, 0 9C")
    assert hand.tricks[0].winner == 0
    act(hand, "0 AC")
    assert legal_cards(hand) == {"QH", "KH", "AH", "9D"}  # seat 1 holds no club
    act(hand, "1 9D")
    assert legal_cards(hand) == {"JS"}  # a club lead must be followed with the J of spades


def test_holder_of_only_the_left_bower_is_void_in_its_printed_suit_and_the_bower_wins_as_trump() -> None:
    hand = make_hand("four-hand", LEFT_ONLY, "9C")
    act(hand, "1 pass, 2 pass, 3 pass, 0 order, 0 discard QC, 1 KS")
    assert legal_cards(hand) == {"JS", "TD", "JD", "QD", "9H"}
    act(hand, "2 JS, 3 9S, 0 TS")
    assert hand.tricks[0].winner == 2


def test_left_bower_lead_is_a_trump_lead() -> None:
    hand = make_hand("four-hand", LEFT_LEAD, "9C")
    act(hand, "1 pass, 2 pass, 3 pass, 0 order, 0 discard TS, 1 JS")
    assert legal_cards(hand) == {"9S", "TD", "JD", "QD", "9D"}  # seat 2 holds no trump: a spade is no duty
    act(hand, "2 TD, 3 AD")
    assert legal_cards(hand) == {"9C", "TC", "QC", "KC", "AC"}
    act(hand, "0 AC")
    assert hand.tricks[0].winner == 1


def test_left_bower_beats_the_ace_of_trump_in_play() -> None:
    hand = make_hand("four-hand", LEFT_AND_SPADE, "9C")
    act(hand, "1 pass, 2 pass, 3 pass, 0 order, 0 discard TS, 1 KS, 2 9S, 3 AD, 0 9C")
    act(hand, "0 AC, 1 9D, 2 JS, 3 KD")
    assert hand.tricks[1].winner == 2  # the left bower beats the ace of trump


def test_benny_must_follow_a_trump_lead_and_beats_the_right_bower() -> None:
    hand = make_hand("british", BENNY_HELD, "9H", dealer=3)
    act(hand, "0 order, 3 discard QC, 0 JH")
    assert legal_cards(hand) == {"JK"}
    act(hand, "1 JK, 2 AD")
    assert legal_cards(hand) == {"9H"}
    act(hand, "3 9H")
    assert hand.tricks[0].winner == 1


def test_benny_lead_is_a_trump_lead_followed_with_trump_including_the_left_bower() -> None:
    hand = make_hand("british", BENNY_LEAD, "9H")
    act(hand, "1 order, 0 discard 9D, 1 JK")
    assert legal_cards(hand) == {"JH", "JD", "AH", "KH", "QH"}
    act(hand, "2 JD")
    assert legal_cards(hand) == {"QS", "KS", "AS", "QC", "KC"}  # seat 3 holds no trump
    act(hand, "3 QS")
    assert legal_cards(hand) == {"9H"}  # the dealer's only trump is the upcard he took
    act(hand, "0 9H")
    assert hand.tricks[0].winner == 1


# ---- the Benny turned up ----


def test_benny_turned_up_dealer_names_trump_without_bidding() -> None:
    hand = make_hand("british", BENNY_UP, "JK")
    assert phase(hand) is Phase.NAME_TRUMP
    assert hand.current_seat() == 0
    assert legal_texts(hand) == ["name_trump C", "name_trump D", "name_trump H", "name_trump S"]
    for refused in (PASS, OrderUp(False), OrderUp(True), Call(Suit.H, False)):
        with pytest.raises(IllegalActionError):
            hand.apply(refused, 0)


def test_benny_turned_up_dealer_sees_no_cards_before_naming_trump() -> None:
    hand = make_hand("british", BENNY_UP, "JK")
    assert hand_view(hand, 0, hand_number=0, scores=(0, 0, 0, 0)).hand == ()
    assert hand_view(hand, 1, hand_number=0, scores=(0, 0, 0, 0)).hand == tuple(sorted(parse_cards(FOUR[1])))
    act(hand, "0 name S")
    seen = hand_view(hand, 0, hand_number=0, scores=(0, 0, 0, 0)).hand
    assert sorted(map(str, seen)) == sorted(["9D", "TD", "QD", "KD", "AD", "JK"])


@pytest.mark.parametrize("exchange", ["optional", "mandatory"])
def test_benny_turned_up_dealer_keeps_the_benny_and_discards_one_of_his_five(exchange: str) -> None:
    hand = make_hand("british", BENNY_UP, "JK", dealer_exchange=exchange)
    act(hand, "0 name D")
    assert hand.maker == 0 and hand.trump == Suit.D and not hand.alone
    assert phase(hand) is Phase.DISCARD and hand.current_seat() == 0
    assert legal_cards(hand) == {"9D", "TD", "QD", "KD", "AD"}
    with pytest.raises(IllegalActionError):
        act(hand, "0 discard JK")
    act(hand, "0 discard 9D")
    assert JOKER in hand.hands[0] and Card.parse("9D") not in hand.hands[0]
    assert hand.discarded == Card.parse("9D") and hand.upcard_taken is True
    assert phase(hand) is Phase.PLAY and hand.current_seat() == 1


def test_benny_turned_up_dealer_may_name_the_suit_of_any_colour() -> None:
    for suit in "CDHS":
        hand = make_hand("british", BENNY_UP, "JK")
        act(hand, f"0 name {suit}")
        assert hand.trump == Suit.parse(suit) and hand.maker == 0


def test_benny_turned_up_opens_no_lone_hand_even_with_defend_alone() -> None:
    hand = make_hand("british", BENNY_UP, "JK", defend_alone=True)
    act(hand, "0 name H, 0 discard 9D")
    assert phase(hand) is Phase.PLAY and not hand.alone and hand.out == set()


# ---- bidding: round 1, the exchange, round 2 ----


def test_bidding_starts_with_eldest_and_ends_with_the_dealer() -> None:
    hand = make_hand("four-hand", FOUR, "9H", dealer=2)
    order = []
    while phase(hand) is Phase.BID1:
        order.append(hand.current_seat())
        hand.apply(PASS)
    assert order == [3, 0, 1, 2]
    assert phase(hand) is Phase.BID2 and hand.current_seat() == 3


def test_order_up_makes_the_upcard_suit_trump_and_ends_bidding() -> None:
    hand = make_hand("four-hand", FOUR, "9H")
    act(hand, "1 pass, 2 order")
    assert hand.maker == 2 and hand.trump == Suit.H and not hand.alone
    assert phase(hand) is Phase.DISCARD and hand.current_seat() == 0


def test_optional_exchange_offers_all_six_cards_and_no_pass() -> None:
    hand = make_hand("four-hand", FOUR, "9H")
    act(hand, "1 order")
    assert legal_cards(hand) == {"9D", "TD", "QD", "KD", "AD", "9H"}
    assert PASS not in hand.legal_actions()
    with pytest.raises(IllegalActionError):
        hand.apply(PASS, 0)


def test_optional_exchange_dealer_declines_by_discarding_the_upcard() -> None:
    hand = make_hand("four-hand", FOUR, "9H")
    act(hand, "1 order, 0 discard 9H")
    assert hand.upcard_taken is False and hand.discarded == Card.parse("9H")
    assert sorted(hand.hands[0]) == sorted(parse_cards(FOUR[0]))
    assert phase(hand) is Phase.PLAY and hand.current_seat() == 1


def test_optional_exchange_dealer_takes_the_upcard_and_discards_another_card() -> None:
    hand = make_hand("four-hand", FOUR, "9H")
    act(hand, "1 order, 0 discard AD")
    assert hand.upcard_taken is True and hand.discarded == Card.parse("AD")
    assert sorted(map(str, hand.hands[0])) == sorted(["9D", "TD", "QD", "KD", "9H"])


def test_mandatory_exchange_dealer_may_not_discard_the_upcard() -> None:
    hand = make_hand("four-hand", FOUR, "9H", dealer_exchange="mandatory")
    act(hand, "1 order")
    assert legal_cards(hand) == {"9D", "TD", "QD", "KD", "AD"}
    before = snapshot(hand)
    with pytest.raises(IllegalActionError):
        act(hand, "0 discard 9H")
    assert snapshot(hand) == before
    act(hand, "0 discard 9D")
    assert Card.parse("9H") in hand.hands[0] and hand.upcard_taken is True


def test_dealer_who_makes_trump_himself_must_take_the_upcard_under_optional_exchange() -> None:
    hand = make_hand("four-hand", FOUR, "9H", dealer_exchange="optional")
    act(hand, "1 pass, 2 pass, 3 pass, 0 order")
    assert hand.maker == 0
    assert legal_cards(hand) == {"9D", "TD", "QD", "KD", "AD"}
    with pytest.raises(IllegalActionError):
        act(hand, "0 discard 9H")


def test_round_two_turned_down_suit_cannot_be_called() -> None:
    hand = make_hand("four-hand", FOUR, "9H")
    act(hand, "1 pass, 2 pass, 3 pass, 0 pass")
    assert phase(hand) is Phase.BID2 and hand.current_seat() == 1
    called = {str(a.suit) for a in hand.legal_actions() if isinstance(a, Call)}
    assert called == {"C", "D", "S"}
    before = snapshot(hand)
    for alone in (False, True):
        with pytest.raises(IllegalActionError, match="turned down"):
            hand.apply(Call(Suit.H, alone), 1)
    assert snapshot(hand) == before


def test_round_two_call_has_no_exchange_and_eldest_leads() -> None:
    hand = make_hand("four-hand", FOUR, "9H")
    act(hand, "1 pass, 2 pass, 3 pass, 0 pass, 1 pass, 2 call S")
    assert hand.maker == 2 and hand.trump == Suit.S
    assert phase(hand) is Phase.PLAY and hand.current_seat() == 1
    assert hand.upcard_taken is None and hand.discarded is None
    assert all(Card.parse("9H") not in h for h in hand.hands)


@pytest.mark.parametrize("variant", ["two-hand", "three-hand", "four-hand"])
def test_all_pass_twice_passes_the_hand_out_with_no_score(variant: str) -> None:
    hands = {"two-hand": FOUR[:2], "three-hand": FOUR[:3], "four-hand": FOUR}[variant]
    hand = make_hand(variant, hands, "9H")
    for _ in range(2 * hand.players):
        assert PASS in hand.legal_actions()
        hand.apply(PASS)
    assert hand.is_over() and hand.current_seat() is None and hand.legal_actions() == ()
    assert hand.result is not None
    assert hand.result.passed_out and hand.result.maker is None and hand.result.trump is None
    assert hand.result.tricks == () and hand.result.points == (0,) * hand.players


@pytest.mark.parametrize("variant", ["two-hand", "three-hand", "four-hand"])
def test_stick_the_dealer_forbids_the_dealer_to_pass_in_round_two(variant: str) -> None:
    hands = {"two-hand": FOUR[:2], "three-hand": FOUR[:3], "four-hand": FOUR}[variant]
    hand = make_hand(variant, hands, "9H", stick_the_dealer=True)
    for _ in range(2 * hand.players - 1):
        hand.apply(PASS)
    assert hand.current_seat() == 0 and phase(hand) is Phase.BID2
    assert PASS not in hand.legal_actions()
    assert {str(a.suit) for a in hand.legal_actions() if isinstance(a, Call)} == {"C", "D", "S"}
    before = snapshot(hand)
    with pytest.raises(IllegalActionError):
        hand.apply(PASS, 0)
    assert snapshot(hand) == before
    act(hand, "0 call C")
    assert hand.maker == 0 and hand.trump == Suit.C and phase(hand) is Phase.PLAY


def test_stick_the_dealer_leaves_the_other_seats_free_to_pass() -> None:
    hand = make_hand("four-hand", FOUR, "9H", stick_the_dealer=True)
    act(hand, "1 pass, 2 pass, 3 pass, 0 pass")
    for seat in (1, 2, 3):
        assert PASS in hand.legal_actions()
        hand.apply(PASS, seat)


# ---- going alone ----


def test_lone_maker_partner_sits_out_and_tricks_have_three_cards() -> None:
    hand = make_hand("four-hand", FOUR, "9H")
    act(hand, "1 order alone")
    assert hand.alone and hand.out == {3}
    act(hand, "0 discard 9D")
    assert hand.current_seat() == 1
    play_random(hand, random.Random(7))
    assert len(hand.tricks) == 5
    assert all(len(t.cards) == 3 and 3 not in [s for s, _ in t.cards] for t in hand.tricks)
    assert len(hand.hands[3]) == 5  # the partner's cards were put away unplayed


def test_eldest_sitting_out_means_the_next_active_player_leads() -> None:
    hand = make_hand("four-hand", FOUR, "9H")
    act(hand, "1 pass, 2 pass, 3 order alone")
    assert hand.out == {1}
    act(hand, "0 discard 9D")
    assert phase(hand) is Phase.PLAY and hand.current_seat() == 2
    assert hand.leader == 2


def test_eldest_sitting_out_after_a_round_two_lone_call_means_the_next_active_player_leads() -> None:
    hand = make_hand("four-hand", FOUR, "9H", dealer=3)
    act(hand, "0 pass, 1 pass, 2 pass, 3 pass, 0 pass, 1 pass, 2 call S alone")
    assert hand.out == {0} and hand.current_seat() == 1


def test_dealer_partner_going_alone_means_no_exchange() -> None:
    hand = make_hand("four-hand", FOUR, "9H")
    act(hand, "1 pass, 2 order alone")
    assert hand.out == {0}
    assert phase(hand) is Phase.PLAY and hand.current_seat() == 1
    assert hand.upcard_taken is False and hand.discarded is None
    assert sorted(hand.hands[0]) == sorted(parse_cards(FOUR[0]))
    assert all(Card.parse("9H") not in h for h in hand.hands)


def test_dealer_going_alone_takes_the_upcard_and_his_partner_sits_out() -> None:
    hand = make_hand("four-hand", FOUR, "9H")
    act(hand, "1 pass, 2 pass, 3 pass, 0 order alone")
    assert hand.out == {2} and phase(hand) is Phase.DISCARD
    assert "discard 9H" not in legal_texts(hand)


@pytest.mark.parametrize("variant", ["two-hand", "three-hand"])
def test_going_alone_is_illegal_in_two_and_three_hand(variant: str) -> None:
    hand = make_hand(variant, FOUR[: 2 if variant == "two-hand" else 3], "9H")
    assert hand.legal_actions() == (PASS, OrderUp(False))
    before = snapshot(hand)
    with pytest.raises(IllegalActionError, match="alone"):
        hand.apply(OrderUp(True))
    assert snapshot(hand) == before
    for _ in range(hand.players):
        hand.apply(PASS)
    assert not any(a.alone for a in hand.legal_actions() if isinstance(a, Call))
    with pytest.raises(IllegalActionError):
        hand.apply(Call(Suit.S, True))


def test_going_alone_is_illegal_when_the_option_is_off() -> None:
    hand = make_hand("four-hand", FOUR, "9H", going_alone=False)
    assert OrderUp(True) not in hand.legal_actions()
    with pytest.raises(IllegalActionError):
        hand.apply(OrderUp(True))


# ---- defending alone ----


def test_defend_alone_is_asked_after_the_exchange_nearest_the_dealers_left_first() -> None:
    hand = make_hand("four-hand", FOUR, "9H", defend_alone=True)
    act(hand, "1 order alone")
    assert phase(hand) is Phase.DISCARD and hand.current_seat() == 0
    act(hand, "0 discard 9D")
    assert phase(hand) is Phase.DEFEND and hand.current_seat() == 2
    assert legal_texts(hand) == ["pass", "defend_alone"]
    act(hand, "2 pass")
    assert phase(hand) is Phase.DEFEND and hand.current_seat() == 0
    act(hand, "0 defend")
    assert hand.defender_alone == 0 and hand.out == {3, 2}
    assert phase(hand) is Phase.PLAY and hand.current_seat() == 1
    assert hand.actions[-2:] == [(2, PASS), (0, action("defend"))]


def test_once_one_defender_accepts_the_other_is_not_asked() -> None:
    hand = make_hand("four-hand", FOUR, "9H", defend_alone=True)
    act(hand, "1 order alone, 0 discard 9D, 2 defend")
    assert hand.defender_alone == 2 and hand.out == {3, 0}
    assert phase(hand) is Phase.PLAY and hand.current_seat() == 1
    assert [s for s, _ in hand.actions] == [1, 0, 2]  # seat 0 discarded but was never asked to defend
    play_random(hand, random.Random(3))
    assert all(sorted(s for s, _ in t.cards) == [1, 2] for t in hand.tricks)


def test_both_defenders_declining_plays_three_handed_and_both_answers_are_recorded() -> None:
    hand = make_hand("four-hand", FOUR, "9H", defend_alone=True)
    act(hand, "1 pass, 2 order alone")
    assert phase(hand) is Phase.DEFEND and hand.current_seat() == 1  # no exchange: the dealer sits out
    act(hand, "1 pass, 3 pass")
    assert hand.defender_alone is None and hand.out == {0}
    assert phase(hand) is Phase.PLAY and hand.current_seat() == 1
    assert hand.actions[-2:] == [(1, PASS), (3, PASS)]


def test_defenders_of_a_lone_maker_on_the_dealers_right_are_asked_from_the_dealers_left() -> None:
    hand = make_hand("four-hand", FOUR, "9H", defend_alone=True)
    act(hand, "1 pass, 2 pass, 3 order alone, 0 discard 9D")
    assert hand.current_seat() == 2
    act(hand, "2 pass")
    assert hand.current_seat() == 0


def test_lead_passes_over_every_seat_that_sits_out() -> None:
    hand = make_hand("four-hand", FOUR, "9H", dealer=3, defend_alone=True)
    act(hand, "0 pass, 1 pass, 2 pass, 3 order alone, 3 discard QC, 0 pass, 2 defend")
    assert hand.out == {1, 0} and hand.current_seat() == 2 and hand.leader == 2


def test_no_defend_alone_question_without_the_option_or_after_a_partnered_bid() -> None:
    hand = make_hand("four-hand", FOUR, "9H")
    act(hand, "1 order alone, 0 discard 9D")
    assert phase(hand) is Phase.PLAY
    hand = make_hand("four-hand", FOUR, "9H", defend_alone=True)
    act(hand, "1 order, 0 discard 9D")
    assert phase(hand) is Phase.PLAY


# ---- play ----


def test_two_hand_non_dealer_always_leads() -> None:
    for dealer, script in ((0, "1 order, 0 discard 9H"), (1, "0 pass, 1 order, 1 discard TH")):
        hand = make_hand("two-hand", FOUR[:2], "9H", dealer=dealer)
        act(hand, script)
        assert phase(hand) is Phase.PLAY and hand.current_seat() == 1 - dealer


def test_trick_winner_leads_the_next_trick_and_five_tricks_are_played() -> None:
    hand = make_hand("four-hand", FOUR, "9H")
    act(hand, "1 order, 0 discard 9D, 1 9S, 2 JH, 3 QS, 0 TD")
    assert hand.tricks[0].winner == 2 and hand.current_seat() == 2
    play_random(hand, random.Random(1))
    assert len(hand.tricks) == 5
    for previous, trick in zip(hand.tricks, hand.tricks[1:], strict=False):
        assert trick.leader == previous.winner == trick.cards[0][0]


def test_no_obligation_to_trump_or_to_beat_the_trick() -> None:
    hand = make_hand("four-hand", FOUR, "9H")
    act(hand, "1 order, 0 discard 9D, 1 9S")
    assert legal_cards(hand) == {"JH", "JD", "AH", "KH", "QH"}  # void in spades: any card, trump or not
    act(hand, "2 JH")
    assert legal_cards(hand) == {"QS", "KS", "AS"}  # must follow, need not beat


# ---- scoring whole hands ----


def test_lone_maker_march_scores_four_for_his_side() -> None:
    hand = make_hand("four-hand", FOUR, "9H")
    act(hand, "1 pass, 2 order alone")
    act(hand, "1 9S, 2 JH, 3 QS, 2 JD, 3 KS, 1 TH, 2 AH, 3 AS, 1 9C, 2 KH, 3 QC, 1 TS, 2 QH, 3 KC, 1 TC")
    assert hand.result is not None and hand.result.points == (4, 0, 4, 0)


def test_lone_maker_euchred_by_a_lone_defender_gives_the_defenders_four() -> None:
    hand = make_hand("four-hand", FOUR, "9H", defend_alone=True)
    act(hand, "1 order alone, 0 discard 9D, 2 defend")
    act(hand, "1 9S, 2 JH, 2 JD, 1 TH, 2 AH, 1 9C, 2 KH, 1 TS, 2 QH, 1 TC")
    assert hand.result is not None
    assert hand.result.defender_alone == 2 and hand.result.points == (4, 0, 4, 0)


def test_partnership_march_scores_two_and_a_euchre_two_for_the_defenders() -> None:
    plays = "1 9S, 2 JH, 3 QS, 0 TD, 2 JD, 3 KS, 0 9H, 1 TH, 2 AH, 3 AS, 0 QD, 1 9C, 2 KH, 3 QC, 0 KD, 1 TS"
    plays += ", 2 QH, 3 KC, 0 AD, 1 TC"
    march = make_hand("four-hand", FOUR, "9H")
    act(march, "1 pass, 2 order, 0 discard 9D, " + plays)
    assert march.result is not None and march.result.points == (2, 0, 2, 0)
    euchre = make_hand("four-hand", FOUR, "9H")
    act(euchre, "1 order, 0 discard 9D, " + plays)
    assert euchre.result is not None and euchre.result.maker == 1 and euchre.result.points == (2, 0, 2, 0)


THREE = ("QS KS AS QC KC", "TH 9S TS 9C TC", "JH JD AH KH QH")
THREE_PLAYS = "1 9S, 2 JH, 0 QS, 2 JD, 0 9H, 1 TH, 2 AH, 0 KS, 1 9C, 2 KH, 0 AS, 1 TS, 2 QH, 0 KC, 1 TC"


def test_three_hand_euchre_gives_each_defender_two() -> None:
    hand = make_hand("three-hand", THREE, "9H")
    act(hand, "1 order, 0 discard QC, " + THREE_PLAYS)
    assert hand.result is not None and hand.result.points == (2, 0, 2)


def test_three_hand_march_scores_three_for_the_maker_alone() -> None:
    hand = make_hand("three-hand", THREE, "9H")
    act(hand, "1 pass, 2 order, 0 discard QC, " + THREE_PLAYS)
    assert hand.result is not None and hand.result.points == (0, 0, 3)


def test_two_hand_euchre_gives_the_defender_two_and_a_march_gives_the_maker_two() -> None:
    plays = "1 9S, 0 JH, 0 JD, 1 TH, 0 AH, 1 9C, 0 KH, 1 TS, 0 9H, 1 TC"
    euchre = make_hand("two-hand", ("JH JD AH KH QH", "TH 9S TS 9C TC"), "9H")
    act(euchre, "1 order, 0 discard QH, " + plays)
    assert euchre.result is not None and euchre.result.points == (2, 0)
    march = make_hand("two-hand", ("JH JD AH KH QH", "TH 9S TS 9C TC"), "9H")
    act(march, "1 pass, 0 order, 0 discard QH, " + plays)
    assert march.result is not None and march.result.maker == 0 and march.result.points == (2, 0)


# ---- refused actions ----

ALL_PASS_ONCE = "1 pass, 2 pass, 3 pass, 0 pass"
STUCK = ALL_PASS_ONCE + ", 1 pass, 2 pass, 3 pass"

# (variant, options, deal, upcard, script to reach the situation, refused step)
REFUSALS = [
    ("four-hand", {}, FOUR, "9H", "", "2 pass"),  # not his turn
    ("four-hand", {}, FOUR, "9H", "", "1 discard 9D"),
    ("four-hand", {}, FOUR, "9H", "", "1 TH"),
    ("four-hand", {}, FOUR, "9H", "", "1 name S"),
    ("four-hand", {}, FOUR, "9H", "", "1 defend"),
    ("four-hand", {}, FOUR, "9H", "", "1 call S"),
    ("four-hand", {}, FOUR, "9H", ALL_PASS_ONCE, "1 order"),
    ("four-hand", {}, FOUR, "9H", ALL_PASS_ONCE, "1 call H"),
    ("four-hand", {"stick_the_dealer": True}, FOUR, "9H", STUCK, "0 pass"),
    ("four-hand", {}, FOUR, "9H", "1 order", "0 pass"),
    ("four-hand", {}, FOUR, "9H", "1 order", "0 discard JH"),  # not his card
    ("four-hand", {}, FOUR, "9H", "1 order", "0 AD"),
    ("four-hand", {}, FOUR, "9H", "1 order", "1 9S"),  # play before the dealer's exchange
    ("four-hand", {"dealer_exchange": "mandatory"}, FOUR, "9H", "1 order", "0 discard 9H"),
    ("four-hand", {}, FOUR, "9H", "1 pass, 2 pass, 3 pass, 0 order", "0 discard 9H"),
    ("four-hand", {"defend_alone": True}, FOUR, "9H", "1 order, 0 discard 9D", "1 defend"),
    ("four-hand", {"defend_alone": True}, FOUR, "9H", "1 order alone, 0 discard 9D", "0 defend"),
    ("four-hand", {"defend_alone": True}, FOUR, "9H", "1 order alone, 0 discard 9D", "2 9D"),
    ("four-hand", {}, FOUR, "9H", "1 order, 0 discard 9D", "1 JH"),
    ("four-hand", {}, FOUR, "9H", "1 order, 0 discard 9D, 1 9S", "2 9S"),
    ("four-hand", {}, FOUR, "9H", "1 order, 0 discard 9D, 1 9S, 2 JH", "3 QC"),  # must follow spades
    ("four-hand", {}, FOUR, "9H", "1 order alone, 0 discard 9D, 1 9S, 2 JH", "3 QS"),  # sits out
    ("four-hand", {}, LEFT_AND_SPADE, "9C", "1 pass, 2 pass, 3 pass, 0 order, 0 discard TS, 1 KS", "2 JS"),
    ("four-hand", {}, FOUR, "9H", ALL_PASS_ONCE + ", " + ALL_PASS_ONCE, "1 pass"),  # hand is over
    ("two-hand", {}, FOUR[:2], "9H", "", "1 order alone"),
    ("three-hand", {}, FOUR[:3], "9H", "1 pass, 2 pass, 0 pass", "1 call S alone"),
    ("british", {}, BENNY_UP, "JK", "", "0 order"),
    ("british", {}, BENNY_UP, "JK", "", "0 pass"),
    ("british", {}, BENNY_UP, "JK", "0 name S", "0 discard JK"),
]


@pytest.mark.parametrize(("variant", "options", "hands", "upcard", "script", "refused"), REFUSALS)
def test_illegal_action_raises_and_leaves_the_state_unchanged(
    variant: str, options: dict[str, Any], hands: tuple[str, ...], upcard: str, script: str, refused: str
) -> None:
    hand = make_hand(variant, hands, upcard, **options)
    if script:
        act(hand, script)
    legal_before = hand.legal_actions()
    before = snapshot(hand)
    with pytest.raises(IllegalActionError):
        act(hand, refused)
    assert snapshot(hand) == before
    assert hand.legal_actions() == legal_before
    seat_text, _, rest = refused.partition(" ")
    if int(seat_text) == hand.current_seat():
        with pytest.raises(IllegalActionError):
            hand.apply(action(rest))  # without naming the seat, the same action is still refused
        assert snapshot(hand) == before


def test_a_deal_with_the_wrong_number_of_hands_or_cards_is_refused() -> None:
    with pytest.raises(ValueError):
        make_hand("three-hand", FOUR, "9H")
