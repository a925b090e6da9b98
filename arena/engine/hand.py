"""One hand of Euchre: the deal, making trump, the dealer's exchange, going and defending alone, five tricks.

The same hand is call-partner Euchre's (after the exchange the maker calls a card or goes alone; scores are
individual) and six-hand's (two or three sides; a lone maker's partners sit out and may give him a card each).
"""

from __future__ import annotations

import random
from bisect import insort
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from typing import NamedTuple

from arena.engine.actions import (
    CALL,
    CALL_FOR_BEST,
    CALL_FOR_BEST_FIRST,
    CALL_PARTNER,
    DEFEND_ALONE,
    DISCARD,
    GIVE_BEST,
    GO_ALONE,
    NAME_TRUMP,
    ORDER_UP,
    PASS,
    PLAY,
    Action,
    Call,
    CallForBest,
    CallPartner,
    DefendAlone,
    Discard,
    GiveBest,
    NameTrump,
    OrderUp,
    Play,
)
from arena.engine.cards import ACE, EFFECTIVE_SUIT, JOKER_ID, TRICK_POWER, Card, Suit, make_deck
from arena.engine.options import Rules
from arena.engine.phases import BestCall, PartnerCallView
from arena.engine.phases import Phase as Phase  # re-exported: a hand's phases and tricks are defined apart, for bots
from arena.engine.phases import Trick as Trick
from arena.engine.scoring import SAME_SIDE, call_partner_points, hand_points, six_hand_points
from arena.errors import IllegalActionError

# The phases as module constants for the hot paths: ``Phase.PLAY`` is looked up through the enum's metaclass, which
# costs about ten times a global name (measured: 0.23 against 0.03 microseconds).
_BID1 = Phase.BID1
_NAME_TRUMP_PHASE = Phase.NAME_TRUMP
_DISCARD_PHASE = Phase.DISCARD
_BID2 = Phase.BID2
_DEFEND = Phase.DEFEND
_CALL_BEST = Phase.CALL_BEST
_GIVE_BEST = Phase.GIVE_BEST
_BEST_DISCARD = Phase.BEST_DISCARD
_PLAY_PHASE = Phase.PLAY
_DONE = Phase.DONE
_CALL_PARTNER_PHASE = Phase.CALL_PARTNER


@dataclass(frozen=True, slots=True)
class Deal:
    """The cards of one hand: five per seat (seat order), the upcard, and the rest of the kitty in deck order."""

    hands: tuple[tuple[Card, ...], ...]
    upcard: Card
    kitty: tuple[Card, ...]

    @classmethod
    def from_deck(cls, deck: list[Card], players: int, dealer: int) -> Deal:
        """Deal one card at a time clockwise from eldest hand, five rounds; the next card is the upcard."""
        dealt = 5 * players
        hands = [tuple(deck[j:dealt:players]) for j in range(players)]  # hands[j]: the j-th seat after the dealer
        rotation = (players - dealer - 1) % players
        return cls(tuple(hands[rotation:] + hands[:rotation]), deck[dealt], tuple(deck[dealt + 1 :]))

    @classmethod
    def shuffled(cls, rules: Rules, dealer: int, rng: random.Random) -> Deal:
        """Shuffle a fresh deck with ``rng`` and deal it."""
        deck = make_deck(rules.deck)
        rng.shuffle(deck)
        return cls.from_deck(deck, rules.players, dealer)


class HandResult(NamedTuple):
    """The outcome of a hand; ``points`` is per seat, partners both showing their side's points. (A named tuple: a
    hand makes one as it ends, at a third of a frozen dataclass's cost.)"""

    passed_out: bool
    maker: int | None
    trump: Suit | None
    alone: bool
    defender_alone: int | None
    tricks: tuple[Trick, ...]
    points: tuple[int, ...]
    partners: tuple[int, ...] | None = None  # call-partner Euchre: the holders of a called card (None elsewhere)


@cache
def _next_active(players: int, out: frozenset[int]) -> tuple[int, ...]:
    """The seat that plays after each seat when the seats in ``out`` sit out (``out`` holds at most two seats)."""
    after = []
    for seat in range(players):
        seat_after = (seat + 1) % players
        while seat_after in out:
            seat_after = (seat_after + 1) % players
        after.append(seat_after)
    return tuple(after)


class HandState:
    """The state of one hand; asks one seat at a time for an action and enforces the rules.

    Once play starts, the hand also keeps private indexes derived from ``hands``, so that a list of legal plays is one
    ``tuple()`` of a ready list rather than a scan of the hand: per seat, the ``Play`` of each card held (``_plays``)
    and the same split by effective suit (``_suited``), both in hand order. ``_next`` is the seat that plays after
    each seat, ``_eff`` the effective suit of each card under trump, ``_led`` the effective suit led to the trick in
    progress.
    """

    _plays: list[list[Play]]
    _suited: list[tuple[list[Play], ...]]
    _next: tuple[int, ...]
    _eff: tuple[int, ...]
    _led: int

    # Slots: a hand's attributes are read at every action, and an instance dict of more than 30 keys (CPython's
    # limit for shared keys) makes every one of those reads a dict lookup.
    __slots__ = (
        *("rules", "dealer", "deal", "hands", "eldest", "trump", "maker", "alone", "defender_alone", "out"),
        *("upcard_taken", "discarded", "actions", "tricks", "trick", "leader", "result", "phase", "turn", "upsuit"),
        *("caller", "best_discards", "passed", "calls", "best_steps", "_upcard_to_give"),
        *("_passes", "_active", "_legal", "_plays", "_suited", "_next", "_eff", "_led"),
        *("called", "partners", "_givers", "_bid_alone", "_game"),
    )

    def __init__(self, rules: Rules, dealer: int, deal: Deal) -> None:
        n = rules.players
        if len(deal.hands) != n or set(map(len, deal.hands)) != {5}:
            raise ValueError(f"a {rules.variant} deal has {n} hands of five cards")
        self.rules = rules
        self.dealer = dealer
        self.deal = deal
        self.hands: list[list[Card]] = [sorted(h) for h in deal.hands]  # kept sorted: legal lists come in order
        self.eldest = (dealer + 1) % n
        self.trump: Suit | None = None
        self.maker: int | None = None
        self.alone = False
        self.defender_alone: int | None = None
        self.out: set[int] = set()
        self.upcard_taken: bool | None = None
        self.discarded: Card | None = None
        self.actions: list[tuple[int, Action]] = []
        self.tricks: list[Trick] = []
        self.trick: list[tuple[int, Card]] = []
        self.leader: int | None = None
        self.result: HandResult | None = None
        self.caller: int | None = None  # the lone player (or lone defender) calling for best, while he does
        self.best_discards: list[tuple[int, Card]] = []  # (seat, card) discarded for a call for best
        self.passed: list[tuple[int, int, Card]] = []  # (giver, receiver, card) passed on a call for best
        self.calls: list[BestCall] = []  # each answer on calling for best: (seat, whether it called)
        self.best_steps: set[int] = set()  # indexes in ``actions`` of the calls for best, their passes and discards
        self._upcard_to_give = False  # the dealer sat out his exchange: he may give the upcard on a call for best
        self._passes = 0
        self._active = rules.players
        self._legal: tuple[Action, ...] | None = None
        opts = rules.options
        self._game = game = rules.game  # "euchre", "call_partner" or "six_hand"
        self._bid_alone = opts.going_alone and game != "call_partner"  # a call-partner bid has no alone flag
        if game != "euchre":  # (set only where they are read: the upcard's euchre makes a hand in the hot path)
            self.called: tuple[Card, ...] = ()  # call-partner: the cards the maker called
            self.partners: tuple[int, ...] = ()  # call-partner: the seats that held a called card when called
            self._givers: list[int] = []  # six-hand: the partners still to give the lone maker a card (each one)
        benny = deal.upcard == JOKER_ID and opts.joker_upcard == "dealer_names"
        self.upsuit = rules.upcard_suit(deal.upcard)
        if benny:
            self.phase, self.turn = _NAME_TRUMP_PHASE, dealer
        else:
            self.phase, self.turn = _BID1, self.eldest

    # ---- queries ----

    @property
    def players(self) -> int:
        """Number of seats at the table."""
        return self.rules.players

    def is_over(self) -> bool:
        """Whether the hand is finished (played out or passed out)."""
        return self.phase is _DONE

    def current_seat(self) -> int | None:
        """The seat that must act now, or None when the hand is over."""
        return None if self.phase is _DONE else self.turn

    def auction_seen(self, seat: int) -> None:
        """There is no auction in the upcard's euchre (Hasenpfeffer's hand has one)."""
        return None

    @property
    def discarder(self) -> int:
        """The seat whose discard only it may see: the dealer."""
        return self.dealer

    def sees_own_cards(self, seat: int) -> bool:
        """Whether ``seat`` may see its cards now: not the dealer while he names trump blind on the Benny."""
        return not (self.phase is _NAME_TRUMP_PHASE and seat == self.dealer)

    def tricks_won(self) -> list[int]:
        """Tricks won so far by each seat."""
        won = [0] * self.rules.players
        for trick in self.tricks:
            won[trick.winner] += 1
        return won

    def partner(self, seat: int) -> int | None:
        """The partner of a seat in four-hand, else None."""
        return (seat + 2) % 4 if self.rules.players == 4 else None

    def legal_actions(self) -> tuple[Action, ...]:
        """The legal actions of the seat to act, in a fixed order (empty when the hand is over)."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal

    def _compute_legal(self) -> tuple[Action, ...]:
        phase = self.phase
        if phase is _PLAY_PHASE:  # follow the suit led if you can, else play any card
            follow = self._suited[self.turn][self._led] if self.trick else None
            return tuple(follow or self._plays[self.turn])
        opts = self.rules.options
        alone_ok = self._bid_alone
        if phase is _BID1:
            return (PASS, *ORDER_UP) if alone_ok else (PASS, ORDER_UP[0])
        if phase is _BID2:
            turned_down = self.upsuit
            must_call = opts.stick_the_dealer and self.turn == self.dealer
            calls = [c for s in range(4) if s != turned_down for c in (CALL[s] if alone_ok else CALL[s][:1])]
            return tuple(calls) if must_call else (PASS, *calls)
        if phase is _DISCARD_PHASE:
            hand = self.hands[self.dealer]
            upcard = self.deal.upcard
            # a dealer who made trump (the Benny's too) keeps the upcard; a turned-up joker ordered up by another
            # seat (Railroad's fixed_suit) is taken "in the usual way", and so may be declined
            may_decline = opts.dealer_exchange == "optional" and self.maker != self.dealer
            return tuple([DISCARD[c] for c in hand if may_decline or c != upcard])
        if phase is _DEFEND:
            return (PASS, DEFEND_ALONE)
        if phase is _NAME_TRUMP_PHASE:
            return NAME_TRUMP
        if phase is _CALL_PARTNER_PHASE:
            return self._partner_calls()
        if phase is _CALL_BEST:
            if opts.lone_call_for_best != "none":
                return self._six_hand_calls()
            if opts.best_order == "receive_first":
                return (PASS, CALL_FOR_BEST_FIRST)
            return (PASS, *[CALL_FOR_BEST[c] for c in self.hands[self.turn]])
        if phase is _GIVE_BEST:
            return tuple([GIVE_BEST[c] for c in self._giveable(self.turn)])
        if phase is _BEST_DISCARD:
            return tuple([DISCARD[c] for c in self.hands[self.turn]])
        return ()

    def callable_cards(self) -> list[Card]:
        """The cards the maker may call in call-partner Euchre, in card order: any card of the pack he does not
        hold that is not the turned-down upcard (nor, for a dealer who made trump, his own discard); under
        ``call = "non_trump"`` none of trump's effective suit; under ``"ace"`` the ace of each suit but trump that
        he does not hold."""
        assert self.maker is not None and self.trump is not None
        hand, trump, call = self.hands[self.maker], self.trump, self.rules.options.call
        # a dealer who made trump knows where his discard lies: calling it would be going alone under another name
        own = self.discarded if self.maker == self.dealer else None
        if call == "ace":
            return [
                Card(ACE * 4 + s) for s in range(4) if s != trump and ACE * 4 + s not in hand and ACE * 4 + s != own
            ]
        turned_down = self.deal.upcard if self.upcard_taken is None else None  # trump made in round 2
        eff = EFFECTIVE_SUIT[trump]
        return [
            c
            for c in sorted(make_deck(self.rules.deck))
            if c not in hand and c != turned_down and c != own and (call == "any_card" or eff[c] != trump)
        ]

    def _partner_calls(self) -> tuple[Action, ...]:
        """The maker's call: going alone (where allowed, or forced when too few cards may be called) and every
        call of ``called_cards`` different callable cards. No lone hand on a Benny deal but a forced one."""
        cards = self.callable_cards()
        count = self.rules.options.called_cards
        calls: list[Action] = (
            [CALL_PARTNER[c] for c in cards] if count == 1 else [CallPartner(p) for p in combinations(cards, count)]
        )
        benny = any(type(a) is NameTrump for _, a in self.actions)
        if not calls or (self.rules.options.going_alone and not benny):
            return (GO_ALONE, *calls)
        return tuple(calls)

    def _six_hand_calls(self) -> tuple[Action, ...]:
        """Six-hand's lone maker's call for best: a pass, or a discard with the partner named (``"one"``), or a
        discard for each partner (``"each"``)."""
        hand = self.hands[self.turn]
        partners = self._nearer_left(self.out)
        if self.rules.options.lone_call_for_best == "one":
            return (PASS, *[CallForBest(c, p) for p in partners for c in hand])
        return (PASS, *[CallForBest(cards=cards) for cards in combinations(hand, len(partners))])

    def _nearer_left(self, seats: set[int]) -> list[int]:
        """``seats`` in the order of play from the maker's left."""
        assert self.maker is not None
        maker, n = self.maker, self.rules.players
        return sorted(seats, key=lambda s: (s - maker) % n)

    def partner_call_seen(self, seat: int) -> PartnerCallView:
        """What ``seat`` knows of the maker's call (call-partner Euchre): the cards called, the seats that played
        one so far in the order they did, and whether ``seat`` is a partner (its own secret)."""
        called = self.called
        revealed: list[int] = []
        if called:
            for s, c in [card for trick in self.tricks for card in trick.cards] + self.trick:
                if c in called and s not in revealed:
                    revealed.append(s)
        return PartnerCallView(called, tuple(revealed), seat in self.partners)

    def _giveable(self, giver: int) -> list[Card]:
        """What ``giver`` may pass on a call for best: his cards, and the upcard if he is a dealer who sat out his
        exchange (Railroad's dealer exception)."""
        if giver == self.dealer and self._upcard_to_give:
            return sorted([*self.hands[giver], self.deal.upcard])
        return self.hands[giver]

    # ---- the one way to change the state ----

    def apply(self, action: Action, seat: int | None = None) -> None:
        """Apply the action of the seat to act; an illegal action raises and leaves the state unchanged."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        if action not in legal or (seat is not None and seat != self.turn):  # nothing is legal once the hand is over
            raise IllegalActionError(self._refusal(action, seat))
        actor = self.turn
        self._legal = None
        self.actions.append((actor, action))
        if type(action) is Play:  # most actions: the phase need not be read
            self._play(actor, action)
            return
        phase = self.phase
        if phase is _BID1:
            self._bid1(actor, action)
        elif phase is _BID2:
            self._bid2(actor, action)
        elif phase is _DISCARD_PHASE and isinstance(action, Discard):
            self._discard(action.card)
        elif isinstance(action, NameTrump):
            self.trump, self.maker = action.suit, self.dealer
            self._take_upcard()
            self.phase = _DISCARD_PHASE
        elif phase is _DEFEND:
            self._defend(actor, action)
        elif phase is _CALL_PARTNER_PHASE:
            self._call_partner(actor, action)
        else:
            self.best_steps.add(len(self.actions) - 1)
            self._best(actor, action)

    def _refusal(self, action: Action, seat: int | None) -> str:
        if self.phase is _DONE:
            return f"the hand is over; no action is expected (got {action.to_json()})"
        if seat is not None and seat != self.turn:
            return f"it is seat {self.turn}'s turn, not seat {seat}'s"
        return self._why_illegal(action)

    def _why_illegal(self, action: Action) -> str:
        text = action.to_json()
        kinds = {a.type for a in self.legal_actions()}
        if action.type not in kinds:
            return f"{text} is not allowed in phase {self.phase.value}; allowed: {', '.join(sorted(kinds))}"
        card = getattr(action, "card", None)
        giveable = isinstance(action, GiveBest) and card in self._giveable(self.turn)
        if card is not None and card not in self.hands[self.turn] and not giveable:
            return f"seat {self.turn} does not hold {card}"
        if isinstance(action, Play):
            return f"{action.card} does not follow suit; legal: {[str(a.to_json()['card']) for a in self._legal or ()]}"
        if isinstance(action, Discard):
            return f"the dealer may not discard the upcard {action.card} here"
        if isinstance(action, Call) and action.suit == self.upsuit:
            return f"{action.suit} was turned down and cannot be called"
        if isinstance(action, OrderUp | Call) and action.alone:
            return "going alone is not allowed under these rules"
        if isinstance(action, Call | OrderUp):
            return f"{text} is not legal now"
        return "the dealer may not pass in round 2 (stick the dealer)"

    # ---- transitions ----

    def _make(self, seat: int, suit: Suit, alone: bool) -> None:
        self.maker, self.trump, self.alone = seat, suit, alone
        if alone and self.rules.players == 4:
            self.out.add((seat + 2) % 4)
        elif alone:  # six-hand: every partner of the lone maker sits out
            side_of, side = self.rules.side_of, self.rules.side_of(seat)
            self.out.update(s for s in range(self.rules.players) if s != seat and side_of(s) == side)

    def _take_upcard(self) -> None:
        insort(self.hands[self.dealer], self.deal.upcard)

    def _bid1(self, seat: int, action: Action) -> None:
        if isinstance(action, OrderUp):
            self._make(seat, self.upsuit, action.alone)
            if self.dealer in self.out:
                self.upcard_taken = False
                self._upcard_to_give = True
                self._after_exchange()
            else:
                self._take_upcard()
                self.phase, self.turn = _DISCARD_PHASE, self.dealer
            return
        self._passes += 1
        if self._passes == self.rules.players:
            self._passes = 0
            self.phase, self.turn = _BID2, self.eldest
        else:
            self.turn = (seat + 1) % self.rules.players

    def _bid2(self, seat: int, action: Action) -> None:
        if isinstance(action, Call):
            self._make(seat, action.suit, action.alone)
            self._after_exchange()
            return
        self._passes += 1
        if self._passes == self.rules.players:
            self._finish(passed_out=True)
        else:
            self.turn = (seat + 1) % self.rules.players

    def _discard(self, card: Card) -> None:
        self.hands[self.dealer].remove(card)
        self.discarded = card
        self.upcard_taken = card != self.deal.upcard
        self._after_exchange()

    def _defenders(self) -> list[int]:
        # Lone hands exist only in four-hand, where the defenders are the other parity of seat.
        assert self.maker is not None
        side = self.maker % 2
        return [s for s in ((self.dealer + 1 + i) % 4 for i in range(4)) if s % 2 != side]

    # After the exchange, in this order (Railroad's fine point 1): the lone maker's call for best, the defenders'
    # answers to a lone bid, the lone defender's call for best.

    def _after_exchange(self) -> None:
        if not self.alone:  # most hands: straight to the play (call-partner's: the maker's call first)
            if self._game == "call_partner":
                assert self.maker is not None
                self.phase, self.turn = _CALL_PARTNER_PHASE, self.maker
            else:
                self._start_play()
        elif self.rules.options.call_for_best or self.rules.options.lone_call_for_best != "none":
            self._ask_best(self.maker)
        else:
            self._ask_defenders()

    def _call_partner(self, seat: int, action: Action) -> None:
        """Call-partner Euchre: the maker's call; whoever holds a called card is his partner. Nobody sits out."""
        if isinstance(action, CallPartner):
            self.called = action.cards
            hands = self.hands
            self.partners = tuple(s for s in range(self.rules.players) if any(c in hands[s] for c in action.cards))
        else:
            self.alone = True
        self._start_play()

    def _ask_defenders(self) -> None:
        if self.alone and self.rules.options.defend_alone:
            self.phase, self.turn = _DEFEND, self._defenders()[0]
        else:
            self._start_play()

    def _ask_best(self, seat: int | None) -> None:
        assert seat is not None
        self.caller = seat
        self.phase, self.turn = _CALL_BEST, seat

    def _best(self, seat: int, action: Action) -> None:
        """A step of a call for best: the call (or pass), the partner's card, the discard after receiving it."""
        if self.phase is _CALL_BEST:
            self.calls.append(BestCall(seat, action is not PASS))
        if isinstance(action, CallForBest):
            for card in (action.card,) if action.card is not None else action.cards:
                self.hands[seat].remove(card)
                self.best_discards.append((seat, card))
            if action.partner is not None:  # six-hand: the partner named
                giver = action.partner
            elif action.cards:  # six-hand: each partner gives, the one nearer the maker's left first
                giver, *self._givers = self._nearer_left(self.out)
            else:
                giver = (seat + 2) % 4
            self.phase, self.turn = _GIVE_BEST, giver
            return
        if isinstance(action, GiveBest):
            caller = self.caller
            assert caller is not None
            if action.card in self.hands[seat]:
                self.hands[seat].remove(action.card)
            else:  # the upcard, given by a dealer who sat out his exchange
                self._upcard_to_give = False
            insort(self.hands[caller], action.card)
            self.passed.append((seat, caller, action.card))
            if self._game == "six_hand" and self._givers:  # six-hand: the next partner gives
                self.turn = self._givers.pop(0)
                return
            if self.rules.options.best_order == "receive_first":
                self.phase, self.turn = _BEST_DISCARD, caller
                return
        elif isinstance(action, Discard):
            self.hands[seat].remove(action.card)
            self.best_discards.append((seat, action.card))
        caller, self.caller = self.caller, None  # the call is done (or was declined: a pass)
        if caller == self.maker:
            self._ask_defenders()
        else:
            self._start_play()

    def _defend(self, seat: int, action: Action) -> None:
        if isinstance(action, DefendAlone):
            self.defender_alone = seat
            self.out.add((seat + 2) % 4)
            if self.rules.options.defender_calls_best:
                self._ask_best(seat)
            else:
                self._start_play()
            return
        defenders = self._defenders()
        if seat == defenders[-1]:
            self._start_play()
        else:
            self.turn = defenders[defenders.index(seat) + 1]

    def _start_play(self) -> None:
        assert self.trump is not None
        self._next = _next_active(self.rules.players, frozenset(self.out))
        self._active = self.rules.players - len(self.out)
        leader = self._next[self.dealer]  # eldest hand, or the first seat after him who plays
        self.phase, self.turn, self.leader = _PLAY_PHASE, leader, leader
        eff = self._eff = EFFECTIVE_SUIT[self.trump]
        self._plays, self._suited = [], []
        for hand in self.hands:
            plays: list[Play] = []
            by_suit: tuple[list[Play], ...] = ([], [], [], [])
            for c in hand:
                play = PLAY[c]
                plays.append(play)
                by_suit[eff[c]].append(play)
            self._plays.append(plays)
            self._suited.append(by_suit)

    def _play(self, seat: int, action: Play) -> None:
        card = action.card
        trick = self.trick
        if not trick:
            self._led = self._eff[card]
        hand = self.hands[seat]
        i = hand.index(card)  # _plays[seat] is in the same order; finding an int is cheaper than comparing actions
        del hand[i], self._plays[seat][i]
        self._suited[seat][self._eff[card]].remove(action)
        trick.append((seat, card))
        if len(trick) < self._active:
            self.turn = turn = self._next[seat]
            self._legal = tuple(self._suited[turn][self._led] or self._plays[turn])  # _compute_legal's, made now
            return
        assert self.trump is not None and self.leader is not None
        power = TRICK_POWER[self.trump][self._led]  # the highest card_power wins, as in trick_winner_index
        winner, best = -1, -2
        for s, c in trick:
            if power[c] > best:
                winner, best = s, power[c]
        self.tricks.append(Trick(self.leader, tuple(trick), winner))
        self.trick = []
        if len(self.tricks) == 5:
            self._finish(passed_out=False)
        else:
            self.turn = self.leader = winner

    def _finish(self, *, passed_out: bool) -> None:
        self.phase = _DONE
        n = self.rules.players
        if passed_out:
            points = (0,) * n
        elif self._game != "euchre":
            points = self._many_hands_points()
        else:
            assert self.maker is not None
            maker = self.maker
            with_maker = SAME_SIDE[n][maker]
            won = sum([with_maker[t.winner] for t in self.tricks])
            points = hand_points(
                n,
                maker,
                won,
                alone=self.alone,
                defender_alone=self.defender_alone is not None,
                lone_euchred=self.rules.options.lone_euchred_points,
            )
        self.result = HandResult(
            passed_out=passed_out,
            maker=self.maker,
            trump=self.trump,
            alone=self.alone,
            defender_alone=self.defender_alone,
            tricks=tuple(self.tricks),
            points=points,
            partners=self.partners if self._game == "call_partner" and not passed_out else None,
        )

    def _many_hands_points(self) -> tuple[int, ...]:
        """Points per seat of a played hand of call-partner Euchre (each player his own) or six-hand (per side)."""
        assert self.maker is not None
        rules, maker = self.rules, self.maker
        if self._game == "call_partner":
            makers = {maker, *self.partners}
            won = sum(1 for t in self.tricks if t.winner in makers)
            return call_partner_points(rules.options, rules.players, makers, won, alone=self.alone)
        side = rules.side_of(maker)
        won = sum(1 for t in self.tricks if rules.side_of(t.winner) == side)
        return six_hand_points(rules, maker, won, alone=self.alone)
