"""Double-dummy solving of a hand's card play: every card known, how many tricks can the side to move take?

A :class:`Position` is the card play of one hand with all hands open: trump, each seat's cards, the trick in progress,
the seat to play, who sits out and who plays with whom. :func:`solve` returns the most tricks the side to move can
take from the tricks left (the trick in progress included) against best defence, and a card that takes them.
A :class:`Solver` keeps its transposition table between questions about one position, which is what a bot asks
many of: the tricks after each of its cards, or only whether a card still reaches a number of tricks.

The search is alpha-beta over single cards with the follow-suit rule, a transposition table at trick starts keyed
on the open hands and the leader, move ordering (high leads, cheapest winners and low discards first) and
equivalent cards merged: two cards of one suit with no live card between them are the same move. Inside, a card
is re-indexed per trump suit as ``16 * block + rank``, trump being block 3 and ranks rising with strength, so that
following suit is a mask and "beats the card winning the trick" is one comparison; a hand is an int bitmask.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from arena.engine.cards import EFFECTIVE_SUIT, JOKER_ID, TRUMP_POWER, Card

if TYPE_CHECKING:  # a bot searches positions of its own and never runs a hand: it starts without the rules engine
    from arena.engine.hand import HandState

TRUMP_BASE = 48  # the first index of the trump block
_BLOCK = (0xFFFF, 0xFFFF << 16, 0xFFFF << 32, 0xFFFF << 48)


def _index_tables(trump: int) -> tuple[tuple[int, ...], dict[int, Card]]:
    blocks = {suit: block for block, suit in enumerate(s for s in range(4) if s != trump)}
    blocks[trump] = 3
    to_index = []
    for c in range(JOKER_ID + 1):
        suit = EFFECTIVE_SUIT[trump][c]
        power = TRUMP_POWER[trump][c]
        rank = c >> 2 if power < 0 else (power - 50 if power < 98 else power - 85)  # bowers and joker: 13, 14, 15
        to_index.append(16 * blocks[suit] + rank)
    return tuple(to_index), {i: Card(c) for c, i in enumerate(to_index)}


_TABLES = tuple(_index_tables(t) for t in range(4))
TO_INDEX: tuple[tuple[int, ...], ...] = tuple(t[0] for t in _TABLES)
"""The solver index of a card, by ``[trump][card]``: ``16 * block + rank``, trump in block 3."""
FROM_INDEX: tuple[dict[int, Card], ...] = tuple(t[1] for t in _TABLES)
"""The card of a solver index, by ``[trump][index]``."""


def teams_of(players: int, maker: int | None) -> tuple[int, ...]:
    """Who plays with whom in a hand: partners opposite in four-hand, the maker against the other two in three-hand."""
    if players == 4:
        return tuple(s % 2 for s in range(4))
    if players == 3:
        return tuple(0 if s == maker else 1 for s in range(3))
    return tuple(range(players))


@dataclass(frozen=True, slots=True)
class Position:
    """Card play with every card known: trump, the cards of each seat, the trick in progress and the seat to play.

    ``hands`` is by seat; the cards of a seat in ``out`` (sitting out) are ignored. ``teams`` gives a team id per
    seat (see :func:`teams_of`). Each active seat holds as many cards as tricks are left, less one if it has played
    to the trick in progress.
    """

    trump: int
    hands: tuple[tuple[int, ...], ...]
    turn: int
    teams: tuple[int, ...]
    trick: tuple[tuple[int, int], ...] = ()
    out: frozenset[int] = frozenset()

    @classmethod
    def from_hand(cls, hand: HandState) -> Position:
        """The card play of an engine hand in its play phase (every hand open)."""
        if hand.trump is None or hand.current_seat() is None:
            raise ValueError("a position needs a hand in play, with trump made")
        return cls(
            trump=int(hand.trump),
            hands=tuple(tuple(h) for h in hand.hands),
            turn=hand.turn,
            teams=teams_of(hand.players, hand.maker),
            trick=tuple(hand.trick),
            out=frozenset(hand.out),
        )

    def legal(self) -> tuple[Card, ...]:
        """The cards the seat to play may play (follow suit if it can)."""
        hand = self.hands[self.turn]
        if self.trick:
            eff = EFFECTIVE_SUIT[self.trump]
            led = eff[self.trick[0][1]]
            follow = tuple(Card(c) for c in hand if eff[c] == led)
            if follow:
                return follow
        return tuple(Card(c) for c in hand)


class Solution(NamedTuple):
    """The most tricks the side to move takes from here (the trick in progress included), and a card that does."""

    tricks: int
    card: Card


def _bits(cards: Iterable[int], to_index: Sequence[int]) -> int:
    mask = 0
    for c in cards:
        mask |= 1 << to_index[c]
    return mask


class Solver:
    """Double-dummy search of one position; the transposition table is kept between questions.

    Every answer counts the tricks of one team, the root side (by default the team of the seat to move), from the
    trick in progress (included) to the end of the hand. ``nodes`` (the positions stored at trick starts) measures
    the work done, deterministically, for budgets.
    """

    def __init__(self, position: Position, *, team: int | None = None) -> None:
        trump = position.trump
        self.position = position
        self.to_index = TO_INDEX[trump]
        self.from_index = FROM_INDEX[trump]
        players = len(position.hands)
        active = [s for s in range(players) if s not in position.out]
        self.size = len(active)
        self.hands = [0] * players
        for s in active:
            self.hands[s] = _bits(position.hands[s], self.to_index)
        self.next = [0] * players
        for i, s in enumerate(active):
            self.next[s] = active[(i + 1) % len(active)]
        root = position.teams[position.turn] if team is None else team
        self.mine = [int(position.teams[s] == root) for s in range(players)]
        self.tt: dict[int, tuple[int, int, int]] = {}
        self._lead, self._follow = _search(self.hands, self.next, self.mine, active, self.tt)
        self.turn = position.turn
        # The trick in progress: cards played, the led block, the seat and index winning it, its cards as a mask.
        self.played = len(position.trick)
        self.led = self.win_seat = self.win = self.trick_mask = 0
        for i, (seat, c) in enumerate(position.trick):
            x = self.to_index[c]
            self.trick_mask |= 1 << x
            if i == 0:
                self.led, self.win_seat, self.win = x >> 4, seat, x
            elif x > self.win and (x >> 4 == self.win >> 4 or x >= TRUMP_BASE):
                self.win_seat, self.win = seat, x
        self.left = self.hands[self.turn].bit_count() + (1 if self.played else 0)

    @property
    def nodes(self) -> int:
        """Positions stored so far: a deterministic measure of the work done."""
        return len(self.tt)

    # ---- questions ----

    def moves(self) -> list[Card]:
        """The root seat's distinct moves: its legal cards, one of each run of equivalent cards."""
        h = self.hands[self.turn]
        m = h & _BLOCK[self.led] if self.played else h
        if not m:
            m = h
        return [self.from_index[x] for x in _indices(_reps(m, self._live()))]

    def _live(self) -> int:
        """Every card in play in the current trick: the hands and the trick's cards."""
        live = self.trick_mask
        for hs in self.hands:
            live |= hs
        return live

    def value(self, alpha: int = -1, beta: int = 99) -> int:
        """Tricks of the root side from here, exact if strictly inside ``(alpha, beta)``, else a bound on that side."""
        if not self.played:
            return self._lead(self.turn, alpha, beta)
        live = self._live()
        return self._follow(self.turn, self.played, self.led, self.win_seat, self.win, live, alpha, beta)

    def after(self, card: int, alpha: int = -1, beta: int = 99) -> int:
        """Tricks of the root side if the seat to move plays ``card`` (a legal card), in the sense of :meth:`value`."""
        seat, hands = self.turn, self.hands
        x = self.to_index[card]
        b = 1 << x
        h = hands[seat]
        if not h & b:
            raise ValueError(f"seat {seat} does not hold {Card(card)}")
        if self.played:
            led, ws, wi = self.led, self.win_seat, self.win
            if x > wi and (x >> 4 == wi >> 4 or x >= TRUMP_BASE):
                ws, wi = seat, x
        else:
            led, ws, wi = x >> 4, seat, x
        live = self._live()
        hands[seat] = h ^ b
        try:
            if self.played + 1 == self.size:
                g = self.mine[ws]
                return g + self._lead(ws, alpha - g, beta - g)
            return self._follow(self.next[seat], self.played + 1, led, ws, wi, live, alpha, beta)
        finally:
            hands[seat] = h

    def reaches(self, card: int, tricks: int) -> bool:
        """Whether the root side still takes at least ``tricks`` tricks after the seat to move plays ``card``."""
        if tricks <= 0:
            return True
        return self.after(card, tricks - 1, tricks) >= tricks

    def levels(self, steps: Sequence[int], card: int | None = None) -> int:
        """How many of ``steps`` (trick counts, rising) the root side reaches from here, or after ``card``."""
        lo, hi = 0, len(steps)
        while lo < hi:  # bisection: reaching a step means reaching every lower one
            mid = (lo + hi) // 2
            k = steps[mid]
            if k <= 0 or (self.value(k - 1, k) if card is None else self.after(card, k - 1, k)) >= k:
                lo = mid + 1
            else:
                hi = mid
        return lo

    def card_tricks(self, card: int) -> int:
        """Exactly how many tricks the root side takes after the seat to move plays ``card``."""
        return self.after(card)

    def solve(self) -> Solution:
        """The most tricks the side to move takes, and a card of the seat to move that takes them."""
        mover = self.mine[self.turn]
        best, best_card = -1, None
        for card in self.moves():
            # When the root side is the other one, the mover takes what it leaves.
            v = self.after(card, best, self.left + 1) if mover else self.left - self.after(card, -1, self.left - best)
            if v > best:
                best, best_card = v, card
        assert best_card is not None
        return Solution(best, best_card)


Lead = Callable[[int, int, int], int]
Follow = Callable[[int, int, int, int, int, int, int, int], int]


def _reps(m: int, live: int) -> int:
    """The cards of ``m`` whose next live card above, in the same block, is not also in ``m``."""
    reps = 0
    x = m
    while x:
        b = x & -x
        x ^= b
        above = live & ~((b << 1) - 1) & _BLOCK[(b.bit_length() - 1) >> 4]
        if not (above & -above) & m:
            reps |= b
    return reps


def _search(
    hands: list[int], nxt: list[int], mine: list[int], active: list[int], tt: dict[int, tuple[int, int, int]]
) -> tuple[Lead, Follow]:
    """The alpha-beta search over the shared mutable ``hands``, as two closures (locals are the fastest names).

    ``lead(leader, alpha, beta)`` starts a trick; ``follow(seat, k, led, ws, wi, live, alpha, beta)`` asks the
    ``k``-th card of a trick led in block ``led``, won so far by seat ``ws`` with index ``wi``; ``live`` is every
    card in play at the trick's start (the hands then, the trick's cards included).
    Both return the root side's tricks from the current trick on, fail-soft.
    """
    later: list[Follow] = []  # lead calls follow, which is made after it (it calls lead)
    lead = _leader(hands, nxt, mine, active, tt, later)
    follow = _follower(hands, nxt, mine, len(active) - 1, lead)
    later.append(follow)
    return lead, follow


def _leader(
    hands: list[int],
    nxt: list[int],
    mine: list[int],
    active: list[int],
    tt: dict[int, tuple[int, int, int]],
    later: list[Follow],
) -> Lead:
    """``_search``'s ``lead``: the search's node at a trick's start, with the transposition table."""
    block = _BLOCK
    others = len(active) - 1

    def lead(leader: int, alpha: int, beta: int) -> int:
        h = hands[leader]
        if h & (h - 1) == 0:
            if not h:
                return 0
            ws, w, s = leader, h.bit_length() - 1, leader
            for _ in range(others):
                s = nxt[s]
                x = hands[s].bit_length() - 1
                if x > w and (x >> 4 == w >> 4 or x >= TRUMP_BASE):
                    ws, w = s, x
            return mine[ws]
        left = h.bit_count()
        if alpha >= left:
            return left
        if beta <= 0:
            return 0
        key = leader
        live = 0
        for s in active:
            hs = hands[s]
            key = key << 64 | hs
            live |= hs
        entry = tt.get(key)
        lo, hi, first = _trump_run_bounds(hands, active, mine, live, left) if entry is None else entry
        if lo >= beta:
            return lo
        if hi <= alpha:
            return hi
        a0 = lo if lo > alpha else alpha
        b0 = hi if hi < beta else beta
        x = h
        reps = 0
        while x:  # _reps(h, live), inline: it runs at every lead
            b = x & -x
            x ^= b
            above = live & ~((b << 1) - 1) & block[(b.bit_length() - 1) >> 4]
            if not (above & -above) & h:
                reps |= b
        # The best card of an earlier search of this position first, then the highest first.
        b = first if first & reps else 1 << (reps.bit_length() - 1)
        best, good = _lead_cards(hands, later[0], mine[leader], leader, nxt[leader], h, b, reps ^ b, live, a0, b0)
        if best <= a0:
            hi = best
        elif best >= b0:
            lo = best
        else:
            lo = hi = best
        tt[key] = (lo, hi, good)
        return best

    return lead


def _lead_cards(
    hands: list[int],
    follow: Follow,
    maximize: int,
    leader: int,
    n1: int,
    h: int,
    b: int,
    x: int,
    live: int,
    alpha: int,
    beta: int,
) -> tuple[int, int]:
    """Lead each card of ``b`` and then of ``x`` (highest first) from ``leader``'s hand ``h``, for the root side
    (``maximize``) or against it, within ``alpha``/``beta``: the best value and the card that gave it."""
    good = b
    best = -1 if maximize else 99
    while True:
        c = b.bit_length() - 1
        hands[leader] = h ^ b
        v = follow(n1, 1, c >> 4, leader, c, live, alpha, beta)
        if maximize:
            if v > best:
                best, good = v, b
                if v > alpha:
                    alpha = v
                    if v >= beta:
                        break
        elif v < best:
            best, good = v, b
            if v < beta:
                beta = v
                if v <= alpha:
                    break
        if not x:
            break
        b = 1 << (x.bit_length() - 1)
        x ^= b
    hands[leader] = h
    return best, good


def _trump_run_bounds(
    hands: list[int], active: list[int], mine: list[int], live: int, left: int
) -> tuple[int, int, int]:
    """First bounds of a position not searched before (``left`` tricks to play): the highest trump left wins its
    trick, and so do the next ones while the same hand holds them. (lo, hi, no best card known)."""
    lo, hi = 0, left
    top = live & _BLOCK[3]
    if top:
        t = 1 << (top.bit_length() - 1)
        for s in active:
            hs = hands[s]
            if hs & t:
                run = 0
                while hs & t:
                    run += 1
                    top ^= t
                    if not top:
                        break
                    t = 1 << (top.bit_length() - 1)
                if mine[s]:
                    lo = run
                else:
                    hi = left - run
                break
    return lo, hi, 0


def _follower(hands: list[int], nxt: list[int], mine: list[int], last_k: int, lead: Lead) -> Follow:
    """``_search``'s ``follow``: the search's node for each card after a trick's first."""
    block = _BLOCK
    trump_mask = _BLOCK[3]

    def follow(seat: int, k: int, led: int, ws: int, wi: int, live: int, alpha: int, beta: int) -> int:
        h = hands[seat]
        m = h & block[led]
        if not m:
            m = h
        if m & (m - 1):
            x = m
            reps = 0
            while x:
                b = x & -x
                x ^= b
                above = live & ~((b << 1) - 1) & block[(b.bit_length() - 1) >> 4]
                if not (above & -above) & m:
                    reps |= b
            m = reps
        higher = ~((2 << wi) - 1)
        beat = m & higher if wi >= TRUMP_BASE else m & higher & (block[wi >> 4] | trump_mask)
        me = mine[seat]
        # The cheapest card that takes the trick from the other side first; then the rest, low first.
        b = beat & -beat if beat and mine[ws] != me else m & -m
        x = m ^ b
        last = k == last_k
        n1 = nxt[seat]
        best = -1 if me else 99
        while True:
            if b & beat:
                s2, w2 = seat, b.bit_length() - 1
            else:
                s2, w2 = ws, wi
            hands[seat] = h ^ b
            if last:
                g = mine[s2]
                v = g + lead(s2, alpha - g, beta - g)
            else:
                v = follow(n1, k + 1, led, s2, w2, live, alpha, beta)
            if me:
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
                        if v >= beta:
                            break
            elif v < best:
                best = v
                if v < beta:
                    beta = v
                    if v <= alpha:
                        break
            if not x:
                break
            b = x & -x
            x ^= b
        hands[seat] = h
        return best

    return follow


def _indices(mask: int) -> list[int]:
    """The set bits of ``mask``, lowest first."""
    out = []
    while mask:
        b = mask & -mask
        out.append(b.bit_length() - 1)
        mask ^= b
    return out


def distinct_cards(trump: int, cards: Iterable[int], live: Iterable[int]) -> list[Card]:
    """``cards`` less those equivalent to a higher one: the highest of each run of cards of one effective suit with
    no card of ``live`` (the cards that may still be played, ``cards`` included or not) between them."""
    to_index = TO_INDEX[trump]
    m = _bits(cards, to_index)
    reps = _reps(m, m | _bits(live, to_index))
    return [FROM_INDEX[trump][x] for x in _indices(reps)]


def solve(position: Position) -> Solution:
    """The most tricks the side to move can take from the tricks left against best play, and a card that does."""
    return Solver(position).solve()
