"""Cards, decks and rank under a trump suit (docs/rules.md section 2)."""

from __future__ import annotations

import itertools

import pytest
from helpers import parse_cards, suit_of, trick_winner

from arena.engine.cards import (
    JOKER,
    Card,
    Suit,
    card_power,
    effective_suit,
    format_cards,
    make_deck,
    trick_winner_index,
)
from arena.errors import InvalidActionError


def winner(text: str, trump: str) -> str:
    """The winning card of a trick written as text, by the engine."""
    played = parse_cards(text)
    return str(played[trick_winner_index(played, Suit.parse(trump))])


# ---- notation ----


@pytest.mark.parametrize("text", ["9C", "TD", "JH", "QS", "KC", "AD", "7H", "8S", "2C", "6D", "JK"])
def test_card_text_round_trips_and_repr_rebuilds_the_card(text: str) -> None:
    c = Card.parse(text)
    assert str(c) == text
    assert eval(repr(c), {"Card": Card}) == c


@pytest.mark.parametrize("text", ["", "J", "10C", "1C", "JX", "jh", "KK", "JKK", " 9C"])
def test_bad_card_text_raises_invalid_action_error(text: str) -> None:
    with pytest.raises(InvalidActionError):
        Card.parse(text)


@pytest.mark.parametrize("value", [-1, 53, 100])
def test_card_ids_out_of_range_raise_invalid_action_error(value: int) -> None:
    with pytest.raises(InvalidActionError):
        Card(value)


@pytest.mark.parametrize("text", ["", "CD", "X", "c", "CC"])
def test_bad_suit_text_raises_invalid_action_error(text: str) -> None:
    with pytest.raises(InvalidActionError):
        Suit.parse(text)


def test_same_colour_pairs_are_clubs_spades_and_diamonds_hearts() -> None:
    assert {(str(s), str(s.partner)) for s in Suit} == {("C", "S"), ("S", "C"), ("D", "H"), ("H", "D")}


def test_joker_is_the_benny_with_no_printed_suit() -> None:
    assert JOKER.is_joker and str(JOKER) == "JK" and JOKER.suit is None
    assert not Card.parse("JC").is_joker


# ---- decks ----


def test_24_card_deck_is_nine_to_ace_of_each_suit() -> None:
    assert format_cards(make_deck(24)).split() == [r + s for s in "CDHS" for r in "9TJQKA"]


def test_32_card_deck_adds_sevens_and_eights() -> None:
    assert sorted(map(str, make_deck(32))) == sorted(r + s for s in "CDHS" for r in "789TJQKA")


@pytest.mark.parametrize(("size", "ranks"), [(28, "89TJQKA"), (36, "6789TJQKA"), (52, "23456789TJQKA")])
def test_each_even_deck_is_its_ranks_in_every_suit_and_the_odd_one_adds_the_joker(size: int, ranks: str) -> None:
    assert sorted(map(str, make_deck(size))) == sorted(r + s for s in "CDHS" for r in ranks)
    assert make_deck(size + 1) == [*make_deck(size), JOKER]


def test_card_ids_keep_the_sorted_order_rank_first_then_suit_with_the_joker_last() -> None:
    """Sorted order (protocol.md's convention for hands) is by rank over 23456789TJQKA, then suit, the joker last."""
    ordered = sorted(make_deck(53))
    assert format_cards(ordered[:5]) == "2C 2D 2H 2S 3C"
    assert format_cards(ordered[-5:]) == "AC AD AH AS JK"


def test_25_card_deck_is_the_24_card_deck_plus_the_benny() -> None:
    deck = make_deck(25)
    assert len(deck) == 25 and len(set(deck)) == 25
    assert set(deck) == set(make_deck(24)) | {JOKER}


# ---- following: the effective suit ----


def test_left_bower_belongs_to_trump_not_its_printed_suit() -> None:
    assert effective_suit(Card.parse("JS"), Suit.C) == Suit.C
    assert effective_suit(Card.parse("JC"), Suit.S) == Suit.S
    assert effective_suit(Card.parse("JD"), Suit.H) == Suit.H
    assert effective_suit(Card.parse("JH"), Suit.D) == Suit.D


def test_jacks_of_the_other_colour_keep_their_printed_suit() -> None:
    assert effective_suit(Card.parse("JD"), Suit.C) == Suit.D
    assert effective_suit(Card.parse("JH"), Suit.S) == Suit.H
    assert effective_suit(Card.parse("JC"), Suit.H) == Suit.C


def test_benny_belongs_to_the_trump_suit_whatever_it_is() -> None:
    assert all(effective_suit(JOKER, t) == t for t in Suit)


def test_effective_suit_agrees_with_an_independent_reading_of_the_rules() -> None:
    for c, t in itertools.product([*make_deck(32), JOKER], Suit):
        assert str(effective_suit(c, t)) == suit_of(c, t), (str(c), str(t))


# ---- rank ----


def test_right_bower_beats_left_bower_beats_ace_of_trump() -> None:
    assert winner("AC JS JC", "C") == "JC"
    assert winner("AC JS KC", "C") == "JS"
    assert winner("AC KC QC", "C") == "AC"


def test_benny_beats_the_right_bower() -> None:
    assert winner("JH JK JD", "H") == "JK"
    assert winner("JK JH", "S") == "JK"


def test_trump_suit_ranks_a_k_q_10_9_8_7_below_the_bowers() -> None:
    order = ["7D", "8D", "9D", "TD", "QD", "KD", "AD", "JH", "JD", "JK"]
    for low, high in itertools.combinations(order, 2):
        assert winner(f"{low} {high}", "D") == high
        assert winner(f"{high} {low}", "D") == high


def test_plain_suit_ranks_a_k_q_j_10_9_8_7() -> None:
    order = ["7S", "8S", "9S", "TS", "JS", "QS", "KS", "AS"]
    for low, high in itertools.combinations(order, 2):
        assert winner(f"{low} {high}", "H") == high
        assert winner(f"{high} {low}", "H") == high


def test_lowest_trump_beats_the_ace_of_the_suit_led() -> None:
    assert winner("AS KS 9H", "H") == "9H"


def test_left_bower_lead_is_a_trump_lead_won_by_higher_trump() -> None:
    assert winner("JS AC JC", "C") == "JC"
    assert winner("JS AS KS", "C") == "JS"


def test_printed_suit_of_the_left_bower_led_is_not_won_by_the_left_bower_as_that_suit() -> None:
    # Spades led with clubs trump: the J of spades is a trump and wins as one, not as a spade.
    assert winner("9S AS JS", "C") == "JS"
    # With diamonds trump the J of spades is an ordinary spade, below the queen.
    assert winner("9S JS QS", "D") == "QS"


def test_off_suit_card_that_is_not_trump_cannot_win() -> None:
    assert winner("9S AD AH", "C") == "9S"


def test_card_power_is_negative_for_a_card_that_cannot_win_the_trick() -> None:
    assert card_power(Card.parse("AD"), Suit.C, Suit.S) == -1
    assert card_power(Card.parse("9S"), Suit.C, Suit.S) >= 0
    assert card_power(Card.parse("JS"), Suit.C, Suit.S) > card_power(Card.parse("AS"), Suit.C, Suit.S)


def test_trick_winner_agrees_with_an_independent_reading_of_the_rules() -> None:
    deck = [*make_deck(32), JOKER]
    for t in Suit:
        for i, first in enumerate(deck):
            rest = deck[i + 1 :] + deck[:i]
            for j in range(0, len(rest) - 2, 3):
                played = [first, rest[j], rest[j + 1], rest[j + 2]]
                expected = trick_winner(list(enumerate(played)), t)
                assert trick_winner_index(played, t) == expected, (format_cards(played), str(t))
