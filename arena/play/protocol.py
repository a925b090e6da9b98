"""The wire protocol's messages as pydantic models: one discriminated union per direction, and the JSON Schema.

Messages are single-frame UTF-8 JSON objects with a ``type``. Outgoing messages are built as plain dicts by the
referee (the hot path) and are checked against these models by the tests; incoming messages are never trusted: these
models define what a bot may send. The referee reads the plain forms of a valid hello or reply by hand
(arena.play.incoming, checked to agree with the models on any frame) and gives every other frame to
``parse_bot_message``, which says what is wrong with it.
"""

from __future__ import annotations

import dataclasses
import json
import types
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    create_model,
    field_validator,
)
from pydantic.json_schema import SkipJsonSchema

from arena import PROTOCOL_VERSION
from arena.engine.actions import PASS, PLAY, Action, parse_action
from arena.engine.cards import Card, Suit
from arena.engine.hand import Phase, Trick
from arena.engine.options import BOOK_OPTIONS, RuleOptions
from arena.engine.view import SeatView
from arena.play import incoming, runner
from arena.play.incoming import MAX_MESSAGE_BYTES, MessageError

CardText = Annotated[str, Field(pattern=r"^([2-9TJQKA][CDHS]|JK)$", description="rank then suit, or JK")]
SuitText = Literal["C", "D", "H", "S"]
NapContractText = Literal["one", "two", "three", "misere", "four", "nap", "wellington", "bluecher"]  # NAP_CONTRACTS
Seat = Annotated[int, Field(ge=0, le=6)]  # seven seats at most (Nap, call-partner Euchre's seven-hand)
CalledCards = Annotated[list[CardText], Field(min_length=1, max_length=2)]


class _Message(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class _Action(BaseModel):
    """Actions come from bots inside their replies, so they are validated strictly too (no "true" for true)."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


# ---- actions (the engine's action objects, unchanged) ----


class PassAction(_Action):
    """Pass in a bidding round, or decline to defend alone."""

    type: Literal["pass"]


class OrderUpAction(_Action):
    """Round 1: order up the upcard's suit (the dealer's accept)."""

    type: Literal["order_up"]
    alone: bool = False


class CallAction(_Action):
    """Round 2: name trump."""

    type: Literal["call"]
    suit: SuitText
    alone: bool = False


class DiscardAction(_Action):
    """The dealer's discard (the upcard itself declines it, where that is allowed)."""

    type: Literal["discard"]
    card: CardText


class DefendAloneAction(_Action):
    """Defend alone against a lone bid."""

    type: Literal["defend_alone"]


class NameTrumpAction(_Action):
    """Name trump when the Benny is turned up."""

    type: Literal["name_trump"]
    suit: SuitText


class PlayAction(_Action):
    """Play a card; in Nap, the declarer's first lead of the joker names trump with it."""

    type: Literal["play"]
    card: CardText
    trump: SuitText | SkipJsonSchema[None] = Field(
        default=None,
        description="Nap: the trump suit, named by the declarer leading the joker to the first trick; absent (never "
        "null) on every other play",
    )

    @field_validator("trump", mode="before")
    @classmethod
    def _trump_not_null(cls, value: object) -> object:
        if value is None:
            raise ValueError("trump is absent where none is named, never null")
        return value


class CallForBestAction(_Action):
    """A lone player (or lone defender) calls for his partner's best card: with the card he discards first, or with
    none where he discards after receiving it (the rule option best_order)."""

    type: Literal["call_for_best"]
    card: CardText | SkipJsonSchema[None] = Field(
        default=None, description="Absent (never null) where the caller discards after receiving"
    )
    partner: Seat | SkipJsonSchema[None] = Field(
        default=None, description="Six-hand, lone_call_for_best = one: the partner called (else absent, never null)"
    )
    cards: CalledCards | SkipJsonSchema[None] = Field(
        default=None,
        description="Six-hand, lone_call_for_best = each: a card put away for each partner (else absent, never null)",
    )

    @field_validator("card", "partner", "cards", mode="before")
    @classmethod
    def _card_not_null(cls, value: object) -> object:
        if value is None:
            raise ValueError("card, partner and cards are absent where there are none, never null")
        return value


class GiveBestAction(_Action):
    """The caller's partner passes him a card, face down."""

    type: Literal["give_best"]
    card: CardText


class CallPartnerAction(_Action):
    """Call-partner Euchre: the maker calls one card (two under called_cards = 2); its holder is his partner."""

    type: Literal["call_partner"]
    cards: CalledCards


class GoAloneAction(_Action):
    """Call-partner Euchre: the maker calls no partner (nobody sits out)."""

    type: Literal["go_alone"]


class BidAction(_Action):
    """Hasenpfeffer: bid a number of tricks (above the bids so far)."""

    type: Literal["bid"]
    tricks: Annotated[int, Field(ge=1, le=6)]


class DeclareAction(_Action):
    """Hasenpfeffer: the high bidder, holding the widow, names trump and puts one of his seven cards away."""

    type: Literal["declare"]
    suit: SuitText
    discard: CardText


class NapBidAction(_Action):
    """Nap: bid a contract, higher than the bids so far (One only as the dealer's forced bid)."""

    type: Literal["nap_bid"]
    contract: NapContractText


ActionModel = Annotated[
    PassAction
    | OrderUpAction
    | CallAction
    | DiscardAction
    | DefendAloneAction
    | NameTrumpAction
    | PlayAction
    | CallForBestAction
    | GiveBestAction
    | BidAction
    | DeclareAction
    | NapBidAction
    | CallPartnerAction
    | GoAloneAction,
    Field(discriminator="type"),
]


# ---- bot -> referee ----


class BotMessage(BaseModel):
    """Messages from bots are validated strictly: no coercion of "1" to 1 or of 1 to true."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


def _hello_fields() -> dict[str, Any]:
    """The hello's fields as pydantic field definitions, from its one definition (arena.play.incoming.Hello)."""
    hints = get_type_hints(incoming.Hello)
    return {
        f.name: (hints[f.name], Field(default=f.default, **f.metadata))  # MISSING: required
        if f.default is not dataclasses.MISSING
        else (hints[f.name], Field(**f.metadata))
        for f in dataclasses.fields(incoming.Hello)
    }


class _HelloType(BotMessage):
    type: Literal["hello"]


Hello: type[BotMessage] = create_model(
    "Hello",
    __base__=_HelloType,
    __doc__="The bot's first message: who it is, which protocol it speaks, and the seat's secret token.",
    __module__=__name__,
    **_hello_fields(),
)
"""A hello on the wire: ``type`` and arena.play.incoming.Hello's fields, with their bounds."""


class ActionReply(BotMessage):
    """The bot's answer to an ``act`` request."""

    type: Literal["action"]
    request_id: int
    action: ActionModel


BOT_MESSAGE: TypeAdapter[BotMessage] = TypeAdapter(Annotated[Hello | ActionReply, Field(discriminator="type")])
"""A frame from a bot: a Hello or an ActionReply (the two kinds of BotMessage)."""


# ---- referee -> bot ----


class TrickModel(_Message):
    """A finished trick."""

    leader: Seat
    cards: list[SeatCard]
    winner: Seat


class SeatCard(_Message):
    """A card played by a seat."""

    seat: Seat
    card: CardText


class SeatPass(_Message):
    """A pass in a bidding round, or a defender declining to defend alone, with the seat that took it."""

    seat: Seat
    type: Literal["pass"]


class SeatOrderUp(_Message):
    """An order up (round 1) with the seat that took it."""

    seat: Seat
    type: Literal["order_up"]
    alone: bool


class SeatCall(_Message):
    """A call (round 2) with the seat that took it."""

    seat: Seat
    type: Literal["call"]
    suit: SuitText
    alone: bool


class SeatDefendAlone(_Message):
    """A defender going alone against a lone bid, with its seat."""

    seat: Seat
    type: Literal["defend_alone"]


class SeatNameTrump(_Message):
    """Trump named by the dealer on a Benny upcard (by Hasenpfeffer's high bidder, the widow unused), with his
    seat."""

    seat: Seat
    type: Literal["name_trump"]
    suit: SuitText


class SeatBid(_Message):
    """A Hasenpfeffer bid, with the seat that made it."""

    seat: Seat
    type: Literal["bid"]
    tricks: int


class SeatNapBid(_Message):
    """A Nap bid, with the seat that made it."""

    seat: Seat
    type: Literal["nap_bid"]
    contract: NapContractText


class SeatCallPartner(_Message):
    """A call-partner maker's call, with his seat."""

    seat: Seat
    type: Literal["call_partner"]
    cards: CalledCards


class SeatGoAlone(_Message):
    """A call-partner maker going alone, with his seat."""

    seat: Seat
    type: Literal["go_alone"]


# A bid in a view: every action of the hand but discards and plays, with the seat that took it.
SeatAction = Annotated[
    SeatPass
    | SeatOrderUp
    | SeatCall
    | SeatDefendAlone
    | SeatNameTrump
    | SeatBid
    | SeatNapBid
    | SeatCallPartner
    | SeatGoAlone,
    Field(discriminator="type"),
]


def _wire_type(hint: Any) -> Any:
    """The wire type of a field of SeatView (arena.engine.view) or of a message the referee types as a TypedDict,
    from its annotation."""
    origin, args = get_origin(hint), get_args(hint)
    if origin is Annotated:  # SeatNumber
        return Seat
    if origin in (Union, types.UnionType):
        (inner,) = [a for a in args if a is not type(None)]
        return _wire_type(inner) | None
    if origin is tuple and args[-1] is Ellipsis:
        item = args[0]
        pairs: dict[object, object] = {Action: SeatAction, Card: SeatCard}  # a seat and what it did
        return list[pairs[get_args(item)[1]] if get_origin(item) is tuple else _wire_type(item)]  # type: ignore[misc]
    if isinstance(hint, type) and issubclass(hint, tuple) and hint is not Trick:  # a NamedTuple of the view
        return _tuple_model(hint)
    return {int: int, bool: bool, str: str, Card: CardText, Suit: SuitText, Trick: TrickModel, Phase: _PHASES}[hint]


_TUPLE_MODELS: dict[type, type[_Message]] = {}


def _tuple_model(definition: type) -> type[_Message]:
    """The wire model of a NamedTuple a view holds (a call for best, a passed card): its fields by name."""
    if definition not in _TUPLE_MODELS:
        _TUPLE_MODELS[definition] = create_model(
            definition.__name__,
            __base__=_Message,
            __doc__=definition.__doc__,
            __module__=__name__,
            **_wire_fields(definition),
        )
    return _TUPLE_MODELS[definition]


_PHASES = Literal[tuple(phase.value for phase in Phase)]  # type: ignore[valid-type]


def _absent_not_null(schema: dict[str, Any]) -> None:
    """A field that is either sent with a value or left out: no ``null`` and no ``default: null`` in the schema."""
    schema.pop("default", None)


def _wire_fields(definition: type) -> dict[str, Any]:
    """The fields of ``definition`` (a NamedTuple or TypedDict) as pydantic field definitions, with their wire types:
    each required, but a NamedTuple's field with a default (None), which is absent (never null) where it is None."""
    optional = getattr(definition, "_field_defaults", {})
    fields: dict[str, Any] = {}
    for name, hint in get_type_hints(definition, include_extras=True).items():
        if name in optional:  # X | None = None: X when present
            (inner,) = [a for a in get_args(hint) if a is not type(None)]
            fields[name] = (_wire_type(inner), Field(default=None, json_schema_extra=_absent_not_null))
        else:
            fields[name] = (_wire_type(hint), ...)
    return fields


ViewModel: type[_Message] = create_model(
    "ViewModel",
    __base__=_Message,
    __doc__="Everything the seat may know about the current hand (docs/rules.md, what a player may know).",
    __module__=__name__,
    **_wire_fields(SeatView),
)
"""The view in a request: SeatView's fields (arena.engine.view), each with its wire type."""


class HandStartEvent(_Message):
    """A new hand: the seat's own cards (five; six in Hasenpfeffer), the upcard (null in Hasenpfeffer), the dealer,
    the scores before it."""

    type: Literal["hand_start"]
    hand_number: int
    dealer: Seat
    hand: list[CardText]
    upcard: CardText | None
    scores: list[int]


class OrderUpAsSent(OrderUpAction):
    """Round 1: order up the upcard's suit, as the referee writes it (in ``legal`` and in events): ``alone`` stated."""

    alone: bool


class CallAsSent(CallAction):
    """Round 2: name trump, as the referee writes it (in ``legal`` and in events): ``alone`` stated."""

    alone: bool


# Actions as the referee sends them: ``alone`` always stated (a bot may leave it out of its reply).
SentActionModel = Annotated[
    PassAction
    | OrderUpAsSent
    | CallAsSent
    | DiscardAction
    | DefendAloneAction
    | NameTrumpAction
    | PlayAction
    | CallForBestAction
    | GiveBestAction
    | BidAction
    | DeclareAction
    | NapBidAction
    | CallPartnerAction
    | GoAloneAction,
    Field(discriminator="type"),
]
# The dealer's discard is never told as an action event (an exchange event tells it, the card to the dealer alone).
PublicActionModel = Annotated[
    PassAction
    | OrderUpAsSent
    | CallAsSent
    | DefendAloneAction
    | NameTrumpAction
    | PlayAction
    | BidAction
    | NapBidAction
    | CallPartnerAction
    | GoAloneAction,
    Field(discriminator="type"),
]


class ActionEvent(_Message):
    """A public action: a bid, a defend-alone answer, trump named on the Benny or a card played; never a discard."""

    type: Literal["action"]
    seat: Seat
    action: PublicActionModel


class CardsEvent(_Message):
    """The dealer's cards, once he has named trump on the Benny (he names it before seeing them)."""

    type: Literal["cards"]
    hand: list[CardText]


class ExchangeEvent(_Message):
    """The dealer's exchange: whether he took the upcard (null in call-partner Euchre to all but the dealer); the
    discard is shown to the dealer alone."""

    type: Literal["exchange"]
    seat: Seat
    took_upcard: bool | None
    discard: CardText | None


class TrickEvent(_Message):
    """A trick was completed."""

    type: Literal["trick"]
    leader: Seat
    cards: list[SeatCard]
    winner: Seat


class HandEndEvent(_Message):
    """A hand ended: who made what, tricks won and points per seat, the scores after it."""

    type: Literal["hand_end"]
    hand_number: int
    passed_out: bool
    maker: Seat | None
    trump: SuitText | None
    alone: bool
    defender_alone: Seat | None
    tricks_won: list[int]
    points: list[int]
    scores: list[int]
    partners: list[Seat] | SkipJsonSchema[None] = Field(
        default=None,
        description="Call-partner Euchre: who held a called card (empty: nobody); absent, never null, elsewhere",
        json_schema_extra=_absent_not_null,
    )


class CallForBestEvent(_Message):
    """A lone player's (or lone defender's) answer on calling for his partner's best: whether he called, and the
    card he discarded first, shown to him alone."""

    type: Literal["call_for_best"]
    seat: Seat
    called: bool
    discard: CardText | None
    partner: Seat | SkipJsonSchema[None] = Field(
        default=None,
        description="Six-hand, lone_call_for_best = one: the partner called; absent, never null, elsewhere",
        json_schema_extra=_absent_not_null,
    )
    discards: list[CardText] | None = Field(
        default=None,
        description="Six-hand, lone_call_for_best = each: the cards put away, to the caller alone (null to the "
        "others); absent elsewhere",
    )


class GiveBestEvent(_Message):
    """A card passed on a call for best: shown to the giver and the receiver alone."""

    type: Literal["give_best"]
    seat: Seat
    receiver: Seat
    card: CardText | None


class BestDiscardEvent(_Message):
    """The caller's discard after receiving the card (best_order = "receive_first"): shown to him alone."""

    type: Literal["best_discard"]
    seat: Seat
    card: CardText | None


class ContractEvent(_Message):
    """Hasenpfeffer: the auction is over: the high bidder and his bid (null, null when the hand is thrown in),
    whether it is the joker holder's forced bid of three, whether the joker was the widow (the hand thrown in)."""

    type: Literal["contract"]
    seat: Seat | None
    bid: int | None
    forced: bool
    widow_joker: bool


class WidowEvent(_Message):
    """Hasenpfeffer: the widow, told to the high bidder alone as he takes it."""

    type: Literal["widow"]
    card: CardText


class PartnerRevealedEvent(_Message):
    """Call-partner Euchre: a called card was played, showing its holder as the maker's partner (to every seat)."""

    type: Literal["partner_revealed"]
    seat: Seat
    card: CardText


class DeclareEvent(_Message):
    """Hasenpfeffer: the high bidder named trump and put a card away, shown to him alone."""

    type: Literal["declare"]
    seat: Seat
    suit: SuitText
    discard: CardText | None


Event = Annotated[
    HandStartEvent
    | ActionEvent
    | CardsEvent
    | ExchangeEvent
    | TrickEvent
    | HandEndEvent
    | CallForBestEvent
    | GiveBestEvent
    | BestDiscardEvent
    | ContractEvent
    | WidowEvent
    | DeclareEvent
    | PartnerRevealedEvent,
    Field(discriminator="type"),
]


class Welcome(_Message):
    """The referee accepts the hello."""

    type: Literal["welcome"]
    protocol: int
    match_id: str
    name: str


class TimeControlModel(_Message):
    """The time control: a bank per game, an increment per decision, a hard cap per decision (milliseconds)."""

    bank_ms: int
    increment_ms: int
    max_decision_ms: int


def _no_bool(value: object) -> object:
    if type(value) is bool:
        raise ValueError("a bool is no integer")
    return value


def option_types() -> dict[str, Any]:
    """Each of RuleOptions' fields (arena.engine.options) as a strict pydantic type: its hint, and for a Literal of
    integers a refusal of bools, which strict mode lets through a Literal (True == 1)."""
    return {
        name: Annotated[hint, BeforeValidator(_no_bool)]
        if get_origin(hint) is Literal and any(type(value) is int for value in get_args(hint))
        else hint
        for name, hint in get_type_hints(RuleOptions).items()
        if name != "__pydantic_config__"
    }


def _option_fields() -> dict[str, Any]:
    """RuleOptions' fields as pydantic field definitions: the rule book's seven required, the others sent where
    they belong to the game or differ from their defaults (``Rules.told_options``), absent (never null) elsewhere."""
    types = option_types()
    return {
        f.name: (types[f.name], ...)
        if f.name in BOOK_OPTIONS
        else (types[f.name], Field(default=None, json_schema_extra=_absent_not_null))
        for f in dataclasses.fields(RuleOptions)
    }


RulesModel: type[_Message] = create_model(
    "RulesModel",
    __base__=_Message,
    __doc__="All rule options, resolved.",
    __module__=__name__,
    **_option_fields(),
)
"""The rules in ``game_start``: arena.engine.options.RuleOptions' fields, each with its type."""


class GameStart(_Message):
    """A new game of the match: the seat this bot plays, the players by seat, the rules and the clock."""

    type: Literal["game_start"]
    game: int
    seat: Seat
    players: list[str]
    variant: str
    options: RulesModel
    time: TimeControlModel


class Events(_Message):
    """Events the seat has not been told yet, in order."""

    type: Literal["events"]
    events: list[Event]


class Act(_Message):
    """A decision request: pending events first, then the seat's view, its legal actions and its clock."""

    type: Literal["act"]
    request_id: int
    events: list[Event]
    view: ViewModel | SkipJsonSchema[None] = Field(
        default=None,
        description="Absent (never null) from some requests when the hello said view: false",
        json_schema_extra=_absent_not_null,
    )
    legal: list[SentActionModel]
    time_left_ms: int

    @field_validator("view", mode="before")
    @classmethod
    def _view_not_null(cls, value: object) -> object:
        """The view is sent or left out, never null (the default None stands for "left out")."""
        if value is None:
            raise ValueError("view is absent when not sent, never null")
        return value


Forfeit: type[_Message] = create_model(
    "Forfeit",
    __base__=_Message,
    __doc__="Why a game was lost without being played out.",
    __module__=__name__,
    **_wire_fields(runner.Forfeit),
)
"""A forfeit in ``game_end``: arena.play.runner.Forfeit's fields, each with its wire type."""


class GameEnd(_Message):
    """A game ended: final scores per seat, the winning seats, a forfeit if there was one."""

    type: Literal["game_end"]
    game: int
    final_scores: list[int]
    winners: list[Seat]
    forfeit: Forfeit | None
    rubber_points: list[int] | None = Field(description="Per seat with rubber on, null otherwise; always present")


class ViolationNotice(_Message):
    """The bot broke a rule of the protocol; it is told what and how many strikes it has."""

    type: Literal["violation"]
    kind: str
    detail: str
    strikes: int
    max_strikes: int


class MatchEnd(_Message):
    """The match is over; the bot should exit."""

    type: Literal["match_end"]
    reason: str


RefereeMessage = Annotated[
    Welcome | GameStart | Events | Act | GameEnd | ViolationNotice | MatchEnd, Field(discriminator="type")
]
REFEREE_MESSAGE: TypeAdapter[Welcome | GameStart | Events | Act | GameEnd | ViolationNotice | MatchEnd] = TypeAdapter(
    RefereeMessage
)


def parse_bot_message(raw: bytes) -> BotMessage:
    """Parse one frame from a bot: size-capped, UTF-8 JSON, schema-valid; raise MessageError otherwise."""
    if len(raw) > MAX_MESSAGE_BYTES:
        raise MessageError("oversized", f"message of {len(raw)} bytes exceeds the limit of {MAX_MESSAGE_BYTES}")
    try:
        message = BOT_MESSAGE.validate_json(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        if first["type"] == "json_invalid":
            raise MessageError("malformed", f"not UTF-8 JSON: {first['msg']}") from None
        if (constant := _non_json_constant(raw)) is not None:  # the validator's parser reads NaN and Infinity
            raise MessageError("malformed", f"not JSON: {constant} is not a JSON value") from None
        where = _location(first["loc"])
        raise MessageError("schema", f"invalid message at {where}: {first['msg']}") from None
    # Valid, and so small and shallow: now the one thing the validator lets pass (the last of two equal keys wins).
    json.loads(raw, object_pairs_hook=_unique_keys)
    return message


def _non_json_constant(raw: bytes) -> str | None:
    """``NaN``, ``Infinity`` or ``-Infinity`` where ``raw`` has one as a value (JSON has none of them), else None."""
    found: list[str] = []

    def constant(name: str) -> float:
        found.append(name)
        return 0.0

    try:
        json.loads(raw, parse_constant=constant)
    except (ValueError, RecursionError):
        return None
    return found[0] if found else None


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """An object's members, refusing a key that occurs twice (``{"action": A, "action": B}`` is ambiguous)."""
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))  # type: ignore[func-returns-value]
        raise MessageError("malformed", f"the key {twice!r} occurs twice in one object")
    return found


# pydantic's tags in a location: the bot messages' types and the actions' (the ``type`` of each model of a union)
_TAGS = frozenset(
    get_args(model.model_fields["type"].annotation)[0]
    for model in (Hello, ActionReply, *get_args(get_args(ActionModel)[0]))
)


def _location(loc: tuple[int | str, ...]) -> str:
    """A validation error's path without pydantic's union tags (``action.card``, not ``action.action.play.card``)."""
    parts = list(loc)
    if parts and parts[0] in _TAGS:
        parts = parts[1:]
    if len(parts) > 1 and parts[0] == "action" and parts[1] in _TAGS:
        del parts[1]
    return ".".join(str(p) for p in parts) or "message"


def to_engine_action(model: BaseModel) -> Action:
    """Convert a validated action model into the engine's action (the one place where the two meet)."""
    if isinstance(model, PlayAction) and model.trump is None:
        return PLAY[Card.parse(model.card)]
    if isinstance(model, PassAction):
        return PASS
    return parse_action({key: value for key, value in model.__dict__.items() if value is not None})  # card: absent


def json_schema() -> dict[str, object]:
    """The JSON Schema of every message in both directions, generated from the models."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Euchre Arena wire protocol",
        "description": f"Protocol version {PROTOCOL_VERSION}. See protocol.md.",
        "bot_to_referee": BOT_MESSAGE.json_schema(mode="serialization"),
        "referee_to_bot": REFEREE_MESSAGE.json_schema(mode="serialization"),
    }


TrickModel.model_rebuild()
