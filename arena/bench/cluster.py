"""``arena bench cluster``: the coordinator's ceiling in stored games per second, local and on a Dask cluster.

Matches that return at once (no referee, no bots: each game is a canned record of a real game played in-process,
under the match's players and seed) take the games' own cost out, so what is measured is what the coordinator
does per game: plan, hand the match to the executor, take each game back, store it in SQLite (one transaction
each) and feed the live Elo fit. The same tournament runs with the local executor (matches in the coordinator's
threads) and with the dask executor (one task per match on two workers started here with ``dask scheduler`` and
``dask worker``, or on the workers of the scheduler given with ``--scheduler``; games back through the scheduler's
queue), alternately, in one run; the ratio is dask / local. Beside the rates, the processor time per game of each
process: the coordinator's is what bounds a real cluster, where the scheduler and the workers have machines of their
own (here they all share this one). docs/scaling.md turns these figures into the time a 200-bot round robin takes.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

import click

if TYPE_CHECKING:  # the command line imports this module for every command: the rest is imported when used
    from arena.engine.record import GameRecord
    from arena.play.botproc import BotCommand
    from arena.play.matchspec import MatchSpec
    from arena.tournament.config import TournamentConfig
    from arena.tournament.executor import Executor, OnGame


@functools.cache
def canned(count: int = 4) -> tuple[GameRecord, ...]:
    """Records of real two-hand games (heuristic against random), played in-process once per process (each ~40 ms
    of processor time, in the coordinator and in every worker: four vary the records enough for what is measured, the
    coordinator's cost a game)."""
    from arena.bots.heuristic_bot import HeuristicBot
    from arena.bots.random_bot import RandomBot
    from arena.play.local import play_game

    return tuple(
        play_game([HeuristicBot().handle, RandomBot().handle], "two-hand", {}, seed, players=["a", "b"])
        for seed in range(count)
    )


class InstantExecutor:
    """Plays each match at once: a canned record per game, under the match's players, seed and place."""

    def run(self, spec: MatchSpec, on_game: OnGame) -> str | None:
        """Hand back every game of the match."""
        records = canned()
        for index, game in enumerate(spec.games):
            record = records[game.seed % len(records)].copy()
            record["players"] = [spec.bots[b].name for b in game.seating]
            record["seed"] = game.seed
            record["match_id"] = spec.match_id
            record["game_index"] = index
            on_game(record)
        return None

    def cancel(self) -> None:
        """Nothing runs for long."""


def bench_config(bots: int, games_per_pairing: int) -> tuple[TournamentConfig, dict[str, BotCommand]]:
    """A two-hand round robin of ``bots`` bots (all the random bot's file: one to ship), matches of eight games."""
    from arena.play.botproc import BUNDLED_DIR, BotCommand
    from arena.tournament.config import TournamentConfig

    names = [f"bot{n:03d}" for n in range(bots)]
    script = str(BUNDLED_DIR / "random_bot.py")
    commands = {name: BotCommand(name, (sys.executable, script)) for name in names}
    config = TournamentConfig(
        name="bench-cluster", variant="two-hand", entrants=names, games_per_pairing=games_per_pairing, seed=3
    )
    return config, commands


class DaskProcesses:
    """A scheduler and workers started with Dask's own commands (``dask scheduler``, ``dask worker``), on
    127.0.0.1 only, no dashboard: a cluster on this machine whose processes can be measured (and killed) one by one.
    """

    def __init__(self, folder: Path, *, workers: int = 2, threads: int = 1, timeout: float = 60.0) -> None:
        import json
        import subprocess

        from distributed import Client

        dask = [sys.executable, "-m", "dask"]
        file = folder / "scheduler.json"
        self.log = open(folder / "dask.log", "ab")  # noqa: SIM115 (closed in stop)
        loopback = ["--host", "127.0.0.1", "--no-dashboard", "--dashboard-address", "127.0.0.1:0"]  # (health routes)
        scratch = {**os.environ, "DASK_TEMPORARY_DIRECTORY": str(folder)}  # the scheduler's files too, in folder

        def start(argv: list[str]) -> subprocess.Popen[bytes]:
            return subprocess.Popen(argv, stdout=self.log, stderr=self.log, start_new_session=True, env=scratch)

        self.scheduler = start([*dask, "scheduler", *loopback, "--port", "0", "--scheduler-file", str(file)])
        self.workers: list[subprocess.Popen[bytes]] = []
        deadline = time.monotonic() + timeout
        try:
            while not file.exists() or not file.read_text().strip():
                if time.monotonic() > deadline or self.scheduler.poll() is not None:
                    raise RuntimeError(f"the Dask scheduler did not start (see {folder / 'dask.log'})")
                time.sleep(0.1)
            self.address: str = json.loads(file.read_text())["address"]
            self.workers = [
                start([*dask, "worker", self.address, *loopback, "--nthreads", str(threads), "--no-nanny",
                       "--local-directory", str(folder / f"worker{n}")])
                for n in range(workers)
            ]  # fmt: skip
            with Client(self.address, timeout=timeout, set_as_default=False) as client:
                client.wait_for_workers(workers, timeout=timeout)
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Kill every process of the cluster."""
        import signal

        for process in [*self.workers, self.scheduler]:
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        self.log.close()


def cpu_seconds(pid: int) -> float:
    """Processor time (user and system) a process has used so far (Linux: /proc/PID/stat)."""
    from arena.play.linux import STIME, UTIME, stat_fields

    fields = stat_fields(pid)
    if fields is None:
        raise ProcessLookupError(f"no process {pid} (or its /proc/{pid}/stat is unreadable)")
    return (int(fields[UTIME]) + int(fields[STIME])) / os.sysconf("SC_CLK_TCK")


def measure(
    config: TournamentConfig, commands: dict[str, BotCommand], executor: Executor, jobs: int, pids: list[int]
) -> tuple[float, float, list[float]]:
    """Run the whole tournament into a fresh store: stored games per second, and processor milliseconds per game
    of this process (the coordinator) and of each of ``pids``."""
    from arena.tournament.run import run_tournament
    from arena.tournament.store import Store

    before = [cpu_seconds(pid) for pid in pids]
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp, Store.open(Path(tmp) / "bench.db") as store:
        mine, start = time.process_time(), time.perf_counter()
        report = run_tournament(config, store, commands, jobs=jobs, log_dir=str(Path(tmp) / "logs"), executor=executor)
        elapsed, mine = time.perf_counter() - start, time.process_time() - mine
        if report.errors or report.done != report.total:
            raise RuntimeError(f"the bench tournament did not complete: {report.errors[:3]}")
    others = [(cpu_seconds(pid) - b) * 1000 / report.played for pid, b in zip(pids, before, strict=True)]
    return report.played / elapsed, mine * 1000 / report.played, others


class ClusterBench(TypedDict):
    """What ``arena bench cluster --json`` prints (see ``run``; the scheduler's and workers' times are None on a
    cluster not started here)."""

    games: int
    games_per_match: int
    local_games_per_second: float
    dask_games_per_second: float
    ratio: float
    dask_matches_in_flight: int
    local_coordinator_cpu_ms_per_game: float
    dask_coordinator_cpu_ms_per_game: float
    dask_scheduler_cpu_ms_per_game: float | None
    dask_workers_cpu_ms_per_game: float | None
    dask_coordinator_ceiling: float
    load_average: float


def run(
    *, bots: int = 24, games_per_pairing: int = 4, rounds: int = 2, threads: int = 8, scheduler: str | None = None
) -> ClusterBench:
    """Alternate local and dask runs of the same tournament (so machine noise hits both): mean rates, their ratio,
    and the processor time per game of the coordinator, the scheduler and the workers (of a cluster started here)."""
    from distributed import Client

    from arena.tournament.dask_executor import DaskExecutor

    load = os.getloadavg()[0]
    config, commands = bench_config(bots, games_per_pairing)
    canned()
    local: list[tuple[float, float, list[float]]] = []
    dask: list[tuple[float, float, list[float]]] = []
    with contextlib.ExitStack() as stack:
        pids: list[int] = []
        if scheduler is None:
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="arena-bench-cluster-"))
            cluster = DaskProcesses(Path(folder), workers=2, threads=threads)  # instant matches need no core each
            stack.callback(cluster.stop)
            scheduler, pids = cluster.address, [cluster.scheduler.pid, *(w.pid for w in cluster.workers)]
        client = stack.enter_context(Client(scheduler, set_as_default=False))
        for _ in range(rounds):
            local.append(measure(config, commands, InstantExecutor(), os.cpu_count() or 1, []))
            executor = DaskExecutor(client, pin=False, make_executor=InstantExecutor)
            try:
                in_flight = 2 * executor.capacity()  # as arena tournament run keeps in flight
                dask.append(measure(config, commands, executor, in_flight, pids))
            finally:
                executor.close()
    local_rate, dask_rate = _mean([r for r, _, _ in local]), _mean([r for r, _, _ in dask])
    coordinator_ms = _mean([c for _, c, _ in dask])
    return {
        "games": len(commands) * (len(commands) - 1) * games_per_pairing,
        "games_per_match": config.games_per_match,
        "local_games_per_second": local_rate,
        "dask_games_per_second": dask_rate,
        "ratio": dask_rate / local_rate,
        "dask_matches_in_flight": in_flight,
        "local_coordinator_cpu_ms_per_game": _mean([c for _, c, _ in local]),
        "dask_coordinator_cpu_ms_per_game": coordinator_ms,
        "dask_scheduler_cpu_ms_per_game": _mean([o[0] for _, _, o in dask]) if pids else None,
        "dask_workers_cpu_ms_per_game": _mean([sum(o[1:]) for _, _, o in dask]) if pids else None,
        "dask_coordinator_ceiling": 1000 / coordinator_ms,
        "load_average": load,
    }


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


@click.command("cluster")
@click.option("--bots", type=click.IntRange(min=2), default=24, show_default=True, help="Bots in the round robin.")
@click.option("--games", type=click.IntRange(min=1), default=4, show_default=True, help="Deals per pairing (x2 seats).")
@click.option("--rounds", type=click.IntRange(min=1), default=2, show_default=True, help="Runs of each executor.")
@click.option("--threads", type=click.IntRange(min=1), default=8, show_default=True, help="Threads per local worker.")
@click.option("--scheduler", help="Measure on this Dask scheduler's workers (default: two started here).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def bench_cluster(bots: int, games: int, rounds: int, threads: int, scheduler: str | None, as_json: bool) -> None:
    """The coordinator's ceiling: stored games/s, local beside dask.

    Matches that return at once (canned records of real games, no referee), so that only the coordinator's work
    per game counts: run with the local executor and with the dask executor in one run, the ratio, and the
    processor time per game of the coordinator, the scheduler and the workers. Needs Dask (pip install
    'euchre-arena[dask]'). docs/scaling.md uses these figures.
    """
    import json

    try:
        import distributed  # noqa: F401
    except ImportError:
        raise click.ClickException("arena bench cluster needs Dask: pip install 'euchre-arena[dask]'") from None
    result = run(bots=bots, games_per_pairing=games, rounds=rounds, threads=threads, scheduler=scheduler)
    if as_json:
        click.echo(json.dumps(result))
        return
    click.echo(f"local  {result['local_games_per_second']:8.0f} games/s stored (matches in the coordinator's threads)")
    click.echo(
        f"dask   {result['dask_games_per_second']:8.0f} games/s stored "
        f"({result['dask_matches_in_flight']} tasks in flight, one per match of {result['games_per_match']} games)"
    )
    click.echo(f"ratio  {result['ratio']:.2f}  (dask / local, {result['games']} games per run)")
    click.echo(
        f"processor time per game: coordinator {result['local_coordinator_cpu_ms_per_game']:.2f} ms local, "
        f"{result['dask_coordinator_cpu_ms_per_game']:.2f} ms on dask"
        + (
            f"; scheduler {result['dask_scheduler_cpu_ms_per_game']:.2f} ms, "
            f"workers {result['dask_workers_cpu_ms_per_game']:.2f} ms"
            if result["dask_scheduler_cpu_ms_per_game"] is not None
            else ""
        )
    )
    click.echo(
        f"ceiling of a coordinator with a core of its own: {result['dask_coordinator_ceiling']:.0f} games/s on dask"
    )
    if result["load_average"] > 0.5:
        click.echo(
            f"warning: load average {result['load_average']:.2f} before the run: only meaningful on a quiet machine"
        )
