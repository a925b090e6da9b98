"""Actions as values and as the wire format: parsing, printing, and refusing what is not an action."""

from __future__ import annotations

import json
from typing import Any

import pytest

from arena.engine.actions import (
    DEFEND_ALONE,
    PASS,
    Call,
    DefendAlone,
    Discard,
    NameTrump,
    OrderUp,
    Pass,
    Play,
    parse_action,
)
from arena.engine.cards import JOKER, Card, Suit
from arena.errors import InvalidActionError, RulesError

EVERY_KIND = [
    Pass(),
    OrderUp(False),
    OrderUp(True),
    Call(Suit.H, False),
    Call(Suit.S, True),
    Discard(Card.parse("9C")),
    DefendAlone(),
    NameTrump(Suit.D),
    Play(Card.parse("JH")),
    Play(JOKER),
]


@pytest.mark.parametrize("act", EVERY_KIND, ids=lambda a: json.dumps(a.to_json()))
def test_action_json_round_trips_through_text(act: Any) -> None:
    wire = json.loads(json.dumps(act.to_json()))
    assert parse_action(wire) == act
    assert wire["type"] == act.type


def test_wire_forms_are_those_of_the_protocol() -> None:
    assert Pass().to_json() == {"type": "pass"}
    assert OrderUp(False).to_json() == {"type": "order_up", "alone": False}
    assert Call(Suit.H, True).to_json() == {"type": "call", "suit": "H", "alone": True}
    assert Discard(Card.parse("9C")).to_json() == {"type": "discard", "card": "9C"}
    assert DefendAlone().to_json() == {"type": "defend_alone"}
    assert NameTrump(Suit.S).to_json() == {"type": "name_trump", "suit": "S"}
    assert Play(JOKER).to_json() == {"type": "play", "card": "JK"}


def test_alone_defaults_to_false_when_omitted() -> None:
    assert parse_action({"type": "order_up"}) == OrderUp(False)
    assert parse_action({"type": "call", "suit": "C"}) == Call(Suit.C, False)


def test_parsed_actions_equal_freshly_built_ones() -> None:
    assert parse_action({"type": "pass"}) is PASS
    assert parse_action({"type": "defend_alone"}) is DEFEND_ALONE
    assert parse_action({"type": "play", "card": "AS"}) == Play(Card.parse("AS"))


@pytest.mark.parametrize(
    "data",
    [
        None,
        "pass",
        ["pass"],
        {},
        {"type": "bid"},
        {"type": None},
        {"type": "pass", "alone": False},
        {"type": "play"},
        {"type": "play", "card": "1C"},
        {"type": "play", "card": 9},
        {"type": "play", "card": "JH", "seat": 1},
        {"type": "discard", "card": "ZZ"},
        {"type": "call", "suit": "X"},
        {"type": "call", "suit": "HS"},
        {"type": "call"},
        {"type": "call", "suit": "H", "alone": "yes"},
        {"type": "order_up", "alone": 1},
        {"type": "name_trump", "suit": "S", "alone": False},
        {"type": "name_trump"},
        {"type": "defend_alone", "seat": 2},
    ],
    ids=repr,
)
def test_malformed_action_raises_invalid_action_error(data: Any) -> None:
    with pytest.raises(InvalidActionError):
        parse_action(data)


@pytest.mark.parametrize("kind", [["play"], {"play": 1}], ids=["list", "dict"])
def test_unhashable_action_type_raises_invalid_action_error(kind: Any) -> None:
    with pytest.raises(InvalidActionError):
        parse_action({"type": kind})


def test_invalid_action_error_is_a_rules_error_and_a_value_error() -> None:
    assert issubclass(InvalidActionError, RulesError)
    assert issubclass(InvalidActionError, ValueError)


def test_actions_are_immutable_values() -> None:
    act = Play(Card.parse("9C"))
    with pytest.raises(AttributeError):
        act.card = Card.parse("TC")  # type: ignore[misc]
    assert hash(act) == hash(Play(Card.parse("9C")))
