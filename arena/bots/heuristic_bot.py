"""A rule-based Euchre player: bids on counted trump strength, discards to make voids, wins tricks cheaply.

Deterministic: no randomness at all; ties are broken by card order. Runnable as ``python -m arena.bots.heuristic_bot``
under a referee (it reads ARENA_ENDPOINT and ARENA_TOKEN).
"""

from __future__ import annotations

from collections.abc import Iterable

from arena.bots.nap_strategy import nap_bid, nap_play
from arena.engine.actions import (
    CALL_FOR_BEST,
    CALL_FOR_BEST_FIRST,
    DEFEND_ALONE,
    GO_ALONE,
    NAME_TRUMP,
    PASS,
    Action,
    Bid,
    Call,
    CallForBest,
    CallPartner,
    Declare,
    Discard,
    GiveBest,
    NameTrump,
    OrderUp,
    Play,
)
from arena.engine.cards import ACE, EFFECTIVE_SUIT, TRICK_POWER, Card, Suit, card_power, effective_suit
from arena.engine.phases import Phase
from arena.engine.view import SeatView
from arena.sdk import Bot, Table, run

# Expected tricks of one trump card, by trump power: Benny 100, right 99, left 98, then 50 + rank (A 50 + ACE ...).
TOP_TRUMP = {100: 1.0, 99: 1.0, 98: 0.85, 50 + ACE: 0.75, 49 + ACE: 0.6, 48 + ACE: 0.5}
LOW_TRUMP = 0.4
OFF_ACE = 0.7
VOID_RUFF = 0.3
# Tricks a maker must expect from his own hand: a partner adds about one in four-hand; alone needs three. From five
# players on a partner (called, or six-hand's two) helps as much, against more defenders.
NEEDED = {2: 2.0, 3: 3.0, 4: 2.2, 5: 2.4, 6: 2.3, 7: 2.5}
ALONE = 3.5
DEFEND = 3.0


def power(card: Card, trump: Suit) -> int:
    """How high ``card`` ranks in its own effective suit (trumps above every plain card)."""
    return TRICK_POWER[trump][EFFECTIVE_SUIT[trump][card]][card]  # card_power in its own suit, by the engine's table


def strength(cards: Iterable[Card], trump: Suit) -> float:
    """Expected tricks this hand takes with ``trump`` as trump (trump honours, length, off-suit aces, voids)."""
    hand = list(cards)
    eff = EFFECTIVE_SUIT[trump]  # the suits as ints: the comparisons of effective_suit without making Suits
    trumps = [c for c in hand if eff[c] == trump]
    total = sum(TOP_TRUMP.get(power(c, trump), LOW_TRUMP) for c in trumps) + 0.2 * max(0, len(trumps) - 2)
    for suit in Suit:
        if suit == trump:
            continue
        held = [c for c in hand if eff[c] == suit]
        if not held and len(trumps) >= 2:
            total += VOID_RUFF
        elif any(c.rank == ACE for c in held):
            total += OFF_ACE if len(held) <= 2 else OFF_ACE - 0.2
    return total


def keep_value(card: Card, trump: Suit, hand: Iterable[Card]) -> tuple[int, int, int, int]:
    """Sort key of how much a card is worth keeping: trump above aces above long-suit cards above singletons."""
    eff = EFFECTIVE_SUIT[trump]
    suit = eff[card]
    if suit == trump:
        return (1, 0, 0, power(card, trump))
    length = sum(1 for c in hand if eff[c] == suit)
    return (0, int(card.rank == ACE), int(length > 1), card.rank)


def best_discard(hand: list[Card], trump: Suit, allowed: Iterable[Card]) -> Card:
    """The allowed card least worth keeping: void a short off-suit, never trump unless there is nothing else."""
    return min(allowed, key=lambda c: (keep_value(c, trump, hand), c))


def call_for_best(view: SeatView, legal: tuple[Action, ...]) -> Action:
    """Railroad's call for best: always call (the partner's best card is worth more than the caller's worst),
    putting away the card least worth keeping; as the partner, give the card most worth keeping for the caller:
    the highest trump, else an ace."""
    trump = view.trump
    assert trump is not None
    if view.phase is Phase.GIVE_BEST:
        cards = [a.card for a in legal if isinstance(a, GiveBest)]
        return GiveBest(max(cards, key=lambda c: (keep_value(c, trump, cards), c)))
    if CALL_FOR_BEST_FIRST in legal:
        return CALL_FOR_BEST_FIRST
    hand = list(view.hand)
    calls = [a for a in legal if isinstance(a, CallForBest)]
    if calls and (calls[0].partner is not None or calls[0].cards):  # six-hand: a partner named, or one per partner
        order = sorted(hand, key=lambda c: (keep_value(c, trump, hand), c))
        return min(calls, key=lambda a: [order.index(c) for c in (a.cards or (a.card,)) if c is not None])
    return CALL_FOR_BEST[best_discard(hand, trump, hand)]


def call_partner(view: SeatView, legal: tuple[Action, ...], alone_at: float) -> Action:
    """Call-partner Euchre's call: alone with a hand worth it (where allowed), else the highest callable cards of
    trump (the bowers first), else the highest others (an ace of another suit)."""
    trump = view.trump
    assert trump is not None
    if GO_ALONE in legal and (len(legal) == 1 or strength(view.hand, trump) >= alone_at):
        return GO_ALONE
    calls = [a for a in legal if isinstance(a, CallPartner)]
    return max(calls, key=lambda a: sorted((power(c, trump) for c in a.cards), reverse=True))


PARTNER = 1.0  # tricks a Hasenpfeffer bidder counts on from his partner


def auction(view: SeatView, legal: tuple[Action, ...]) -> Action:
    """Hasenpfeffer's bid: the expected tricks of the best suit, with one from the partner; the lowest legal bid
    up to it, else a pass (or the lowest bid, when passing is not allowed)."""
    worth = max(strength(view.hand, suit) for suit in Suit) + PARTNER
    bids = [a for a in legal if isinstance(a, Bid)]
    fitting = [a for a in bids if a.tricks <= worth]
    if fitting:
        return fitting[0]
    return PASS if PASS in legal else bids[0]


def declare(view: SeatView, legal: tuple[Action, ...]) -> Action:
    """Hasenpfeffer's trump: the suit the hand is strongest in, putting away the card least worth keeping (with
    the widow), or naming it (the widow unused)."""
    hand = list(view.hand)
    suit = max(Suit, key=lambda s: (strength(hand, s), -s))
    if any(isinstance(a, NameTrump) for a in legal):
        return NAME_TRUMP[suit]
    return Declare(suit, best_discard(hand, suit, hand))


class HeuristicBot(Bot):
    """A sound, deterministic rule-based player for every variant."""

    name = "heuristic"
    needed = NEEDED
    alone_at = ALONE

    def act(self, view: SeatView, legal: tuple[Action, ...]) -> Action:
        """Pick an action by phase."""
        table = self.table
        assert table is not None
        if table.rules.game == "nap":
            return nap_play(view, table, legal) if view.phase is Phase.PLAY else nap_bid(view, legal)
        if view.phase is Phase.PLAY:
            return self.play(view, table, [a.card for a in legal if isinstance(a, Play)])
        if view.phase is Phase.DISCARD or view.phase is Phase.BEST_DISCARD:
            assert view.trump is not None
            cards = [a.card for a in legal if isinstance(a, Discard)]
            return Discard(best_discard(list(view.hand), view.trump, cards))
        if view.phase is Phase.CALL_BEST or view.phase is Phase.GIVE_BEST:
            return call_for_best(view, legal)
        if view.phase is Phase.CALL_PARTNER:
            return call_partner(view, legal, self.alone_at)
        if view.phase is Phase.DEFEND:
            assert view.trump is not None
            return DEFEND_ALONE if strength(view.hand, view.trump) >= DEFEND else PASS
        if view.phase is Phase.BID:
            return auction(view, legal)
        if view.phase is Phase.DECLARE or (view.phase is Phase.NAME_TRUMP and view.upcard is None):
            return declare(view, legal)
        if view.phase is Phase.NAME_TRUMP:
            return next(a for a in legal if isinstance(a, NameTrump))  # named blind: any suit will do
        return self.bid(view, table, legal)

    # ---- making trump ----

    def bid(self, view: SeatView, table: Table, legal: tuple[Action, ...]) -> Action:
        """Order up or call the best suit when the hand is worth it; go alone when very strong and allowed."""
        upcard = view.upcard
        assert upcard is not None  # (Hasenpfeffer bids by ``auction``)
        options: list[tuple[float, Suit, Action]]
        hand = list(view.hand)
        if view.phase is Phase.BID1:
            trump = table.rules.upcard_suit(upcard)
            if view.dealer == view.seat:
                hand.append(upcard)
                hand.remove(best_discard(hand, trump, [c for c in hand if c != upcard]))
                score = strength(hand, trump)
            else:
                gift = TOP_TRUMP.get(power(upcard, trump), LOW_TRUMP)
                score = strength(hand, trump) + (gift if table.same_side(view.dealer, view.seat) else -gift)
            options = [(score, trump, a) for a in legal if isinstance(a, OrderUp)]
        else:
            options = [(strength(hand, a.suit), a.suit, a) for a in legal if isinstance(a, Call)]
        if not options:
            return legal[0]
        score, trump, _ = max(options, key=lambda o: (o[0], -o[1]))
        if score < self.needed[view.players] and PASS in legal:
            return PASS
        lone = score >= self.alone_at and any(power(c, trump) >= 99 for c in hand)
        bids = [a for s, t, a in options if t == trump and getattr(a, "alone", False) == lone]
        return bids[0] if bids else next(a for s, t, a in options if t == trump)

    # ---- playing cards ----

    def play(self, view: SeatView, table: Table, cards: list[Card]) -> Play:
        """Lead or follow."""
        trump = view.trump
        assert trump is not None
        card = self.lead(view, table, cards, trump) if not table.trick else self.follow(view, table, cards, trump)
        return Play(card)

    def lead(self, view: SeatView, table: Table, cards: list[Card], trump: Suit) -> Card:
        """Pull trump as a strong maker; otherwise cash off-suit winners; otherwise lead low off-suit."""
        eff = EFFECTIVE_SUIT[trump]
        trumps = sorted((c for c in cards if eff[c] == trump), key=lambda c: power(c, trump))
        plain = [c for c in cards if eff[c] != trump]
        ours = table.maker is not None and table.same_side(table.maker, view.seat)
        enemy_trumps = any(eff[c] == trump for c in table.outstanding())
        if ours and trumps and enemy_trumps:
            top_is_boss = table.is_boss(trumps[-1])
            if top_is_boss or (table.maker == view.seat and len(trumps) >= 3):
                return trumps[-1] if top_is_boss else trumps[0]
        opponents = [s for s in table.active() if not table.same_side(s, view.seat)]
        winners = [c for c in plain if table.is_boss(c) and not any(eff[c] in table.voids[s] for s in opponents)]
        if winners:
            return max(winners, key=lambda c: (c.rank, c))
        if plain:
            return min(plain, key=lambda c: (keep_value(c, trump, cards), c))
        return trumps[-1] if table.is_boss(trumps[-1]) else trumps[0]

    def follow(self, view: SeatView, table: Table, cards: list[Card], trump: Suit) -> Card:
        """Let a partner's trick be; otherwise win it as cheaply as possible; otherwise throw the cheapest card."""
        led = effective_suit(table.trick[0][1], trump)
        winning = table.winning()
        assert winning is not None
        seat, top = winning
        cheapest = min(cards, key=lambda c: (keep_value(c, trump, cards), c))
        if table.same_side(seat, view.seat):
            return cheapest
        beat = card_power(top, trump, led)
        winners = sorted((c for c in cards if card_power(c, trump, led) > beat), key=lambda c: power(c, trump))
        if not winners:
            return cheapest
        last = len(table.trick) == len(table.active()) - 1
        if (
            not last
            and effective_suit(winners[0], trump) == led != trump
            and not self._ruff_risk(table, view.seat, led)
        ):
            safe = [c for c in winners if effective_suit(c, trump) == led and table.is_boss(c)]
            return safe[0] if safe else winners[0]  # the boss of the suit led, if nobody behind can trump it
        return winners[0]  # the cheapest winner: the lowest trump when trumping in, never a bower to spare

    def _ruff_risk(self, table: Table, seat: int, led: Suit) -> bool:
        """Whether an opponent still to play has shown out of the suit led."""
        played = {s for s, _ in table.trick}
        return any(led in table.voids[s] for s in table.active() if s not in played and not table.same_side(s, seat))


if __name__ == "__main__":
    run(HeuristicBot())
