"""The ``arena`` command line: one click group; library errors become clear messages here and only here."""

from __future__ import annotations

import json
from typing import Any

import click

from arena import __version__
from arena.errors import ArenaError


class ArenaGroup(click.Group):
    """A click group that turns ArenaError into a one-line message with exit code 2."""

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; report arena errors without a traceback."""
        try:
            return super().invoke(ctx)
        except ArenaError as exc:
            click.echo(f"Error: {exc}", err=True)
            ctx.exit(2)


@click.group(cls=ArenaGroup)
@click.version_option(__version__, prog_name="arena")
def main() -> None:
    """Euchre Arena: programs play Euchre against each other."""


@main.group()
def bench() -> None:
    """Benchmarks measured side by side with a reference, in one run."""


@bench.command("engine")
@click.option("--seconds", type=click.FloatRange(min=0.1), default=3.0, show_default=True, help="Time per measurement.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")
def bench_engine(seconds: float, as_json: bool) -> None:
    """Random-playout hands/s of every variant, and pyspiel's euchre beside four-hand."""
    from arena.bench.engine import run

    result = run(seconds)
    if as_json:
        click.echo(json.dumps(result))
        return
    for variant, rate in result["hands_per_second"].items():
        click.echo(f"{variant:14} {rate:10.0f} hands/s")
    if result["ratio"] is None:
        click.echo("pyspiel        not installed (pip install open-spiel to compare)")
    else:
        click.echo(f"{'pyspiel':14} {result['pyspiel_four_hand']:10.0f} hands/s (four-hand, via Python API)")
        click.echo(f"ratio four-hand / pyspiel = {result['ratio']:.2f}")


def parse_options(pairs: tuple[str, ...]) -> dict[str, Any]:
    """``KEY=VALUE`` flags into typed rule option overrides."""
    from arena.options import parse_option_value

    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise click.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint="--option")
        options[key.strip()] = parse_option_value(key.strip(), value)
    return options


@main.command("match")
@click.argument("bots", nargs=-1, required=True)
@click.option("--variant", default="four-hand", show_default=True, help="two-hand, three-hand, four-hand, ...")
@click.option("--option", "option_pairs", multiple=True, metavar="KEY=VALUE", help="Override a rule option.")
@click.option("--games", type=click.IntRange(min=1), default=4, show_default=True, help="Number of games.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the first deal sequence.")
@click.option("--time", "time_control", default="5+0.1", show_default=True, help="BANK+INC seconds per game.")
@click.option(
    "--max-decision",
    type=click.FloatRange(min=0.01),
    default=10.0,
    show_default=True,
    help="Hard cap in seconds on any one decision.",
)
@click.option(
    "--policy",
    type=click.Choice(["forfeit", "substitute"]),
    default="forfeit",
    show_default=True,
    help="What a violation costs: the game, or a strike and a move played by the referee.",
)
@click.option(
    "--max-strikes",
    type=click.IntRange(min=1),
    default=3,
    show_default=True,
    help="Violations after which a bot forfeits the rest of the match.",
)
@click.option("--record", "record_path", type=click.Path(dir_okay=False), help="Append game records (JSONL).")
@click.option(
    "--log-dir",
    type=click.Path(file_okay=False),
    default="logs",
    show_default=True,
    help="Where each bot's output goes.",
)
def match_command(
    bots: tuple[str, ...],
    variant: str,
    option_pairs: tuple[str, ...],
    games: int,
    seed: int,
    time_control: str,
    max_decision: float,
    policy: str,
    max_strikes: int,
    record_path: str | None,
    log_dir: str,
) -> None:
    """Play a match between BOTS (bundled names or script paths), seats rotated over duplicate deals.

    Give one bot per seat, or two bots in four-hand to pit two teams of copies against each other.
    """
    from arena.clock import TimeControl
    from arena.match import build_match, summarize

    options = parse_options(option_pairs)
    TimeControl.parse(time_control, max_decision=max_decision)
    spec = build_match(
        list(bots),
        variant=variant,
        options=options,
        games=games,
        seed=seed,
        time=time_control,
        max_decision=max_decision,
        policy=policy,
        max_strikes=max_strikes,
        log_dir=log_dir,
    )
    from arena.referee import run_match

    sink = open(record_path, "a", encoding="utf-8") if record_path else None  # noqa: SIM115
    results: list[dict[str, Any]] = []

    def on_game(record: dict[str, Any]) -> None:
        results.append(record)
        click.echo(game_line(record))
        if sink is not None:
            sink.write(json.dumps(record, separators=(",", ":")) + "\n")
            sink.flush()

    try:
        run_match(spec, on_game)
    finally:
        if sink is not None:
            sink.close()
    click.echo(summarize(results))


def game_line(record: dict[str, Any]) -> str:
    """One line per finished game."""
    players, scores = record["players"], record["final_scores"]
    seats = "  ".join(f"{players[s]}:{scores[s]}" for s in range(len(players)))
    winners = ",".join(sorted({players[s] for s in record["winners"]}))
    extra = ""
    if "forfeit" in record:
        f = record["forfeit"]
        extra = f"  forfeit by seat {f['seat']} ({f['kind']})"
    return (
        f"game {record['game_index'] + 1:3}  seed {record['seed']}  {seats}  winner {winners}"
        f"  hands {len(record['hands'])}{extra}"
    )


@main.group()
def protocol() -> None:
    """The wire protocol (see protocol.md)."""


@protocol.command("schema")
def protocol_schema() -> None:
    """Print the JSON Schema of every message, generated from the pydantic models."""
    from arena.protocol import json_schema

    click.echo(json.dumps(json_schema(), indent=2, sort_keys=True))
