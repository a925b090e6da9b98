"""``arena bench match``: the referee's peak memory by the length of its match.

For each size N, a match of N games of four random bots (four-hand with rubbers and defending alone, by default)
is played in a fresh process, its records streamed to a file as ``arena match --record`` writes them, and that
process's peak resident memory (``ru_maxrss``) taken: it is the referee's. Beside it, in the same run and up to
``--kept-up-to`` games, the reference: the same match in a fresh process that keeps every record (what a referee
that holds its records pays). The growth of the peak from the smallest size to the largest shows whether a match
runs in constant memory.
"""

from __future__ import annotations

import resource
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

import click

from arena.options import VARIANTS_HELP, positive_sizes

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

OPTIONS = {"rubber": True, "defend_alone": True}


def _child(kept: bool, games: int, variant: str, directory: str, answer: Connection) -> None:
    """One match in a process of its own: seconds, peak resident memory (KB) and the games played."""
    import orjson

    from arena.play.lineup import build_match
    from arena.play.matchspec import DEFAULT_MAX_HANDS, DEFAULT_MAX_STRIKES, DEFAULT_POLICY
    from arena.play.referee import run_match

    spec = build_match(
        ["random"] * 4,
        variant=variant,
        options=OPTIONS if variant == "four-hand" else {},
        games=games,
        seed=955007,
        time="30+1",
        max_decision=30.0,
        policy=DEFAULT_POLICY,
        max_strikes=DEFAULT_MAX_STRIKES,
        log_dir=str(Path(directory) / "logs"),
        max_hands=DEFAULT_MAX_HANDS,
    )
    started = time.perf_counter()
    if kept:
        played = len(run_match(spec))
    else:
        played = 0
        with open(Path(directory) / "games.jsonl", "wb") as sink:

            def write(record: object) -> None:
                nonlocal played
                sink.write(orjson.dumps(record) + b"\n")
                played += 1

            run_match(spec, write)
    answer.send((time.perf_counter() - started, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, played))


def _measure(kept: bool, games: int, variant: str) -> tuple[float, float, int]:
    """Seconds, peak MiB and games played of one match, in a fresh (spawned) process."""
    import multiprocessing  # here: the command line imports this module for every command

    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    with tempfile.TemporaryDirectory(prefix="arena-bench-match-") as directory:
        process = context.Process(target=_child, args=(kept, games, variant, directory, send))
        process.start()
        seconds, peak_kb, played = receive.recv()
        process.join()
    return seconds, peak_kb / 1024, played


class SizeRow(TypedDict):
    """One size: the streamed match's seconds and peak MiB, and the reference's (None past ``kept_up_to``)."""

    games: int
    seconds: float
    peak_mib: float
    kept_seconds: float | None
    kept_peak_mib: float | None


class MatchBench(TypedDict):
    """What ``arena bench match --json`` prints: each size's row and the growth of the peaks."""

    variant: str
    sizes: list[SizeRow]
    peak_growth_mib: float
    kept_peak_growth_mib: float | None


def run(sizes: tuple[int, ...] = (100, 1000), *, variant: str = "four-hand", kept_up_to: int = 1000) -> MatchBench:
    """The referee's peak memory at each size, beside a match that keeps its records."""
    rows: list[SizeRow] = []
    for size in sizes:
        seconds, peak, played = _measure(False, size, variant)
        if played != size:
            raise click.ClickException(f"the match of {size} games played {played}")
        kept = _measure(True, size, variant) if size <= kept_up_to else None
        rows.append(
            {
                "games": size,
                "seconds": seconds,
                "peak_mib": peak,
                "kept_seconds": None if kept is None else kept[0],
                "kept_peak_mib": None if kept is None else kept[1],
            }
        )
    with_kept = [r["kept_peak_mib"] for r in rows if r["kept_peak_mib"] is not None]
    return {
        "variant": variant,
        "sizes": rows,
        "peak_growth_mib": rows[-1]["peak_mib"] - rows[0]["peak_mib"],
        "kept_peak_growth_mib": with_kept[-1] - with_kept[0] if len(with_kept) > 1 else None,
    }


@click.command("match")
@click.option(
    "--sizes", default="100,1000", show_default=True, callback=positive_sizes, help="Games per match, comma-separated."
)
@click.option(
    "--variant", default="four-hand", show_default=True, help=f"Variant: {VARIANTS_HELP} (four-hand with rubbers)."
)
@click.option(
    "--kept-up-to", type=click.IntRange(min=0), default=1000, show_default=True, help="Largest size kept beside."
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def bench_match(sizes: tuple[int, ...], variant: str, kept_up_to: int, as_json: bool) -> None:
    """Referee peak memory by match length, beside keeping records.

    For each of --sizes, a match of four random bots in a fresh process, its records streamed to a file; beside it
    (up to --kept-up-to games) the same match keeping every record, what a referee that holds them pays.
    """
    import json

    result = run(sizes, variant=variant, kept_up_to=kept_up_to)
    if as_json:
        click.echo(json.dumps(result))
        return
    click.echo(f"{variant}, four random bots; a fresh process per match, its peak resident memory")
    click.echo(f"{'games':>8} {'seconds':>9} {'peak MiB':>9} | {'kept: seconds':>13} {'peak MiB':>9}")
    for r in result["sizes"]:
        kept = (
            f"{r['kept_seconds']:>13.1f} {r['kept_peak_mib']:>9.1f}"
            if r["kept_seconds"] is not None and r["kept_peak_mib"] is not None
            else f"{'-':>13} {'-':>9}"
        )
        click.echo(f"{r['games']:>8} {r['seconds']:>9.1f} {r['peak_mib']:>9.1f} | {kept}")
    if len(result["sizes"]) > 1:
        kept_growth = result["kept_peak_growth_mib"]
        beside = "" if kept_growth is None else f", keeping the records {kept_growth:+.1f} MiB"
        click.echo(f"peak growth, smallest to largest size: streamed {result['peak_growth_mib']:+.1f} MiB{beside}")
