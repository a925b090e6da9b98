"""Where matches run. The scheduler hands a match spec to an executor and gets finished games back.

``LocalExecutor`` runs each match in its own referee process on this machine (``python -m arena.play.referee``), the
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
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from arena.engine.record import GameRecord
from arena.play.clock import TimeControl
from arena.play.linux import die_with_parent
from arena.play.matchspec import MatchSpec

OnGame = Callable[[GameRecord], None]


class Executor(Protocol):
    """Runs one match to its end, passing each finished game's record to ``on_game`` as soon as it ends."""

    def run(self, spec: MatchSpec, on_game: OnGame) -> str | None:
        """Run the match; None when it completed, else a description of what went wrong."""

    def cancel(self) -> None:
        """Stop every running match at once (games already passed to on_game stay done)."""


def stall_limit(spec: MatchSpec) -> float:
    """How long a match may go without finishing a game before its watchdog ends it, in seconds.

    Generous: the handshake, then every seat using its whole bank, a hundred increments and one decision at the
    hard cap; never under five minutes. A referee that holds (it bounds every wait) never comes near it.
    """
    control = TimeControl.parse(spec.time, max_decision=spec.max_decision)
    seats = max((len(game.seating) for game in spec.games), default=1)
    per_seat = control.bank + 100 * control.increment + control.max_decision
    return max(300.0, spec.handshake_timeout + seats * per_seat + 60.0)


class LocalExecutor:
    """One referee subprocess per match, in its own process group, killed with its parent.

    A watchdog ends a match that finishes no game for ``stall_timeout`` seconds (default ``stall_limit``): its
    referee and bots are killed, the games it finished are kept, and ``run`` says what happened.
    """

    def __init__(self, *, stall_timeout: float | None = None) -> None:
        self._running: set[subprocess.Popen[bytes]] = set()
        self._lock = threading.Lock()
        self._cancelled = False
        self.stall_timeout = stall_timeout

    def run(self, spec: MatchSpec, on_game: OnGame) -> str | None:
        """Run the match in a referee process and stream its games back."""
        log_dir = Path(spec.log_dir)
        log_dir.mkdir(parents=True, exist_ok=True)
        with open(log_dir / f"{spec.match_id}-referee.log", "ab") as log:
            with self._lock:
                if self._cancelled:
                    return "cancelled"
                process = subprocess.Popen(
                    [sys.executable, "-m", "arena.play.referee"],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=log,
                    start_new_session=True,
                    preexec_fn=die_with_parent,
                )
                self._running.add(process)
            limit = self.stall_timeout or stall_limit(spec)
            watchdog = _Watchdog(process, limit)
            games = 0
            try:
                assert process.stdin is not None and process.stdout is not None
                process.stdin.write(spec.model_dump_json().encode())
                process.stdin.close()
                for line in process.stdout:
                    message = json.loads(line)
                    if message.get("type") == "game":
                        watchdog.progress()
                        on_game(message["record"])
                        games += 1
                code = process.wait()
            finally:
                watchdog.stop()
                with self._lock:
                    self._running.discard(process)
        if watchdog.fired:
            return (
                f"no game finished for {limit:.0f} s: the match was stopped, its referee and bots killed "
                f"({games} of its {len(spec.games)} games finished and are kept; see {log.name})"
            )
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


class _Watchdog:
    """Kills a referee's process group when no game has finished for ``limit`` seconds."""

    def __init__(self, process: subprocess.Popen[bytes], limit: float) -> None:
        self.process, self.limit = process, limit
        self.fired = False
        self._last = time.monotonic()
        self._done = threading.Event()
        threading.Thread(target=self._watch, daemon=True).start()

    def progress(self) -> None:
        """A game finished: the clock starts again."""
        self._last = time.monotonic()

    def stop(self) -> None:
        """The match is over."""
        self._done.set()

    def _watch(self) -> None:
        while not self._done.wait(min(1.0, self.limit / 4)):
            if time.monotonic() - self._last > self.limit:
                self.fired = True
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.process.pid, signal.SIGKILL)  # the bots die with their referee (arena.play.sandbox)
                return
