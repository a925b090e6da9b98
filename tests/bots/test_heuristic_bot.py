"""The bundled bots: the heuristic player clearly beats the random one, and neither ever answers illegally."""

from __future__ import annotations

from typing import Any

import pytest
from helpers import action, bot_decision

from arena.bots.heuristic_bot import HeuristicBot, best_discard, strength
from arena.bots.random_bot import RandomBot
from arena.engine.actions import Action
from arena.engine.cards import Suit, cards
from arena.engine.options import make_rules
from arena.play.local import play_game
from arena.sdk import Bot

MIN_WIN_RATE = 0.9


def play(variant: str, heuristic_seats: set[int], seed: int, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """One game, heuristic bots in ``heuristic_seats`` and random bots elsewhere, all strict about legality."""
    n = make_rules(variant, options).players
    bots: list[Bot] = [HeuristicBot(strict=True) if s in heuristic_seats else RandomBot(strict=True) for s in range(n)]
    record = play_game([b.handle for b in bots], variant, options or {}, seed)
    assert record["violations"] == [], record["violations"]
    return record


# Games per variant, half in each seating. A four-hand game costs twice a two-hand one, and the heuristic won all 200
# (100 of 100 in each seating): 100 games say as much, 50 of 50 in each seating (at a true rate of 0.9, 50 straight
# wins come 1 time in 194; the exact 95 % lower bound of 50 of 50 is 0.93). Two-hand won 98 and 99 of 100: 49 of 50
# would bound the rate only from 0.89, below the bar, so two-hand keeps 200 (197 of 200: from 0.957).
GAMES = {"four-hand": 100, "two-hand": 200}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("variant", "seatings"),
    [("four-hand", ({0, 2}, {1, 3})), ("two-hand", ({0}, {1}))],
    ids=["four-hand-seatings0", "two-hand-seatings1"],
)
def test_heuristic_beats_random_in_nine_games_out_of_ten(variant: str, seatings: tuple[set[int], set[int]]) -> None:
    games = GAMES[variant]
    wins = [0, 0]
    for seed in range(games):  # the heuristic side alternates between the two seatings
        seats = seatings[seed % 2]
        wins[seed % 2] += bool(set(play(variant, seats, seed)["winners"]) & seats)
    for seats, won in zip(seatings, wins, strict=True):
        print(f"{variant}, heuristic in seats {sorted(seats)}: won {won} of {games // 2}")
    assert sum(wins) / games >= MIN_WIN_RATE
    assert all(won / (games // 2) >= MIN_WIN_RATE for won in wins)


def option_sets(variant: str) -> list[dict[str, Any]]:
    """The option combinations worth playing in ``variant``."""
    players = make_rules(variant).players
    sets: list[dict[str, Any]] = [
        {},
        {"stick_the_dealer": True},
        {"dealer_exchange": "mandatory"},
        {"stick_the_dealer": True, "dealer_exchange": "mandatory", "points_to_win": 5},
    ]
    if players == 4:
        sets += [{"defend_alone": True}, {"defend_alone": True, "stick_the_dealer": True}]
    if players != 3:
        sets.append({"rubber": True, "points_to_win": 5})
    return sets


CONFIGS = [(v, o) for v in ("two-hand", "three-hand", "four-hand", "four-hand-32", "british") for o in option_sets(v)]


@pytest.mark.parametrize(("variant", "options"), CONFIGS)
def test_bots_never_answer_illegally(variant: str, options: dict[str, Any]) -> None:
    n = make_rules(variant, options).players
    for seed in range(3):
        play(variant, {s for s in range(n) if (s + seed) % 2 == 0}, seed, options)


def test_heuristic_goes_alone_and_defends_alone_when_strong() -> None:
    alone = defended = 0
    for seed in range(20):
        record = play("four-hand", {0, 1, 2, 3}, seed, {"defend_alone": True})
        for hand in record["hands"]:
            alone += hand["result"]["alone"]
            defended += hand["result"]["defender_alone"] is not None
    assert alone > 0
    assert defended <= alone


# ---- the heuristic's decisions in set positions ----

# Four-hand, dealer 3, upcard 9H; the kitty holds JD TH JS.
HANDS = ["KS 9C TC QD KD", "9S JC QC KC 9D", "AS TS AC TD AD", "JH QH KH AH QS"]


def decision(hands: list[str], upcard: str, script: str, *, dealer: int, **options: Any) -> Action:
    """What the heuristic on turn decides after ``script`` (``"SEAT ACTION, ..."``), told it all through the SDK."""
    return bot_decision(lambda: HeuristicBot(strict=True), hands, upcard, script, dealer=dealer, **options)


BID_PASSES = "0 pass, 1 pass, 2 pass, 3 order, 3 discard QS"


def test_heuristic_does_not_overtake_a_partner_who_is_winning() -> None:
    assert decision(HANDS, "9H", f"{BID_PASSES}, 0 KS, 1 9S", dealer=3) == action("play TS")


def test_heuristic_trumps_in_with_its_lowest_winning_trump() -> None:
    assert decision(HANDS, "9H", f"{BID_PASSES}, 0 9C, 1 KC, 2 AC", dealer=3) == action("play 9H")


def test_heuristic_maker_pulls_trump_with_the_right_bower() -> None:
    assert decision(HANDS, "9H", f"{BID_PASSES}, 0 9C, 1 KC, 2 AC, 3 9H", dealer=3) == action("play JH")


def test_heuristic_dealer_keeps_trump_and_declines_the_upcard_only_when_it_is_worst() -> None:
    assert decision(HANDS, "9H", "0 order", dealer=3) == action("discard QS")
    hands = ["KS 9C TC QD KD", "9S JC QC KC 9D", "AS TS AC TD AD", "JH QH KH AH JD"]
    assert decision(hands, "9H", "0 order", dealer=3) == action("discard 9H")


def test_heuristic_discard_voids_a_short_off_suit() -> None:
    assert best_discard(cards("JH AH TC 9S TS KH"), Suit.H, cards("JH AH TC 9S TS KH")) == cards("TC")[0]
    assert best_discard(cards("JH AH AC 9S TS KH"), Suit.H, cards("JH AH AC 9S TS KH")) == cards("9S")[0]


def test_heuristic_orders_up_strong_hands_alone_only_when_very_strong() -> None:
    strong = ["JH JD AH KS AC", "9S JC QC KC 9D", "AS TS TC TD AD", "QH KH QS KD QD"]
    assert decision(strong, "9H", "", dealer=3) == action("order")
    very_strong = ["JH JD AH KH AC", "9S JC QC KC 9D", "AS TS TC TD AD", "QH KS QS KD QD"]
    assert decision(very_strong, "9H", "", dealer=3) == action("order alone")
    weak = ["9C TC 9D TS QS", "9S JC QC KC KD", "AS KS AC TD AD", "JH QH KH AH JD"]
    assert decision(weak, "TH", "", dealer=3) == action("pass")


def test_heuristic_stuck_dealer_calls_its_best_suit_but_passes_when_free_to() -> None:
    hands = ["KH TC QD KD AD", "AS AC QC KC 9D", "TS JS QH TD JD", "JC 9C QS KS TH"]
    script = "0 pass, 1 pass, 2 pass, 3 pass, 0 pass, 1 pass, 2 pass"
    assert decision(hands, "9S", script, dealer=3, stick_the_dealer=True) == action("call C")
    assert decision(hands, "9S", script, dealer=3) == action("pass")


def test_the_strength_count_values_the_top_trumps_by_their_power() -> None:
    """Hearts trump: right, left, ace and king (1 + 0.85 + 0.75 + 0.6) and two trumps beyond two (0.4); a lone ace
    of clubs (0.7); void in diamonds and in spades with two trumps or more (0.3 each). (The table is keyed by trump
    power, which moved when the card ids did: a table left on the old powers counts every ace, king and queen of
    trump as low.)"""
    assert strength(cards("JH JD AH KH AC"), Suit.H) == pytest.approx(1 + 0.85 + 0.75 + 0.6 + 0.4 + 0.7 + 0.3 + 0.3)
    # The queen and a low trump; an ace with two more of its suit (0.5); void in clubs and diamonds.
    assert strength(cards("QH 9H AS KS QS"), Suit.H) == pytest.approx(0.5 + 0.4 + 0.5 + 0.3 + 0.3)
