"""Build a static HTML report of a tournament (or of a JSONL file of game records): a folder that opens from disk.

The folder holds ``index.html`` (ranking with interval chart, crosstable heatmap, per-bot statistics), ``games.html``
(every game, paginated, filtered in the browser) and ``viewer.html`` (replays one game), the templates' CSS and
JavaScript, the vendored chart library, and ``data/``: the games list in pages of ``PAGE_SIZE`` rows and the records
in chunks of ``CHUNK_SIZE``, each a ``.js`` file that a page loads with a script tag (a page opened from disk may not
``fetch`` files beside it). Nothing is loaded from the network.

The build streams: each record is read as text, decoded once (orjson) for the tallies (ranking, crosstable,
statistics) and written compactly into its chunk; no record is kept. A ``ReportBuilder`` keeps the tallies between
updates, so a report kept current while a tournament runs reads only the games stored since its last update, and
every file it rewrites is replaced whole (a page reloading meanwhile never reads half of one).
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import time
from collections import Counter
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import TypedDict

import orjson
from jinja2 import Environment, PackageLoader, select_autoescape

from arena.engine.record import GameRecord, read_record
from arena.errors import RecordError
from arena.report.history import RatingHistory
from arena.report.source import RawGame, ReportError, Source, open_source
from arena.report.stats import Stats
from arena.tournament.ranking import Cross, Standings, format_ranking, headers

__all__ = ["CHUNK_SIZE", "PAGE_SIZE", "Built", "ReportBuilder", "ReportError", "build_report", "open_source"]

PAGE_SIZE = 500  # rows of the games list per data file (and per page shown)
CHUNK_SIZE = 50  # game records per data file of the viewer


def _result_code(record: GameRecord) -> str:
    if record.get("forfeit") is not None:
        return "forfeit"
    if "drawn" in record or not record["winners"]:
        return "draw"
    return "decided"


def _column_class(header: str) -> str:
    """The CSS class of a ranking column (the tests find Elo and its interval by it)."""
    if header == "bot":
        return "bot"
    if header == "Elo":
        return "num elo"
    if header.startswith("+/-"):
        return "num pm"
    return "num"


def _js(call: str, *args: object) -> bytes:
    """A data file: one call of a function the page defines, with JSON arguments."""
    return call.encode() + b"(" + b",".join(orjson.dumps(a) for a in args) + b");\n"


def _records_js(entries: list[bytes]) -> bytes:
    """A record chunk: the entries (JSON objects, each holding a record's text as read) in one call."""
    return b"arenaRecords([" + b",".join(entries) + b"]);\n"


def _write(path: Path, data: bytes) -> None:
    """Write a file whole: a browser reloading it never reads half of it."""
    temp = path.with_name(f".{path.name}.{os.getpid()}")
    temp.write_bytes(data)
    os.replace(temp, path)


def _swap(new: Path, target: Path) -> None:
    """Put the folder ``new`` in the place of ``target`` (a page reloading meanwhile misses it for an instant)."""
    old = target.with_name(f".{target.name}-old-{os.getpid()}")
    if target.exists():
        target.rename(old)
    new.rename(target)
    if old.exists():
        shutil.rmtree(old)


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("arena.report", "templates"),
        autoescape=select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["signed"] = lambda x: f"{x:+.0f}"
    return env


def _copy_static(out: Path) -> None:
    static = resources.files("arena.report") / "static"
    with resources.as_file(static) as folder:
        shutil.copytree(folder, out / "static", dirs_exist_ok=True)


@dataclass
class Built:
    """What ``build_report`` made: the index page, how many games, the folder's size, how long it took."""

    index: Path
    games: int
    bytes: int
    seconds: float


class Summary(TypedDict):
    """The report's summary, as the pages' data holds it: the title, how many games and their pages and chunks, the
    bots, the kinds of violation and the variants played."""

    title: str
    games: int
    pages: int
    pageSize: int
    chunkSize: int
    bots: list[str]
    kinds: list[str]
    variants: dict[str, int]


class ReportBuilder:
    """A report folder and the tallies behind it, brought up to date with its source by ``update``."""

    def __init__(self, source: str | Path | Source, out: str | Path) -> None:
        self.source = source if isinstance(source, Source) else open_source(source)
        self.out = Path(out)
        self.count = 0
        self.standings = Standings()
        self.cross = Cross()
        self.stats = Stats()
        self.history = RatingHistory()
        self.variants: Counter[str] = Counter()
        self.kinds: set[str] = set()
        self._page: list[list[object]] = []  # rows of the games list's last page (written whole at each update)
        self._chunk: list[bytes] = []  # entries of the last record chunk
        self._placed = False  # whether out/data is ours (after the first update that found games)
        self._rendered: tuple[int, int | None] | None = None
        self._env = _environment()

    @property
    def index(self) -> Path:
        """The report's index page."""
        return self.out / "index.html"

    def update(self, *, refresh: int | None = None, live: bool = False) -> int:
        """Add the games stored since the last update, rewrite what they change, and return how many there were.

        The first update writes a fresh ``data`` folder and puts it in place of an old one; later ones rewrite
        the last games page and record chunk and add new ones. With ``refresh`` (seconds) the index and games pages
        reload themselves that often. ``live`` (a run still going on) waits for a JSONL file's half-written last
        line, and for a first game instead of calling a source without games an error.
        """
        data = self.out / "data" if self._placed else self.out / f".data-new-{os.getpid()}"
        if not self._placed:
            if data.exists():
                shutil.rmtree(data)
            data.mkdir(mode=0o700, parents=True)  # every card dealt: its owner's alone, as the results are
            os.chmod(data, 0o700)  # whatever the umask
            for sub in ("games", "records"):
                (data / sub).mkdir()
        new = 0
        try:
            for raw in self.source.read(complete_only=live):
                self._add(raw, data)
                new += 1
        except ReportError:
            if not self._placed:
                shutil.rmtree(data, ignore_errors=True)
            raise
        if not self.count:
            shutil.rmtree(data)
            if live:
                return 0
            raise ReportError(f"{self.source.path}: no games to report")
        if new or not self._placed:
            if self._page:
                _write(data / "games" / f"page-{(self.count - 1) // PAGE_SIZE}.js", _js("arenaGames", self._page))
            if self._chunk:
                chunk = (self.count - 1) // CHUNK_SIZE
                _write(data / "records" / f"chunk-{chunk}.js", _records_js(self._chunk))
            _write(data / "summary.js", _js("arenaSummary", self._summary()))
        if not self._placed:
            _copy_static(self.out)
            _swap(data, self.out / "data")
            self._placed = True
        if self._rendered != (self.count, refresh):
            self._render(refresh)
            self._rendered = (self.count, refresh)
        return new

    def _add(self, raw: RawGame, data: Path) -> None:
        """Tally one game and add it to the games list and the record chunks (written as they fill)."""
        n = self.count
        key = raw.key or f"line-{raw.shown_id}"
        try:
            record = read_record(raw.text)
            if raw.key is None and record.get("match_id") is not None:
                key = f"{record['match_id']}/{record.get('game_index')}"
            violations = record.get("violations") or []
            kinds = sorted({v["kind"] for v in violations})
            forfeit = record.get("forfeit")
            row = [
                n,
                raw.shown_id,
                key,
                record["variant"],
                record["players"],
                record["final_scores"],
                record["winners"],
                _result_code(record),
                len(record["hands"]),
                kinds,
                None if forfeit is None else [forfeit["seat"], forfeit.get("kind", "")],
            ]
            self.standings.add(key, record)
            self.cross.add(key, record)
            self.stats.add(record)
        except RecordError as exc:
            raise ReportError(f"{self.source.path}: game {raw.shown_id} ({key}) is {exc}") from None
        except (KeyError, TypeError, IndexError, AttributeError, ValueError) as exc:  # what the types cannot say
            raise ReportError(
                f"{self.source.path}: game {raw.shown_id} ({key}) is not a game record ({type(exc).__name__}: {exc})"
            ) from None
        self.variants[record["variant"]] += 1
        self.kinds.update(kinds)
        self.count += 1
        self.history.after(self.count, self.standings)
        self._page.append(row)
        entry = orjson.dumps({"n": n, "id": raw.shown_id, "key": key, "record": record})  # compact: 14 % smaller
        self._chunk.append(entry)
        if len(self._page) == PAGE_SIZE:
            _write(data / "games" / f"page-{n // PAGE_SIZE}.js", _js("arenaGames", self._page))
            self._page = []
        if len(self._chunk) == CHUNK_SIZE:
            _write(data / "records" / f"chunk-{n // CHUNK_SIZE}.js", _records_js(self._chunk))
            self._chunk = []

    def _summary(self) -> Summary:
        return {
            "title": self.source.title,
            "games": self.count,
            "pages": (self.count + PAGE_SIZE - 1) // PAGE_SIZE,
            "pageSize": PAGE_SIZE,
            "chunkSize": CHUNK_SIZE,
            "bots": sorted(self.stats.bots),
            "kinds": sorted(self.kinds),
            "variants": dict(self.variants),
        }

    def _render(self, refresh: int | None) -> None:
        src = self.source
        rows = self.standings.rows(intervals=src.intervals, confidence=src.confidence)
        cross = self.cross.cells()
        order = [r.bot for r in rows] + sorted(set(cross) - {r.bot for r in rows})
        bots = self.stats.ordered(order)
        summary = self._summary()
        index_data = {
            "ranking": [asdict(r) for r in rows],
            "crosstable": {"bots": order, "cells": cross},
            "stats": [b.to_json() for b in bots],
            "history": self.history.to_json(self.count, {r.bot: r.elo for r in rows}),
        }
        # the ranking table's cells exactly as `arena ranking` prints them (its CSV), whatever its columns
        table = list(csv.reader(io.StringIO(format_ranking(rows, "csv")))) if rows else []
        context: dict[str, object] = {
            "title": src.title,
            "source": str(src.path),
            "summary": summary,
            "rows": rows,
            "headers": table[0] if table else headers(rows),
            "classes": [_column_class(h) for h in (table[0] if table else [])],
            "cells": list(zip(rows, table[1:], strict=True)),
            "points": {r.bot: r.points_per_hand for r in rows},
            "interval_label": f"{100 * src.confidence:g} %",
            "cross": cross,
            "order": order,
            "bots": [b.to_json() for b in bots],
            "kinds": sorted(self.kinds),
            "index_data": index_data,
            "built": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
            "refresh": refresh,
        }
        for name in ("viewer.html", "games.html", "index.html"):  # the index last: it says the update is whole
            _write(self.out / name, self._env.get_template(name).render(page=name, **context).encode())


def folder_size(folder: Path) -> int:
    """Bytes of the files under ``folder``."""
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def build_report(source: str | Path | Source, out: str | Path, *, refresh: int | None = None) -> Built:
    """Write the report of ``source`` into the folder ``out`` (its data files replaced) and say what it made.

    With ``refresh`` (seconds), the index and games pages reload themselves that often.
    """
    started = time.perf_counter()
    builder = ReportBuilder(source, out)
    try:
        builder.update(refresh=refresh)
    finally:
        builder.source.close()
    return Built(builder.index, builder.count, folder_size(builder.out), time.perf_counter() - started)
