"""Tournaments on a Dask cluster: a real scheduler and workers on 127.0.0.1 give the local executor's table.

A cluster started with Dask's own commands (``dask scheduler``, ``dask worker``, as processes) and a ``LocalCluster``
each run the same small tournament as the local executor; the stored games and the ranking table must be equal.
Killing a worker (SIGKILL, by its pid) mid-run loses no stored game, stores none twice and the run completes; so
does killing the coordinator, which resumes as a local run does, and stopping it as Ctrl-C does (the workers then
kill their referees). On the workers, bots arrive by content (checked by hash, run with the worker's runtime),
and matches are pinned to a core and confined as here. Without a cluster: the one-line errors, and a re-run task
that plays only the rest of its match. (What needs no Dask, the ``[executor]`` table and the error without Dask
installed, is tested in test_config_executor.py: this module skips where Dask is missing.)

One cluster of two workers serves the module (the worker-killing test, the last, leaves it one; a test after it
would get a second again), and so does one local run of the tournament (``make`` runs a module's tests in one xdist
worker: ``--dist loadfile``). What is about a process (the coordinator killed, stopped as Ctrl-C, or the run a
worker is killed under; the one-line errors) runs ``arena`` as a process of its own; the other runs, resumes and
rankings run in this process (``arena_here``: the CLI's and Dask's imports, ~0.8 processor seconds a process, are
paid once).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from configs import rerun_cluster, write_config
from helpers import ARENA, RAW_RANDOM, ROOT, arena_here, run_arena, wait_for_stored

from arena.errors import ArenaError
from arena.play import forkserver
from arena.tournament.config import load_config
from arena.tournament.store import Store

if TYPE_CHECKING:
    from arena.tournament.dask_worker import ShippedBot

# Dask is imported by the tests that use it, not with the module: every xdist worker collects every module, and
# ``import distributed`` costs ~0.8 s of processor time (the arena's Dask modules import it too).
if importlib.util.find_spec("distributed") is None or importlib.util.find_spec("dask") is None:
    pytest.skip("could not import 'distributed': the dask extra is not installed", allow_module_level=True)

from arena.bench.cluster import DaskProcesses  # after the skip: it may come to import Dask

CONFIG = dict(
    name="dask-test",
    entrants=["heuristic", "random", RAW_RANDOM],
    games_per_pairing=2,
    games_per_match=2,
    time="5+0.1",
    seed=5,
    rating={"bootstrap": 100},
)
# Three pairings of two deals in both seatings: 12 games in 6 matches, one per pairing and seating (the fewest
# matches three entrants make). What a run costs here is mostly its matches' processes, not their games: 4 deals a
# pairing (24 games, the same 6 matches) cost each run on the cluster ~0.5 s more processor time, six runs a module.
GAMES = 12


def stored(db: Path) -> dict[str, dict[str, Any]]:
    """Every stored game by key, without what differs between runs (timing, the match it was played in)."""
    with Store.open(db, create=False) as store:
        games = {key: record for _, key, record in store.records()}
    for record in games.values():
        for key in ("timing", "match_id", "game_index"):
            record.pop(key, None)
    return games


def ranking_json(db: Path) -> Any:
    done = arena_here("ranking", "--db", str(db), "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def start_cluster(folder: Path) -> DaskProcesses:
    """A scheduler and two workers of one thread, started with ``dask scheduler`` and ``dask worker`` on 127.0.0.1."""
    folder.mkdir(parents=True, exist_ok=True)
    return DaskProcesses(folder, workers=2, threads=1)


@pytest.fixture(scope="module")
def config_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_config(tmp_path_factory.mktemp("config") / "dask-test.toml", **CONFIG)


@pytest.fixture(scope="module")
def local_run(config_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tournament played by the local executor: the reference."""
    db = tmp_path_factory.mktemp("local") / "local.db"
    done = arena_here("tournament", "run", str(config_path), "--db", str(db), "--quiet", "--jobs", "2")
    assert done.returncode == 0 and "warning" not in done.stderr, done.stderr
    assert len(stored(db)) == GAMES
    return db


@pytest.fixture(scope="module")
def local_ranking(local_run: Path) -> Any:
    """The local run's ranking table (``arena ranking --format json``), read once."""
    return ranking_json(local_run)


@pytest.fixture(scope="module")
def module_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DaskProcesses]:
    running = start_cluster(tmp_path_factory.mktemp("cluster"))
    yield running
    running.stop()


@pytest.fixture
def cluster(module_cluster: DaskProcesses, tmp_path_factory: pytest.TempPathFactory) -> DaskProcesses:
    """The module's cluster with its two workers: a worker joins it where an earlier test killed one (in the file's
    order none does: the worker-killing test comes last, and its run ends on the one worker left)."""
    while len(module_cluster.workers) < 2:
        module_cluster.workers.append(join_worker(module_cluster, tmp_path_factory.mktemp("joined")))
    return module_cluster


@pytest.mark.slow
def test_a_cluster_started_with_dask_commands_gives_the_local_table(
    cluster: DaskProcesses, config_path: Path, local_run: Path, local_ranking: Any, tmp_path: Path
) -> None:
    db = tmp_path / "dask.db"
    done = arena_here("tournament", "run", str(config_path), "--db", str(db), "--quiet", "--scheduler", cluster.address)
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr, done.stderr
    assert stored(db) == stored(local_run)
    assert ranking_json(db) == local_ranking
    logs = {p.name for p in (tmp_path / "dask-logs").iterdir()}  # the workers' logs came back beside the results
    assert any(name.endswith("-referee.log") for name in logs) and any("-bot0-" in name for name in logs)


@pytest.mark.slow
def test_a_local_cluster_gives_the_local_table(config_path: Path, local_run: Path, tmp_path: Path) -> None:
    """The Python API's path: a ``DaskExecutor`` on a ``LocalCluster``'s client, handed to ``run_tournament``.

    The workers are threads of this process (what travels between processes is the other tests' matter: the
    cluster of ``dask`` commands); each task still plays its match in a referee process, as on any worker.
    """
    import dask
    import distributed

    from arena.tournament.dask_executor import DaskExecutor
    from arena.tournament.run import resolve_entrants, run_tournament

    config = load_config(config_path)
    commands = resolve_entrants(config.entrants, folder=config_path.parent)
    with (
        dask.config.set({"temporary-directory": str(tmp_path / "dask")}),  # the scheduler's scratch files
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=False,  # workers and scheduler talk in-process (inproc://): no port is opened
            dashboard_address=None,
            scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},  # no dashboard; its health routes on loopback
            local_directory=str(tmp_path / "dask"),
        ) as local_cluster,
        distributed.Client(local_cluster) as client,
    ):
        executor = DaskExecutor(client)
        try:
            with Store.open(tmp_path / "lc.db") as store:
                report = run_tournament(
                    config, store, commands, jobs=4, log_dir=str(tmp_path / "logs"), executor=executor
                )
        finally:
            executor.close()
    assert report.errors == [] and report.done == report.total
    assert stored(tmp_path / "lc.db") == stored(local_run)


def run_command(config_path: Path, db: Path, address: str) -> list[str]:
    """``arena tournament run`` of the config on the cluster at ``address``."""
    return [*ARENA, "tournament", "run", str(config_path), "--db", str(db), "--quiet", "--scheduler", address]


def wait_for_games(db: Path, at_least: int, process: subprocess.Popen[bytes]) -> int:
    """Poll the store until it holds ``at_least`` games; the count then."""
    count = wait_for_stored(db, at_least, process)
    if process.poll() is not None:  # say why (a run that failed here was the store's race: test_store.py)
        said = process.stderr.read().decode(errors="replace")[-2000:] if process.stderr else ""
        raise AssertionError(f"the run ended (code {process.returncode}) before the kill: {said}")
    if count < at_least:
        raise AssertionError("no games were stored")
    return count


def join_worker(cluster: DaskProcesses, folder: Path) -> subprocess.Popen[bytes]:
    """One more worker of one thread for ``cluster``, started as its own were (``dask worker``, on 127.0.0.1, in a
    session of its own), once the scheduler counts it."""
    import distributed

    folder.mkdir(parents=True, exist_ok=True)
    loopback = ["--host", "127.0.0.1", "--no-dashboard", "--dashboard-address", "127.0.0.1:0"]
    with open(folder / "dask.log", "ab") as log:
        worker = subprocess.Popen(
            [sys.executable, "-m", "dask", "worker", cluster.address, *loopback, "--nthreads", "1", "--no-nanny",
             "--local-directory", str(folder)],
            stdout=log, stderr=log, start_new_session=True,
            env={**os.environ, "DASK_TEMPORARY_DIRECTORY": str(folder)},
        )  # fmt: skip
    try:
        with distributed.Client(cluster.address, timeout=60, set_as_default=False) as client:
            client.wait_for_workers(len(cluster.workers) + 1, timeout=60)
            address = [a for a, pid in client.run(os.getpid).items() if pid == worker.pid]
            # Its fork servers started now, as the cluster's workers' are after a first match: a cold worker, slower
            # by the servers' imports, got its first match only once the others had played the rest, or none.
            client.run(forkserver.warm, forkserver.BOTS, forkserver.REFEREES, workers=address)
    except BaseException:
        worker.kill()
        worker.wait()
        raise
    return worker


@pytest.mark.slow
def test_a_coordinator_killed_with_sigkill_resumes_on_the_cluster(
    cluster: DaskProcesses, config_path: Path, local_run: Path, tmp_path: Path
) -> None:
    db = tmp_path / "coordinator.db"
    command = run_command(config_path, db, cluster.address)
    run = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for_games(db, 3, run)
    run.kill()
    run.wait()
    done = arena_here(*command[len(ARENA) :])  # the resume: what is about a process was its kill
    assert done.returncode == 0, done.stderr
    assert stored(db) == stored(local_run)


# ---- without a cluster ----


# ``arena`` that says at its exit (on stdout) whether it imported Dask's distributed
ARENA_SAYING_IF_DASK = """
import atexit, sys
atexit.register(lambda: print("distributed imported:", "distributed" in sys.modules))
from arena.cli import main
main(prog_name="arena")
"""


def test_the_dask_executor_without_a_scheduler_address_says_so_in_one_line(tmp_path: Path) -> None:
    """... before it imports Dask (0.9 s of processor time, spent on nothing)."""
    env = {k: v for k, v in os.environ.items() if k != "DASK_SCHEDULER_ADDRESS"}
    path = write_config(tmp_path / "dask-test.toml", **CONFIG)
    done = subprocess.run(
        [sys.executable, "-c", ARENA_SAYING_IF_DASK, "tournament", "run", str(path), "--executor", "dask", "--quiet"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "Error: the dask executor needs its scheduler's address: --scheduler tcp://HOST:8786, or scheduler = "
        '"..." in the config\'s [executor] table'
    ]
    assert done.stdout.splitlines() == ["distributed imported: False"]


@pytest.mark.slow  # the client tries for its whole connect timeout (1.5 s here)
def test_an_unreachable_scheduler_is_one_line(tmp_path: Path) -> None:
    path = write_config(tmp_path / "dask-test.toml", **CONFIG)
    path.write_text(path.read_text() + "\n[executor]\nconnect_timeout = 1.5\n")  # the default waits 10 s
    done = run_arena("tournament", "run", str(path), "--scheduler", "tcp://127.0.0.1:9", "--quiet", timeout=60)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: cannot reach the Dask scheduler at tcp://127.0.0.1:9")


def shipped(path: Path, name: str = "bot") -> tuple[ShippedBot, dict[str, bytes]]:
    from arena.tournament.dask_worker import ShippedBot, digest_of

    digest = digest_of(path)
    return ShippedBot(name, "zmq", path.name, digest, False), {digest: path.read_bytes()}


def test_a_shipped_bot_is_written_once_checked_by_hash_and_run_with_this_hosts_runtime(tmp_path: Path) -> None:
    from arena.tournament.dask_worker import install

    source = ROOT / "tests" / "bots" / "raw_random.py"
    bot, contents = shipped(source, "raw")
    entry = install(bot, contents, tmp_path / "cache")
    assert entry.name == "raw" and entry.argv == [sys.executable, str(tmp_path / "cache" / bot.digest / source.name)]
    assert Path(entry.argv[-1]).read_bytes() == source.read_bytes()
    Path(entry.argv[-1]).write_text("tampered")  # a file in the worker's cache that is not the coordinator's
    with pytest.raises(ArenaError, match=r"bot 'raw': .* has sha256 .*, the coordinator's has "):
        install(bot, contents, tmp_path / "cache")


def test_a_worker_without_a_bots_runtime_says_so_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.tournament.dask_worker import install

    bot, contents = shipped(ROOT / "bots" / "node" / "euchre_bot.js", "nodebot")
    monkeypatch.setenv("PATH", str(tmp_path))  # a worker with no node on its PATH
    with pytest.raises(ArenaError) as caught:
        install(bot, contents, tmp_path / "cache")
    assert "needs 'node', which is not on PATH" in str(caught.value) and "\n" not in str(caught.value)


def test_a_bot_on_a_declared_shared_path_is_checked_not_shipped(tmp_path: Path) -> None:
    from arena.tournament.dask_worker import ShippedBot, install

    source = tmp_path / "shared" / "mine.py"
    source.parent.mkdir()
    source.write_bytes((ROOT / "tests" / "bots" / "raw_random.py").read_bytes())
    bot, _ = shipped(source, "mine")
    bot = ShippedBot(bot.name, bot.transport, bot.filename, bot.digest, False, shared=str(source))
    assert install(bot, {}, tmp_path / "cache").argv[-1] == str(source)
    assert not (tmp_path / "cache").exists()
    source.write_text("changed on the shared disk since the run started")
    with pytest.raises(ArenaError, match="has sha256"):
        install(bot, {}, tmp_path / "cache")


class Replaying:
    """Plays no game: hands back a record for each game it is given, twice (as an attempt that died between
    sending a game and counting it would), and notes which deals it was given."""

    given: list[list[int]] = []

    def run(self, spec: Any, on_game: Any) -> str | None:
        Replaying.given.append([game.seed for game in spec.games])
        for index, game in enumerate(spec.games):
            on_game({"game_index": index, "seed": game.seed})
            on_game({"game_index": index, "seed": game.seed})
        return None

    def cancel(self) -> None:
        """Nothing runs."""


@pytest.mark.parametrize("sent", [2, 4], ids=["half-sent", "all-sent"])
def test_a_rerun_task_plays_only_the_rest_of_its_match_and_each_game_arrives_once(tmp_path: Path, sent: int) -> None:
    from arena.tournament.dask_executor import DaskExecutor
    from arena.tournament.dask_worker import progress_key

    with rerun_cluster(tmp_path) as (spec, _, client):
        executor = DaskExecutor(client, pin=False, make_executor=Replaying)
        try:  # an attempt that died after sending ``sent`` games (in the queue, counted), the first one twice
            earlier = [[index, {"game_index": index, "seed": 10 + index}] for index in range(sent)]
            executor.queue.put(["m1", [earlier[0], *earlier]])
            client.set_metadata(progress_key(executor.run_id, "m1"), sent)
            games: list[Any] = []
            Replaying.given = []
            assert executor.run(spec, games.append) is None
        finally:
            executor.close()
    assert Replaying.given == ([[12, 13]] if sent == 2 else [])  # only the rest of the match was played
    assert [(g["game_index"], g["seed"]) for g in games] == [(0, 10), (1, 11), (2, 12), (3, 13)]  # each once


def test_matches_on_one_machine_never_share_a_core(tmp_path: Path) -> None:
    from arena.play.cpus import available
    from arena.tournament.dask_worker import claimed_core

    cores = available()
    if not cores:
        pytest.skip("this system cannot pin processes")
    with contextlib.ExitStack() as held:
        taken = [held.enter_context(claimed_core(True, folder=tmp_path)) for _ in cores]
        assert sorted(taken) == cores  # type: ignore[type-var]
        with claimed_core(True, folder=tmp_path) as extra:
            assert extra in cores  # every core is held: a core is shared, as locally with more jobs than cores
    with claimed_core(True, folder=tmp_path) as again, claimed_core(False, folder=tmp_path) as unpinned:
        assert again in cores and unpinned is None  # given back when their matches ended


@pytest.mark.slow
def test_bench_cluster_measures_the_coordinator_locally_and_on_dask_side_by_side(cluster: DaskProcesses) -> None:
    from click.testing import CliRunner

    from arena.cli import main

    result = CliRunner().invoke(
        main, ["bench", "cluster", "--bots", "4", "--games", "2", "--rounds", "1", "--scheduler", cluster.address,
               "--json"]
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    assert figures["games"] == 4 * 3 * 2  # 6 pairings, 2 deals, 2 seatings
    assert figures["local_games_per_second"] > 0 and figures["dask_games_per_second"] > 0
    assert figures["ratio"] == pytest.approx(figures["dask_games_per_second"] / figures["local_games_per_second"])
    assert figures["dask_matches_in_flight"] == 2 * 2 * 1  # the module's two workers of one thread, twice over


def referees_under(pids: list[int]) -> list[int]:
    """Referee processes descended from ``pids`` (the workers)."""
    import psutil  # a dependency of Dask's

    found = []
    for pid in pids:
        with contextlib.suppress(psutil.NoSuchProcess):
            for child in psutil.Process(pid).children(recursive=True):
                with contextlib.suppress(psutil.NoSuchProcess):
                    if "arena.play.referee" in " ".join(child.cmdline()):
                        found.append(child.pid)
    return found


@pytest.mark.slow
def test_a_run_stopped_like_ctrl_c_stops_its_matches_on_the_workers_and_resumes(
    cluster: DaskProcesses, config_path: Path, local_run: Path, tmp_path: Path
) -> None:
    db = tmp_path / "stopped.db"
    command = run_command(config_path, db, cluster.address)
    run = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE)
    wait_for_games(db, 2, run)
    workers = [worker.pid for worker in cluster.workers]
    deadline = time.monotonic() + 60
    while not referees_under(workers):  # stop it while matches are being played on the workers (not between two)
        assert run.poll() is None, f"the run ended (code {run.returncode}) before the stop"
        assert time.monotonic() < deadline, "no referee on the workers"
        time.sleep(0.005)
    run.send_signal(signal.SIGTERM)  # as Ctrl-C
    _, err = run.communicate(timeout=60)
    assert run.returncode == 130 and "Interrupted:" in err.decode(), err.decode()
    deadline = time.monotonic() + 20
    while referees_under(workers):  # the workers saw their tasks cancelled and killed the referees
        assert time.monotonic() < deadline, "referees still running on the workers"
        time.sleep(0.1)
    done = arena_here(*command[len(ARENA) :])  # the resume: what is about a process was its stop
    assert done.returncode == 0, done.stderr
    assert stored(db) == stored(local_run)


@pytest.mark.slow
def test_a_stdio_node_bot_is_shipped_and_run_with_the_workers_node(cluster: DaskProcesses, tmp_path: Path) -> None:
    node_bot = ROOT / "bots" / "node" / "euchre_bot.js"
    path = write_config(
        tmp_path / "node.toml", name="node", entrants=["random", f"stdio:{node_bot}"], games_per_pairing=1
    )
    db = tmp_path / "node.db"
    done = arena_here("tournament", "run", str(path), "--db", str(db), "--quiet", "--scheduler", cluster.address)
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr, done.stderr
    games = stored(db)
    assert len(games) == 2 and all(not record.get("violations") for record in games.values())
    assert all(sorted(record["players"]) == ["euchre", "random"] for record in games.values())


def affinity_bot(path: Path) -> Path:
    """``raw_random.py`` that also logs the cores it may run on at its first request (after the referee pins it)."""
    source = (ROOT / "tests" / "bots" / "raw_random.py").read_text()
    told = (
        '    if message["type"] == "act" and not os.environ.get("TOLD"):\n'
        '        os.environ["TOLD"] = "1"\n'
        '        print("cpus", sorted(os.sched_getaffinity(0)), flush=True)\n'
    )
    path.write_text(
        source.replace('    if message["type"] == "act":\n', told + '    if message["type"] == "act":\n', 1)
    )
    return path


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="this system cannot pin processes")
def test_matches_on_workers_are_pinned_and_confined_as_locally(cluster: DaskProcesses, tmp_path: Path) -> None:
    import re

    bot = affinity_bot(tmp_path / "affinity_bot.py")
    config = write_config(tmp_path / "pin.toml", name="pin", entrants=["random", bot], games_per_pairing=1)
    firsts = []
    for where, extra in (("local", ["--jobs", "1"]), ("dask", ["--scheduler", cluster.address])):
        db = tmp_path / f"{where}.db"
        done = arena_here("tournament", "run", str(config), "--db", str(db), "--quiet", *extra)
        assert done.returncode == 0 and "warning" not in done.stderr, done.stderr
        logs = sorted((tmp_path / f"{where}-logs").glob("*-affinity.log"))
        assert len(logs) == 2  # one match per seating
        for log in logs:
            first, *rest = log.read_text().splitlines()
            firsts.append(re.sub(r"uid \d+", "uid N", first))
            told = [json.loads(line.removeprefix("cpus ")) for line in rest if line.startswith("cpus ")]
            assert len(told) == 1 and len(told[0]) == 1, told  # the match ran on one core
    assert firsts[0].startswith("[arena: ") and len(set(firsts)) == 1  # confined on the workers as here


@pytest.mark.slow
def test_a_worker_killed_mid_run_loses_no_stored_game_and_the_run_completes(
    cluster: DaskProcesses, config_path: Path, local_run: Path, local_ranking: Any, tmp_path: Path
) -> None:
    # The worker that plays a match once two games are stored is killed, and the other plays the rest of the run.
    # (Killing a worker chosen beforehand was flaky: Dask places a match where its bots' files are, and a worker that
    # held none sometimes played no match at all.)
    pool = list(cluster.workers)
    victim = run = None
    try:
        db = tmp_path / "kill.db"
        run = subprocess.Popen(run_command(config_path, db, cluster.address), cwd=ROOT, stderr=subprocess.PIPE)
        before = wait_for_games(db, 2, run)
        deadline = time.monotonic() + 60
        while not (playing := [worker for worker in pool if referees_under([worker.pid])]):  # 12 games are far off
            assert time.monotonic() < deadline and run.poll() is None, "no match ran on a worker to kill"
            time.sleep(0.02)
        victim = playing[0]
        os.kill(victim.pid, signal.SIGKILL)
        with Store.open(db, create=False) as store:
            kept = {key: record for _, key, record in store.records()}
        _, err = run.communicate(timeout=240)
        assert victim.wait() == -signal.SIGKILL
        assert run.returncode == 0, err.decode()
        assert "warning" not in err.decode(), err.decode()
        assert before < GAMES and len(kept) < GAMES
        after = stored(db)
        assert after == stored(local_run)  # every game once (keys are unique), the same games as an unbroken run
        with Store.open(db, create=False) as store:
            assert store.game_count() == GAMES
            now = {key: record for _, key, record in store.records()}
        assert all(now[key] == record for key, record in kept.items())  # what was stored before the kill stays
        assert ranking_json(db) == local_ranking
    finally:
        if run is not None and run.poll() is None:  # a failure above: the run must not go on on the module's cluster
            run.kill()
            run.communicate()
        if victim is not None:  # the one left stays, which the cluster stops with itself
            victim.wait()
            cluster.workers[:] = [worker for worker in pool if worker is not victim]
