"""What one seat may know (docs/rules.md, "what a player may know"), as a type: the only picture of a game that
leaves the referee.

:class:`SeatView` is the one definition of those facts. Everything else is derived from it: its wire form
(``to_json`` / ``from_json``), the protocol's ViewModel (arena.play.protocol builds it from these annotations), the
SDK's Table (arena.sdk.table keeps the same names), and the referee's incremental encoder (arena.play.outgoing,
checked equal to ``to_json``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple, NotRequired, cast

from typing_extensions import TypedDict  # pydantic reads the record's types (typing's, before 3.12, it cannot)

from arena.engine.actions import Action, ActionObject, Play, WireAction, action_from_json
from arena.engine.cards import CARD_BY_TEXT, CARD_TEXT, Card, Suit
from arena.engine.phases import SEAT as SEAT
from arena.engine.phases import AuctionView, BestCall, BestView, PartnerCallView, PassedCard, Phase, SeatNumber, Trick

if TYPE_CHECKING:  # a bot reads views and never runs a game: it starts without loading the rules engine
    from arena.engine.game import AnyHand, Game
    from arena.engine.hand import HandState


class SeatView(NamedTuple):
    """Everything ``seat`` may know about the current hand and game, and nothing more."""

    seat: SeatNumber
    players: int
    hand_number: int
    dealer: SeatNumber
    phase: Phase
    turn: SeatNumber | None
    hand: tuple[Card, ...]
    upcard: Card | None  # None in Hasenpfeffer, which turns up no card
    upcard_taken: bool | None
    discarded: Card | None
    bids: tuple[tuple[SeatNumber, Action], ...]
    trump: Suit | None
    maker: SeatNumber | None
    alone: bool
    defender_alone: SeatNumber | None
    sitting_out: tuple[SeatNumber, ...]
    tricks: tuple[Trick, ...]
    trick: tuple[tuple[SeatNumber, Card], ...]
    tricks_won: tuple[int, ...]
    scores: tuple[int, ...]
    # Railroad's calls for best; None, and absent from the wire form, where the rules have none (so that the other
    # variants' views are what they always were)
    best: BestView | None = None
    # Hasenpfeffer's auction; None, and absent from the wire form, in the other games
    auction: AuctionView | None = None
    # Call-partner Euchre's call; None, and absent from the wire form, in the other games
    partner_call: PartnerCallView | None = None

    def to_json(self) -> SeatViewJSON:
        """The wire form of the view."""
        data: SeatViewJSON = {
            "seat": self.seat,
            "players": self.players,
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "phase": self.phase.value,
            "turn": self.turn,
            "hand": [CARD_TEXT[c] for c in self.hand],
            "upcard": None if self.upcard is None else CARD_TEXT[self.upcard],
            "upcard_taken": self.upcard_taken,
            "discarded": None if self.discarded is None else CARD_TEXT[self.discarded],
            "bids": actions_json(self.bids),
            "trump": None if self.trump is None else self.trump.name,
            "maker": self.maker,
            "alone": self.alone,
            "defender_alone": self.defender_alone,
            "sitting_out": list(self.sitting_out),
            "tricks": [trick_json(t) for t in self.tricks],
            "trick": [{"seat": s, "card": CARD_TEXT[c]} for s, c in self.trick],
            "tricks_won": list(self.tricks_won),
            "scores": list(self.scores),
        }
        if self.best is not None:
            data["best"] = best_json(self.best)
        if self.auction is not None:
            data["auction"] = auction_json(self.auction)
        if self.partner_call is not None:
            data["partner_call"] = partner_call_json(self.partner_call)
        return data

    @classmethod
    def from_json(cls, data: SeatViewJSON, tricks: dict[tuple[int, int], Trick] | None = None) -> SeatView:
        """The view from its wire form, with Card, Suit and Action values (the referee's text: an unknown card
        raises KeyError).

        ``tricks`` caches finished tricks by (hand number, index) across calls: they never change once played.
        """
        card = CARD_BY_TEXT.__getitem__
        hand_number = data["hand_number"]
        parsed: list[Trick] = []
        for i, t in enumerate(data["tricks"]):
            trick = tricks.get((hand_number, i)) if tricks is not None else None
            if trick is None:
                trick = Trick(t["leader"], tuple((c["seat"], card(c["card"])) for c in t["cards"]), t["winner"])
                if tricks is not None:
                    tricks[hand_number, i] = trick
            parsed.append(trick)
        discarded, trump, bids = data["discarded"], data["trump"], data["bids"]
        return cls(
            seat=data["seat"],
            players=data["players"],
            hand_number=hand_number,
            dealer=data["dealer"],
            phase=_PHASES.get(data["phase"]) or Phase(data["phase"]),  # Phase(...) says what is wrong with one
            turn=data["turn"],
            hand=tuple(map(card, data["hand"])),
            upcard=None if data["upcard"] is None else card(data["upcard"]),
            upcard_taken=data["upcard_taken"],
            discarded=None if discarded is None else card(discarded),
            bids=tuple(
                (b["seat"], action_from_json(cast(ActionObject, {k: v for k, v in b.items() if k != "seat"})))
                for b in bids
            ),
            trump=None if trump is None else _SUITS.get(trump) or Suit.parse(trump),
            maker=data["maker"],
            alone=data["alone"],
            defender_alone=data["defender_alone"],
            sitting_out=tuple(data["sitting_out"]),
            tricks=tuple(parsed),
            trick=tuple((c["seat"], card(c["card"])) for c in data["trick"]),
            tricks_won=tuple(data["tricks_won"]),
            scores=tuple(data["scores"]),
            best=None if "best" not in data else best_from_json(data["best"]),
            auction=None if "auction" not in data else auction_from_json(data["auction"]),
            partner_call=None if "partner_call" not in data else partner_call_from_json(data["partner_call"]),
        )

    def sees_own_cards(self) -> bool:
        """Whether the seat sees its cards: not the dealer naming trump blind on the Benny (the hand is empty)."""
        return not (self.phase is Phase.NAME_TRUMP and self.seat == self.dealer)


# A view's phase and trump from their text without calling the enum (~0.5 us each, at every view a bot parses).
_PHASES: dict[str, Phase] = {phase.value: phase for phase in Phase}
_SUITS: dict[str, Suit] = {suit.name: suit for suit in Suit}


class ActionJSON(TypedDict):
    """One action as played, a record's or a view's bid: its seat and the action's wire form (``type`` and its
    fields)."""

    seat: int
    type: str
    card: NotRequired[str]
    suit: NotRequired[str]
    alone: NotRequired[bool]
    tricks: NotRequired[int]  # Hasenpfeffer's bid
    discard: NotRequired[str]  # Hasenpfeffer's declare
    contract: NotRequired[str]  # Nap's bid
    trump: NotRequired[str]  # Nap: the joker led to the first trick names trump
    partner: NotRequired[int]  # six-hand's call for best
    cards: NotRequired[list[str]]  # call-partner's call, six-hand's call for best


class PlayedCardJSON(TypedDict):
    """A card of a trick and who played it."""

    seat: int
    card: str


class TrickJSON(TypedDict):
    """A finished trick: who led, the cards in play order, who won it."""

    leader: int
    cards: list[PlayedCardJSON]
    winner: int


class SeatViewJSON(TypedDict):
    """The wire form of a SeatView (protocol.md section 7): its fields, the values as text, lists and objects."""

    seat: int
    players: int
    hand_number: int
    dealer: int
    phase: str
    turn: int | None
    hand: list[str]
    upcard: str | None
    upcard_taken: bool | None
    discarded: str | None
    bids: list[ActionJSON]
    trump: str | None
    maker: int | None
    alone: bool
    defender_alone: int | None
    sitting_out: list[int]
    tricks: list[TrickJSON]
    trick: list[PlayedCardJSON]
    tricks_won: list[int]
    scores: list[int]
    best: NotRequired[BestViewJSON]
    auction: NotRequired[AuctionViewJSON]
    partner_call: NotRequired[PartnerCallViewJSON]


class AuctionViewJSON(TypedDict):
    """The wire form of an AuctionView."""

    contract: int | None
    forced: bool
    widow_joker: bool
    widow: str | None


class BestViewJSON(TypedDict):
    """The wire form of a BestView."""

    caller: int | None
    calls: list[BestCallJSON]
    passed: list[PassedCardJSON]
    discards: list[str]


class BestCallJSON(TypedDict):
    """An answer on calling for best: who, and whether he called."""

    seat: int
    called: bool


class PassedCardJSON(TypedDict):
    """A card passed on a call for best; the card null where the seat may not know it."""

    giver: int
    receiver: int
    card: str | None


def actions_json(actions: Iterable[tuple[int, Action]]) -> list[ActionJSON]:
    """Actions as played, each with its seat."""
    return [cast(ActionJSON, {"seat": seat, **action.to_json()}) for seat, action in actions]


def action_json(action: Action) -> WireAction:
    """``action.to_json()``, with a card played (most actions are) written straight from the card table: an action's
    wire form on the hot paths, the referee's requests and events and the SDK's replies."""
    if type(action) is Play:
        return {"type": "play", "card": CARD_TEXT[action.card]}
    return action.to_json()


def auction_json(auction: AuctionView) -> AuctionViewJSON:
    """What a seat knows of a Hasenpfeffer auction, as JSON."""
    widow = auction.widow
    return {
        "contract": auction.contract,
        "forced": auction.forced,
        "widow_joker": auction.widow_joker,
        "widow": None if widow is None else CARD_TEXT[widow],
    }


def auction_from_json(data: AuctionViewJSON) -> AuctionView:
    """An AuctionView from its wire form."""
    widow = data["widow"]
    return AuctionView(
        data["contract"], data["forced"], data["widow_joker"], None if widow is None else CARD_BY_TEXT[widow]
    )


def best_json(best: BestView) -> BestViewJSON:
    """What a seat knows of a hand's calls for best, as JSON."""
    return {
        "caller": best.caller,
        "calls": [{"seat": s, "called": called} for s, called in best.calls],
        "passed": [passed_json(p) for p in best.passed],
        "discards": [CARD_TEXT[c] for c in best.discards],
    }


def best_from_json(data: BestViewJSON) -> BestView:
    """A BestView from its wire form (the referee's text)."""
    card = CARD_BY_TEXT.__getitem__
    return BestView(
        data["caller"],
        tuple(BestCall(c["seat"], c["called"]) for c in data["calls"]),
        tuple(
            PassedCard(p["giver"], p["receiver"], None if p["card"] is None else card(p["card"]))
            for p in data["passed"]
        ),
        tuple(map(card, data["discards"])),
    )


def passed_json(passed: PassedCard) -> PassedCardJSON:
    """A card passed on a call for best as JSON (``card`` null where the seat may not know it)."""
    card = passed.card
    return {"giver": passed.giver, "receiver": passed.receiver, "card": None if card is None else CARD_TEXT[card]}


class PartnerCallViewJSON(TypedDict):
    """The wire form of a PartnerCallView."""

    cards: list[str]
    revealed: list[int]
    partner: bool


def partner_call_json(call: PartnerCallView) -> PartnerCallViewJSON:
    """What a seat knows of the maker's call (call-partner Euchre), as JSON."""
    return {"cards": [CARD_TEXT[c] for c in call.cards], "revealed": list(call.revealed), "partner": call.partner}


def partner_call_from_json(data: PartnerCallViewJSON) -> PartnerCallView:
    """A PartnerCallView from its wire form."""
    return PartnerCallView(tuple(CARD_BY_TEXT[c] for c in data["cards"]), tuple(data["revealed"]), data["partner"])


def partner_call_seen(hand: AnyHand, seat: int) -> PartnerCallView | None:
    """The maker's call as ``seat`` may know it (call-partner Euchre); None in the other games."""
    if hand.rules.game != "call_partner":
        return None
    return cast("HandState", hand).partner_call_seen(seat)


def upcard_taken_seen(hand: AnyHand, seat: int) -> bool | None:
    """Whether the dealer took the upcard, as ``seat`` may know it: in call-partner Euchre only the dealer knows
    (a called upcard makes him the partner only if he kept it), elsewhere everyone."""
    if hand.rules.game == "call_partner" and seat != hand.dealer:
        return None
    return hand.upcard_taken


def trick_json(trick: Trick) -> TrickJSON:
    """A finished trick as JSON: leader, cards in play order, winner."""
    return {
        "leader": trick.leader,
        "cards": [{"seat": s, "card": CARD_TEXT[c]} for s, c in trick.cards],
        "winner": trick.winner,
    }


NOT_BIDS = frozenset({"discard", "play", "declare"})
"""The kinds of action a view's ``bids`` leave out: a discard holds a card one seat may not know, and the play has
its own fields. The steps of a call for best are left out too (``HandState.best_steps``): they have theirs.
(Call-partner's ``call_partner`` and ``go_alone`` are public: they are in.)"""


def bidding(hand: AnyHand, start: int = 0) -> tuple[tuple[int, Action], ...]:
    """The bidding of ``hand`` so far as every seat saw it, from its action ``start`` on: its actions less the
    discards, the calls for best and the play."""
    steps = hand.best_steps
    actions = enumerate(hand.actions[start:], start)
    return tuple((s, a) for i, (s, a) in actions if a.type not in NOT_BIDS and (not steps or i not in steps))


def hand_view(hand: AnyHand, seat: int, *, hand_number: int, scores: tuple[int, ...]) -> SeatView:
    """The view of ``seat`` of one hand."""
    return SeatView(
        seat=seat,
        players=hand.players,
        hand_number=hand_number,
        dealer=hand.dealer,
        phase=hand.phase,
        turn=hand.current_seat(),
        hand=tuple(sorted(hand.hands[seat])) if hand.sees_own_cards(seat) else (),
        upcard=hand.deal.upcard,
        upcard_taken=upcard_taken_seen(hand, seat),
        discarded=hand.discarded if seat == hand.discarder else None,
        bids=bidding(hand),
        trump=hand.trump,
        maker=hand.maker,
        alone=hand.alone,
        defender_alone=hand.defender_alone,
        sitting_out=tuple(sorted(hand.out)),
        tricks=tuple(hand.tricks),
        trick=tuple(hand.trick),
        tricks_won=tuple(hand.tricks_won()),
        scores=scores,
        best=best_seen(hand, seat),
        auction=hand.auction_seen(seat),
        partner_call=partner_call_seen(hand, seat),
    )


def best_seen(hand: AnyHand, seat: int) -> BestView | None:
    """The calls for best of ``hand`` as ``seat`` may know them (who called, and a passed card or a discard only
    where ``seat`` gave, received or discarded it); None where the rules have no call for best."""
    if not hand.rules.calls_for_best:
        return None
    return BestView(
        hand.caller,
        tuple(hand.calls),
        tuple(PassedCard(g, r, c if seat in (g, r) else None) for g, r, c in hand.passed),
        tuple(c for s, c in hand.best_discards if s == seat),
    )


def seat_view(game: Game, seat: int) -> SeatView:
    """The view of ``seat`` of the game's current hand."""
    return hand_view(game.hand, seat, hand_number=len(game.hands), scores=game.scores())
