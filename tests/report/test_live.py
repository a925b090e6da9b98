"""A report kept current while games are stored (arena/report/live.py, ``arena tournament run --report DIR``)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from configs import write_config
from helpers import ROOT, arena_here

from arena.report import build
from arena.report.build import build_report
from arena.report.live import LiveReport
from arena.tournament.ranking import crosstable, ranking
from arena.tournament.store import Store

RECORDS = ROOT / "tests" / "data" / "records-v1.jsonl"
REFRESH = 'http-equiv="refresh"'


def real_records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in RECORDS.read_text().splitlines() if line.strip()]


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    """Poll until ``condition`` holds (a generous deadline: the machine is shared; nothing is measured)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.05)


def summary(out: Path) -> dict[str, Any]:
    text = (out / "data" / "summary.js").read_text()
    found: dict[str, Any] = json.loads(text[len("arenaSummary(") : -3])
    return found


def shown_games(out: Path) -> int:
    """How many games the index page (written last by an update) shows; 0 before the first."""
    try:
        found = re.search(r'<body [^>]*data-games="(\d+)"', (out / "index.html").read_text())
    except FileNotFoundError:
        return 0
    assert found is not None
    return int(found[1])


def data_files(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted((out / "data").rglob("*.js"))}


def ranking_shown(index: Path) -> list[tuple[str, str]]:
    """(bot, Elo) of the ranking rows of an index page, as the data attributes hold them."""
    return re.findall(r'<tr data-bot="([^"]+)" data-elo="([^"]+)"', index.read_text())


def test_a_live_report_follows_the_store_and_its_last_write_stops_reloading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(build, "PAGE_SIZE", 8)  # partial pages and chunks are rewritten as games arrive
    monkeypatch.setattr(build, "CHUNK_SIZE", 7)
    db, out = tmp_path / "live.db", tmp_path / "report"
    records = real_records()
    with Store.open(db) as store:
        live = LiveReport(db, out, title="live", every=0.05)
        with live:
            for batch in range(3):
                for copy in range(5):
                    for i, record in enumerate(records):
                        store.add_game(f"m{i}/{batch}-{copy}/0", f"m{i}/{batch}-{copy}", record)  # type: ignore[arg-type]
                stored = store.game_count()
                wait_for(lambda n=stored: shown_games(out) == n, f"the report to show {stored} games")  # type: ignore[misc]
                assert REFRESH in (out / "index.html").read_text()
                assert REFRESH in (out / "games.html").read_text()
                assert REFRESH not in (out / "viewer.html").read_text()
            # the index page is written last by an update, which is counted once it returns: wait for the count
            wait_for(lambda: live.updates >= 3, "three updates counted")
        stored_records = [(key, record) for _, key, record in store.records()]
    assert live.error is None
    assert REFRESH not in (out / "index.html").read_text()
    assert shown_games(out) == summary(out)["games"] == len(stored_records) == 90
    # the games list and the chunks hold every game once, in the store's order, each record as stored
    pages = sorted((out / "data" / "games").glob("page-*.js"), key=lambda p: int(p.stem.split("-")[1]))
    rows = [row for p in pages for row in json.loads(p.read_text()[len("arenaGames(") : -3])]
    assert [row[0] for row in rows] == list(range(90))
    chunks = sorted((out / "data" / "records").glob("chunk-*.js"), key=lambda p: int(p.stem.split("-")[1]))
    entries = [e for c in chunks for e in json.loads(c.read_text()[len("arenaRecords(") : -3])]
    assert [(e["key"], e["record"]) for e in entries] == stored_records
    assert ranking_shown(out / "index.html") == [(r.bot, str(r.elo)) for r in ranking(stored_records)]
    assert f'"cells": {json.dumps(json.loads(crosstable(stored_records, "json")))}' in (out / "index.html").read_text()
    # what the updates wrote is what one build of the whole store writes
    whole = build_report(db, tmp_path / "whole")
    assert whole.games == 90
    assert data_files(tmp_path / "whole") == data_files(out)


TOURNAMENT = dict(name="live-test", games_per_match=4, time="5+0.1", seed=7, jobs=1)


# ``arena`` with its live reports updated every 0.2 s instead of every 3 (``LiveReport``'s default): a run waited
# for until its report appears plays ~3 s of games less (~1.5 s of processor time).
ARENA_UPDATING_OFTEN = """
from arena.report.live import LiveReport
LiveReport.__init__.__kwdefaults__["every"] = 0.2
from arena.cli import main
main(prog_name="arena")
"""


def run_command(config: Path, out: Path, *, often: bool = False) -> list[str]:
    arena = [sys.executable, "-c", ARENA_UPDATING_OFTEN] if often else [sys.executable, "-m", "arena"]
    return [*arena, "tournament", "run", str(config), "--quiet", "--report", str(out)]


@pytest.mark.slow
def test_a_finished_run_leaves_the_report_arena_report_writes(tmp_path: Path) -> None:
    config = write_config(tmp_path / "live-test.toml", games_per_pairing=2, **TOURNAMENT)
    out = tmp_path / "report"
    # in-process (``arena_here``), the same command and output: the run's process is the SIGTERM test's matter, not
    # this one's (a process of its own paid ~0.5 processor seconds more for the CLI's imports)
    result = arena_here(*run_command(config, out)[3:])
    assert result.returncode == 0, result.stderr
    assert f"report: {(out / 'index.html').resolve()}" in result.stderr
    assert REFRESH not in (out / "index.html").read_text()
    again = build_report(config, tmp_path / "again")
    assert again.games == shown_games(out) == 4
    assert data_files(tmp_path / "again") == data_files(out)
    assert ranking_shown(out / "index.html") == ranking_shown(again.index)


@pytest.mark.slow
def test_a_run_stopped_by_sigterm_writes_its_report_last(tmp_path: Path) -> None:
    config = write_config(tmp_path / "live-test.toml", games_per_pairing=400, **TOURNAMENT)
    out = tmp_path / "report"
    process = subprocess.Popen(
        run_command(config, out, often=True), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT
    )
    try:
        # the live report appears (reloading pages) while the run goes on
        wait_for(lambda: (out / "index.html").exists() and shown_games(out) > 0, "the live report", timeout=120)
        assert REFRESH in (out / "index.html").read_text()
        os.kill(process.pid, signal.SIGTERM)
        _, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, stderr
    assert "Interrupted" in stderr
    with Store.open(config.with_suffix(".db"), create=False) as store:
        stored = [(key, record) for _, key, record in store.records()]
    assert 0 < len(stored) < 800
    # the last write came after the last game was stored, and no longer reloads
    assert shown_games(out) == len(stored)
    assert REFRESH not in (out / "index.html").read_text()
    assert ranking_shown(out / "index.html") == [(r.bot, str(r.elo)) for r in ranking(stored)]


def test_a_live_report_stops_at_a_game_it_cannot_read_and_says_which(tmp_path: Path) -> None:
    db, out = tmp_path / "live.db", tmp_path / "report"
    good = real_records()[0]
    with Store.open(db) as store, LiveReport(db, out, title="live", every=0.05) as live:
        store.add_game("g/1/0", "g/1", good)  # type: ignore[arg-type]
        wait_for(lambda: shown_games(out) == 1, "the first game")
        store.add_game("g/2/0", "g/2", {**good, "hands": [{"dealer": 0}]})  # type: ignore[typeddict-item]
        wait_for(lambda: live.error is not None, "the live report to stop")
    assert live.error is not None and "game 2 (g/2/0) is not a game record" in live.error
    assert shown_games(out) == 1  # what it wrote before stays


def test_a_growing_jsonl_file_is_read_line_by_line_and_a_half_written_line_waits(tmp_path: Path) -> None:
    from arena.report.build import ReportBuilder

    lines = [line for line in RECORDS.read_text().splitlines() if line.strip()]
    path, out = tmp_path / "games.jsonl", tmp_path / "report"
    path.write_text(lines[0] + "\n" + lines[1][:100])  # the writer is half-way through the second record
    builder = ReportBuilder(path, out)
    assert builder.update(refresh=2, live=True) == 1
    with path.open("a") as handle:
        handle.write(lines[1][100:] + "\n" + lines[2] + "\n")
    assert builder.update(refresh=2, live=True) == 2
    assert builder.update(refresh=2, live=True) == 0
    assert shown_games(out) == 3 and REFRESH in (out / "index.html").read_text()
    builder.update()
    assert REFRESH not in (out / "index.html").read_text()
    chunk = json.loads((out / "data" / "records" / "chunk-0.js").read_text()[len("arenaRecords(") : -3])
    assert [e["record"] for e in chunk] == [json.loads(line) for line in lines[:3]]
