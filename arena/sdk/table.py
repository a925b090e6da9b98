"""A bot's picture of the game, kept up to date from the referee's messages alone.

The referee tells a seat what happened as events (``hand_start``, ``action``, ``cards``, ``exchange``, ``trick``,
``hand_end``); :class:`Table` folds them into plain attributes with engine values (Card, Suit, Action) and derives
what a player remembers: the cards played, who showed out of which suit, which cards are still outstanding.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from arena.engine.actions import (
    Action,
    Call,
    CallPartner,
    DefendAlone,
    GoAlone,
    JokerLead,
    NameTrump,
    NapBid,
    OrderUp,
    Play,
    action_from_json,
)
from arena.engine.cards import (
    CARD_BY_TEXT,
    EFFECTIVE_SUIT,
    SUITS,
    Card,
    Suit,
    card_power,
    effective_suit,
    make_deck,
    plain_suit,
    plain_trick_winner,
    trick_winner_index,
)
from arena.engine.options import Rules, make_rules
from arena.engine.phases import AuctionView, BestCall, BestView, PartnerCallView, PassedCard, Phase, Trick
from arena.engine.view import SeatView

if TYPE_CHECKING:  # types alone: a bot does not load them
    from arena.sdk.messages import (
        ActionEvent,
        BestDiscardEvent,
        CallForBestEvent,
        Cards,
        ContractEvent,
        DeclareEvent,
        Event,
        Exchange,
        GameStart,
        GiveBestEvent,
        HandEnd,
        HandStart,
        PartnerRevealedEvent,
        TrickEvent,
        WidowEvent,
    )

_tuple_new = tuple.__new__  # a NamedTuple made from a tuple of its fields, past its keyword-taking __new__

VIEW_FIELDS = tuple(
    name for name in SeatView._fields if name not in ("players", "phase", "turn", "best", "auction", "partner_call")
)
"""The facts of a SeatView that a Table keeps under the same names (``players`` is the names here, not the count;
phase and turn belong to a request)."""


@dataclass
class Table:
    """What one seat knows of its game: the rules, the current hand as it unfolds, and the scores."""

    seat: int
    players: list[str]
    rules: Rules
    game: int = 0
    time: dict[str, int] = field(default_factory=dict)
    hand_number: int = -1
    dealer: int = 0
    hand: list[Card] = field(default_factory=list)
    upcard: Card | None = None
    upcard_taken: bool | None = None
    discarded: Card | None = None
    bids: list[tuple[int, Action]] = field(default_factory=list)
    trump: Suit | None = None
    maker: int | None = None
    alone: bool = False
    defender_alone: int | None = None
    sitting_out: set[int] = field(default_factory=set)
    tricks: list[Trick] = field(default_factory=list)
    trick: list[tuple[int, Card]] = field(default_factory=list)
    played: dict[int, list[Card]] = field(default_factory=dict)
    voids: dict[int, set[Suit]] = field(default_factory=dict)
    tricks_won: list[int] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    caller: int | None = None
    calls: list[BestCall] = field(default_factory=list)
    passed: list[PassedCard] = field(default_factory=list)
    best_discards: list[Card] = field(default_factory=list)
    contract: int | None = None  # Hasenpfeffer: the high bid, once the auction is over
    forced: bool = False
    widow_joker: bool = False
    widow: Card | None = None  # to the bidder who took it
    results: list[HandEnd] = field(default_factory=list)
    called: tuple[Card, ...] = ()  # call-partner Euchre: the cards the maker called
    revealed: list[int] = field(default_factory=list)  # the seats that showed themselves partners, in order
    is_partner: bool = False  # whether this seat held a called card when it was called
    live: bool = False  # whether the current hand has been followed from its start (or taken from a view)

    @classmethod
    def from_game_start(cls, message: GameStart) -> Table:
        """A fresh table from a ``game_start`` message."""
        rules = make_rules(message["variant"], message["options"])
        n = rules.players
        return cls(
            seat=message["seat"],
            players=list(message["players"]),
            rules=rules,
            game=message.get("game", 0),
            time=dict(message.get("time") or {}),
            tricks_won=[0] * n,
            scores=[0] * n,
        )

    # ---- folding events in ----

    def apply(self, event: Event) -> None:
        """Fold one event into the picture (unknown event types are ignored, for forward compatibility).

        Events of a hand whose start the table missed (a bot restarted mid-game) are skipped; ``sync`` then takes
        the hand from the view.
        """
        kind = event.get("type")
        if kind == "action":  # the most common event first, and a card played the most common action
            if self.live:
                played_action = cast("ActionEvent", event)
                action = played_action["action"]
                played = len(action) == 2 and action.get("type") == "play"
                card = CARD_BY_TEXT.get(action.get("card", "")) if played else None
                if card is not None:
                    self._play(played_action["seat"], card)
                else:
                    self._action(played_action["seat"], action_from_json(action))
        elif kind == "trick":  # the next most common: one for every three or four cards
            if self.live:
                self._trick(cast("TrickEvent", event))
        elif kind == "hand_start":
            self._hand_start(cast("HandStart", event))
        elif kind == "hand_end":
            end = cast("HandEnd", event)
            self.scores = list(end["scores"])
            self.tricks_won = list(end["tricks_won"])
            self.results.append(end)
        elif not self.live:
            return
        elif kind == "cards":
            self.hand = sorted(Card.parse(c) for c in cast("Cards", event)["hand"])
        elif kind == "exchange":
            self._exchange(cast("Exchange", event))
        elif kind in ("call_for_best", "give_best", "best_discard"):
            self._best(kind, event)
        elif kind in ("contract", "widow", "declare"):
            self._auction(kind, event)
        elif kind == "partner_revealed":
            seat = cast("PartnerRevealedEvent", event)["seat"]
            if seat not in self.revealed:
                self.revealed.append(seat)

    def _hand_start(self, event: HandStart) -> None:
        n = self.rules.players
        self.live = True
        self.hand_number = event["hand_number"]
        self.dealer = event["dealer"]
        self.hand = sorted(Card.parse(c) for c in event["hand"])
        self.upcard = None if event["upcard"] is None else Card.parse(event["upcard"])  # (none in Hasenpfeffer)
        self.scores = list(event["scores"])
        self.upcard_taken = self.discarded = self.trump = self.maker = self.defender_alone = self.caller = None
        self.alone = False
        self.calls, self.passed, self.best_discards = [], [], []
        self.contract, self.forced, self.widow_joker, self.widow = None, False, False, None
        self.called, self.revealed, self.is_partner = (), [], False
        self.bids, self.tricks, self.trick = [], [], []
        self.sitting_out = set()
        self.played = {s: [] for s in range(n)}
        self.voids = {s: set() for s in range(n)}
        self.tricks_won = [0] * n

    def _action(self, seat: int, action: Action) -> None:
        if isinstance(action, Play):
            self._play(seat, action.card)
            return
        if isinstance(action, JokerLead):  # Nap: the declarer's first lead names trump
            self.trump = action.trump
            self._play(seat, action.card)
            return
        self.bids.append((seat, action))
        if isinstance(action, OrderUp):
            assert self.upcard is not None
            self._make(seat, self.rules.upcard_suit(self.upcard), action.alone)
            if self.dealer in self.sitting_out:
                self.upcard_taken = False
            elif self.dealer == self.seat:
                self.hand = sorted([*self.hand, self.upcard])
        elif isinstance(action, Call):
            self._make(seat, action.suit, action.alone)
        elif isinstance(action, NameTrump):
            self.trump, self.maker = action.suit, seat
        elif isinstance(action, DefendAlone):
            self.defender_alone = seat
            self.sitting_out.add((seat + 2) % 4)
        elif isinstance(action, CallPartner):
            self.called = action.cards
            self.is_partner = any(c in self.hand for c in action.cards)
        elif isinstance(action, GoAlone):
            self.alone = True

    def _make(self, seat: int, suit: Suit, alone: bool) -> None:
        self.maker, self.trump, self.alone = seat, suit, alone
        if alone and self.n == 4:
            self.sitting_out.add((seat + 2) % 4)
        elif alone:  # six-hand: every partner of the lone maker sits out
            side = self.rules.side_of(seat)
            self.sitting_out.update(s for s in range(self.n) if s != seat and self.rules.side_of(s) == side)

    def _exchange(self, event: Exchange) -> None:
        taken = event["took_upcard"]  # (null in call-partner Euchre but to the dealer)
        self.upcard_taken = None if taken is None else bool(taken)
        if event["seat"] == self.seat and event.get("discard") is not None:
            self.discarded = Card.parse(event["discard"])
            self.hand.remove(self.discarded)

    def _best(self, kind: str, event: Event) -> None:
        """A step of a call for best: the call (or not), the card passed, the discard after receiving it."""
        if kind == "call_for_best":
            call = cast("CallForBestEvent", event)
            seat = call["seat"]
            self.calls.append(BestCall(seat, call["called"]))
            self.caller = seat if call["called"] else None
            discard = call.get("discard")
            if discard is not None and seat == self.seat:
                self._discard_for_best(Card.parse(discard))
            for card in call.get("discards") or () if seat == self.seat else ():  # six-hand: one for each partner
                self._discard_for_best(Card.parse(card))
            return
        if kind == "best_discard":
            put_away = cast("BestDiscardEvent", event)
            if put_away["card"] is not None and put_away["seat"] == self.seat:
                self._discard_for_best(Card.parse(put_away["card"]))
            self.caller = None
            return
        given = cast("GiveBestEvent", event)
        seat, receiver = given["seat"], given["receiver"]
        shown = None if given["card"] is None else Card.parse(given["card"])
        self.passed.append(PassedCard(seat, receiver, shown))
        if shown is not None and seat == self.seat and shown in self.hand:
            self.hand.remove(shown)  # (a dealer who sat out may give the upcard, which is in no hand)
        if shown is not None and receiver == self.seat:
            self.hand = sorted([*self.hand, shown])
        each = self.rules.options.lone_call_for_best == "each"  # six-hand: every partner sitting out gives one
        if self.rules.options.best_order == "discard_first" and (not each or len(self.passed) == len(self.sitting_out)):
            self.caller = None

    def _auction(self, kind: str, event: Event) -> None:
        """Hasenpfeffer: the auction's outcome, the widow (to the bidder), the declaration."""
        if kind == "contract":
            contract = cast("ContractEvent", event)
            self.maker, self.contract = contract["seat"], contract["bid"]
            self.forced, self.widow_joker = contract["forced"], contract["widow_joker"]
        elif kind == "widow":
            self.widow = Card.parse(cast("WidowEvent", event)["card"])
            self.hand = sorted([*self.hand, self.widow])
        else:
            declared = cast("DeclareEvent", event)
            self.trump = Suit.parse(declared["suit"])
            if declared["discard"] is not None and declared["seat"] == self.seat:
                self.discarded = Card.parse(declared["discard"])
                self.hand.remove(self.discarded)

    def auction_view(self) -> AuctionView | None:
        """What this seat knows of a Hasenpfeffer auction, as a view holds it (None in the other games)."""
        if self.rules.game != "hasenpfeffer":
            return None
        return AuctionView(self.contract, self.forced, self.widow_joker, self.widow)  # (a contract once it is over)

    def _discard_for_best(self, card: Card) -> None:
        self.hand.remove(card)
        self.best_discards.append(card)

    def _play(self, seat: int, card: Card) -> None:
        if self.rules.game == "nap":
            self._nap_play(seat, card)
        else:
            assert self.trump is not None
            if self.trick:
                suits = EFFECTIVE_SUIT[self.trump]
                led = suits[self.trick[0][1]]
                if suits[card] != led:
                    self.voids[seat].add(SUITS[led])  # the Suit without an enum call
        self.trick.append((seat, card))
        self.played[seat].append(card)
        if seat == self.seat and card in self.hand:
            self.hand.remove(card)

    def _nap_play(self, seat: int, card: Card) -> None:
        """Nap's part of a card played: the declarer's first lead fixes trump (but in a Misere without trumps); a
        card off the suit led shows a void. Nap has no bowers: a suit is the printed one."""
        if not self.tricks and not self.trick:
            self.maker = seat
            if self.trump is None and not self.no_trump():
                self.trump = SUITS[card & 3]
        if self.trick:
            trump = None if self.trump is None else int(self.trump)
            led = plain_suit(self.trick[0][1], trump)
            if led is not None and plain_suit(card, trump) != led:
                self.voids[seat].add(SUITS[led])

    def nap_contract(self) -> str | None:
        """Nap: the highest bid so far (the contract, once the bidding is over)."""
        bids = [a.contract for _, a in self.bids if isinstance(a, NapBid)]
        return bids[-1] if bids else None

    def no_trump(self) -> bool:
        """Whether the hand is played without trump: Nap's Misere, unless ``misere_trumps``."""
        return self.nap_contract() == "misere" and not self.rules.options.misere_trumps

    def _trick(self, event: TrickEvent) -> None:
        cards = tuple([(c["seat"], CARD_BY_TEXT[c["card"]]) for c in event["cards"]])
        winner = event["winner"]
        self.tricks.append(_tuple_new(Trick, (event["leader"], cards, winner)))  # Trick(leader, cards, winner)
        self.tricks_won[winner] += 1
        self.trick = []

    def view(self, phase: Phase) -> SeatView:
        """This picture as the seat's view, for a request that came without one (the seat is the one to act)."""
        if phase is Phase.DISCARD and self.caller is not None:  # a discard after receiving a card for best
            phase = Phase.BEST_DISCARD
        if phase is Phase.PLAY and self.maker is None and self.rules.game == "nap":  # the bidding is over: it is his
            self.maker = next(seat for seat, a in reversed(self.bids) if isinstance(a, NapBid))
        return self._as_view(self.rules.players, phase, self.seat)

    def _as_view(self, players: int, phase: Phase, turn: int | None) -> SeatView:
        """This picture as a SeatView (tuples, seats sitting out in order) with the request's ``players``, ``phase``
        and ``turn``.

        Built as the tuple it is, the fields in SeatView's order: a bot that asked for views now and then makes one
        at every request, and a keyword call through a dict of the fields costs three times as much
        (tests/sdk/test_bot.py checks every field against the table's attribute of its name). Before the table's
        first hand its upcard is None, which no view has: only ``mismatches`` asks then.
        """
        best = self.best_view()
        if best is not None and phase is Phase.CALL_BEST:  # the seat asked whether it calls for best is the caller
            best = best._replace(caller=turn)
        return _tuple_new(
            SeatView,
            (
                self.seat,
                players,
                self.hand_number,
                self.dealer,
                phase,
                turn,
                tuple(self.hand),
                self.upcard,
                self.upcard_taken,
                self.discarded,
                tuple(self.bids),
                self.trump,
                self.maker,
                self.alone,
                self.defender_alone,
                tuple(sorted(self.sitting_out)),
                tuple(self.tricks),
                tuple(self.trick),
                tuple(self.tricks_won),
                tuple(self.scores),
                best,
                self.auction_view(),
                self.partner_call_view(),
            ),
        )

    def partner_call_view(self) -> PartnerCallView | None:
        """What this seat knows of the maker's call, as a view holds it (None but in call-partner Euchre)."""
        if self.rules.game != "call_partner":
            return None
        return PartnerCallView(self.called, tuple(self.revealed), self.is_partner)

    def best_view(self) -> BestView | None:
        """What this seat knows of the hand's calls for best, as a view holds it (None where the rules have none)."""
        if not self.rules.calls_for_best:
            return None
        return BestView(self.caller, tuple(self.calls), tuple(self.passed), tuple(self.best_discards))

    def sync(self, view: SeatView) -> None:
        """Take the current hand from the referee's view: after a restart mid-game, or if the table went astray."""
        self.live = True
        for name in VIEW_FIELDS:  # in the Table's own containers (lists, a set)
            kind = type(getattr(self, name))
            value = getattr(view, name)
            setattr(self, name, kind(value) if kind in (list, set) else value)
        best = view.best
        self.caller = None if best is None else best.caller
        self.calls, self.passed = ([], []) if best is None else (list(best.calls), list(best.passed))
        self.best_discards = [] if best is None else list(best.discards)
        auction = view.auction
        if auction is not None:
            self.contract, self.forced, self.widow_joker, self.widow = auction
        call = view.partner_call
        if call is not None:
            self.called, self.revealed, self.is_partner = call.cards, list(call.revealed), call.partner
        self.played = {s: [] for s in range(self.n)}
        self.voids = {s: set() for s in range(self.n)}
        self.tricks, self.trick = [], []
        for done in view.tricks:
            for seat, card in done.cards:
                self._play(seat, card)
            self.tricks.append(done)
            self.trick = []
        for seat, card in view.trick:
            self._play(seat, card)

    # ---- questions a player asks ----

    @property
    def n(self) -> int:
        """Number of seats at the table."""
        return self.rules.players

    def partner(self, seat: int | None = None) -> int | None:
        """The partner of ``seat`` (default: this seat) in this hand: fixed in four-hand, the other defender in
        three-hand once trump is made, else None (see ``same_side`` for five to seven players)."""
        seat = self.seat if seat is None else seat
        if self.n > 4 or self.rules.game == "nap":  # Nap: each for himself, the declarer against all the others
            return None
        if self.n == 4:
            return (seat + 2) % 4
        if self.n == 3 and self.maker is not None and seat != self.maker:
            return 3 - seat - self.maker
        return None

    def same_side(self, a: int, b: int) -> bool:
        """Whether seats ``a`` and ``b`` play together in the current hand, as far as this seat knows: in
        call-partner Euchre the maker's side is the maker, the partners shown and this seat if it is one, and
        the defenders are known to play together only once the whole maker's side is known."""
        if a == b or self.partner(a) == b:
            return True
        if self.n <= 4 or self.rules.game == "nap":
            return False
        if self.rules.game == "six_hand":
            return self.rules.side_of(a) == self.rules.side_of(b)
        if self.maker is None:
            return False
        makers = {self.maker, *self.revealed, *([self.seat] if self.is_partner else [])}
        if a in makers or b in makers:
            return a in makers and b in makers
        whole = self.alone or len(makers) > self.rules.options.called_cards
        return whole

    def active(self) -> list[int]:
        """The seats taking part in the current hand's play."""
        return [s for s in range(self.n) if s not in self.sitting_out]

    def played_cards(self) -> set[Card]:
        """Every card played in the current hand so far."""
        return {c for cards in self.played.values() for c in cards}

    def outstanding(self) -> set[Card]:
        """Cards that may still be in another active seat's hand: the deck less own cards, cards played, own discard
        and an upcard that was turned down or declined (cards of a seat sitting out are counted too)."""
        gone = self.played_cards() | set(self.hand)
        if self.discarded is not None:
            gone.add(self.discarded)
        # (a dealer sitting out may have given the upcard to a lone player calling for best: it may be in play)
        given = any(p.giver == self.dealer and p.card in (None, self.upcard) for p in self.passed)
        if self.upcard is not None and (not self.upcard_in_hand() or self.dealer == self.seat) and not given:
            gone.add(self.upcard)
        return set(make_deck(self.rules.deck)) - gone

    def upcard_in_hand(self) -> bool:
        """Whether the upcard is in the dealer's hand (taken up, or about to be exchanged), not in the kitty."""
        if self.upcard_taken is not None:
            return self.upcard_taken
        made_on_upcard = any(isinstance(a, OrderUp | NameTrump) for _, a in self.bids)
        return made_on_upcard and self.dealer not in self.sitting_out

    def holds_upcard(self) -> int | None:
        """The seat known to hold the upcard (the dealer once it is his, until he plays it), else None."""
        if self.upcard_in_hand() and self.upcard not in self.played.get(self.dealer, ()):
            return self.dealer
        return None

    def is_boss(self, card: Card) -> bool:
        """Whether no outstanding card of the same effective suit ranks above ``card``."""
        assert self.trump is not None
        suit = effective_suit(card, self.trump)
        power = card_power(card, self.trump, suit)
        return all(
            card_power(c, self.trump, suit) <= power
            for c in self.outstanding()
            if effective_suit(c, self.trump) == suit
        )

    def winning(self) -> tuple[int, Card] | None:
        """The seat and card winning the current trick so far, or None before its first card."""
        if self.rules.game == "nap" and self.trick:
            winner = plain_trick_winner(self.trick, None if self.trump is None else int(self.trump))
            return next(played for played in self.trick if played[0] == winner)
        if not self.trick or self.trump is None:
            return None
        return self.trick[trick_winner_index([c for _, c in self.trick], self.trump)]

    def mismatches(self, view: SeatView) -> list[str]:
        """Fields in which this picture differs from the referee's view (empty when they agree)."""
        mine = self._as_view(view.players, view.phase, view.turn)
        if mine == view:  # the usual answer, in one comparison of two tuples
            return []
        fields = (*VIEW_FIELDS, "best", "auction", "partner_call")
        return [name for name in fields if getattr(view, name) != getattr(mine, name)]
