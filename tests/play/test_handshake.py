"""The handshake speaks protocol 1 only: a hello in any other version, older or newer, is refused (protocol.md §3).

Real referee, real bots (tests/bots/probe.py says the version it is told to in its first process only).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from probing import match, probe, read_dump

from arena.play.referee import run_match

# A hang fails the test instead of stalling the suite (pytest-timeout).
pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize("version", [0, 2])
def test_a_hello_in_another_protocol_version_is_refused_and_its_game_lost(tmp_path: Path, version: int) -> None:
    dump = tmp_path / "dump.jsonl"
    bots = [
        probe("fine"),
        probe("other", "--protocol", version, "--once", tmp_path / "once", "--dump", dump),
    ]
    spec = match(tmp_path, bots, [(0, [0, 1]), (0, [1, 0])], variant="two-hand")
    first, second = run_match(spec)
    assert first["forfeit"]["seat"] == 1 and first["forfeit"]["kind"] == "handshake"
    assert [(v["seat"], v["kind"]) for v in first["violations"]] == [(1, "handshake")]
    assert f"protocol {version}" in first["violations"][0]["detail"]
    assert second["violations"] == [] and "forfeit" not in second  # its replacement says protocol 1
    frames = read_dump(dump)
    welcomed = {f["proc"] for f in frames if f["msg"]["type"] == "welcome"}
    assert len(welcomed) == 1, "only the replacement is welcomed"
    refused = [f["msg"] for f in frames if f["proc"] not in welcomed]  # (it may be killed before it reads)
    assert all(m["type"] == "violation" and m["kind"] == "handshake" for m in refused), refused
