"""How `arena tournament run` ends when things go wrong: bots that forfeit, Ctrl-C twice, a reader that goes away.

Signals and pipes are real: a real ``arena`` process gets SIGINT, and its stdout is a real pipe closed early.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from configs import write_config
from helpers import wait_for_stored

from arena.cli import main
from arena.tournament.store import Store

ROOT = Path(__file__).resolve().parent.parent
RAW = ROOT / "tests" / "bots" / "raw_random.py"
ARENA = [sys.executable, "-m", "arena"]
CRASHER = 'import sys\nprint("warming up")\nraise RuntimeError("boom: no strategy")\n'


def config(tmp_path: Path, entrants: list[str], games: int = 1) -> Path:
    return write_config(
        tmp_path / "t.toml", entrants=entrants, games_per_pairing=games, games_per_match=4, jobs=2,
        rating={"bootstrap": 0},
    )  # fmt: skip


def test_a_tournament_ends_with_violations_by_bot_and_kind_and_the_bots_error_from_its_log(tmp_path: Path) -> None:
    crasher = tmp_path / "crasher.py"
    crasher.write_text(CRASHER)
    path = config(tmp_path, ["random", str(crasher)], games=2)
    result = CliRunner().invoke(main, ["tournament", "run", str(path), "--quiet"])
    assert result.exit_code == 0, result.output  # the tournament was played: forfeits are results
    assert result.stdout.startswith("t: 4/4 games (4 played now)")  # the table as ever, on stdout
    said = result.stderr.splitlines()
    assert said[:4] == [
        "",
        "Violations by bot and kind:",
        "  crasher: handshake 4; forfeited 4 of its 4 games",
        "    first: handshake: bot exited with code 1 before hello",
    ]
    log = re.fullmatch(r"    log (.*): RuntimeError: boom: no strategy", said[4])  # its first violation's match
    assert log is not None and Path(log[1]).parent == tmp_path / "t-logs" and log[1].endswith("-crasher.log")
    assert said[5:] == ["warning: crasher forfeited all 4 of its games: see its log above"]


def test_a_clean_tournament_ends_with_the_table_alone(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["tournament", "run", str(config(tmp_path, ["random", "heuristic"])), "--quiet"])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""


def test_a_second_ctrl_c_still_says_what_is_kept_and_how_to_resume(tmp_path: Path) -> None:
    path = config(tmp_path, ["random", str(RAW), "heuristic"], games=40)
    db = tmp_path / "t.db"
    process = subprocess.Popen(
        [*ARENA, "tournament", "run", str(path), "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        wait_for_stored(db, 2, process)
        assert process.poll() is None, "the run finished before Ctrl-C; make the tournament longer"
        process.send_signal(signal.SIGINT)
        time.sleep(0.1)  # the first Ctrl-C is still stopping the run: its matches, the games they had finished
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
        process.wait()
    assert process.returncode == 130, err
    assert "Aborted" not in err and "Traceback" not in err and out == ""
    said = re.fullmatch(r"Interrupted: (\d+)/240 games stored in (.*)\. Run the same command to resume\.\n", err)
    assert said is not None, err
    with Store.open(db, create=False) as store:
        assert int(said[1]) == store.game_count() >= 2 and said[2] == str(db)


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["tournament", "run", "{config}", "--quiet"], id="tournament-run"),
        pytest.param(["games", "{config}"], id="games"),
        pytest.param(["config", "keys"], id="config-keys"),
    ],
)
def test_a_reader_that_goes_away_ends_the_command_without_a_word(tmp_path: Path, args: list[str]) -> None:
    """``arena ... | head -1``: the pipe is closed before the command writes; no `Error: Broken pipe`, no traceback."""
    path = config(tmp_path, ["random", "heuristic"])
    if args[0] == "games":
        assert CliRunner().invoke(main, ["tournament", "run", str(path), "--quiet"]).exit_code == 0
    reading, writing = os.pipe()
    os.close(reading)  # the reader is gone before the first line
    try:
        completed = subprocess.run(
            [*ARENA, *(a.format(config=path) for a in args)],
            stdout=writing,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(writing)
    assert completed.stderr == ""
    assert completed.returncode == 1
    if args[0] != "config":
        with Store.open(tmp_path / "t.db", create=False) as store:
            assert store.game_count() == 2  # the games were played and stored all the same
