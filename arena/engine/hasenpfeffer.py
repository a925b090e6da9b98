"""One hand of Hasenpfeffer: four players in two partnerships, six cards each from the 25-card pack, the 25th the
widow; an auction for the right to name trump, the high bidder's side bound to take as many tricks as it bid.

The rules are docs/rules.md section 14, every choice a rule option (``bidding``, ``min_bid``, ``all_pass``,
``widow``, ``first_lead``, ``made_score``, ``defenders_score_tricks``). A hand answers what a Game, the views and
the referee ask of a euchre hand (arena.engine.hand.HandState), and more: the auction's ``bid``, ``forced`` and
``made``, the widow.
"""

from __future__ import annotations

import random
from bisect import insort
from dataclasses import dataclass

from arena.engine.actions import BIDS, NAME_TRUMP, PASS, PLAY, Action, Bid, Declare, NameTrump, Play
from arena.engine.bidhand import BidHand
from arena.engine.cards import EFFECTIVE_SUIT, JOKER, TRICK_POWER, Card, Suit, make_deck
from arena.engine.hand import HandResult
from arena.engine.options import RuleOptions, Rules
from arena.engine.phases import AuctionView, Phase, Trick
from arena.engine.scoring import contract_points

PLAYERS = 4
CARDS = 6  # a player's hand, and the tricks of a hand
DECK = 25  # 24 and the joker: four hands of six and the widow
HIGHEST_BID = CARDS
FORCED_BID = 3  # the joker holder's, when nobody bids (all_pass = "joker_bids_three")


@dataclass(frozen=True, slots=True)
class HasenpfefferDeal:
    """Six cards a seat (seat order) and the widow."""

    hands: tuple[tuple[Card, ...], ...]
    widow: Card

    @property
    def upcard(self) -> None:
        """There is no upcard."""
        return None

    @property
    def kitty(self) -> tuple[Card, ...]:
        """The cards dealt to nobody: the widow."""
        return (self.widow,)

    @classmethod
    def shuffled(cls, dealer: int, rng: random.Random) -> HasenpfefferDeal:
        """Shuffle the 25 cards with ``rng``; deal three at a time from eldest, twice round; the last is the widow."""
        deck = make_deck(DECK)
        rng.shuffle(deck)
        hands: list[list[Card]] = [[] for _ in range(PLAYERS)]
        for packet in range(2 * PLAYERS):
            seat = (dealer + 1 + packet) % PLAYERS
            hands[seat] += deck[3 * packet : 3 * packet + 3]
        return cls(tuple(tuple(h) for h in hands), deck[-1])


class HasenpfefferHand(BidHand):
    """The state of one hand; asks one seat at a time and enforces the rules."""

    cards_each = CARDS

    def __init__(self, rules: Rules, dealer: int, deal: HasenpfefferDeal) -> None:
        if len(deal.hands) != PLAYERS or {len(h) for h in deal.hands} != {CARDS}:
            raise ValueError("a Hasenpfeffer deal has four hands of six cards")
        self.rules, self.options, self.dealer, self.deal = rules, rules.options, dealer, deal
        self.hands: list[list[Card]] = [sorted(h) for h in deal.hands]
        self.eldest = (dealer + 1) % PLAYERS
        self.phase, self.turn = Phase.BID, self.eldest
        self.actions: list[tuple[int, Action]] = []
        self.out_of_auction: set[int] = set()  # seats that passed: out of the auction
        self.high: tuple[int, int] | None = None  # (seat, bid)
        self.forced: int | None = None  # the joker holder made to bid 3 when nobody bid
        self.widow_joker = False  # nobody bid and the joker was the widow: thrown in
        self.bidder: int | None = None
        self.bid: int | None = None
        self.trump: Suit | None = None
        self.discarded: Card | None = None
        self.widow_taken = False
        self.auction_end: int | None = None  # the index in ``actions`` of the bid or pass that ended the auction
        self.tricks: list[Trick] = []
        self.trick: list[tuple[int, Card]] = []
        self.leader: int | None = None
        self.made = False
        self._legal: tuple[Action, ...] | None = None
        self.result: HandResult | None = None
        self._no_upcard_parts()

    @property
    def players(self) -> int:
        """Number of seats at the table."""
        return PLAYERS

    @property
    def maker(self) -> int | None:
        """The high bidder, once the auction has ended."""
        return self.bidder

    @property
    def discarder(self) -> int | None:
        """The seat whose discard only it may see: the bidder, who took the widow."""
        return self.bidder

    def sees_own_cards(self, seat: int) -> bool:
        """Every seat sees its cards."""
        return True

    def auction_seen(self, seat: int) -> AuctionView:
        """What ``seat`` knows of the auction's outcome: the contract once the auction is over, whether it was the
        joker holder's forced bid or the widow-joker's throw-in, and the widow, to the bidder who took it."""
        over = self.phase is not Phase.BID
        widow = self.deal.widow if self.widow_taken and seat == self.bidder else None
        return AuctionView(self.bid if over else None, self.forced is not None, self.widow_joker, widow)

    # ---- queries ----

    def _compute_legal(self) -> tuple[Action, ...]:
        if self.phase is Phase.BID:
            return self._legal_bids()
        if self.phase is Phase.DECLARE:
            hand = self.hands[self.turn]
            return tuple(Declare(Suit(s), c) for s in range(4) for c in hand)
        if self.phase is Phase.NAME_TRUMP:
            return NAME_TRUMP
        if self.phase is Phase.PLAY:
            assert self.trump is not None
            hand = self.hands[self.turn]
            if self.trick:
                eff = EFFECTIVE_SUIT[self.trump]
                led = eff[self.trick[0][1]]
                follow = [PLAY[c] for c in hand if eff[c] == led]
                if follow:
                    return tuple(follow)
            return tuple(PLAY[c] for c in hand)
        return ()

    def _legal_bids(self) -> tuple[Action, ...]:
        low = self.options.min_bid if self.high is None else self.high[1] + 1
        bids = BIDS[low : HIGHEST_BID + 1]
        if self._stuck():
            return bids
        return (PASS, *bids)

    def _stuck(self) -> bool:
        """The dealer, the three others having passed without a bid, under all_pass = "stick_dealer"."""
        return (
            self.options.all_pass == "stick_dealer"
            and self.turn == self.dealer
            and self.high is None
            and len(self.out_of_auction) == PLAYERS - 1
        )

    # ---- the one way to change the state ----

    def apply(self, action: Action, seat: int | None = None) -> None:
        """Apply the action of the seat to act; an illegal action raises and leaves the state unchanged."""
        actor = self._take_turn(action, seat)
        if self.phase is Phase.BID:
            self._bid(actor, action)
        elif isinstance(action, Declare):
            self.trump, self.discarded = action.suit, action.discard
            self.hands[actor].remove(action.discard)
            self._start_play()
        elif isinstance(action, NameTrump):
            self.trump = action.suit
            self._start_play()
        else:
            assert isinstance(action, Play)
            self._lay(actor, action.card)

    def _bid(self, seat: int, action: Action) -> None:
        self.auction_end = len(self.actions) - 1  # (the last so far: it stays once the auction is over)
        if isinstance(action, Bid):
            self.high = (seat, action.tricks)
            if action.tricks == HIGHEST_BID:
                self._won_by(seat, action.tricks)
                return
        else:
            self.out_of_auction.add(seat)
        if self._bidding_over():
            if self.high is not None:
                self._won_by(*self.high)
            else:
                self._nobody_bid()
            return
        self.turn = self._next_bidder(seat)

    def _bidding_over(self) -> bool:
        if self.options.bidding == "single":
            return len(self.actions) == PLAYERS  # one turn each: every action so far is a bid or a pass
        if self.high is None:
            return len(self.out_of_auction) == PLAYERS
        return len(self.out_of_auction) == PLAYERS - 1  # every other player has passed since the high bid

    def _next_bidder(self, seat: int) -> int:
        following = (seat + 1) % PLAYERS
        if self.options.bidding == "auction":
            while following in self.out_of_auction:
                following = (following + 1) % PLAYERS
        return following

    def _nobody_bid(self) -> None:
        if self.options.all_pass == "joker_bids_three":
            holder = next((s for s, h in enumerate(self.hands) if JOKER in h), None)
            if holder is not None:
                self.forced = holder
                self._won_by(holder, FORCED_BID)
                return
            self.widow_joker = True  # the joker is the widow: the hand is thrown in (docs/rules.md 14.2)
        self._finish(passed_out=True)

    def _won_by(self, seat: int, bid: int) -> None:
        self.bidder, self.bid = seat, bid
        if self.options.widow == "bidder_takes":
            insort(self.hands[seat], self.deal.widow)
            self.widow_taken = True
            self.phase, self.turn = Phase.DECLARE, seat
        else:
            self.phase, self.turn = Phase.NAME_TRUMP, seat

    def _start_play(self) -> None:
        assert self.bidder is not None
        leader = self.bidder if self.options.first_lead == "bidder" else self.eldest
        self.phase, self.turn, self.leader = Phase.PLAY, leader, leader

    def _trick_winner(self, trick: tuple[tuple[int, Card], ...]) -> int:
        assert self.trump is not None
        power = TRICK_POWER[self.trump][EFFECTIVE_SUIT[self.trump][trick[0][1]]]
        return max(trick, key=lambda sc: power[sc[1]])[0]

    def _finish(self, *, passed_out: bool) -> None:
        self.phase = Phase.DONE
        if passed_out:
            self.result = HandResult(True, None, None, False, None, (), (0,) * PLAYERS)
            return
        assert self.bidder is not None and self.bid is not None
        points, self.made = hand_points(self.options, self.bidder, self.bid, self.tricks_won())
        self.result = HandResult(False, self.bidder, self.trump, False, None, tuple(self.tricks), points)


def hand_points(options: RuleOptions, bidder: int, bid: int, tricks_won: list[int]) -> tuple[tuple[int, ...], bool]:
    """Points per seat (partners alike) of a played hand (docs/rules.md section 14.4), and whether the bid was made."""
    side = bidder % 2
    taken = tricks_won[side] + tricks_won[side + 2]
    bidders, defenders = contract_points(options, bid, taken)
    return tuple(bidders if s % 2 == side else defenders for s in range(PLAYERS)), taken >= bid


def game_winner(options: RuleOptions, scores: tuple[int, ...], bidder: int | None, made: bool) -> int | None:
    """The side (0: seats 0 and 2) that has won with side scores ``scores`` after a hand bid by ``bidder`` (``made``:
    whether the bid was made), else None: the first to ``points_to_win``; both at once (possible only when defenders
    score tricks): the bidders if they made their bid, else the defenders (docs/rules.md section 14.4)."""
    reached = [side for side in (0, 1) if scores[side] >= options.points_to_win]
    if len(reached) == 1:
        return reached[0]
    if not reached:
        return None
    assert bidder is not None  # a passed-out hand scores nothing
    bidders = bidder % 2
    return bidders if made else 1 - bidders
