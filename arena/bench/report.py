"""``arena bench report``: how the HTML report's build scales, in time and peak memory, with the games stored.

For each size N, a results store of N synthetic games (a few real in-process games, stored over and over under the
keys of a round-robin of six bots) is built into a report, each measurement in a fresh process so that its peak
memory (``ru_maxrss``) is its own. Beside each build, in the same run, the reference: a fresh process reading every
record decoded and holding them all (``Store.records`` into a list), what any build that keeps the records costs
before it writes a byte. The ratio of the time per 1,000 games at the largest and the smallest size shows whether
the build stays linear; the peak memory whether it stays flat.
"""

from __future__ import annotations

import resource
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

import click

from arena.engine.options import VARIANTS
from arena.options import positive_sizes

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

BOTS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot")


def synthetic_store(db: Path, games: int, *, variant: str = "four-hand", distinct: int = 24) -> None:
    """Store ``games`` games of a round-robin between six bots, made of ``distinct`` real games played here."""
    from arena.bots.heuristic_bot import HeuristicBot
    from arena.bots.random_bot import RandomBot
    from arena.engine.options import make_rules
    from arena.play.local import play_game
    from arena.tournament.store import Store

    seats = make_rules(variant, {}).players
    played = []
    for seed in range(distinct):
        bots = [HeuristicBot() if s % 2 == 0 else RandomBot() for s in range(seats)]
        played.append(play_game([b.handle for b in bots], variant, {}, seed, players=["a"] * seats))
    pairings = [(a, b) for i, a in enumerate(BOTS) for b in BOTS[i + 1 :]]
    with Store.open(db) as store:
        for n in range(games):
            a, b = pairings[n % len(pairings)]
            record = played[n % distinct].copy()  # still a GameRecord to mypy (dict() is not)
            third = next(x for x in BOTS if x not in (a, b))
            record["players"] = [a, b, third] if seats == 3 else [a if s % 2 == 0 else b for s in range(seats)]
            store.add_game(f"{a}-{b}/{n}/0", f"{a}-{b}/{n}", record)


def _child(kind: str, db: str, out: str, answer: Connection) -> None:
    """One measurement in a process of its own: seconds and peak resident memory (KB)."""
    from arena.report.build import build_report
    from arena.tournament.store import Store

    started = time.perf_counter()
    if kind == "build":
        build_report(db, out)
    elif kind == "decode":
        with Store.open(db, create=False) as store:
            held = list(store.records())
        del held
    answer.send((time.perf_counter() - started, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))


def _measure(kind: str, db: Path, out: Path) -> tuple[float, float]:
    """Seconds and peak MB of one measurement, run in a fresh (spawned) process."""
    import multiprocessing  # here: the command line imports this module for every command (10 ms)

    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(kind, str(db), str(out), send))
    process.start()
    seconds, peak_kb = receive.recv()
    process.join()
    return seconds, peak_kb / 1024


class SizeRow(TypedDict):
    """One size: the report's build (seconds, per 1,000 games, peak MB, the report's MB), and decode-all's."""

    games: int
    build_seconds: float
    build_seconds_per_1000: float
    build_peak_mb: float
    report_mb: float
    decode_all_seconds: float
    decode_all_peak_mb: float


class ReportBench(TypedDict):
    """What ``arena bench report --json`` prints: a fresh process's peak and seconds at rest, each size's row, and
    the largest size against the smallest."""

    variant: str
    baseline_peak_mb: float
    baseline_seconds: float
    sizes: list[SizeRow]
    per_1000_ratio: float
    peak_growth_mb: float
    decode_peak_growth_mb: float


def run(sizes: tuple[int, ...] = (1000, 10000), *, variant: str = "four-hand") -> ReportBench:
    """Build time and peak memory at each size, beside decoding and holding every record, and the ratios."""
    rows: list[SizeRow] = []
    with tempfile.TemporaryDirectory(prefix="arena-bench-report-") as tmp:
        base_seconds, base_mb = _measure("none", Path(tmp) / "none.db", Path(tmp) / "none")
        for size in sizes:
            db = Path(tmp) / f"games-{size}.db"
            synthetic_store(db, size, variant=variant)
            build_seconds, build_mb = _measure("build", db, Path(tmp) / f"report-{size}")
            report_bytes = sum(p.stat().st_size for p in (Path(tmp) / f"report-{size}").rglob("*") if p.is_file())
            decode_seconds, decode_mb = _measure("decode", db, Path(tmp))
            rows.append(
                {
                    "games": size,
                    "build_seconds": build_seconds,
                    "build_seconds_per_1000": 1000 * build_seconds / size,
                    "build_peak_mb": build_mb,
                    "report_mb": report_bytes / 1e6,
                    "decode_all_seconds": decode_seconds,
                    "decode_all_peak_mb": decode_mb,
                }
            )
    first, last = rows[0], rows[-1]
    return {
        "variant": variant,
        "baseline_peak_mb": base_mb,
        "baseline_seconds": base_seconds,
        "sizes": rows,
        "per_1000_ratio": last["build_seconds_per_1000"] / first["build_seconds_per_1000"],
        "peak_growth_mb": last["build_peak_mb"] - first["build_peak_mb"],
        "decode_peak_growth_mb": last["decode_all_peak_mb"] - first["decode_all_peak_mb"],
    }


@click.command("report")
@click.option(
    "--sizes", default="1000,10000", show_default=True, callback=positive_sizes, help="Games stored, comma-separated."
)
@click.option(
    "--variant",
    type=click.Choice(list(VARIANTS)),
    default="four-hand",
    show_default=True,
    help=f"Variant of the synthetic games: {', '.join(VARIANTS)}.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def bench_report(sizes: tuple[int, ...], variant: str, as_json: bool) -> None:
    """HTML report build time and peak memory, beside decode-all.

    For each of --sizes, a store of that many synthetic games.

    Each measurement runs in a fresh process; the decode-all columns (every record decoded and held in a list) are
    what a build that keeps the records pays before it writes anything.
    """
    import json

    result = run(sizes, variant=variant)
    if as_json:
        click.echo(json.dumps(result))
        return
    rest = result["baseline_peak_mb"]
    click.echo(f"{variant}; a fresh process per measurement; its peak memory at rest: {rest:.0f} MB")
    head = ("games", "build s", "s/1k", "peak MB", "report MB", "|", "decode-all s", "peak MB")
    widths = (8, 9, 7, 8, 10, 1, 12, 8)
    click.echo(" ".join(f"{h:>{w}}" for h, w in zip(head, widths, strict=True)))
    for r in result["sizes"]:
        cells = (
            f"{r['games']}",
            f"{r['build_seconds']:.2f}",
            f"{r['build_seconds_per_1000']:.3f}",
            f"{r['build_peak_mb']:.0f}",
            f"{r['report_mb']:.1f}",
            "|",
            f"{r['decode_all_seconds']:.2f}",
            f"{r['decode_all_peak_mb']:.0f}",
        )
        click.echo(" ".join(f"{c:>{w}}" for c, w in zip(cells, widths, strict=True)))
    if len(result["sizes"]) > 1:
        click.echo(
            f"time per 1,000 games, largest / smallest size: {result['per_1000_ratio']:.2f}; peak memory growth: "
            f"build {result['peak_growth_mb']:+.0f} MB, decode-all {result['decode_peak_growth_mb']:+.0f} MB"
        )
