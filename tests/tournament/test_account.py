"""arena replay: the account of a game names every deal, bid, card, trick winner, score and forfeit of its record."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from arena.engine.actions import PASS
from arena.engine.game import Game
from arena.engine.hand import HandState
from arena.engine.options import make_rules
from arena.engine.playout import random_game
from arena.engine.record import deal_json, game_record
from arena.play.local import play_game
from arena.tournament.account import describe, sort_cards
from tests.helpers import act, make_deal, same_side

SUITS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
CARD = re.compile(r"\b(?:[789TJQKA][CDHS]|JK)\b")
NAMES = ["alice", "bob", "carol", "dave"]

CASES: list[tuple[str, dict[str, Any]]] = [
    ("two-hand", {}),
    ("two-hand", {"stick_the_dealer": True, "dealer_exchange": "mandatory"}),
    ("two-hand", {"rubber": True, "points_to_win": 3}),
    ("three-hand", {}),
    ("three-hand", {"stick_the_dealer": True}),
    ("three-hand", {"dealer_exchange": "mandatory", "points_to_win": 5}),
    ("four-hand", {}),
    ("four-hand", {"defend_alone": True}),
    ("four-hand", {"stick_the_dealer": True, "dealer_exchange": "mandatory"}),
    ("four-hand", {"rubber": True, "points_to_win": 4, "defend_alone": True}),
    ("four-hand-32", {"defend_alone": True, "stick_the_dealer": True}),
    ("four-hand-32", {"dealer_exchange": "mandatory"}),
    ("british", {}),
    ("british", {"defend_alone": True, "dealer_exchange": "mandatory"}),
    ("british", {"rubber": True, "points_to_win": 5, "stick_the_dealer": True}),
]


def random_record(variant: str, options: dict[str, Any], seed: int) -> dict[str, Any]:
    """The record of a whole game of random legal play; odd seeds pass more often, so that hands get passed out."""
    rules, rng = make_rules(variant, options), random.Random(seed)
    if seed % 2 == 0:
        return game_record(random_game(rules, seed, rng))
    game = Game(rules, seed)
    while not game.is_over():
        legal = game.legal_actions()
        game.apply(PASS if PASS in legal and rng.random() < 0.6 else rng.choice(legal))
    return game_record(game)


def sections(text: str) -> list[str]:
    """The account cut before every hand: the header, then one block per hand, the last one running to the end."""
    return re.split(r"\n(?=Hand \d+, )", text)


def side_label(names: list[str], seat: int) -> str:
    """How the account names a scoring side."""
    return f"{names[seat % 2]} & {names[seat % 2 + 2]}" if len(names) == 4 else names[seat]


def scores_text(names: list[str], scores: list[int]) -> str:
    """How the account writes per-seat scores (once per side)."""
    seats = range(2) if len(names) == 4 else range(len(names))
    return ", ".join(f"{side_label(names, s)} {scores[s]}" for s in seats)


def bid_phrases(names: list[str], dealer: int, upcard: str, actions: list[dict[str, Any]]) -> list[str]:
    """What the account must say about each action before play, in order."""
    phrases, made = [], False
    for a in actions:
        who = f"seat {a['seat']} ({names[a['seat']]})"
        kind = a["type"]
        alone = " alone" if a.get("alone") else ""
        if kind == "pass":
            phrases.append(f"{who} declines to defend alone" if made else f"{who} passes")
        elif kind == "order_up":
            phrases.append(f"{who} orders up {SUITS[upcard[1]]}{alone}")
        elif kind == "call":
            phrases.append(f"{who} calls {SUITS[a['suit']]}{alone}")
        elif kind == "name_trump":
            phrases.append(f"dealer {who} names {SUITS[a['suit']]} (Benny turned up)")
        elif kind == "defend_alone":
            phrases.append(f"{who} defends alone")
        elif kind == "discard" and a["card"] == upcard and upcard != "JK":
            phrases.append(f"dealer {who} declines the upcard (discards it)")
        elif kind == "discard":
            phrases.append(f"dealer {who} takes the {'Benny' if upcard == 'JK' else 'upcard'} and discards {a['card']}")
        made = made or kind in ("order_up", "call", "name_trump")
    return phrases


def assert_in_order(block: str, phrases: list[str]) -> None:
    """Each phrase occurs in ``block``, after the one before it."""
    at = 0
    for phrase in phrases:
        found = block.find(phrase, at)
        assert found >= 0, f"missing (in order): {phrase!r}\n{block}"
        at = found + len(phrase)


def check_deal(block: str, names: list[str], deal: dict[str, Any]) -> None:
    """Each seat's line holds exactly its five cards; the upcard and the kitty are shown."""
    for seat, cards in enumerate(deal["hands"]):
        line = re.search(rf"^  seat {seat} {names[seat]}\b.*$", block, re.M)
        assert line is not None, f"no deal line for seat {seat}\n{block}"
        assert sorted(CARD.findall(line.group(0).split(": ", 1)[1])) == sorted(cards)
    assert f"  upcard {deal['upcard']}; kitty {' '.join(deal['kitty'])}" in block


def check_account(record: dict[str, Any], text: str) -> None:
    """The account shows every part of the record; fails naming the first thing it leaves out or gets wrong."""
    names, n = record["players"], len(record["players"])
    for name in names:
        assert name in text
    blocks = sections(text)
    assert len(blocks) == 1 + len(record["hands"]) + ("forfeit" in record)
    assert f"seed {record['seed']}" in blocks[0] and record["variant"] in blocks[0]
    for index, (hand, block) in enumerate(zip(record["hands"], blocks[1:], strict=False)):
        result = hand["result"]
        assert block.startswith(f"Hand {index}, dealer seat {hand['dealer']} ({names[hand['dealer']]})")
        check_deal(block, names, hand["deal"])
        assert_in_order(block, bid_phrases(names, hand["dealer"], hand["deal"]["upcard"], hand["actions"]))
        trick_lines = re.findall(r"^  trick \d+: .*$", block, re.M)
        assert len(trick_lines) == len(result["tricks"])
        for number, (line, trick) in enumerate(zip(trick_lines, result["tricks"], strict=True), 1):
            assert line.startswith(f"  trick {number}: {names[trick['leader']]} leads ")
            assert CARD.findall(line.split(": ", 1)[1]) == [c["card"] for c in trick["cards"]]
            for play in trick["cards"]:
                assert f"{names[play['seat']]} {play['card']}" in line or f"{names[play['seat']]} leads" in line
            assert line.endswith(f"-> {names[trick['winner']]} wins")
        if result["passed_out"]:
            assert "passed out" in block
        else:
            maker = result["maker"]
            won = sum(1 for t in result["tricks"] if same_side(n, t["winner"], maker))
            outcome = "march" if won == 5 else "made" if won >= 3 else "euchred"
            assert f"result: maker seat {maker} ({names[maker]}), {SUITS[result['trump']]}" in block
            assert f"makers took {won} trick{'' if won == 1 else 's'}, {outcome}; " in block
            for seat, points in enumerate(result["points"]):
                if points:
                    assert f"{side_label(names, seat)} +{points}" in block
        assert f"  scores: {scores_text(names, result['scores_after'])}" in block
    ending = text[text.index("\nFinal scores:") :]
    assert f"Final scores: {scores_text(names, record['final_scores'])}\n" in ending
    winners = re.search(r"^Winners: (.*)$", ending, re.M)
    assert winners is not None
    assert set(winners.group(1).split(" and ")) == {side_label(names, s) for s in record["winners"]}
    if "rubber" in record:
        rubber = record["rubber"]
        assert f"points {scores_text(names, rubber['points'])}" in ending
        assert ending.count("Rubber game ") == len(rubber["games"])
    else:
        assert "Rubber" not in text
    if "forfeit" in record:
        f = record["forfeit"]
        assert (
            f"Forfeit: seat {f['seat']} ({names[f['seat']]}) forfeited the game during hand {f['hand_number']}"
            in ending
        )
        for key in ("kind", "detail"):
            if key in f:
                assert str(f[key]) in ending
    else:
        assert "Forfeit" not in text


# ---- every variant and option combination ----


@pytest.mark.parametrize(("variant", "options"), CASES)
def test_account_shows_every_deal_bid_card_trick_winner_and_score(variant: str, options: dict[str, Any]) -> None:
    for seed in range(6):
        record = random_record(variant, options, seed)
        check_account(record, describe(record))


def test_random_games_reach_every_kind_of_bid_the_account_words() -> None:
    """Guards the test above: the random records do exercise every sentence of the bidding."""
    text = "".join(describe(random_record(v, o, seed)) for v, o in CASES for seed in range(6))
    for phrase in (
        "passes",
        "is turned down",
        "orders up",
        " alone",
        " calls ",
        "declines the upcard",
        "takes the upcard and discards",
        "Benny turned up",
        "takes the Benny and discards",
        "defends alone",
        "declines to defend alone",
        "(no exchange)",
        "passed out",
        "euchred",
        "march",
        "-- end of game 1 of the rubber",
    ):
        assert phrase in text, phrase


def test_account_of_a_game_played_through_the_runner_names_players_and_timing() -> None:
    def first_legal(msg: dict[str, Any]) -> dict[str, Any] | None:
        if msg["type"] != "act":
            return None
        return {"type": "action", "request_id": msg["request_id"], "action": msg["legal"][-1]}

    record = play_game([first_legal] * 4, "four-hand", {"defend_alone": True}, seed=9, players=NAMES)
    text = describe(record)
    check_account(record, text)
    decisions = record["timing"]["decisions"]
    assert re.search(rf"^Time: [\d.]+ s in all; thinking: alice [\d.]+ s / {decisions[0]} decisions", text, re.M)
    assert "Violations" not in text


# ---- forfeits and violations ----


@pytest.mark.parametrize(("variant", "options"), CASES[::2])
@pytest.mark.parametrize(("at_hand", "stop_after"), [(0, 0), (0, 5), (1, 3), (1, 9)])
def test_account_of_a_forfeit_names_who_why_when_and_the_unfinished_hand(
    variant: str, options: dict[str, Any], at_hand: int, stop_after: int
) -> None:
    rules = make_rules(variant, options)
    names = NAMES[: rules.players]
    game = Game(rules, 5, names)
    rng = random.Random(stop_after)
    while not (len(game.hands) >= at_hand and len(game.hand.actions) >= stop_after) and not game.is_over():
        game.apply(rng.choice(game.legal_actions()))
    assert not game.is_over()
    seat = game.current_seat()
    assert seat is not None
    unfinished = game.hand
    game.forfeit(seat)
    record = game_record(game)
    record["forfeit"].update(kind="timeout", detail="no reply within 1000 ms")
    text = describe(record)
    check_account(record, text)
    block = sections(text)[-1].split("\nFinal scores:")[0]
    assert block.startswith(f"Hand {len(game.hands)}, dealer seat {unfinished.dealer} ({names[unfinished.dealer]})")
    check_deal(block, names, deal_json(unfinished.deal))
    upcard = str(unfinished.deal.upcard)
    actions = record["forfeit"]["actions"]
    assert_in_order(block, bid_phrases(names, unfinished.dealer, upcard, actions))
    played = [a["card"] for a in actions if a["type"] == "play"]
    trick_text = " ".join(line.split(": ", 1)[1] for line in re.findall(r"^  trick \d+: .*$", block, re.M))
    assert CARD.findall(trick_text) == played
    for trick in unfinished.tricks:
        assert f"-> {names[trick.winner]} wins" in block
    assert f"the game stops here: seat {seat} ({names[seat]}) forfeits" in block
    assert f"First dealer: seat {game.first_dealer} ({names[game.first_dealer]})\n" in text
    assert "(timeout: no reply within 1000 ms)" in text


def test_account_of_an_illegal_reply_shows_the_violation_forfeit_and_match() -> None:
    def fair(msg: dict[str, Any]) -> dict[str, Any] | None:
        if msg["type"] != "act":
            return None
        return {"type": "action", "request_id": msg["request_id"], "action": msg["legal"][-1]}

    def cheat(msg: dict[str, Any]) -> dict[str, Any] | None:
        if msg["type"] == "act" and msg["view"]["phase"] == "play":
            return {"type": "action", "request_id": msg["request_id"], "action": {"type": "play", "card": "JK"}}
        return fair(msg)

    record = play_game([fair, cheat, fair, fair], "four-hand", {}, seed=2, players=NAMES)
    record.update(
        match_id="m-7", game_index=3, bots=[{"seat": s, "name": n, "strikes": int(s == 1)} for s, n in enumerate(NAMES)]
    )
    text = describe(record)
    check_account(record, text)
    assert record["forfeit"]["kind"] == "illegal"
    assert "Violations (1):" in text
    assert re.search(r"^  hand \d+, seat 1 \(bob\), at [\d.]+ s: illegal: .*JK.* is not legal now", text, re.M)
    assert "Match m-7, game 3" in text
    assert "Strikes in the match so far: seat 1 (bob) 1\n" in text


# ---- a hand-written game ----


def hand_written_game() -> Game:
    """Four-hand to 2 points: hand 0 is passed out, then carol orders up hearts and dave takes all five tricks."""
    rules = make_rules("four-hand", {"points_to_win": 2})
    game = Game(rules, 0, NAMES)
    game.hand = HandState(rules, 0, game.hand.deal)
    act(game, "1 pass, 2 pass, 3 pass, 0 pass, 1 pass, 2 pass, 3 pass, 0 pass")
    deal = make_deal(rules, ["9S TS 9C TC 9D", "AC KC QC JC TD", "TH AS KS QS JS", "JH JD AH KH QH"], "9H")
    game.hand = HandState(rules, 1, deal)
    act(game, "2 order, 1 discard TD")
    act(game, "2 AS, 3 JH, 0 9S, 1 AC, 3 JD, 0 9D, 1 9H, 2 TH, 3 AH, 0 TS, 1 KC, 2 KS")
    act(game, "3 KH, 0 9C, 1 QC, 2 QS, 3 QH, 0 TC, 1 JC, 2 JS")
    assert game.is_over()
    return game


def test_account_of_a_hand_written_game_reads_as_expected() -> None:
    record = game_record(hand_written_game())
    text = describe(record)
    check_account(record, text)
    header, hand0, hand1 = sections(text)
    assert header.splitlines() == [
        "Euchre, four-hand, seed 0; options: points_to_win=2",
        "Players: seat 0 alice, seat 1 bob, seat 2 carol, seat 3 dave",
        "Partners: alice & carol (seats 0+2) vs bob & dave (seats 1+3)",
        "First dealer: seat 0 (alice)",
    ]
    assert "  dealer seat 0 (alice) passes\n" in hand0
    assert "is turned down" in hand0
    assert "  passed out: everyone passed twice, no score\n  scores: alice & carol 0, bob & dave 0" in hand0
    assert hand1.splitlines() == [
        "Hand 1, dealer seat 1 (bob)",
        "  seat 0 alice: TS 9S  TC 9C  9D",
        "  seat 1 bob (dealer): AC KC QC JC  TD",
        "  seat 2 carol: TH  AS KS QS JS",
        "  seat 3 dave: JH JD AH KH QH",
        "  upcard 9H; kitty QD KD AD",
        "  seat 2 (carol) orders up hearts",
        "  dealer seat 1 (bob) takes the upcard and discards TD",
        "  trick 1: carol leads AS, dave JH, alice 9S, bob AC -> dave wins",
        "  trick 2: dave leads JD, alice 9D, bob 9H, carol TH -> dave wins",
        "  trick 3: dave leads AH, alice TS, bob KC, carol KS -> dave wins",
        "  trick 4: dave leads KH, alice 9C, bob QC, carol QS -> dave wins",
        "  trick 5: dave leads QH, alice TC, bob JC, carol JS -> dave wins",
        "  result: maker seat 2 (carol), hearts: makers took 0 tricks, euchred; bob & dave +2",
        "  scores: alice & carol 0, bob & dave 2",
        "",
        "Final scores: alice & carol 0, bob & dave 2",
        "Winners: bob & dave",
    ]


def test_lone_bid_defended_alone_names_who_sits_out_and_plays_two_card_tricks() -> None:
    rules = make_rules("four-hand", {"defend_alone": True, "points_to_win": 1})
    game = Game(rules, 0, NAMES)
    game.hand = HandState(rules, 0, game.hand.deal)
    upcard = str(game.hand.deal.upcard)
    act(game, f"1 order alone, 0 discard {upcard}, 2 pass, 0 defend")
    rng = random.Random(0)
    while not game.is_over():
        game.apply(rng.choice(game.legal_actions()))
    text = describe(game_record(game))
    suit = SUITS[upcard[1]]
    assert_in_order(
        text,
        [
            "  seat 2 carol (sits out): ",
            "  seat 3 dave (sits out): ",
            f"  seat 1 (bob) orders up {suit} alone\n",
            "  dealer seat 0 (alice) declines the upcard (discards it)\n",
            "  seat 2 (carol) declines to defend alone\n",
            "  dealer seat 0 (alice) defends alone\n",
            "  sitting out: seat 2 (carol), seat 3 (dave)\n",
        ],
    )
    assert len(re.findall(r"^  trick \d+: \w+ leads \S+, \w+ \S+ -> \w+ wins$", text, re.M)) == 5
    assert f"result: maker seat 1 (bob), {suit} alone against seat 0 (alice) defending alone: " in text


def test_benny_turned_up_reads_as_the_dealer_naming_trump() -> None:
    rules = make_rules("british", {"points_to_win": 1})
    game = Game(rules, 0, NAMES)
    deal = make_deal(rules, ["9S TS 9C TC 9D", "AC KC QC JC TD", "TH AS KS QS JS", "JH JD AH KH QH"], "JK")
    game.hand = HandState(rules, 3, deal)
    act(game, "3 name S, 3 discard QH")
    rng = random.Random(1)
    while not game.is_over():
        game.apply(rng.choice(game.legal_actions()))
    text = describe(game_record(game))
    assert "  dealer seat 3 (dave) names spades (Benny turned up)\n" in text
    assert "  dealer seat 3 (dave) takes the Benny and discards QH\n" in text
    assert "  seat 1 bob: JC  AC KC QC  TD\n" in text  # the left bower is a spade now
    assert "  seat 2 carol: JS AS KS QS  TH\n" in text  # the right bower heads the trumps once spades are named


def test_cards_sort_trump_first_with_bowers_and_benny_then_suits_in_alternating_colours() -> None:
    assert sort_cards(["9D", "JK", "JD", "AH", "JH", "9C", "TS"], "H") == "JK JH JD AH  TS  9C  9D"
    assert sort_cards(["9D", "JK", "JD", "AH", "JH", "9C", "TS"]) == "JK  TS  AH JH  9C  JD 9D"


@pytest.mark.parametrize("players", [3, 4, 7])
def test_account_of_nap_tells_each_bid_the_contract_made_or_lost_and_no_partners(players: int) -> None:
    """Four players of Nap are four players, not two pairs; every bid by its name; each deal's declarer, contract
    and trump (or none), made or lost, and what each seat paid; the cards not dealt, not a widow."""
    for seed in range(4):
        record = random_record("nap", {"players": players, "joker": True, "deals_per_player": 1}, seed)
        text = describe(record)
        assert text.startswith("Napoleon, nap") and "Partners:" not in text and "widow" not in text
        blocks = sections(text)[1:]
        for hand, block in zip(record["hands"], blocks, strict=True):
            assert "  not dealt: " + " ".join(hand["deal"]["kitty"]) in block
            bids = [a["contract"] for a in hand["actions"] if a["type"] == "nap_bid"]
            assert len(re.findall(r" bids (One|Two|Three|Misère|Four|Nap|Wellington|Blücher)\n", block)) == len(bids)
            result = hand["result"]
            if result["passed_out"]:
                assert "passed out: everyone passed, no score" in block
                continue
            declarer = result["maker"]
            assert f"result: declarer seat {declarer} ({record['players'][declarer]}), " in block
            assert re.search(r"\((clubs|diamonds|hearts|spades|no trump)\): took \d tricks?, (made|lost); ", block)
            paid = [f"{record['players'][s]} {p:+d}" for s, p in enumerate(result["points"]) if p]
            assert all(p in block for p in paid)


@pytest.mark.parametrize(("variant", "family"), [("hasenpfeffer", "Hasenpfeffer"), ("railroad", "Euchre")])
def test_a_game_is_headed_by_the_name_of_its_game(variant: str, family: str) -> None:
    record = random_record(variant, {"points_to_win": 1, "defenders_score_tricks": variant == "hasenpfeffer"}, 2)
    assert describe(record).startswith(f"{family}, {variant}, seed 2;")
