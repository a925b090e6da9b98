"""tools/fresh_make_test.py, the timing of ``make test`` on fresh clones: what can be checked without running it
(a run is the whole suite, minutes): its reading of /proc/stat and its refusals."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from helpers import ROOT

from tools.fresh_make_test import cpu_seconds, host_speed

TOOL = [sys.executable, str(ROOT / "tools" / "fresh_make_test.py")]


def test_the_machines_processor_time_counts_every_core_kept_busy() -> None:
    """One process a core, each spinning for 0.4 s of processor time: that much busy time at least, and less idle
    time than busy (an idle count read from the wrong column would not be)."""
    cores = os.cpu_count() or 1
    spin = "import time\nend = time.process_time() + 0.4\nwhile time.process_time() < end: pass"
    busy, idle = cpu_seconds()
    start = time.monotonic()
    spinners = [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(cores)]
    assert all(spinner.wait(timeout=60) == 0 for spinner in spinners)
    elapsed = time.monotonic() - start
    busy_after, idle_after = cpu_seconds()
    assert busy_after - busy >= 0.35 * cores  # ours, and whatever else ran meanwhile
    assert 0 <= idle_after - idle < busy_after - busy
    assert (busy_after - busy) + (idle_after - idle) <= cores * elapsed + 0.05  # no more time than there was


def test_the_hosts_speed_is_the_four_hand_engines_rate_from_the_checkouts_bench(tmp_path: Path) -> None:
    """The four-hand rate of ``arena bench engine --json`` (a stand-in arena prints it here: the real bench takes
    seconds); no speed where there is no arena or it printed no such figure."""
    arena = tmp_path / "arena"
    arena.write_text(
        "#!/bin/sh\n"
        'test "$*" = "bench engine --seconds 0.2 --json" || exit 2\n'
        'echo \'{"hands_per_second": {"two-hand": 1.0, "four-hand": 8765.5}, "pyspiel_four_hand": 2.0}\'\n'
    )
    arena.chmod(0o755)
    assert host_speed(arena) == 8765.5
    arena.write_text("#!/bin/sh\necho 'Error: no such command'\n")
    assert host_speed(arena) is None
    assert host_speed(tmp_path / "missing") is None


def test_an_unknown_commit_and_no_rounds_are_refused_before_any_clone() -> None:
    unknown = subprocess.run([*TOOL, "no-such-commit-here"], capture_output=True, text=True, timeout=60)
    assert unknown.returncode == 2 and "no commit 'no-such-commit-here'" in unknown.stderr
    rounds = subprocess.run([*TOOL, "--rounds", "0", "HEAD"], capture_output=True, text=True, timeout=60)
    assert rounds.returncode == 2 and "--rounds must be at least 1" in rounds.stderr
