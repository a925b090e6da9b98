"""The referee reads plain hellos and replies by hand and everything else with the validator: the two must agree on
every frame the hand reader takes, the hand reader must take what the SDK and ordinary bots send, and a referee whose
bots all speak plainly must never load pydantic."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import UTF8
from hypothesis import given
from hypothesis import strategies as st

from arena.engine.actions import Action
from arena.play.incoming import (
    ALL_ACTIONS,
    Hello,
    MessageError,
    Reply,
    plain_message,
    read_bot_message,
    validated_message,
)
from arena.play.lineup import build_match

TEXT = st.one_of(
    st.text(UTF8, max_size=70),
    st.text("abcXYZ019 -_.", max_size=140),
    st.sampled_from(["", "bot", "J\u00f6rg", "\ud800", "x" * 64, "x" * 65, "t" * 128, "t" * 129]),
)
VALUE = st.one_of(
    TEXT,
    st.integers(-(2**70), 2**70),
    st.sampled_from([0, 1, 2, -1, 2**63 - 1, 2**63]),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.lists(st.integers(0, 3), max_size=2),
)
ACTION = st.one_of(
    st.sampled_from(ALL_ACTIONS).map(lambda a: a.to_json()),
    st.dictionaries(
        st.sampled_from(["type", "card", "suit", "alone"]),
        st.one_of(VALUE, st.sampled_from(["play", "call", "order_up", "pass", "AS", "JK", "H", "X"])),
        max_size=3,
    ),
)
HELLO = st.fixed_dictionaries(
    {"type": st.just("hello"), "name": TEXT, "protocol": st.one_of(st.just(1), VALUE), "token": TEXT},
    optional={"version": st.one_of(TEXT, st.none(), VALUE), "view": st.one_of(st.booleans(), VALUE), "x": VALUE},
)
REPLY = st.fixed_dictionaries(
    {"type": st.just("action"), "request_id": st.one_of(st.integers(0, 10**6), VALUE), "action": ACTION},
    optional={"extra": VALUE},
)


EDGES = ["x" * 64, "x" * 65, "", "\ud800", "J\u00f6rg", "t" * 128, "t" * 129, True, 1.0, None, 2**63, -1, [], {}, "1"]
VALID = [
    {"type": "hello", "name": "bot", "protocol": 1, "token": "tok", "version": "1", "view": True},
    {"type": "action", "request_id": 4, "action": {"type": "call", "suit": "H", "alone": False}},
    {"type": "action", "request_id": 4, "action": {"type": "play", "card": "JK"}},
]


def near_valid() -> list[dict[str, Any]]:
    """Every valid message above with one key (its action's keys too) set to each edge value, dropped, or added."""
    found = []
    for message in VALID:
        for inner in (False, True):
            if inner and "action" not in message:
                continue
            where = message["action"] if inner else message
            for key in [*where, "extra", "alone", "view", "version"]:
                for change in [*EDGES, "DROP"]:
                    changed = {k: (dict(v) if isinstance(v, dict) else v) for k, v in message.items()}
                    target = changed["action"] if inner else changed
                    if change == "DROP":
                        target.pop(key, None)
                    else:
                        target[key] = change
                    found.append(changed)
    return found


def test_every_edge_of_a_valid_message_is_read_alike_by_hand_and_by_the_validator() -> None:
    taken = 0
    for message in near_valid():
        for ascii_only in (False, True):
            raw = json.dumps(message, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
            plain = plain_message(raw)
            assert plain is None or plain == validated(raw), raw
            taken += plain is not None
    assert taken > 50  # the hand reader takes the valid ones among them


@st.composite
def frames(draw: st.DrawFn) -> bytes:
    """A frame as bots write them: JSON in any spacing, key order and escaping, sometimes with a key twice, or any
    bytes at all."""
    message = draw(st.one_of(HELLO, REPLY, st.dictionaries(st.sampled_from(["type", "name"]), VALUE)))
    if draw(st.booleans()):
        items = list(message.items())
        items = draw(st.permutations(items))
        message = dict(items)
    style = draw(st.sampled_from(["compact", "spaced", "ascii", "twice", "bytes"]))
    if style == "bytes":
        return draw(st.binary(max_size=80))
    if style == "twice" and message:
        key = draw(st.sampled_from(sorted(message)))
        body = json.dumps(message)[1:-1]
        return ("{" + f"{json.dumps(key)}: {json.dumps(draw(VALUE))}, " + body + "}").encode("utf-8", "surrogatepass")
    text = json.dumps(
        message,
        separators=(",", ":") if style == "compact" else None,
        ensure_ascii=style == "ascii",
        allow_nan=True,
    )
    return text.encode("utf-8", "surrogatepass")


def validated(raw: bytes) -> Hello | Reply | None:
    """What the validator makes of a frame, in the referee's terms; None where it refuses it."""
    try:
        return validated_message(raw)
    except MessageError:
        return None


@given(frames())
def test_a_frame_read_by_hand_is_the_validators_message(raw: bytes) -> None:
    plain = plain_message(raw)
    if plain is not None:
        assert validated(raw) == plain, raw


@given(frames())
def test_reading_any_frame_gives_the_validators_message_or_its_refusal(raw: bytes) -> None:
    try:
        read: Hello | Reply | None = read_bot_message(raw)
    except MessageError:
        read = None
    assert read == validated(raw), raw


@pytest.mark.parametrize("action", ALL_ACTIONS, ids=str)
def test_an_ordinary_reply_in_any_spacing_and_key_order_is_read_by_hand(action: Action) -> None:
    body = action.to_json()
    for text in (
        json.dumps({"type": "action", "request_id": 7, "action": body}),  # Python's default spacing
        json.dumps({"action": dict(reversed(body.items())), "request_id": 7, "type": "action"}, indent=2),
    ):
        assert plain_message(text.encode()) == Reply(7, action)
    if body.get("alone") is False:  # alone may be left out when false
        short = {k: v for k, v in body.items() if k != "alone"}
        assert plain_message(json.dumps({"type": "action", "request_id": 7, "action": short}).encode()) == Reply(
            7, action
        )


def test_a_hello_as_the_sdk_and_the_examples_write_it_is_read_by_hand() -> None:
    for hello in (
        {"type": "hello", "name": "random", "version": "1.0", "protocol": 1, "token": "ab" * 16, "view": True},
        {"type": "hello", "name": "node-bot", "protocol": 1, "token": "ab" * 16},
        {"token": "t", "protocol": 1, "name": "j", "view": False, "type": "hello", "version": None},
    ):
        read = plain_message(json.dumps(hello).encode())
        assert isinstance(read, Hello) and read.name == hello["name"] and read.view == hello.get("view", True)


def test_a_referee_whose_bots_speak_plainly_never_loads_pydantic(tmp_path: Path) -> None:
    spec = build_match(
        ["random", "heuristic"],
        variant="two-hand",
        options={},
        games=2,
        seed=3,
        time="10+1",
        max_decision=10.0,
        policy="forfeit",
        max_strikes=3,
        log_dir=str(tmp_path / "logs"),
    )
    watch = (
        "import atexit, sys; "
        "atexit.register(lambda: sys.stderr.write('pydantic loaded: %s\\n' % ('pydantic' in sys.modules))); "
        "sys.argv = ['referee']; from arena.play.referee import main; main()"
    )
    done = subprocess.run(
        [sys.executable, "-c", watch], input=json.dumps(spec.to_json()), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    records: list[dict[str, Any]] = [json.loads(line)["record"] for line in done.stdout.splitlines()]
    assert len(records) == 2 and all(not r.get("violations") for r in records)
    assert done.stderr.splitlines()[-1] == "pydantic loaded: False"
