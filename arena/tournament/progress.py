"""A progress display for long runs: bar, count, ETA and the leader of the ranking table so far, on stderr."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from arena.tournament.run import Progress


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return (
        f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
        if seconds >= 3600
        else f"{seconds // 60}:{seconds % 60:02d}"
    )


class ProgressPrinter:
    """Redraws one line on a terminal; elsewhere prints a line every tenth of the run."""

    def __init__(self, stream: TextIO | None = None, width: int = 30) -> None:
        self.stream = stream or sys.stderr
        self.width = width
        self.tty = self.stream.isatty()
        self.played = 0
        self.start_done: int | None = None
        self.last_tenth = -1
        self.drawn = False

    def update(self, progress: Progress) -> None:
        """Show the state after one more stored game."""
        if self.start_done is None:
            self.start_done = progress.done - 1
        self.played = progress.done - self.start_done
        fraction = progress.done / progress.total if progress.total else 1.0
        eta = progress.eta(self.played)
        leader = ""  # the ranking table's top row: the same fit, so the final line and the table agree
        if progress.leader:
            leader = f"  leader {progress.leader} ({progress.leader_elo:+.0f} Elo)"
        elif progress.groups > 1:
            leader = f"  no leader yet: {progress.groups} groups of bots have not met"
        text = (
            f"{progress.done}/{progress.total} games  {100 * fraction:5.1f}%"
            f"  elapsed {_clock(time.monotonic() - progress.started)}"
            f"  ETA {'-' if eta is None else _clock(eta)}{leader}"
        )
        if self.tty:
            filled = int(self.width * fraction)
            self.stream.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {text}\033[K")
            self.drawn = True
        elif int(fraction * 10) != self.last_tenth:
            self.last_tenth = int(fraction * 10)
            self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        """End the progress line."""
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
