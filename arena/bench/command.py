"""``arena bench``: the benchmarks, each measured side by side with a reference in one run (docs/performance.md).

The commands print what the library's benchmarks (arena.bench.engine, protocol, tournament, report, cluster, match)
measure; the measuring lives there."""

from __future__ import annotations

import json

import click

from arena.bench.cluster import bench_cluster
from arena.bench.match import bench_match
from arena.bench.report import bench_report
from arena.engine.options import DEFAULT_VARIANT
from arena.options import VARIANTS_HELP


@click.group()
def bench() -> None:
    """Benchmarks, each side by side with a reference."""


bench.add_command(bench_report)
bench.add_command(bench_cluster)
bench.add_command(bench_match)


@bench.command("engine")
@click.option("--seconds", type=click.FloatRange(min=0.1), default=3.0, show_default=True, help="Time per measurement.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")
def bench_engine(seconds: float, as_json: bool) -> None:
    """Random-playout hands/s of every variant, beside pyspiel's.

    pyspiel's euchre (OpenSpiel's, through its Python API) is measured beside four-hand, when it is installed.
    """
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
        rounds = ", ".join(f"{r:.2f}" for r in result.get("round_ratios") or [])
        click.echo(f"ratio four-hand / pyspiel = {result['ratio']:.2f}  (median of rounds {rounds}; goal 1.0)")
    load = result.get("load_average")
    if load is not None and load > 0.5:
        click.echo(f"note: load average {load:.2f}; both sides are timed in CPU time, so the ratio holds up under load")


@bench.command("protocol")
@click.option("--seconds", type=click.FloatRange(min=0.1), default=2.0, show_default=True, help="Ping-pong time.")
@click.option("--games", type=click.IntRange(min=2), default=20, show_default=True, help="Games of random bots.")
@click.option("--variant", default=DEFAULT_VARIANT, show_default=True, help=f"Variant of the match: {VARIANTS_HELP}.")
@click.option(
    "--rounds", type=click.IntRange(min=1), default=5, show_default=True, help="Rounds; the ratio is their median."
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def bench_protocol(seconds: float, games: int, variant: str, rounds: int, as_json: bool) -> None:
    """Decisions/s through referee and bots, beside raw pyzmq.

    Random bots through the referee, beside a raw pyzmq ping-pong of messages of the same sizes; then the same
    for the stdio transport beside a pipe ping-pong. Both are measured in interleaved rounds (the games and the
    ping-pong time shared among them), so that machine noise hits both sides alike.
    """
    from arena.bench.protocol import run

    result = run(seconds, games=games, variant=variant, rounds=rounds)
    if as_json:
        click.echo(json.dumps(result))
        return
    click.echo(f"message sizes: request {result['request_bytes']} B, reply {result['reply_bytes']} B")
    where = "one core, as matches run" if result["cpus"] else "placed by the OS: this system cannot pin"
    click.echo(f"arena   {result['arena_decisions_per_second']:10.0f} decisions/s ({variant}, random bots, {where})")
    click.echo(f"pyzmq   {result['pyzmq_round_trips_per_second']:10.0f} round trips/s (ping-pong, same sizes)")
    click.echo(f"ratio   {result['ratio']:.2f}  (median of rounds {result['round_ratios']})")
    click.echo(
        f"unpinned {result['arena_unpinned_decisions_per_second']:9.0f} decisions/s with the match spread by the OS: "
        f"ratio {result['ratio_unpinned']:.2f}"
    )
    click.echo(
        f"per game {result['seconds_per_game'] * 1000:.1f} ms, match setup (spawn + handshake) "
        f"{result['match_setup_seconds'] * 1000:.0f} ms"
    )
    stdio = result["stdio"]
    click.echo(f"stdio transport: request {stdio['request_bytes']} B, reply {stdio['reply_bytes']} B")
    click.echo(f"arena   {stdio['arena_decisions_per_second']:10.0f} decisions/s (the same bots on stdin/stdout)")
    click.echo(f"pipes   {stdio['pipe_round_trips_per_second']:10.0f} round trips/s (line ping-pong, same sizes)")
    click.echo(f"ratio   {stdio['ratio']:.2f}  (median of rounds {stdio['round_ratios']})")
    load = result["load_average"]
    if load is not None and load > 0.5:
        click.echo(f"warning: load average {load:.2f} before the run; the ratio is only meaningful on a quiet machine")


@bench.command("tournament")
@click.option("--games", type=click.IntRange(min=8), default=48, show_default=True, help="Games per run.")
@click.option(
    "--rounds", type=click.IntRange(min=1), default=2, show_default=True, help="Runs of each kind, alternated."
)
@click.option(
    "--entrant",
    "entrants",
    multiple=True,
    type=click.Choice(["heuristic", "random", "search"]),
    help="A bundled bot in the tournament (repeat; default: heuristic and random, one pairing).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def bench_tournament(games: int, rounds: int, entrants: tuple[str, ...], as_json: bool) -> None:
    """A small tournament with jobs 1 and 2: games/s, share of play.

    The same tournament twice in one run, one match at a time and then two in parallel, and the ratio; and the
    one-job rate against the rate of its games' play alone (starting referees and bots is the difference); the
    rates between each run's first and last stored game (steady: without the start and the end) and how many
    cores the machine kept busy in each (what bounds the ratio); and the processor time of a short match with
    Python bots forked from the fork server against started by exec.
    """
    from arena.bench.tournament import ENTRANTS, run

    chosen = tuple(dict.fromkeys(entrants)) or ENTRANTS
    if len(chosen) < 2:
        raise click.BadParameter("name at least two different bots", param_hint="--entrant")
    result = run(games, rounds, chosen)
    if as_json:
        click.echo(json.dumps(result))
        return
    click.echo(f"jobs 1  {result['jobs1_games_per_second']:8.2f} games/s")
    click.echo(f"jobs 2  {result['jobs2_games_per_second']:8.2f} games/s")
    pairings = result["pairings"]
    click.echo(
        f"ratio   {result['ratio']:.2f}  ({result['games']} games per run, {pairings} pairing{'s' * (pairings > 1)}; "
        + ("goal 1.8)" if pairings > 1 else "one pairing starts its bots twice a slot: docs/performance.md)")
    )
    click.echo(f"play    {result['play_only_games_per_second']:8.2f} games/s (the same games' own play time, jobs 1)")
    click.echo(f"efficiency {result['efficiency']:.2f}  (jobs 1 against play alone; goal 0.70)")
    click.echo(f"host    {result['host_scaling']:.2f}  (two CPU-bound processes against one in this run: the ceiling)")
    each = ", ".join(f"{r['ratio']:.2f} (host {r['host_scaling']:.2f})" for r in result["rounds"])
    click.echo(f"rounds  {each}  (each round's ratio, the host's just before it)")
    click.echo(
        f"start   first stored game after {result['first_game_ms_jobs1']:.0f} ms with jobs 1,"
        f" {result['first_game_ms_jobs2']:.0f} ms with jobs 2: split {result['even_split']:.2f}"
        "  (the ratio if all after the first game of jobs 1 were split evenly over two slots; two jobs may do better:"
        " they also overlap one slot's match changes)"
    )
    click.echo(
        f"steady  {result['steady_jobs1_games_per_second']:.2f} games/s with jobs 1,"
        f" {result['steady_jobs2_games_per_second']:.2f} with jobs 2: ratio {result['steady_ratio']:.2f}"
        "  (from each run's first stored game to its last: without the start and the end)"
    )
    busy1, busy2 = result["busy_cores_jobs1"], result["busy_cores_jobs2"]
    if busy1 is not None and busy2 is not None and busy1 > 0:
        click.echo(
            f"busy    {busy1:.2f} cores with jobs 1, {busy2:.2f} with jobs 2  (the whole machine's, over each run:"
            f" two jobs keep {busy2 / busy1:.2f}x the cores busy, the ratio's bound before the host's cost)"
        )
    forked, execd = result["match_cpu_ms_forked"], result["match_cpu_ms_exec"]
    click.echo(
        f"match   {forked:6.1f} ms processor time with bots forked, {execd:6.1f} ms exec'd: {forked / execd:.2f}"
        f"  (a one-game match of two Python bots, set-up included; wall {result['match_wall_ms_forked']:.0f}"
        f" against {result['match_wall_ms_exec']:.0f} ms)"
    )
    load = result["load_average"]
    if load > 0.5:
        click.echo(f"warning: load average {load:.2f} at the end; the ratios are only meaningful on a quiet machine")
