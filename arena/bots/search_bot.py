"""A search player: imagines the hidden hands many times over and solves each deal with all cards open.

Card play is perfect-information Monte Carlo (PIMC): deal the unseen cards consistently with the view
(:mod:`arena.sdk.sampling`), solve every imagined deal double-dummy for each candidate card
(:mod:`arena.sdk.solver`), and play the card with the best average score for the hand. Bidding, going or
defending alone and the dealer's discard are judged on the same imagined deals: every contract is played out
double-dummy and scored by the table of docs/rules.md section 7. Passing is worth what the players after us would then
make, as a simple model of their bidding predicts, down to our own best call in round 2.

The imagined deals fit what the bids said: the same model weighs each deal by how likely the others' bids and
passes were with the hands it gives them, and deals are drawn in proportion to that weight.

Deterministic: all randomness comes from ``self.rng``, seeded by the view, and the budget is counted in deals and
search nodes, never in seconds, so a game replays identically. The one exception is a safety net: a decision that
has run :data:`SAFETY` seconds (a loaded machine) stops adding deals and answers on those it has. Options (argv or
environment): ``--samples X`` / ``SEARCH_BOT_SAMPLES`` scales every budget (default 1.0: about 0.05 s a decision
on average here, bids about 0.1 s),
``--margin X`` / ``SEARCH_BOT_MARGIN`` the expected points a bid must beat passing by. Runnable as
``python -m arena.bots.search_bot`` under a referee (it reads ARENA_ENDPOINT and ARENA_TOKEN).
"""

from __future__ import annotations

import functools
import math
import os
import sys
import time
from collections.abc import Sequence

from arena.bots import nap_strategy, team_playouts
from arena.bots.heuristic_bot import LOW_TRUMP, OFF_ACE, TOP_TRUMP, VOID_RUFF, HeuristicBot, call_for_best
from arena.engine.actions import (
    DEFEND_ALONE,
    NAME_TRUMP,
    PASS,
    Action,
    Bid,
    Call,
    Declare,
    Discard,
    NameTrump,
    OrderUp,
    Pass,
    Play,
)
from arena.engine.cards import (
    ACE,
    EFFECTIVE_SUIT,
    JOKER_ID,
    RANK_LETTERS,
    TRICK_POWER,
    TRUMP_POWER,
    Card,
    Suit,
    make_deck,
)
from arena.engine.phases import Phase
from arena.engine.scoring import contract_points, hand_points
from arena.engine.view import SeatView
from arena.sdk import Bot, run
from arena.sdk.sampling import Knowledge, Sample, sample
from arena.sdk.solver import Position, Solver, distinct_cards, teams_of

PLAY_DEALS = (24, 80)  # at least, at most imagined deals per card played
PLAY_NODES = 5000  # ... adding deals while the searches have stored fewer positions than this
BID_DEALS = 40
AUCTION_DEALS = 24  # imagined deals for a Hasenpfeffer bid or declaration
AUCTION_MARGIN = 0.25  # points a bid must be expected to gain over passing
DISCARD_DEALS = 32
NAP_BID_DEALS = 40  # imagined deals for a Nap bid, each played out twice (a trump contract and Misere)
NAP_PLAY_DEALS = 40  # ... for a card of Nap, each played out once per legal card
TEAM_PLAY_DEALS = 40  # ... for a card at a table of five to seven (call-partner, six-hand)
DEFEND_DEALS = 32
SAFETY = 0.3  # seconds: a decision this late answers on the deals it has solved (never on a quiet machine)
MIN_DEALS = 4  # ... but on at least these
OVERSAMPLE = 3  # candidate deals drawn per deal kept, to weigh by the bids
MARGIN = 0.0
UNLIKELY = 0.02  # a bid by another player this unlikely is not played out

# The model of a player's bidding: expected tricks of a hand by a common count, bid above a threshold.
NEEDED = {2: 2.0, 3: 3.0, 4: 2.2}
ALONE = 3.5
SLOPE = 0.3  # how soft the threshold is, in counted tricks
FLOOR = 0.03  # no bid is ever taken as impossible: other bots bid as they like
DUCK = 0.35  # a player let the other side win a trick it could have taken
OVERTAKE = 0.5  # a player beat its partner's winning card when it could have played under it
DEAR = 0.7  # the last player took a trick with a dearer card than it needed
PLAY_MODEL = True
STEPS = (1, 3, 5)  # trick counts of a side at which some score changes
MAKER_TRICKS = {True: (0, 1, 3, 5), False: (5, 4, 2, 0)}  # the makers' tricks by steps reached (makers us / them)


# How a hand ends for one side, over many games: (its points, the other side's points, chance). Symmetric.
_HALF = {
    2: ((1, 0, 0.35), (2, 0, 0.07), (0, 2, 0.08)),
    4: ((1, 0, 0.33), (2, 0, 0.07), (4, 0, 0.02), (0, 2, 0.08)),
}
HAND_OUTCOMES = {n: (*half, *((b, a, p) for a, b, p in half)) for n, half in _HALF.items()}
MAX_TARGET = 40  # beyond this, points are as good a measure as chances of winning


@functools.cache
def win_chance(ours: int, theirs: int, target: int, players: int) -> float:
    """The chance that a side with ``ours`` points beats one with ``theirs`` in a game to ``target``."""
    if ours >= target or theirs >= target:
        return 1.0 if ours > theirs else 0.0 if theirs > ours else 0.5
    return sum(p * win_chance(ours + a, theirs + b, target, players) for a, b, p in HAND_OUTCOMES[players])


class Stakes:
    """What a hand's result is worth to one seat: points won less points lost, or, with the game's scores known,
    the change in its side's chance of winning the game (a march matters less at 9 points, a euchre more at 8)."""

    def __init__(self, players: int, seat: int, scores: Sequence[int] | None = None, target: int | None = None) -> None:
        self.players, self.seat = players, seat
        self.scores = None if players == 3 or target is None or target > MAX_TARGET else scores
        self.target = target or 0
        self._tables: dict[tuple[int, bool, bool], tuple[float, ...]] = {}

    def table(self, maker: int, *, alone: bool = False, defender_alone: bool = False) -> tuple[float, ...]:
        """The worth by the makers' tricks 0..5."""
        key = (maker, alone, defender_alone)
        if key not in self._tables:
            self._tables[key] = self._table(maker, alone, defender_alone)
        return self._tables[key]

    def _table(self, maker: int, alone: bool, defender_alone: bool) -> tuple[float, ...]:
        n, seat, scores = self.players, self.seat, self.scores
        teams = teams_of(n, maker)
        opponents = [s for s in range(n) if teams[s] != teams[seat]]
        table = []
        for tricks in range(6):
            points = hand_points(n, maker, tricks, alone=alone, defender_alone=defender_alone)
            gain, loss = points[seat], max(points[s] for s in opponents)
            if scores is None:
                table.append(float(gain - loss))
            else:
                ours, theirs = scores[seat], max(scores[s] for s in opponents)
                now = win_chance(ours, theirs, self.target, n)
                table.append(win_chance(ours + gain, theirs + loss, self.target, n) - now)
        return tuple(table)


def hand_strength(hand: Sequence[int], trump: int) -> float:
    """Expected tricks of a hand with ``trump`` as trump, by the usual count (honours, length, aces, voids)."""
    eff = EFFECTIVE_SUIT[trump]
    power = TRUMP_POWER[trump]
    # One pass over the hand (the bid model counts every imagined hand); the sums in the same order as ever.
    values = []  # the trumps' worth, in the hand's order
    held = [0, 0, 0, 0]  # plain cards by suit
    aces = [False, False, False, False]
    for c in hand:
        p = power[c]
        if p >= 0:
            values.append(TOP_TRUMP.get(p, LOW_TRUMP))
        else:
            suit = eff[c]
            held[suit] += 1
            if c >> 2 == ACE and c != JOKER_ID:
                aces[suit] = True
    trumps = len(values)
    total = sum(values) + 0.2 * max(0, trumps - 2)
    for suit in range(4):
        if suit == trump:
            continue
        if not held[suit]:
            if trumps >= 2:
                total += VOID_RUFF
        elif aces[suit]:
            total += OFF_ACE if held[suit] <= 2 else OFF_ACE - 0.2
    return total


def keep_value(card: int, trump: int, hand: Sequence[int]) -> tuple[int, int, int, int]:
    """How much a card is worth keeping: trump by power, then aces, then cards of long suits, then by rank."""
    eff = EFFECTIVE_SUIT[trump]
    power = TRUMP_POWER[trump][card]
    if power >= 0:
        return (1, 0, 0, power)
    length = sum(1 for c in hand if eff[c] == eff[card])
    return (0, int(card >> 2 == ACE), int(length > 1), card >> 2)


def cheapest(hand: Sequence[int], trump: int, allowed: Sequence[int]) -> Card:
    """The allowed card least worth keeping."""
    return Card(min(allowed, key=lambda c: (keep_value(c, trump, hand), c)))


def _logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x / SLOPE)) if x > -20 * SLOPE else 0.0


class BidModel:
    """A model of how the others bid and play, to weigh imagined deals and to foresee the bids after ours.

    Bids: a hand is counted as by :func:`hand_strength`; a player bids above a threshold, softly. Play: a player
    takes a trick from the other side when it can (with its cheapest winner when it plays last) and does not
    overtake its partner; a card that goes against this makes the hand that played it less likely, never impossible.
    """

    def __init__(self, view: SeatView, *, stick: bool, upsuit: int) -> None:
        self.view = view
        self.stick = stick
        n = view.players
        self.needed = NEEDED[n]
        self.upsuit = upsuit
        self.played: list[list[Card]] = [[] for _ in range(n)]
        for trick in (*(t.cards for t in view.tricks), view.trick):
            for s, c in trick:
                self.played[s].append(c)
        self.play_model = PLAY_MODEL
        trump = view.trump if view.trump is not None else 0  # (none yet: no card played to weigh, below)
        self._eff, self._trick_power = EFFECTIVE_SUIT[trump], TRICK_POWER[trump]
        self._play_checks = self._checks()
        # The others' bids: (seat, round, action).
        self.said: list[tuple[int, int, Action]] = []
        passes, made = 0, False
        for s, a in view.bids:
            if made or isinstance(a, NameTrump):
                made = True
                continue
            if isinstance(a, Pass):
                rnd = 1 if passes < n else 2
                passes += 1
            else:
                rnd = 1 if isinstance(a, OrderUp) else 2
                made = True
            if s != view.seat:
                self.said.append((s, rnd, a))

    def original(self, deal: Sample, seat: int) -> list[Card]:
        """The cards ``seat`` bid with in ``deal`` (the dealer's upcard included once he took it)."""
        return [*deal.hands[seat], *self.played[seat]]

    def round1(self, seat: int, hand: Sequence[int]) -> float:
        """The chance that ``seat`` orders the upcard up with ``hand``."""
        view, u = self.view, self.upsuit
        up = view.upcard
        assert up is not None
        if seat == view.dealer:
            cards = list(hand)
            if up not in cards:
                cards.append(up)
                cards.remove(cheapest(cards, u, [c for c in cards if c != up]))
            score = hand_strength(cards, u)
        else:
            gift = TOP_TRUMP.get(TRUMP_POWER[u][up], LOW_TRUMP)
            ours = (seat - view.dealer) % 2 == 0 if view.players != 3 else seat == view.dealer
            score = hand_strength(hand, u) + (gift if ours else -gift)
        return _logistic(score - self.needed)

    def round2(self, seat: int, hand: Sequence[int]) -> tuple[float, int]:
        """The chance that ``seat`` calls in round 2 with ``hand``, and the suit it would call."""
        score, suit = max((hand_strength(hand, s), s) for s in range(4) if s != self.upsuit)
        if self.stick and seat == self.view.dealer:
            return 1.0, suit
        return _logistic(score - self.needed), suit

    def play_weight(self, deal: Sample) -> float:
        """How likely the others' cards played were, had they held the hands of ``deal``."""
        eff, trick_power = self._eff, self._trick_power
        hands = deal.hands
        w = 1.0
        for seat, later, led, top, played, partner, last in self._play_checks:
            hand = (*hands[seat], *later)  # the hand as it was when it played this card
            legal = [c for c in hand if eff[c] == led] or hand
            by_card = trick_power[led]
            power = [by_card[c] for c in legal]
            if partner:
                if played > top and any(p <= top for p in power):
                    w *= OVERTAKE
            elif played <= top:
                if any(p > top for p in power):
                    w *= DUCK
            elif last and any(top < p < played for p in power):
                w *= DEAR
        return w

    def _checks(self) -> list[tuple[int, tuple[Card, ...], int, int, int, bool, bool]]:
        """What :meth:`play_weight` asks of each card the others played, latest first (the order of its factors):
        the seat, the cards it played from then on, the suit led, the power of the card winning the trick before
        it, its own card's power, whether that winner was a partner's, whether it played last. None of it depends
        on the deal: only the hand it held does."""
        view = self.view
        checks: list[tuple[int, tuple[Card, ...], int, int, int, bool, bool]] = []
        if view.trump is None or view.maker is None:
            return checks
        eff, trick_power = self._eff, self._trick_power
        teams = teams_of(view.players, view.maker)
        later: list[list[Card]] = [[] for _ in range(view.players)]
        for trick in (view.trick, *(t.cards for t in reversed(view.tricks))):
            led = eff[trick[0][1]] if trick else 0
            powers = [trick_power[led][c] for _, c in trick]
            for i in range(len(trick) - 1, -1, -1):
                seat, card = trick[i]
                later[seat].append(card)
                if seat == view.seat or i == 0:
                    continue
                best = max(range(i), key=lambda j: powers[j])
                partner = teams[trick[best][0]] == teams[seat]
                checks.append((seat, tuple(later[seat]), led, powers[best], powers[i], partner, i == len(trick) - 1))
        return checks

    def weight(self, deal: Sample) -> float:
        """How likely the others' bids and plays were, had they held the hands of ``deal``."""
        w = self.play_weight(deal) if self.play_model else 1.0
        for seat, rnd, action in self.said:
            hand = self.original(deal, seat)
            if rnd == 1:
                p = self.round1(seat, hand)
                w *= max(FLOOR, p if isinstance(action, OrderUp) else 1.0 - p)
            elif isinstance(action, Call):
                forced = self.stick and seat == self.view.dealer
                p = 1.0 if forced else _logistic(hand_strength(hand, int(action.suit)) - self.needed)
                w *= max(FLOOR, p)
            else:
                w *= max(FLOOR, 1.0 - self.round2(seat, hand)[0])
            if isinstance(action, OrderUp | Call) and action.alone:
                trump = self.upsuit if isinstance(action, OrderUp) else int(action.suit)
                w *= max(FLOOR, _logistic(hand_strength(hand, trump) - ALONE))
        return w


class SearchBot(Bot):
    """Sampling and double-dummy search for every decision, in every variant."""

    name = "search"
    score_aware = True
    trick_bonus = 0.0

    def __init__(self, *, samples: float = 1.0, margin: float = MARGIN, strict: bool = False) -> None:
        super().__init__(strict=strict)
        self.scale = samples
        self.margin = margin
        self.trace: list[tuple[SeatView, list[tuple[float, Action]]]] | None = None  # set to a list to record bids
        self._start = time.perf_counter()  # when the current decision began
        self._heuristic = HeuristicBot()  # five to seven seats: its choices, until the search knows those games

    def _count(self, base: int) -> int:
        return max(1, round(base * self.scale))

    def _late(self, done: int, ahead: float = 1.0) -> bool:
        """Whether, with ``done`` deals solved, the decision is out of time (``ahead`` times its time so far)."""
        return done >= MIN_DEALS and (time.perf_counter() - self._start) * ahead > SAFETY

    # ---- the decisions ----

    def act(self, view: SeatView, legal: tuple[Action, ...]) -> Action:
        """Pick an action by phase; a single legal action needs no thought."""
        if len(legal) == 1:
            return legal[0]
        self._start = time.perf_counter()
        table = self.table
        if table is not None and table.rules.game == "nap":  # sampled deals played out by the heuristic's rules
            if view.phase is Phase.BID:
                return nap_strategy.search_bid(view, table, legal, self.rng, self._count(NAP_BID_DEALS))
            return nap_strategy.search_play(view, table, legal, self.rng, self._count(NAP_PLAY_DEALS))
        if view.players > 4:  # call-partner and six-hand Euchre: bids, the call and the card by sampled deals
            if table is not None and view.phase is Phase.PLAY:  # played out by the heuristic's rules; the rest its own
                return team_playouts.search_play(view, table, legal, self.rng, self._count(TEAM_PLAY_DEALS))
            if table is not None and view.phase is Phase.CALL_PARTNER:  # the called card by the same playouts
                return team_playouts.search_call(view, table, legal, self.rng, self._count(TEAM_PLAY_DEALS))
            if table is not None and view.phase in (Phase.BID1, Phase.BID2):
                deals = self._count(TEAM_PLAY_DEALS)
                return team_playouts.search_bid(view, table, legal, self.rng, deals, self.margin)
            self._heuristic.table = self.table
            return self._heuristic.act(view, legal)
        if view.phase is Phase.BID:  # Hasenpfeffer's auction
            return self.auction(view, legal)
        if view.upcard is None and view.phase is not Phase.PLAY:  # Hasenpfeffer's declaration
            return self.declare(view, legal)
        if view.phase is Phase.PLAY:
            return self.play(view, legal)
        if view.phase is Phase.NAME_TRUMP:
            return next(a for a in legal if isinstance(a, NameTrump))  # blind: every suit is alike
        if view.phase is Phase.DISCARD:
            return self.discard(view, legal)
        if view.phase is Phase.CALL_BEST or view.phase is Phase.GIVE_BEST:  # Railroad: the heuristic's rules
            return call_for_best(view, legal)
        if view.phase is Phase.BEST_DISCARD:
            assert view.trump is not None
            allowed = [a.card for a in legal if isinstance(a, Discard)]
            return Discard(cheapest(list(view.hand), int(view.trump), allowed))
        if view.phase is Phase.DEFEND:
            return self.defend(view, legal)
        return self.bid(view, legal)

    def play(self, view: SeatView, legal: tuple[Action, ...]) -> Action:
        """PIMC: the card with the best average outcome over imagined deals, each solved double-dummy."""
        assert view.trump is not None and view.maker is not None
        trump, seat, n = int(view.trump), view.seat, view.players
        cards = [a.card for a in legal if isinstance(a, Play)]
        gone = {c for t in view.tricks for _, c in t.cards} | set(view.best.discards if view.best else ())
        if view.discarded is not None:
            gone.add(view.discarded)
        if view.upcard is not None and view.upcard_taken is not True and view.upcard not in view.hand:
            gone.add(view.upcard)
        moves = distinct_cards(trump, cards, [c for c in make_deck(self._deck(view)) if c not in gone])
        if len(moves) == 1:
            return Play(moves[0])
        teams = teams_of(n, view.maker)
        made = sum(view.tricks_won[s] for s in range(n) if teams[s] == teams[view.maker])
        ours = teams[seat] == teams[view.maker]
        if view.auction is None:
            table = self._stakes(view).table(
                view.maker, alone=view.alone, defender_alone=view.defender_alone is not None
            )
        else:  # Hasenpfeffer: six tricks, scored by the contract
            table = self._auction_table(view)
        left = len(table) - 1 - len(view.tricks)
        # The worth of taking t of the tricks left (a trick more is a little better even when it scores nothing:
        # real play is not double-dummy, a spare trick is a safety margin), and the counts at which it changes.
        bonus = self.trick_bonus * (max(table) - min(table)) / 4
        worth = [table[made + t if ours else made + left - t] + bonus * t for t in range(left + 1)]
        steps = [t for t in range(1, left + 1) if worth[t] != worth[t - 1]]
        out = frozenset(view.sitting_out)
        totals = dict.fromkeys(moves, 0.0)
        low, high = PLAY_DEALS
        budget = PLAY_NODES * self.scale
        nodes = 0
        for i, deal in enumerate(self._deals(view, self._count(high))):
            if (i >= self._count(low) and nodes >= budget) or self._late(i):
                break
            solver = Solver(Position(trump, deal.hands, seat, teams, view.trick, out))
            for card in moves:
                reached = solver.levels(steps, card)
                totals[card] += worth[steps[reached - 1] if reached else 0]
            nodes += solver.nodes
        power = TRUMP_POWER[trump]
        return Play(max(moves, key=lambda c: (round(totals[c], 6), -power[c], -(c >> 2), -c)))

    # ---- Hasenpfeffer's auction and declaration ----

    def _contract_tricks(self, view: SeatView, hand: Sequence[Card], suits: Sequence[int]) -> dict[int, list[int]]:
        """For each suit, the tricks this seat's side takes double-dummy with it as trump and ``hand`` as this
        seat's cards, on imagined deals (the widow unseen and unused)."""
        assert self.table is not None
        options = self.table.rules.options
        know = Knowledge.from_view(view, self._deck(view))
        seat = view.seat
        leader = seat if options.first_lead == "bidder" else (view.dealer + 1) % 4
        found: dict[int, list[int]] = {suit: [] for suit in suits}
        for done in range(self._count(AUCTION_DEALS)):
            if self._late(done, ahead=len(suits)):  # out of time: the deals so far
                break
            deal = sample(know, self.rng)
            hands = tuple(tuple(hand) if s == seat else h for s, h in enumerate(deal.hands))
            for suit in suits:
                found[suit].append(Solver(Position(suit, hands, leader, (0, 1, 0, 1)), team=seat % 2).value())
        return found

    def _contract_table(self, bid: int, *, bidding: bool = True) -> tuple[float, ...]:
        """Hasenpfeffer: what the bidding side taking 0 to 6 tricks on a bid of ``bid`` is worth to the bidding side
        (or, ``bidding`` false, to the defenders), in points gained less the other side's (docs/rules.md 14.4)."""
        assert self.table is not None
        options = self.table.rules.options
        margins = [bidders - defenders for bidders, defenders in (contract_points(options, bid, t) for t in range(7))]
        return tuple([float(m if bidding else -m) for m in margins])

    def _contract_worth(self, bid: int, tricks: Sequence[int]) -> float:
        """The mean worth of a contract of ``bid`` to the bidding side, over the tricks it takes on imagined deals."""
        table = self._contract_table(bid)
        return _mean([table[taken] for taken in tricks])

    def auction(self, view: SeatView, legal: tuple[Action, ...]) -> Action:
        """The highest bid whose contract, with its best trump, is worth nearly as much as the best on imagined
        deals (a higher bid keeps the contract from the others: the model does not see them bid); a pass unless a
        contract is worth more than ``AUCTION_MARGIN`` (the lowest bid where passing is not allowed)."""
        bids = [a for a in legal if isinstance(a, Bid)]
        tricks = self._contract_tricks(view, list(view.hand), range(4))
        worth = {bid: max(self._contract_worth(bid.tricks, tricks[suit]) for suit in range(4)) for bid in bids}
        best = max(worth.values())
        if best <= AUCTION_MARGIN and PASS in legal:
            return PASS
        return max((bid for bid in bids if worth[bid] >= best - AUCTION_MARGIN), key=lambda bid: bid.tricks)

    def declare(self, view: SeatView, legal: tuple[Action, ...]) -> Action:
        """The trump (and, holding the widow, the card put away: the least worth keeping under it) worth most on
        imagined deals for the contract won."""
        assert view.auction is not None and view.auction.contract is not None
        bid, hand = view.auction.contract, list(view.hand)
        holding_widow = any(isinstance(a, Declare) for a in legal)
        kept = {
            suit: [c for c in hand if c != cheapest(hand, suit, hand)] if holding_widow else hand for suit in range(4)
        }
        worth = {}
        for suit in range(4):
            tricks = self._contract_tricks(view, kept[suit], [suit])
            worth[suit] = self._contract_worth(bid, tricks[suit])
        suit = max(range(4), key=lambda s: (round(worth[s], 6), hand_strength(hand, s), -s))
        if holding_widow:
            return Declare(Suit(suit), cheapest(hand, suit, hand))
        return NAME_TRUMP[suit]

    def _auction_table(self, view: SeatView) -> tuple[float, ...]:
        """Hasenpfeffer: the contract's table (``_contract_table``) for this seat's side."""
        assert view.auction is not None and view.auction.contract is not None and view.maker is not None
        return self._contract_table(view.auction.contract, bidding=(view.seat - view.maker) % 2 == 0)

    def discard(self, view: SeatView, legal: tuple[Action, ...]) -> Action:
        """Try the cheapest card of each suit (and declining) on imagined deals; keep the best hand."""
        assert view.trump is not None and view.maker is not None
        trump, seat = int(view.trump), view.seat
        hand = list(view.hand)
        allowed = [a.card for a in legal if isinstance(a, Discard)]
        eff = EFFECTIVE_SUIT[trump]
        candidates: list[Card] = []
        for suit in range(4):
            in_suit = [c for c in allowed if eff[c] == suit]
            if in_suit:
                candidates.append(cheapest(hand, trump, in_suit))
        if view.upcard in allowed and view.upcard not in candidates:
            candidates.append(view.upcard)
        if len(candidates) == 1:
            return Discard(candidates[0])
        table = self._stakes(view).table(view.maker, alone=view.alone)
        out = set(view.sitting_out)
        totals = dict.fromkeys(candidates, 0.0)
        for i, deal in enumerate(self._deals(view, self._count(DISCARD_DEALS))):
            if self._late(i):
                break
            for card in candidates:
                hands = [list(h) for h in deal.hands]
                hands[seat].remove(card)
                totals[card] += _worth(hands, trump, view.maker, out, view.dealer, seat, table)
        return Discard(max(candidates, key=lambda c: (round(totals[c], 6), [-v for v in keep_value(c, trump, hand)])))

    def defend(self, view: SeatView, legal: tuple[Action, ...]) -> Action:
        """Defend alone when it is worth more on imagined deals than defending with the partner."""
        assert view.trump is not None and view.maker is not None
        trump, seat = int(view.trump), view.seat
        stakes = self._stakes(view)
        with_partner = stakes.table(view.maker, alone=True)
        solo = stakes.table(view.maker, alone=True, defender_alone=True)
        out = set(view.sitting_out)
        value_pass = value_alone = 0.0
        deals = self._deals(view, self._count(DEFEND_DEALS))
        for i, deal in enumerate(deals):
            if self._late(i):
                deals = deals[:i]
                break
            hands = [list(h) for h in deal.hands]
            value_pass += _worth(hands, trump, view.maker, out, view.dealer, seat, with_partner)
            value_alone += _worth(hands, trump, view.maker, out | {(seat + 2) % 4}, view.dealer, seat, solo)
        return DEFEND_ALONE if value_alone > value_pass + self.margin * len(deals) else PASS

    def bid(self, view: SeatView, legal: tuple[Action, ...]) -> Action:
        """Each legal contract and passing, played out on the same imagined deals; the best expected score.

        The deals are taken in growing prefixes (each reusing the solves of the last), so that a late decision can
        stop at the prefix it has; on a quiet machine the last prefix is always all of them.
        """
        round1 = view.phase is Phase.BID1
        model = self._model(view)
        stakes = self._stakes(view)
        deals = [Contracts(view, deal, round1, stakes) for deal in self._deals(view, self._count(BID_DEALS))]
        k = min(len(deals), 2 * MIN_DEALS)
        options = self._bids(view, legal, model, deals[:k], round1)
        while k < len(deals) and not self._late(k, ahead=2.0):
            k = min(len(deals), 2 * k)
            options = self._bids(view, legal, model, deals[:k], round1)
        if self.trace is not None:
            self.trace.append((view, options))
        return max(options, key=lambda o: (round(o[0], 6), o[1] is PASS))[1]

    def _bids(
        self, view: SeatView, legal: tuple[Action, ...], model: BidModel, deals: list[Contracts], round1: bool
    ) -> list[tuple[float, Action]]:
        """The worth of each legal bid on ``deals``."""
        seat, upsuit = view.seat, self._upsuit(view)
        options: list[tuple[float, Action]] = []
        for a in sorted((a for a in legal if isinstance(a, OrderUp | Call)), key=lambda a: a.alone):
            suit = upsuit if isinstance(a, OrderUp) else int(a.suit)
            if not a.alone:
                options.append((_mean([d.worth(suit, seat) for d in deals]), a))
            elif sum(d.worth(suit, seat) > 0 for d in deals) >= 0.7 * len(deals):  # alone only on a sure-looking bid
                options.append((_mean([d.worth(suit, seat, alone=True) for d in deals]), a))
        if PASS in legal:
            options.append((self._pass_value(view, model, deals, round1) + self.margin, PASS))
        return options

    def _pass_value(self, view: SeatView, model: BidModel, deals: list[Contracts], round1: bool) -> float:
        """What passing is worth: the players after us bid as the model says; in round 2 we call our best suit."""
        n, seat, dealer = view.players, view.seat, view.dealer
        upsuit = self._upsuit(view)
        after = [(seat + i) % n for i in range(1, (dealer - seat) % n + 1)]  # the rest of this round
        my_call = None
        if round1:  # our own call in round 2, if it comes to us: our strongest suit, if it beats passing then
            hand = list(view.hand)
            suit = max((s for s in range(4) if s != upsuit), key=lambda s: (hand_strength(hand, s), -s))
            if _mean([d.worth(suit, seat, round1=False) for d in deals]) > self.margin or (
                model.stick and seat == dealer
            ):
                my_call = suit
        total = 0.0
        for d in deals:
            value, open_ = 0.0, 1.0
            if round1:
                for s in after:
                    p = model.round1(s, d.deal.hands[s])
                    if open_ * p > UNLIKELY:
                        value += open_ * p * d.worth(upsuit, s)
                    open_ *= 1.0 - p
                order = [(dealer + 1 + i) % n for i in range(n)]
            else:
                order = after
            for s in order:
                if s == seat:
                    if my_call is not None:
                        value += open_ * d.worth(my_call, seat, round1=False)
                        break
                    continue
                p, suit = model.round2(s, d.deal.hands[s])
                if open_ * p > UNLIKELY:  # not worth a search otherwise
                    value += open_ * p * d.worth(suit, s, round1=False)
                open_ *= 1.0 - p
            total += value
        return total / len(deals)

    def _stakes(self, view: SeatView) -> Stakes:
        if not self.score_aware or self.table is None:
            return Stakes(view.players, view.seat)
        return Stakes(view.players, view.seat, view.scores, self.table.rules.options.points_to_win)

    def _upsuit(self, view: SeatView) -> int:
        """The suit the upcard proposes (a turned-up joker's is the rules' joker_suit, in Railroad)."""
        table, up = self.table, view.upcard
        assert up is not None
        return int(table.rules.upcard_suit(up)) if table is not None else up & 3

    def _model(self, view: SeatView) -> BidModel:
        stick = self.table.rules.options.stick_the_dealer if self.table is not None else False
        return BidModel(view, stick=stick, upsuit=self._upsuit(view))

    def _deck(self, view: SeatView) -> int:
        return self.table.rules.deck if self.table is not None else _guess_deck(view)

    def _deals(self, view: SeatView, count: int) -> list[Sample]:
        """``count`` deals consistent with the view, drawn in proportion to how well they fit the others' bids.

        Candidates are drawn uniformly, weighed by the bid model, and kept by weighted sampling without
        replacement (each with key ``u ** (1 / w)``), best key first: any prefix is itself a weighted sample.
        """
        know = Knowledge.from_view(view, self._deck(view))
        rng = self.rng
        if view.upcard is None:  # Hasenpfeffer: no bid model yet, deals drawn uniformly
            return [sample(know, rng) for _ in range(count)]
        model = self._model(view)
        if not model.said and not (model.play_model and (view.tricks or view.trick)):
            return [sample(know, rng) for _ in range(count)]
        keyed = []
        for _ in range(count * OVERSAMPLE):
            deal = sample(know, rng)
            w = model.weight(deal)
            keyed.append((rng.random() ** (1.0 / w), deal))
        keyed.sort(key=lambda kd: -kd[0])
        return [deal for _, deal in keyed[:count]]


class Contracts:
    """The contracts of one imagined deal at bidding time, each played out double-dummy once, on demand."""

    def __init__(self, view: SeatView, deal: Sample, round1: bool, stakes: Stakes) -> None:
        self.view = view
        self.stakes = stakes
        self.deal = deal
        self.round1 = round1
        self._levels: dict[tuple[int, tuple[int, ...], int, bool], int] = {}

    def worth(self, suit: int, maker: int, *, alone: bool = False, round1: bool | None = None) -> float:
        """Our worth if ``maker`` makes ``suit`` trump (in round 1 the dealer takes the upcard up)."""
        view = self.view
        n, seat, dealer = view.players, view.seat, view.dealer
        round1 = self.round1 if round1 is None else round1
        teams = teams_of(n, maker)
        out = (maker + 2) % 4 if alone else -1
        key = (suit, teams, out, round1)
        reached = self._levels.get(key)
        if reached is None:
            hands = [list(h) for h in self.deal.hands]
            if round1 and dealer != out:
                hand, up = hands[dealer], view.upcard
                assert up is not None
                hand.append(up)
                hand.remove(cheapest(hand, suit, [c for c in hand if c != up]))
            reached = self._levels[key] = _levels(hands, suit, teams, {out} if alone else set(), dealer, seat)
        table = self.stakes.table(maker, alone=alone)
        return table[MAKER_TRICKS[teams[seat] == teams[maker]][reached]]


def _levels(hands: list[list[Card]], trump: int, teams: tuple[int, ...], out: set[int], dealer: int, seat: int) -> int:
    """How many of :data:`STEPS` the team of ``seat`` reaches, playing the hand out double-dummy from the first lead."""
    n = len(hands)
    leader = (dealer + 1) % n
    while leader in out:
        leader = (leader + 1) % n
    position = Position(trump, tuple(tuple(h) for h in hands), leader, teams, (), frozenset(out))
    return Solver(position, team=teams[seat]).levels(STEPS)


def _worth(
    hands: list[list[Card]], trump: int, maker: int, out: set[int], dealer: int, seat: int, table: Sequence[float]
) -> float:
    """The worth to ``seat`` (by ``table``) of playing the hand out double-dummy from its first lead."""
    teams = teams_of(len(hands), maker)
    return table[MAKER_TRICKS[teams[seat] == teams[maker]][_levels(hands, trump, teams, out, dealer, seat)]]


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _guess_deck(view: SeatView) -> int:
    """The deck size when the game's start was missed: from the cards in sight."""
    seen = [*view.hand, *(c for t in view.tricks for _, c in t.cards), *(c for _, c in view.trick)]
    seen += [] if view.upcard is None else [view.upcard]
    if any(c == JOKER_ID for c in seen):
        return 25
    if any(c.rank < RANK_LETTERS.index("9") for c in seen):
        return 32
    return 24


def main(argv: Sequence[str] | None = None) -> None:
    """Run under a referee, with the budget from argv or the environment."""
    argv = sys.argv[1:] if argv is None else argv
    samples = float(os.environ.get("SEARCH_BOT_SAMPLES", "1.0"))
    margin = float(os.environ.get("SEARCH_BOT_MARGIN", str(MARGIN)))
    if argv:  # argparse only for a command line to parse: it loads enough to cost every bot's start ~8 ms
        samples, margin = _parse_arguments(argv, samples, margin)
    run(SearchBot(samples=samples, margin=margin))


def _parse_arguments(argv: Sequence[str], samples: float, margin: float) -> tuple[float, float]:
    """``--samples`` and ``--margin`` from ``argv``, defaulting to the values given."""
    import argparse

    parser = argparse.ArgumentParser(description="The search bot.")
    parser.add_argument("--samples", type=float, default=samples)
    parser.add_argument("--margin", type=float, default=margin)
    args = parser.parse_args(argv)
    return args.samples, args.margin


if __name__ == "__main__":
    main()
