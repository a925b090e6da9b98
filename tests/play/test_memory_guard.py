"""The referee's memory guard over a long match: real bot processes, real ZeroMQ, the records streamed to a file.

A match's memory must not grow with its length, and the guard must not read the referee's own memory as a bot's
flood (an honest 2,800-game match used to stop after game 2,185). The margin is scaled down here, so that a referee
keeping what it accumulates per game would cross it within the games played. The floods the guard still stops are
in tests/system/test_adversaries.py.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from configs import match_spec

from arena.cli import main
from arena.play import memory_guard
from arena.play.linux import resident_bytes
from arena.play.referee import Referee
from arena.play.scripted import ScriptedHub

GAMES = 150  # the referee used to keep about 0.24 MiB a game of four-hand with rubbers: 36 MiB over the match


@pytest.mark.timeout(300)
def test_a_long_match_runs_within_a_margin_its_records_would_have_crossed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(memory_guard, "MEMORY_MARGIN", 16 * 1024 * 1024)
    grown: list[int] = []
    resident: list[int] = []
    settle = memory_guard.MemoryGuard.settle

    def watched(guard: memory_guard.MemoryGuard) -> None:
        settle(guard)
        grown.append(guard.grown())
        resident.append(resident_bytes() or 0)

    monkeypatch.setattr(memory_guard.MemoryGuard, "settle", watched)
    path = tmp_path / "games.jsonl"
    bots = ["random"] * 4
    options = ["--option", "rubber=true", "--option", "defend_alone=true"]
    settings = ["--games", str(GAMES), "--seed", "955007", "--time", "30+1", "--log-dir", str(tmp_path / "logs")]
    result = CliRunner().invoke(
        main, ["match", *bots, "--variant", "four-hand", *options, *settings, "--record", str(path)]
    )
    assert result.exit_code == 0, result.output  # before: the referee's memory grew 16 MiB ... no bot held it
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["game_index"] for r in records] == list(range(GAMES))
    assert all(r["violations"] == [] and "forfeit" not in r for r in records)
    table = result.stdout.split("\n\n", 1)[0].splitlines()[-4:]  # the table after the games' lines, summed as they went
    assert sorted(line.split()[1] for line in table) == [str(GAMES)] * 4
    # what the games left grown was taken as the referee's own, before each game
    assert len(grown) == GAMES and max(grown) < memory_guard.MEMORY_MARGIN // memory_guard.OWN_SHARE
    # and the referee's memory does not grow with the games once it has warmed up (before: 29 MiB over these)
    assert resident[-1] - resident[GAMES // 5] < 8 * 1024 * 1024, [r >> 20 for r in resident[:: GAMES // 10]]


def test_between_games_only_growth_no_bot_can_hold_is_taken_as_the_referees_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = [100 << 20]
    monkeypatch.setattr(memory_guard, "resident_bytes", lambda: memory[0])
    spec = match_spec(["one", "two"], [(0, [0, 1])], match_id="scripted", trusted_bots=True, log_dir=str(tmp_path))
    hub = ScriptedHub(bots=2)
    with contextlib.closing(Referee(spec, hub=hub, start=hub.start)) as referee:
        assert referee.start() == []
        guard, own = referee.memory, memory_guard.MEMORY_MARGIN // memory_guard.OWN_SHARE
        memory[0] += own
        guard.settle()
        assert guard.grown() == 0  # the referee's own: the new base
        memory[0] += own
        hub.channels[1].connected = 2  # a second connection of bot 1 may hold it
        guard.settle()
        assert guard.grown() == own
        hub.channels[1].connected = 1
        referee.needs_restart[0] = True  # bot 0's own connection may hold it until it is replaced
        guard.settle()
        assert guard.grown() == own
        referee.needs_restart[0] = False
        memory[0] += 1  # more than the referee's own bookkeeping makes between games
        guard.settle()
        assert guard.grown() == own + 1
        memory[0] -= 1
        guard.settle()
        assert guard.grown() == 0
        for process in referee.processes:  # ended first: the close does not wait for them
            if process is not None:
                process.kill()
