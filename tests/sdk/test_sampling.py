"""The SDK's search tools: deals sampled from a seat's view, and the double-dummy solver.

Sampling: every imagined deal must be one the real game could have been. The strongest check rebuilds the deal's
original hands from the sample (cards now held plus cards played, the dealer's upcard and discard put back), replays
the real game's actions on it with the engine, and asks for the seat's view again: it must be the very same view.
Solving: the solver's counts must equal a plain minimax written from the rules (no pruning, no tables), on endings
of real random games of every variant, lone hands and three-hand included.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from helpers import act, action, make_hand
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.engine.actions import PASS, Action, Discard
from arena.engine.cards import EFFECTIVE_SUIT, Card, cards, make_deck, trick_winner_index
from arena.engine.game import Game
from arena.engine.hand import Deal, HandState, Phase
from arena.engine.options import VARIANTS, Rules, make_rules
from arena.engine.view import SeatView, hand_view
from arena.sdk.sampling import Knowledge, Sample, samples
from arena.sdk.solver import Position, Solver, distinct_cards, solve, teams_of

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)


EUCHRE = sorted(name for name, v in VARIANTS.items() if v.game == "euchre")  # the sampler knows the upcard's games


@st.composite
def rule_sets(draw: st.DrawFn) -> Rules:
    """Any variant, with the options that change who holds what: exchange, stick, lone hands, defending alone."""
    variant = draw(st.sampled_from(EUCHRE))
    overrides: dict[str, Any] = {
        "stick_the_dealer": draw(st.booleans()),
        "dealer_exchange": draw(st.sampled_from(["optional", "mandatory"])),
    }
    if VARIANTS[variant].players == 4:
        overrides["defend_alone"] = draw(st.booleans())
        # Railroad's calls for best are sampled approximately (arena.sdk.sampling): not replayed exactly here
        overrides["call_for_best"] = overrides["defender_calls_best"] = False
    return make_rules(variant, overrides)


def random_game_until(rules: Rules, seed: int, steps: int, pass_bias: float) -> Game:
    """A real game with random legal actions (passing with probability ``pass_bias``), stopped after ``steps``."""
    rng = random.Random(seed)
    game = Game(rules, seed)
    for _ in range(steps):
        legal = game.legal_actions()
        if not legal:
            break
        game.apply(PASS if PASS in legal and rng.random() < pass_bias else rng.choice(legal))
    return game


# ---- sampling ----


def rebuild(hand: HandState, view: SeatView, deal: Sample) -> HandState:
    """The hand as it would be had the sample been the real deal: original hands, the same actions replayed."""
    rules, n, seat = hand.rules, hand.players, view.seat
    played: list[list[Card]] = [[] for _ in range(n)]
    for trick in (*(t.cards for t in view.tricks), view.trick):
        for s, c in trick:
            played[s].append(c)
    original = [[*deal.hands[s], *played[s]] for s in range(n)]
    up, dealer = view.upcard, view.dealer
    rest = list(deal.rest)
    discard: Card | None = None
    if view.phase is Phase.DISCARD:
        original[dealer].remove(up)
    elif view.upcard_taken:
        original[dealer].remove(up)
        discard = view.discarded if seat == dealer else rest.pop(0)  # whichever unseen card he threw
        assert discard is not None
        original[dealer].append(discard)
    held = {c for h in original for c in h} | {up}
    kitty = tuple(c for c in make_deck(rules.options.deck) if c not in held)
    again = HandState(rules, dealer, Deal(tuple(tuple(h) for h in original), up, kitty))
    for s, a in hand.actions:
        move: Action = a
        if isinstance(a, Discard) and seat != dealer and a.card != up:
            assert discard is not None
            move = Discard(discard)
        again.apply(move, s)
    return again


@SETTINGS
@given(
    rules=rule_sets(),
    seed=st.integers(0, 10**6),
    steps=st.integers(0, 60),
    pass_bias=st.sampled_from([0.0, 0.5, 0.8]),
)
def test_every_sampled_deal_replays_to_the_same_view(rules: Rules, seed: int, steps: int, pass_bias: float) -> None:
    game = random_game_until(rules, seed, steps, pass_bias)
    if game.is_over():
        return
    hand, rng = game.hand, random.Random(seed)
    for seat in range(rules.players):
        view = hand_view(hand, seat, hand_number=0, scores=(0,) * rules.players)
        know = Knowledge.from_view(view, rules.options.deck)
        for deal in samples(know, rng, 4):
            assert know.consistent(deal)
            assert hand_view(rebuild(hand, view, deal), seat, hand_number=0, scores=view.scores) == view


def view_after(variant: str, hands: list[str], upcard: str, script: str, seat: int, **options: Any) -> SeatView:
    """The view of ``seat`` after a scripted start of a hand (dealer 3 in four-hand, 1 in two-hand)."""
    hand = make_hand(variant, hands, upcard, dealer=len(hands) - 1, **options)
    for step in filter(None, (s.strip() for s in script.split(","))):
        who, _, text = step.partition(" ")
        hand.apply(action(text), int(who))
    return hand_view(hand, seat, hand_number=0, scores=(0,) * len(hands))


HANDS = ["KS 9C TC QD KD", "9S JC QC KC 9D", "AS TS AC TD AD", "JH QH KH AH QS"]  # four-hand, dealer 3


def test_the_dealer_keeps_the_upcard_he_took_until_he_plays_it() -> None:
    view = view_after("four-hand", HANDS, "9H", "0 pass, 1 order, 3 discard QS", seat=0)
    know = Knowledge.from_view(view, 24)
    assert know.known[3] == (Card.parse("9H"),)
    assert Card.parse("9H") not in know.unseen
    assert all(Card.parse("9H") in d.hands[3] for d in samples(know, random.Random(1), 20))


def test_a_turned_down_upcard_is_in_no_hand() -> None:
    view = view_after("four-hand", HANDS, "9H", "0 pass, 1 pass, 2 pass, 3 pass, 0 call S", seat=1)
    know = Knowledge.from_view(view, 24)
    assert Card.parse("9H") not in know.unseen and know.known[3] == ()
    assert all(
        Card.parse("9H") not in [*d.rest, *(c for h in d.hands for c in h)] for d in samples(know, random.Random(1), 20)
    )


def test_the_dealer_knows_his_discard_and_the_others_do_not() -> None:
    script = "0 pass, 1 order, 3 discard QS"
    dealer = Knowledge.from_view(view_after("four-hand", HANDS, "9H", script, seat=3), 24)
    other = Knowledge.from_view(view_after("four-hand", HANDS, "9H", script, seat=2), 24)
    assert Card.parse("QS") not in dealer.unseen
    assert Card.parse("QS") in other.unseen
    assert dealer.rest_size == 3 and other.rest_size == 4  # the kitty, and for the others the discard too


def test_a_seat_sitting_out_holds_five_cards_that_never_play() -> None:
    view = view_after("four-hand", HANDS, "9H", "0 pass, 1 order alone, 0 KD", seat=0)  # seat 3, the dealer, is out
    know = Knowledge.from_view(view, 24)
    assert know.counts == (4, 5, 5, 5)
    assert Card.parse("9H") not in know.unseen  # the dealer sits out: the upcard stays in the kitty
    for d in samples(know, random.Random(2), 10):
        assert len(d.hands[3]) == 5 and Card.parse("9H") not in d.hands[3]


def test_showing_out_of_trump_when_a_bower_is_led_voids_trump_not_the_printed_suit() -> None:
    # Hearts trump: JD (the left bower) is a heart. Seat 1 throws KS on it: void in hearts, not in diamonds.
    hands = ["JD 9C TC QD KD", "9S KS QC KC 9D", "AS TS AC TD AD", "JH QH KH AH QS"]
    view = view_after("four-hand", hands, "9H", "0 order, 3 discard QS, 0 JD, 1 KS", seat=2)
    know = Knowledge.from_view(view, 24)
    assert know.voids[1] == frozenset({2})
    for d in samples(know, random.Random(3), 30):
        assert all(EFFECTIVE_SUIT[2][c] != 2 for c in d.hands[1])


def test_voids_that_leave_little_room_still_sample_consistently() -> None:
    # Two-hand, spades trump: the opponent has shown out of clubs and of spades, so he holds only red cards.
    know = Knowledge(
        seat=0,
        trump=3,
        counts=(2, 3),
        known=(tuple(cards("AC KC")), ()),
        voids=(frozenset(), frozenset({0, 3})),
        unseen=tuple(cards("9H TH 9C TC QS KS 9D")),
    )
    for d in samples(know, random.Random(4), 50):
        assert know.consistent(d)
        assert all(c & 3 in (1, 2) for c in d.hands[1])


def test_sampling_is_uniform_without_voids() -> None:
    know = Knowledge(
        seat=0, trump=None, counts=(0, 1), known=((), ()), voids=(frozenset(),) * 2, unseen=tuple(cards("9C TC 9D"))
    )
    rng = random.Random(5)
    counts: dict[Card, int] = {}
    for d in samples(know, rng, 3000):
        counts[d.hands[1][0]] = counts.get(d.hands[1][0], 0) + 1
    assert all(900 < v < 1100 for v in counts.values()) and len(counts) == 3


# ---- solving ----


def minimax(position: Position) -> int:
    """Tricks the side to move takes against best play, by plain search over the rules (the reference)."""
    root = position.teams[position.turn]
    hands = [list(h) for h in position.hands]
    active = [s for s in range(len(hands)) if s not in position.out]
    eff = EFFECTIVE_SUIT[position.trump]

    def go(turn: int, trick: list[tuple[int, int]]) -> int:
        hand = hands[turn]
        if not hand:
            return 0
        moves = [c for c in hand if trick and eff[c] == eff[trick[0][1]]] or list(hand)
        values = []
        for c in moves:
            hand.remove(c)
            now = [*trick, (turn, c)]
            if len(now) == len(active):
                winner = now[trick_winner_index([x for _, x in now], position.trump)][0]
                values.append((position.teams[winner] == root) + go(winner, []))
            else:
                values.append(go(active[(active.index(turn) + 1) % len(active)], now))
            hand.append(c)
        return max(values) if position.teams[turn] == root else min(values)

    return go(position.turn, list(position.trick))


def ending(rules: Rules, seed: int, tricks_left: int, extra: int, pass_bias: float) -> HandState | None:
    """A real random hand played until ``tricks_left`` tricks remain, ``extra`` cards into the next trick."""
    rng = random.Random(seed)
    dealer = seed % rules.players
    hand = HandState(rules, dealer, Deal.shuffled(rules, dealer, rng))
    while not hand.is_over():
        active = rules.players - len(hand.out)
        if (
            hand.phase is Phase.PLAY
            and len(hand.tricks) >= 5 - tricks_left
            and len(hand.trick) >= min(extra, active - 1)
        ):
            return hand
        legal = hand.legal_actions()
        hand.apply(PASS if PASS in legal and rng.random() < pass_bias else rng.choice(legal))
    return None


@SETTINGS
@given(
    variant=st.sampled_from(EUCHRE),
    alone=st.sampled_from(["no", "alone", "both"]),
    seed=st.integers(0, 10**6),
    tricks_left=st.integers(1, 3),
    extra=st.integers(0, 3),
)
def test_the_solver_agrees_with_plain_minimax_on_endings(
    variant: str, alone: str, seed: int, tricks_left: int, extra: int
) -> None:
    four = VARIANTS[variant].players == 4
    rules = make_rules(variant, {"defend_alone": True} if four and alone == "both" else {})
    hand = ending(rules, seed, tricks_left, extra, pass_bias=0.3)
    if hand is None or hand.is_over():
        return
    if four and alone != "no" and not hand.alone:
        return  # this draw wanted a lone hand and the random bids made none
    position = Position.from_hand(hand)
    best = minimax(position)
    solver = Solver(position)
    solution = solver.solve()
    assert solution.tricks == best
    assert solution.card in position.legal()
    left = len(position.hands[position.turn]) + (1 if position.trick else 0)
    for card in position.legal():
        hands = [list(h) for h in position.hands]
        hands[position.turn].remove(card)
        trick = (*position.trick, (position.turn, card))
        exact = _after_minimax(position, hands, trick)
        assert solver.card_tricks(card) == exact
        assert all(solver.reaches(card, k) == (exact >= k) for k in range(left + 1))
        assert solver.levels((1, 3), card) == (exact >= 1) + (exact >= 3)
    assert solver.after(solution.card) == best


def _after_minimax(position: Position, hands: list[list[Card]], trick: tuple[tuple[int, int], ...]) -> int:
    """Tricks of the side of ``position.turn`` once its card is played, by the reference search."""
    active = [s for s in range(len(hands)) if s not in position.out]
    root = position.teams[position.turn]
    if len(trick) == len(active):
        winner = trick[trick_winner_index([c for _, c in trick], position.trump)][0]
        rest = Position(position.trump, tuple(tuple(h) for h in hands), winner, position.teams, (), position.out)
        won = int(position.teams[winner] == root)
        later = minimax(rest) if hands[winner] else 0
        return won + (later if position.teams[winner] == root else len(hands[winner]) - later)
    turn = active[(active.index(position.turn) + 1) % len(active)]
    rest = Position(position.trump, tuple(tuple(h) for h in hands), turn, position.teams, trick, position.out)
    value = minimax(rest)
    left = len(hands[turn])
    return value if position.teams[turn] == root else left - value


@pytest.mark.parametrize("seed", range(6))
def test_the_solver_agrees_with_plain_minimax_on_whole_two_hand_deals(seed: int) -> None:
    rng = random.Random(seed)
    deck = make_deck(24)
    rng.shuffle(deck)
    hands = (tuple(deck[:5]), tuple(deck[5:10]))
    position = Position(rng.randrange(4), hands, seed % 2, teams_of(2, 0))
    assert solve(position).tricks == minimax(position)


def test_a_hand_of_the_five_top_trumps_takes_every_trick() -> None:
    hand = make_hand(
        "four-hand", ["JH JD AH KH QH", "9S JC QC KC 9D", "AS TS AC TD AD", "KS 9C TC QD KD"], "9H", dealer=3
    )
    act(hand, "0 order alone, 3 discard 9C")
    position = Position.from_hand(hand)
    assert position.out == frozenset({2})
    assert solve(position).tricks == 5
    assert Solver(position).levels((3, 5)) == 2


def test_the_solver_counts_for_the_team_it_is_asked_about() -> None:
    rng = random.Random(9)
    deck = make_deck(24)
    rng.shuffle(deck)
    position = Position(2, tuple(tuple(deck[5 * i : 5 * i + 5]) for i in range(4)), 1, teams_of(4, 0))
    ours = Solver(position).value()
    theirs = Solver(position, team=0).value()
    assert ours + theirs == 5
    assert Solver(position, team=0).solve().tricks == ours  # solve() is always for the side to move


def test_equivalent_cards_are_one_move() -> None:
    live = make_deck(24)
    hearts = 2
    assert distinct_cards(hearts, cards("KC QC"), live) == cards("KC")  # touching cards of a plain suit
    assert sorted(distinct_cards(hearts, cards("KC 9C"), live)) == sorted(cards("KC 9C"))  # QC JC TC between
    gone = set(cards("QC JC TC"))
    assert distinct_cards(hearts, cards("KC 9C"), [c for c in live if c not in gone]) == cards("KC")
    # The left bower is a trump, touching the right bower, and no longer a diamond.
    assert distinct_cards(hearts, cards("JH JD"), live) == cards("JH")
    assert sorted(distinct_cards(hearts, cards("JD QD"), live)) == sorted(cards("JD QD"))
