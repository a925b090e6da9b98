"""arena.sdk.messages and the view's TypedDict are the type checker's copies of the wire models (arena.play.protocol):
they must name the same fields, so that a field added to one definition fails here until the copy follows."""

from __future__ import annotations

import typing

import pytest
from pydantic import BaseModel

from arena.engine.view import SeatViewJSON
from arena.play import protocol
from arena.sdk import messages


def typed_dicts() -> dict[str, type]:
    """The message TypedDicts of arena.sdk.messages by their ``type`` literal."""
    found = {}
    for value in vars(messages).values():
        if isinstance(value, type) and typing.is_typeddict(value) and value.__module__ == messages.__name__:
            kind = typing.get_type_hints(value).get("type")
            if typing.get_origin(kind) is typing.Literal:
                (literal,) = typing.get_args(kind)
                found[literal] = value
    return found


def wire_models() -> dict[str, type[BaseModel]]:
    """The referee's message and event models by their ``type`` literal."""
    found = {}
    for union in (protocol.RefereeMessage, protocol.Event):
        for model in typing.get_args(typing.get_args(union)[0]):
            (literal,) = typing.get_args(model.model_fields["type"].annotation)
            found[literal] = model
    return found


def keys(typed: type) -> set[str]:
    return set(typed.__required_keys__) | set(typed.__optional_keys__)  # type: ignore[attr-defined]


@pytest.mark.parametrize("kind", sorted(wire_models()))
def test_each_referee_message_and_event_has_its_typed_dict_with_the_same_fields(kind: str) -> None:
    typed = typed_dicts()
    assert kind in typed, f"arena.sdk.messages has no TypedDict for {kind!r}"
    assert keys(typed[kind]) == set(wire_models()[kind].model_fields)


def test_the_views_typed_dict_has_the_views_fields() -> None:
    assert keys(SeatViewJSON) == set(protocol.ViewModel.model_fields)


def test_the_event_union_holds_every_event_the_referee_sends() -> None:
    """messages.Event is what a bot's on_event is typed with: an event left out of it is one the type checker
    says can never come (and so flags the code that handles it)."""
    sent = {
        typing.get_args(m.model_fields["type"].annotation)[0]
        for m in typing.get_args(typing.get_args(protocol.Event)[0])
    }
    typed = {typing.get_args(typing.get_type_hints(t)["type"])[0] for t in typing.get_args(messages.Event)}
    assert typed == sent
