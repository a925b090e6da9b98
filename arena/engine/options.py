"""Rule options (one frozen dataclass), the variant presets, and the resolved rules of a game.

The engine needs no validation library: every bot imports it through the SDK, and a bot process starts faster
without one. ``RuleOptions.checked`` checks values strictly; the tournament config validates the same dataclass with
pydantic (its ``__pydantic_config__``) to explain every problem in the config's words.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, cast, get_args, get_origin, get_type_hints

from arena.engine.cards import JOKER_ID, SUITS, Suit
from arena.errors import OptionsError

OptionValue = bool | int | str
"""The value of a rule option: each option is a flag, a number or a word."""


@dataclass(frozen=True, slots=True)
class RuleOptions:
    """Every rule option of docs/rules.md with its default; a variant is a preset of these."""

    __pydantic_config__: ClassVar[dict[str, bool | str]] = {"strict": True, "extra": "forbid"}

    deck: Literal[24, 32, 25, 33] = 24
    dealer_exchange: Literal["optional", "mandatory"] = "optional"
    stick_the_dealer: bool = False
    going_alone: bool = True
    defend_alone: bool = False
    points_to_win: int = 10
    rubber: bool = False
    # Railroad Euchre's (docs/rules.md section 13); their defaults leave the other variants as they were
    joker_upcard: Literal["dealer_names", "fixed_suit"] = "dealer_names"
    joker_suit: Literal["C", "D", "H", "S"] = "H"
    call_for_best: bool = False
    best_order: Literal["discard_first", "receive_first"] = "discard_first"
    defender_calls_best: bool = False
    lone_euchred_points: Literal[2, 4] = 2
    laps: bool = False
    slam: bool = False
    # Hasenpfeffer's (docs/rules.md section 14): the other games refuse them but at their defaults
    bidding: Literal["auction", "single"] = "auction"
    min_bid: Literal[1, 2, 3] = 1
    all_pass: Literal["joker_bids_three", "stick_dealer", "redeal"] = "joker_bids_three"
    widow: Literal["bidder_takes", "unused"] = "bidder_takes"
    first_lead: Literal["bidder", "eldest"] = "bidder"
    made_score: Literal["tricks", "bid"] = "tricks"
    defenders_score_tricks: bool = False

    @classmethod
    def checked(cls, values: Mapping[str, object]) -> RuleOptions:
        """Options from ``values`` (the rest at their defaults), each checked strictly: a bool is no integer and
        ``"true"`` no bool. Raises OptionsError naming the first unknown option or bad value."""
        for key, value in values.items():
            allowed = _ALLOWED.get(key)
            if allowed is None:
                raise OptionsError(f"unknown rule option {key!r} (known: {', '.join(OPTION_NAMES)})")
            if isinstance(allowed, tuple):
                ok = type(value) in (int, str) and value in allowed
                need = f"must be {', '.join(map(repr, allowed[:-1]))} or {allowed[-1]!r}"
            else:
                ok = type(value) is allowed
                need = f"must be {'true or false' if allowed is bool else 'an integer'}"
            if not ok:
                raise OptionsError(f"bad value for rule option {key!r}: {need} (got {value!r})")
        # Each value is of its field's type now (checked one by one above, which mypy does not follow).
        return cls(**cast(Mapping[str, Any], values))

    def to_json(self) -> dict[str, OptionValue]:
        """The options as a JSON object (every option, in the order above)."""
        return {name: getattr(self, name) for name in OPTION_NAMES}


# Each option's type: a Literal's values, or the type itself.
_ALLOWED: dict[str, type | tuple[OptionValue, ...]] = {
    name: get_args(hint) if get_origin(hint) is Literal else hint
    for name, hint in get_type_hints(RuleOptions).items()
    if name != "__pydantic_config__"
}
OPTION_NAMES: tuple[str, ...] = tuple(field.name for field in dataclasses.fields(RuleOptions))
BOOK_OPTIONS = OPTION_NAMES[:7]  # deck .. rubber: the rule book's, stated in every game_start and record
OPTION_DEFAULTS: dict[str, OptionValue] = RuleOptions().to_json()


RAILROAD: dict[str, OptionValue] = {
    "deck": 25,
    "joker_upcard": "fixed_suit",
    "call_for_best": True,
    "defend_alone": True,
    "defender_calls_best": True,
}
"""Railroad Euchre: four-hand with the joker, calling for best and defending alone."""


HASENPFEFFER_OPTIONS = ("bidding", "min_bid", "all_pass", "widow", "first_lead", "made_score", "defenders_score_tricks")
"""Hasenpfeffer's own rule options."""

HASENPFEFFER: dict[str, OptionValue] = {"deck": 25, "going_alone": False}
"""Hasenpfeffer: the 25-card pack, an auction instead of the upcard's two rounds, no lone hands."""
HASENPFEFFER_DEFAULTS: dict[str, OptionValue] = {**OPTION_DEFAULTS, **HASENPFEFFER}

EUCHRE_ONLY = (
    *("dealer_exchange", "stick_the_dealer", "going_alone", "defend_alone", "rubber", "joker_upcard", "joker_suit"),
    *("call_for_best", "best_order", "defender_calls_best", "lone_euchred_points", "laps", "slam"),
)
"""The options of the upcard's euchre that Hasenpfeffer has not: refused there but at the preset's values."""

Game = Literal["euchre", "hasenpfeffer"]


@dataclass(frozen=True, slots=True)
class Variant:
    """A named preset: a number of players and the options that differ from the defaults."""

    name: str
    players: int
    preset: dict[str, OptionValue]
    game: Game = "euchre"


VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant("two-hand", 2, {"going_alone": False}),
        Variant("three-hand", 3, {"going_alone": False}),
        Variant("four-hand", 4, {}),
        Variant("four-hand-32", 4, {"deck": 32}),
        Variant("british", 4, {"deck": 25}),
        Variant("railroad", 4, RAILROAD),
        Variant("railroad-33", 4, {**RAILROAD, "deck": 33}),
        Variant("hasenpfeffer", 4, HASENPFEFFER, "hasenpfeffer"),
        Variant("hasenpfeffer-single", 4, {**HASENPFEFFER, "bidding": "single"}, "hasenpfeffer"),
    )
}


@dataclass(frozen=True, slots=True)
class Rules:
    """The resolved rules of a game: variant name, number of players and all options."""

    variant: str
    players: int
    options: RuleOptions
    game: Game = "euchre"

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

    @property
    def calls_for_best(self) -> bool:
        """Whether a lone player may call for his partner's best card in these rules (Railroad)."""
        return self.options.call_for_best or self.options.defender_calls_best

    def told_options(self) -> dict[str, OptionValue]:
        """The options as a game's messages and records state them: the rule book's seven always, every option the
        variant's preset sets, every option of the game's own (Hasenpfeffer's), and every other that differs from its
        default. So the five variants of the rule book, played as they come, are told exactly what they always
        were, and no option that differs from its default goes untold."""
        preset = VARIANTS[self.variant].preset if self.variant in VARIANTS else {}
        own = HASENPFEFFER_OPTIONS if self.game == "hasenpfeffer" else ()
        return {
            name: value
            for name, value in self.options.to_json().items()
            if name in BOOK_OPTIONS or name in preset or name in own or value != OPTION_DEFAULTS[name]
        }

    def upcard_suit(self, upcard: int) -> Suit:
        """The suit an upcard proposes in round 1: its own; a turned-up joker's is ``joker_suit`` (Railroad)."""
        return Suit.parse(self.options.joker_suit) if upcard == JOKER_ID else SUITS[upcard & 3]


def make_rules(variant: str, overrides: Mapping[str, object] | None = None) -> Rules:
    """Resolve a variant name and option overrides into coherent rules, or raise OptionsError naming the problem."""
    if variant not in VARIANTS:
        raise OptionsError(f"unknown variant {variant!r} (known: {', '.join(VARIANTS)})")
    preset = VARIANTS[variant]
    options = RuleOptions.checked({**preset.preset, **(overrides or {})})
    _check_coherent(preset.players, options)
    _check_game(preset.game, options)
    return Rules(variant=variant, players=preset.players, options=options, game=preset.game)


def _check_coherent(players: int, options: RuleOptions) -> None:
    if options.points_to_win < 1:
        raise OptionsError(f"rule option 'points_to_win' must be at least 1 (got {options.points_to_win})")
    if options.going_alone and players != 4:
        raise OptionsError("rule option 'going_alone' exists only in four-hand variants")
    if options.defend_alone and not options.going_alone:
        raise OptionsError("rule option 'defend_alone' needs 'going_alone' (a lone bid to defend against)")
    if options.rubber and players == 3:
        raise OptionsError("rule option 'rubber' is incoherent with three-hand (no fixed sides)")
    if options.call_for_best and not options.going_alone:
        raise OptionsError("rule option 'call_for_best' needs 'going_alone' (only a lone player calls for best)")
    if options.defender_calls_best and not options.defend_alone:
        raise OptionsError("rule option 'defender_calls_best' needs 'defend_alone' (a lone defender to call)")
    if options.joker_upcard == "fixed_suit" and options.deck % 2 == 0:
        raise OptionsError(
            f"rule option 'joker_upcard' needs a pack with the joker (deck 25 or 33, not {options.deck})"
        )
    if options.slam and options.rubber:
        raise OptionsError("rule option 'slam' is incoherent with 'rubber' (a rubber already values a shut-out at 3)")
    if options.laps and not options.rubber:
        raise OptionsError(
            "rule option 'laps' needs 'rubber': the arena's games are independent deals, so points can only carry "
            "into the next game of a rubber"
        )


def _check_game(game: Game, options: RuleOptions) -> None:
    """Each game's own options at their defaults in the others; Hasenpfeffer's pack and its refusals."""
    for key in HASENPFEFFER_OPTIONS if game != "hasenpfeffer" else ():
        if getattr(options, key) != OPTION_DEFAULTS[key]:
            raise OptionsError(f"rule option {key!r} exists only in Hasenpfeffer (hasenpfeffer, hasenpfeffer-single)")
    if game != "hasenpfeffer":
        return
    if options.deck != 25:
        raise OptionsError(f"rule option 'deck' must be 25 in Hasenpfeffer (24 and the joker), not {options.deck}")
    for key in EUCHRE_ONLY:
        if getattr(options, key) != HASENPFEFFER_DEFAULTS[key]:
            raise OptionsError(f"rule option {key!r} does not exist in Hasenpfeffer (docs/rules.md section 14)")


def parse_option_value(key: str, text: str) -> OptionValue:
    """Turn ``KEY=VALUE`` text from a CLI flag into the option's typed value (as its type in RuleOptions says:
    an integer, true or false, or one of its words in any case); RuleOptions.checked checks the value itself."""
    allowed = _ALLOWED.get(key)
    if allowed is None:
        raise OptionsError(f"unknown rule option {key!r} (known: {', '.join(OPTION_NAMES)})")
    stripped = text.strip()
    choices = allowed if isinstance(allowed, tuple) else ()
    words = {value.lower(): value for value in choices if isinstance(value, str)}
    if words:
        return words.get(stripped.lower(), stripped)
    if allowed is int or isinstance(allowed, tuple):
        try:
            return int(stripped)
        except ValueError:
            raise OptionsError(f"rule option {key!r} needs an integer (got {text!r})") from None
    lowered = stripped.lower()
    if lowered in ("true", "1", "yes", "on"):
        return True
    if lowered in ("false", "0", "no", "off"):
        return False
    raise OptionsError(f"rule option {key!r} needs true or false (got {text!r})")
