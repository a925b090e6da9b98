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
