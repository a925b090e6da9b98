"""Tournaments end to end: real referee processes, real bots, a real SQLite file; resume after SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from configs import write_config
from helpers import ARENA, RAW_RANDOM, ROOT, arena_here, wait_for_stored

from arena.tournament.run import give_up_after, nothing_plays
from arena.tournament.store import Store

# 24 games, three matches of four, two at a time: 16 or more are left when the tests stop a run (after 4 or 8 are
# stored), seconds of play. It was 36 (matches of four and two): the SIGKILLs at random moments of a run of matches
# of four, in the middle of one too, are test_run_crash_resume.py's; here a kill, a Ctrl-C and a second run, once each.
CONFIG = dict(
    name="resume-test",
    entrants=["heuristic", "random", RAW_RANDOM],
    games_per_pairing=4,
    games_per_match=4,
    time="5+0.1",
    seed=7,
    jobs=2,
    rating={"bootstrap": 200},
)


def ranking_json(db: Path, config: Path) -> list[dict[str, object]]:
    result = arena_here("ranking", str(config), "--db", str(db), "--format", "json")
    assert result.returncode == 0, result.stderr
    rows: list[dict[str, object]] = json.loads(result.stdout)
    return rows


@dataclass(frozen=True)
class Unbroken:
    """The unbroken run: its config, results file and output; and a second run of the same config started while it
    ran (what it said) with the first run's pid."""

    config: Path
    db: Path
    result: subprocess.CompletedProcess[str]
    second: subprocess.CompletedProcess[str]
    first_pid: int


@pytest.fixture(scope="module")
def unbroken(tmp_path_factory: pytest.TempPathFactory) -> Unbroken:
    """The 24-game tournament played once without a break, shared by the tests that need it.

    Once it holds its lock, the same command is run a second time, once: the test of that refusal needs a running
    tournament, and this one is (it must end all the same, as the other tests check).
    """
    tmp = tmp_path_factory.mktemp("unbroken")
    config = write_config(tmp / "resume.toml", **CONFIG)
    db = tmp / "full.db"
    args = ["tournament", "run", str(config), "--db", str(db), "--quiet"]
    first = subprocess.Popen([*ARENA, *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lock = Path(f"{db}.lock")
        deadline = time.monotonic() + 60
        while not (lock.exists() and lock.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.02)
        # The second run, once the first holds its lock, in this process (``arena_here``, its imports done: it asks
        # for the lock at once, where a fresh `arena` takes ~0.5 s to get there and the first may be over). What is
        # tested is what the CLI decides and says while another process holds the lock, the first a process of its
        # own as before; a process of its own for the second, started ahead, cost ~0.5 processor seconds.
        second = arena_here(*args)
        out, err = first.communicate(timeout=300)
    finally:
        first.kill()
        first.wait()
    return Unbroken(config, db, subprocess.CompletedProcess(first.args, first.returncode, out, err), second, first.pid)


def test_a_tournament_stores_every_game_and_prints_the_table(unbroken: Unbroken) -> None:
    config, db, result = unbroken.config, unbroken.db, unbroken.result
    assert result.returncode == 0, result.stderr
    assert "24/24 games" in result.stdout
    assert "heuristic" in result.stdout and "Elo" in result.stdout
    with Store.open(db, create=False) as store:
        assert store.game_count() == 24
        keys = store.game_keys()
    assert len(keys) == 24
    again = arena_here("tournament", "run", str(config), "--db", str(db), "--quiet")
    assert again.returncode == 0 and "(0 played now)" in again.stdout


@pytest.mark.slow
def test_resume_after_sigkill_loses_no_game_plays_none_twice_and_gives_the_same_table(
    tmp_path: Path, unbroken: Unbroken
) -> None:
    unbroken_db, played = unbroken.db, unbroken.result
    assert played.returncode == 0
    config = write_config(tmp_path / "resume.toml", **CONFIG)

    broken_db = tmp_path / "broken.db"
    process = subprocess.Popen(
        [*ARENA, "tournament", "run", str(config), "--db", str(broken_db), "--quiet"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for_stored(broken_db, 8, process)
    assert process.poll() is None, "the run finished before it could be killed; make the tournament longer"
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    with Store.open(broken_db, create=False) as store:
        kept = store.game_count()
    assert 8 <= kept < 24

    resumed = arena_here("tournament", "run", str(config), "--db", str(broken_db), "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    assert f"({24 - kept} played now)" in resumed.stdout
    with Store.open(broken_db, create=False) as store:
        assert store.game_count() == 24
    assert ranking_json(broken_db, config) == ranking_json(unbroken_db, config)


@pytest.mark.slow
def test_ctrl_c_stops_cleanly_and_the_run_resumes(tmp_path: Path) -> None:
    config = write_config(tmp_path / "resume.toml", **CONFIG)
    db = tmp_path / "interrupted.db"
    process = subprocess.Popen(
        [*ARENA, "tournament", "run", str(config), "--db", str(db), "--quiet"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for_stored(db, 4, process)
    assert process.poll() is None, "the run finished before Ctrl-C; make the tournament longer"
    process.send_signal(signal.SIGINT)
    _out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "Interrupted" in err and "resume" in err and "Traceback" not in err
    with Store.open(db, create=False) as store:
        kept = store.game_count()
    assert 4 <= kept < 24
    resumed = arena_here("tournament", "run", str(config), "--db", str(db), "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    assert "24/24 games" in resumed.stdout


@pytest.mark.slow
def test_a_second_run_of_a_running_tournament_says_so_in_one_line_and_the_first_goes_on(unbroken: Unbroken) -> None:
    second = unbroken.second  # run while the unbroken run held its lock
    assert second.returncode == 2
    errors = [line for line in second.stderr.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1 and f"already running (process {unbroken.first_pid})" in errors[0], second.stderr
    assert unbroken.result.returncode == 0, unbroken.result.stderr
    with Store.open(unbroken.db, create=False) as store:
        assert store.game_count() == 24  # the first run finished undisturbed


def test_a_run_stops_taking_matches_only_when_every_pairing_keeps_failing() -> None:
    """A broken host fails every pairing's matches: stop after a few in a row. One broken entrant fails only its
    own pairings while the others play (and store games, which starts the count again): go on."""
    everyone = {"a|b", "a|x", "b|x"}
    assert nothing_plays(["a|x", "b|x", "a|b"] * 3, everyone, jobs=2)
    assert not nothing_plays(["a|x", "b|x"] * 8, everyone, jobs=2)  # x's pairings alone: a|b may still play
    assert not nothing_plays(["a|x", "b|x", "a|b"] * 2, everyone, jobs=2)  # not yet a few a slot
    assert give_up_after(1) == 8 and give_up_after(4) == 16


def test_an_entrant_that_does_not_play_the_variant_is_refused_before_any_game(tmp_path: Path) -> None:
    only_two = ROOT / "tests" / "bots" / "two_hand_only.py"
    config = write_config(tmp_path / "t.toml", variant="four-hand", entrants=["random", str(only_two)])
    db = tmp_path / "t.db"
    done = arena_here("tournament", "run", str(config), "--db", str(db), "--quiet")
    assert done.returncode == 2
    assert "does not play 'four-hand': its hello lists two-hand" in done.stderr and "two_hand_only" in done.stderr
    with Store.open(db, create=False) as store:
        assert store.game_keys() == set()
    two_hand = write_config(tmp_path / "two.toml", variant="two-hand", entrants=["random", str(only_two)])
    assert arena_here("tournament", "run", str(two_hand), "--db", str(tmp_path / "two.db"), "--quiet").returncode == 0
