"""Seeded random playouts of every variant and option combination, with invariant checks at every step.

Hypothesis draws the rules (variant x stick_the_dealer x dealer_exchange x going/defend alone x rubber where
coherent), the seeds and how eager the players are to pass; the playouts use ``random.Random`` seeded from those.
The checks compare the engine with the independent reading of docs/rules.md in ``helpers``.
"""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import orjson
import pytest
from helpers import (
    cases,
    expected_points,
    hidden_from,
    leaked_cards,
    same_side,
    suit_of,
    trick_winner,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.engine.actions import (
    PASS,
    Action,
    Call,
    CallForBest,
    DefendAlone,
    Discard,
    GiveBest,
    NameTrump,
    OrderUp,
    Play,
)
from arena.engine.cards import Suit, make_deck
from arena.engine.game import Game
from arena.engine.hand import Deal, HandState, Phase
from arena.engine.options import VARIANTS, Rules, make_rules
from arena.engine.record import game_record, replay
from arena.engine.view import hand_view, seat_view
from arena.errors import RecordError

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
MAX_HANDS = 400  # a game (or rubber) that has not ended after this many hands is a bug
EUCHRE = sorted(name for name, v in VARIANTS.items() if v.game == "euchre")  # the upcard's games


@st.composite
def rule_sets(draw: st.DrawFn, *, points: list[int] | None = None) -> Rules:
    """Coherent rules: any variant with any combination of the options that make sense for it."""
    variant = draw(st.sampled_from(EUCHRE))  # Hasenpfeffer's hand has its own (tests/engine/test_hasenpfeffer.py)
    players = VARIANTS[variant].players
    overrides: dict[str, Any] = {
        "stick_the_dealer": draw(st.booleans()),
        "dealer_exchange": draw(st.sampled_from(["optional", "mandatory"])),
    }
    if players == 4:
        going = overrides["going_alone"] = draw(st.booleans())
        defend = overrides["defend_alone"] = going and draw(st.booleans())
        # Railroad's options, in any four-hand variant
        overrides["call_for_best"] = going and draw(st.booleans())
        overrides["defender_calls_best"] = defend and draw(st.booleans())
        overrides["best_order"] = draw(st.sampled_from(["discard_first", "receive_first"]))
        overrides["lone_euchred_points"] = draw(st.sampled_from([2, 4]))
    if VARIANTS[variant].preset.get("deck", 24) % 2:  # a pack with the joker
        overrides["joker_upcard"] = draw(st.sampled_from(["dealer_names", "fixed_suit"]))
        overrides["joker_suit"] = draw(st.sampled_from("CDHS"))
    if players != 3:
        overrides["rubber"] = draw(st.booleans())
        overrides["laps"] = overrides["rubber"] and draw(st.booleans())
        overrides["slam"] = not overrides["rubber"] and draw(st.booleans())
    if points is not None:
        overrides["points_to_win"] = draw(st.sampled_from(points))
    return make_rules(variant, overrides)


def choose(legal: tuple[Action, ...], rng: random.Random, pass_bias: float) -> Action:
    """A random legal action, passing with probability ``pass_bias`` when passing is legal."""
    if PASS in legal and rng.random() < pass_bias:
        return PASS
    return rng.choice(legal)


def text(a: Action) -> bytes:
    """An action as canonical JSON text (orjson's, five times as fast as json's: the checks write tens of thousands)."""
    return orjson.dumps(a.to_json(), option=orjson.OPT_SORT_KEYS)


# ---- invariants at every step ----


def expected_legal(hand: HandState) -> set[bytes]:
    """The legal actions of the seat to act, read from docs/rules.md rather than from the engine."""
    opts, up, seat = hand.rules.options, hand.deal.upcard, hand.current_seat()
    alone_flags = [False, True] if opts.going_alone else [False]
    if hand.phase is Phase.DONE:
        return set()
    if hand.phase is Phase.BID1:
        return {text(PASS)} | {text(OrderUp(a)) for a in alone_flags}
    # a turned-up joker proposes joker_suit (Railroad's fixed_suit); under dealer_names there is no bidding
    turned_down = Suit.parse(opts.joker_suit) if up.is_joker else up.suit
    if hand.phase is Phase.BID2:
        calls = {text(Call(s, a)) for s in Suit if s != turned_down for a in alone_flags}
        stuck = opts.stick_the_dealer and seat == hand.dealer
        return calls if stuck else calls | {text(PASS)}
    if hand.phase is Phase.NAME_TRUMP:
        return {text(NameTrump(s)) for s in Suit}
    if hand.phase is Phase.DEFEND:
        return {text(PASS), text(DefendAlone())}
    if hand.phase is Phase.DISCARD:
        may_decline = opts.dealer_exchange == "optional" and hand.maker != hand.dealer
        return {text(Discard(c)) for c in hand.hands[hand.dealer] if may_decline or c != up}
    caller = hand.caller
    if hand.phase is Phase.CALL_BEST:
        assert caller is not None and seat == caller and caller in (hand.maker, hand.defender_alone)
        if opts.best_order == "receive_first":
            return {text(PASS), text(CallForBest())}
        return {text(PASS)} | {text(CallForBest(c)) for c in hand.hands[caller]}
    if hand.phase is Phase.GIVE_BEST:
        assert caller is not None and seat == (caller + 2) % 4
        cards = set(hand.hands[seat])
        # a dealer who sat out his exchange (his partner went alone in round 1) may give the upcard
        made_in_round1 = any(isinstance(a, OrderUp) for _, a in hand.actions)
        if seat == hand.dealer and caller == hand.maker and made_in_round1 and not hand.passed:
            cards.add(up)
        return {text(GiveBest(c)) for c in cards}
    if hand.phase is Phase.BEST_DISCARD:
        assert caller is not None and seat == caller and opts.best_order == "receive_first"
        return {text(Discard(c)) for c in hand.hands[caller]}
    assert hand.phase is Phase.PLAY and hand.trump is not None and seat is not None
    own = hand.hands[seat]
    if hand.trick:
        led = suit_of(hand.trick[0][1], hand.trump)
        follow = [c for c in own if suit_of(c, hand.trump) == led]
        if follow:
            return {text(Play(c)) for c in follow}
    return {text(Play(c)) for c in own}


def check_step(hand: HandState, scores: tuple[int, ...]) -> None:
    """Cards conserved, hand sizes right, legal actions as the book says, and no view leaks a hidden card."""
    deck = make_deck(hand.rules.options.deck)
    played = [c for t in hand.tricks for _, c in t.cards] + [c for _, c in hand.trick]
    places = [c for h in hand.hands for c in h] + played + list(hand.deal.kitty)
    places += [c for _, c in hand.best_discards]
    if hand.discarded is not None:
        places.append(hand.discarded)
    up = hand.deal.upcard
    assert places.count(up) <= 1
    if up not in places:
        places.append(up)  # still lying face up (or turned down)
    assert sorted(places) == sorted(deck), "every card is in exactly one place"
    given = {c for _, _, c in hand.passed}
    assert not any(up in h for s, h in enumerate(hand.hands) if s != hand.dealer and up not in given)

    legal = hand.legal_actions()
    texts = {text(a) for a in legal}
    assert len(texts) == len(legal), "no duplicate legal actions"
    assert texts == expected_legal(hand)

    if hand.phase is Phase.PLAY:
        counts = [0] * hand.players
        for t in hand.tricks:
            for s, _ in t.cards:
                counts[s] += 1
        for s, _ in hand.trick:
            counts[s] += 1
        for seat in range(hand.players):
            if seat in hand.out:  # a partner who gave his best keeps four cards, put away
                assert counts[seat] == 0
            else:
                assert len(hand.hands[seat]) == 5 - counts[seat]

    for seat in range(hand.players):
        view = hand_view(hand, seat, hand_number=0, scores=scores)
        blind = hand.phase is Phase.NAME_TRUMP and seat == hand.dealer
        assert view.hand == (() if blind else tuple(sorted(hand.hands[seat])))
        assert view.discarded == (hand.discarded if seat == hand.dealer else None)
        leaked = leaked_cards(view.to_json(), hidden_from(hand, seat))
        assert not leaked, f"seat {seat} sees {leaked}"


def check_finished(hand: HandState) -> None:
    """Five tricks unless passed out, trick sizes, leaders and winners, and the points of the scoring table."""
    result = hand.result
    assert result is not None and hand.is_over() and hand.legal_actions() == ()
    if result.passed_out:
        assert result.tricks == () and result.points == (0,) * hand.players and result.maker is None
        assert not hand.rules.options.stick_the_dealer
        assert all(isinstance(a, type(PASS)) for _, a in hand.actions) and len(hand.actions) == 2 * hand.players
        return
    assert len(result.tricks) == 5 and result.trump is not None and result.maker is not None
    making = [a for _, a in hand.actions if isinstance(a, OrderUp | Call | NameTrump)]
    assert len(making) == 1
    alone = isinstance(making[0], OrderUp | Call) and making[0].alone
    lone_defenders = [s for s, a in hand.actions if isinstance(a, DefendAlone)]
    assert result.alone == alone and result.defender_alone == (lone_defenders[0] if lone_defenders else None)
    n, dealer = hand.players, hand.dealer
    if not isinstance(making[0], NameTrump):
        made_at = next(i for i, (_, a) in enumerate(hand.actions) if a is making[0])
        bidders = [s for s, _ in hand.actions[: made_at + 1]]
        assert bidders == [(dealer + 1 + i) % n for i in range(len(bidders))], "bidding goes clockwise from eldest"
    dealer_out = alone and (result.maker + 2) % 4 == dealer
    exchange = isinstance(making[0], NameTrump) or (isinstance(making[0], OrderUp) and not dealer_out)
    # the dealer's exchange comes before any call for best, whose discards are not his
    first_give = next((i for i, (_, a) in enumerate(hand.actions) if isinstance(a, GiveBest)), len(hand.actions))
    discards = [(s, a) for s, a in hand.actions[:first_give] if isinstance(a, Discard)]
    assert [s for s, _ in discards] == ([dealer] if exchange else [])
    if discards and (isinstance(making[0], NameTrump) or result.maker == dealer):
        assert discards[0][1].card != hand.deal.upcard, "a dealer who made trump keeps the upcard"
    out = set()
    if alone:
        out.add((result.maker + 2) % 4)
    if lone_defenders:
        out.add((lone_defenders[0] + 2) % 4)
    leader = (hand.dealer + 1) % hand.players
    while leader in out:
        leader = (leader + 1) % hand.players
    for trick in result.tricks:
        seats = [s for s, _ in trick.cards]
        assert trick.leader == leader == seats[0]
        assert sorted(seats) == sorted(set(range(hand.players)) - out)
        for a, b in itertools.pairwise(seats):
            following = (a + 1) % hand.players
            while following in out:
                following = (following + 1) % hand.players
            assert b == following, "play goes clockwise over the active seats"
        assert trick.winner == trick_winner(list(trick.cards), result.trump)
        leader = trick.winner
    won = sum(1 for t in result.tricks if same_side(hand.players, t.winner, result.maker))
    assert result.points == expected_points(
        hand.players,
        result.maker,
        won,
        alone=alone,
        lone_defender=bool(lone_defenders),
        lone_euchred=hand.rules.options.lone_euchred_points,
    )
    check_calls_for_best(hand, alone, lone_defenders)


def check_calls_for_best(hand: HandState, alone: bool, lone_defenders: list[int]) -> None:
    """Railroad: a call for best is offered to the lone maker, then to the lone defender, as the options say; each
    call is one card passed by the caller's partner and one card discarded by the caller, who plays five."""
    opts = hand.rules.options
    offered = [s for s, a in hand.actions if isinstance(a, CallForBest)]
    passes_on_call = len(hand.calls) - len(offered)
    assert passes_on_call >= 0
    callers = [c.seat for c in hand.calls]
    expected = ([hand.maker] if alone and opts.call_for_best else []) + (
        lone_defenders[:1] if opts.defender_calls_best else []
    )
    assert callers == expected
    assert [g for g, _, _ in hand.passed] == [(s + 2) % 4 for s in offered]
    assert [r for _, r, _ in hand.passed] == offered
    assert [s for s, _ in hand.best_discards] == offered
    for seat in offered:
        assert sum(1 for t in hand.tricks for s, _ in t.cards if s == seat) == 5


def play_checked_hand(hand: HandState, rng: random.Random, pass_bias: float) -> None:
    """Play a hand to its end with random legal actions, checking every step."""
    scores = (0,) * hand.players
    while not hand.is_over():
        check_step(hand, scores)
        hand.apply(choose(hand.legal_actions(), rng, pass_bias), hand.current_seat())
    check_step(hand, scores)
    check_finished(hand)


# ---- properties ----


@settings(SETTINGS, max_examples=cases(400))
@given(
    rules=rule_sets(),
    dealer=st.integers(0, 3),
    seed=st.integers(0, 2**32),
    pass_bias=st.sampled_from([0.0, 0.3, 0.7, 0.95]),
)
def test_random_hands_keep_every_rule(rules: Rules, dealer: int, seed: int, pass_bias: float) -> None:
    rng = random.Random(seed)
    dealer %= rules.players
    hand = HandState(rules, dealer, Deal.shuffled(rules, dealer, rng))
    play_checked_hand(hand, rng, pass_bias)


@settings(SETTINGS, max_examples=cases(80))
@given(
    rules=rule_sets(points=[1, 3, 10]),
    seed=st.integers(0, 2**32),
    play_seed=st.integers(0, 2**32),
    pass_bias=st.sampled_from([0.0, 0.5, 0.9]),
)
def test_random_games_end_score_by_the_table_and_replay_from_their_records(
    rules: Rules, seed: int, play_seed: int, pass_bias: float
) -> None:
    game = Game(rules, seed)
    rng = random.Random(play_seed)
    while not game.is_over():
        assert len(game.hands) < MAX_HANDS, "the game does not end"
        hand = game.hand
        for seat in range(rules.players):
            view = seat_view(game, seat)
            assert not leaked_cards(view.to_json(), hidden_from(hand, seat))
        game.apply(choose(game.legal_actions(), rng, pass_bias), game.current_seat())
        if hand.is_over():
            check_finished(hand)

    # scores are the sums of the table's points, game by game
    opts = rules.options
    side_scores = [0] * rules.sides
    games: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
    for hand, after in zip(game.hands, game.scores_after, strict=True):
        assert hand.result is not None
        for seat, p in enumerate(hand.result.points):
            if rules.side_of(seat) == seat:
                side_scores[seat] += p
        per_seat = tuple(side_scores[rules.side_of(s)] for s in range(rules.players))
        assert after == per_seat
        top = max(side_scores)
        if top >= opts.points_to_win and side_scores.count(top) == 1:
            winner_side = side_scores.index(top)
            games.append((per_seat, tuple(s for s in range(rules.players) if rules.side_of(s) == winner_side)))
            carried = top - opts.points_to_win if opts.laps else 0  # laps: the winners carry the excess
            side_scores = [carried if side == winner_side else 0 for side in range(rules.sides)]
    assert games, "the game ended without anybody winning"
    assert game.winners == games[-1][1]
    assert game.standings()[0] in game.winners
    if opts.rubber:
        assert [(g.final_scores, g.winners) for g in game.games] == games
        wins = [w for _, w in games]
        assert wins.count(game.winners) == 2
        assert all(wins[:-1].count(w) < 2 for w in wins), "the rubber ends as soon as a side has won two games"
        points = {0: 3, 1: 2, 2: 2}
        for g in game.games:
            loser = max(s for i, s in enumerate(g.final_scores) if i not in g.winners)
            assert g.game_points == points.get(loser, 1)
        gp = game.rubber_game_points()
        other = max(gp[s] for s in range(rules.players) if s not in game.winners)
        assert game.rubber_points() == tuple(
            gp[s] - other + 2 if s in game.winners else 0 for s in range(rules.players)
        )
    else:
        assert len(games) == 1
        loser = max(s for i, s in enumerate(games[0][0]) if i not in game.winners)
        assert game.slam == (opts.slam and loser == 0)

    # the record round-trips through JSON text, and tampering with it is caught (each copy to tamper with is read
    # again from that text: a quarter of the time of a deep copy)
    written = json.dumps(game_record(game))
    record = json.loads(written)
    assert game_record(replay(record)) == record
    tampered = json.loads(written)
    tampered["final_scores"][0] += 1
    with pytest.raises(RecordError):
        replay(tampered)
    tampered = json.loads(written)
    hand_index = rng.randrange(len(tampered["hands"]))
    tampered["hands"][hand_index]["result"]["points"][0] += 1
    with pytest.raises(RecordError):
        replay(tampered)
    if any(h["actions"] for h in tampered["hands"]):
        tampered = json.loads(written)
        last = tampered["hands"][-1]
        last["actions"] = last["actions"][:-1]
        with pytest.raises(RecordError):
            replay(tampered)
