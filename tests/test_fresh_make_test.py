"""tools/fresh_make_test.py, the timing of ``make test`` on fresh clones: what can be checked without running it
(a run is the whole suite, minutes): its reading of /proc/stat and its refusals."""

from __future__ import annotations

import os
import subprocess
import sys
import time

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


def test_the_hosts_speed_is_a_rate_of_rounds_in_processor_time() -> None:
    """A positive, finite rate (a loop that never ran would give none), measured over at least the processor time
    asked for."""
    start = time.process_time()
    speed = host_speed(0.05)
    assert time.process_time() - start >= 0.05
    assert 0 < speed < float("inf")


def test_an_unknown_commit_and_no_rounds_are_refused_before_any_clone() -> None:
    unknown = subprocess.run([*TOOL, "no-such-commit-here"], capture_output=True, text=True, timeout=60)
    assert unknown.returncode == 2 and "no commit 'no-such-commit-here'" in unknown.stderr
    rounds = subprocess.run([*TOOL, "--rounds", "0", "HEAD"], capture_output=True, text=True, timeout=60)
    assert rounds.returncode == 2 and "--rounds must be at least 1" in rounds.stderr
