"""SIGKILL of ``arena tournament run`` at seeded random moments: every resume loses nothing and plays nothing twice.

The same small tournament is run once without a break, and once killed (SIGKILL, no chance to clean up) at ten or
more random moments, from interpreter start-up to the last game, each time resumed by running the same command.
The resumed database must end up with the same games, the same records and the same ranking table.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from configs import write_config
from helpers import ARENA, RAW_RANDOM, ROOT, arena_here, wait_for_stored
from sandboxing import described

from arena.tournament.store import Store

pytestmark = pytest.mark.slow

KILLS = 10
SEED = 2026
TOTAL = 24  # games of the tournament below

CONFIG = dict(
    name="crash-test",
    entrants=["heuristic", "random", RAW_RANDOM],
    games_per_pairing=4,
    games_per_match=4,
    time="5+0.1",
    seed=11,
    jobs=2,
    rating={"bootstrap": 100},
)


def stored(db: Path) -> dict[str, dict[str, Any]]:
    """Every stored game by key, without what legitimately differs between runs.

    That is: timing and wall-clock times, and the match a game was played in (its id, and the game's index in it:
    a resumed run groups the games left into matches of its own).
    """
    if not db.exists():
        return {}
    with Store.open(db, create=False) as store:
        games = {key: record for _, key, record in store.records()}
    for record in games.values():
        for field in ("timing", "match_id", "game_index"):
            record.pop(field, None)
        for violation in record.get("violations", []):
            violation.pop("at_seconds", None)
            violation.pop("wall_time", None)
    return games


def processes_with_files_under(folder: Path) -> list[int]:
    """Processes holding a file open under ``folder`` (referees keep their log open there)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            targets = [_target(fd) for fd in (entry / "fd").iterdir()]
        except OSError:
            continue
        if any(t.startswith(str(folder)) for t in targets):
            found.append(int(entry.name))
    return found


def _target(fd: Path) -> str:
    """Where a descriptor of /proc/PID/fd leads ("" if it closed meanwhile)."""
    try:
        return os.readlink(fd)
    except OSError:
        return ""


def files_under(pid: int, folder: Path) -> list[str]:
    """The files under ``folder`` a process holds open (for a failure's message)."""
    with contextlib.suppress(OSError):
        return [t for t in map(_target, (Path("/proc") / str(pid) / "fd").iterdir()) if t.startswith(str(folder))]
    return []


def kill_at_a_random_moment(process: subprocess.Popen[bytes], db: Path, rng: random.Random, count: int) -> None:
    """SIGKILL a run resumed from ``count`` of the 24 games at a random moment: a third of the kills (and all of
    them once one game is left) in its start-up (interpreter, imports, fork servers, referees, bots: its first 0.05-0.6
    s), the others just after the store holds a random number of games more, and up to 50 ms later: between games or
    within one. Its moments were once times up to the unbroken run's span: on a loaded host a run often ended first
    (the test took up to 73 s and ~37 processor seconds), and most kills after the first resume fell in start-up."""
    if count >= TOTAL - 1 or rng.random() < 1 / 3:
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=rng.uniform(0.05, 0.6))
    else:
        target = rng.randint(count + 1, TOTAL - 1)
        wait_for_stored(db, target, process)
        time.sleep(rng.uniform(0.0, 0.05))
    with contextlib.suppress(ProcessLookupError):
        os.kill(process.pid, signal.SIGKILL)


def test_a_tournament_killed_ten_times_at_random_moments_ends_as_an_unbroken_run(tmp_path: Path) -> None:
    config = write_config(tmp_path / "crash.toml", **CONFIG)
    unbroken = tmp_path / "unbroken.db"
    done = arena_here("tournament", "run", str(config), "--db", str(unbroken), "--quiet")
    assert done.returncode == 0, done.stderr
    expected = stored(unbroken)
    total = len(expected)
    assert total == TOTAL

    broken = tmp_path / "broken" / "broken.db"
    broken.parent.mkdir()
    rng = random.Random(SEED)
    attempts, counts, landed = 0, [0], []
    # until ten kills have landed, three or more of them between games
    while len(landed) < KILLS or sum(0 < n < total for n in landed) < 3:
        attempts += 1
        assert attempts < 2 * KILLS, f"the runs keep finishing before they can be killed: {landed}"
        process = subprocess.Popen(
            [*ARENA, "tournament", "run", str(config), "--db", str(broken), "--quiet"],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        kill_at_a_random_moment(process, broken, rng, counts[-1])
        killed = process.wait() == -signal.SIGKILL
        assert process.stderr is not None
        said = process.stderr.read().decode(errors="replace")
        process.stderr.close()
        assert "Traceback" not in said
        assert killed or process.returncode == 0, said  # a run that ended before its kill ended well
        games = stored(broken)
        assert set(games) <= set(expected)
        for key, record in games.items():  # every game kept is whole and is the unbroken run's game
            assert record == expected[key], key
        assert len(games) >= counts[-1]  # nothing stored is ever lost
        counts.append(len(games))
        if killed:
            landed.append(len(games))
        if len(games) == total:  # this sequence of resumes is complete: it is the unbroken run; start another
            assert games == expected
            broken.unlink()
            for side in broken.parent.glob("broken.db-*"):
                side.unlink()
            counts.append(0)
        deadline = time.monotonic() + 10
        while processes_with_files_under(broken.parent) and time.monotonic() < deadline:
            time.sleep(0.05)  # its referees die with it (and their bots with them)
        left = processes_with_files_under(broken.parent)
        assert left == [], [(described(pid), files_under(pid, broken.parent)) for pid in left]

    resumed = arena_here("tournament", "run", str(config), "--db", str(broken), "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    assert f"{total}/{total} games" in resumed.stdout
    assert stored(broken) == expected
    # the kills fell from start-up to late in the run: before the first game was stored and between games
    assert sum(0 < n < total for n in landed) >= 3 and len(landed) >= KILLS, landed

    tables = [arena_here("ranking", str(config), "--db", str(db), "--format", "json") for db in (unbroken, broken)]
    assert all(t.returncode == 0 for t in tables), [t.stderr for t in tables]
    assert json.loads(tables[0].stdout) == json.loads(tables[1].stdout)
