"""What the referee really sends, checked against protocol.schema.json itself (not the pydantic models behind it).

A bot author writes from protocol.md and the schema file, so both must say what is sent: every message of every
variant validates, and the schema allows nothing that is never sent (a null view, a discard as an ``action`` event, a
``game_end`` without ``rubber_points``). The dealer's exchange, which no event announces, is shown in protocol.md as
real messages, and those are checked against a game played again here.
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import orjson
import pytest
from configs import match_spec
from helpers import ROOT, cards_in_json
from sandboxing import open_to_bots

from arena.engine.options import BOOK_OPTIONS, HASENPFEFFER_OPTIONS, OPTION_NAMES, VARIANTS, make_rules
from arena.play.local import play_game
from arena.play.matchspec import BotEntry
from arena.play.referee import run_match

HOSTILE = [sys.executable, str(ROOT / "tests" / "bots" / "hostile.py")]
Message = dict[str, Any]
Chooser = Callable[[Message, int], Message]

# ---- a small JSON Schema validator: the keywords protocol.schema.json uses, and an error for any other ----

ANNOTATIONS = {"title", "description", "default", "discriminator", "$schema"}
KEYWORDS = {
    "$ref",
    "$defs",
    "type",
    "const",
    "enum",
    "pattern",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "oneOf",
}
TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def same(a: Any, b: Any) -> bool:
    """JSON equality: ``true`` is not ``1``."""
    return type(a) is type(b) and a == b if isinstance(a, bool) or isinstance(b, bool) else bool(a == b)


KNOWN: dict[int, dict[str, Any]] = {}  # id -> schema: the (sub)schemas whose keywords were found known


def problems(value: Any, schema: dict[str, Any], root: dict[str, Any], path: str = "$") -> Iterator[str]:
    """Why ``value`` is not valid against ``schema`` (whose ``$ref``s point into ``root``), lazily: the first one
    alone is computed when only validity is asked (a branch of ``oneOf`` that fails on its ``type`` stops there)."""
    if KNOWN.get(id(schema)) is not schema:  # each schema's keywords once (kept: its id is never reused)
        unknown = set(schema) - KEYWORDS - ANNOTATIONS
        assert not unknown, f"the test's validator does not know {sorted(unknown)}: teach it"
        KNOWN[id(schema)] = schema
    if "$ref" in schema:
        yield from problems(value, root["$defs"][schema["$ref"].removeprefix("#/$defs/")], root, path)
    if "type" in schema and not TYPES[schema["type"]](value):
        yield f"{path}: {value!r} is not of type {schema['type']}"
        return
    if "const" in schema and not same(value, schema["const"]):
        yield f"{path}: {value!r} is not {schema['const']!r}"
    if "enum" in schema and not any(same(value, option) for option in schema["enum"]):
        yield f"{path}: {value!r} is not one of {schema['enum']}"
    if "pattern" in schema and isinstance(value, str) and not re.search(schema["pattern"], value):
        yield f"{path}: {value!r} does not match {schema['pattern']}"
    if TYPES["number"](value):
        if "minimum" in schema and value < schema["minimum"]:
            yield f"{path}: {value} < {schema['minimum']}"
        if "maximum" in schema and value > schema["maximum"]:
            yield f"{path}: {value} > {schema['maximum']}"
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            yield f"{path}: shorter than {schema['minLength']}"
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            yield f"{path}: longer than {schema['maxLength']}"
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            yield f"{path}: fewer items than {schema['minItems']}"
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            yield f"{path}: more items than {schema['maxItems']}"
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        yield from (f"{path}: {key!r} is missing" for key in schema.get("required", []) if key not in value)
        for key in sorted(value, key=lambda k: k != "type"):  # the tag first: a wrong branch fails at once
            if key in properties:
                yield from problems(value[key], properties[key], root, f"{path}.{key}")
            elif schema.get("additionalProperties", True) is False:
                yield f"{path}: {key!r} is not allowed"
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            yield from problems(item, schema["items"], root, f"{path}[{index}]")
    if "anyOf" in schema and not any(valid(value, branch, root) for branch in schema["anyOf"]):
        yield f"{path}: matches none of anyOf"
    if "oneOf" in schema:
        matching = sum(valid(value, branch, root) for branch in schema["oneOf"] if may_match(value, branch, root))
        if matching != 1:
            yield f"{path}: matches {matching} of oneOf, not exactly one"


VALIDITY: dict[tuple[int, bytes], tuple[dict[str, Any], bool]] = {}  # (schema id, value's JSON) -> schema, valid


def valid(value: Any, schema: dict[str, Any], root: dict[str, Any]) -> bool:
    """Whether ``value`` is valid against ``schema``; remembered per value (as its JSON text, keys sorted: JSON
    tells ``true`` from ``1``) and schema. Every seat is sent the same events and offered the same few actions: of
    the captured games' 14,900 events 1,409 differ, of their 7,437 legal actions 78."""
    try:
        text = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # not JSON orjson writes (an int over 64 bits): not remembered
        return next(problems(value, schema, root), None) is None
    if b"null" in text and orjson.loads(text) != value:  # NaN or infinity, which orjson writes as null: not either
        return next(problems(value, schema, root), None) is None
    key = (id(schema), text)
    known = VALIDITY.get(key)
    if known is None or known[0] is not schema:
        known = VALIDITY[key] = (schema, next(problems(value, schema, root), None) is None)
    return known[1]


def may_match(value: Any, branch: dict[str, Any], root: dict[str, Any]) -> bool:
    """False where ``problems`` would surely find one: ``branch`` is (a ``$ref`` to) an object that requires a
    ``type`` of a constant value, and ``value`` is an object with another ``type`` or none. Every branch of the
    schema's ``oneOf``s is such an object: validating a value against the branches of the other tags was 2/3 of
    the validator's time."""
    if not isinstance(value, dict):
        return True
    known = TAGS.get(id(branch))
    if known is None or known[0] is not branch:
        known = TAGS[id(branch)] = (branch, branch_tag(branch, root))
    tag = known[1]
    return tag is None or ("type" in value and same(value["type"], tag[0]))


TAGS: dict[int, tuple[dict[str, Any], tuple[Any] | None]] = {}  # id -> a oneOf branch and its tag (dicts do not hash)


def branch_tag(branch: dict[str, Any], root: dict[str, Any]) -> tuple[Any] | None:
    """The constant ``type`` a ``oneOf`` branch requires of an object, if it does (in a tuple: it may be None)."""
    target = root["$defs"][branch["$ref"].removeprefix("#/$defs/")] if set(branch) == {"$ref"} else branch
    tag = target.get("properties", {}).get("type", {})
    if target.get("type") != "object" or "type" not in target.get("required", []) or "const" not in tag:
        return None
    return (tag["const"],)


@cache
def schema() -> dict[str, Any]:
    """The committed schema file, as a bot author reads it."""
    return dict(json.loads((ROOT / "protocol.schema.json").read_text()))


def referee_errors(message: Message) -> list[str]:
    """Why a referee -> bot message is not valid against the schema ([] if it is)."""
    part = schema()["referee_to_bot"]
    return list(problems(message, part, part))


def definition(name: str) -> dict[str, Any]:
    """One definition of the referee -> bot schema."""
    return dict(schema()["referee_to_bot"]["$defs"][name])


def test_the_validator_refuses_what_it_should() -> None:
    """The validator itself: a few messages that are wrong in one way each."""
    good = {"type": "match_end", "reason": "match over"}
    assert referee_errors(good) == []
    assert referee_errors({**good, "extra": 1}) != []
    assert referee_errors({"type": "match_end"}) != []
    assert referee_errors({"type": "welcome", "protocol": True, "match_id": "m", "name": "n"}) != []
    trick = {"type": "trick", "leader": 0, "cards": [{"seat": 0, "card": "ZZ"}], "winner": 4}
    assert len(referee_errors({"type": "events", "events": [trick]})) >= 1


# ---- in-process games: every message a seat is sent, as it would cross the wire ----


def random_choice(message: Message, seat: int) -> Message:
    """A legal action drawn at random, seeded by the request (deterministic)."""
    legal: list[Message] = message["legal"]
    return random.Random(message["request_id"] * 7919 + seat).choice(legal)


def capture(
    variant: str,
    options: dict[str, Any] | None = None,
    seed: int = 0,
    *,
    views: bool | list[bool] = True,
    choose: Chooser = random_choice,
    illegal_at: int | None = None,
) -> tuple[list[list[tuple[str, Message]]], dict[str, Any]]:
    """Play one game in-process; per seat, every message received (``"in"``) and sent (``"out"``), in order.

    ``illegal_at``: the request id at which the seat asked answers with an action that is never legal (a forfeit).
    """
    n = make_rules(variant, options).players
    seen: list[list[tuple[str, Message]]] = [[] for _ in range(n)]

    def handler(seat: int) -> Callable[[Message], Message | None]:
        def handle(message: Message) -> Message | None:
            message = orjson.loads(orjson.dumps(message))  # as it crosses the wire
            seen[seat].append(("in", message))
            if message["type"] != "act":
                return None
            action = choose(message, seat)
            if message["request_id"] == illegal_at:
                action = {"type": "name_trump", "suit": "S"} if action["type"] != "name_trump" else {"type": "pass"}
            reply = {"type": "action", "request_id": message["request_id"], "action": action}
            seen[seat].append(("out", reply))
            return reply

        return handle

    record = play_game([handler(s) for s in range(n)], variant, options, seed, views=views)
    return seen, record


GAMES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    *((variant, {}, {}) for variant, v in VARIANTS.items() if v.game == "euchre"),
    # Hasenpfeffer with defenders scoring their tricks: random play ends its games (with the defaults it rarely
    # does: sides bid high, are set, and sink below zero)
    *(
        (variant, {"defenders_score_tricks": True, "points_to_win": 3}, {})
        for variant, v in VARIANTS.items()
        if v.game == "hasenpfeffer"
    ),
    # Nap at every table size, its games a deal a seat long; and with the joker, Misere with trumps, a forced bid
    *(("nap", {"players": n, "deals_per_player": 1}, {}) for n in range(2, 8)),
    ("nap", {"joker": True, "misere_trumps": True, "all_pass": "dealer_must_bid", "deck": "stripped"}, {}),
    *((variant, {}, {}) for variant, v in VARIANTS.items() if v.game in ("call_partner", "six_hand")),
    ("five-hand", {"players": 7, "called_cards": 2, "deck": 37}, {"views": [True, False] * 3 + [True]}),
    ("call-ace", {"players": 6, "going_alone": False}, {"views": False}),
    ("six-hand", {"lone_call_for_best": "each", "deck": 33}, {"views": [False, True] * 3}),
    ("six-hand-pairs", {"lone_call_for_best": "one"}, {}),
    ("hasenpfeffer", {"widow": "unused", "defenders_score_tricks": True, "points_to_win": 3}, {"views": False}),
    ("four-hand", {"defend_alone": True, "stick_the_dealer": True}, {"views": [True, False, False, True]}),
    ("british", {"defend_alone": True, "dealer_exchange": "mandatory"}, {"views": False}),
    ("three-hand", {"stick_the_dealer": True}, {"views": [False, True, False]}),
    ("two-hand", {"rubber": True, "points_to_win": 5}, {}),
    ("four-hand", {"rubber": True, "points_to_win": 5}, {"views": False}),
    ("four-hand", {}, {"illegal_at": 20}),
    ("three-hand", {}, {"illegal_at": 7}),
    ("railroad", {"best_order": "receive_first"}, {"views": [False, True, False, True]}),
    ("railroad-33", {"rubber": True, "laps": True, "points_to_win": 5}, {"views": False}),
]


@cache
def captured() -> list[Message]:
    """Every message seats were sent in the games of GAMES, each played with a few seeds."""
    messages: list[Message] = []
    for variant, options, settings in GAMES:
        for seed in range(2):
            seen, _ = capture(variant, options, seed, **settings)
            messages += [m for seat in seen for way, m in seat if way == "in"]
    return messages


def test_every_message_of_every_variant_is_valid_against_the_schema() -> None:
    kinds: set[str] = set()
    events: set[str] = set()
    for message in captured():
        assert referee_errors(message) == [], message
        kinds.add(message["type"])
        events.update(
            event["type"] if event["type"] != "action" else event["action"]["type"]
            for event in message.get("events", [])
        )
    assert kinds == {"game_start", "act", "events", "game_end"}  # the rest only from a real referee (below)
    public_actions = {"pass", "order_up", "call", "defend_alone", "name_trump", "play"}  # every action but discard
    best = {"call_for_best", "give_best", "best_discard"}  # Railroad's calls for best have events of their own
    auction = {"bid", "contract", "widow", "declare", "nap_bid"}  # Hasenpfeffer's, and Nap's bids
    calls = {"call_partner", "go_alone", "partner_revealed"}  # call-partner Euchre's
    assert events == {
        *("hand_start", "cards", "exchange", "trick", "hand_end"),
        *(*public_actions, *best, *auction, *calls),
    }


def received(kind: str) -> list[Message]:
    """The captured messages of one type."""
    return [m for m in captured() if m["type"] == kind]


def events_of(kind: str) -> list[Message]:
    """The captured events of one type, from acts and events messages alike."""
    return [e for m in captured() for e in m.get("events", []) if e["type"] == kind]


def test_act_view_is_a_view_or_absent_never_null() -> None:
    acts = received("act")
    assert any("view" not in m for m in acts) and any("view" in m for m in acts)
    assert all(m["view"] is not None for m in acts if "view" in m)
    viewless = next(m for m in acts if "view" not in m)
    assert referee_errors(viewless) == []
    assert referee_errors({**viewless, "view": None}) != [], "the schema lets act.view be null: it never is"
    assert "view" not in definition("Act")["required"]


def test_a_discard_is_never_an_action_event_and_the_schema_allows_none() -> None:
    assert all(e["action"]["type"] != "discard" for e in events_of("action"))
    assert events_of("exchange")  # the discard is told this way, and only to the dealer
    discard = {"type": "action", "seat": 0, "action": {"type": "discard", "card": "9C"}}
    assert referee_errors({"type": "events", "events": [discard]}) != [], "the schema allows a discard event"
    play = {"type": "action", "seat": 0, "action": {"type": "play", "card": "9C"}}
    assert referee_errors({"type": "events", "events": [play]}) == []
    act = next(m for m in received("act") if m["legal"][0]["type"] == "discard")
    assert referee_errors(act) == []  # a discard is still an action a request offers


def test_game_end_always_has_rubber_points_and_the_schema_requires_them() -> None:
    ends = received("game_end")
    assert all("rubber_points" in m for m in ends)
    assert any(m["rubber_points"] is None for m in ends) and any(isinstance(m["rubber_points"], list) for m in ends)
    assert "rubber_points" in definition("GameEnd")["required"]
    without = {k: v for k, v in ends[0].items() if k != "rubber_points"}
    assert referee_errors(without) != [], "the schema lets game_end leave out rubber_points: it never does"


def test_the_games_cover_what_a_game_can_send() -> None:
    """Forfeits, declined exchanges, lone hands: the captured games show every shape checked above."""
    ends = received("game_end")
    assert any(m["forfeit"] is not None for m in ends) and any(m["forfeit"] is None for m in ends)
    assert {e["took_upcard"] for e in events_of("exchange")} == {True, False, None}  # None: call-partner's others
    assert {e["discard"] is None for e in events_of("exchange")} == {True, False}
    assert any(m["view"]["sitting_out"] for m in received("act") if "view" in m)
    assert any(e["defender_alone"] is not None for e in events_of("hand_end"))
    assert any(e["passed_out"] for e in events_of("hand_end"))
    assert {len(e["partners"]) for e in events_of("hand_end") if "partners" in e} >= {0, 1, 2}
    assert any(m["view"]["partner_call"]["partner"] for m in received("act") if "partner_call" in m.get("view", {}))
    calls = [e["action"]["cards"] for e in events_of("action") if e["action"]["type"] == "call_partner"]
    assert {len(cards) for cards in calls} == {1, 2}
    best = [a for m in received("act") for a in m["legal"] if a["type"] == "call_for_best"]
    assert any("partner" in a for a in best) and any(len(a.get("cards", ())) == 2 for a in best)


def test_every_field_is_required_but_act_view() -> None:
    """What the schema requires is always sent (possibly as null where it allows null); the one field it does not
    require, ``act.view``, is the one field ever left out (and ``alone`` is stated in every order_up and call sent)."""
    optional = {
        (name, key)
        for name, model in schema()["referee_to_bot"]["$defs"].items()
        for key in model.get("properties", {})
        if key not in model.get("required", [])
    }
    # and a call for best's card, absent where the caller discards after receiving (best_order = "receive_first")
    # and a view's calls for best, absent where the rules have none (protocol.md section 7)
    # and game_start's options beyond the rule book's seven, stated where they belong to the game or differ from the
    # variant's preset (so the rule book's variants are told what they always were)
    beyond_the_book = {("RulesModel", name) for name in OPTION_NAMES if name not in BOOK_OPTIONS}
    assert optional == {
        ("Act", "view"),
        ("CallForBestAction", "card"),
        ("PlayAction", "trump"),  # and the trump a Nap declarer names as he leads the joker, absent on other plays
        ("ViewModel", "best"),
        ("ViewModel", "auction"),
        # six-hand's call for best: the partner named, or a card put away for each partner
        ("CallForBestAction", "partner"),
        ("CallForBestAction", "cards"),
        ("CallForBestEvent", "partner"),
        ("CallForBestEvent", "discards"),
        # call-partner Euchre's call, and who held a called card at the hand's end: absent in the other games
        ("ViewModel", "partner_call"),
        ("HandEndEvent", "partners"),
        *beyond_the_book,
    }
    starts = received("game_start")
    assert any(set(m["options"]) == set(BOOK_OPTIONS) for m in starts if m["variant"] == "four-hand")
    assert all(set(HASENPFEFFER_OPTIONS) <= set(m["options"]) for m in starts if m["variant"] == "hasenpfeffer")
    views = [m["view"] for m in received("act") if "view" in m]
    assert any("best" in v for v in views) and all(v.get("best") is not None for v in views if "best" in v)
    calls = [a for m in received("act") for a in m["legal"] if a["type"] == "call_for_best"]
    assert {"card" in a for a in calls} == {True, False}  # both orders were played
    sent = [a for m in received("act") for a in m["legal"]] + [e["action"] for e in events_of("action")]
    assert all("alone" in a for a in sent if a["type"] in ("order_up", "call"))
    assert referee_errors(
        {"type": "events", "events": [{"type": "action", "seat": 1, "action": {"type": "call", "suit": "H"}}]}
    )


def test_the_protocol_text_says_what_the_schema_says() -> None:
    text = (ROOT / "protocol.md").read_text()
    section5 = text[text.index("## 5. ") : text.index("## 6. ")]
    section6 = text[text.index("## 6. ") : text.index("## 7. ")]
    section7 = text[text.index("## 7. ") : text.index("## 8. ")]
    assert "optional in the schema" not in section7  # act.view is not required, and never null
    assert "absent, never `null`" in section5 and "absent, never `null`" in section7
    assert "`rubber_points` (per seat, or null when `rubber` is off; always present)" in section5
    assert "never sent as an `action` event" in section6
    assert "**The dealer holds six cards**" in section6


# ---- a real referee: welcome, violation and match_end too ----


def test_a_real_referees_messages_are_valid_against_the_schema(tmp_path: Path) -> None:
    dumps = [tmp_path / f"bot{b}.jsonl" for b in range(2)]
    bots = [
        BotEntry(name="polite", argv=[*HOSTILE, "polite", "--dump", str(dumps[0])]),
        BotEntry(name="illegal", argv=[*HOSTILE, "illegal", "--game", "0", "--act", "2", "--dump", str(dumps[1])]),
    ]
    spec = match_spec(
        bots, [(0, [0, 1]), (0, [1, 0])], tmp_path=tmp_path, policy="substitute", limits=open_to_bots(tmp_path)
    )
    run_match(spec)
    kinds: set[str] = set()
    for dump in dumps:
        for line in dump.read_bytes().splitlines():
            message = json.loads(line)
            assert referee_errors(message) == [], message
            kinds.add(message["type"])
    assert kinds == {"welcome", "game_start", "act", "events", "game_end", "violation", "match_end"}


# ---- the dealer's exchange, as protocol.md §6 shows it ----


def eager(message: Message, seat: int) -> Message:
    """Order up (or call) at once, discard the first card not of the upcard's suit, play the first legal card."""
    legal: list[Message] = message["legal"]
    if legal[0]["type"] == "discard":
        suit = message["view"]["upcard"][1]
        return next((a for a in legal if a["card"][1] != suit), legal[0])
    return next((a for a in legal if a["type"] != "pass"), legal[0])


def documented_dealer_messages() -> list[Message]:
    """The JSON lines of protocol.md's block of the dealer's messages (after the marker comment)."""
    text = (ROOT / "protocol.md").read_text()
    marker = "<!-- the dealer's exchange: tests/play/test_protocol_wire.py plays this game again -->"
    assert marker in text, "protocol.md §6 lost its real example of the dealer's exchange"
    block = text[text.index(marker) :].split("```json\n", 1)[1].split("```", 1)[0]
    return [json.loads(line) for line in block.splitlines() if line.strip()]


def test_the_dealers_exchange_in_protocol_md_is_what_a_real_game_sends() -> None:
    """The documented messages are a real game's, in order: four-hand, seed 0, every seat playing ``eager``."""
    seen, _ = capture("four-hand", seed=0, choose=eager)
    documented = documented_dealer_messages()
    dealer = documented[0]["view"]["dealer"]
    stream = [m for _, m in seen[dealer]]
    start = stream.index(documented[0])
    assert stream[start : start + len(documented)] == documented


@pytest.mark.parametrize(
    ("variant", "options"),
    [
        ("four-hand", {"defend_alone": True}),
        ("two-hand", {}),
        ("three-hand", {}),
        ("four-hand", {"dealer_exchange": "mandatory"}),
    ],
)
def test_the_dealer_holds_six_cards_from_the_order_up_to_his_discard(variant: str, options: dict[str, Any]) -> None:
    """What protocol.md §6 and §7 say of every exchange after a bid (the Benny has its own ``cards`` event)."""
    checked = 0
    for seed in range(8):
        seen, _ = capture(variant, options, seed)
        for seat, stream in enumerate(seen):
            hand_cards: list[str] = []
            for index, (way, message) in enumerate(stream):
                if way != "in" or message["type"] not in ("act", "events"):
                    continue
                for event in message["events"]:
                    if event["type"] == "hand_start":
                        hand_cards = event["hand"]
                    if event["type"] == "exchange" and event["seat"] != seat:
                        assert event["discard"] is None  # the others learn whether he took it, not his discard
                if message["type"] != "act" or message["view"]["phase"] != "discard":
                    continue
                view = message["view"]
                assert view["dealer"] == seat
                last = message["events"][-1]  # the bid that made trump, the last event before the request
                assert last["type"] == "action" and last["action"]["type"] == "order_up"
                assert len(view["hand"]) == 6 and view["upcard"] in view["hand"]
                assert sorted(view["hand"]) == sorted([*hand_cards, view["upcard"]])
                assert view["upcard_taken"] is None and view["discarded"] is None
                assert {a["card"] for a in message["legal"]} <= set(view["hand"])
                discard = stream[index + 1][1]["action"]["card"]
                after = next(m for w, m in stream[index + 2 :] if w == "in" and m["type"] in ("act", "events"))
                exchange = after["events"][0]
                declined = discard == view["upcard"]
                assert exchange == {"type": "exchange", "seat": seat, "took_upcard": not declined, "discard": discard}
                if after["type"] == "act" and after["view"]["hand_number"] == view["hand_number"]:
                    assert after["view"]["hand"] == [c for c in view["hand"] if c != discard]
                    assert after["view"]["discarded"] == discard
                    assert after["view"]["upcard_taken"] is not declined
                checked += 1
    assert checked >= 3


def test_under_view_false_the_discard_request_lacks_the_view_only_after_the_dealers_own_bid() -> None:
    """protocol.md §7: the dealer who took the upcard up himself (or named trump on the Benny) is asked to discard
    without a view; after another seat's order up, the discard request is his first of the hand, with the view."""
    kinds: set[tuple[bool, str]] = set()
    for variant in ("two-hand", "three-hand", "four-hand", "british"):
        for seed in range(6):
            seen, _ = capture(variant, seed=seed, views=False)
            for seat, stream in enumerate(seen):
                for way, message in stream:
                    if way == "in" and message["type"] == "act" and message["legal"][0]["type"] == "discard":
                        last = message["events"][-1]
                        own = last["type"] == "cards" or (last["type"] == "action" and last["seat"] == seat)
                        assert ("view" in message) is not own
                        kinds.add(("view" in message, last["type"]))
    assert kinds == {(True, "action"), (False, "action"), (False, "cards")}


# ---- what each seat learns of Railroad's calls for best and Hasenpfeffer's widow (protocol.md section 6) ----


@pytest.mark.parametrize(
    ("variant", "options"),
    [
        ("railroad", {}),
        ("railroad-33", {"best_order": "receive_first"}),
        ("hasenpfeffer", {"defenders_score_tricks": True, "points_to_win": 3}),
    ],
)
def test_a_passed_card_the_widow_and_a_discard_are_told_only_to_whom_may_know_them(
    variant: str, options: dict[str, Any]
) -> None:
    told: dict[str, int] = {}
    for seed in range(4):
        seen, _ = capture(variant, options, seed)
        for seat, stream in enumerate(seen):
            bidder = None
            for _, message in (item for item in stream if item[0] == "in"):
                for event in message.get("events", []):
                    kind = event["type"]
                    if kind == "call_for_best":  # the caller's discard, to him alone
                        if seat != event["seat"]:
                            assert event["discard"] is None, event
                        elif event["called"] and options.get("best_order") != "receive_first":
                            assert event["discard"] is not None, event
                    elif kind == "give_best":  # the passed card, to the giver and the receiver
                        assert (event["card"] is not None) == (seat in (event["seat"], event["receiver"])), event
                    elif kind == "best_discard":
                        assert (event["card"] is not None) == (seat == event["seat"]), event
                    elif kind == "contract":
                        bidder = event["seat"]
                    elif kind == "widow":  # to the high bidder alone
                        assert seat == bidder, event
                    elif kind == "declare":
                        assert (event["discard"] is not None) == (seat == event["seat"]), event
                    else:
                        continue
                    told[kind] = told.get(kind, 0) + 1
    if variant.startswith("railroad"):
        assert {"call_for_best", "give_best"} <= set(told)
        assert ("best_discard" in told) == (options.get("best_order") == "receive_first")
    else:
        assert {"contract", "widow", "declare"} <= set(told)


def learnable(hand: dict[str, Any], seat: int) -> set[str]:
    """The cards ``seat`` may ever be told of in one recorded hand of Railroad or Hasenpfeffer: its own, the upcard,
    the cards played, a card passed to it, and the widow if it declared."""
    deal, actions = hand["deal"], hand["actions"]
    known = set(deal["hands"][seat]) | {a["card"] for a in actions if a["type"] == "play"}
    if deal["upcard"] is not None:
        known.add(deal["upcard"])
    known |= {a["card"] for a in actions if a["type"] == "give_best" and (a["seat"] + 2) % 4 == seat}
    if any(a["type"] == "declare" and a["seat"] == seat for a in actions):
        known.add(deal["kitty"][0])
    return known


@pytest.mark.parametrize(
    ("variant", "options"),
    [
        ("railroad", {"defend_alone": True}),
        ("railroad-33", {"best_order": "receive_first", "joker_upcard": "dealer_names"}),
        ("hasenpfeffer", {"defenders_score_tricks": True, "points_to_win": 3}),
        ("hasenpfeffer-single", {"defenders_score_tricks": True, "points_to_win": 3, "all_pass": "stick_dealer"}),
    ],
)
def test_no_message_of_the_new_games_names_a_card_its_seat_never_may_know(
    variant: str, options: dict[str, Any]
) -> None:
    """Every frame a seat is sent, hand by hand: another seat's card never played, the undealt cards, the widow of
    a hand it did not declare, a card passed between two others, never appear in it."""
    hidden_cards = 0
    for seed in range(3):
        seen, record = capture(variant, options, seed)
        hands = record["hands"]
        for seat, stream in enumerate(seen):
            deck = {c for hand in hands for h in hand["deal"]["hands"] for c in h} | set(hands[0]["deal"]["kitty"])
            number = -1
            for way, message in stream:
                if way != "in":
                    continue
                for part in [*message.get("events", []), {k: v for k, v in message.items() if k != "events"}]:
                    if part["type"] == "hand_start":  # what follows speaks of this hand
                        number = part["hand_number"]
                    if number < 0 or number >= len(hands):
                        assert not cards_in_json(part), part  # before the first hand, or after the last
                        continue
                    secret = deck - learnable(hands[number], seat)
                    hidden_cards += len(secret)
                    assert not cards_in_json(part) & secret, (seat, number, part)
    assert hidden_cards  # the check had cards to look for


REFEREE_KINDS = {"welcome", "game_start", "act", "events", "game_end", "match_end", "violation"}


def documented_lines() -> list[dict[str, Any]]:
    """Every one-line JSON object of protocol.md's ``json`` blocks, a note after it (``(to seat 0)``) left off."""
    text = (ROOT / "protocol.md").read_text()
    found = []
    for block in text.split("```json\n")[1:]:
        for line in block.split("```", 1)[0].splitlines():
            line = re.sub(r"\s+\([^{}]*\)\s*$", "", line.strip())
            if line.startswith("{") and line.endswith("}"):
                found.append(json.loads(line))
    return found


def test_every_message_and_event_protocol_md_shows_is_valid_against_the_schema() -> None:
    """A stranger copies these examples: each referee message is valid as it stands, and each event is valid inside
    an ``events`` message."""
    checked = 0
    for example in documented_lines():
        kind = example.get("type")
        if kind == "hello" or (kind == "action" and "request_id" in example):  # the bot's side: parsed elsewhere
            continue
        message = example if kind in REFEREE_KINDS else {"type": "events", "events": [example]}
        assert referee_errors(message) == [], example
        checked += 1
    assert checked >= 40  # the examples are found
