"""Where a report's games come from, read as text from where the last read stopped.

A source is a results database (with its tournament config, if given), a JSONL file of game records (``arena match
--record``) or one JSON record (``arena replay --json``). Each read yields only the games added since the previous
one (the database's rows with a higher id, the file's complete lines past the last offset), each with its JSON text
as stored, for the report to decode with orjson (much faster than the standard library's json).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from arena.errors import ArenaError

if TYPE_CHECKING:
    from arena.tournament.store import Store


class ReportError(ArenaError):
    """The report's source cannot be read or holds nothing to report."""


@dataclass(frozen=True, slots=True)
class RawGame:
    """One game as read: the id shown for it, its game key (None: from the record, else its line), its JSON text."""

    shown_id: str
    key: str | None
    text: bytes


@dataclass
class Source:
    """A source of games and where reading it stopped (``cursor``: a database id, or a file's byte offset)."""

    path: Path
    kind: str  # "db", "jsonl" or "json"
    title: str
    db: Path | None = None
    confidence: float = 0.95
    intervals: bool = True
    cursor: int = 0
    lines: int = 0  # lines of a JSONL file read so far
    _store: Store | None = field(default=None, repr=False)

    def read(self, *, complete_only: bool = False) -> Iterator[RawGame]:
        """The games added since the last read, in order. With ``complete_only``, a JSONL file's last line is left
        for the next read unless it ends with a newline (a writer may be half-way through it)."""
        if self.kind == "db":
            yield from self._read_db()
        elif self.kind == "json":
            yield from self._read_json()
        else:
            yield from self._read_jsonl(complete_only)

    def _read_db(self) -> Iterator[RawGame]:
        from arena.tournament.store import Store

        assert self.db is not None
        if self._store is None:  # opened once: opening checks the whole file
            self._store = Store.open(self.db, create=False)
        for game_id, key, text in self._store.raw_records(after=self.cursor):
            self.cursor = game_id
            yield RawGame(str(game_id), key, text.encode())

    def close(self) -> None:
        """Close the database, if one was opened (reading again opens it again)."""
        if self._store is not None:
            self._store.close()
            self._store = None

    def _read_json(self) -> Iterator[RawGame]:
        if self.cursor:
            return
        try:
            whole = orjson.loads(self.path.read_bytes())
        except orjson.JSONDecodeError as exc:
            raise ReportError(f"{self.path}: not a JSON game record ({exc})") from None
        self.cursor = 1
        for number, one in enumerate(whole if isinstance(whole, list) else [whole], 1):
            yield RawGame(str(number), f"record-{number}", orjson.dumps(one))

    def _read_jsonl(self, complete_only: bool) -> Iterator[RawGame]:
        with self.path.open("rb") as handle:
            handle.seek(self.cursor)
            for line in handle:
                if complete_only and not line.endswith(b"\n"):
                    return
                self.cursor += len(line)
                self.lines += 1
                text = line.strip()
                if not text:
                    continue
                yield RawGame(str(self.lines), None, text)  # keyed once parsed


def open_source(path: str | Path) -> Source:
    """A tournament config (``.toml``, its results beside it), a results database, or a JSONL/JSON file of records."""
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
            intervals=config.rating.bootstrap != 0,
        )
    if path.suffix == ".json":
        return Source(path, "json", path.stem)
    if path.suffix in (".jsonl", ".ndjson"):
        return Source(path, "jsonl", path.stem)
    return Source(path, "db", path.stem, db=path)
