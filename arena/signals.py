"""SIGTERM and SIGHUP stop the arena the way Ctrl-C does.

A referee, ``arena match`` or a tournament stopped by ``timeout``, ``kill``, a closed terminal or a cluster's job
control gets a ``KeyboardInterrupt`` in its main thread: the code that already handles Ctrl-C then ends every bot
process the match started and keeps every finished game (SIGKILL, which no code sees, is covered by the bots
dying with their referee: arena.play.sandbox).
"""

from __future__ import annotations

import signal
import threading
from types import FrameType

STOPPING = (signal.SIGTERM, signal.SIGHUP)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"stopped by {signal.Signals(signum).name}")


def stop_like_ctrl_c() -> None:
    """From now on SIGTERM and SIGHUP raise KeyboardInterrupt (main thread only; a no-op elsewhere)."""
    if threading.current_thread() is threading.main_thread():
        for signum in STOPPING:
            signal.signal(signum, _interrupt)
