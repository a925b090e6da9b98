"""``arena report``: write the HTML report of a tournament, a results database or a JSONL file of game records."""

from __future__ import annotations

import time
from pathlib import Path

import click


def default_out(source: Path) -> Path:
    """The report folder beside the source: ``tournaments/demo.toml`` -> ``tournaments/demo-report/``."""
    return source.with_name(source.stem + "-report")


@click.command("report")
@click.argument("source", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "-o", "--out", "out", type=click.Path(file_okay=False), help="Report folder (default: SOURCE's name + -report)."
)
@click.option(
    "--watch",
    type=click.IntRange(min=1),
    metavar="SECONDS",
    help="Rebuild every SECONDS until Ctrl-C, e.g. while the tournament runs; the open pages reload themselves.",
)
def report_command(source: str, out: str | None, watch: int | None) -> None:
    """Write an HTML report of SOURCE: ranking, crosstable, games.

    It prints the path of the index page.

    SOURCE is a tournament config (.toml), a results database, or a JSONL file of game records (arena match
    --record). The folder opens from disk: no server and no network.
    """
    from arena.report.build import Built, ReportBuilder, build_report, folder_size

    folder = Path(out) if out else default_out(Path(source))
    if watch is not None:
        builder = ReportBuilder(source, folder)  # each rebuild reads only the games added since the last
        try:
            while True:
                if builder.update(refresh=watch, live=True):
                    click.echo(
                        f"{time.strftime('%H:%M:%S')} {builder.count} games: {builder.index.resolve()}", err=True
                    )
                time.sleep(watch)
        except KeyboardInterrupt:
            pass  # the last update below drops the pages' reloading
        started = time.perf_counter()
        try:
            builder.update()
        finally:
            builder.source.close()
        built = Built(builder.index, builder.count, folder_size(folder), time.perf_counter() - started)
    else:
        built = build_report(source, folder)
    click.echo(
        f"{built.games} games, {built.bytes / 1e6:.1f} MB in {built.seconds:.1f} s; open {built.index.resolve()}",
        err=True,
    )
    click.echo(str(built.index.resolve()))
