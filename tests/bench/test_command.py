"""``arena bench``'s commands (arena/bench/command.py): what each prints; the measuring itself is tested beside each
benchmark's module."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main


@pytest.mark.slow
def test_bench_protocol_prints_both_rates_and_their_ratio_as_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the smallest run that still has a median to take: three rounds of one two-hand game each (two bots a match)
    small = ["--seconds", "0.1", "--games", "3", "--rounds", "3", "--variant", "two-hand"]
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    result = CliRunner().invoke(main, ["bench", "protocol", *small, "--json"])
    assert result.exit_code == 0, result.output
    assert list(tmp_path.iterdir()) == []  # its sockets' and logs' folders removed (they once piled up in /tmp)
    figures = json.loads(result.output)
    assert figures["variant"] == "two-hand"
    assert figures["arena_decisions_per_second"] > 0 and figures["pyzmq_round_trips_per_second"] > 0
    assert len(figures["round_ratios"]) == 3
    assert round(figures["ratio"], 3) == sorted(figures["round_ratios"])[1]  # the median of the three rounds
    assert figures["request_bytes"] > figures["reply_bytes"] > 0
    assert "load_average" in figures
    stdio = figures["stdio"]  # the same for bots on stdin/stdout, beside pipe ping-pong
    assert stdio["arena_decisions_per_second"] > 0 and stdio["pipe_round_trips_per_second"] > 0
    assert len(stdio["round_ratios"]) == 3
    assert round(stdio["ratio"], 3) == sorted(stdio["round_ratios"])[1]
    assert stdio["request_bytes"] > stdio["reply_bytes"] > 0
