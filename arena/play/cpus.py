"""Which processor cores a match runs on.

A match is one conversation in turn: the referee asks, one bot thinks, the referee checks, and so on; never do two of
its processes compute at once. Keeping the referee and its bots on one core saves what each turn costs when they sit
on different ones: a wake-up of another core and the message's trip between the cores' caches (docs/performance.md,
"Figures moved out of the code"). A tournament therefore gives each of its parallel matches a core of its own, the
idlest first; ``pin = false`` in a config (or ``--no-pin``) leaves placement to the operating system, for bots that
use several threads. A bot's process moves itself onto its match's cores before it runs the bot
(arena.play.sandbox, ``Confinement``): a runtime counts its processors once, as it starts.

Pinning is about speed and steady timing, not containment: a bot may move itself to other cores.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from arena.play.linux import PPID, processes


def available() -> list[int]:
    """The cores this process may run on (empty where the system cannot pin processes)."""
    if not hasattr(os, "sched_getaffinity"):
        return []
    return sorted(os.sched_getaffinity(0))


def _busy_ticks() -> dict[int, tuple[int, int]]:
    """Per core: (busy ticks, all ticks) since boot, from /proc/stat (empty where it cannot be read)."""
    ticks: dict[int, tuple[int, int]] = {}
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/stat").read_text().splitlines():
            name, *fields = line.split()
            if name.startswith("cpu") and name != "cpu":
                values = [int(f) for f in fields]
                idle = values[3] + (values[4] if len(values) > 4 else 0)  # idle and iowait
                ticks[int(name[3:])] = (sum(values) - idle, sum(values))
    return ticks


def idlest(count: int, *, sample: float = 0.05) -> list[int]:
    """``count`` cores for parallel matches, the least busy over the next ``sample`` seconds first; with fewer
    cores than ``count``, cores repeat in that order. Empty where the system cannot pin processes."""
    cores = available()
    if not cores or count < 1:
        return []
    before = _busy_ticks()
    time.sleep(sample)
    after = _busy_ticks()

    def busy(core: int) -> float:
        if core not in before or core not in after:
            return 0.0
        done = after[core][1] - before[core][1]
        return (after[core][0] - before[core][0]) / done if done > 0 else 0.0

    ranked = sorted(cores, key=lambda c: (round(busy(c), 1), c))  # ties (to 10 %) in core order: steady choices
    return [ranked[i % len(ranked)] for i in range(count)]


def pin_match(cores: list[int] | None, pids: list[int]) -> set[int] | None:
    """Move every thread of this process and of ``pids`` (and their descendants) onto ``cores``.

    Called once the bots have said hello (they are on ``cores`` from their start, their confinement's doing): the
    referee's thread, and whatever a bot started elsewhere; processes started later by this thread inherit it. Best
    effort: a process that is gone or not ours to move stays as it is. Returns the calling thread's affinity before
    (None when nothing was done), for ``unpin``.
    """
    if not cores or not hasattr(os, "sched_setaffinity"):
        return None
    before = os.sched_getaffinity(0)
    children: dict[int, list[int]] = {}
    for pid, fields in processes():
        children.setdefault(int(fields[PPID]), []).append(pid)
    todo = [os.getpid(), *pids]
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, ()))
        threads = [int(t.name) for t in Path(f"/proc/{pid}/task").glob("[0-9]*")] or [pid]
        for tid in threads:
            with contextlib.suppress(OSError):
                os.sched_setaffinity(tid, cores)
    return before


_AT_START = set(available())  # the cores this process was given, before any pinning


def unpin_thread() -> None:
    """Let the calling thread run on every core the process was given (a thread starts with its creator's pinning)."""
    if _AT_START and hasattr(os, "sched_setaffinity"):
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, _AT_START)


def unpin_process(pid: int) -> None:
    """Let process ``pid`` (started by a pinned thread) run on every core this process was given."""
    if _AT_START and hasattr(os, "sched_setaffinity"):
        with contextlib.suppress(OSError):
            os.sched_setaffinity(pid, _AT_START)


def unpin(before: set[int] | None) -> None:
    """Give the calling thread back the affinity ``pin_match`` returned."""
    if before is not None:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, before)
