"""The ``KEY=VALUE`` flags the commands share: rule options (``--option``) and a bot's limits (``--limit``).

Here, below every command that takes them (``arena match``, ``arena play``, ``arena sprt``), so that each reads
them the same way and names a bad one the same way: a ``FlagError`` naming the flag, which the command line prints
as its one-line error (exit code 2) like any other ``ArenaError``. No click here: the parsing is the library's.
"""

from __future__ import annotations

from pydantic import ValidationError

from arena.engine.options import OptionValue, parse_option_value
from arena.errors import ArenaError
from arena.play.matchspec import Limits
from arena.tournament.config import LimitsModel, bot_limits, explain


class FlagError(ArenaError):
    """A ``KEY=VALUE`` flag that cannot be read; the message names the flag."""


def checked_rules(
    variant: str, pairs: tuple[str, ...], time_control: str, max_decision: float
) -> dict[str, OptionValue]:
    """The rule options the ``--option`` flags ``pairs`` give ``variant``, checked together with the time control
    before a command starts anything: an ArenaError in the words a config's errors use."""
    from arena.play.clock import TimeControl
    from arena.tournament.config import rules_problem

    options = parse_options(pairs)
    problem = rules_problem(variant, options)
    if problem:
        raise ArenaError(problem)
    TimeControl.parse(time_control, max_decision=max_decision)
    return options


def parse_options(pairs: tuple[str, ...]) -> dict[str, OptionValue]:
    """``KEY=VALUE`` flags into typed rule option overrides."""
    options: dict[str, OptionValue] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise FlagError(f"--option: {pair!r} is not KEY=VALUE")
        options[key.strip()] = parse_option_value(key.strip(), value)
    return options


def parse_limits(pairs: tuple[str, ...]) -> Limits:
    """``KEY=VALUE`` flags into the match's ``Limits`` (the keys of a config's ``[limits]`` table)."""
    fields: dict[str, str | None] = {}
    listed: dict[str, list[str]] = {}  # readable and writable: a path each time the flag is given
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep:
            raise FlagError(f"--limit: {pair!r} is not KEY=VALUE")
        if key not in LimitsModel.model_fields:
            known = ", ".join(LimitsModel.model_fields)
            raise FlagError(f"--limit: no limit {key!r} (known: {known})")
        if key in ("readable", "writable"):
            listed.setdefault(key, []).append(value)
        else:
            fields[key] = None if value.lower() == "none" else value
    try:
        return bot_limits(LimitsModel.model_validate({**fields, **listed}))
    except ValidationError as exc:
        raise FlagError(f"--limit: {'; '.join(explain(exc, LimitsModel))}") from None
