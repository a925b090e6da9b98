"""``arena play``: a person takes a seat at the terminal against bots; each finished game is a game record."""

from __future__ import annotations

import contextlib
import json
import sys

import click

from arena import options as shared

HELP_TEXT = """Play yourself against bots, at this terminal.

You take seat SEAT (--seat). BOTS are bundled names (random, heuristic, search), registered names or paths, as in
arena match: one bot per other seat in seat order, or one bot for all of them. Each game shows the hand, the bids,
each trick and the scores; at your turn it lists the choices. Type a card (JH, 9c, 10h), a suit (h, hearts), pass,
order, alone, defend, or a choice's number; ? prints help; quit, Ctrl-D or Ctrl-C end the game (a finished game is
recorded, an unfinished one is not). You have no clock; the bots keep theirs. In the record your seat is named human.
"""


@click.command("play", help=HELP_TEXT)
@click.argument("bots", nargs=-1, required=True)
@shared.variant
@click.option("--seat", type=click.IntRange(min=0), default=0, show_default=True, help="Your seat (0 is first).")
@shared.rule_options
@click.option("--games", type=click.IntRange(min=1), default=1, show_default=True, help="Games to play in a row.")
@click.option("--seed", type=int, help="Seed of the first deal (default: a random one, printed).")
@shared.options(
    shared.time_control,
    shared.max_decision,
    shared.handshake_timeout,
    shared.max_hands,
    shared.record,
    shared.log_dir,
    shared.trusted_bots,
)
def play_command(
    bots: tuple[str, ...],
    variant: str,
    seat: int,
    option_pairs: tuple[str, ...],
    games: int,
    seed: int | None,
    time_control: str,
    max_decision: float,
    handshake_timeout: float,
    max_hands: int,
    record_path: str | None,
    log_dir: str,
    trusted_bots: bool,
) -> None:
    from rich.console import Console

    from arena.human.player import LeftTheTable, TerminalPlayer
    from arena.human.screen import Screen
    from arena.human.session import bot_entries, human_match, play_games
    from arena.text import open_private
    from arena.tournament.config import secret_seed
    from arena.tournament.flags import checked_rules
    from arena.tournament.registry import Registry

    options = checked_rules(variant, option_pairs, time_control, max_decision)
    entries = bot_entries(bots, variant=variant, options=options, seat=seat, lookup=Registry.default().lookup)
    spec = human_match(
        entries,
        variant=variant,
        options=options,
        time=time_control,
        max_decision=max_decision,
        max_hands=max_hands,
        log_dir=log_dir,
        trusted_bots=trusted_bots,
    ).replace(handshake_timeout=handshake_timeout)
    seed = secret_seed() if seed is None else seed  # a bot at the table must not guess the deals
    console = Console(highlight=False)
    screen = Screen(console, seat)
    echo = not sys.stdin.isatty()  # typed text from a pipe or file is not echoed by a terminal: show it
    if not echo:
        with contextlib.suppress(ImportError):  # line editing at the prompt, where the platform has it
            import readline  # noqa: F401

    def read(prompt: str) -> str:
        typed = console.input(prompt)
        if echo:
            screen.say(typed)
        return typed

    player = TerminalPlayer(screen, read, seed=seed, games=games)
    finished = 0

    def on_game(record: object) -> None:
        nonlocal finished
        finished += 1
        if record_path:  # opened for each game: a game stopped before its end leaves no file behind
            with open_private(record_path) as sink:
                sink.write(json.dumps(record, separators=(",", ":")) + "\n")
            screen.say(f"Game recorded in {record_path} (arena replay {record_path} shows it)")

    ended = None
    try:
        play_games(spec, player.handle, seat=seat, seed=seed, games=games, on_game=on_game)
    except KeyboardInterrupt:
        ended = "Ctrl-C"
    except LeftTheTable as left:
        ended = str(left)
    if ended is not None:
        kept = f"; the {finished} finished game(s) are recorded" if finished and record_path else ""
        console.print()
        console.print(f"Game ended by you ({ended}): this game is not recorded{kept}.", markup=False, highlight=False)
        if ended == "Ctrl-C":
            raise SystemExit(130)
