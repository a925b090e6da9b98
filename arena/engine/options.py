"""Rule options (one frozen model), the variant presets, and the resolved rules of a game."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from arena.errors import OptionsError


class RuleOptions(BaseModel):
    """Every rule option of docs/rules.md with its default; a variant is a preset of these."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    deck: Literal[24, 32, 25] = 24
    dealer_exchange: Literal["optional", "mandatory"] = "optional"
    stick_the_dealer: bool = False
    going_alone: bool = True
    defend_alone: bool = False
    points_to_win: int = 10
    rubber: bool = False


OPTION_NAMES: tuple[str, ...] = tuple(RuleOptions.model_fields)


@dataclass(frozen=True, slots=True)
class Variant:
    """A named preset: a number of players and the options that differ from the defaults."""

    name: str
    players: int
    preset: dict[str, Any]


VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant("two-hand", 2, {"going_alone": False}),
        Variant("three-hand", 3, {"going_alone": False}),
        Variant("four-hand", 4, {}),
        Variant("four-hand-32", 4, {"deck": 32}),
        Variant("british", 4, {"deck": 25}),
    )
}


@dataclass(frozen=True, slots=True)
class Rules:
    """The resolved rules of a game: variant name, number of players and all options."""

    variant: str
    players: int
    options: RuleOptions

    @property
    def partnerships(self) -> bool:
        """Whether seats play in fixed partnerships (four-hand)."""
        return self.players == 4

    @property
    def sides(self) -> int:
        """Number of scoring sides: 2 in four-hand, otherwise one per player."""
        return 2 if self.players == 4 else self.players

    def side_of(self, seat: int) -> int:
        """The scoring side of a seat."""
        return seat % 2 if self.players == 4 else seat


def make_rules(variant: str, overrides: dict[str, Any] | None = None) -> Rules:
    """Resolve a variant name and option overrides into coherent rules, or raise OptionsError naming the problem."""
    if variant not in VARIANTS:
        raise OptionsError(f"unknown variant {variant!r} (known: {', '.join(VARIANTS)})")
    preset = VARIANTS[variant]
    values = {**preset.preset, **(overrides or {})}
    for key in values:
        if key not in OPTION_NAMES:
            raise OptionsError(f"unknown rule option {key!r} (known: {', '.join(OPTION_NAMES)})")
    try:
        options = RuleOptions(**values)
    except ValidationError as exc:
        first = exc.errors()[0]
        name = ".".join(str(p) for p in first["loc"]) or "options"
        raise OptionsError(f"bad value for rule option {name!r}: {first['msg']} (got {first['input']!r})") from None
    _check_coherent(preset.players, options)
    return Rules(variant=variant, players=preset.players, options=options)


def _check_coherent(players: int, options: RuleOptions) -> None:
    if options.points_to_win < 1:
        raise OptionsError(f"rule option 'points_to_win' must be at least 1 (got {options.points_to_win})")
    if options.going_alone and players != 4:
        raise OptionsError("rule option 'going_alone' exists only in four-hand variants")
    if options.defend_alone and not options.going_alone:
        raise OptionsError("rule option 'defend_alone' needs 'going_alone' (a lone bid to defend against)")
    if options.rubber and players == 3:
        raise OptionsError("rule option 'rubber' is incoherent with three-hand (no fixed sides)")


def parse_option_value(key: str, text: str) -> Any:
    """Turn ``KEY=VALUE`` text from a CLI flag into the option's typed value."""
    if key not in OPTION_NAMES:
        raise OptionsError(f"unknown rule option {key!r} (known: {', '.join(OPTION_NAMES)})")
    lowered = text.strip().lower()
    if key in ("deck", "points_to_win"):
        try:
            return int(lowered)
        except ValueError:
            raise OptionsError(f"rule option {key!r} needs an integer (got {text!r})") from None
    if key == "dealer_exchange":
        return lowered
    if lowered in ("true", "1", "yes", "on"):
        return True
    if lowered in ("false", "0", "no", "off"):
        return False
    raise OptionsError(f"rule option {key!r} needs true or false (got {text!r})")
