#!/usr/bin/env python3
"""Time ``make test`` as CI runs it: on a fresh clone of each commit given, in turns, on this machine.

Each run clones this checkout at the commit into a new folder, then runs ``make test`` there with
PYTHONDONTWRITEBYTECODE set (as on our CI machines): the set-up from nothing (virtualenv, packages, bytecode), the
linters and the whole suite. Commits alternate round by round, so that the host's changes of speed (on a shared
machine, 30 % within an hour) hit each of them alike; compare commits measured in the same run of this tool only.
Beside the time, the processor time the machine spent meanwhile (all processes, from /proc/stat) and the idle
core-seconds: the suite's own work and how much of the machine it left unused. And the host's speed, before and
after the run (``host_speed``): a shared host can slow its processors to less than half for an hour, and the same
commit then takes half as long again.

    python3 tools/fresh_make_test.py HEAD                  # one run of HEAD
    python3 tools/fresh_make_test.py --rounds 2 HEAD~3 HEAD
    python3 tools/fresh_make_test.py --purge HEAD          # as root: uninstall the Debian packages first

``--purge`` uninstalls the Debian packages the set-up installs (chromium, chromium-driver, tmux), before each run,
as a fresh CI machine has none of them: the set-up then installs them again, as it does there. Without it the set-up
finds them and skips that step. Linux only (/proc/stat).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("chromium", "chromium-common", "chromium-driver", "tmux")


def cpu_seconds() -> tuple[float, float]:
    """The machine's busy and idle core-seconds since boot (/proc/stat's first line; iowait counts as idle)."""
    fields = [int(f) for f in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    user, nice, system, idle, iowait, irq, softirq, steal = fields[:8]
    tick = os.sysconf("SC_CLK_TCK")
    return (user + nice + system + irq + softirq + steal) / tick, (idle + iowait) / tick


def host_speed(arena: Path = ROOT / ".venv" / "bin" / "arena") -> float | None:
    """The host's speed now: the four-hand engine's random playouts, hands a second of processor time, from this
    checkout's ``arena bench engine``; None without it. Pure Python that walks the engine's objects, as the suite's
    work does: here it read ~19,700 at full speed and 8,200-9,200 while the host was slowed (a tight loop over a few
    integers did not see the slowing: it reads 9,000-12,000 at either speed)."""
    if not arena.exists():
        return None
    done = subprocess.run(
        [str(arena), "bench", "engine", "--seconds", "0.2", "--json"], capture_output=True, text=True, timeout=300
    )
    try:
        return float(json.loads(done.stdout)["hands_per_second"]["four-hand"])
    except (ValueError, KeyError, TypeError):
        return None


def purge() -> None:
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "check": False}
    subprocess.run(["apt-get", "purge", "-y", "-qq", *PACKAGES], **quiet)  # type: ignore[call-overload]
    subprocess.run(["apt-get", "autoremove", "--purge", "-y", "-qq"], **quiet)  # type: ignore[call-overload]


def one_run(commit: str, keep: bool) -> tuple[int, float, float, float, str, Path]:
    """``make test`` on a fresh clone at ``commit``: exit code, seconds, busy and idle core-seconds, last line."""
    folder = Path(tempfile.mkdtemp(prefix="fresh-make-test-"))
    folder.chmod(0o755)  # as a checkout usually is: the tests of bots under other uids read the checkout
    clone = folder / "repo"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "-q", commit], check=True)
    log = folder / "make-test.log"
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    busy, idle = cpu_seconds()
    start = time.monotonic()
    with open(log, "wb") as out:
        code = subprocess.run(["make", "test"], cwd=clone, stdout=out, stderr=subprocess.STDOUT, env=env).returncode
    seconds = time.monotonic() - start
    busy_after, idle_after = cpu_seconds()
    lines = [line for line in log.read_text(errors="replace").splitlines() if " in " in line and "passed" in line]
    last = lines[-1].strip("= ") if lines else "(no pytest summary: see the log)"
    if not keep and code == 0:
        shutil.rmtree(folder, ignore_errors=True)
    return code, seconds, busy_after - busy, idle_after - idle, last, log


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("commits", nargs="+", help="commits of this checkout (anything git checkout takes)")
    parser.add_argument("--rounds", type=int, default=1, help="runs of each commit, in turns (default 1)")
    parser.add_argument("--purge", action="store_true", help="uninstall the set-up's Debian packages before each run")
    parser.add_argument("--keep", action="store_true", help="keep every clone and its log (a failed run's always)")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if args.purge and os.geteuid() != 0:
        parser.error("--purge uninstalls Debian packages: run it as root")
    resolved = {}
    for commit in args.commits:
        found = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", commit], capture_output=True, text=True)
        if found.returncode != 0:
            parser.error(f"no commit {commit!r} in {ROOT}")
        resolved[commit] = found.stdout.strip()
    times: dict[str, list[float]] = {commit: [] for commit in args.commits}
    failed = False
    for _ in range(args.rounds):
        for commit in args.commits:
            if args.purge:
                purge()
            before = host_speed()
            code, seconds, busy, idle, last, log = one_run(commit, args.keep)
            after = host_speed()
            speed = "host ?" if before is None or after is None else f"host {(before + after) / 2:6.0f}/s"
            failed |= code != 0
            times[commit].append(seconds)
            where = f"  log: {log}" if code != 0 or args.keep else ""
            print(
                f"{time.strftime('%H:%M')} {resolved[commit]:>10}  exit {code}  {seconds:6.1f} s  "
                f"busy {busy:6.1f} core-s  idle {idle:5.1f} core-s  {speed}  {last}{where}",
                flush=True,
            )
    reference = statistics.mean(times[args.commits[0]])
    for commit in args.commits:
        mean = statistics.mean(times[commit])
        print(
            f"{resolved[commit]:>10}  mean {mean:6.1f} s  fastest {min(times[commit]):6.1f} s  "
            f"ratio to {resolved[args.commits[0]]} {mean / reference:.2f}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
