"""The command-line options that several commands share (``arena match``, ``arena play``, ``arena sprt``),
declared once: the same name, type, default and help wherever they appear. The defaults are the library's
(arena.play.matchspec), so a flag left out means what a config's key left out means.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import click

from arena.engine.options import DEFAULT_VARIANT, VARIANTS
from arena.play.matchspec import (
    DEFAULT_HANDSHAKE_TIMEOUT,
    DEFAULT_LOG_DIR,
    DEFAULT_MAX_DECISION,
    DEFAULT_MAX_HANDS,
    DEFAULT_MAX_STRIKES,
    DEFAULT_POLICY,
    DEFAULT_TIME,
)

F = TypeVar("F", bound=Callable[..., object])

VARIANTS_HELP = f"{', '.join(list(VARIANTS)[:-1])} or {list(VARIANTS)[-1]} (docs/rules.md)"  # from the engine

variant = click.option("--variant", default=DEFAULT_VARIANT, show_default=True, help=f"The rules: {VARIANTS_HELP}.")
rule_options = click.option(
    "-o",
    "--option",
    "option_pairs",
    multiple=True,
    metavar="KEY=VALUE",
    help="Override a rule option of the variant, e.g. stick_the_dealer=true (repeatable; docs/rules.md).",
)
time_control = click.option(
    "--time",
    "time_control",
    default=DEFAULT_TIME,
    show_default=True,
    help="Clock per bot and game: BANK+INC seconds (a bank, and an increment added at each decision).",
)
max_decision = click.option(
    "--max-decision",
    type=click.FloatRange(min=0.01),
    default=DEFAULT_MAX_DECISION,
    show_default=True,
    help="Hard cap in seconds on any one decision, whatever is left in the bank.",
)
handshake_timeout = click.option(
    "--handshake-timeout",
    type=click.FloatRange(min=0.1),
    default=DEFAULT_HANDSHAKE_TIMEOUT,
    show_default=True,
    help="Seconds a bot has from its start to its hello (protocol.md, 3); not on its clock.",
)
max_hands = click.option(
    "--max-hands",
    type=click.IntRange(min=1),
    default=DEFAULT_MAX_HANDS,
    show_default=True,
    help="Hands after which an undecided game is drawn.",
)
policy = click.option(
    "--policy",
    type=click.Choice(["forfeit", "substitute"]),
    default=DEFAULT_POLICY,
    show_default=True,
    help="What a violation costs: the game, or a strike and a move played by the referee.",
)
max_strikes = click.option(
    "--max-strikes",
    type=click.IntRange(min=1),
    default=DEFAULT_MAX_STRIKES,
    show_default=True,
    help="Violations after which a bot forfeits the rest of the match.",
)


def positive_sizes(_ctx: click.Context, _param: click.Parameter, value: str) -> tuple[int, ...]:
    """A benchmark's ``--sizes``: comma-separated positive numbers, read as a sorted tuple, each once."""
    try:
        counts = tuple(sorted({int(s) for s in value.split(",") if s.strip()}))
    except ValueError:
        raise click.BadParameter(f"not a list of numbers: {value!r}") from None
    if not counts or min(counts) < 1:
        raise click.BadParameter("give at least one positive size")
    return counts


record = click.option(
    "--record", "record_path", type=click.Path(dir_okay=False), help="Append each game's record to this JSONL file."
)
log_dir = click.option(
    "--log-dir",
    type=click.Path(file_okay=False),
    default=DEFAULT_LOG_DIR,
    show_default=True,
    help="Where each bot's output goes: LOG_DIR/MATCH-botN-NAME.log.",
)
limits = click.option(
    "--limit",
    "limit_pairs",
    multiple=True,
    metavar="KEY=VALUE",
    help="What each bot may use, e.g. memory_mb=2048, processes=128, cpu_cores=1 (SECURITY.md: Limits).",
)
trusted_bots = click.option(
    "--trusted-bots",
    is_flag=True,
    help="Play even where this host cannot keep bots apart (SECURITY.md): for bots you trust.",
)


def options(*declared: Callable[[F], F]) -> Callable[[F], F]:
    """Several of the options above at once, in the order given (as they show in ``--help``)."""

    def apply(function: F) -> F:
        for option in reversed(declared):
            function = option(function)
        return function

    return apply
