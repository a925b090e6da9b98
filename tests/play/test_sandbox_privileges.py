"""A bot gives up every privilege of the referee: its uid, its gid, its supplementary groups, its capabilities.

Checked on the bot's own process (tests/bots/probe.py reports its ids, groups and /proc/self/status), under a
referee process that has supplementary groups of its own (root's group among them), as a referee may: a bot that
kept them would be in root's group. Real referee process (``python -m arena.play.referee``, as the tournament executor
starts it), real bot processes, one of them restarted in the middle of a game.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from probing import match, probe

REFEREE_GROUPS = [0, 4242, 4343]  # root's group and two more

needs_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="bots run under the referee's own uid and groups unless the arena runs as root"
)


# A hang fails the test instead of stalling the suite (pytest-timeout).
pytestmark = pytest.mark.timeout(60)


def groups_of(pid: int) -> list[int]:
    """The supplementary groups of a running process."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Groups:"):
            return [int(g) for g in line.split()[1:]]
    raise AssertionError("no Groups line")


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """A substitute-policy match in a referee process with supplementary groups; what each bot process reported."""
    if os.geteuid() != 0:
        pytest.skip("bots run under the referee's own uid and groups unless the arena runs as root")
    tmp = tmp_path_factory.mktemp("groups")
    folder = tmp / "reports"
    folder.mkdir()
    bots = [
        probe("steady", "--report", folder),
        probe("restarted", "--report", folder, "--crash-at", "0:3", "--once", tmp / "crashed"),
    ]
    spec = match(tmp, bots, [(0, [0, 1]), (1, [1, 0])], variant="two-hand", policy="substitute")
    referee = subprocess.Popen(
        [sys.executable, "-m", "arena.play.referee"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        extra_groups=REFEREE_GROUPS,
    )
    assert sorted(groups_of(referee.pid)) == REFEREE_GROUPS  # the referee itself has them
    out, err = referee.communicate(json.dumps(spec.to_json()).encode(), timeout=50)
    assert referee.returncode == 0, err.decode(errors="replace")
    records = [json.loads(line)["record"] for line in out.splitlines()]
    assert len(records) == 2
    assert [(v["seat"], v["kind"]) for v in records[0]["violations"]] == [(1, "crash")]
    found = [json.loads(p.read_text()) for p in sorted(folder.iterdir())]
    assert len(found) >= 3, "two bots, one of them restarted: at least three processes"
    return found


@needs_root
def test_a_bot_keeps_none_of_the_referees_supplementary_groups(reports: list[dict[str, Any]]) -> None:
    for seen in reports:
        assert seen["groups"] == [], seen
        assert seen["status"]["Groups"] == [], seen


@needs_root
def test_a_bot_runs_under_a_uid_and_gid_of_its_own_real_effective_and_saved(reports: list[dict[str, Any]]) -> None:
    for seen in reports:
        (uid,) = set(seen["resuid"]) | {int(u) for u in seen["status"]["Uid"]}  # real, effective, saved, filesystem
        (gid,) = set(seen["resgid"]) | {int(g) for g in seen["status"]["Gid"]}
        assert uid != 0 and gid not in REFEREE_GROUPS


@needs_root
def test_a_bot_has_no_capabilities_and_cannot_gain_privileges(reports: list[dict[str, Any]]) -> None:
    for seen in reports:
        status = seen["status"]
        for name in ("CapInh", "CapPrm", "CapEff", "CapAmb"):
            if name in status:
                assert int(status[name][0], 16) == 0, (name, status)
        assert status["NoNewPrivs"] == ["1"]
