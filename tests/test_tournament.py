"""Tournaments end to end: real referee processes, real bots, a real SQLite file; resume after SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.tournament.store import Store

ROOT = Path(__file__).resolve().parent.parent
ARENA = [sys.executable, "-m", "arena"]

CONFIG = """
name = "resume-test"
variant = "two-hand"
entrants = ["heuristic", "random", "{raw}"]
games_per_pairing = 6
games_per_match = 4
time = "5+0.1"
seed = 7
jobs = 2

[rating]
bootstrap = 200
"""


def write_config(tmp_path: Path) -> Path:
    path = tmp_path / "resume.toml"
    path.write_text(CONFIG.format(raw=ROOT / "tests" / "bots" / "raw_random.py"))
    return path


def run(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARENA, *args], capture_output=True, text=True, cwd=ROOT, timeout=300, **kwargs)  # type: ignore[call-overload, no-any-return]


def ranking_json(db: Path, config: Path) -> list[dict[str, object]]:
    result = run(["ranking", str(config), "--db", str(db), "--format", "json"])
    assert result.returncode == 0, result.stderr
    rows: list[dict[str, object]] = json.loads(result.stdout)
    return rows


@pytest.fixture(scope="module")
def unbroken(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, subprocess.CompletedProcess[str]]:
    """The 36-game tournament played once without a break, shared by the tests that need it: config, db, output."""
    tmp = tmp_path_factory.mktemp("unbroken")
    config = write_config(tmp)
    db = tmp / "full.db"
    return config, db, run(["tournament", "run", str(config), "--db", str(db), "--quiet"])


def test_a_tournament_stores_every_game_and_prints_the_table(
    unbroken: tuple[Path, Path, subprocess.CompletedProcess[str]],
) -> None:
    config, db, result = unbroken
    assert result.returncode == 0, result.stderr
    assert "36/36 games" in result.stdout
    assert "heuristic" in result.stdout and "Elo" in result.stdout
    with Store.open(db, create=False) as store:
        assert store.game_count() == 36
        keys = store.game_keys()
    assert len(keys) == 36
    again = run(["tournament", "run", str(config), "--db", str(db), "--quiet"])
    assert again.returncode == 0 and "(0 played now)" in again.stdout


@pytest.mark.slow
def test_resume_after_sigkill_loses_no_game_plays_none_twice_and_gives_the_same_table(
    tmp_path: Path, unbroken: tuple[Path, Path, subprocess.CompletedProcess[str]]
) -> None:
    _, unbroken_db, played = unbroken
    assert played.returncode == 0
    config = write_config(tmp_path)

    broken_db = tmp_path / "broken.db"
    process = subprocess.Popen(
        [*ARENA, "tournament", "run", str(config), "--db", str(broken_db), "--quiet"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    stored = 0
    while time.monotonic() < deadline and process.poll() is None:
        if broken_db.exists():
            with Store.open(broken_db, create=False) as store:
                stored = store.game_count()
            if stored >= 8:
                break
        time.sleep(0.05)
    assert process.poll() is None, "the run finished before it could be killed; make the tournament longer"
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    with Store.open(broken_db, create=False) as store:
        kept = store.game_count()
    assert 8 <= kept < 36

    resumed = run(["tournament", "run", str(config), "--db", str(broken_db), "--quiet"])
    assert resumed.returncode == 0, resumed.stderr
    assert f"({36 - kept} played now)" in resumed.stdout
    with Store.open(broken_db, create=False) as store:
        assert store.game_count() == 36
    assert ranking_json(broken_db, config) == ranking_json(unbroken_db, config)


@pytest.mark.slow
def test_ctrl_c_stops_cleanly_and_the_run_resumes(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    db = tmp_path / "interrupted.db"
    process = subprocess.Popen(
        [*ARENA, "tournament", "run", str(config), "--db", str(db), "--quiet"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if db.exists():
            with Store.open(db, create=False) as store:
                if store.game_count() >= 4:
                    break
        time.sleep(0.05)
    assert process.poll() is None, "the run finished before Ctrl-C; make the tournament longer"
    process.send_signal(signal.SIGINT)
    _out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "Interrupted" in err and "resume" in err and "Traceback" not in err
    with Store.open(db, create=False) as store:
        kept = store.game_count()
    assert 4 <= kept < 36
    resumed = run(["tournament", "run", str(config), "--db", str(db), "--quiet"])
    assert resumed.returncode == 0, resumed.stderr
    assert "36/36 games" in resumed.stdout


@pytest.mark.slow
def test_a_second_run_of_a_running_tournament_says_so_in_one_line_and_the_first_goes_on(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    db = tmp_path / "busy.db"
    first = subprocess.Popen(
        [*ARENA, "tournament", "run", str(config), "--db", str(db), "--quiet"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        lock = Path(f"{db}.lock")
        deadline = time.monotonic() + 60
        while not (lock.exists() and lock.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.02)
        second = run(["tournament", "run", str(config), "--db", str(db), "--quiet"])
        assert second.returncode == 2
        errors = [line for line in second.stderr.splitlines() if line.startswith("Error: ")]
        assert len(errors) == 1 and f"already running (process {first.pid})" in errors[0], second.stderr
        assert first.wait(timeout=200) == 0
    finally:
        first.kill()
        first.wait()
    with Store.open(db, create=False) as store:
        assert store.game_count() == 36  # the first run finished undisturbed
