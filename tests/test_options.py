"""arena.options: the options that arena match, play and sprt share, with the library's defaults (issue 42: a flag
left out means what a config's key left out means, and its help reads the same in every command)."""

from __future__ import annotations

import dataclasses

import click
import pytest

from arena.cli import main
from arena.play.matchspec import MatchSpec
from arena.tournament.config import TournamentConfig

COMMANDS = ("match", "play", "sprt")
SPEC_FIELD = {"time_control": "time"}  # a parameter named apart from the MatchSpec field it fills


OWN_MEANING = {"games", "seed"}  # the games of a match, of a sitting, of each SPRT match; the seed of each


def parameters(command: str) -> dict[str, click.Parameter]:
    found = main.commands[command]
    return {parameter.name: parameter for parameter in found.params if parameter.name is not None}


def default(command: str, parameter: click.Parameter) -> object:
    """What the command takes when the option is left out (a flag: False)."""
    return parameter.get_default(click.Context(main.commands[command]))


def spec_defaults() -> dict[str, object]:
    return {
        f.name: f.default for f in dataclasses.fields(MatchSpec) if f.default is not dataclasses.MISSING
    }  # fmt: skip


@pytest.mark.parametrize("command", COMMANDS)
def test_a_flag_left_out_means_what_a_spec_or_configs_key_left_out_means(command: str) -> None:
    defaults, config = spec_defaults(), TournamentConfig.model_fields
    checked = 0
    for name, parameter in parameters(command).items():
        field = SPEC_FIELD.get(name, name)
        if field in defaults and not parameter.required:
            assert default(command, parameter) == defaults[field], f"{command} --{name}"
            if field in config:
                assert config[field].default == defaults[field], f"config {field}"
            checked += 1
    assert checked >= 3


def test_an_option_several_commands_take_has_one_help_and_default() -> None:
    """The options arena.options declares are the same object in each command; an option declared again by hand
    in one command (its help drifting from the others') fails here."""
    seen: dict[str, tuple[object, str | None, str]] = {}
    for command in COMMANDS:
        for name, parameter in parameters(command).items():
            if name in OWN_MEANING or (name == "variant" and command == "sprt"):  # sprt: required, three-hand refused
                continue
            shown = (default(command, parameter), getattr(parameter, "help", None), command)
            if name in seen:
                assert shown[:2] == seen[name][:2], f"--{name}: {command} against {seen[name][2]}"
            else:
                seen[name] = shown
    assert {"variant", "option_pairs", "time_control", "max_decision", "handshake_timeout"} <= seen.keys()
