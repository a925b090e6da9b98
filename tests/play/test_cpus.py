"""Pinning a match to a core: every thread of the referee and of its bots moves, and the caller gets its cores back."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from configs import match_spec, tournament_config

from arena.play.botproc import resolve_bot
from arena.play.cpus import available, idlest, pin_match, unpin
from arena.play.matchspec import BotEntry, MatchSpec
from arena.play.referee import Referee, run_match
from arena.tournament.run import resolve_entrants, run_tournament
from arena.tournament.store import Store

pytestmark = pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="this system cannot pin processes")

THREADED_CHILD = "import threading, time; threading.Thread(target=time.sleep, args=(60,)).start(); time.sleep(60)"


def threads_of(pid: int) -> list[set[int]]:
    """The cores each thread of ``pid`` may run on."""
    return [os.sched_getaffinity(int(task.name)) for task in Path(f"/proc/{pid}/task").iterdir()]


def last_core() -> int:
    return available()[-1]


def test_pin_match_moves_every_thread_of_the_processes_and_their_children() -> None:
    core = last_core()
    before = os.sched_getaffinity(0)
    spawn = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {THREADED_CHILD!r}])"
    parent = subprocess.Popen([sys.executable, "-c", spawn])
    saved = None
    try:
        deadline = time.monotonic() + 10
        while not (kids := children(parent.pid)) or len(threads_of(kids[0])) < 2:
            assert time.monotonic() < deadline, "the threaded grandchild did not start"
            time.sleep(0.02)
        saved = pin_match([core], [parent.pid])
        assert saved == before
        for pid in [os.getpid(), parent.pid, *kids]:
            assert all(cores == {core} for cores in threads_of(pid)), pid
    finally:
        unpin(saved)
        for pid in children(parent.pid):
            os.kill(pid, 9)
        parent.kill()
        parent.wait()
    assert os.sched_getaffinity(0) == before


def children(pid: int) -> list[int]:
    """The direct children of ``pid``."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(stat.parent.name))
        except (OSError, ValueError):
            continue
    return found


def test_idlest_hands_out_the_allowed_cores_and_repeats_them_when_short() -> None:
    cores = available()
    picked = idlest(len(cores) + 1, sample=0.01)
    assert sorted(picked[: len(cores)]) == cores
    assert picked[len(cores)] == picked[0]
    assert idlest(0) == []


def test_a_pinned_match_runs_its_bots_on_its_core_and_gives_the_caller_its_cores_back(tmp_path: Path) -> None:
    core = last_core()
    before = os.sched_getaffinity(0)
    command = resolve_bot("random")
    bots = [BotEntry(name=f"random{i}", argv=list(command.argv)) for i in range(2)]
    spec = match_spec(bots, [(5, [0, 1])], match_id="pinned", log_dir=str(tmp_path), cpus=[core])
    with contextlib.closing(Referee(spec)) as referee:
        assert referee.start() == []
        for process in referee.processes:
            assert process is not None and all(cores == {core} for cores in threads_of(process.pid))
    assert os.sched_getaffinity(0) == before
    unpinned = run_match(spec.replace(cpus=None))
    assert [r["hands"] for r in run_match(spec)] == [r["hands"] for r in unpinned]  # where it runs changes nothing


class Recording:
    """An executor that keeps the specs it is given and plays nothing."""

    def __init__(self) -> None:
        self.specs: list[MatchSpec] = []

    def run(self, spec: MatchSpec, on_game: Any) -> str | None:
        self.specs.append(spec)
        return None

    def cancel(self) -> None:
        pass


@pytest.mark.parametrize("pin", [True, False])
def test_a_tournament_gives_each_parallel_match_a_core_unless_told_not_to(tmp_path: Path, pin: bool) -> None:
    config = tournament_config(entrants=["random", "heuristic"], pin=pin)
    executor = Recording()
    with Store.open(tmp_path / "t.db") as store:
        run_tournament(
            config,
            store,
            resolve_entrants(config.entrants),
            jobs=2,
            log_dir=str(tmp_path),
            executor=executor,
        )
    assert executor.specs
    if pin:
        assert all(spec.cpus is not None and len(spec.cpus) == 1 for spec in executor.specs)
        assert {spec.cpus[0] for spec in executor.specs if spec.cpus} <= set(available())
    else:
        assert all(spec.cpus is None for spec in executor.specs)
