"""Railroad Euchre (docs/rules.md section 13): every fine point on a hand-built deal."""

from __future__ import annotations

import logging

import pytest
from helpers import act, legal_texts, make_hand

from arena.bots.heuristic_bot import HeuristicBot
from arena.bots.random_bot import RandomBot
from arena.engine.cards import Card, Suit
from arena.engine.game import Game
from arena.engine.hand import HandState, Phase
from arena.engine.options import make_rules
from arena.engine.record import game_record, replay
from arena.engine.view import hand_view
from arena.errors import IllegalActionError, OptionsError
from arena.play.local import play_game
from arena.tournament.ranking import comparisons

# Dealer 0 (eldest 1). Seat 2, the dealer's partner, holds the hearts; the joker is in the kitty.
DEAL = ("TC JC QC KC AC", "9D TD QD KD AD", "JH JD AH KH QH", "9S TS QS KS AS")
UPCARD = "9H"


def phase(hand: HandState) -> Phase:
    """The hand's phase (a call, so that type checkers do not narrow it across actions)."""
    return hand.phase


def seen(hand: HandState, seat: int) -> dict[str, object]:
    """What ``seat``'s view says of the calls for best."""
    view = hand_view(hand, seat, hand_number=0, scores=(0, 0, 0, 0)).to_json()
    return dict(view["best"])


def test_the_whole_order_after_a_lone_bid_and_what_each_seat_learns() -> None:
    hand = make_hand("railroad", DEAL, UPCARD)
    act(hand, "1 pass, 2 order alone")
    # the dealer sits out (his partner went alone in round 1): no exchange; the maker is asked to call for best
    assert hand.out == {0} and hand.upcard_taken is False
    assert phase(hand) is Phase.CALL_BEST and hand.current_seat() == 2
    assert legal_texts(hand) == ["pass", *(f"call_for_best {c}" for c in ["JD", "JH", "QH", "KH", "AH"])]
    act(hand, "2 best QH")
    # the dealer gives: any of his five cards, or the upcard he did not take up
    assert phase(hand) is Phase.GIVE_BEST and hand.current_seat() == 0
    assert legal_texts(hand) == [f"give_best {c}" for c in ["9H", "TC", "JC", "QC", "KC", "AC"]]
    act(hand, "0 give 9H")
    assert sorted(map(str, hand.hands[2])) == sorted(["9H", "JH", "KH", "AH", "JD"])
    # then the defenders, from the dealer's left; a lone defender may call for his partner's best too
    assert phase(hand) is Phase.DEFEND and hand.current_seat() == 1
    act(hand, "1 pass, 3 defend")
    assert hand.out == {0, 1} and phase(hand) is Phase.CALL_BEST and hand.current_seat() == 3
    act(hand, "3 best 9S, 1 give AD")
    assert phase(hand) is Phase.PLAY and hand.current_seat() == 2  # the active seat nearest the dealer's left
    assert len(hand.hands[2]) == len(hand.hands[3]) == 5
    # what each seat may know: the calls are public; a discard its own; a passed card to giver and receiver
    assert seen(hand, 2) == {
        "caller": None,
        "calls": [{"seat": 2, "called": True}, {"seat": 3, "called": True}],
        "passed": [{"giver": 0, "receiver": 2, "card": "9H"}, {"giver": 1, "receiver": 3, "card": None}],
        "discards": ["QH"],
    }
    assert seen(hand, 1)["passed"] == [
        {"giver": 0, "receiver": 2, "card": None},
        {"giver": 1, "receiver": 3, "card": "AD"},
    ]
    assert seen(hand, 0)["discards"] == [] and seen(hand, 0)["passed"][0]["card"] == "9H"
    assert seen(hand, 1)["discards"] == [] and seen(hand, 3)["discards"] == ["9S"]
    # the other variants' views hold no call for best at all
    four = make_hand("four-hand", DEAL, UPCARD)
    assert "best" not in hand_view(four, 0, hand_number=0, scores=(0, 0, 0, 0)).to_json()


def test_a_lone_defender_calls_on_the_dealer_who_gives_from_his_hand_after_his_exchange() -> None:
    hand = make_hand("railroad", DEAL, UPCARD, defend_alone=True)
    act(hand, "1 order alone, 0 discard TC, 1 pass")  # the dealer takes up 9H; the lone maker does not call
    assert phase(hand) is Phase.DEFEND and hand.current_seat() == 2
    act(hand, "2 defend, 2 best JD")
    assert phase(hand) is Phase.GIVE_BEST and hand.current_seat() == 0
    assert sorted(legal_texts(hand)) == sorted(f"give_best {c}" for c in ["9H", "JC", "QC", "KC", "AC"])
    act(hand, "0 give 9H")
    assert hand.out == {0, 3} and sorted(map(str, hand.hands[2])) == sorted(["JH", "AH", "KH", "QH", "9H"])


def test_declining_is_a_pass_and_the_partner_is_not_asked() -> None:
    hand = make_hand("railroad", DEAL, UPCARD)
    act(hand, "1 pass, 2 order alone, 2 pass")
    assert hand.calls == [(2, False)] and hand.passed == []
    assert phase(hand) is Phase.DEFEND  # straight to the defenders
    act(hand, "1 pass, 3 pass")
    assert phase(hand) is Phase.PLAY and len(hand.hands[2]) == 5
    with pytest.raises(IllegalActionError):
        act(hand, "2 best JH")


def test_a_dealer_who_gives_his_own_card_leaves_the_upcard_out_of_play() -> None:
    hand = make_hand("railroad", DEAL, UPCARD)
    act(hand, "1 pass, 2 order alone, 2 best QH, 0 give AC, 1 pass, 3 pass")
    assert Card.parse("9H") not in {c for h in hand.hands for c in h}
    assert Card.parse("AC") in hand.hands[2]


def test_a_lone_dealer_discards_twice_and_may_put_away_the_upcard_or_a_trump() -> None:
    hand = make_hand("railroad", DEAL, UPCARD)
    act(hand, "1 pass, 2 pass, 3 pass, 0 order alone")
    assert phase(hand) is Phase.DISCARD and hand.current_seat() == 0  # his exchange first
    act(hand, "0 discard TC")
    assert phase(hand) is Phase.CALL_BEST and hand.current_seat() == 0
    assert "call_for_best 9H" in legal_texts(hand)  # the upcard he just took up may go too
    act(hand, "0 best 9H, 2 give JH")
    assert hand.discarded == Card.parse("TC") and hand.best_discards == [(0, Card.parse("9H"))]
    assert Card.parse("JH") in hand.hands[0] and len(hand.hands[0]) == 5


def test_receive_first_the_caller_may_discard_the_card_he_was_given() -> None:
    hand = make_hand("railroad", DEAL, UPCARD, best_order="receive_first")
    act(hand, "1 pass, 2 order alone")
    assert legal_texts(hand) == ["pass", "call_for_best"]
    act(hand, "2 best, 0 give AC")
    assert phase(hand) is Phase.BEST_DISCARD and hand.current_seat() == 2 and len(hand.hands[2]) == 6
    act(hand, "2 discard AC")
    assert hand.best_discards == [(2, Card.parse("AC"))] and phase(hand) is Phase.DEFEND


def test_a_turned_joker_proposes_joker_suit_which_is_then_turned_down() -> None:
    deal = ("TC JC QC KC AC", "9D TD QD KD AD", "JH JD AH KH QH", "9S TS QS KS AS")
    hand = make_hand("railroad", deal, "JK", joker_suit="S")
    assert phase(hand) is Phase.BID1  # not the Benny: round 1 is about spades
    act(hand, "1 pass, 2 pass, 3 order")
    assert hand.trump == Suit.S and phase(hand) is Phase.DISCARD
    assert "discard JK" in legal_texts(hand)  # taken "in the usual way": another seat made it, he may decline
    hand = make_hand("railroad", deal, "JK", joker_suit="S")
    act(hand, "1 pass, 2 pass, 3 pass, 0 pass")
    assert not any(text.startswith("call S") for text in legal_texts(hand))
    hand = make_hand("railroad", deal, "JK", joker_upcard="dealer_names")
    assert phase(hand) is Phase.NAME_TRUMP  # the Benny rule: no bidding, so no lone hand and no call
    act(hand, "0 name C, 0 discard TC")
    assert phase(hand) is Phase.PLAY and hand.calls == []


@pytest.mark.parametrize(
    ("options", "defence", "points"),
    [
        ({}, "2 pass, 0 pass", (2, 0, 2, 0)),  # euchred by two defenders: 2
        ({"lone_euchred_points": 4}, "2 pass, 0 pass", (4, 0, 4, 0)),
        ({}, "2 pass, 0 defend", (4, 0, 4, 0)),  # euchred by a lone defender: 4, whatever the option
    ],
)
def test_a_lone_maker_euchred_scores_as_the_options_say(
    options: dict[str, object], defence: str, points: tuple[int, ...]
) -> None:
    # seat 1, holding no heart, goes alone on the hearts upcard and takes no trick; the defenders are asked from
    # the dealer's left: seat 2, then the dealer
    deal = ("JH JD AH KH QH", "9D TD QD KD AD", "TC JC QC KC AC", "9S TS QS KS AS")
    hand = make_hand("railroad", deal, UPCARD, defender_calls_best=False, **options)
    act(hand, f"1 order alone, 0 discard 9H, 1 pass, {defence}")
    while not hand.is_over():
        hand.apply(hand.legal_actions()[-1])
    assert hand.result is not None and hand.tricks_won()[1] < 3
    assert hand.result.points == points


def test_incoherent_options_are_refused_naming_the_option() -> None:
    cases = {
        "call_for_best": {"going_alone": False, "defend_alone": False, "defender_calls_best": False},
        "defender_calls_best": {"defend_alone": False},
        "joker_upcard": {"deck": 24},
        "slam": {"slam": True, "rubber": True},
        "laps": {"laps": True},
    }
    for name, overrides in cases.items():
        with pytest.raises(OptionsError, match=f"rule option '{name}'"):
            make_rules("railroad", overrides)


def test_laps_carry_the_excess_into_the_next_game_of_a_rubber() -> None:
    rules = make_rules("railroad", {"rubber": True, "laps": True, "points_to_win": 3})
    for seed in range(40):
        game = Game(rules, seed)
        while not game.is_over():
            game.apply(game.legal_actions()[-1])
        for first in game.games[:-1]:
            top = max(first.final_scores)
            carried = top - 3
            start = game.scores_after[first.last_hand + 1]
            result = game.hands[first.last_hand + 1].result
            assert result is not None
            gained = result.points
            winner = first.winners[0]
            assert start[winner] == carried + gained[winner]
            if carried > 0:
                return
    pytest.fail("no rubber game was won beyond its target")


def test_a_slam_counts_as_two_games_won() -> None:
    rules = make_rules("railroad", {"slam": True, "points_to_win": 2})
    for seed in range(60):
        game = Game(rules, seed)
        while not game.is_over():
            game.apply(game.legal_actions()[-1])
        record = game_record(game)
        loser = max(s for i, s in enumerate(record["final_scores"]) if i not in game.winners)
        assert game.slam == (loser == 0) and record.get("slam", False) == game.slam
        assert len(comparisons(record, "c")) == (2 if game.slam else 1)
        if game.slam:
            assert game_record(replay(record)) == record
            return
    pytest.fail("no slam in 60 games")


def test_bots_play_railroad_in_every_order_and_their_tables_agree_with_the_views(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    for options in ({}, {"best_order": "receive_first", "lone_euchred_points": 4}):
        for seed in range(4):
            bots = [HeuristicBot(), RandomBot(), HeuristicBot(), RandomBot()]
            for bot in bots:
                bot.check_table = True
            record = play_game([b.handle for b in bots], "railroad", options, seed, views=[True, False, False, True])
            assert "forfeit" not in record and not record.get("violations")
            assert game_record(replay(record)) == {k: v for k, v in record.items() if k in game_record(replay(record))}
    assert not [r for r in caplog.records if "disagreed" in r.getMessage()]
