"""``arena sprt NEW BASE``: the command, its live display and its verdict line."""

from __future__ import annotations

import dataclasses
import re
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TextIO

import click

from arena import options as shared

if TYPE_CHECKING:  # the CLI loads this module for every command: the run's machinery only when the test runs
    from arena.sprt.run import SprtState


def default_db(new: str, base: str, variant: str) -> Path:
    """The results file of a test in the current folder: ``sprt-NEW-vs-BASE-VARIANT.db``."""
    names = [re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(n).stem.removesuffix("_bot")) for n in (new, base)]
    return Path(f"sprt-{names[0]}-vs-{names[1]}-{variant}.db")


def status_line(state: SprtState) -> str:
    """Games, LLR with its bounds, the Elo estimate with its interval, and the pentanomial counts."""
    lower, upper = state.test.bounds
    return (
        f"games {state.games}  pairs {state.counts.pairs}  LLR {state.llr:+.2f} [{lower:+.2f}, {upper:+.2f}]"
        f"  {state.estimate}  pairs LL..WW {state.counts}"
    )


def verdict_line(state: SprtState, new: str, base: str, *, seconds: float) -> str:
    """The one-line verdict: H1 accepted, H0 accepted, or inconclusive at the cap."""
    test, est = state.test, state.estimate
    said = {
        "H1": f"H1 accepted: {new} is at least {test.elo1:g} {test.model} Elo stronger than {base}",
        "H0": f"H0 accepted: {new} is at most {test.elo0:g} {test.model} Elo stronger than {base}",
        None: f"inconclusive at the cap: neither H0 ({test.elo0:g}) nor H1 ({test.elo1:g}) accepted",
    }[state.verdict]
    return (
        f"{said} (LLR {state.llr:+.2f}, {state.games} games, {state.counts.pairs} pairs, {est}, "
        f"{seconds:.0f} s this run)"
    )


class SprtPrinter:
    """Redraws one status line on a terminal; elsewhere prints one every ``every`` seconds."""

    def __init__(self, stream: TextIO | None = None, every: float = 5.0) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.every = every
        self.last = 0.0
        self.drawn = False

    def update(self, state: SprtState, *, force: bool = False) -> None:
        """Show the state after one more stored game."""
        now = time.monotonic()
        if self.tty:
            self.stream.write(f"\r{status_line(state)}\033[K")
            self.drawn = True
        elif force or now - self.last >= self.every:
            self.last = now
            self.stream.write(status_line(state) + "\n")
        self.stream.flush()

    def close(self) -> None:
        """End the status line."""
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False


SPRT_HELP = """Is NEW stronger than BASE? An SPRT on duplicate deals.

\b
NEW and BASE are bots as arena match takes them, settings included:
'search --samples 2' against search tests a setting of one program.

\b
NEW plays BASE on duplicate deals (each deal in both seatings, by fresh bot
processes) until the sequential probability ratio test accepts H1 (NEW is at
least --elo1 stronger) or H0 (at most --elo0), or --max-games is reached.
The pentanomial model counts each deal's pair of games once (docs/sprt.md).
The games are stored in --db like a tournament's: Ctrl-C stops, the same
command resumes, and arena ranking --db FILE shows them.
"""


@click.command("sprt", help=SPRT_HELP)
@click.argument("new")
@click.argument("base")
@click.option(
    "--variant",
    required=True,
    help=f"The rules: {shared.VARIANTS_HELP.removesuffix(' (docs/rules.md)')}; three-hand is refused: docs/sprt.md",
)
@shared.rule_options
@click.option("--elo0", type=float, default=0.0, show_default=True, help="H0: NEW is at most this much stronger.")
@click.option("--elo1", type=float, default=5.0, show_default=True, help="H1: NEW is at least this much stronger.")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="The chance of accepting H1 when H0 holds.")
@click.option("--beta", type=float, default=0.05, show_default=True, help="The chance of accepting H0 when H1 holds.")
@click.option(
    "--elo-model",
    type=click.Choice(["logistic", "normalized"]),
    default="logistic",
    show_default=True,
    help="What --elo0 and --elo1 measure: logistic Elo (the ranking's) or normalised Elo (fishtest's).",
)
@click.option(
    "--partnership",
    type=click.Choice(["self", "mixed"]),
    default="self",
    show_default=True,
    help="Four-hand: two NEW against two BASE (self), or NEW partnered with BASE against two BASE (mixed).",
)
@shared.options(shared.time_control, shared.max_decision, shared.handshake_timeout)
@click.option("--jobs", type=click.IntRange(min=1), default=2, show_default=True, help="Matches in parallel.")
@click.option("--max-games", type=click.IntRange(min=2), default=20000, show_default=True, help="The cap, in games.")
@click.option("--games-per-match", type=click.IntRange(min=1), default=8, show_default=True, help="Deals per match.")
@click.option(
    "--seed",
    type=int,
    help="Seed of the deal sequence (default: a secret one, drawn for a new results file and kept in it).",
)
@click.option("--db", "db_path", type=click.Path(dir_okay=False), help="Results file (default: sprt-NEW-vs-BASE-V.db).")
@shared.trusted_bots
@click.option("--quiet", is_flag=True, help="No live status line; only the verdict.")
def sprt_command(
    *,
    new: str,
    base: str,
    variant: str,
    option_pairs: tuple[str, ...],
    elo0: float,
    elo1: float,
    alpha: float,
    beta: float,
    elo_model: Literal["logistic", "normalized"],
    partnership: Literal["self", "mixed"],
    time_control: str,
    max_decision: float,
    handshake_timeout: float,
    jobs: int,
    max_games: int,
    games_per_match: int,
    seed: int | None,
    db_path: str | None,
    trusted_bots: bool,
    quiet: bool,
) -> None:
    """Run (or resume) an SPRT of NEW against BASE."""
    from arena.play.lineup import bot_words, resolve_words
    from arena.sprt.run import SprtRun, name_sides, run_sprt, sprt_pairing
    from arena.sprt.stats import Sprt
    from arena.tournament.config import TournamentConfig
    from arena.tournament.flags import checked_rules
    from arena.tournament.registry import Registry
    from arena.tournament.store import Store

    options = checked_rules(variant, option_pairs, time_control, max_decision)
    test = Sprt(elo0, elo1, alpha, beta, elo_model)
    lookup = Registry.default().lookup
    known = lambda text: lookup(text) is not None  # noqa: E731
    new_bot = resolve_words(bot_words(new, known=known), lookup)
    base_bot = resolve_words(bot_words(base, known=known), lookup)
    new_bot, base_bot = name_sides(new_bot, base_bot)
    config = TournamentConfig(
        name=f"sprt {new_bot.name} vs {base_bot.name}",
        variant=variant,
        options=options,
        entrants=[new_bot.name, base_bot.name],
        games_per_pairing=max_games // 2,
        games_per_match=games_per_match,
        time=time_control,
        max_decision=max_decision,
        handshake_timeout=handshake_timeout,
        seed=seed,
        partnership=partnership,
        trusted_bots=trusted_bots,
    )
    pairing, copies = sprt_pairing(config, new_bot.name, base_bot.name)
    commands = {new_bot.name: new_bot, base_bot.name: base_bot}
    for name in copies:
        commands[name] = dataclasses.replace(base_bot, name=name)
    run = SprtRun(config, test, commands, pairing)
    db = Path(db_path) if db_path else default_db(new, base, variant)
    printer = None if quiet else SprtPrinter()
    started = time.monotonic()
    with Store.open(db) as store:
        state, interrupted = run_sprt(
            run,
            store,
            jobs=jobs,
            log_dir=str(db.with_suffix("")) + "-logs",
            on_progress=printer.update if printer else None,
        )
    if printer:
        printer.update(state, force=True)
        printer.close()
    _tell(state, interrupted, db, (new_bot.name, base_bot.name), seconds=time.monotonic() - started)


def _tell(state: SprtState, interrupted: bool, db: Path, names: tuple[str, str], *, seconds: float) -> None:
    """How the run ended: the warnings, then the verdict, or why there is none yet (exit 130 or 1)."""
    for error in state.errors:
        click.echo(f"warning: {error}", err=True)
    if interrupted:
        click.echo(
            f"Interrupted: {state.games} games stored in {db}, {status_line(state)}. Run the same command to resume.",
            err=True,
        )
        raise SystemExit(130)
    if state.verdict is None and state.errors:  # not at the cap: matches could not be played (the warnings say why)
        click.echo(
            f"Stopped short: {state.games} games stored in {db}, {status_line(state)}. Matches could not be played"
            " (see the warnings above): run the same command to play them.",
            err=True,
        )
        raise SystemExit(1)
    click.echo(verdict_line(state, *names, seconds=seconds))
