"""The search bot's decisions at tables of five to seven (call-partner and six-hand Euchre): sampled deals
(arena.bots.deals), each played out by the heuristic bot's rules for every seat (``choose``), the choice with the
best average outcome for this seat. In call-partner Euchre the sample also settles the maker's side: whoever holds
a called card in it (the partners already shown, and this seat if it is one, hold theirs for certain).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from arena.bots.deals import sample_hands
from arena.engine.actions import PASS, PLAY, Action, Call, CallPartner, GoAlone, OrderUp, Play
from arena.engine.cards import ACE, EFFECTIVE_SUIT, TRICK_POWER, TRUMP_POWER, make_deck
from arena.engine.options import Rules
from arena.engine.scoring import call_partner_points, six_hand_points
from arena.engine.view import SeatView
from arena.sdk import Table


def sides(view: SeatView, table: Table, hands: Sequence[Sequence[int]]) -> list[bool]:
    """For each seat, whether it plays on the maker's side in this sample."""
    maker = view.maker
    assert maker is not None
    if table.rules.game == "six_hand":
        return [table.rules.side_of(s) == table.rules.side_of(maker) for s in range(view.players)]
    called = set(view.partner_call.cards) if view.partner_call is not None else set()
    held = {s for s in range(view.players) if called & set(hands[s])} | set(table.revealed)
    if table.is_partner:
        held.add(view.seat)
    return [s == maker or s in held for s in range(view.players)]


def choose(
    trump: int,
    trick: Sequence[tuple[int, int]],
    cards: Sequence[int],
    seat: int,
    side: list[bool],
    others: Sequence[int],
) -> int:
    """The heuristic bot's card on plain lists (``others``: the cards the other seats still hold). Leading: a
    maker's side draws trumps while its top trump is the highest left (or with three trumps, from the bottom), then
    cashes the highest card left in a plain suit, else leads the plain card least worth keeping. Following: let a
    partner's trick be; else win it as cheaply as possible; else throw the card least worth keeping."""
    power_t, eff, own = TRUMP_POWER[trump], EFFECTIVE_SUIT[trump], TRICK_POWER[trump]

    def keep(c: int) -> tuple[int, int, int, int]:  # trumps, then aces, then cards of a longer suit, by rank
        if power_t[c] >= 0:
            return (1, 0, 0, power_t[c])
        longer = sum(1 for d in cards if eff[d] == eff[c]) > 1
        return (0, int(c >> 2 == ACE), int(longer), c >> 2)

    def boss(c: int) -> bool:
        suit, power = eff[c], own[eff[c]]
        return not any(eff[o] == suit and power[o] > power[c] for o in others)

    cheapest = min(cards, key=lambda c: (keep(c), c))
    if not trick:
        trumps = sorted((c for c in cards if power_t[c] >= 0), key=lambda c: power_t[c])
        plain = [c for c in cards if power_t[c] < 0]
        drawing = side[seat] and trumps and any(power_t[o] >= 0 for o in others)
        if drawing and (boss(trumps[-1]) or len(trumps) >= 3):
            return trumps[-1] if boss(trumps[-1]) else trumps[0]
        winners = [c for c in plain if boss(c)]
        if winners:
            return max(winners, key=lambda c: (c >> 2, c))
        if plain:
            return cheapest
        return trumps[-1] if boss(trumps[-1]) else trumps[0]
    power = own[eff[trick[0][1]]]
    winner, top = max(trick, key=lambda sc: power[sc[1]])
    if side[winner] == side[seat]:
        return cheapest
    beating = [c for c in cards if power[c] > power[top]]
    return min(beating, key=lambda c: (own[eff[c]][c], c)) if beating else cheapest


def playout(
    hands: list[list[int]],
    trump: int,
    trick: list[tuple[int, int]],
    side: list[bool],
    out: set[int],
    tricks_left: int,
    leader: int | None = None,
) -> int:
    """Play the rest of the hand by ``choose`` from a trick under way (or, empty, led by ``leader``): the tricks
    the maker's side takes from here (the trick under way among them)."""
    n = len(hands)
    eff = EFFECTIVE_SUIT[trump]
    active = [s for s in range(n) if s not in out]
    won = 0
    turn = _next(trick[-1][0], active, n) if trick else leader
    assert turn is not None
    while tricks_left:
        if len(trick) == len(active):  # the trick is done: its winner leads the next
            power = TRICK_POWER[trump][eff[trick[0][1]]]
            turn = max(trick, key=lambda sc: power[sc[1]])[0]
            won += side[turn]
            trick = []
            tricks_left -= 1
            continue
        held = hands[turn]
        allowed = [c for c in held if eff[c] == eff[trick[0][1]]] if trick else held
        others = [] if trick else [c for s in active if s != turn for c in hands[s]]  # (a lead's bosses)
        card = choose(trump, trick, allowed or held, turn, side, others)
        held.remove(card)
        trick.append((turn, card))
        turn = _next(turn, active, n)
    return won


def _next(seat: int, active: list[int], n: int) -> int:
    following = (seat + 1) % n
    while following not in active:
        following = (following + 1) % n
    return following


def score_edge(rules: Rules, seat: int, maker: int, side: list[bool], makers_won: int, *, alone: bool) -> float:
    """What a hand's end is worth to ``seat`` by the game's own scoring table, when the maker's side (``side``)
    takes ``makers_won`` tricks: its points less the table's mean."""
    n = len(side)
    if rules.game == "six_hand":
        points = six_hand_points(rules, maker, makers_won, alone=alone)
    else:
        points = call_partner_points(rules.options, n, {s for s in range(n) if side[s]}, makers_won, alone=alone)
    return points[seat] - sum(points) / n


def edge(view: SeatView, table: Table, side: list[bool], makers_won: int) -> float:
    """``score_edge`` of this seat in the hand being played (its maker, and whether he is alone, known)."""
    assert view.maker is not None
    return score_edge(table.rules, view.seat, view.maker, side, makers_won, alone=view.alone)


def search_play(view: SeatView, table: Table, legal: tuple[Action, ...], rng: random.Random, deals: int) -> Action:
    """The card that does best for this seat's side over ``deals`` sampled deals played out by ``choose``."""
    cards = [a.card for a in legal if isinstance(a, Play)]
    if len(cards) == 1 or view.trump is None or view.maker is None:
        return legal[0]
    trump, out = int(view.trump), set(view.sitting_out)
    totals = dict.fromkeys(cards, 0.0)
    for _ in range(deals):
        hands = sample_hands(view, table, rng)
        side = sides(view, table, hands)
        taken = sum(side[t.winner] for t in view.tricks)
        left = 5 - len(view.tricks)
        for card in cards:
            rest = [list(h) for h in hands]
            rest[view.seat].remove(card)
            trick: list[tuple[int, int]] = [*view.trick, (view.seat, card)]
            makers = taken + playout(rest, trump, trick, side, out, left)
            totals[card] += edge(view, table, side, makers)
    return PLAY[max(cards, key=lambda c: (round(totals[c], 6), -c))]


def search_call(view: SeatView, table: Table, legal: tuple[Action, ...], rng: random.Random, deals: int) -> Action:
    """Call-partner Euchre's call: the card (or going alone) with the best average score for this seat, less the
    table's mean, over ``deals`` sampled deals, each played out from the first lead with the partner the sample
    gives (whoever holds the called card; nobody, when it lies in the kitty)."""
    calls = [a for a in legal if isinstance(a, CallPartner | GoAlone)]
    if len(calls) <= 1 or view.trump is None:
        return legal[0]
    trump, n, me = int(view.trump), view.players, view.seat
    leader = _next(view.dealer, list(range(n)), n)
    totals = dict.fromkeys(calls, 0.0)
    options = table.rules.options
    for _ in range(deals):
        hands = sample_hands(view, table, rng)
        for call in calls:
            cards = set(call.cards) if isinstance(call, CallPartner) else set()
            makers = {me} | {s for s in range(n) if cards & set(hands[s])}
            side = [s in makers for s in range(n)]
            won = playout([list(h) for h in hands], trump, [], side, set(), 5, leader)
            points = call_partner_points(options, n, makers, won, alone=isinstance(call, GoAlone))
            totals[call] += points[me] - sum(points) / n
    return max(calls, key=lambda a: (round(totals[a], 6), -calls.index(a)))


def search_bid(
    view: SeatView, table: Table, legal: tuple[Action, ...], rng: random.Random, deals: int, margin: float = 0.0
) -> Action:
    """The bid at five to seven seats: for each bid the legal ones offer (a trump, and in six-hand alone or not),
    this seat's average score less the table's mean over ``deals`` sampled deals, each played out from the first
    lead with this seat as maker (the dealer taking the upcard on an order up; in call-partner Euchre the partner
    found by the card it would call; in six-hand its side, or itself alone with its partners out); the best such
    bid, or a pass when none is expected to gain more than ``margin`` points."""
    upcard = view.upcard
    assert upcard is not None
    rules = table.rules
    bids: list[tuple[Action, int]] = [
        (a, rules.upcard_suit(upcard) if isinstance(a, OrderUp) else a.suit)
        for a in legal
        if isinstance(a, OrderUp | Call)
    ]
    if not bids:
        return legal[0]
    n, me, dealer = view.players, view.seat, view.dealer
    mates = {s for s in range(n) if rules.side_of(s) == rules.side_of(me)} if rules.game == "six_hand" else {me}
    outstanding = table.outstanding()  # before a bid: all but this seat's cards and the upcard
    unseen = [c for c in make_deck(rules.deck) if c in outstanding]
    totals = [0.0] * len(bids)
    for _ in range(deals):
        rng.shuffle(unseen)
        rest = iter(unseen)
        dealt: list[list[int]] = [list(view.hand) if s == me else [next(rest) for _ in range(5)] for s in range(n)]
        for i, (bid, trump) in enumerate(bids):
            hands = [list(h) for h in dealt]
            alone = bool(getattr(bid, "alone", False))
            out = mates - {me} if alone else set()
            if isinstance(bid, OrderUp) and dealer not in out:  # the dealer takes the upcard, puts away his least
                hands[dealer].append(upcard)
                power = TRICK_POWER[trump]
                hands[dealer].remove(min(hands[dealer], key=lambda c: (power[EFFECTIVE_SUIT[trump][c]][c], c)))
            leader = _next(dealer, [s for s in range(n) if s not in out], n)
            if rules.game == "six_hand":
                side = [s in mates for s in range(n)]
            else:  # (a call-partner maker's going alone is his call's, after the bid: not alone here)
                called = _best_call(hands[me], trump, table, None if isinstance(bid, OrderUp) else upcard)
                side = [s == me or called in hands[s] for s in range(n)]
                alone = False
            won = playout(hands, trump, [], side, out, 5, leader)
            totals[i] += score_edge(rules, me, me, side, won, alone=alone)
    best = max(range(len(bids)), key=lambda i: (round(totals[i], 6), -i))
    if PASS in legal and totals[best] <= margin * deals:
        return PASS
    return bids[best][0]


def _best_call(hand: Sequence[int], trump: int, table: Table, turned_down: int | None) -> int:
    """The card the maker would call: the highest trump he does not hold (``call = "any_card"``), else an ace of
    another suit he does not hold."""
    if table.rules.options.call == "any_card":
        power_t = TRUMP_POWER[trump]
        free = [c for c in make_deck(table.rules.deck) if c not in hand and c != turned_down]
        return max(free, key=lambda c: (power_t[c], c >> 2, c))
    aces = [ACE * 4 + s for s in range(4) if s != trump and ACE * 4 + s not in hand]
    return aces[0] if aces else -1
