"""Seeded random hands and games of call-partner and six-hand Euchre (docs/rules.md section 16), checked at
every step against the rule book read apart from the engine: cards conserved, the legal lists, what each seat's
view may hold, the scores of the tables, whole games that end and replay."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from itertools import combinations
from typing import Any

from helpers import cases
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.engine.actions import PASS, CallForBest, CallPartner, GoAlone, OrderUp, Play
from arena.engine.cards import ACE, EFFECTIVE_SUIT, Card, make_deck
from arena.engine.game import Game
from arena.engine.hand import Deal, HandState, Phase
from arena.engine.options import Rules, make_rules
from arena.engine.record import game_record, replay
from arena.engine.view import hand_view

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
CARD = re.compile(r"^([2-9TJQKA][CDHS]|JK)$")

CALL_PARTNER = [
    ("five-hand", {}),
    ("five-hand", {"players": 6}),
    ("five-hand", {"players": 7}),
    ("five-hand", {"players": 6, "called_cards": 2, "deck": 33}),
    ("five-hand", {"deck": 29, "call": "non_trump", "buried_call": "partnered", "march_points": 2}),
    ("five-hand", {"deck": 28, "stick_the_dealer": True, "dealer_exchange": "mandatory"}),
    ("call-ace", {}),
    ("call-ace", {"players": 6, "going_alone": False, "lone_march_points": 3}),
    ("call-ace", {"players": 6, "called_cards": 2}),  # two aces called: alone when fewer than two may be
    ("seven-hand", {}),
    ("seven-hand", {"deck": 37, "called_cards": 2, "joker_upcard": "fixed_suit"}),
]
SIX_HAND = [
    ("six-hand", {}),
    ("six-hand", {"lone_call_for_best": "one", "deck": 33}),
    ("six-hand", {"lone_call_for_best": "each", "lone_march_points": 6}),
    ("six-hand-pairs", {}),
    ("six-hand-pairs", {"lone_call_for_best": "each", "stick_the_dealer": True}),
    ("six-hand-pairs", {"lone_call_for_best": "one", "going_alone": True}),
]
RULES = [make_rules(variant, options) for variant, options in CALL_PARTNER + SIX_HAND]


def card_texts(value: Any) -> Iterator[str]:
    """Every card's text anywhere in a view's JSON."""
    if isinstance(value, str) and CARD.match(value):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from card_texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from card_texts(item)


def played(hand: HandState) -> list[tuple[int, Card]]:
    return [pc for t in hand.tricks for pc in t.cards] + list(hand.trick)


def check_conserved(hand: HandState) -> None:
    """Every card of the pack is in exactly one place: a hand, a trick, the kitty, a discard, or the upcard."""
    cards = [c for h in hand.hands for c in h] + [c for _, c in played(hand)] + list(hand.deal.kitty)
    cards += [c for _, c in hand.best_discards] + ([hand.discarded] if hand.discarded is not None else [])
    if hand.deal.upcard not in cards:
        cards.append(hand.deal.upcard)
    assert sorted(cards) == sorted(make_deck(hand.rules.deck))


def knowable(hand: HandState, seat: int) -> set[str]:
    """The cards ``seat`` may know now (docs/rules.md sections 10, 13 and 16)."""
    known = {*hand.deal.hands[seat], *hand.hands[seat], hand.deal.upcard, *(c for _, c in played(hand)), *hand.called}
    if seat == hand.dealer and hand.discarded is not None:
        known.add(hand.discarded)
    known |= {c for s, c in hand.best_discards if s == seat}
    known |= {c for g, r, c in hand.passed if seat in (g, r)}
    return {str(c) for c in known}


def check_views(hand: HandState) -> None:
    """What each seat's view holds: its own cards only, the partner its own secret, the dealer's secrets his."""
    game = hand.rules.game
    shown = {s for s, c in played(hand) if c in hand.called}
    for seat in range(hand.players):
        data = hand_view(hand, seat, hand_number=0, scores=(0,) * hand.players).to_json()
        assert set(card_texts(data)) <= knowable(hand, seat), seat
        own = sorted(hand.hands[seat]) if hand.sees_own_cards(seat) else []  # (the Benny's dealer: none yet)
        assert [Card.parse(c) for c in data["hand"]] == own
        if game == "call_partner":
            call = data["partner_call"]
            assert call["partner"] == (seat in hand.partners and seat != hand.maker)
            assert set(call["revealed"]) == shown and call["cards"] == [str(c) for c in hand.called]
            assert data["upcard_taken"] is (hand.upcard_taken if seat == hand.dealer else None)
            assert data["sitting_out"] == []
        else:
            assert "partner_call" not in data


def expected_calls(hand: HandState) -> set[Any]:
    """The maker's legal calls, from the rule book's section 5.1 point 3, and the arena's choice that a dealer who
    made trump may not call his own discard (docs/rules.md section 16.3)."""
    opts, maker, trump = hand.rules.options, hand.maker, hand.trump
    assert maker is not None and trump is not None
    mine = set(hand.hands[maker]) | ({hand.discarded} if maker == hand.dealer and hand.discarded is not None else set())
    ordered = any(isinstance(a, OrderUp) or a.type == "name_trump" for _, a in hand.actions)
    if opts.call == "ace":
        pool = [Card(ACE * 4 + s) for s in range(4) if s != trump and Card(ACE * 4 + s) not in mine]
    else:
        pool = [c for c in make_deck(hand.rules.deck) if c not in mine and (ordered or c != hand.deal.upcard)]
        if opts.call == "non_trump":
            pool = [c for c in pool if EFFECTIVE_SUIT[trump][c] != trump]
    calls: set[Any] = {CallPartner(tuple(sorted(p))) for p in combinations(pool, opts.called_cards)}
    benny = any(a.type == "name_trump" for _, a in hand.actions)
    if not calls or (opts.going_alone and not benny):
        calls.add(GoAlone())
    return calls


def check_legal(hand: HandState) -> None:
    legal = hand.legal_actions()
    assert len(set(legal)) == len(legal)
    if hand.phase is Phase.CALL_PARTNER:
        assert set(legal) == expected_calls(hand)
    elif hand.phase is Phase.BID1:
        flags = [False, True] if hand.rules.game == "six_hand" and hand.rules.options.going_alone else [False]
        assert set(legal) == {PASS, *(OrderUp(f) for f in flags)}
    elif hand.phase is Phase.PLAY:
        seat, trump = hand.current_seat(), hand.trump
        assert seat is not None and trump is not None and seat not in hand.out
        mine = hand.hands[seat]
        led = EFFECTIVE_SUIT[trump][hand.trick[0][1]] if hand.trick else None
        follow = [c for c in mine if EFFECTIVE_SUIT[trump][c] == led]
        assert {a.card for a in legal if isinstance(a, Play)} == set(follow or mine) and len(legal) == len(
            follow or mine
        )
    elif hand.phase is Phase.CALL_BEST:
        partners = [
            s for s in range(6) if s != hand.maker and hand.rules.side_of(s) == hand.rules.side_of(hand.maker or 0)
        ]
        assert hand.out == set(partners)
        calls = [a for a in legal if isinstance(a, CallForBest)]
        if hand.rules.options.lone_call_for_best == "one":
            assert {(a.card, a.partner) for a in calls} == {(c, p) for c in hand.hands[hand.turn] for p in partners}
        else:
            assert {a.cards for a in calls} == set(combinations(hand.hands[hand.turn], len(partners)))


def expected_points(hand: HandState) -> tuple[int, ...]:
    """A played hand's points per seat from the tables of docs/rules.md section 16."""
    rules, maker, n = hand.rules, hand.maker, hand.players
    opts = rules.options
    assert maker is not None
    if rules.game == "call_partner":
        makers = {maker} | {s for s, c in played(hand) if c in hand.called}  # nobody sits out: every card is played
        won = sum(1 for t in hand.tricks if t.winner in makers)
        alone = any(isinstance(a, GoAlone) for _, a in hand.actions)
        lone = alone or (len(makers) == 1 and opts.buried_call == "alone")
        march = (opts.lone_march_points or n) if lone else opts.march_points
    else:
        makers = {s for s in range(n) if rules.side_of(s) == rules.side_of(maker)}
        won = sum(1 for t in hand.tricks if t.winner in makers)
        march = (opts.lone_march_points or (5 if rules.sides == 2 else 4)) if hand.alone else 2
    if won < 3:
        return tuple(0 if s in makers else 2 for s in range(n))
    return tuple((1 if won < 5 else march) if s in makers else 0 for s in range(n))


def play_checked(hand: HandState, rng: random.Random, pass_bias: float) -> None:
    while not hand.is_over():
        check_conserved(hand)
        check_legal(hand)
        check_views(hand)
        legal = hand.legal_actions()
        hand.apply(PASS if PASS in legal and rng.random() < pass_bias else rng.choice(legal))
    check_conserved(hand)
    check_views(hand)
    result = hand.result
    assert result is not None
    if result.passed_out:
        assert result.points == (0,) * hand.players
        return
    assert len(hand.tricks) == 5
    assert all(len(t.cards) == hand.players - len(hand.out) for t in hand.tricks)
    assert result.points == expected_points(hand)
    if hand.rules.game == "call_partner":
        assert result.partners == tuple(sorted({s for s, c in played(hand) if c in hand.called}))


@settings(SETTINGS, max_examples=cases(300))
@given(
    rules=st.sampled_from(RULES),
    dealer=st.integers(0, 6),
    seed=st.integers(0, 2**32),
    pass_bias=st.sampled_from([0.0, 0.5, 0.9]),
)
def test_random_hands_keep_every_rule(rules: Rules, dealer: int, seed: int, pass_bias: float) -> None:
    rng = random.Random(seed)
    dealer %= rules.players
    play_checked(HandState(rules, dealer, Deal.shuffled(rules, dealer, rng)), rng, pass_bias)


@settings(SETTINGS, max_examples=cases(40))
@given(rules=st.sampled_from(RULES), seed=st.integers(0, 2**32), points=st.sampled_from([1, 4, 10]))
def test_random_games_end_with_one_side_on_top_and_replay(rules: Rules, seed: int, points: int) -> None:
    rules = make_rules(rules.variant, {**_overrides(rules), "points_to_win": points})
    game, rng = Game(rules, seed), random.Random(seed)
    while not game.is_over() and len(game.hands) < 300:
        game.apply(rng.choice(game.legal_actions()))
    assert game.is_over()
    sides = game.side_scores
    top = max(sides)
    assert top >= points and sides.count(top) == 1
    assert set(game.winners) == {s for s in range(rules.players) if rules.side_of(s) == sides.index(top)}
    record = game_record(game)
    assert game_record(replay(record)) == record


def _overrides(rules: Rules) -> dict[str, Any]:
    """The options of ``rules`` that differ from its variant's own."""
    base = make_rules(rules.variant).options.to_json()
    return {k: v for k, v in rules.options.to_json().items() if base[k] != v}
