"""Cross-check the four-hand engine against OpenSpiel's euchre, hand by hand and decision by decision.

OpenSpiel plays one hand of four-hand euchre with a 24-card deck, stick the dealer, a mandatory exchange in
which the dealer may not discard the upcard, and (with ``allow_lone_defender=False``) no defending alone: our
``four-hand`` variant with ``stick_the_dealer=True, dealer_exchange="mandatory"``. Each random deal is forced
into both engines; at every decision the two must agree on who acts and on the legal actions, and at the end
on the score. The differences between the two engines that this file maps are listed in ``docs/openspiel.md``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from arena.engine.actions import Action, Call, Discard, OrderUp, Pass, Play
from arena.engine.cards import RANK_LETTERS, Card, make_deck
from arena.engine.hand import Deal, HandState, Phase
from arena.engine.options import make_rules

pyspiel = pytest.importorskip("pyspiel")

RULES = make_rules("four-hand", {"stick_the_dealer": True, "dealer_exchange": "mandatory"})
GAME = pyspiel.load_game("euchre", {"stick_the_dealer": True, "allow_lone_defender": False})

SEED = 20_240_611
HANDS = 10_000
PASS_BIAS = 0.7  # chance of passing when a bid is legal, so round 2 and the stuck dealer come up often

# Both engines number a card rank * 4 + suit (suits CDHS); our ranks count from the 2 (23456789TJQKA), OpenSpiel's
# from the 9 (9TJQKA).
CARD_OFFSET = 28
PS_PASS = 24
PS_FIRST_TRUMP = 25  # 25 + suit: clubs, diamonds, hearts, spades
PS_ALONE = 29
PS_PARTNER = 30

PsState = Any  # a pyspiel.State; pyspiel ships no type stubs


# ---- translating between the engines ----


def to_ps_card(card: Card) -> int:
    """OpenSpiel's id of one of our cards."""
    return card - CARD_OFFSET  # a Card is an int: a plain int comes out


def to_ps_action(action: Action, upcard: Card) -> int:
    """OpenSpiel's id of one of our actions; a bid's ``alone`` flag is a separate OpenSpiel action.

    Plays first, the card inline: of the test's 800,000 calls most are plays (this took a sixth of its time).
    """
    if isinstance(action, (Play, Discard)):  # a tuple: isinstance checks it faster than a union
        return action.card - CARD_OFFSET
    if isinstance(action, Pass):
        return PS_PASS
    if isinstance(action, OrderUp):
        return PS_FIRST_TRUMP + (upcard & 3)
    if isinstance(action, Call):
        return PS_FIRST_TRUMP + int(action.suit)
    raise AssertionError(f"{action!r} has no OpenSpiel counterpart under these rules")


def to_ps_actions(actions: Iterable[Action], upcard: Card) -> set[int]:
    """OpenSpiel's ids of a set of our actions (the two alone flags of one bid fold into one id)."""
    return {to_ps_action(a, upcard) for a in actions}


def alone_choices(legal: Sequence[Action], bid: OrderUp | Call, upcard: Card) -> set[int]:
    """The OpenSpiel go-alone answers matching the alone flags our engine offered with ``bid``."""
    trump = to_ps_action(bid, upcard)
    return {
        PS_ALONE if a.alone else PS_PARTNER
        for a in legal
        if isinstance(a, OrderUp | Call) and to_ps_action(a, upcard) == trump
    }


def deal_like_openspiel(deck: Sequence[Card], dealer: int) -> Deal:
    """Our Deal of a deck dealt the OpenSpiel way: card i to seat (dealer + i) % 4, then the upcard."""
    hands: list[list[Card]] = [[] for _ in range(4)]
    for i, card in enumerate(deck[:20]):
        hands[(dealer + i) % 4].append(card)
    return Deal(hands=tuple(tuple(h) for h in hands), upcard=deck[20], kitty=tuple(deck[21:]))


def openspiel_deal_actions(deck: Sequence[Card], dealer: int) -> list[int]:
    """OpenSpiel's chance actions for a deal: the dealer, 20 cards, the upcard (the kitty is never dealt)."""
    return [dealer, *(to_ps_card(c) for c in deck[:21])]


def new_openspiel_state(deck: Sequence[Card], dealer: int) -> PsState:
    """An OpenSpiel state with the deal forced, checking each chance action is a possible outcome."""
    state = GAME.new_initial_state()
    for action in openspiel_deal_actions(deck, dealer):
        outcomes = {a for a, _ in state.chance_outcomes()}
        assert state.is_chance_node() and action in outcomes, f"chance {action} not in {sorted(outcomes)}"
        state.apply_action(action)
    return state


def openspiel_hand(state: PsState, seat: int) -> set[Card]:
    """A seat's cards read from OpenSpiel's information state (lines like ``D KQJT9`` or ``S none``)."""
    text = state.information_state_string(seat)
    held: set[Card] = set()
    for line in text.split("Hand:\n", 1)[1].splitlines():
        suit, _, ranks = line.partition(" ")
        if ranks != "none":
            held.update(Card.parse(rank + suit) for rank in ranks)
    return held


def expected_returns(points: Sequence[int]) -> list[float]:
    """OpenSpiel's zero-sum returns from our per-seat points: each seat's side's points minus the other's."""
    return [float(points[s] - points[(s + 1) % 4]) for s in range(4)]


# ---- driving both engines with the same choices ----


def choose(rng: random.Random, legal: Sequence[Action]) -> Action:
    """A random legal action, passing with probability PASS_BIAS whenever passing is legal."""
    if isinstance(legal[0], Pass) and (len(legal) == 1 or rng.random() < PASS_BIAS):
        return legal[0]
    return rng.choice([a for a in legal if not isinstance(a, Pass)])


def describe(ours: HandState, label: str) -> str:
    """The deal and the actions so far, enough to replay a failing hand."""
    hands = " | ".join(" ".join(str(c) for c in h) for h in ours.deal.hands)
    done = [(seat, a.to_json()) for seat, a in ours.actions]
    return f"{label}: dealer {ours.dealer}, hands {hands}, upcard {ours.deal.upcard}, actions {done}"


def names(state: PsState, ids: Iterable[int]) -> list[str]:
    """OpenSpiel ids with their text, for assertion messages."""
    return [f"{a}={state.action_to_string(a)}" for a in sorted(ids)]


def check_same_decision(ours: HandState, ps: PsState, label: str) -> None:
    """Both engines ask the same seat and offer the same legal actions."""
    assert not ps.is_terminal(), f"OpenSpiel ended the hand early; {describe(ours, label)}"
    seat = ours.current_seat()
    assert ps.current_player() == seat, (
        f"seat to act: ours {seat}, OpenSpiel {ps.current_player()}; {describe(ours, label)}"
    )
    legal = ours.legal_actions()
    mapped, theirs = to_ps_actions(legal, ours.deal.upcard), set(ps.legal_actions())
    assert mapped == theirs, (
        f"legal actions of seat {seat} differ: ours {[a.to_json() for a in legal]} -> {names(ps, mapped)}, "
        f"OpenSpiel {names(ps, theirs)}; {describe(ours, label)}"
    )


def answer_go_alone(ours: HandState, ps: PsState, offered: set[int], alone: bool, label: str) -> None:
    """OpenSpiel asks the maker separately whether he goes alone: check the choices, answer as our bid did."""
    asked = ps.current_player()
    assert asked == ours.maker, f"OpenSpiel asks seat {asked} to go alone, not our maker; {describe(ours, label)}"
    theirs = set(ps.legal_actions())
    assert theirs == offered, (
        f"go-alone choices: ours {names(ps, offered)}, OpenSpiel {names(ps, theirs)}; {describe(ours, label)}"
    )
    ps.apply_action(PS_ALONE if alone else PS_PARTNER)


def extra_dealer_discard(ours: HandState, ps: PsState, rng: random.Random, label: str) -> None:
    """OpenSpiel has the dealer discard even when his partner goes alone; ours skips it (he sits out)."""
    dealer = ours.dealer
    original = {to_ps_card(c) for c in ours.deal.hands[dealer]}
    theirs = set(ps.legal_actions())
    assert ps.current_player() == dealer and theirs == original, (
        f"OpenSpiel's discard by seat {ps.current_player()} offers {names(ps, theirs)}, expected the dealer "
        f"{dealer}'s original five {names(ps, original)}; {describe(ours, label)}"
    )
    ps.apply_action(rng.choice(sorted(theirs)))


def crosscheck_hand(rng: random.Random, label: str, seen: Counter[str]) -> None:
    """Play one random hand in both engines, checking each decision and the score; tally what it exercised."""
    deck = make_deck(24)
    rng.shuffle(deck)
    dealer = rng.randrange(4)
    ours = HandState(RULES, dealer, deal_like_openspiel(deck, dealer))
    ps = new_openspiel_state(deck, dealer)
    for seat in range(4):
        assert openspiel_hand(ps, seat) == set(ours.deal.hands[seat]), f"seat {seat}: {describe(ours, label)}"

    pending_alone: tuple[set[int], bool] | None = None  # after a round-1 bid: asked once the dealer discards
    while not ours.is_over():
        check_same_decision(ours, ps, label)
        legal = ours.legal_actions()
        action = choose(rng, legal)
        ours.apply(action)
        ps.apply_action(to_ps_action(action, ours.deal.upcard))
        if isinstance(action, Call):
            seen["round-2 bid"] += 1
            seen["stuck dealer"] += int(len(ours.actions) == 8)
            answer_go_alone(ours, ps, alone_choices(legal, action, ours.deal.upcard), action.alone, label)
        elif isinstance(action, OrderUp):
            seen["round-1 bid"] += 1
            pending_alone = (alone_choices(legal, action, ours.deal.upcard), action.alone)
            if ours.phase is not Phase.DISCARD:
                seen["dealer's partner alone: OpenSpiel-only discard"] += 1
                extra_dealer_discard(ours, ps, rng, label)
                answer_go_alone(ours, ps, *pending_alone, label)
        elif isinstance(action, Discard):
            assert pending_alone is not None
            answer_go_alone(ours, ps, *pending_alone, label)

    result = ours.result
    assert result is not None and not result.passed_out, describe(ours, label)
    assert ps.is_terminal(), f"our hand is over, OpenSpiel's is not; {describe(ours, label)}"
    returns = list(ps.returns())
    assert returns == expected_returns(result.points), (
        f"score: ours {result.points} -> {expected_returns(result.points)}, OpenSpiel {returns}; "
        f"{describe(ours, label)}"
    )
    assert result.maker is not None
    made = result.points[result.maker]
    outcome = "euchred" if made == 0 else "march" if made > 1 else "3 or 4 tricks"
    seen[f"{outcome}{', alone' if result.alone else ''}"] += 1


# ---- the tests ----


@pytest.mark.slow
def test_random_hands_offer_the_same_legal_actions_and_score_the_same_as_openspiel() -> None:
    """Thousands of random hands: same seat to act, same legal actions at every decision, same score."""
    rng = random.Random(SEED)
    seen: Counter[str] = Counter()
    for index in range(HANDS):
        crosscheck_hand(rng, f"hand #{index} of seed {SEED}", seen)
    # Every mapped difference and every scoring row must actually have been exercised.
    for what in (
        "round-1 bid",
        "round-2 bid",
        "stuck dealer",
        "dealer's partner alone: OpenSpiel-only discard",
        "3 or 4 tricks",
        "march",
        "euchred",
        "3 or 4 tricks, alone",
        "march, alone",
        "euchred, alone",
    ):
        assert seen[what] >= 10, f"only {seen[what]} hands exercised {what!r}: {dict(seen)}"


def test_openspiel_card_id_is_ours_minus_28_and_prints_suit_first() -> None:
    """OpenSpiel's card ids count ranks from the 9, ours from the 2; its text is suit then rank."""
    state = GAME.new_initial_state()
    state.apply_action(0)
    for card in make_deck(24):
        text = str(card)
        assert state.action_to_string(to_ps_card(card)) == text[1] + text[0]
    assert RANK_LETTERS.index("9") * 4 == CARD_OFFSET


def test_openspiel_deals_the_first_card_to_the_dealer_ours_to_eldest_hand() -> None:
    """OpenSpiel deals card i to seat (dealer + i) % 4; our Deal.from_deck starts with eldest hand."""
    deck = make_deck(24)
    dealer = 1
    ps = new_openspiel_state(deck, dealer)
    for seat in range(4):
        assert openspiel_hand(ps, seat) == {deck[i] for i in range(20) if (dealer + i) % 4 == seat}
    ours = Deal.from_deck(list(deck), 4, dealer)
    assert ours.hands[(dealer + 1) % 4][0] == deck[0]
    assert deal_like_openspiel(deck, dealer).hands[dealer][0] == deck[0]


def test_openspiel_asks_for_the_dealers_discard_before_the_makers_go_alone() -> None:
    """Round 1: OpenSpiel asks for the bid, the dealer's discard (of his original five), then goes alone."""
    deck = make_deck(24)
    dealer, upcard = 0, deck[20]
    ps = new_openspiel_state(deck, dealer)
    ps.apply_action(PS_FIRST_TRUMP + (upcard & 3))  # eldest (seat 1) orders up
    assert ps.current_player() == dealer
    dealers_five = deal_like_openspiel(deck, dealer).hands[dealer]
    assert set(ps.legal_actions()) == {to_ps_card(c) for c in dealers_five}
    ps.apply_action(to_ps_card(dealers_five[0]))
    assert ps.current_player() == 1 and set(ps.legal_actions()) == {PS_ALONE, PS_PARTNER}


def test_openspiel_asks_round_two_makers_to_go_alone_right_after_the_bid() -> None:
    """Round 2 has no exchange: OpenSpiel's alone question follows the bid at once."""
    deck = make_deck(24)
    ps = new_openspiel_state(deck, 2)
    for _ in range(4):
        ps.apply_action(PS_PASS)
    turned_down = deck[20] & 3
    assert set(ps.legal_actions()) == {PS_PASS} | {PS_FIRST_TRUMP + s for s in range(4) if s != turned_down}
    ps.apply_action(PS_FIRST_TRUMP + (turned_down + 1) % 4)
    assert ps.current_player() == 3 and set(ps.legal_actions()) == {PS_ALONE, PS_PARTNER}


def test_openspiel_dealer_discards_even_when_his_partner_goes_alone_ours_skips_the_exchange() -> None:
    """When the dealer's partner orders up alone, OpenSpiel still has the dealer discard; we start play."""
    deck = make_deck(24)
    dealer = 3
    deal = deal_like_openspiel(deck, dealer)
    ours = HandState(RULES, dealer, deal)
    ours.apply(Pass())
    ours.apply(OrderUp(alone=True))  # seat 1, the dealer's partner
    assert ours.phase is Phase.PLAY and ours.current_seat() == 0
    assert sorted(ours.hands[dealer]) == sorted(deal.hands[dealer]) and ours.upcard_taken is False

    ps = new_openspiel_state(deck, dealer)
    ps.apply_action(PS_PASS)
    ps.apply_action(PS_FIRST_TRUMP + (deal.upcard & 3))
    assert ps.current_player() == dealer
    assert set(ps.legal_actions()) == {to_ps_card(c) for c in deal.hands[dealer]}
    ps.apply_action(to_ps_card(deal.hands[dealer][0]))
    ps.apply_action(PS_ALONE)
    assert ps.current_player() == 0


def test_openspiel_has_no_passed_out_hand_with_stick_the_dealer_and_scores_zero_without_it() -> None:
    """The stuck dealer cannot pass in either engine; with the option off OpenSpiel scores a pass-out as 0."""
    deck = make_deck(24)
    ps = new_openspiel_state(deck, 0)
    ours = HandState(RULES, 0, deal_like_openspiel(deck, 0))
    for _ in range(7):
        ps.apply_action(PS_PASS)
        ours.apply(Pass())
    assert PS_PASS not in ps.legal_actions()
    assert not any(isinstance(a, Pass) for a in ours.legal_actions())

    loose = pyspiel.load_game("euchre", {"stick_the_dealer": False, "allow_lone_defender": False})
    state = loose.new_initial_state()
    for action in openspiel_deal_actions(deck, 0):
        state.apply_action(action)
    for _ in range(8):
        state.apply_action(PS_PASS)
    assert state.is_terminal() and list(state.returns()) == [0.0] * 4
