"""The Nap reference referee (tests/engine/nap_reference.py) on hand-made deals, checked against the rule book
(docs/rules.md section 15)."""

from __future__ import annotations

import random
from collections.abc import Mapping

import pytest

from tests.engine.nap_reference import NapDeal, game_over, nap_pack, parse_options, winner

PASS: dict[str, object] = {"type": "pass"}


def bid(contract: str) -> dict[str, object]:
    """A bid action."""
    return {"type": "nap_bid", "contract": contract}


def play(card: str, trump: str | None = None) -> dict[str, object]:
    """A play action; `trump` only for the joker led to the first trick of a trump contract."""
    action: dict[str, object] = {"type": "play", "card": card}
    if trump is not None:
        action["trump"] = trump
    return action


def deal(hands: str, dealer: int, **options: object) -> NapDeal:
    """A deal from hands written as text, one hand per `/`."""
    seats = [hand.split() for hand in hands.split("/")]
    return NapDeal(len(seats), options, dealer, seats)


def speak(game: NapDeal, *actions: Mapping[str, object]) -> None:
    """Apply actions in turn order, each for the seat on turn."""
    for action in actions:
        seat = game.to_act()
        assert seat is not None
        game.apply(seat, action)


def cards(game: NapDeal, *played: str) -> None:
    """Play cards in turn order; `JK:H` leads the joker naming hearts."""
    for text in played:
        card, _, trump = text.partition(":")
        speak(game, play(card, trump or None))


def legal_cards(game: NapDeal) -> set[str]:
    """The legal plays of the seat on turn, as text (`JK:H` for a joker naming trump)."""
    out = set()
    for action in game.legal():
        assert action["type"] == "play"
        trump = action.get("trump")
        out.add(f"{action['card']}:{trump}" if trump else str(action["card"]))
    return out


def legal_bids(game: NapDeal) -> set[str]:
    """The legal bidding actions of the seat on turn, as text (`pass` or the contract)."""
    return {"pass" if action["type"] == "pass" else str(action["contract"]) for action in game.legal()}


# ---- the pack (docs/rules.md 2, 15) ----


@pytest.mark.parametrize(
    ("players", "deck", "joker", "size", "lowest"),
    [
        (2, 52, False, 52, "2"),
        (7, 52, True, 53, "2"),
        (2, "stripped", False, 24, "9"),
        (3, "stripped", True, 25, "9"),
        (4, "stripped", False, 28, "8"),
        (5, "stripped", False, 32, "7"),
        (6, "stripped", True, 33, "7"),
        (7, "stripped", False, 36, "6"),
    ],
)
def test_pack_size_and_lowest_rank_follow_the_players(
    players: int, deck: object, joker: bool, size: int, lowest: str
) -> None:
    pack = nap_pack(players, {"deck": deck, "joker": joker})
    assert len(pack) == len(set(pack)) == size
    assert pack[0] == lowest + "C"
    assert pack[-1] == ("JK" if joker else "AS")


def test_pack_is_in_deck_order_and_players_are_checked() -> None:
    assert nap_pack(4, {})[:5] == ["2C", "2D", "2H", "2S", "3C"]
    for players in (1, 8):
        with pytest.raises(ValueError):
            nap_pack(players, {})


def test_options_are_checked() -> None:
    assert parse_options({}).min_bid == 2
    assert parse_options({"target_score": None}).target_score == 0
    for bad in ({"min_bid": 1}, {"misere_stakes": "3/9"}, {"joker": 1}, {"deck": 36}, {"deals_per_player": 0}):
        with pytest.raises(ValueError):
            parse_options(bad)


def test_hands_must_be_five_distinct_cards_of_the_pack() -> None:
    with pytest.raises(ValueError):
        deal("AH KH QH JH / 2C 3C 4C 5C 6C", 0)
    with pytest.raises(ValueError):
        deal("AH KH QH JH TH / AH 3C 4C 5C 6C", 0)
    with pytest.raises(ValueError):
        deal("JK KH QH JH TH / 2C 3C 4C 5C 6C", 0)  # no joker in the pack
    with pytest.raises(ValueError):
        deal("2H KH QH JH TH / 9C TC JC QC KC", 0, deck="stripped")


# ---- bidding (docs/rules.md 15) ----

FOUR = "AH KH QH JH TH / 2C 3C 4C 5C 6C / 2D 3D 4D 5D 6D / 2S 3S 4S 5S 6S"
FIVE = FOUR + " / 7C 7D 7H 7S 8C"


def test_bidding_goes_from_eldest_to_dealer_each_bid_higher() -> None:
    game = deal(FOUR, dealer=0)
    assert game.to_act() == 1
    assert legal_bids(game) == {"pass", "two", "three", "misere", "four", "nap"}
    speak(game, bid("three"))
    assert game.to_act() == 2
    assert legal_bids(game) == {"pass", "misere", "four", "nap"}
    with pytest.raises(ValueError):
        game.apply(2, bid("three"))
    with pytest.raises(ValueError):
        game.apply(3, PASS)  # not his turn
    speak(game, bid("nap"))
    assert legal_bids(game) == {"pass", "wellington"}
    speak(game, bid("wellington"))
    assert game.to_act() == 0
    assert legal_bids(game) == {"pass", "bluecher"}
    assert game.declarer() is None and game.contract() is None
    speak(game, PASS)
    assert (game.declarer(), game.contract(), game.to_act()) == (3, "wellington", 3)


def test_min_bid_three_and_no_misere_shorten_the_ladder() -> None:
    game = deal(FOUR, dealer=3, min_bid=3, misere=False)
    assert legal_bids(game) == {"pass", "three", "four", "nap"}


def test_bluecher_ends_the_bidding_at_once() -> None:
    game = deal(FIVE, dealer=4)
    speak(game, bid("nap"), bid("wellington"), bid("bluecher"))
    assert (game.declarer(), game.contract(), game.to_act()) == (2, "bluecher", 2)
    assert game.legal()[0]["type"] == "play"


def test_wellington_ends_the_bidding_without_bluecher() -> None:
    game = deal(FIVE, dealer=4, bluecher=False)
    speak(game, PASS, bid("nap"))
    assert legal_bids(game) == {"pass", "wellington"}
    speak(game, bid("wellington"))
    assert (game.declarer(), game.contract(), game.to_act()) == (2, "wellington", 2)


def test_nap_ends_the_bidding_without_wellington() -> None:
    for bluecher in (True, False):
        game = deal(FIVE, dealer=4, wellington=False, bluecher=bluecher)
        speak(game, bid("four"), bid("nap"))
        assert (game.declarer(), game.contract(), game.to_act()) == (1, "nap", 1)


def test_nap_does_not_end_the_bidding_while_wellington_is_open() -> None:
    game = deal(FIVE, dealer=4)
    speak(game, bid("nap"))
    assert game.to_act() == 1
    speak(game, PASS, PASS, PASS, PASS)
    assert (game.declarer(), game.contract(), game.to_act()) == (0, "nap", 0)


def test_everyone_passing_passes_the_deal_out() -> None:
    game = deal(FOUR, dealer=1)
    speak(game, PASS, PASS, PASS, PASS)
    assert game.over() and game.passed_out()
    assert game.to_act() is None and game.legal() == []
    assert game.declarer() is None and game.contract() is None and game.trump() is None
    assert game.points() == [0, 0, 0, 0]
    with pytest.raises(ValueError):
        game.apply(2, PASS)


def test_dealer_must_bid_when_all_others_passed() -> None:
    game = deal(FOUR, dealer=1, all_pass="dealer_must_bid")
    speak(game, PASS, PASS, PASS)
    assert game.to_act() == 1
    assert legal_bids(game) == {"one", "two", "three", "misere", "four", "nap"}
    with pytest.raises(ValueError):
        game.apply(1, PASS)
    speak(game, bid("one"))
    assert (game.declarer(), game.contract(), game.to_act(), game.passed_out()) == (1, "one", 1, False)


def test_forced_dealer_bids_only_what_the_options_allow_and_one() -> None:
    game = deal("AH KH QH JH TH / 2C 3C 4C 5C 6C", dealer=1, all_pass="dealer_must_bid", min_bid=3, misere=False)
    speak(game, PASS)
    assert legal_bids(game) == {"one", "three", "four", "nap"}


def test_dealer_may_pass_after_a_bid_even_under_dealer_must_bid() -> None:
    game = deal(FOUR, dealer=1, all_pass="dealer_must_bid")
    speak(game, PASS, bid("two"), PASS)
    assert legal_bids(game) == {"pass", "three", "misere", "four", "nap"}
    speak(game, PASS)
    assert (game.declarer(), game.contract()) == (3, "two")


# ---- play and scoring (docs/rules.md 15) ----

SUITED = "AH KH QH JH TH / 2C 3C 4C 5C 6C / 2D 3D 4D 5D 6D"  # every seat holds one suit: the declarer takes all
BROKEN = "AH KH QH JH 3S / AC KC QC JC 2H / AD KD QD JD 2S"  # the declarer's two loses a trick


def test_nap_made_pays_ten_from_each_opponent() -> None:
    game = deal("AH KH QH JH TH / 2H 3C 4C 5C 6C / 9H 3D 4D 5D 6D", dealer=2)
    speak(game, bid("nap"), PASS, PASS)
    assert legal_cards(game) == {"AH", "KH", "QH", "JH", "TH"}
    cards(game, "AH")
    assert game.trump() == "H"
    assert legal_cards(game) == {"2H"}
    cards(game, "2H")
    assert legal_cards(game) == {"9H"}
    cards(game, "9H", "KH", "3C", "3D", "QH", "4C", "4D", "JH", "5C", "5D", "TH", "6C", "6D")
    assert game.over() and game.trick_winners() == [0] * 5 and game.tricks_won() == [5, 0, 0]
    assert game.points() == [20, -10, -10]


def test_follow_suit_trumps_win_else_the_highest_of_the_suit_led() -> None:
    game = deal("AS KS 2C 3C 4C / AC 5D 6D 7D 8D / KC 2S 9D TD JD / QC 3H 4H 5H 6H", dealer=3)
    speak(game, bid("two"), PASS, bid("three"), PASS)
    assert (game.declarer(), game.to_act()) == (2, 2)
    with pytest.raises(ValueError):
        game.points()
    cards(game, "9D")
    assert game.trump() == "D"
    assert legal_cards(game) == {"QC", "3H", "4H", "5H", "6H"}  # void: any card
    cards(game, "3H", "2C")
    assert legal_cards(game) == {"5D", "6D", "7D", "8D"}
    cards(game, "5D")
    assert game.trick_winners() == [2]
    cards(game, "KC", "QC", "3C", "AC")  # no trump: the ace of the suit led wins
    assert game.trick_winners() == [2, 1]
    cards(game, "6D", "TD", "4H", "AS")
    cards(game, "2S", "5H", "KS")
    assert legal_cards(game) == {"7D", "8D"}
    cards(game, "7D")  # a low trump beats the king of the suit led
    assert game.trick_winners() == [2, 1, 2, 1]
    cards(game, "8D", "JD", "6H", "4C")
    assert game.trick_winners() == [2, 1, 2, 1, 2]
    assert game.tricks_won() == [0, 2, 3, 0]
    assert game.points() == [-3, -3, 9, -3]


def test_a_player_void_in_the_suit_led_need_not_trump() -> None:
    game = deal("AC KC 2H 3D 4D / 5H 6H 7S 8S 9S / 2C 3C 4C 5C 6C", dealer=2)
    speak(game, bid("two"), PASS, PASS)
    cards(game, "2H", "5H", "2C")  # trump hearts; seat 1 wins with 5H
    cards(game, "7S")
    assert legal_cards(game) == {"3C", "4C", "5C", "6C"}
    cards(game, "3C")
    assert legal_cards(game) == {"AC", "KC", "3D", "4D"}  # no heart left: any card
    cards(game, "AC")
    assert game.trick_winners() == [1, 1]


def test_forced_one_is_made_with_one_trick_and_lost_with_none() -> None:
    game = deal("AH KH QH JH TH / 2C 3C 4C 5C 6C", dealer=1, all_pass="dealer_must_bid")
    speak(game, PASS, bid("one"))
    cards(game, "2C", "TH", "3C", "JH", "4C", "QH", "5C", "KH", "6C", "AH")  # clubs are trump
    assert game.tricks_won() == [0, 5]
    assert game.points() == [-1, 1]

    game = deal("2C 3C 4C 5C 6C / 7C 8C 9C TC JC", dealer=0, all_pass="dealer_must_bid", scoring="bidder_only")
    speak(game, PASS, bid("one"))
    cards(game, "2C", "7C", "8C", "3C", "9C", "4C", "TC", "5C", "JC", "6C")
    assert game.tricks_won() == [0, 5]
    assert game.points() == [-1, 0]


# ---- the joker (docs/rules.md 15) ----


def test_joker_led_first_names_trump_and_nap_can_be_lost() -> None:
    game = deal("JK AC KC QC JC / 2H 3H 4S 5S 6S / 7H 8D 9D TD 2C", dealer=2, joker=True)
    speak(game, bid("nap"), PASS, PASS)
    assert legal_cards(game) == {"JK:C", "JK:D", "JK:H", "JK:S", "AC", "KC", "QC", "JC"}
    with pytest.raises(ValueError):
        game.apply(0, play("JK"))
    cards(game, "JK:H")
    assert game.trump() == "H"
    assert legal_cards(game) == {"2H", "3H"}
    cards(game, "2H")
    assert legal_cards(game) == {"7H"}
    cards(game, "7H")
    cards(game, "AC")
    assert legal_cards(game) == {"3H", "4S", "5S", "6S"}
    cards(game, "4S", "2C")
    cards(game, "KC", "3H", "8D")  # seat 1 trumps: Nap is lost
    cards(game, "5S", "9D", "QC", "6S", "TD", "JC")
    assert game.trick_winners() == [0, 0, 1, 1, 1]
    assert game.points() == [-10, 5, 5]


def test_a_joker_play_with_trump_is_refused_away_from_the_first_lead() -> None:
    game = deal("AH KH QH JH TH / JK 2H 3C 4C 5C / 2D 3D 4D 5D 6D", dealer=2, joker=True)
    speak(game, bid("two"), PASS, PASS)
    cards(game, "AH")
    assert legal_cards(game) == {"JK", "2H"}
    with pytest.raises(ValueError):
        game.apply(1, play("JK", "H"))
    cards(game, "JK", "2D")
    assert game.trick_winners() == [1]  # the joker is the highest trump


def test_joker_as_only_trump_must_be_played() -> None:
    game = deal("AS KS QS 2D 3D / JK 4H 5H 6H 7H / 2S 8C 9C TC JC", dealer=2, joker=True)
    speak(game, bid("three"), PASS, PASS)
    cards(game, "AS")
    assert legal_cards(game) == {"JK"}
    cards(game, "JK")
    assert legal_cards(game) == {"2S"}
    cards(game, "2S")
    assert game.trick_winners() == [1]


def test_joker_led_later_calls_for_trumps() -> None:
    game = deal("2H QS 3S 2D 3D / JK AH 5C 6C 7C / 8H 9H 8C 9C TC", dealer=2, joker=True)
    speak(game, bid("two"), PASS, PASS)
    cards(game, "2H")
    assert legal_cards(game) == {"JK", "AH"}
    cards(game, "AH", "8H")
    assert game.trick_winners() == [1]
    assert legal_cards(game) == {"JK", "5C", "6C", "7C"}  # a later lead: no trump to name
    cards(game, "JK")
    assert legal_cards(game) == {"9H"}
    cards(game, "9H")
    assert legal_cards(game) == {"QS", "3S", "2D", "3D"}


def test_joker_may_not_be_played_on_a_plain_suit_its_holder_can_follow() -> None:
    game = deal("AH 2C 3C 4C 5C / JK 6C 2H 8S 9S / KH QC 2S 3S 4S", dealer=2, joker=True)
    speak(game, bid("three"), PASS, PASS)
    cards(game, "AH")
    assert legal_cards(game) == {"JK", "2H"}
    cards(game, "2H", "KH", "2C")
    assert legal_cards(game) == {"6C"}
    cards(game, "6C", "QC")
    assert game.trick_winners() == [0, 2]


def test_no_trump_misere_joker_follows_no_suit_and_wins_any_trick() -> None:
    hands = "JK 2C 2D 2H 3S / AC KD 5H 6S 7S / KC AD 4H 8S 9S"
    for stakes, scoring, points in (
        ("3/3", "settlement", [-6, 3, 3]),
        ("3/6", "settlement", [-12, 6, 6]),
        ("3/6", "bidder_only", [-6, 0, 0]),
    ):
        game = deal(hands, dealer=2, joker=True, misere_stakes=stakes, scoring=scoring)
        speak(game, bid("misere"), PASS, PASS)
        assert legal_cards(game) == {"JK", "2C", "2D", "2H", "3S"}  # no trump to name
        cards(game, "2C")
        assert game.trump() is None
        cards(game, "AC", "KC", "KD", "AD")
        assert legal_cards(game) == {"2D"}  # the joker does not follow suit
        cards(game, "2D", "8S", "3S", "6S", "4H", "2H", "5H", "7S", "9S")
        assert legal_cards(game) == {"JK"}
        cards(game, "JK")
        assert game.trick_winners() == [1, 2, 2, 1, 0]
        assert game.trump() is None
        assert game.points() == points


def test_no_trump_misere_joker_led_frees_every_follower() -> None:
    game = deal("JK 2C 2D 2H 3S / AC KD 5H 6S 7S / KC AD 4H 8S 9S", dealer=2, joker=True)
    speak(game, bid("misere"), PASS, PASS)
    cards(game, "JK")
    assert legal_cards(game) == {"AC", "KD", "5H", "6S", "7S"}
    cards(game, "AC")
    assert legal_cards(game) == {"KC", "AD", "4H", "8S", "9S"}
    cards(game, "AD")
    assert game.trick_winners() == [0]  # Misere lost at once, but play goes on
    assert not game.over() and game.to_act() == 0
    cards(game, "2C", "KD", "KC", "4H", "2H", "5H", "6S", "8S", "3S", "9S", "2D", "7S")
    assert game.trick_winners() == [0, 2, 1, 2, 2]
    assert game.over() and game.points() == [-6, 3, 3]


def test_misere_with_trumps_takes_trump_from_the_first_lead() -> None:
    game = deal("JK 2C 2D 2H 3S / AC KD 5H 6S 7S / KC AD 4H 8S 9S", dealer=2, joker=True, misere_trumps=True)
    speak(game, bid("misere"), PASS, PASS)
    assert "JK:S" in legal_cards(game) and "JK" not in legal_cards(game)
    cards(game, "2C")
    assert game.trump() == "C"
    cards(game, "AC", "KC", "KD", "AD", "2D")
    cards(game, "8S")
    assert legal_cards(game) == {"3S"}
    cards(game, "3S", "6S", "4H")
    assert legal_cards(game) == {"2H"}  # the joker is a club now: hearts led, it may not be played


def test_misere_made_wins_three_from_each() -> None:
    game = deal("2C 2D 2H 2S 3C / AC AD AH AS KC / QC QD QH QS JC", dealer=2)
    speak(game, bid("misere"), PASS, PASS)
    cards(game, "2C", "AC", "QC", "AD", "QD", "2D", "AH", "QH", "2H", "AS", "QS", "2S", "KC", "JC", "3C")
    assert game.tricks_won() == [0, 5, 0]
    assert game.points() == [6, -3, -3]


@pytest.mark.parametrize(
    ("hands", "contract", "scoring", "points"),
    [
        (SUITED, "wellington", "settlement", [-20, 40, -20]),
        (SUITED, "wellington", "bidder_only", [0, 20, 0]),
        (SUITED, "bluecher", "settlement", [-30, -30, 60]),
        (SUITED, "bluecher", "bidder_only", [0, 0, 30]),
        (BROKEN, "wellington", "settlement", [10, -20, 10]),
        (BROKEN, "wellington", "bidder_only", [0, -10, 0]),
        (BROKEN, "bluecher", "settlement", [15, 15, -30]),
        (BROKEN, "bluecher", "bidder_only", [0, 0, -15]),
    ],
)
def test_stakes_of_wellington_and_bluecher(hands: str, contract: str, scoring: str, points: list[int]) -> None:
    game = deal(hands, dealer=2, scoring=scoring)
    speak(game, bid("nap"), bid("wellington"), bid("bluecher") if contract == "bluecher" else PASS)
    declarer = game.declarer()
    assert declarer is not None and game.contract() == contract and game.to_act() == declarer
    while not game.over():
        speak(game, sorted(game.legal(), key=lambda action: "23456789TJQKA".index(str(action["card"])[0]))[0])
    assert (game.tricks_won()[declarer] == 5) == (hands == SUITED)
    assert game.points() == points


# ---- game end (docs/rules.md 15) ----


def test_game_lasts_deals_per_player_times_players_and_ties_play_on() -> None:
    tied = [0, 0]
    ahead = [5, -5]
    assert not game_over(2, {}, [])
    assert not game_over(2, {}, [ahead] * 5)
    assert game_over(2, {}, [ahead] * 6)
    assert not game_over(2, {}, [ahead] * 5 + [tied])
    assert not game_over(2, {}, [ahead] * 5 + [tied, tied])
    assert game_over(2, {}, [ahead] * 5 + [tied, tied, ahead])
    assert game_over(3, {"deals_per_player": 1}, [[0, 0, 0], [0, 0, 0], [3, 1, -4]])
    assert not game_over(3, {"deals_per_player": 1}, [[0, 0, 0], [0, 0, 0], [3, 3, -6]])


def test_target_score_ends_the_game_when_one_player_alone_reaches_it() -> None:
    options: dict[str, object] = {"target_score": 20}
    assert not game_over(3, options, [[10, -5, -5]])
    assert game_over(3, options, [[20, -10, -10]])
    assert not game_over(3, options, [[20, 20, -40]])
    assert game_over(3, options, [[20, 20, -40], [25, 20, -45]])
    assert not game_over(3, options, [[1, 0, -1]] * 12)  # the number of deals no longer ends it
    assert game_over(3, {"target_score": None}, [[1, 0, -1]] * 9)


def test_winner_is_the_seat_alone_at_the_top() -> None:
    assert winner([3, 9, -12]) == 1
    with pytest.raises(ValueError):
        winner([9, 9, -18])


# ---- random deals: invariants of any legal play ----


@pytest.mark.parametrize("seed", range(40))
def test_random_deals_keep_the_invariants(seed: int) -> None:
    rng = random.Random(seed)
    players = rng.randint(2, 7)
    options: dict[str, object] = {
        "deck": rng.choice([52, "stripped"]),
        "joker": rng.random() < 0.5,
        "min_bid": rng.choice([2, 3]),
        "misere_trumps": rng.random() < 0.3,
        "misere_stakes": rng.choice(["3/3", "3/6"]),
        "all_pass": rng.choice(["redeal", "dealer_must_bid"]),
        "scoring": rng.choice(["settlement", "bidder_only"]),
    }
    pack = nap_pack(players, options)
    rng.shuffle(pack)
    hands = [pack[5 * seat : 5 * seat + 5] for seat in range(players)]
    dealer = rng.randrange(players)
    game = NapDeal(players, options, dealer, hands)
    asked = []
    while not game.over():
        seat = game.to_act()
        assert seat is not None
        legal = game.legal()
        assert legal
        if game.contract() is None:
            asked.append(seat)
            # bid now and then so that most deals are played
            action = rng.choice(legal) if rng.random() < 0.4 else legal[0]
        else:
            action = rng.choice(legal)
        game.apply(seat, action)
    assert asked == [(dealer + 1 + k) % players for k in range(len(asked))]
    assert game.to_act() is None and game.legal() == []
    if game.passed_out():
        assert options["all_pass"] == "redeal" and game.points() == [0] * players
        return
    assert sum(game.tricks_won()) == 5 and len(game.trick_winners()) == 5
    declarer = game.declarer()
    assert declarer is not None
    points = game.points()
    if options["scoring"] == "settlement":
        assert sum(points) == 0
    else:
        assert all(points[seat] == 0 for seat in range(players) if seat != declarer)
    if game.contract() == "misere" and not options["misere_trumps"]:
        assert game.trump() is None
    else:
        assert game.trump() in ("C", "D", "H", "S")
