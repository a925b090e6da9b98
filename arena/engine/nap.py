"""One deal of Napoleon (Nap): two to seven players, each for himself, five cards each; one round of bids for the
tricks the declarer will take alone against all the others; his first lead fixes trump; the declarer is paid by,
or pays, every opponent.

The rules are docs/rules.md section 15, every choice a rule option (``deck``, ``joker``, ``min_bid``, ``misere``,
``misere_trumps``, ``misere_stakes``, ``wellington``, ``bluecher``, ``all_pass``, ``scoring``). Nap has no bowers:
a card's suit is its printed suit, the joker's the trump suit. A hand answers what a Game, the views and the referee
ask of a euchre hand (arena.engine.hand.HandState).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from arena.engine.actions import JOKER_LEADS, NAP_BIDS, NAP_CONTRACTS, PASS, PLAY, Action, JokerLead, NapBid, Play
from arena.engine.bidhand import BidHand
from arena.engine.cards import JOKER_ID, Card, Suit, make_deck, plain_suit, plain_trick_winner
from arena.engine.hand import HandResult
from arena.engine.options import Rules
from arena.engine.phases import AuctionView, Phase, Trick
from arena.engine.scoring import NAP_STAKES, nap_made

CARDS = 5  # a player's hand, and the tricks of a deal
ONE, TWO, THREE, MISERE, FOUR, NAP, WELLINGTON, BLUECHER = range(len(NAP_CONTRACTS))  # the ladder's steps


@dataclass(frozen=True, slots=True)
class NapDeal:
    """Five cards a seat (seat order), and the rest of the pack, set aside unseen."""

    hands: tuple[tuple[Card, ...], ...]
    kitty: tuple[Card, ...]

    @property
    def upcard(self) -> None:
        """There is no upcard."""
        return None

    @classmethod
    def shuffled(cls, rules: Rules, dealer: int, rng: random.Random) -> NapDeal:
        """Shuffle the pack with ``rng``; deal one card at a time from eldest, five rounds."""
        deck = make_deck(rules.deck)
        rng.shuffle(deck)
        n = rules.players
        dealt = CARDS * n
        hands = [tuple(deck[j:dealt:n]) for j in range(n)]  # hands[j]: the j-th seat after the dealer
        rotation = (n - dealer - 1) % n
        return cls(tuple(hands[rotation:] + hands[:rotation]), tuple(deck[dealt:]))


class NapHand(BidHand):
    """The state of one deal; asks one seat at a time and enforces the rules."""

    cards_each = CARDS

    def __init__(self, rules: Rules, dealer: int, deal: NapDeal) -> None:
        n = rules.players
        if len(deal.hands) != n or {len(h) for h in deal.hands} != {CARDS}:
            raise ValueError(f"a Nap deal for {n} has {n} hands of five cards")
        self.rules, self.options, self.dealer, self.deal = rules, rules.options, dealer, deal
        self.hands: list[list[Card]] = [sorted(h) for h in deal.hands]
        self.eldest = (dealer + 1) % n
        self.phase, self.turn = Phase.BID, self.eldest
        self.actions: list[tuple[int, Action]] = []
        self.high: int | None = None  # the highest bid so far, a step of the ladder
        self.bidder: int | None = None  # who made it; the declarer once the bidding is over
        self.contract: int | None = None
        self.trump: Suit | None = None
        self.tricks: list[Trick] = []
        self.trick: list[tuple[int, Card]] = []
        self.leader: int | None = None
        self.won = False  # whether the declarer made his contract (once the deal is over)
        self._legal: tuple[Action, ...] | None = None
        self.result: HandResult | None = None
        self.discarded = None  # nobody discards
        self._no_upcard_parts()

    # ---- queries ----

    @property
    def players(self) -> int:
        """Number of seats at the table."""
        return self.rules.players

    @property
    def maker(self) -> int | None:
        """The declarer, once the bidding is over."""
        return None if self.contract is None else self.bidder

    @property
    def discarder(self) -> None:
        """Nobody discards in Nap."""
        return None

    @property
    def no_trump(self) -> bool:
        """Whether the contract is played without trump: Misere, unless ``misere_trumps``."""
        return self.contract == MISERE and not self.options.misere_trumps

    def sees_own_cards(self, seat: int) -> bool:
        """Every seat sees its cards."""
        return True

    def auction_seen(self, seat: int) -> AuctionView | None:
        """Nap's bids are all in the view's ``bids``: there is no auction part."""
        return None

    def _compute_legal(self) -> tuple[Action, ...]:
        if self.phase is Phase.BID:
            return self._legal_bids()
        if self.phase is not Phase.PLAY:
            return ()
        hand = self.hands[self.turn]
        if not self.tricks and not self.trick and not self.no_trump:  # the first lead: it fixes trump
            plays: list[Action] = [PLAY[c] for c in hand if c != JOKER_ID]
            return (*plays, *JOKER_LEADS) if JOKER_ID in hand else tuple(plays)
        trump = None if self.trump is None else int(self.trump)
        if self.trick:
            led = plain_suit(self.trick[0][1], trump)
            follow = [PLAY[c] for c in hand if led is not None and plain_suit(c, trump) == led]
            if follow:
                return tuple(follow)
        return tuple(PLAY[c] for c in hand)

    def _legal_bids(self) -> tuple[Action, ...]:
        opts = self.options
        high = -1 if self.high is None else self.high
        forced = self._dealer_forced()
        bids: list[Action] = [NAP_BIDS[ONE]] if forced else []
        for step in range(max(high + 1, TWO), BLUECHER + 1):
            if (step == TWO and opts.min_bid != 2) or (step == MISERE and not opts.misere):
                continue
            if step == WELLINGTON and not (opts.wellington and high == NAP):
                continue
            if step == BLUECHER and not (opts.bluecher and high == WELLINGTON):
                continue
            bids.append(NAP_BIDS[step])
        return tuple(bids) if forced else (PASS, *bids)

    def _top(self) -> int:
        """The highest bid the options allow: once it is made, the bidding ends."""
        return BLUECHER if self.options.bluecher else WELLINGTON if self.options.wellington else NAP

    def _dealer_forced(self) -> bool:
        """The dealer, every other player having passed, under all_pass = "dealer_must_bid"."""
        return self.options.all_pass == "dealer_must_bid" and self.turn == self.dealer and self.high is None

    # ---- the one way to change the state ----

    def apply(self, action: Action, seat: int | None = None) -> None:
        """Apply the action of the seat to act; an illegal action raises and leaves the state unchanged."""
        actor = self._take_turn(action, seat)
        if self.phase is Phase.BID:
            self._bid(actor, action)
        else:
            self._play(actor, action)

    def _why_illegal(self, action: Action) -> str:
        if isinstance(action, NapBid) and self.phase is Phase.BID:
            return f"{action.contract} is not a bid seat {self.turn} may make now (phase bid)"
        if isinstance(action, Play | JokerLead) and action.card not in self.hands[self.turn]:
            return f"seat {self.turn} does not hold {action.card}"
        if isinstance(action, Play) and action.card == JOKER_ID:
            return "the declarer's first lead of the joker names trump: play it with a trump suit"
        if isinstance(action, JokerLead):
            return "only the declarer's first lead of the joker names trump"
        if isinstance(action, Play) and self.trick:
            return f"{action.card} does not follow suit"
        return super()._why_illegal(action)

    def _bid(self, seat: int, action: Action) -> None:
        if isinstance(action, NapBid):
            self.high, self.bidder = NAP_CONTRACTS.index(action.contract), seat
            if self.high == self._top():  # nobody can bid over it: nobody after is asked
                self._declared()
                return
        if seat == self.dealer:  # the dealer speaks last
            if self.high is None:
                self._finish(passed_out=True)
            else:
                self._declared()
            return
        self.turn = (seat + 1) % self.players

    def _declared(self) -> None:
        assert self.bidder is not None
        self.contract = self.high
        self.phase, self.turn, self.leader = Phase.PLAY, self.bidder, self.bidder

    def _play(self, seat: int, action: Action) -> None:
        assert isinstance(action, Play | JokerLead)
        card = action.card
        if not self.tricks and not self.trick and not self.no_trump:
            self.trump = action.trump if isinstance(action, JokerLead) else Suit(card & 3)
        self._lay(seat, card)

    def _trick_winner(self, trick: tuple[tuple[int, Card], ...]) -> int:
        return plain_trick_winner(trick, None if self.trump is None else int(self.trump))

    def _finish(self, *, passed_out: bool) -> None:
        self.phase = Phase.DONE
        n = self.players
        if passed_out:
            self.result = HandResult(True, None, None, False, None, (), (0,) * n)
            return
        assert self.bidder is not None and self.contract is not None
        taken = self.tricks_won()[self.bidder]
        self.won = nap_made(NAP_CONTRACTS[self.contract], taken)
        points = hand_points(self.rules, self.bidder, self.contract, self.won)
        self.result = HandResult(False, self.bidder, self.trump, False, None, tuple(self.tricks), points)


def hand_points(rules: Rules, declarer: int, contract: int, won: bool) -> tuple[int, ...]:
    """Points per seat of a played deal (docs/rules.md section 15): by ``settlement`` the declarer is paid the
    contract's value by each opponent, or pays it to each; by ``bidder_only`` only the declarer scores."""
    opts = rules.options
    gain, loss = NAP_STAKES[NAP_CONTRACTS[contract]]
    if contract == MISERE and opts.misere_stakes == "3/6":
        loss = 6
    value = gain if won else -loss
    n = rules.players
    if opts.scoring == "bidder_only":
        return tuple(value if seat == declarer else 0 for seat in range(n))
    return tuple(value * (n - 1) if seat == declarer else -value for seat in range(n))
