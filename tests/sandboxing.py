"""Helpers for tests whose bots leave traces (pid files, dumps, markers) in a test's directory.

Bots run sandboxed (arena.play.sandbox): under uids of their own when the tests run as root, and seeing only their own
files. A test that wants its bots to write somewhere opens that directory to them with ``open_to_bots``.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from configs import match_spec

from arena.play.linux import PPID, SESSION, STATE, stat_fields
from arena.play.matchspec import BotEntry, GameSpec, Limits, MatchSpec


def open_to_bots(directory: Path, limits: Limits | None = None) -> Limits:
    """Let every bot of a match write in ``directory`` (shared by all of them) and return the match's limits."""
    directory.mkdir(parents=True, exist_ok=True)
    for root, folders, files in os.walk(directory):
        os.chmod(root, 0o1777)
        for name in folders:
            os.chmod(os.path.join(root, name), 0o1777)
        for name in files:
            os.chmod(os.path.join(root, name), 0o666)
    base = limits or Limits()
    return base.replace(writable=(*base.writable, str(directory)))


def started(directory: Path) -> dict[str, int]:
    """The processes that test bots recorded in ``directory`` (files ``TOKEN-PID`` holding the uid), name to uid.

    A bot runs as pid 1 of a pid namespace of its own where the OS allows it, so its pid means nothing on the host:
    its ``ARENA_TOKEN`` (new at every process start, inherited by what it starts) tells its processes apart.
    """
    if not directory.exists():
        return {}
    return {p.name: int(p.read_text() or -1) for p in directory.iterdir() if re.fullmatch(r"[0-9a-f]{32}-\d+", p.name)}


def still_running(names: Iterable[str]) -> list[str]:
    """Those of ``started``'s names whose token a live process on this host still carries (zombies count as gone)."""
    names = list(names)
    tokens = {name.partition("-")[0] for name in names}
    live: set[str] = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        # A process's state is read only where its environment holds one of the tokens (most hold none): a test
        # polls this every few milliseconds, over all of the host's processes.
        try:
            with open(f"/proc/{entry}/environ", "rb") as environ:
                found = {v[12:].decode() for v in environ.read().split(b"\0") if v.startswith(b"ARENA_TOKEN=")} & tokens
            if found:
                with open(f"/proc/{entry}/stat", "rb") as stat:
                    state = stat.read().rsplit(b")", 1)[1].split()[0]
                if state not in (b"Z", b"X"):
                    live |= found
        except (OSError, IndexError):
            continue
    return sorted(name for name in names if name.partition("-")[0] in live)


def match_in(tmp_path: Path, bots: list[BotEntry], games: list[GameSpec], variant: str, **settings: Any) -> MatchSpec:
    """A match of these bots and games, its logs in ``tmp_path/logs``, bots free to write in ``tmp_path/out`` (unless
    ``settings`` give the limits: that folder is made all the same)."""
    settings.setdefault("limits", open_to_bots(tmp_path / "out"))
    return match_spec(bots, games, tmp_path=tmp_path, variant=variant, **settings)


def described(pid: int) -> str:
    """A process as ps would show it: pid, state, parent, session, uid, command line (for a failure's message)."""
    fields = stat_fields(pid)
    with contextlib.suppress(OSError):
        uid = os.stat(f"/proc/{pid}").st_uid
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        if fields is not None:
            state, parent, session = (fields[i].decode() for i in (STATE, PPID, SESSION))
            return f"{pid} {state} ppid {parent} sid {session} uid {uid} {command[:200]}"
    return f"{pid} gone"
