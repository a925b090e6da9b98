"""Frames from bots as the referee reads them: a valid hello or reply in its plain form is read here by hand; any
other frame goes to the validator (arena.play.protocol's pydantic models), which says what is wrong with it.

The models are the definition of what a bot may send. The plain forms are what the SDK and most hand-written bots
send: one JSON object of exactly the model's keys, ASCII, each value of its exact JSON type. For those the two
readers agree by construction (tests/play/test_incoming.py checks it on any frame), and a referee whose bots all speak
plainly never loads pydantic: it starts ~140 ms of processor time sooner, a tournament's first match with it.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Literal

import orjson

from arena.engine.actions import (
    BIDS,
    CALL,
    CALL_FOR_BEST,
    CALL_FOR_BEST_FIRST,
    DEFEND_ALONE,
    DISCARD,
    GIVE_BEST,
    JOKER_LEADS,
    NAME_TRUMP,
    NAP_BIDS,
    ORDER_UP,
    PASS,
    PLAY,
    Action,
    Declare,
)
from arena.engine.cards import JOKER_ID, Card, Suit
from arena.errors import ArenaError

MAX_MESSAGE_BYTES = 64 * 1024


class MessageError(ArenaError):
    """An incoming message is not acceptable; ``kind`` is the violation it counts as."""

    def __init__(self, kind: Literal["oversized", "malformed", "schema"], detail: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


def _bounds(max_length: int, min_length: int = 0) -> dict[str, int]:
    """A text field's bounds (pydantic's Field arguments): the plain reader and the wire model both read them."""
    return {"max_length": max_length, **({"min_length": min_length} if min_length else {})}


@dataclass(frozen=True, slots=True)
class Hello:
    """A bot's first message (protocol.md §2): who it is, the protocol it speaks, its seat's token, and whether it
    wants the full view with every request.

    The one definition of a hello: arena.play.protocol builds the wire model (and so the JSON Schema) from these
    fields and their metadata, and the plain reader below checks the same bounds.
    """

    name: str = field(metadata=_bounds(64, min_length=1))
    protocol: int
    token: str = field(metadata=_bounds(128))
    version: str | None = field(default=None, metadata=_bounds(64))
    view: bool = field(
        default=True,
        metadata={
            "description": "Send the full view with every act (default); false: only at each hand's first act, "
            "the bot keeping its own picture from the events"
        },
    )
    variants: tuple[str, ...] | None = field(
        default=None,
        metadata={
            "max_length": 64,
            "description": "The variants this bot plays; absent: every variant. A match of another variant is "
            "refused before its first game",
        },
    )


@dataclass(frozen=True, slots=True)
class Reply:
    """A bot's answer to the request ``request_id``."""

    request_id: int
    action: Action


# Every action's wire form as orjson writes it (and so the SDK): a reply that is byte for byte the canonical reply to
# the open request is valid by construction, and the referee takes it without parsing it at all.
CALLS = tuple(a for pair in CALL for a in pair)
ALL_ACTIONS: tuple[Action, ...] = (PASS, DEFEND_ALONE, *ORDER_UP, *CALLS, *NAME_TRUMP, *PLAY, *DISCARD)
ALL_ACTIONS += (CALL_FOR_BEST_FIRST, *CALL_FOR_BEST, *GIVE_BEST)
ALL_ACTIONS += (*BIDS[1:], *(Declare(Suit(s), Card(c)) for s in range(4) for c in range(JOKER_ID + 1)))
ALL_ACTIONS += (*NAP_BIDS, *JOKER_LEADS)
_CANONICAL: dict[bytes, Action] = {orjson.dumps(a.to_json()): a for a in ALL_ACTIONS}


def canonical_reply(raw: bytes, request_id: int) -> Action | None:
    """The action of ``raw`` if it is exactly ``{"type":"action","request_id":ID,"action":A}`` as orjson writes it
    (no spaces, keys in this order) for ``request_id`` and some action; None for anything else, valid or not."""
    prefix = b'{"type":"action","request_id":%d,"action":' % request_id
    if raw.startswith(prefix) and raw.endswith(b"}"):
        return _CANONICAL.get(raw[len(prefix) : -1])
    return None


def _plain_forms(action: Action) -> list[bytes]:
    """An action's JSON object with sorted keys; for a bid not alone, also without ``alone`` (false by default)."""
    form = action.to_json()
    forms = [form]
    if form.get("alone") is False:
        forms.append({key: value for key, value in form.items() if key != "alone"})
    return [orjson.dumps(f, option=orjson.OPT_SORT_KEYS) for f in forms]


_PLAIN_ACTIONS: dict[bytes, Action] = {form: a for a in ALL_ACTIONS for form in _plain_forms(a)}
_HELLO_KEYS = frozenset({"type", *(f.name for f in dataclasses.fields(Hello))})
_HELLO_REQUIRED = frozenset({"type", *(f.name for f in dataclasses.fields(Hello) if f.default is dataclasses.MISSING)})
_REPLY_KEYS = frozenset({"type", "request_id", "action"})


def plain_message(raw: bytes) -> Hello | Reply | None:
    """The message of ``raw`` if it is a valid hello or reply in plain form; None for anything else, valid or not."""
    if len(raw) > MAX_MESSAGE_BYTES or not raw.isascii() or not raw.startswith(b"{"):
        return None
    try:
        data = json.loads(raw, object_pairs_hook=_no_repeats)
    except (ValueError, RecursionError):  # not JSON, a repeated key, a number Python will not read
        return None
    if not isinstance(data, dict):
        return None
    kind = data.get("type")
    if kind == "action" and data.keys() == _REPLY_KEYS:
        return _plain_reply(data)
    if kind == "hello" and _HELLO_REQUIRED <= data.keys() <= _HELLO_KEYS:
        return _plain_hello(data)
    return None


def _no_repeats(pairs: list[tuple[str, object]]) -> dict[str, object]:
    found = dict(pairs)
    if len(found) != len(pairs):
        raise ValueError("a repeated key")
    return found


def _plain_reply(data: dict[str, object]) -> Reply | None:
    request_id, action = data["request_id"], data["action"]
    if type(request_id) is not int or not isinstance(action, dict):
        return None
    try:
        key = orjson.dumps(action, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:  # a lone surrogate, an integer past 64 bits, nesting too deep: the validator's
        return None
    found = _PLAIN_ACTIONS.get(key)
    return None if found is None else Reply(request_id, found)


_MOST_VARIANTS = next(f.metadata["max_length"] for f in dataclasses.fields(Hello) if f.name == "variants")
# A hello's text fields as its definition bounds them: name -> (shortest, longest, may be null or left out).
_HELLO_TEXT = {
    f.name: (f.metadata.get("min_length", 0), f.metadata["max_length"], f.default is None)
    for f in dataclasses.fields(Hello)
    if f.type in ("str", "str | None")
}


def _plain_hello(data: dict[str, object]) -> Hello | None:
    name, protocol, token = data["name"], data["protocol"], data["token"]
    version, view = data.get("version"), data.get("view", True)
    if type(protocol) is not int or type(view) is not bool:
        return None
    if type(name) is not str or type(token) is not str or not (version is None or type(version) is str):
        return None
    variants = data.get("variants")
    if variants is not None:
        if not (type(variants) is list and len(variants) <= _MOST_VARIANTS and all(_ascii(v) for v in variants)):
            return None
        variants = tuple(variants)
    texts = {"name": name, "token": token, "version": version}
    for key, (shortest, longest, optional) in _HELLO_TEXT.items():
        value = texts[key]
        if value is None and optional:
            continue
        # ASCII only: an escape such as \\u00e9 or a lone surrogate is left to the validator
        if value is None or not (value.isascii() and shortest <= len(value) <= longest):
            return None
    return Hello(name, protocol, token, version, view, variants)


def _ascii(value: object) -> bool:
    return type(value) is str and value.isascii()


def read_bot_message(raw: bytes) -> Hello | Reply:
    """Read one frame from a bot: its hello or reply, or MessageError with the violation it counts as."""
    plain = plain_message(raw)
    return plain if plain is not None else validated_message(raw)


def validated_message(raw: bytes) -> Hello | Reply:
    """The validator's reading of a frame (any frame, plain or not), or MessageError with the violation it counts
    as."""
    from arena.play import protocol  # loaded by a referee only when a frame is not plain

    message = protocol.parse_bot_message(raw)
    if isinstance(message, protocol.ActionReply):
        return Reply(message.request_id, protocol.to_engine_action(message.action))
    return Hello(**{f.name: getattr(message, f.name) for f in dataclasses.fields(Hello)})
