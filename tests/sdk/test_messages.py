"""arena.sdk.messages and the view's TypedDict are the type checker's copies of the wire models (arena.play.protocol):
they must name the same fields, so that a field added to one definition fails here until the copy follows."""

from __future__ import annotations

import typing
from collections.abc import Callable, Iterator

import pytest
import typing_extensions
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


def inner(hint: object, wanted: Callable[[type], bool]) -> list[type]:
    """The classes ``wanted`` accepts inside ``hint``, through its unions, lists and annotations."""
    if typing.get_origin(hint) is typing.Annotated:
        return inner(typing.get_args(hint)[0], wanted)
    if typing.get_origin(hint) is not None:
        return [found for arg in typing.get_args(hint) for found in inner(arg, wanted)]
    return [hint] if isinstance(hint, type) and wanted(hint) else []


def nested(typed: type, model: type[BaseModel], where: str) -> Iterator[tuple[str, type, type[BaseModel]]]:
    """Each TypedDict inside ``typed``'s fields with the one wire model in the same field of ``model``, at any depth
    (a field holding a union of several, the events or the actions, is checked by the tests above)."""
    hints = typing.get_type_hints(typed)
    for name, field in model.model_fields.items():
        typed_dicts = inner(hints.get(name), typing_extensions.is_typeddict)  # the view's are typing_extensions'
        models = inner(field.annotation, lambda c: issubclass(c, BaseModel))
        if len(typed_dicts) == 1 and len(models) == 1:
            yield f"{where}.{name}", typed_dicts[0], models[0]
            yield from nested(typed_dicts[0], models[0], f"{where}.{name}")


def nested_pairs() -> list[tuple[str, type, type[BaseModel]]]:
    """The nested TypedDicts of every referee message and event, and of the view, with their wire models."""
    typed = typed_dicts()
    found = list(nested(SeatViewJSON, protocol.ViewModel, "view"))
    for kind, model in sorted(wire_models().items()):
        found += nested(typed[kind], model, kind)
    return found


def test_each_typed_dict_inside_a_message_or_the_view_has_its_wire_models_fields() -> None:
    """A forfeit in game_end, a trick's cards, the view's calls for best...: the copies inside the messages drift as
    easily as the messages themselves."""
    pairs = nested_pairs()
    assert {"game_end.forfeit", "trick.cards", "view.best.calls", "act.view.partner_call"} <= {p for p, _, _ in pairs}
    for where, typed, model in pairs:
        assert keys(typed) == set(model.model_fields), where


def test_the_event_union_holds_every_event_the_referee_sends() -> None:
    """messages.Event is what a bot's on_event is typed with: an event left out of it is one the type checker
    says can never come (and so flags the code that handles it)."""
    sent = {
        typing.get_args(m.model_fields["type"].annotation)[0]
        for m in typing.get_args(typing.get_args(protocol.Event)[0])
    }
    typed = {typing.get_args(typing.get_type_hints(t)["type"])[0] for t in typing.get_args(messages.Event)}
    assert typed == sent
