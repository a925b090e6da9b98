"""The same small tournament with jobs 1 and jobs 2, side by side in one run: games per second and the ratio; and
how much of a one-job run is play (its games' own play time against its wall time: the rest is starting and ending
referees and bots); and, as a yardstick, how two CPU-bound processes scale on this host in the same run (on a
shared virtual machine that swings between 1.3 and 2.4 from one minute to the next).

Each run's fixed start is measured too: the time to its first stored game (its referees' and bots' processes
starting, in series, then the first game), which two jobs cannot share. From it the bench works out what the starts
leave under a simple model: the ratio the run would reach if everything after the first game of jobs 1 were split
evenly over two slots, after jobs 2's own start. Two jobs can do better than that (one job's slot also waits on
its own match changes, which a second slot overlaps): it shows how much of the ratio the starts cost, not a bound.

And how busy the whole machine was during each run (``/proc/stat``: cores' worth of processor time the run took,
beside its wall time): with one job the arena keeps about one core busy, so two jobs can reach at most the cores
they keep busy against that, less what running side by side costs each game (the host's figure).

And the rate between each run's first and last stored game (``steady``): the run without its start and its end,
what a league of many matches pays per game; and its ratio.

Also what a short match costs, set-up included, with Python bots forked from the fork server and started by exec
(``match_cost``): processor time of the referee and of everything it started, per one-game match of two random
bots, the two ways interleaved."""

from __future__ import annotations

import multiprocessing
import os
import resource
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from arena.play import forkserver
from arena.play.botproc import resolve_bot
from arena.play.matchspec import BotEntry, GameSpec, MatchSpec
from arena.play.referee import run_match
from arena.tournament.config import TournamentConfig
from arena.tournament.run import Progress, resolve_entrants, run_tournament, total_games
from arena.tournament.store import Store

ENTRANTS = ("heuristic", "random")


def bench_config(games: int, entrants: tuple[str, ...] = ENTRANTS) -> TournamentConfig:
    """A two-hand tournament of ``entrants`` (the bundled bots), about ``games`` games in all, cut into matches of
    eight games so that jobs have work to share."""
    pairings = len(entrants) * (len(entrants) - 1) // 2
    return TournamentConfig(
        name="bench",
        variant="two-hand",
        entrants=list(entrants),
        games_per_pairing=max(1, games // pairings // 2),  # deals, each played in both rotations
        games_per_match=8,
        time="10+1",
        seed=11,
        drop_page_cache=False,  # a fixed cost a round (docs/performance.md), not what jobs share: measured apart
    )


@dataclass(frozen=True, slots=True)
class RunRates:
    """One bench run: games/s of the whole run and of its games' play alone; its seconds, the seconds to its first
    stored game, the cores the machine kept busy meanwhile, and games/s between its first and last stored game."""

    games_per_second: float
    play_only: float
    seconds: float
    first_game: float
    busy_cores: float | None  # the machine's processor time over the run's wall time (None: no /proc/stat)
    steady: float  # games/s from the first stored game to the last: the run without its start and its end


def games_per_second(config: TournamentConfig, jobs: int) -> RunRates:
    """Run the whole tournament on a fresh database with ``jobs`` parallel matches: games/s, games/s of play alone
    (the games' own time, from the first game_start to game_end, summed), and the run split at its first game."""
    commands = resolve_entrants(config.entrants)
    forkserver.reset()  # each run starts its fork server, as a run of the command line does
    stored_at: list[float] = []  # when each game was stored

    def stored(progress: Progress) -> None:
        if progress.done > len(stored_at):  # a game stored (not a last line for the final leader)
            stored_at.append(time.perf_counter())

    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp, Store.open(Path(tmp) / "bench.db") as store:
        busy, start = _busy_seconds(), time.perf_counter()
        report = run_tournament(
            config,
            store,
            commands,
            jobs=jobs,
            log_dir=str(Path(tmp) / "logs"),
            on_progress=stored,
        )
        elapsed = time.perf_counter() - start
        used = _busy_seconds()
        if report.errors or report.played != report.total or len(stored_at) < 2:
            raise RuntimeError(f"the bench tournament did not complete: {report.errors[:3]}")
        play = sum(record["timing"]["seconds"] for _, _, record in store.records())
    cores = None if busy is None or used is None else (used - busy) / elapsed
    first, last = stored_at[0], stored_at[-1]
    steady = (len(stored_at) - 1) / (last - first)
    return RunRates(report.played / elapsed, report.played / play, elapsed, first - start, cores, steady)


def _busy_seconds() -> float | None:
    """Processor seconds the whole machine has spent busy since boot (every core; iowait counts as idle), from the
    first line of /proc/stat: user, nice, system, irq, softirq and steal (time a virtual machine's core wanted and
    its host gave to another: demand, as busy as the rest). None where there is no such file or line."""
    try:
        with open("/proc/stat", "rb") as stat:
            fields = stat.readline().split()
    except OSError:
        return None
    if len(fields) < 9 or fields[0] != b"cpu":
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(f) for f in fields[1:9])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def even_split(one: RunRates, two: RunRates) -> float:
    """The jobs 2 to jobs 1 ratio left by the fixed starts, were the rest split evenly: jobs 1's time against jobs
    2's start plus half of what jobs 1 spent after its first game."""
    return one.seconds / (two.first_game + (one.seconds - one.first_game) / 2)


def match_cost(forked: bool, matches: int) -> tuple[float, float]:
    """Processor and wall seconds per one-game two-hand match of two bundled random bots, run by a referee in this
    process: its own processor time and its children's (the bots, or the fork server's children and the server's
    own start-up, counted from a fresh server)."""
    os.environ["ARENA_FORK_SERVER"] = "1" if forked else "0"
    forkserver.reset()
    argv = list(resolve_bot("random").argv)
    bots = [BotEntry(name=f"r{k}", argv=argv) for k in range(2)]
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as logs:
        specs = [
            MatchSpec(
                match_id=f"cost{i}",
                variant="two-hand",
                bots=bots,
                games=[GameSpec(seed=i, seating=[0, 1])],
                time="60+1",
                log_dir=logs,
            )
            for i in range(matches)
        ]
        before, start = _processor_time(), time.perf_counter()
        for spec in specs:
            run_match(spec)
        wall = time.perf_counter() - start
        used = _processor_time() - before + forkserver.reset()
    return used / matches, wall / matches


def _processor_time() -> float:
    mine, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return mine.ru_utime + mine.ru_stime + children.ru_utime + children.ru_stime


def _spin(count: int) -> float:
    """Seconds of a pure Python loop of ``count`` steps (CPU-bound, no memory to speak of)."""
    start, total = time.perf_counter(), 0
    for i in range(count):
        total += i
    return time.perf_counter() - start


def _mean(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known and len(known) == len(values) else None


def host_scaling(count: int = 3_000_000) -> float:
    """How much faster two CPU-bound processes finish two loops than one process finishes one after the other."""
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        pool.map(_spin, [1000, 1000])  # both workers up before anything is timed
        alone = sum(pool.apply(_spin, (count,)) for _ in range(2))
        start = time.perf_counter()
        pool.map(_spin, [count, count])
        together = time.perf_counter() - start
    return alone / together


class RoundRatio(TypedDict):
    """One round: jobs 2 against jobs 1, and the host's own scaling just before it."""

    ratio: float
    host_scaling: float


class TournamentBench(TypedDict):
    """What ``arena bench tournament --json`` prints (see ``run``; ``busy_cores_*`` None without /proc/stat)."""

    games: int
    pairings: int
    jobs1_games_per_second: float
    jobs2_games_per_second: float
    ratio: float
    play_only_games_per_second: float
    efficiency: float
    host_scaling: float
    rounds: list[RoundRatio]
    first_game_ms_jobs1: float
    first_game_ms_jobs2: float
    even_split: float
    steady_jobs1_games_per_second: float
    steady_jobs2_games_per_second: float
    steady_ratio: float
    busy_cores_jobs1: float | None
    busy_cores_jobs2: float | None
    match_cpu_ms_forked: float
    match_cpu_ms_exec: float
    match_wall_ms_forked: float
    match_wall_ms_exec: float
    load_average: float


def run(games: int = 48, rounds: int = 2, entrants: tuple[str, ...] = ENTRANTS) -> TournamentBench:
    """Alternate jobs=1 and jobs=2 runs (so machine noise hits both) and report the mean rates and their ratio; then
    the cost of a short match, forked and exec'd bots alternately."""
    config = bench_config(games, entrants)
    ones: list[RunRates] = []
    twos: list[RunRates] = []
    host: list[float] = []
    for _ in range(rounds):
        host.append(host_scaling())
        ones.append(games_per_second(config, 1))
        twos.append(games_per_second(config, 2))
    one, two = [r.games_per_second for r in ones], [r.games_per_second for r in twos]
    serial, parallel, playing = sum(one) / rounds, sum(two) / rounds, sum(r.play_only for r in ones) / rounds
    saved = os.environ.get("ARENA_FORK_SERVER")
    costs: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
    try:
        for _ in range(rounds):
            for forked in (True, False):
                costs[forked].append(match_cost(forked, max(2, games // 8)))
    finally:
        os.environ.pop("ARENA_FORK_SERVER", None)
        if saved is not None:
            os.environ["ARENA_FORK_SERVER"] = saved
        forkserver.reset()
    cpu = {forked: sum(c for c, _ in costs[forked]) / rounds for forked in costs}
    wall = {forked: sum(w for _, w in costs[forked]) / rounds for forked in costs}
    return {
        "games": total_games(config, list(entrants)),
        "pairings": len(entrants) * (len(entrants) - 1) // 2,
        "jobs1_games_per_second": serial,
        "jobs2_games_per_second": parallel,
        "ratio": parallel / serial,
        "play_only_games_per_second": playing,
        "efficiency": serial / playing,
        "host_scaling": sum(host) / rounds,
        "rounds": [{"ratio": b / a, "host_scaling": h} for a, b, h in zip(one, two, host, strict=True)],
        "first_game_ms_jobs1": sum(r.first_game for r in ones) / rounds * 1000,
        "first_game_ms_jobs2": sum(r.first_game for r in twos) / rounds * 1000,
        "even_split": sum(map(even_split, ones, twos)) / rounds,
        "steady_jobs1_games_per_second": sum(r.steady for r in ones) / rounds,
        "steady_jobs2_games_per_second": sum(r.steady for r in twos) / rounds,
        "steady_ratio": sum(r.steady for r in twos) / sum(r.steady for r in ones),
        "busy_cores_jobs1": _mean([r.busy_cores for r in ones]),
        "busy_cores_jobs2": _mean([r.busy_cores for r in twos]),
        "match_cpu_ms_forked": cpu[True] * 1000,
        "match_cpu_ms_exec": cpu[False] * 1000,
        "match_wall_ms_forked": wall[True] * 1000,
        "match_wall_ms_exec": wall[False] * 1000,
        "load_average": os.getloadavg()[0],
    }
