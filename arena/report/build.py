"""Build a static HTML report of a tournament (or of a JSONL file of game records): a folder that opens from disk.

The folder holds ``index.html`` (ranking with interval chart, crosstable heatmap, per-bot statistics), ``games.html``
(every game, paginated, filtered in the browser) and ``viewer.html`` (replays one game), the templates' CSS and
JavaScript, the vendored chart library, and ``data/``: the games list in pages of ``PAGE_SIZE`` rows and the records
in chunks of ``CHUNK_SIZE``, each a ``.js`` file that a page loads with a script tag (a page opened from disk may not
``fetch`` files beside it). Nothing is loaded from the network.
"""

from __future__ import annotations

import csv
import gc
import io
import os
import shutil
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import orjson
from jinja2 import Environment, PackageLoader, select_autoescape

from arena.engine.record import GameRecord
from arena.errors import ArenaError
from arena.tournament.ranking import crosstable, format_ranking, headers, ranking

PAGE_SIZE = 500  # rows of the games list per data file (and per page shown)
CHUNK_SIZE = 50  # game records per data file of the viewer


class ReportError(ArenaError):
    """The report's source cannot be read or holds nothing to report."""


@dataclass
class Source:
    """Where the games come from: a results database (with its config, if given) or a JSONL file of records."""

    path: Path
    kind: str  # "db" or "jsonl"
    title: str
    db: Path | None = None
    confidence: float = 0.95
    bootstrap: int | None = None
    seed: int | None = None

    def records(self) -> Iterator[tuple[str, str, GameRecord]]:
        """Every game as (id shown, game key, record), in the store's order or the file's."""
        if self.kind == "db":
            from arena.tournament.store import Store

            assert self.db is not None
            with Store.open(self.db, create=False) as store:
                for game_id, key, record in store.records():
                    yield str(game_id), key, record
            return
        if self.path.suffix == ".json":  # one record (arena replay --json) or a list of them
            try:
                whole = orjson.loads(self.path.read_bytes())
            except orjson.JSONDecodeError as exc:
                raise ReportError(f"{self.path}: not a JSON game record ({exc})") from None
            for number, one in enumerate(whole if isinstance(whole, list) else [whole], 1):
                yield str(number), f"record-{number}", one
            return
        with self.path.open("rb") as handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    parsed: GameRecord = orjson.loads(line)
                except orjson.JSONDecodeError as exc:
                    raise ReportError(f"{self.path}:{number}: not a JSON game record ({exc})") from None
                match_id, index = parsed.get("match_id"), parsed.get("game_index")
                key = f"{match_id}/{index}" if match_id is not None else f"line-{number}"
                yield str(number), key, parsed


def open_source(path: str | Path) -> Source:
    """A tournament config (``.toml``, its results beside it), a results database, or a JSONL file of records."""
    path = Path(path)
    if not path.exists():
        raise ReportError(f"{path}: no such file")
    if path.suffix == ".toml":
        from arena.tournament.config import load_config
        from arena.tournament.run import default_db

        config = load_config(path)
        db = default_db(path)
        if not db.exists():
            raise ReportError(f"no results database at {db} (run the tournament first)")
        return Source(
            path,
            "db",
            config.name,
            db=db,
            confidence=config.rating.confidence,
            bootstrap=config.rating.bootstrap,
            seed=config.seed,
        )
    if path.suffix in (".jsonl", ".json", ".ndjson"):
        return Source(path, "jsonl", path.stem)
    return Source(path, "db", path.stem, db=path)


@dataclass
class BotStats:
    """What the records tell about one bot beyond the ranking: its decisions, thinking time and violations."""

    bot: str
    games: int = 0
    seats: int = 0
    decisions: int = 0
    thinking: float = 0.0
    violations: dict[str, int] = field(default_factory=dict)

    @property
    def ms_per_decision(self) -> float:
        return 1000 * self.thinking / self.decisions if self.decisions else 0.0


def _slim(record: GameRecord) -> GameRecord:
    """The record without what the ranking and crosstable never read (deals, actions, tricks): small to keep."""
    slim: dict[str, Any] = {k: v for k, v in record.items() if k not in ("hands", "timing", "bots")}
    slim["hands"] = [
        {"dealer": h["dealer"], "result": {k: v for k, v in h["result"].items() if k != "tricks"}}
        for h in record["hands"]
    ]
    return slim  # type: ignore[return-value]


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


@dataclass
class Built:
    """What ``build_report`` made: the index page, how many games, the folder's size, how long it took."""

    index: Path
    games: int
    bytes: int
    seconds: float


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


def _swap(new: Path, target: Path) -> None:
    """Put the folder ``new`` in the place of ``target`` (a page reloading meanwhile misses it for an instant)."""
    old = target.with_name(f".{target.name}-old-{os.getpid()}")
    if target.exists():
        target.rename(old)
    new.rename(target)
    if old.exists():
        shutil.rmtree(old)


def _write(path: Path, text: str) -> None:
    """Write a page whole: a browser reloading it never reads half of it."""
    temp = path.with_name(f".{path.name}.{os.getpid()}")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


def build_report(source: str | Path | Source, out: str | Path, *, refresh: int | None = None) -> Built:
    """Write the report of ``source`` into the folder ``out`` (its data files replaced) and say what it made.

    With ``refresh`` (seconds), the index and games pages reload themselves that often (``arena report --watch``).
    """
    collecting = gc.isenabled()
    gc.disable()  # the records read make no cycles; a collection per thousand of them would rescan the kept ones
    try:
        return _build(source, out, refresh)
    finally:
        if collecting:
            gc.enable()


def _build(source: str | Path | Source, out: str | Path, refresh: int | None) -> Built:
    started = time.perf_counter()
    src = source if isinstance(source, Source) else open_source(source)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    data = out / f".data-new-{os.getpid()}"
    if data.exists():
        shutil.rmtree(data)
    for sub in ("games", "records"):
        (data / sub).mkdir(parents=True)
    slims: list[tuple[str, GameRecord]] = []
    stats: dict[str, BotStats] = {}
    variants: Counter[str] = Counter()
    kinds: set[str] = set()
    page: list[list[Any]] = []
    chunk: list[dict[str, Any]] = []
    count = 0

    def flush_page() -> None:
        (data / "games" / f"page-{(count - 1) // PAGE_SIZE}.js").write_bytes(_js("arenaGames", page))
        page.clear()

    def flush_chunk() -> None:
        (data / "records" / f"chunk-{(count - 1) // CHUNK_SIZE}.js").write_bytes(_js("arenaRecords", chunk))
        chunk.clear()

    for shown_id, key, record in src.records():
        try:
            players = record["players"]
            variants[record["variant"]] += 1
            slims.append((key, _slim(record)))
            timing: dict[str, Any] = dict(record.get("timing") or {})
            for name in dict.fromkeys(players):
                entry = stats.setdefault(name, BotStats(name))
                entry.games += 1
            for seat, name in enumerate(players):
                entry = stats[name]
                entry.seats += 1
                decisions = timing.get("decisions")
                thinking = timing.get("thinking")
                if decisions:
                    entry.decisions += int(decisions[seat])
                if thinking:
                    entry.thinking += float(thinking[seat])
            violations = record.get("violations") or []
            game_kinds = sorted({v["kind"] for v in violations})
            for violation in violations:
                entry = stats[players[violation["seat"]]]
                entry.violations[violation["kind"]] = entry.violations.get(violation["kind"], 0) + 1
            kinds.update(game_kinds)
            forfeit = record.get("forfeit")
            page.append(
                [
                    count,
                    shown_id,
                    key,
                    record["variant"],
                    players,
                    record["final_scores"],
                    record["winners"],
                    _result_code(record),
                    len(record["hands"]),
                    game_kinds,
                    None if forfeit is None else [forfeit["seat"], forfeit.get("kind", "")],
                ]
            )
            chunk.append({"n": count, "id": shown_id, "key": key, "record": record})
        except (KeyError, TypeError, IndexError, AttributeError, ValueError) as exc:
            shutil.rmtree(data, ignore_errors=True)
            raise ReportError(
                f"{src.path}: game {shown_id} ({key}) is not a game record ({type(exc).__name__}: {exc})"
            ) from None
        count += 1
        if len(page) == PAGE_SIZE:
            flush_page()
        if len(chunk) == CHUNK_SIZE:
            flush_chunk()
    if page:
        flush_page()
    if chunk:
        flush_chunk()
    if not count:
        shutil.rmtree(data)
        raise ReportError(f"{src.path}: no games to report")

    rows = ranking(slims, confidence=src.confidence, bootstrap=src.bootstrap, seed=src.seed)
    cross: dict[str, dict[str, list[float]]] = orjson.loads(crosstable(slims, "json"))
    del slims
    order = [r.bot for r in rows] + sorted(set(cross) - {r.bot for r in rows})
    ranking_json = [asdict(r) for r in rows]
    bots = [stats[name] for name in order if name in stats] + [s for n, s in sorted(stats.items()) if n not in order]
    summary = {
        "title": src.title,
        "games": count,
        "pages": (count + PAGE_SIZE - 1) // PAGE_SIZE,
        "pageSize": PAGE_SIZE,
        "chunkSize": CHUNK_SIZE,
        "bots": sorted(stats),
        "kinds": sorted(kinds),
        "variants": dict(variants),
    }
    index_data = {
        "ranking": ranking_json,
        "crosstable": {"bots": order, "cells": cross},
        "stats": [
            {
                "bot": b.bot,
                "msPerDecision": b.ms_per_decision,
                "decisions": b.decisions,
                "violations": sum(b.violations.values()),
            }
            for b in bots
        ],
    }
    _copy_static(out)
    (data / "summary.js").write_bytes(_js("arenaSummary", summary))
    _swap(data, out / "data")
    env = _environment()
    # the ranking table's cells exactly as `arena ranking` prints them (its CSV), whatever its columns
    table = list(csv.reader(io.StringIO(format_ranking(rows, "csv")))) if rows else []
    context: dict[str, Any] = {
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
        "bots": bots,
        "kinds": sorted(kinds),
        "index_data": index_data,
        "built": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "refresh": refresh,
    }
    for name in ("index.html", "games.html", "viewer.html"):
        _write(out / name, env.get_template(name).render(page=name, **context))
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    return Built(out / "index.html", count, size, time.perf_counter() - started)
