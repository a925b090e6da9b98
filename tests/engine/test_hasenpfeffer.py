"""Hasenpfeffer's hand (docs/rules.md section 14; arena.engine.hasenpfeffer): properties over random play under
every option, and a test per fine point on a hand-built deal."""

from __future__ import annotations

import random
from typing import Any

import pytest
from helpers import cases, leaked_cards, parse_cards, trick_winner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.engine.actions import BIDS, NAME_TRUMP, PASS, Bid, Declare, Play
from arena.engine.cards import JOKER, Card, Suit, make_deck
from arena.engine.hasenpfeffer import HasenpfefferDeal, HasenpfefferHand, game_winner
from arena.engine.options import RuleOptions, Rules, make_rules
from arena.engine.phases import Phase
from arena.engine.view import hand_view
from arena.errors import IllegalActionError

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)

options_strategy = st.builds(
    lambda **keys: make_rules("hasenpfeffer", keys),
    bidding=st.sampled_from(["auction", "single"]),
    min_bid=st.sampled_from([1, 2, 3]),
    all_pass=st.sampled_from(["joker_bids_three", "stick_dealer", "redeal"]),
    widow=st.sampled_from(["bidder_takes", "unused"]),
    first_lead=st.sampled_from(["bidder", "eldest"]),
    made_score=st.sampled_from(["tricks", "bid"]),
    defenders_score_tricks=st.booleans(),
)


def check_views(hand: HasenpfefferHand) -> None:
    """No seat's view shows a card it may not know (docs/rules.md section 14.5): another seat's unplayed cards, the
    widow (but to the bidder who took it), the bidder's discard (but to him)."""
    played = {str(c) for t in hand.tricks for _, c in t.cards} | {str(c) for _, c in hand.trick}
    for seat in range(4):
        hidden = {str(c) for s, cards in enumerate(hand.hands) if s != seat for c in cards} - played
        if not (hand.widow_taken and seat == hand.bidder):
            hidden.add(str(hand.deal.widow))
        if hand.discarded is not None and seat != hand.bidder:
            hidden.add(str(hand.discarded))
        hidden -= played
        view = hand_view(hand, seat, hand_number=0, scores=(0, 0, 0, 0))
        assert not leaked_cards(view.to_json(), hidden), f"seat {seat} sees {leaked_cards(view.to_json(), hidden)}"
        assert view.upcard is None and view.auction is not None


def check_step(hand: HasenpfefferHand) -> None:
    """The 25 cards each in one place, and a legal list that is never empty before the end."""
    places = [c for h in hand.hands for c in h] + [c for t in hand.tricks for _, c in t.cards]
    places += [c for _, c in hand.trick]
    if hand.discarded is not None:
        places.append(hand.discarded)
    if not hand.widow_taken:
        places.append(hand.deal.widow)
    assert sorted(places) == sorted(make_deck(25))
    assert bool(hand.legal_actions()) != hand.is_over()


def expected_points(options: RuleOptions, bidder: int, bid: int, tricks: list[int]) -> tuple[int, ...]:
    """docs/rules.md section 14.4's table, read again: made scores tricks (or the bid), set loses the bid; defenders
    score their tricks only with the option."""
    side = [s for s in range(4) if s % 2 == bidder % 2]
    ours = sum(tricks[s] for s in side)
    theirs = 6 - ours
    mine = (ours if options.made_score == "tricks" else bid) if ours >= bid else -bid
    other = theirs if options.defenders_score_tricks else 0
    return tuple(mine if s % 2 == bidder % 2 else other for s in range(4))


@settings(SETTINGS, max_examples=cases(300))
@given(
    rules=options_strategy, dealer=st.integers(0, 3), seed=st.integers(0, 2**32), bias=st.sampled_from([0, 0.5, 0.9])
)
def test_random_hands_keep_every_rule(rules: Rules, dealer: int, seed: int, bias: float) -> None:
    options = rules.options
    rng = random.Random(seed)
    hand = HasenpfefferHand(rules, dealer, HasenpfefferDeal.shuffled(dealer, rng))
    high = 0
    while not hand.is_over():
        check_step(hand)
        check_views(hand)
        legal = hand.legal_actions()
        action = PASS if PASS in legal and rng.random() < bias else rng.choice(legal)
        seat = hand.current_seat()
        if hand.phase is Phase.BID:
            assert all(
                isinstance(a, Bid) and a.tricks > high and a.tricks >= options.min_bid for a in legal if a != PASS
            )
            if isinstance(action, Bid):
                high = action.tricks
        if hand.phase is Phase.DECLARE:
            assert len(hand.hands[seat]) == 7 and hand.deal.widow in hand.hands[seat]
        hand.apply(action, seat)
    check_step(hand)
    result = hand.result
    assert result is not None
    bids = [(s, a) for s, a in hand.actions if isinstance(a, Bid)]
    if options.bidding == "single":  # one turn each at most, eldest first
        speakers = [s for s, a in hand.actions[: len(bids) + sum(1 for _, a in hand.actions if a == PASS)]]
        assert len(speakers) == len(set(speakers)) and (not speakers or speakers[0] == (dealer + 1) % 4)
    else:  # a seat that passed never bids again
        passed: set[int] = set()
        for s, a in hand.actions:
            if a == PASS:
                passed.add(s)
            elif isinstance(a, Bid):
                assert s not in passed
    if result.passed_out:
        assert not bids and options.all_pass != "stick_dealer"
        assert options.all_pass == "redeal" or hand.deal.widow == JOKER
        return
    if hand.forced is not None:  # nobody bid: the joker's holder bids exactly three
        assert not bids and options.all_pass == "joker_bids_three" and hand.bid == 3
        assert JOKER in hand.deal.hands[result.maker]
    else:
        assert (result.maker, hand.bid) == (bids[-1][0], bids[-1][1].tricks)
    assert len(result.tricks) == 6
    leader = result.maker if options.first_lead == "bidder" else (dealer + 1) % 4
    for trick in result.tricks:
        assert trick.leader == leader == trick.cards[0][0] and len(trick.cards) == 4
        assert trick.winner == trick_winner(list(trick.cards), result.trump)
        leader = trick.winner
    won = hand.tricks_won()
    assert result.maker is not None and hand.bid is not None
    assert result.points == expected_points(options, result.maker, hand.bid, won)


# ---- fine points on hand-built deals (dealer 3, so seat 0 is eldest) ----

# The joker is seat 2's; the widow is AD.
DEAL = ("9C TC JC 9D TD JD", "QC KC AC QD KD 9H", "JK TH JH QH KH AH", "9S TS JS QS KS AS")


def make(widow_card: str = "AD", hands: tuple[str, ...] = DEAL, dealer: int = 3, **options: Any) -> HasenpfefferHand:
    deal = HasenpfefferDeal(tuple(tuple(parse_cards(h)) for h in hands), Card.parse(widow_card))
    assert sorted([*(c for h in deal.hands for c in h), deal.widow]) == sorted(make_deck(25))
    return HasenpfefferHand(make_rules("hasenpfeffer", options), dealer, deal)


def say(hand: HasenpfefferHand, script: str) -> None:
    """``SEAT pass``, ``SEAT N`` (a bid), ``SEAT SUIT CARD`` (a declare), ``SEAT CARD`` (a play), comma-separated."""
    for step in script.split(","):
        seat_text, *words = step.split()
        seat = int(seat_text)
        if words == ["pass"]:
            hand.apply(PASS, seat)
        elif words[0].isdigit():
            hand.apply(BIDS[int(words[0])], seat)
        elif len(words) == 2:
            hand.apply(Declare(Suit.parse(words[0]), Card.parse(words[1])), seat)
        else:
            hand.apply(Play(Card.parse(words[0])), seat)


def test_nobody_bids_and_the_joker_holder_bids_exactly_three_though_he_passed() -> None:
    hand = make()
    say(hand, "0 pass, 1 pass, 2 pass, 3 pass")
    assert hand.forced == 2 and (hand.bidder, hand.bid) == (2, 3)
    assert hand.phase is Phase.DECLARE and hand.current_seat() == 2 and len(hand.hands[2]) == 7


def test_a_joker_left_as_the_widow_throws_the_hand_in() -> None:
    hands = ("9C TC JC 9D TD JD", "QC KC AC QD KD 9H", "AD TH JH QH KH AH", "9S TS JS QS KS AS")
    hand = make("JK", hands)
    say(hand, "0 pass, 1 pass, 2 pass, 3 pass")
    assert hand.is_over() and hand.widow_joker and hand.result is not None and hand.result.passed_out


def test_under_stick_dealer_the_dealer_must_bid_after_three_passes() -> None:
    hand = make(all_pass="stick_dealer")
    say(hand, "0 pass, 1 pass, 2 pass")
    assert PASS not in hand.legal_actions() and hand.legal_actions()[0] == BIDS[1]
    with pytest.raises(IllegalActionError):
        say(hand, "3 pass")


def test_a_bid_of_six_ends_the_auction_at_once() -> None:
    hand = make()
    say(hand, "0 2, 1 6")
    assert (hand.bidder, hand.bid) == (1, 6) and hand.phase is Phase.DECLARE


def test_the_auction_goes_round_until_three_have_passed_and_a_passed_player_is_out() -> None:
    hand = make()
    say(hand, "0 1, 1 pass, 2 2, 3 pass, 0 3")
    assert hand.current_seat() == 2  # seat 1 and 3 passed: they are skipped
    say(hand, "2 pass")
    assert (hand.bidder, hand.bid) == (0, 3)
    single = make(bidding="single")
    say(single, "0 1, 1 pass, 2 2, 3 pass")
    assert (single.bidder, single.bid) == (2, 2)  # one turn each


def test_the_bidder_may_put_away_the_widow_and_names_any_suit() -> None:
    hand = make()
    say(hand, "0 pass, 1 pass, 2 3, 3 pass")
    declares = hand.legal_actions()
    assert len(declares) == 4 * 7 and Declare(Suit.H, Card.parse("AD")) in declares
    say(hand, "2 H AD")
    assert hand.discarded == Card.parse("AD") and len(hand.hands[2]) == 6
    assert hand.current_seat() == 2  # the bidder leads


def test_the_joker_led_calls_for_trumps_the_left_bower_included_and_wins() -> None:
    hand = make()
    say(hand, "0 pass, 1 pass, 2 3, 3 pass, 2 H AD, 2 JK")
    plays = {Play(c) for c in hand.hands[3]}
    assert set(hand.legal_actions()) == plays  # seat 3: no heart, no left bower: anything
    say(hand, "3 AS")
    assert hand.legal_actions() == (Play(Card.parse("JD")),)  # seat 0's only trump is the jack of diamonds
    say(hand, "0 JD")
    assert hand.legal_actions() == (Play(Card.parse("9H")),)
    say(hand, "1 9H")
    assert hand.tricks[-1].winner == 2 and hand.current_seat() == 2


def test_with_the_widow_unused_the_bidder_names_trump_and_eldest_may_lead() -> None:
    hand = make(widow="unused", first_lead="eldest")
    say(hand, "0 pass, 1 pass, 2 3, 3 pass")
    assert hand.legal_actions() == NAME_TRUMP and len(hand.hands[2]) == 6
    hand.apply(NAME_TRUMP[2], 2)
    assert hand.trump == Suit.H and hand.current_seat() == 0


@pytest.mark.parametrize(
    ("options", "taken", "points"),
    [
        ({}, 4, (4, 0, 4, 0)),  # made: the tricks taken
        ({"made_score": "bid"}, 4, (3, 0, 3, 0)),  # made: the bid
        ({}, 2, (-3, 0, -3, 0)),  # set: minus the bid
        ({"defenders_score_tricks": True}, 2, (-3, 4, -3, 4)),
    ],
)
def test_scores_as_the_table_says(options: dict[str, Any], taken: int, points: tuple[int, ...]) -> None:
    from arena.engine.hasenpfeffer import hand_points

    won = [taken, 6 - taken, 0, 0]
    assert hand_points(make_rules("hasenpfeffer", options).options, 0, 3, won) == (points, taken >= 3)


def test_both_sides_at_the_target_at_once_the_bidders_win_if_they_made_it() -> None:
    options = make_rules("hasenpfeffer", {"defenders_score_tricks": True}).options
    assert game_winner(options, (10, 11), 1, True) == 1 and game_winner(options, (11, 10), 1, True) == 1
    assert game_winner(options, (10, 12), 1, False) == 0
    assert game_winner(options, (9, 10), 1, True) == 1 and game_winner(options, (9, 9), 1, True) is None


def test_a_game_record_replays_and_reads_back_whole() -> None:
    """A played game's record replays to the same record, and the record reader (pydantic, strict) keeps every
    field of Hasenpfeffer's actions (a bid's tricks, a declaration's suit and discard)."""
    import json

    from arena.bots.heuristic_bot import HeuristicBot
    from arena.engine.record import game_record, read_record, replay
    from arena.play.local import play_game

    bots = [HeuristicBot() for _ in range(4)]
    record = play_game([b.handle for b in bots], "hasenpfeffer", {"widow": "bidder_takes"}, 3)
    kinds = {a["type"] for h in record["hands"] for a in h["actions"]}
    assert {"bid", "declare", "play"} <= kinds
    text = json.dumps(record)
    assert read_record(text) == json.loads(text)
    engine_part = game_record(replay(json.loads(text)))
    assert {k: record[k] for k in engine_part} == engine_part
