"""The bot side of the protocol without the socket: turn referee messages into calls of ``act`` and back.

A bot author subclasses :class:`Bot` and overrides ``act(view, legal)``, or writes one function of the same shape.
``Bot.handle`` takes one referee message (parsed JSON) and returns the reply for an ``act`` request, None otherwise;
``arena.sdk.run`` is the socket loop around it, and ``arena.play.local`` drives it in process.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeVar, cast

from arena import JSONObject
from arena.engine.actions import Action, action_from_json, parse_action
from arena.engine.cards import JOKER_ID
from arena.engine.phases import Phase, Trick
from arena.engine.view import SeatView, SeatViewJSON, action_json
from arena.errors import ArenaError, IllegalActionError
from arena.sdk.logs import logger
from arena.sdk.table import Table

if TYPE_CHECKING:  # types alone: a bot does not load them
    from arena.sdk.messages import Act, Event, Events, GameEnd, GameStart, ViolationNotice, Welcome

try:  # hashlib's own blake2b, without hashlib's loading of OpenSSL (~4 ms at every bot's start) for hashes unused here
    from _blake2 import blake2b
except ImportError:  # a Python built without it
    from hashlib import blake2b

T = TypeVar("T")
Answer = Action | JSONObject
ActFunction = Callable[[SeatView, tuple[Action, ...]], Answer]


def view_seed(view: SeatView | SeatViewJSON) -> int:
    """A 128-bit number that tells the decision's place in the game: the same view, the same number, everywhere.

    It is a BLAKE2b hash of what tells one decision of a seat from another: the seat, the hand and its phase, the
    seat's cards, how many bids and tricks there have been, the trick so far, and the scores.
    """
    v = view if isinstance(view, SeatView) else parse_view(view)
    # ``{v.phase}`` is the phase's value (a StrEnum formats as its value) without the enum's slow ``.value``
    head = f"{v.seat}|{v.hand_number}|{v.phase}|{len(v.bids)}|{len(v.tricks)}|{v.scores}|".encode()
    # card ids are < 256: the hand, then the trick's (seat, card) pairs, as bytes
    cards = bytes(v.hand).translate(_SEED_BYTES) + b"|" + bytes(_flat((s, _SEED_BYTES[c]) for s, c in v.trick))
    return int.from_bytes(blake2b(head + cards, digest_size=16).digest(), "big")


_flat = itertools.chain.from_iterable
# The byte hashed for a card: its id before the ranks 2 to 6 were numbered (7C 0 ... AS 31, JK 32), those five ranks
# after them (33 on), so that every view of the older games hashes, and every bot's choice falls, as it always did.
_SEED_BYTES = bytes(
    c - 20 if 20 <= c < JOKER_ID else 32 if c == JOKER_ID else 33 + c if c < 20 else c for c in range(256)
)


def view_rng(view: SeatView | SeatViewJSON) -> random.Random:
    """A random source seeded by :func:`view_seed`, so a game replays identically (no clock, no os randomness)."""
    return random.Random(view_seed(view))


def parse_view(data: SeatViewJSON, tricks: dict[tuple[int, int], Trick] | None = None) -> SeatView:
    """The wire form of a view (``act.view``) as a SeatView with Card, Suit and Action values (``SeatView.from_json``).

    ``tricks`` caches finished tricks by (hand number, index) across calls: they never change once played.
    """
    return SeatView.from_json(data, tricks)


class Bot:
    """Base class of a bot: override ``act``; the hooks ``on_*`` are optional.

    Attributes kept for ``act``: ``table`` (the :class:`Table` of the current game), ``rng`` (a random source seeded
    from the current view), ``match_id`` and ``finished`` (set by ``match_end``). With ``strict=True`` an answer
    that is not among the legal actions raises IllegalActionError (for tests); by default it is logged to stderr and
    sent as it is, so that the referee records the violation.
    """

    name: str = "bot"
    version: str | None = None
    # Class-level defaults, so that a subclass whose __init__ forgets super().__init__() still works.
    strict = False
    check_table = True
    table: Table | None = None
    match_id: str | None = None
    finished = False
    _warned = False
    _checked: tuple[int, bool] = (-1, False)
    _tricks: dict[tuple[int, int], Trick] | None = None  # parsed finished tricks, reused across requests
    _view: SeatView | None = None
    want_view = True  # False: ask the referee for the view only at each hand's first request (faster)
    variants: tuple[str, ...] | None = None  # the variants this bot plays (its hello says so); None: every variant
    _rng: random.Random | None = None

    def __init__(self, *, strict: bool = False, check_table: bool = True) -> None:
        self.strict = strict
        self.check_table = check_table

    @property
    def rng(self) -> random.Random:
        """A random source seeded from the current request's view (made on first use, so it costs nothing if unused)."""
        if self._rng is None:
            self._rng = view_rng(self._require_view())
        return self._rng

    def pick(self, options: Sequence[T]) -> T:
        """One of ``options``, each as likely, chosen by the current view's :func:`view_seed`: deterministic like
        ``rng``, and cheaper for a bot that draws once a decision (seeding a ``random.Random`` costs ~5 us)."""
        return options[view_seed(self._require_view()) % len(options)]  # bias below 2**-120 for any real length

    # ---- what an author overrides ----

    def act(self, view: SeatView, legal: tuple[Action, ...]) -> Answer:
        """Choose one of ``legal``: return the action (or its JSON object)."""
        raise NotImplementedError("override Bot.act(view, legal), or pass a function to run()")

    def on_game_start(self, table: Table) -> None:
        """Called when a game starts, with its fresh table."""

    def on_event(self, event: Event) -> None:
        """Called after each event has been folded into the table."""

    def on_game_end(self, message: GameEnd) -> None:
        """Called with the ``game_end`` message."""

    def on_violation(self, message: ViolationNotice) -> None:
        """Called with a ``violation`` notice; logs it by default."""
        logger().warning(
            "violation %s: %s (strike %s of %s)",
            *(message.get(k) for k in ("kind", "detail", "strikes", "max_strikes")),
        )

    # ---- the protocol ----

    def handle(self, message: JSONObject) -> JSONObject | None:
        """Take one referee message; return the reply to an ``act`` request, None for every other message.

        The message is read as its type's shape in protocol.md (arena.sdk.messages), unchecked: the referee wrote it.
        """
        kind = message.get("type")
        if kind == "act":
            return self._act(cast("Act", message))
        if kind == "events":
            self._events(cast("Events", message)["events"])
        elif kind == "game_start":
            self.table = Table.from_game_start(cast("GameStart", message))
            self._tricks = {}  # hand numbers start again at 0
            self._warned = False
            self.on_game_start(self.table)
        elif kind == "game_end":
            self.on_game_end(cast("GameEnd", message))
        elif kind == "welcome":
            self.match_id = cast("Welcome", message).get("match_id")
        elif kind == "violation":
            self.on_violation(cast("ViolationNotice", message))
        elif kind == "match_end":
            self.finished = True
        else:
            logger().warning("ignoring a message of unknown type %r", kind)
        return None

    def _events(self, events: list[Event]) -> None:
        table = self.table
        hook: Callable[[Event], None] | None = self.on_event
        if getattr(hook, "__func__", None) is Bot.on_event:
            hook = None  # not overridden: nothing to call for each event
        for event in events:
            if table is not None:
                table.apply(event)
            if hook is not None:
                hook(event)

    def _act(self, message: Act) -> JSONObject:
        self._events(message.get("events", []))
        legal = tuple([action_from_json(a) for a in message["legal"]])
        table = self.table
        data = message.get("view")
        if data is None:  # the bot asked for views only now and then: its table is the picture
            if table is None or not table.live:
                raise ProtocolError("a request without a view reached a bot that has no picture of the hand")
            view = table.view(phase_of(legal))
            self._view, self._rng = view, None
            answer = self.act(view, legal)
            return {"type": "action", "request_id": message["request_id"], "action": self._check(answer, legal)}
        if self._tricks is None or len(self._tricks) > 256:
            self._tricks = {}
        view = parse_view(data, self._tricks)
        # Checked at a hand's first request and at its last trick: the check costs more than a random bot's move.
        checkpoint = (view.hand_number, len(view.tricks) == 4)
        if table is not None and (not table.live or (self.check_table and checkpoint != self._checked)):
            self._checked = checkpoint
            wrong = table.mismatches(view)
            if wrong:
                if table.live and not self._warned:
                    self._warned = True
                    logger().warning(
                        "the table disagreed with the referee's view on %s; resynchronised", ", ".join(wrong)
                    )
                table.sync(view)
        self._view, self._rng = view, None
        answer = self.act(view, legal)
        return {"type": "action", "request_id": message["request_id"], "action": self._check(answer, legal)}

    def _check(self, answer: Answer, legal: tuple[Action, ...]) -> Mapping[str, object]:
        for offered in legal:  # one of the very objects offered (the usual case): no comparisons needed
            if offered is answer:
                return action_json(offered)
        if not isinstance(answer, dict) and answer in legal:
            return answer.to_json()
        data: Mapping[str, object]
        if isinstance(answer, dict):
            data = answer
        elif hasattr(answer, "to_json"):
            data = answer.to_json()
        else:
            raise TypeError(f"act() must return one of the legal actions or its JSON object, not {answer!r}")
        try:
            ok = parse_action(data) in legal
            problem = "is not legal now"
        except ArenaError as exc:
            ok, problem = False, f"is not an action ({exc})"
        if not ok:
            text = f"answer {data} {problem}; legal: {[a.to_json() for a in legal]}"
            if self.strict:
                raise IllegalActionError(text)
            logger().error("%s (sending it anyway)", text)
        return data

    def _require_view(self) -> SeatView:
        if self._view is None:
            raise RuntimeError("rng is only available while answering a request")
        return self._view


def phase_of(legal: tuple[Action, ...]) -> Phase:
    """The phase of a decision, told by its legal actions (each phase has one kind of action besides ``pass``)."""
    for action in reversed(legal):  # pass, where legal, comes first
        phase = _PHASES.get(action.type)
        if phase is not None:
            return phase
    raise ProtocolError(f"no phase has the legal actions {sorted({a.type for a in legal})}")


_PHASES = {
    "play": Phase.PLAY,
    "discard": Phase.DISCARD,
    "name_trump": Phase.NAME_TRUMP,
    "order_up": Phase.BID1,
    "call": Phase.BID2,
    "defend_alone": Phase.DEFEND,
    "call_for_best": Phase.CALL_BEST,
    "give_best": Phase.GIVE_BEST,
    "bid": Phase.BID,
    "declare": Phase.DECLARE,
    "call_partner": Phase.CALL_PARTNER,
    "go_alone": Phase.CALL_PARTNER,
}


class ProtocolError(ArenaError):
    """A referee message the SDK cannot make sense of."""


class FunctionBot(Bot):
    """A bot made of one ``act(view, legal)`` function."""

    def __init__(self, function: ActFunction, *, name: str | None = None, strict: bool = False) -> None:
        super().__init__(strict=strict)
        self.function = function
        self.name = name or str(getattr(function, "__name__", "bot"))

    def act(self, view: SeatView, legal: tuple[Action, ...]) -> Answer:
        """Ask the function."""
        return self.function(view, legal)


def as_bot(bot: Bot | ActFunction, *, name: str | None = None) -> Bot:
    """A Bot as it is, or a function wrapped into one."""
    if isinstance(bot, Bot):
        if name is not None:
            bot.name = name
        return bot
    return FunctionBot(bot, name=name)
