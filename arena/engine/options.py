"""Rule options (one frozen dataclass), the variant presets, and the resolved rules of a game.

The engine needs no validation library: every bot imports it through the SDK, and a bot process starts faster
without one. ``RuleOptions.checked`` checks values strictly; the tournament config validates the same dataclass with
pydantic (its ``__pydantic_config__``) to explain every problem in the config's words.
"""

from __future__ import annotations

import dataclasses
import json
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

    deck: Literal[24, 32, 25, 33, 28, 29, 36, 37, 52, 53, "stripped"] = 24
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
    all_pass: Literal["joker_bids_three", "stick_dealer", "redeal", "dealer_must_bid"] = "joker_bids_three"
    widow: Literal["bidder_takes", "unused"] = "bidder_takes"
    first_lead: Literal["bidder", "eldest"] = "bidder"
    made_score: Literal["tricks", "bid"] = "tricks"
    defenders_score_tricks: bool = False
    # The number of seats, for the games played by several (Nap, call-partner Euchre): 0 is the variant's own
    players: int = 0
    # Nap's (docs/rules.md section 15): the other games refuse them but at their defaults
    joker: bool = False
    misere: bool = True
    misere_trumps: bool = False
    misere_stakes: Literal["3/3", "3/6"] = "3/3"
    wellington: bool = True
    bluecher: bool = True
    scoring: Literal["settlement", "bidder_only"] = "settlement"
    deals_per_player: int = 3
    target_score: int = 0  # 0: none (the game lasts deals_per_player deals a seat)
    # Call-partner Euchre's (five-hand, call-ace, seven-hand; docs/rules.md section 16)
    call: Literal["any_card", "non_trump", "ace"] = "any_card"
    called_cards: Literal[1, 2] = 1
    march_points: Literal[2, 3] = 3
    lone_march_points: int = 0  # 0: the game's own (the number of players; six-hand 5, or 4 in teams of two)
    buried_call: Literal["alone", "partnered"] = "alone"
    # Six-hand Euchre's (six-hand, six-hand-pairs; docs/rules.md section 16)
    sides: Literal["two_teams_of_three", "three_teams_of_two"] = "two_teams_of_three"
    lone_call_for_best: Literal["none", "one", "each"] = "none"

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
"""The options of the upcard's euchre that Hasenpfeffer and Nap have not: refused there but at the preset's values."""

NAP_OPTIONS = (
    *("joker", "min_bid", "misere", "misere_trumps", "misere_stakes", "wellington", "bluecher"),
    *("all_pass", "scoring", "deals_per_player", "target_score"),
)
"""Nap's own rule options."""

NAP: dict[str, OptionValue] = {"deck": 52, "going_alone": False, "min_bid": 2, "all_pass": "redeal"}
"""Nap: the full pack, no lone hands (every declarer plays alone), bids from Two, a redeal when all pass."""

CALL_PARTNER_OPTIONS = ("call", "called_cards", "march_points", "lone_march_points", "buried_call")
"""Call-partner Euchre's own rule options (five-hand, call-ace, seven-hand)."""

SIX_HAND_OPTIONS = ("sides", "lone_call_for_best", "lone_march_points")
"""Six-hand Euchre's own rule options."""

Game = Literal["euchre", "hasenpfeffer", "nap", "call_partner", "six_hand"]

OWN_OPTIONS: dict[Game, tuple[str, ...]] = {
    "euchre": (),
    "hasenpfeffer": HASENPFEFFER_OPTIONS,
    "nap": NAP_OPTIONS,
    "call_partner": CALL_PARTNER_OPTIONS,
    "six_hand": SIX_HAND_OPTIONS,
}
"""Each game's own options: every other game refuses them but at their defaults. (``deck`` and ``players`` are
every game's, checked apart.)"""

DECKS: dict[Game, tuple[int | str, ...]] = {
    "euchre": (24, 25, 32, 33),
    "hasenpfeffer": (25,),
    "nap": (52, "stripped"),
    "call_partner": (28, 29, 32, 33, 36, 37),
    "six_hand": (32, 33),
}
"""The packs each game is played with."""

CALL_PARTNER_DECKS: dict[int, tuple[int, ...]] = {5: (32, 28, 29, 33), 6: (32, 33), 7: (36, 37)}
"""Call-partner Euchre's packs by the number of players, the default first."""

STRIPPED_DECKS = {2: 24, 3: 24, 4: 28, 5: 32, 6: 32, 7: 36}
"""Nap's stripped pack by the number of players: five cards each and at least one to spare."""


@dataclass(frozen=True, slots=True)
class Variant:
    """A named preset: a number of players (and the others it may be played by) and the options that differ from
    the defaults."""

    name: str
    players: int
    preset: dict[str, OptionValue]
    game: Game = "euchre"
    seats: tuple[int, ...] = ()  # every number of players it is played by; () for ``players`` alone

    @property
    def player_counts(self) -> tuple[int, ...]:
        """The numbers of players the variant may be played by."""
        return self.seats or (self.players,)


DEFAULT_VARIANT = "four-hand"  # what a command or a config plays unless told

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
        Variant("nap", 4, NAP, "nap", (2, 3, 4, 5, 6, 7)),
        Variant("five-hand", 5, {}, "call_partner", seats=(5, 6, 7)),
        Variant("call-ace", 5, {"call": "ace"}, "call_partner", seats=(5, 6)),
        Variant("seven-hand", 7, {}, "call_partner"),
        Variant("six-hand", 6, {"deck": 32}, "six_hand"),
        Variant("six-hand-pairs", 6, {"deck": 32, "sides": "three_teams_of_two"}, "six_hand"),
    )
}


@dataclass(frozen=True, slots=True)
class Rules:
    """The resolved rules of a game: variant name, number of players and all options."""

    variant: str
    players: int
    options: RuleOptions
    game: Game = "euchre"
    # The number of cards in the pack: ``deck``, Nap's stripped pack by the number of players, and Nap's joker. Made
    # once, with the rules (a hand's deal reads it at every hand).
    deck: int = dataclasses.field(init=False, compare=False)

    def __post_init__(self) -> None:
        deck = self.options.deck
        size = STRIPPED_DECKS[self.players] if deck == "stripped" else deck
        object.__setattr__(self, "deck", size + 1 if self.options.joker else size)

    @property
    def partnerships(self) -> bool:
        """Whether seats play in fixed partnerships: four-hand's two pairs, six-hand's teams."""
        return (self.players == 4 and self.game not in ("nap", "call_partner")) or self.game == "six_hand"

    @property
    def sides(self) -> int:
        """Number of scoring sides: 2 in four-hand and six-hand in teams of three, 3 in six-hand's teams of two,
        otherwise one per player."""
        if not self.partnerships:
            return self.players
        return 3 if self.options.sides == "three_teams_of_two" else 2

    def side_of(self, seat: int) -> int:
        """The scoring side of a seat: the lowest seat of its side is the side's number."""
        return seat % self.sides if self.partnerships else seat

    @property
    def calls_for_best(self) -> bool:
        """Whether a lone player may call for his partner's best card in these rules (Railroad; six-hand's
        lone_call_for_best)."""
        options = self.options
        return options.call_for_best or options.defender_calls_best or options.lone_call_for_best != "none"

    def told_options(self) -> dict[str, OptionValue]:
        """The options as a game's messages and records state them: the rule book's seven always, every option the
        variant's preset sets, every option of the game's own (Hasenpfeffer's), and every other that differs from its
        default. So the five variants of the rule book, played as they come, are told exactly what they always
        were, and no option that differs from its default goes untold."""
        preset = VARIANTS[self.variant].preset if self.variant in VARIANTS else {}
        own = OWN_OPTIONS[self.game]
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
    given = {**preset.preset, **(overrides or {})}
    options = RuleOptions.checked(given)
    players = options.players or preset.players
    if players not in preset.player_counts:
        counts = preset.player_counts
        allowed = str(counts[0]) if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"
        raise OptionsError(f"rule option 'players' must be {allowed} in {variant} (got {options.players})")
    if preset.game == "call_partner" and "deck" not in (overrides or {}):  # the pack that fits the table
        options = RuleOptions.checked({**given, "deck": CALL_PARTNER_DECKS[players][0]})
    _check_coherent(players, options)
    _check_game(variant, preset.game, players, options)
    return Rules(variant=variant, players=players, options=options, game=preset.game)


def _check_coherent(players: int, options: RuleOptions) -> None:
    if options.points_to_win < 1:
        raise OptionsError(f"rule option 'points_to_win' must be at least 1 (got {options.points_to_win})")
    if options.going_alone and players < 4:
        raise OptionsError("rule option 'going_alone' exists only at tables of four or more")
    if options.defend_alone and not options.going_alone:
        raise OptionsError("rule option 'defend_alone' needs 'going_alone' (a lone bid to defend against)")
    if options.rubber and players == 3:
        raise OptionsError("rule option 'rubber' is incoherent with three-hand (no fixed sides)")
    if options.call_for_best and not options.going_alone:
        raise OptionsError("rule option 'call_for_best' needs 'going_alone' (only a lone player calls for best)")
    if options.defender_calls_best and not options.defend_alone:
        raise OptionsError("rule option 'defender_calls_best' needs 'defend_alone' (a lone defender to call)")
    if options.joker_upcard == "fixed_suit" and (options.deck == "stripped" or options.deck % 2 == 0):
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
    for key in ("deals_per_player", "lone_march_points", "target_score"):
        if getattr(options, key) < 0 or (key == "deals_per_player" and options.deals_per_player < 1):
            least = 1 if key == "deals_per_player" else 0
            raise OptionsError(f"rule option {key!r} must be at least {least} (got {getattr(options, key)})")


_GAME_NAMES: dict[Game, str] = {
    "euchre": "the upcard's euchre",
    "hasenpfeffer": "Hasenpfeffer (hasenpfeffer, hasenpfeffer-single)",
    "nap": "Nap (nap)",
    "call_partner": "call-partner Euchre (five-hand, call-ace, seven-hand)",
    "six_hand": "six-hand Euchre (six-hand, six-hand-pairs)",
}


def _check_game(variant: str, game: Game, players: int, options: RuleOptions) -> None:
    """Each game's own options at their defaults in the others, its packs, and what it refuses."""
    own = OWN_OPTIONS[game]
    for keys in OWN_OPTIONS.values():
        for key in keys:
            if key not in own and getattr(options, key) != OPTION_DEFAULTS[key]:
                # an option may be several games' own (min_bid and all_pass: Hasenpfeffer's and Nap's)
                games = " and ".join(_GAME_NAMES[g] for g, theirs in OWN_OPTIONS.items() if key in theirs)
                raise OptionsError(f"rule option {key!r} exists only in {games}")
    decks = CALL_PARTNER_DECKS[players] if game == "call_partner" else DECKS[game]
    if options.deck not in decks:
        where = f"{variant} with {players} players" if game == "call_partner" else variant
        known = ", ".join(map(str, decks[:-1])) + f" or {decks[-1]}" if len(decks) > 1 else str(decks[0])
        raise OptionsError(f"rule option 'deck' must be {known} in {where}, not {options.deck!r}")
    if game in ("hasenpfeffer", "nap"):
        defaults = {**OPTION_DEFAULTS, **(HASENPFEFFER if game == "hasenpfeffer" else NAP)}
        for key in EUCHRE_ONLY:
            if getattr(options, key) != defaults[key]:  # stated in game_start all the same: at its fixed value
                fixed = json.dumps(defaults[key])
                raise OptionsError(f"rule option {key!r} is not a choice in {_GAME_NAMES[game]}: it is {fixed} there")
    if game == "hasenpfeffer" and options.all_pass == "dealer_must_bid":
        raise OptionsError(
            "rule option 'all_pass' = 'dealer_must_bid' is Nap's; Hasenpfeffer's stuck dealer is 'stick_dealer'"
        )
    if game == "nap":
        _check_nap(options)
    if game in ("call_partner", "six_hand") and (options.rubber or options.defend_alone or options.call_for_best):
        key = "rubber" if options.rubber else "defend_alone" if options.defend_alone else "call_for_best"
        raise OptionsError(f"rule option {key!r} does not exist in {_GAME_NAMES[game]}")
    if game == "call_partner" and options.called_cards == 2 and players < 6:
        raise OptionsError("rule option 'called_cards' = 2 needs six or seven players")
    if game in ("call_partner", "six_hand"):
        _check_many_hands(options)


# Railroad's options that call-partner and six-hand Euchre have not (six-hand's call for best is its own option)
_NOT_MANY_HANDS = ("defender_calls_best", "best_order", "lone_euchred_points", "slam")


def _check_many_hands(options: RuleOptions) -> None:
    """What call-partner and six-hand Euchre refuse beside the other games' own options."""
    for key in _NOT_MANY_HANDS:
        if getattr(options, key) != OPTION_DEFAULTS[key]:
            raise OptionsError(f"rule option {key!r} does not exist in call-partner or six-hand Euchre")
    if options.lone_call_for_best != "none" and not options.going_alone:
        raise OptionsError("rule option 'lone_call_for_best' needs 'going_alone' (only a lone maker calls for best)")


def _check_nap(options: RuleOptions) -> None:
    if options.min_bid == 1:
        raise OptionsError("rule option 'min_bid' must be 2 or 3 in Nap (One is only the dealer's forced bid)")
    if options.all_pass not in ("redeal", "dealer_must_bid"):
        raise OptionsError(
            f"rule option 'all_pass' must be 'redeal' or 'dealer_must_bid' in Nap, not {options.all_pass!r}"
        )
    if options.bluecher and not options.wellington:
        raise OptionsError("rule option 'bluecher' needs 'wellington' (Bluecher is bid only over Wellington)")
    if options.misere_trumps and not options.misere:
        raise OptionsError("rule option 'misere_trumps' needs 'misere'")
    if options.misere_stakes != "3/3" and not options.misere:
        raise OptionsError("rule option 'misere_stakes' needs 'misere'")


def parse_option_value(key: str, text: str) -> OptionValue:
    """Turn ``KEY=VALUE`` text from a CLI flag into the option's typed value (as its type in RuleOptions says:
    an integer, true or false, or one of its words in any case); RuleOptions.checked checks the value itself."""
    allowed = _ALLOWED.get(key)
    if allowed is None:
        raise OptionsError(f"unknown rule option {key!r} (known: {', '.join(OPTION_NAMES)})")
    stripped = text.strip()
    choices = allowed if isinstance(allowed, tuple) else ()
    words = {value.lower(): value for value in choices if isinstance(value, str)}
    if stripped.lower() in words:
        return words[stripped.lower()]
    if allowed is int or any(type(value) is int for value in choices):
        try:
            return int(stripped)
        except ValueError:
            need = "an integer" + "".join(f" or {word!r}" for word in words.values())
            raise OptionsError(f"rule option {key!r} needs {need} (got {text!r})") from None
    if words:
        return stripped  # RuleOptions.checked names the words allowed
    lowered = stripped.lower()
    if lowered in ("true", "1", "yes", "on"):
        return True
    if lowered in ("false", "0", "no", "off"):
        return False
    raise OptionsError(f"rule option {key!r} needs true or false (got {text!r})")
