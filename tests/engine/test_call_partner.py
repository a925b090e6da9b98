"""Call-partner Euchre (five-hand, call-ace, seven-hand; docs/rules.md section 16): every fine point on a hand-built
deal, the scoring table, the game's end, and what each seat may know."""

from __future__ import annotations

import random
from typing import Any

import pytest
from helpers import make_hand

from arena.engine.actions import GO_ALONE, CallPartner, OrderUp, Play, parse_action
from arena.engine.cards import Card
from arena.engine.game import Game
from arena.engine.hand import HandState, Phase
from arena.engine.options import make_rules
from arena.engine.record import game_record, replay
from arena.engine.scoring import call_partner_points
from arena.engine.view import hand_view
from arena.errors import IllegalActionError, OptionsError

# Dealer 0, eldest 1. Seat 1 holds the hearts; the kitty is 7D 8D 7S 8S 9S JC (deck order).
DEAL = ("7C 8C 9C TC QC", "JH JD AH KH QH", "AS KS QS JS TS", "AD KD QD TD 9D", "AC KC 7H 8H 9H")
UPCARD = "TH"


def do(hand: HandState | Game, script: str) -> None:
    """Apply ``SEAT ACTION`` steps, comma-separated: ``pass``, ``order``, ``call H``, ``discard 9C``, ``partner AS``
    (or ``partner AS KD``), ``alone``, ``play JH``; each names the seat on turn."""
    for step in script.split(","):
        seat, verb, *args = step.split()
        data: dict[str, Any] = {"type": verb}
        if verb == "order":
            data = {"type": "order_up"}
        elif verb == "call":
            data["suit"] = args[0]
        elif verb == "name":
            data = {"type": "name_trump", "suit": args[0]}
        elif verb in ("discard", "play"):
            data["card"] = args[0]
        elif verb == "partner":
            data = {"type": "call_partner", "cards": args}
        elif verb == "alone":
            data = {"type": "go_alone"}
        hand.apply(parse_action(data), int(seat))


def five(**options: Any) -> HandState:
    return make_hand("five-hand", DEAL, UPCARD, **options)


def phase(hand: HandState) -> Phase:
    return hand.phase


def view(hand: HandState, seat: int) -> dict[str, Any]:
    return dict(hand_view(hand, seat, hand_number=0, scores=(0,) * hand.players).to_json())


def calls(hand: HandState) -> list[str]:
    return [" ".join(map(str, a.cards)) if isinstance(a, CallPartner) else a.type for a in hand.legal_actions()]


def play_out(hand: HandState) -> None:
    """Play the hand to its end, each seat its first legal card."""
    while not hand.is_over():
        hand.apply(hand.legal_actions()[0])


def test_a_bid_carries_no_alone_flag_and_nobody_sits_out() -> None:
    hand = five()
    assert hand.legal_actions() == (parse_action({"type": "pass"}), OrderUp(False))
    with pytest.raises(IllegalActionError):
        hand.apply(OrderUp(True), 1)
    do(hand, "1 order, 0 discard 7C, 1 alone")
    assert hand.out == set() and hand.alone
    assert phase(hand) is Phase.PLAY and hand.current_seat() == 1  # eldest leads


def test_fine_point_1_the_call_comes_after_the_dealers_exchange() -> None:
    hand = five()
    do(hand, "1 order")
    assert phase(hand) is Phase.DISCARD and hand.current_seat() == 0
    do(hand, "0 discard 7C")
    assert phase(hand) is Phase.CALL_PARTNER and hand.current_seat() == 1
    # any card of the pack not in the maker's hand, the dealer's discard and the upcard (ordered up) among them
    legal = calls(hand)
    assert legal[0] == "go_alone" and len(legal) == 1 + 32 - 5
    assert {"7C", "TH", "JC", "AS"} <= set(legal) and not {"JH", "AH"} & set(legal)
    do(hand, "1 partner 7C")  # the dealer's discard: no partner, and only the dealer can know it
    assert hand.partners == ()
    assert [view(hand, s)["partner_call"]["partner"] for s in range(5)] == [False] * 5


def test_fine_point_2_calling_the_upcard_the_dealer_kept_makes_him_the_partner() -> None:
    hand = five()
    do(hand, "1 order, 0 discard 7C, 1 partner TH")
    assert hand.partners == (0,)
    assert view(hand, 0)["partner_call"] == {"cards": ["TH"], "revealed": [], "partner": True}
    assert view(hand, 2)["partner_call"] == {"cards": ["TH"], "revealed": [], "partner": False}


def test_fine_point_2_a_declined_upcard_called_is_nobodys_and_only_the_dealer_knows_which() -> None:
    hand = five()
    do(hand, "1 order, 0 discard TH, 1 partner TH")
    assert hand.partners == ()
    assert view(hand, 0)["upcard_taken"] is False and view(hand, 0)["discarded"] == "TH"
    for seat in range(1, 5):  # the others cannot tell a kept upcard from a declined one
        assert view(hand, seat)["upcard_taken"] is None and view(hand, seat)["discarded"] is None
    kept = five()
    do(kept, "1 order, 0 discard 7C")
    assert [view(kept, s)["upcard_taken"] for s in range(5)] == [True, None, None, None, None]


def test_a_dealer_who_made_trump_may_not_call_his_own_discard() -> None:
    """He knows where it lies: calling it would be going alone under another name (and alone where going alone is
    not allowed). docs/rules.md section 16 states this choice."""
    hand = five(going_alone=False)
    do(hand, "1 pass, 2 pass, 3 pass, 4 pass, 0 order, 0 discard 7C")
    assert hand.maker == 0 and phase(hand) is Phase.CALL_PARTNER
    assert "7C" not in calls(hand) and "go_alone" not in calls(hand) and "8C" not in calls(hand)
    with pytest.raises(IllegalActionError):
        do(hand, "0 partner 7C")
    ace = make_hand("call-ace", ("AC 8C 9C TC QC", *DEAL[1:4], "7C KC 7H 8H 9H"), UPCARD)
    do(ace, "1 pass, 2 pass, 3 pass, 4 pass, 0 order, 0 discard AC")
    assert "AC" not in calls(ace) and calls(ace) == ["go_alone", "AD", "AS"]


def test_a_turned_down_upcard_cannot_be_called() -> None:
    hand = five()
    do(hand, "1 pass, 2 pass, 3 pass, 4 pass, 0 pass, 1 call D")
    assert phase(hand) is Phase.CALL_PARTNER
    assert "TH" not in calls(hand) and "AD" in calls(hand)
    with pytest.raises(IllegalActionError):
        do(hand, "1 partner TH")


def test_fine_point_3_the_partner_follows_suit_as_anyone() -> None:
    hand = five()
    do(hand, "1 order, 0 discard 7C, 1 partner AS, 1 play JH, 2 play AS")  # no heart: any card, the called one too
    assert hand.partners == (2,)
    assert view(hand, 3)["partner_call"]["revealed"] == [2]
    fresh = five()
    do(fresh, "1 order, 0 discard 7C, 1 partner KS, 1 play JH")
    assert {str(a.card) for a in fresh.legal_actions() if isinstance(a, Play)} == {"AS", "KS", "QS", "JS", "TS"}


def test_fine_point_4_no_card_of_his_own_but_any_trump_under_any_card() -> None:
    hand = five()
    do(hand, "1 pass, 2 pass, 3 pass, 4 pass, 0 pass, 1 call S")  # spades: JC is the left bower, in the kitty
    assert {"JS", "JC", "AS"} <= set(calls(hand)) and "JH" not in calls(hand)
    joker = make_hand("five-hand", DEAL, UPCARD, deck=33)  # the joker is in the kitty: callable under any_card
    do(joker, "1 order, 0 discard 7C")
    assert "JK" in calls(joker)
    plain = five(call="non_trump")
    do(plain, "1 pass, 2 pass, 3 pass, 4 pass, 0 pass, 1 call S")
    assert not {"JS", "JC", "AS", "KS", "7S"} & set(calls(plain)) and {"AD", "AC", "AH"} - {"AH"} <= set(calls(plain))


def test_call_ace_names_the_ace_of_a_suit_but_trump_that_he_does_not_hold() -> None:
    hand = make_hand("call-ace", DEAL, UPCARD)
    do(hand, "1 order, 0 discard 7C")
    assert calls(hand) == ["go_alone", "AC", "AD", "AS"]  # hearts is trump; AH is his own anyway
    do(hand, "1 partner AD")
    assert hand.partners == (3,)


def test_call_ace_holding_every_other_ace_he_must_go_alone_whatever_going_alone_says() -> None:
    deal = ("7C 8C 9C TC QC", "AC AD AS KH QH", "KS QS JS TS 9S", "KD QD TD 9D 8D", "KC JC 7H 8H 9H")
    hand = make_hand("call-ace", deal, "TH", going_alone=False)
    do(hand, "1 order, 0 discard 7C")
    assert hand.legal_actions() == (GO_ALONE,)
    partnered = make_hand("call-ace", DEAL, UPCARD, going_alone=False)
    do(partnered, "1 order, 0 discard 7C")
    assert "go_alone" not in calls(partnered)  # going_alone = false: he must call


def test_two_called_cards_are_different_and_held_by_one_or_two() -> None:
    deal6 = (*DEAL, "9S 8S 7S 7D 8D")  # six players: the kitty is JC alone
    hand = make_hand("five-hand", deal6, UPCARD, players=6, called_cards=2)
    do(hand, "1 order, 0 discard 7C")
    legal = calls(hand)
    assert all(len(c.split()) == 2 and c.split()[0] != c.split()[1] for c in legal[1:])
    assert len(legal) == 1 + (32 - 5) * (32 - 6) // 2
    do(hand, "1 partner AS KS")  # both held by seat 2: one partner
    assert hand.partners == (2,)
    other = make_hand("five-hand", deal6, UPCARD, players=6, called_cards=2)
    do(other, "1 order, 0 discard 7C, 1 partner AS JC")  # JC is the kitty: seat 2 his only partner
    assert other.partners == (2,)
    with pytest.raises(IllegalActionError):
        do(make_hand("five-hand", deal6, UPCARD, players=6, called_cards=2), "1 order, 0 discard 7C, 1 partner AS")


def test_fine_point_5_the_partner_is_told_to_nobody_until_he_plays_the_card() -> None:
    hand = five()
    do(hand, "1 order, 0 discard 7C, 1 partner KD")
    for seat in range(5):
        assert view(hand, seat)["partner_call"] == {"cards": ["KD"], "revealed": [], "partner": seat == 3}
    while not any(c == Card.parse("KD") for t in hand.tricks for _, c in t.cards) and not hand.is_over():
        seat = hand.current_seat()
        assert seat is not None
        legal = hand.legal_actions()
        kd = [a for a in legal if isinstance(a, Play) and str(a.card) == "KD"]
        hand.apply(kd[0] if kd and hand.trick else legal[-1] if seat == 3 else legal[0])
    assert all(view(hand, s)["partner_call"]["revealed"] == [3] for s in range(5))
    assert "partner_call" not in hand_view(make_hand("four-hand-32", DEAL[:4], "9S"), 0, hand_number=0, scores=(0,) * 4)


def test_fine_point_6_the_record_states_the_partners_and_replays() -> None:
    rules = make_rules("five-hand", {"points_to_win": 3})
    game = Game(rules, seed=11)
    while not game.is_over():
        game.apply(game.legal_actions()[-1])
    record = game_record(game)
    played = [h["result"] for h in record["hands"] if not h["result"]["passed_out"]]
    assert played and all("partners" in r for r in played)
    assert all(a["type"] != "call_partner" or "cards" in a for h in record["hands"] for a in h["actions"])
    assert replay(record).scores() == game.scores()


@pytest.mark.parametrize(
    ("won", "alone", "partners", "options", "maker_side", "defenders"),
    [
        (3, False, (2,), {}, 1, 0),
        (4, True, (), {}, 1, 0),
        (5, False, (2,), {}, 3, 0),
        (5, False, (2,), {"march_points": 2}, 2, 0),
        (5, True, (), {}, 5, 0),  # lone march: the number of players
        (5, True, (), {"lone_march_points": 4}, 4, 0),
        (5, False, (), {}, 5, 0),  # a buried call scores as alone
        (5, False, (), {"buried_call": "partnered"}, 3, 0),
        (2, False, (2,), {}, 0, 2),  # euchred: each defender +2
        (0, True, (), {}, 0, 2),
    ],
)
def test_the_scoring_table(
    won: int, alone: bool, partners: tuple[int, ...], options: dict[str, Any], maker_side: int, defenders: int
) -> None:
    rules = make_rules("five-hand", options)
    makers = {1, *partners}
    points = call_partner_points(rules.options, 5, makers, won, alone=alone)
    assert points == tuple(maker_side if s in makers else defenders for s in range(5))


def test_a_hand_scores_by_the_tricks_of_maker_and_partner_together() -> None:
    hand = five()
    do(hand, "1 order, 0 discard 7C, 1 partner AS")
    play_out(hand)
    assert hand.result is not None and hand.result.partners == (2,)
    won = sum(1 for t in hand.tricks if t.winner in (1, 2))
    expected = call_partner_points(hand.rules.options, 5, {1, 2}, won, alone=False)
    assert hand.result.points == expected


def test_the_game_goes_on_while_the_top_score_is_shared() -> None:
    rules = make_rules("five-hand", {"points_to_win": 2})
    game, rng = Game(rules, seed=3), random.Random(3)
    while not game.is_over():
        game.apply(rng.choice(game.legal_actions()))
    for scores in game.scores_after[:-1]:
        top = max(scores)
        assert top < 2 or scores.count(top) > 1
    final = game.scores_after[-1]
    assert max(final) >= 2 and final.count(max(final)) == 1 and game.winners == (final.index(max(final)),)


def test_a_forfeit_goes_to_the_best_of_the_others() -> None:
    game = Game(make_rules("five-hand"), seed=1)
    game.side_scores = [3, 5, 5, 1, 0]
    game.forfeit(2)
    assert game.winners == (1,)


@pytest.mark.parametrize(
    ("variant", "options", "problem"),
    [
        ("five-hand", {"called_cards": 2}, "'called_cards'"),
        ("five-hand", {"lone_call_for_best": "one"}, "'lone_call_for_best'"),
        ("five-hand", {"rubber": True}, "'rubber'"),
        ("five-hand", {"defend_alone": True}, "'defend_alone'"),
        ("five-hand", {"best_order": "receive_first"}, "'best_order'"),
        ("five-hand", {"players": 4}, "'players'"),
        ("five-hand", {"players": 7, "deck": 32}, "'deck'"),
        ("call-ace", {"players": 7}, "'players'"),
        ("seven-hand", {"players": 6}, "'players'"),
        ("five-hand", {"sides": "three_teams_of_two"}, "'sides'"),
    ],
)
def test_incoherent_options_are_refused_naming_the_option(variant: str, options: dict[str, Any], problem: str) -> None:
    with pytest.raises(OptionsError, match=problem):
        make_rules(variant, options)


@pytest.mark.parametrize(("players", "deck"), [(5, 32), (6, 32), (7, 36)])
def test_the_pack_fits_the_table(players: int, deck: int) -> None:
    rules = make_rules("five-hand", {"players": players})
    assert rules.options.deck == deck and rules.players == players and rules.sides == players
    seven = make_rules("seven-hand", {"deck": 37})
    game = Game(seven, seed=2)
    assert len(game.hand.deal.kitty) == 1 and all(len(h) == 5 for h in game.hand.deal.hands)


def test_a_benny_deal_has_no_lone_call_but_a_forced_one() -> None:
    hand = make_hand("five-hand", DEAL, "JK", deck=33)
    assert phase(hand) is Phase.NAME_TRUMP
    do(hand, "0 name H, 0 discard 7C")
    assert phase(hand) is Phase.CALL_PARTNER and hand.current_seat() == 0
    assert "go_alone" not in calls(hand) and "JH" in calls(hand)  # (the dealer is the maker: the joker is his)
