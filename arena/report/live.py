"""A report kept current while a tournament runs: a live leaderboard (``arena tournament run --report DIR``).

A background thread brings the report up to date with the results database every few seconds, reading only the
games stored since it last looked (``ReportBuilder.update``); the open index and games pages reload themselves.
When the run ends, however it ends (finished, Ctrl-C, SIGTERM, an error), the last update is made in the thread
that ends it, without the reloading. The tournament knows nothing of it: the CLI wraps the run in ``LiveReport``.
"""

from __future__ import annotations

import math
import threading
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Self

from arena.errors import ArenaError
from arena.tournament.config import TournamentConfig

if TYPE_CHECKING:
    from arena.report.build import ReportBuilder

EVERY = 3.0
"""Seconds between two updates of a live report."""


class LiveReport:
    """Keep the report of the results database ``db`` in the folder ``out`` current until ``stop`` (or the end of a
    ``with`` block), then write it a last time."""

    def __init__(
        self,
        db: Path,
        out: Path,
        *,
        title: str,
        confidence: float = 0.95,
        intervals: bool = True,
        every: float = EVERY,
    ) -> None:
        # imported here: every run imports this module, and the builder (its templates, Jinja) only with --report
        from arena.report.build import ReportBuilder
        from arena.report.source import Source

        self.builder: ReportBuilder = ReportBuilder(
            Source(db, "db", title, db=db, confidence=confidence, intervals=intervals), Path(out)
        )
        self.every = every
        self.updates = 0  # updates that found new games (the tests wait on it)
        self.error: str | None = None  # why the report stopped being updated, if it did
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="live-report", daemon=True)

    @property
    def index(self) -> Path:
        """The report's index page."""
        return self.builder.index

    def start(self) -> None:
        """Start updating in the background."""
        self._thread.start()

    def _loop(self) -> None:
        refresh = max(1, math.ceil(self.every))
        while not self._stop.wait(self.every):
            try:
                if self.builder.update(refresh=refresh, live=True):
                    self.updates += 1
            except (ArenaError, OSError) as exc:
                self.error = str(exc)
                return

    def stop(self) -> None:
        """Stop the background updates and write the report a last time (pages that no longer reload).

        A report with no game yet is left unwritten.
        """
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        try:
            if self.error is None:
                self.builder.update(live=True)
        finally:
            self.builder.source.close()

    def __enter__(self) -> Self:
        """Start updating."""
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Stop, and write the report as the run left it."""
        self.stop()


def live_report(
    out: str | Path | None, db: Path, config: TournamentConfig
) -> AbstractContextManager[LiveReport | None]:
    """The live report of a tournament run into the folder ``out``; nothing when ``out`` is None."""
    if out is None:
        return nullcontext()
    rating = config.rating
    return LiveReport(db, Path(out), title=config.name, confidence=rating.confidence, intervals=rating.bootstrap != 0)
