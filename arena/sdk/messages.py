"""The referee's messages to a bot (protocol.md sections 3, 5 and 6), as types to read them by.

A message is parsed JSON; the SDK reads it as the protocol says it is, without checking it (the referee wrote it,
and a decision's time is the bot's). The SDK imports this module for its type checks alone, so a bot process does
not load it.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from arena.engine.actions import ActionObject
from arena.engine.options import OptionValue
from arena.engine.view import PlayedCardJSON, SeatViewJSON


class Welcome(TypedDict):
    """The answer to a hello: the match and the bot's name in it."""

    type: Literal["welcome"]
    protocol: int
    match_id: str
    name: str


class GameStart(TypedDict):
    """A game begins: the seat's place, the players' names, the rules, the clock."""

    type: Literal["game_start"]
    game: int
    seat: int
    players: list[str]
    variant: str
    options: dict[str, OptionValue]
    time: dict[str, int]  # bank_ms, increment_ms, max_decision_ms


class HandStart(TypedDict):
    """A hand is dealt: the seat's own cards (none for a dealer naming trump on the Benny), the upcard."""

    type: Literal["hand_start"]
    hand_number: int
    dealer: int
    hand: list[str]
    upcard: str | None  # (none in Hasenpfeffer)
    scores: list[int]


class ActionEvent(TypedDict):
    """A seat's action (a discard is told as an Exchange instead)."""

    type: Literal["action"]
    seat: int
    action: ActionObject


class Cards(TypedDict):
    """The dealer's cards once he has named trump on the Benny."""

    type: Literal["cards"]
    hand: list[str]


class Exchange(TypedDict):
    """The dealer's exchange: whether he took the upcard; his discard, told to him alone."""

    type: Literal["exchange"]
    seat: int
    took_upcard: bool | None  # null in call-partner Euchre to all but the dealer
    discard: str | None


class CallForBestEvent(TypedDict):
    """Railroad: a lone player's answer on calling for best; the card he put away, told to him alone."""

    type: Literal["call_for_best"]
    seat: int
    called: bool
    discard: str | None
    partner: NotRequired[int]  # six-hand: the partner named (lone_call_for_best = "one")
    discards: NotRequired[list[str] | None]  # six-hand: a card put away for each partner ("each"), to him alone


class GiveBestEvent(TypedDict):
    """Railroad: a card passed on a call for best, told to the giver and the receiver alone."""

    type: Literal["give_best"]
    seat: int
    receiver: int
    card: str | None


class BestDiscardEvent(TypedDict):
    """Railroad: the caller's discard after receiving a card, told to him alone."""

    type: Literal["best_discard"]
    seat: int
    card: str | None


class ContractEvent(TypedDict):
    """Hasenpfeffer: the auction's outcome (seat and bid null when the hand is thrown in)."""

    type: Literal["contract"]
    seat: int | None
    bid: int | None
    forced: bool
    widow_joker: bool


class WidowEvent(TypedDict):
    """Hasenpfeffer: the widow, told to the high bidder alone."""

    type: Literal["widow"]
    card: str


class DeclareEvent(TypedDict):
    """Hasenpfeffer: trump named and a card put away (the card told to the bidder alone)."""

    type: Literal["declare"]
    seat: int
    suit: str
    discard: str | None


class TrickEvent(TypedDict):
    """A finished trick: who led, the cards in play order, who won it."""

    type: Literal["trick"]
    leader: int
    cards: list[PlayedCardJSON]
    winner: int


class HandEnd(TypedDict):
    """How a hand ended, and the scores after it."""

    type: Literal["hand_end"]
    hand_number: int
    passed_out: bool
    maker: int | None
    trump: str | None
    alone: bool
    defender_alone: int | None
    tricks_won: list[int]
    points: list[int]
    scores: list[int]
    partners: NotRequired[list[int]]  # call-partner Euchre: who held a called card (empty: nobody)


class PartnerRevealedEvent(TypedDict):
    """Call-partner Euchre: a called card was played, showing its holder as the maker's partner."""

    type: Literal["partner_revealed"]
    seat: int
    card: str


Event = (
    HandStart
    | ActionEvent
    | Cards
    | Exchange
    | TrickEvent
    | HandEnd
    | CallForBestEvent
    | GiveBestEvent
    | BestDiscardEvent
    | ContractEvent
    | WidowEvent
    | DeclareEvent
    | PartnerRevealedEvent
)
"""What a seat is told of the game as it goes (protocol.md section 6)."""


class Act(TypedDict):
    """A decision request: the events since the last message, the view (unless the bot asked for fewer), the legal
    actions, the time left."""

    type: Literal["act"]
    request_id: int
    events: NotRequired[list[Event]]
    view: NotRequired[SeatViewJSON]
    legal: list[ActionObject]
    time_left_ms: int


class Events(TypedDict):
    """Events told without a request (before a game's end)."""

    type: Literal["events"]
    events: list[Event]


class Forfeit(TypedDict):
    """Who forfeited a game, and why."""

    seat: int
    kind: str
    detail: str


class GameEnd(TypedDict):
    """A game's end: final scores, winners (none in a drawn game), a forfeit, a rubber's points."""

    type: Literal["game_end"]
    game: int
    final_scores: list[int]
    winners: list[int]
    forfeit: Forfeit | None
    rubber_points: list[int] | None


class ViolationNotice(TypedDict):
    """A violation the bot committed, and its strikes so far."""

    type: Literal["violation"]
    kind: str
    detail: str
    strikes: int
    max_strikes: int


class MatchEnd(TypedDict):
    """The match is over: why; the bot should exit."""

    type: Literal["match_end"]
    reason: str
