"""Where matches run. The scheduler hands a match spec to an executor and gets finished games back.

``LocalExecutor`` runs each match in its own referee process on this machine (``python -m arena.referee``), the
spec as JSON on its stdin and one JSON line per finished game on its stdout. Another executor (a cluster engine)
only has to implement ``run``.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from arena.botproc import die_with_parent
from arena.matchspec import MatchSpec

OnGame = Callable[[dict[str, Any]], None]


class Executor(Protocol):
    """Runs one match to its end, passing each finished game's record to ``on_game`` as soon as it ends."""

    def run(self, spec: MatchSpec, on_game: OnGame) -> str | None:
        """Run the match; None when it completed, else a description of what went wrong."""

    def cancel(self) -> None:
        """Stop every running match at once (games already passed to on_game stay done)."""


class LocalExecutor:
    """One referee subprocess per match, in its own process group, killed with its parent."""

    def __init__(self) -> None:
        self._running: set[subprocess.Popen[bytes]] = set()
        self._lock = threading.Lock()
        self._cancelled = False

    def run(self, spec: MatchSpec, on_game: OnGame) -> str | None:
        """Run the match in a referee process and stream its games back."""
        log_dir = Path(spec.log_dir)
        log_dir.mkdir(parents=True, exist_ok=True)
        with open(log_dir / f"{spec.match_id}-referee.log", "ab") as log:
            with self._lock:
                if self._cancelled:
                    return "cancelled"
                process = subprocess.Popen(
                    [sys.executable, "-m", "arena.referee"],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=log,
                    start_new_session=True,
                    preexec_fn=die_with_parent,
                )
                self._running.add(process)
            try:
                assert process.stdin is not None and process.stdout is not None
                process.stdin.write(spec.model_dump_json().encode())
                process.stdin.close()
                for line in process.stdout:
                    message = json.loads(line)
                    if message.get("type") == "game":
                        on_game(message["record"])
                code = process.wait()
            finally:
                with self._lock:
                    self._running.discard(process)
        if code != 0:
            return f"referee exited with code {code} (see {log.name})"
        return None

    def cancel(self) -> None:
        """Kill every running referee (and so, with them, their bots)."""
        with self._lock:
            self._cancelled = True
            for process in self._running:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, signal.SIGKILL)
