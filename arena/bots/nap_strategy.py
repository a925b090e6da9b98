"""Nap for the bundled bots: a counted bid and rule-based card play (the heuristic bot's), and playouts of sampled
deals (the search bot's).

Nap has no bowers: a card's suit is its printed suit and the joker is the top trump (docs/rules.md section 15).
The declarer plays alone against every other seat, so the others play as one side against him.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from arena.bots.deals import sample_hands
from arena.engine.actions import NAP_CONTRACTS, PASS, PLAY, Action, JokerLead, NapBid, Play
from arena.engine.cards import ACE, JOKER, JOKER_ID, RANK_LETTERS, Suit, plain_power, plain_suit
from arena.engine.scoring import NAP_STAKES, NAP_TRICKS, nap_made
from arena.engine.view import SeatView
from arena.sdk import Table

SEVEN = RANK_LETTERS.index("7")
MARGIN = 0.3  # counted tricks beyond the contract a bid asks of the heuristic's count


def trump_tricks(hand: Sequence[int], suit: int, players: int) -> float:
    """Tricks ``hand`` counts on with ``suit`` led first as trump: the joker and the top trumps, length, and aces
    of other suits (worth less the more players may ruff them)."""
    trumps = sorted((c for c in hand if c == JOKER_ID or c & 3 == suit), key=lambda c: -plain_power(c, suit, suit))
    total = 0.0
    for place, card in enumerate(trumps):
        top = card == JOKER_ID or (card >> 2) >= ACE - place  # the ace, the king behind it, ...
        total += 1.0 if top else 0.45 if len(trumps) >= 3 else 0.2
    sides = [c for c in hand if c != JOKER_ID and c & 3 != suit and c >> 2 == ACE]
    return total + len(sides) * (0.8 if players <= 3 else 0.6 if players <= 5 else 0.45)


def best_suit(hand: Sequence[int], players: int) -> tuple[float, int]:
    """The counted tricks of the best suit to lead as trump, and that suit."""
    suit = max(range(4), key=lambda s: (trump_tricks(hand, s, players), -s))
    return trump_tricks(hand, suit, players), suit


def misere_worth(hand: Sequence[int]) -> bool:
    """Whether the hand may lose every trick: no joker, nothing above a seven."""
    return all(c != JOKER_ID and c >> 2 <= SEVEN for c in hand)


def nap_bid(view: SeatView, legal: tuple[Action, ...]) -> Action:
    """The highest legal contract the hand counts enough tricks for (Misere for a hand of low cards); else a pass,
    or the lowest bid where passing is not allowed."""
    worth, _ = best_suit(view.hand, view.players)
    bids = [a for a in legal if isinstance(a, NapBid)]
    fitting = [
        a
        for a in bids
        if (misere_worth(view.hand) if a.contract == "misere" else worth >= NAP_TRICKS[a.contract] + MARGIN)
        and a.contract not in ("wellington", "bluecher")  # the heuristic never raises a Nap
    ]
    if fitting:
        return fitting[-1]
    return PASS if PASS in legal else bids[0]


def _lowest(cards: Sequence[int], trump: int | None) -> int:
    return min(cards, key=lambda c: (plain_power(c, trump, plain_suit(c, trump)), c))


def _highest(cards: Sequence[int], trump: int | None) -> int:
    return max(cards, key=lambda c: (plain_power(c, trump, plain_suit(c, trump)), c))


def choose_play(
    seat: int, declarer: int, contract: str, trump: int | None, trick: Sequence[tuple[int, int]], cards: Sequence[int]
) -> int:
    """The rule-based card: the declarer leads his strongest card and wins cheaply (in Misere: ducks with his
    highest card that loses); the others beat the declarer where they can and let a fellow opponent's trick be (in
    Misere: duck under him so that he wins)."""
    misere = contract == "misere"
    if not trick:  # lead high to win tricks; low in Misere, to lose them (or, as the others, to make him win)
        return _lowest(cards, trump) if misere else _highest(cards, trump)
    led = plain_suit(trick[0][1], trump)
    best_seat, best_card = max(trick, key=lambda sc: plain_power(sc[1], trump, led))
    top = plain_power(best_card, trump, led)
    winners = [c for c in cards if plain_power(c, trump, led) > top]
    losers = [c for c in cards if plain_power(c, trump, led) <= top]
    if misere:
        if seat == declarer:
            return _highest(losers, trump) if losers else _lowest(cards, trump)
        return _lowest(losers, trump) if best_seat == declarer and losers else _lowest(cards, trump)
    if seat == declarer or best_seat == declarer:
        return _lowest(winners, trump) if winners else _lowest(cards, trump)
    return _lowest(cards, trump)  # a fellow opponent holds the trick


def nap_play(view: SeatView, table: Table, legal: tuple[Action, ...]) -> Action:
    """The heuristic's card; the declarer's first lead of the joker names his best suit."""
    contract = table.nap_contract() or "three"
    declarer = view.maker if view.maker is not None else view.seat
    trump = None if view.trump is None else int(view.trump)
    cards = [a.card for a in legal if isinstance(a, Play | JokerLead)]
    first = not view.trick and not view.tricks
    if first and contract == "misere":  # never the joker, which would win
        return PLAY[_lowest([c for c in cards if c != JOKER_ID] or cards, None)]
    if first and any(isinstance(a, JokerLead) for a in legal):  # the joker, a sure trick, naming the best suit
        return JokerLead(Suit(best_suit(view.hand, view.players)[1]))
    if first and trump is None:  # the first lead makes trump: the top of the best suit
        _, suit = best_suit(view.hand, view.players)
        in_suit = [c for c in cards if c != JOKER_ID and c & 3 == suit]
        return PLAY[_highest(in_suit, suit) if in_suit else _highest(cards, None)]
    return PLAY[choose_play(view.seat, declarer, contract, trump, view.trick, cards)]


# ---- the search bot's: playouts of sampled deals ----


def playout(
    hands: list[list[int]],
    leader: int,
    declarer: int,
    contract: str,
    trump: int | None,
    trick: Sequence[tuple[int, int]],
    tricks_won: Sequence[int],
) -> int:
    """Play the deal out with ``choose_play`` for every seat from a position: the declarer's tricks at the end."""
    n = len(hands)
    hands = [list(h) for h in hands]
    trick = list(trick)  # (a copy: the caller's stays)
    won = list(tricks_won)
    turn = (trick[-1][0] + 1) % n if trick else leader
    while any(hands):
        held = hands[turn]
        if trick:
            led = plain_suit(trick[0][1], trump)
            follow = [c for c in held if led is not None and plain_suit(c, trump) == led]
            allowed = follow or held
        else:
            allowed = held
        card = choose_play(turn, declarer, contract, trump, trick, allowed)
        held.remove(card)
        trick.append((turn, card))
        if len(trick) == n:
            led = plain_suit(trick[0][1], trump)
            turn = max(trick, key=lambda sc: plain_power(sc[1], trump, led))[0]
            won[turn] += 1
            trick = []
        else:
            turn = (turn + 1) % n
    return won[declarer]


def declarer_points(contract: str, taken: int) -> int:
    """What the declarer gains (or loses, negative) per opponent."""
    gain, loss = NAP_STAKES[contract]  # (Misere at its 3/3 stakes)
    return gain if nap_made(contract, taken) else -loss


def search_play(view: SeatView, table: Table, legal: tuple[Action, ...], rng: random.Random, deals: int) -> Action:
    """The card (or joker lead) that does best for this seat over ``deals`` sampled deals, each played out by the
    rule-based players: the declarer's gain for the declarer, its loss for the others."""
    if len(legal) == 1:
        return legal[0]
    contract = table.nap_contract() or "three"
    declarer = view.maker if view.maker is not None else view.seat
    won = list(view.tricks_won)
    totals = {a: 0.0 for a in legal}
    for _ in range(deals):
        hands = sample_hands(view, table, rng)
        for action in legal:
            card = action.card if isinstance(action, Play | JokerLead) else JOKER
            trump = None if view.trump is None else int(view.trump)
            if isinstance(action, JokerLead):
                trump = int(action.trump)
            elif not view.tricks and not view.trick and trump is None and not table.no_trump():
                trump = card & 3
            rest = [list(h) for h in hands]
            rest[view.seat].remove(card)
            trick = [*view.trick, (view.seat, card)]
            taken = playout(rest, view.seat, declarer, contract, trump, trick, won)
            gain = declarer_points(contract, taken)
            totals[action] += gain if view.seat == declarer else -gain
    return max(legal, key=lambda a: (round(totals[a], 6), -legal.index(a)))


def search_bid(view: SeatView, table: Table, legal: tuple[Action, ...], rng: random.Random, deals: int) -> Action:
    """The contract with the best expected gain over sampled deals, each played out with this seat leading its best
    suit; a pass when none is expected to gain (or the lowest bid, when passing is not allowed)."""
    bids = [a for a in legal if isinstance(a, NapBid)]
    if not bids:
        return legal[0]
    _, suit = best_suit(view.hand, view.players)
    taken: list[int] = []
    misere_taken: list[int] = []
    n = view.players
    for _ in range(deals):
        hands = sample_hands(view, table, rng)
        in_suit = [c for c in view.hand if c == JOKER_ID or c & 3 == suit]
        lead = _highest(in_suit, suit) if in_suit else _highest(view.hand, None)
        rest = [list(h) for h in hands]
        rest[view.seat].remove(lead)
        trump = suit if lead == JOKER_ID else lead & 3
        taken.append(playout(rest, view.seat, view.seat, "nap", trump, [(view.seat, lead)], [0] * n))
        low = _lowest([c for c in view.hand if c != JOKER_ID] or view.hand, None)
        rest = [list(h) for h in hands]
        rest[view.seat].remove(low)
        misere_trump = low & 3 if table.rules.options.misere_trumps else None
        misere_taken.append(playout(rest, view.seat, view.seat, "misere", misere_trump, [(view.seat, low)], [0] * n))
    if not taken:
        return PASS if PASS in legal else bids[0]

    def expected(contract: str) -> float:
        results = misere_taken if contract == "misere" else taken
        return sum(declarer_points(contract, t) for t in results) / len(results)

    best = max(bids, key=lambda a: (expected(a.contract), NAP_CONTRACTS.index(a.contract)))
    if PASS in legal and expected(best.contract) <= 0:
        return PASS
    return best
