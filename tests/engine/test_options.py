"""Rule options, variant presets and their coherence (docs/rules.md sections 1, 3, 8 and 12)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from arena.engine.options import OPTION_NAMES, VARIANTS, RuleOptions, make_rules, parse_option_value
from arena.errors import OptionsError
from arena.tournament.config import RuleOptionsModel


def test_defaults_are_those_of_the_rule_book() -> None:
    options = RuleOptions()
    assert options.deck == 24
    assert options.dealer_exchange == "optional"
    assert options.stick_the_dealer is False
    assert options.going_alone is True
    assert options.defend_alone is False
    assert options.points_to_win == 10
    assert options.rubber is False


@pytest.mark.parametrize(
    ("variant", "players", "deck", "partnerships"),
    [
        ("two-hand", 2, 24, False),
        ("three-hand", 3, 24, False),
        ("four-hand", 4, 24, True),
        ("four-hand-32", 4, 32, True),
        ("british", 4, 25, True),
    ],
)
def test_variant_presets_match_the_table_of_section_2(
    variant: str, players: int, deck: int, partnerships: bool
) -> None:
    rules = make_rules(variant)
    assert rules.variant == variant
    assert rules.players == players
    assert rules.options.deck == deck
    assert rules.partnerships is partnerships


def test_the_variants_are_the_rule_books() -> None:
    assert set(VARIANTS) == {
        "two-hand",
        "three-hand",
        "four-hand",
        "four-hand-32",
        "british",
        "railroad",
        "railroad-33",
        "hasenpfeffer",
        "hasenpfeffer-single",
        "nap",
        "five-hand",
        "call-ace",
        "seven-hand",
        "six-hand",
        "six-hand-pairs",
    }


def test_going_alone_is_on_by_default_in_four_hand_and_off_elsewhere() -> None:
    assert make_rules("four-hand").options.going_alone
    assert make_rules("british").options.going_alone
    assert not make_rules("two-hand").options.going_alone
    assert not make_rules("three-hand").options.going_alone


def test_partners_sit_opposite_in_four_hand() -> None:
    rules = make_rules("four-hand")
    assert rules.sides == 2
    assert [rules.side_of(s) for s in range(4)] == [0, 1, 0, 1]


@pytest.mark.parametrize("variant", ["two-hand", "three-hand"])
def test_each_player_is_his_own_side_without_partnerships(variant: str) -> None:
    rules = make_rules(variant)
    assert rules.sides == rules.players
    assert [rules.side_of(s) for s in range(rules.players)] == list(range(rules.players))


def test_overrides_change_single_options_of_a_preset() -> None:
    rules = make_rules("four-hand", {"stick_the_dealer": True, "dealer_exchange": "mandatory", "defend_alone": True})
    assert rules.options.stick_the_dealer and rules.options.defend_alone
    assert rules.options.dealer_exchange == "mandatory"
    assert rules.options.deck == 24


def test_options_are_frozen() -> None:
    options = make_rules("four-hand").options
    with pytest.raises(Exception):  # noqa: B017 - pydantic raises its own ValidationError here
        options.deck = 32  # type: ignore[misc]


def test_unknown_variant_raises_options_error_naming_it() -> None:
    with pytest.raises(OptionsError, match="'nine-hand'"):
        make_rules("nine-hand")


def test_unknown_option_raises_options_error_naming_it() -> None:
    with pytest.raises(OptionsError, match="'trump_dealer'"):
        make_rules("four-hand", {"trump_dealer": True})


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("deck", 52),
        ("deck", "24"),
        ("dealer_exchange", "sometimes"),
        ("stick_the_dealer", "yes"),
        ("going_alone", 1),
        ("defend_alone", None),
        ("points_to_win", "10"),
        ("points_to_win", 0),
        ("points_to_win", -5),
        ("rubber", "true"),
    ],
)
def test_bad_option_value_raises_options_error_naming_the_option(name: str, value: Any) -> None:
    with pytest.raises(OptionsError, match=f"'{name}'"):
        make_rules("four-hand", {name: value})


@pytest.mark.parametrize("variant", ["two-hand", "three-hand"])
def test_going_alone_in_two_or_three_hand_raises_options_error(variant: str) -> None:
    with pytest.raises(OptionsError, match="'going_alone'"):
        make_rules(variant, {"going_alone": True})


def test_defend_alone_without_going_alone_raises_options_error() -> None:
    with pytest.raises(OptionsError, match="'defend_alone'"):
        make_rules("four-hand", {"going_alone": False, "defend_alone": True})
    with pytest.raises(OptionsError, match="'defend_alone'"):
        make_rules("two-hand", {"defend_alone": True})


def test_rubber_with_three_hand_raises_options_error() -> None:
    with pytest.raises(OptionsError, match="'rubber'"):
        make_rules("three-hand", {"rubber": True})


@pytest.mark.parametrize("variant", ["two-hand", "four-hand", "four-hand-32", "british"])
def test_rubber_is_accepted_for_side_based_variants(variant: str) -> None:
    assert make_rules(variant, {"rubber": True}).options.rubber


def test_options_errors_are_value_errors_for_callers_that_only_know_those() -> None:
    assert issubclass(OptionsError, ValueError)


@pytest.mark.parametrize(
    ("key", "text", "value"),
    [
        ("deck", "32", 32),
        ("points_to_win", " 5 ", 5),
        ("stick_the_dealer", "true", True),
        ("stick_the_dealer", "Yes", True),
        ("rubber", "off", False),
        ("going_alone", "0", False),
        ("dealer_exchange", "Mandatory", "mandatory"),
    ],
)
def test_option_values_parse_from_cli_text(key: str, text: str, value: Any) -> None:
    assert parse_option_value(key, text) == value
    assert make_rules("four-hand", {key: parse_option_value(key, text)}).options.to_json()[key] == value


@pytest.mark.parametrize(("key", "text"), [("deck", "many"), ("rubber", "maybe"), ("nonsense", "1")])
def test_bad_cli_option_text_raises_options_error_naming_the_option(key: str, text: str) -> None:
    with pytest.raises(OptionsError, match=f"'{key}'"):
        parse_option_value(key, text)


@pytest.mark.parametrize(
    ("key", "text", "value"), [("deck", "52", 52), ("deck", "Stripped", "stripped"), ("call", "ACE", "ace")]
)
def test_an_option_of_numbers_and_words_parses_either(key: str, text: str, value: Any) -> None:
    assert parse_option_value(key, text) == value


def test_a_word_that_is_no_choice_is_refused_naming_the_choices() -> None:
    with pytest.raises(OptionsError, match="'call': must be 'any_card', 'non_trump' or 'ace'"):
        RuleOptions.checked({"call": parse_option_value("call", "king")})


def test_every_option_of_the_model_has_a_name() -> None:
    assert tuple(f.name for f in dataclasses.fields(RuleOptions)) == OPTION_NAMES
    assert tuple(RuleOptionsModel.model_fields) == OPTION_NAMES


VALUES = st.one_of(
    st.booleans(),
    st.integers(-2, 40),
    st.sampled_from(["optional", "mandatory", "true", "24", "", "Optional"]),
    st.floats(allow_nan=False),
    st.none(),
)


@given(st.dictionaries(st.sampled_from([*OPTION_NAMES, "colour"]), VALUES, max_size=4))
def test_the_engine_accepts_exactly_the_options_the_config_validation_accepts(values: dict[str, Any]) -> None:
    """The engine checks options by hand (no validation library in a bot's process); the config validates the same
    dataclass with pydantic, strictly: both must take and refuse the same values, and give the same options."""
    try:
        engine = RuleOptions.checked(values)
    except OptionsError:
        engine = None
    try:
        model = RuleOptionsModel.model_validate(values)
    except ValidationError:
        model = None
    assert (engine is None) == (model is None), values
    if engine is not None and model is not None:
        assert engine.to_json() == model.model_dump()


@pytest.mark.parametrize(
    ("variant", "overrides", "games"),
    [
        ("four-hand", {"min_bid": 2}, ["Hasenpfeffer", "Nap"]),
        ("railroad", {"all_pass": "redeal"}, ["Hasenpfeffer", "Nap"]),
        ("railroad", {"bidding": "single"}, ["Hasenpfeffer"]),
        ("hasenpfeffer", {"misere": False}, ["Nap"]),
    ],
)
def test_an_option_of_other_games_is_refused_naming_every_game_that_has_it(
    variant: str, overrides: dict[str, Any], games: list[str]
) -> None:
    with pytest.raises(OptionsError) as refused:
        make_rules(variant, overrides)
    message = str(refused.value)
    assert message.startswith(f"rule option '{next(iter(overrides))}' exists only in ")
    named = [game for game in ("Hasenpfeffer", "Nap", "call-partner", "six-hand") if game in message]
    assert named == games, message


@pytest.mark.parametrize(("variant", "key", "value"), [("hasenpfeffer", "going_alone", True), ("nap", "rubber", True)])
def test_an_upcard_option_in_a_bidding_game_says_its_fixed_value(variant: str, key: str, value: object) -> None:
    """Hasenpfeffer's and Nap's game_start states the rule book's options at their fixed values: the refusal says
    which (an outside check read ``going_alone: false`` there and was told the option does not exist)."""
    with pytest.raises(OptionsError, match=f"'{key}' is not a choice in .*: it is false there"):
        make_rules(variant, {key: value})
