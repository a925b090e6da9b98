"""Actions: small immutable values that are also the wire format.

``{"type":"pass"}``, ``{"type":"order_up","alone":false}``, ``{"type":"call","suit":"H","alone":false}``,
``{"type":"discard","card":"9C"}``, ``{"type":"defend_alone"}``, ``{"type":"name_trump","suit":"S"}``,
``{"type":"play","card":"JH"}``; Railroad's ``{"type":"call_for_best","card":"9C"}`` (or without the card, where
the caller discards after receiving) and ``{"type":"give_best","card":"AH"}``; Hasenpfeffer's
``{"type":"bid","tricks":4}`` and ``{"type":"declare","suit":"H","discard":"9C"}``; Nap's
``{"type":"nap_bid","contract":"misere"}`` and its declarer's first lead of the joker, naming trump,
``{"type":"play","card":"JK","trump":"S"}``; six-hand's call for best naming the partner,
``{"type":"call_for_best","card":"9C","partner":2}``, or discarding one card for each partner,
``{"type":"call_for_best","cards":["9C","TD"]}``; call-partner's ``{"type":"call_partner","cards":["AS"]}`` and
``{"type":"go_alone"}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, NotRequired, TypedDict

from arena.engine.cards import CARD_BY_TEXT, JOKER, JOKER_ID, Card, Suit
from arena.errors import InvalidActionError

WireAction = dict[str, str | bool | int | list[str]]
"""An action's wire form as the engine writes it: its ``type``, and its fields' values (a card's or a suit's text,
``alone``, a list of cards' texts)."""


class ActionObject(TypedDict):
    """An action's wire form as the referee sends it (the legal actions, the actions of events and views): its
    ``type`` and the fields of that type."""

    type: str
    card: NotRequired[str]
    suit: NotRequired[str]
    alone: NotRequired[bool]
    tricks: NotRequired[int]
    discard: NotRequired[str]
    contract: NotRequired[str]
    trump: NotRequired[str]
    partner: NotRequired[int]
    cards: NotRequired[list[str]]


@dataclass(frozen=True, slots=True)
class Pass:
    """Pass in a bidding round, or decline to defend alone."""

    type: ClassVar[str] = "pass"

    def to_json(self) -> WireAction:
        """The wire form."""
        return {"type": "pass"}


@dataclass(frozen=True, slots=True)
class OrderUp:
    """Round 1: order the upcard's suit as trump (the dealer's "accept")."""

    alone: bool = False
    type: ClassVar[str] = "order_up"

    def to_json(self) -> WireAction:
        """The wire form."""
        return {"type": "order_up", "alone": self.alone}


@dataclass(frozen=True, slots=True)
class Call:
    """Round 2: name a trump suit other than the turned-down one."""

    suit: Suit
    alone: bool = False
    type: ClassVar[str] = "call"

    def to_json(self) -> WireAction:
        """The wire form."""
        return {"type": "call", "suit": str(self.suit), "alone": self.alone}


@dataclass(frozen=True, slots=True)
class Discard:
    """The dealer's discard after taking the upcard (discarding the upcard declines it)."""

    card: Card
    type: ClassVar[str] = "discard"

    def to_json(self) -> WireAction:
        """The wire form."""
        return {"type": "discard", "card": str(self.card)}


@dataclass(frozen=True, slots=True)
class DefendAlone:
    """A defender's answer to a lone bid: play alone against it."""

    type: ClassVar[str] = "defend_alone"

    def to_json(self) -> WireAction:
        """The wire form."""
        return {"type": "defend_alone"}


@dataclass(frozen=True, slots=True)
class NameTrump:
    """The dealer names trump when the Benny is turned up."""

    suit: Suit
    type: ClassVar[str] = "name_trump"

    def to_json(self) -> WireAction:
        """The wire form."""
        return {"type": "name_trump", "suit": str(self.suit)}


@dataclass(frozen=True, slots=True)
class Play:
    """Play a card to the trick."""

    card: Card
    type: ClassVar[str] = "play"

    def to_json(self) -> WireAction:
        """The wire form."""
        return {"type": "play", "card": str(self.card)}


@dataclass(frozen=True, slots=True)
class CallForBest:
    """A lone player calls for his partner's best card, discarding ``card`` first (or, with no card, after he has
    received it: the order is the rule option ``best_order``). Six-hand's lone maker names the ``partner`` he calls
    (``lone_call_for_best = "one"``), or discards ``cards``, one for each partner (``"each"``)."""

    card: Card | None = None
    partner: int | None = None
    cards: tuple[Card, ...] = ()
    type: ClassVar[str] = "call_for_best"

    def to_json(self) -> WireAction:
        """The wire form."""
        data: WireAction = {"type": "call_for_best"}
        if self.card is not None:
            data["card"] = str(self.card)
        if self.partner is not None:
            data["partner"] = self.partner
        if self.cards:
            data["cards"] = [str(c) for c in self.cards]
        return data


@dataclass(frozen=True, slots=True)
class GiveBest:
    """The partner of a player who called for best passes him ``card``, face down."""

    card: Card
    type: ClassVar[str] = "give_best"

    def to_json(self) -> WireAction:
        """The wire form."""
        return {"type": "give_best", "card": str(self.card)}


@dataclass(frozen=True, slots=True)
class Bid:
    """Undertake that one's side takes ``tricks`` tricks, with a trump suit named later."""

    tricks: int
    type: ClassVar[str] = "bid"

    def to_json(self) -> WireAction:
        """The wire form."""
        return {"type": "bid", "tricks": self.tricks}


@dataclass(frozen=True, slots=True)
class Declare:
    """The high bidder, holding the widow, names trump and puts one of his seven cards away."""

    suit: Suit
    discard: Card
    type: ClassVar[str] = "declare"

    def to_json(self) -> WireAction:
        """The wire form."""
        return {"type": "declare", "suit": str(self.suit), "discard": str(self.discard)}


NAP_CONTRACTS = ("one", "two", "three", "misere", "four", "nap", "wellington", "bluecher")
"""Nap's bids, lowest first (docs/rules.md section 15): One is only the dealer's forced bid."""
NAP_NAMES = {
    **{c: c.capitalize() for c in ("one", "two", "three", "four", "nap", "wellington")},
    **{"misere": "Misère", "bluecher": "Blücher"},
}
"""Nap's contracts as a person reads them."""


@dataclass(frozen=True, slots=True)
class NapBid:
    """Nap: undertake a contract of NAP_CONTRACTS, playing alone against every other player."""

    contract: str
    type: ClassVar[str] = "nap_bid"

    def to_json(self) -> WireAction:
        """The wire form."""
        return {"type": "nap_bid", "contract": self.contract}


@dataclass(frozen=True, slots=True)
class JokerLead:
    """Nap: the declarer leads the joker to the first trick and names the trump suit with it."""

    trump: Suit
    type: ClassVar[str] = "play"

    @property
    def card(self) -> Card:
        """The card played: the joker."""
        return JOKER

    def to_json(self) -> WireAction:
        """The wire form."""
        return {"type": "play", "card": "JK", "trump": str(self.trump)}


@dataclass(frozen=True, slots=True)
class CallPartner:
    """Call-partner Euchre: the maker calls ``cards`` (one, or two under ``called_cards = 2``, in card order);
    whoever holds one is his secret partner."""

    cards: tuple[Card, ...]
    type: ClassVar[str] = "call_partner"

    def to_json(self) -> WireAction:
        """The wire form."""
        return {"type": "call_partner", "cards": [str(c) for c in self.cards]}


@dataclass(frozen=True, slots=True)
class GoAlone:
    """Call-partner Euchre: the maker calls no partner and plays alone (nobody sits out)."""

    type: ClassVar[str] = "go_alone"

    def to_json(self) -> WireAction:
        """The wire form."""
        return {"type": "go_alone"}


Action = (
    Pass
    | OrderUp
    | Call
    | Discard
    | DefendAlone
    | NameTrump
    | Play
    | CallForBest
    | GiveBest
    | Bid
    | Declare
    | NapBid
    | JokerLead
    | CallPartner
    | GoAlone
)

# Shared instances: legal-action lists are built from these without allocating.
PASS = Pass()
DEFEND_ALONE = DefendAlone()
ORDER_UP = (OrderUp(False), OrderUp(True))
CALL = tuple((Call(Suit(s), False), Call(Suit(s), True)) for s in range(4))
NAME_TRUMP = tuple(NameTrump(Suit(s)) for s in range(4))
PLAY = tuple(Play(Card(c)) for c in range(JOKER_ID + 1))
DISCARD = tuple(Discard(Card(c)) for c in range(JOKER_ID + 1))
CALL_FOR_BEST = tuple(CallForBest(Card(c)) for c in range(JOKER_ID + 1))
CALL_FOR_BEST_FIRST = CallForBest()  # receive first, discard after
GIVE_BEST = tuple(GiveBest(Card(c)) for c in range(JOKER_ID + 1))
BIDS = tuple(Bid(n) for n in range(7))  # BIDS[n]: Hasenpfeffer's bid of n tricks (1 to 6; 0 is never legal)
NAP_BIDS = tuple(NapBid(c) for c in NAP_CONTRACTS)  # NAP_BIDS[i]: the bid of NAP_CONTRACTS[i]
JOKER_LEADS = tuple(JokerLead(Suit(s)) for s in range(4))
GO_ALONE = GoAlone()
CALL_PARTNER = tuple(CallPartner((Card(c),)) for c in range(JOKER_ID + 1))  # CALL_PARTNER[c]: a call of one card

_FIELDS: dict[str, frozenset[str]] = {
    "pass": frozenset({"type"}),
    "order_up": frozenset({"type", "alone"}),
    "call": frozenset({"type", "suit", "alone"}),
    "discard": frozenset({"type", "card"}),
    "defend_alone": frozenset({"type"}),
    "name_trump": frozenset({"type", "suit"}),
    "play": frozenset({"type", "card", "trump"}),
    "call_for_best": frozenset({"type", "card", "partner", "cards"}),
    "give_best": frozenset({"type", "card"}),
    "bid": frozenset({"type", "tricks"}),
    "declare": frozenset({"type", "suit", "discard"}),
    "nap_bid": frozenset({"type", "contract"}),
    "call_partner": frozenset({"type", "cards"}),
    "go_alone": frozenset({"type"}),
}


def parse_action(data: object) -> Action:
    """Build an action from its JSON object, or raise InvalidActionError saying what is wrong."""
    if not isinstance(data, dict):
        raise InvalidActionError(f"an action is a JSON object, got {type(data).__name__}")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise InvalidActionError(f"unknown action type {kind!r} (known: {', '.join(_FIELDS)})")
    extra = set(data) - _FIELDS[kind]
    if extra:
        raise InvalidActionError(f"action {kind!r} has unexpected field(s): {', '.join(sorted(extra))}")
    if kind == "pass":
        return PASS
    if kind == "defend_alone":
        return DEFEND_ALONE
    if kind == "order_up":
        return ORDER_UP[_alone(data)]
    if kind == "call":
        return CALL[Suit.parse(_field(data, "suit"))][_alone(data)]
    if kind == "name_trump":
        return NAME_TRUMP[Suit.parse(_field(data, "suit"))]
    if kind == "call_for_best":
        if "partner" in data or "cards" in data:  # six-hand's
            return _six_hand_call(data)
        return CALL_FOR_BEST[Card.parse(data["card"])] if "card" in data else CALL_FOR_BEST_FIRST
    if kind == "call_partner":
        cards = _cards(data)
        return CALL_PARTNER[cards[0]] if len(cards) == 1 else CallPartner(cards)
    if kind == "go_alone":
        return GO_ALONE
    if kind == "bid":
        tricks = _field(data, "tricks")
        if type(tricks) is not int or not 1 <= tricks < len(BIDS):
            raise InvalidActionError(f"a bid is a number of tricks from 1 to 6, got {tricks!r}")
        return BIDS[tricks]
    if kind == "declare":
        return Declare(Suit.parse(_field(data, "suit")), Card.parse(_field(data, "discard")))
    if kind == "nap_bid":
        contract = _field(data, "contract")
        if contract not in NAP_CONTRACTS:
            raise InvalidActionError(f"a Nap contract is one of {', '.join(NAP_CONTRACTS)}, got {contract!r}")
        return NAP_BIDS[NAP_CONTRACTS.index(contract)]
    card = Card.parse(_field(data, "card"))
    if "trump" in data:
        if kind != "play" or card != JOKER_ID:
            raise InvalidActionError(f"only the joker names trump as it is played, not {card}")
        return JOKER_LEADS[Suit.parse(data["trump"])]
    if kind == "give_best":
        return GIVE_BEST[card]
    return PLAY[card] if kind == "play" else DISCARD[card]


_PARSED: dict[tuple[object, ...], Action] = {}


def action_from_json(data: ActionObject) -> Action:
    """``parse_action`` of an action the referee wrote, cached: the same few dozen objects recur all game."""
    if len(data) == 2 and data.get("type") == "play":  # most of them: a card played
        card = CARD_BY_TEXT.get(data["card"])
        if card is not None:
            return PLAY[card]
    key = tuple(sorted((k, tuple(v) if type(v) is list else v) for k, v in data.items()))  # (a list of cards)
    action = _PARSED.get(key)
    if action is None:
        action = _PARSED[key] = parse_action(data)
    return action


def _cards(data: Mapping[str, object]) -> tuple[Card, ...]:
    """The field ``cards``: a list of one or two card texts, in card order."""
    cards = _field(data, "cards")
    if not isinstance(cards, list) or not 1 <= len(cards) <= 2:
        raise InvalidActionError(f"field 'cards' must be a list of one or two cards, got {cards!r}")
    return tuple(sorted(Card.parse(c) for c in cards))


def _six_hand_call(data: Mapping[str, object]) -> CallForBest:
    """Six-hand's call for best: a discard and the partner named, or a discard for each partner."""
    if "cards" in data:
        if "card" in data or "partner" in data:
            raise InvalidActionError("a call for best discards 'cards' (one for each partner) or names a 'partner'")
        return CallForBest(cards=_cards(data))
    partner = data["partner"]
    if type(partner) is not int or not 0 <= partner < 8:
        raise InvalidActionError(f"field 'partner' must be a seat, got {partner!r}")
    return CallForBest(Card.parse(_field(data, "card")), partner)


def _field(data: Mapping[str, object], name: str) -> object:
    if name not in data:
        raise InvalidActionError(f"action {data['type']!r} needs field {name!r}")
    return data[name]


def _alone(data: Mapping[str, object]) -> bool:
    alone = data.get("alone", False)
    if not isinstance(alone, bool):
        raise InvalidActionError(f"field 'alone' must be true or false, got {alone!r}")
    return alone
