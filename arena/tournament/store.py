"""The tournament store: finished games, their violations, tournament metadata and the bot registry, in SQLite."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
import tempfile
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Self, TypedDict

import orjson

from arena import JSONObject
from arena.engine.record import GameRecord, ViolationJSON, read_record
from arena.errors import ArenaError, RecordError

APPLICATION_ID = 0x45554348  # "EUCH": PRAGMA application_id of every Euchre Arena database
SCHEMA_VERSION = 1  # PRAGMA user_version
_SQLITE_MAGIC = b"SQLite format 3\x00"
_TABLES = frozenset({"meta", "games", "seats", "violations", "bots"})
_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE games (
    id INTEGER PRIMARY KEY, game_key TEXT NOT NULL UNIQUE, match_key TEXT NOT NULL, variant TEXT NOT NULL,
    seed INTEGER NOT NULL, players TEXT NOT NULL, winners TEXT NOT NULL, final_scores TEXT NOT NULL,
    hands INTEGER NOT NULL, forfeit_kind TEXT, violations INTEGER NOT NULL, finished_at TEXT NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX games_match ON games (match_key);
CREATE INDEX games_variant ON games (variant);
CREATE TABLE seats (
    game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE, seat INTEGER NOT NULL, bot TEXT NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX seats_bot ON seats (bot);
CREATE TABLE violations (
    id INTEGER PRIMARY KEY, game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat INTEGER NOT NULL, bot TEXT, kind TEXT NOT NULL, detail TEXT NOT NULL, excerpt TEXT NOT NULL,
    hand_number INTEGER, at_seconds REAL, wall_time TEXT
);
CREATE INDEX violations_game ON violations (game_id);
CREATE INDEX violations_bot ON violations (bot);
CREATE TABLE bots (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, version TEXT NOT NULL, path TEXT NOT NULL, sha256 TEXT NOT NULL,
    meta TEXT NOT NULL, registered_at TEXT NOT NULL, UNIQUE (name, version)
);
"""
_GAME_COLUMNS = (
    "id, game_key, match_key, variant, seed, players, winners, final_scores, hands, forfeit_kind, violations, "
    "finished_at"
)
_BOT_COLUMNS = "name, version, path, sha256, meta, registered_at, id = (SELECT MAX(id) FROM bots WHERE name = b.name)"
# Rows of those columns as sqlite3 gives them (a seed past 64 bits is stored as text; the last bot column is 0 or 1).
_GameColumns = tuple[int, str, str, str, int | str, str, str, str, int, str | None, int, str]
_BotColumns = tuple[str, str, str, str, str, str, int]


def record_text(record: GameRecord) -> str:
    """A record as stored: compact JSON by orjson (a tenth of the standard encoder's time, on the coordinator's path
    for each game), by the standard encoder where orjson refuses (an integer past 64 bits, a string that is not
    UTF-8). Read back with the standard decoder: orjson would decode an integer past 64 bits as a float."""
    try:
        return orjson.dumps(record, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return json.dumps(record)


class StoreError(ArenaError):
    """The database file is missing, locked, corrupted, from something else, or refuses the change asked of it."""


@dataclass(frozen=True, slots=True)
class GameRow:
    """One stored game as listed: its keys and the indexed facts beside its record."""

    id: int
    game_key: str
    match_key: str
    variant: str
    seed: int
    players: tuple[str, ...]
    winners: tuple[int, ...]
    final_scores: tuple[int, ...]
    hands: int
    forfeit_kind: str | None
    violations: int
    finished_at: str


class StoredViolation(TypedDict):
    """A recorded violation as listed: the game it was in, whose (the seat's bot, if the seat had one), what, when."""

    game_id: int
    game_key: str
    seat: int
    bot: str | None
    kind: str
    detail: str
    excerpt: str
    hand_number: int | None
    at_seconds: float | None
    at: str | None  # the wall time


@dataclass(frozen=True, slots=True)
class BotRow:
    """One registered bot version; ``latest`` marks the newest registration under its name."""

    name: str
    version: str
    path: str
    sha256: str
    meta: JSONObject  # what was registered with it (arena submit: the source and the transport)
    registered_at: str
    latest: bool


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


_SQLITE_READONLY = 8


def _result_code(exc: sqlite3.Error) -> int:
    """The primary result code of an sqlite3 error (-1 when it has none)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return -1 if code is None else int(code) & 0xFF


def _describe(exc: sqlite3.Error, path: Path, timeout: float) -> str:
    code = _result_code(exc)
    if code in (5, 6):  # SQLITE_BUSY, SQLITE_LOCKED
        return f"{path}: the database is locked by another process (gave up after {timeout:g} s)"
    if code in (11, 26):  # SQLITE_CORRUPT, SQLITE_NOTADB
        return f"{path}: the database file is corrupted ({exc})"
    if code == 14:  # SQLITE_CANTOPEN
        return f"{path}: cannot open the database file (does its directory exist, and may we write there?)"
    if code == _SQLITE_READONLY:
        return f"{path}: the database file is read-only ({getattr(exc, 'sqlite_errorname', exc)})"
    if code == 13:  # SQLITE_FULL
        return f"{path}: the disk is full"
    return f"{path}: database error: {exc}"


def _inspect(conn: sqlite3.Connection, path: Path) -> bool:
    """Whether the database is empty (True) or already ours (False); raise StoreError for anything else."""
    objects = [name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite%'")]
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if app_id == 0 and version == 0 and not objects:
        return True
    if app_id != APPLICATION_ID:
        what = f"application_id {app_id:#x}" if app_id else f"it holds {', '.join(sorted(objects)[:5]) or 'no tables'}"
        raise StoreError(f"{path}: not a Euchre Arena database ({what}); refusing to touch it")
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{path}: schema version {version} is newer than this arena supports ({SCHEMA_VERSION}); upgrade the arena"
        )
    if version != SCHEMA_VERSION:
        raise StoreError(f"{path}: unknown schema version {version} of a Euchre Arena database")
    tables = {
        n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'")
    }
    if tables - _TABLES:
        raise StoreError(f"{path}: not a Euchre Arena database (unknown tables: {', '.join(sorted(tables - _TABLES))})")
    if _TABLES - tables:
        raise StoreError(
            f"{path}: the database file is damaged (missing tables: {', '.join(sorted(_TABLES - tables))})"
        )
    return False


def _writable(path: Path) -> bool:
    """Whether we may write the file and its folder (SQLite writes its -wal and -shm files beside it)."""
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK | os.X_OK)


def _check_header(path: Path) -> bool:
    """Check the first 100 bytes say SQLite, and ours (or no one's); return whether the file is empty."""
    try:
        with path.open("rb") as f:
            header = f.read(100)
    except OSError as exc:
        raise StoreError(f"{path}: cannot read the file ({exc.strerror})") from None
    if not header:
        return True
    if not header.startswith(_SQLITE_MAGIC):
        raise StoreError(f"{path}: not a SQLite database (the file has no SQLite header); refusing to touch it")
    if len(header) < 100:
        raise StoreError(f"{path}: the database file is corrupted (truncated header)")
    app_id = int.from_bytes(header[68:72], "big", signed=True)
    if app_id not in (0, APPLICATION_ID):
        raise StoreError(f"{path}: not a Euchre Arena database (application_id {app_id:#x}); refusing to touch it")
    return False


def _check_file(path: Path, timeout: float) -> bool:
    """Validate an existing file without writing to it; return whether it is empty and needs the schema."""
    if _check_header(path):
        return True
    try:
        return _quick_check(path, timeout, read_only=True)
    except sqlite3.Error as exc:
        journals = (Path(f"{path}-wal"), Path(f"{path}-journal"))
        if _result_code(exc) != _SQLITE_READONLY or not any(j.exists() for j in journals):
            raise StoreError(_describe(exc, path, timeout)) from None
    # A process killed while it wrote left a write-ahead log, or (killed while it made the file, before the switch to
    # WAL) a hot rollback journal, that only a writer may recover (SQLITE_READONLY_RECOVERY, _ROLLBACK and kin); the
    # header says SQLite (and ours, or no one's), so let SQLite replay or roll back its own journal as any opener would.
    try:
        return _quick_check(path, timeout, read_only=False)
    except sqlite3.Error as exc:
        raise StoreError(_describe(exc, path, timeout)) from None


def _quick_check(path: Path, timeout: float, *, read_only: bool) -> bool:
    """Run SQLite's quick_check and inspect the schema; return whether the database is empty."""
    uri = path.resolve().as_uri() + ("?mode=ro" if read_only else "")
    conn = sqlite3.connect(uri, uri=True, timeout=timeout)
    try:
        problems = [row[0] for row in conn.execute("PRAGMA quick_check(5)")]
        if problems != ["ok"]:
            lines = [line for p in problems for line in str(p).splitlines() if line and not line.startswith("***")]
            raise StoreError(f"{path}: the database file is corrupted (quick_check: {'; '.join(lines[:2])})")
        return _inspect(conn, path)
    finally:
        conn.close()


def _write_schema(conn: sqlite3.Connection) -> None:
    """The tables of an empty database, and the application id and schema version that say it is ours (in the
    caller's transaction)."""
    for statement in _SCHEMA.split(";"):
        if statement.strip():
            conn.execute(statement)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _create(path: Path, timeout: float) -> bool:
    """Make a new database at ``path`` whole before any other process can open it; False where it could not be made
    so (the caller then makes it in place, as before).

    It is built under a temporary name beside ``path`` (schema, application id, write-ahead logging: its mode 0600,
    results being the referee user's alone) and hard-linked into place, which fails if another process made ``path``
    first (theirs is then used). Made in place, a process polling for the file (``arena ranking`` while a run
    starts) could open it half-made, still in SQLite's rollback-journal mode: both connections then switch it to
    write-ahead logging, and one of them gets SQLITE_BUSY at once (in 2-4 % of starts under a reader polling every
    millisecond), the run failing with "the database is locked".
    """
    try:
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".new", dir=path.parent)
    except OSError:
        return False  # a missing or unwritable folder: reported by the caller's connect, as before
    temp = Path(name)
    try:
        try:
            conn = sqlite3.connect(temp, timeout=timeout, isolation_level=None)
            try:
                # No sync to disk while it is built: no other process knows the file, and what a crash would leave
                # under its temporary name is never used; SQLite's own syncs were most of the time a new database
                # took to make (docs/performance.md). The one sync below makes the file durable before it is linked.
                conn.execute("PRAGMA synchronous = OFF")
                conn.execute("BEGIN")  # one transaction
                _write_schema(conn)
                conn.execute("COMMIT")
                conn.execute("PRAGMA journal_mode = WAL")  # checked by the caller's open, as for any file
            finally:
                conn.close()  # the last connection: the log is folded into the file, and its side files go
        except sqlite3.Error as exc:
            raise StoreError(_describe(exc, path, timeout)) from None
        try:
            # the whole file on disk before its name is (closed only now: closing another descriptor of the file
            # while SQLite held its locks would have let those go)
            os.fsync(fd)
        except OSError as exc:
            raise StoreError(f"{path}: cannot write the new database ({exc.strerror})") from None
        try:
            os.link(temp, path)
        except FileExistsError:
            pass  # another process made it first: the caller opens theirs
        except OSError:
            return False  # no hard links on this file system
        return True
    finally:
        os.close(fd)
        for leftover in (temp, Path(f"{temp}-wal"), Path(f"{temp}-shm"), Path(f"{temp}-journal")):
            with contextlib.suppress(FileNotFoundError):
                leftover.unlink()


class Store:
    """A tournament database: open it with ``Store.open``; every write is one transaction."""

    def __init__(self, path: Path, connection: sqlite3.Connection, timeout: float, *, read_only: bool = False) -> None:
        """Wrap an open, validated connection (use ``Store.open``)."""
        self.path = path
        self.read_only = read_only
        self._conn: sqlite3.Connection | None = connection
        self._timeout = timeout
        self._lock = threading.RLock()
        self._writing = False  # inside a write's transaction (writes do not nest)
        self._run_lock: int | None = None

    @classmethod
    def open(cls, path: str | Path, *, create: bool = True, timeout: float = 10.0) -> Self:
        """Open (or, with ``create``, create) the database at ``path``, refusing anything that is not ours.

        Without ``create``, a file we may not write (or whose folder we may not write: SQLite's side files go there)
        is opened read-only: its results can be read, and a write says why it cannot be made.
        """
        path = Path(path)
        if path.exists():
            if path.is_dir():
                raise StoreError(f"{path}: is a directory, not a database file")
            if not create and not _writable(path):
                return cls._read_only(path, timeout)
            empty = _check_file(path, timeout)
        elif create:
            if _create(path, timeout):
                empty = _check_file(path, timeout)  # ours, or one another process made meanwhile
            else:  # made in place, the way that races a reader (no hard links here): see _create
                empty = True
                # results are the referee user's alone (SQLite's -wal and -shm files copy this mode); a missing
                # folder is left for sqlite3 to report below
                with contextlib.suppress(FileExistsError, FileNotFoundError, NotADirectoryError):
                    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        else:
            raise StoreError(f"{path}: no such database file")
        try:
            conn = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise StoreError(_describe(exc, path, timeout)) from None
        store = cls(path, conn, timeout)
        try:
            with store._errors():
                conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
                conn.execute("PRAGMA foreign_keys = ON")
                # WAL with NORMAL never corrupts; a power cut may lose the last commits, and the scheduler replays those
                conn.execute("PRAGMA synchronous = NORMAL")
                if empty:
                    with store._write() as c:  # re-inspect under the write lock: another process may have won
                        if _inspect(c, path):
                            _write_schema(c)
                mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if mode != "wal":
                    raise StoreError(f"{path}: cannot use write-ahead logging here (journal mode stays {mode!r})")
        except BaseException:
            store.close()
            raise
        return store

    @classmethod
    def _read_only(cls, path: Path, timeout: float) -> Self:
        """Open a results file we may not write: nothing is written, not even SQLite's side files."""
        _check_header(path)
        uri = path.resolve().as_uri() + "?mode=ro&immutable=1"
        try:
            conn = sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None, check_same_thread=False)
            _inspect(conn, path)
        except sqlite3.Error as exc:
            raise StoreError(_describe(exc, path, timeout)) from None
        return cls(path, conn, timeout, read_only=True)

    @contextmanager
    def exclusive_run(self) -> Iterator[None]:
        """Hold the tournament's run lock (a lock file beside the database) for as long as a run goes on.

        A second run of the same tournament at once is refused in one line that names the process holding it.
        """
        lock_path = Path(f"{self.path}.lock")
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise StoreError(
                f"{self.path}: this tournament is already running (process {holder}); wait for it, or stop it "
                "(Ctrl-C or kill -TERM) and run again to resume"
            ) from None
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode(), 0)
            yield
        finally:
            os.ftruncate(fd, 0)
            os.close(fd)  # releases the lock; the file stays (removing it would race with a waiting run)

    def close(self) -> None:
        """Close the connection; further use raises StoreError. Closing twice is harmless."""
        with self._lock:
            if self._conn is not None:
                conn, self._conn = self._conn, None
                conn.close()

    def __enter__(self) -> Self:
        """Use the store as a context manager that closes it."""
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Close the store."""
        self.close()

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as exc:
            raise StoreError(_describe(exc, self.path, self._timeout)) from None

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._lock, self._errors():
            if self._conn is None:
                raise StoreError(f"{self.path}: the store is closed")
            if self._conn.in_transaction and not self._writing:
                # a write cut short by a signal before it could roll back (Ctrl-C twice): what it did is not kept,
                # and neither this read nor the next write may see it
                self._conn.execute("ROLLBACK")
            yield self._conn

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        if self.read_only:
            raise StoreError(f"{self.path}: opened read-only (the file or its folder may not be written); not changed")
        with self._read() as conn:
            self._writing = True  # reads within the write see it
            try:
                conn.execute("BEGIN IMMEDIATE")
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    with suppress(sqlite3.Error):  # the first error says more
                        conn.execute("ROLLBACK")
                raise
            finally:
                self._writing = False

    # ---- tournament metadata ----

    def get_meta(self, key: str) -> str | None:
        """The metadata value under ``key``, or None."""
        with self._read() as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        """Set the metadata value under ``key``."""
        with self._write() as conn:
            conn.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    # ---- games ----

    def add_game(self, game_key: str, match_key: str, record: GameRecord, *, finished_at: str | None = None) -> int:
        """Store one finished game and its violations in one transaction; return its id."""
        try:
            text = record_text(record)
            players = [str(p) for p in record["players"]]
            winners = json.dumps([int(s) for s in record["winners"]])
            scores = json.dumps([int(s) for s in record["final_scores"]])
            variant, seed, hands = str(record["variant"]), int(record["seed"]), len(record["hands"])
            violations = list(record.get("violations") or [])
        except (KeyError, TypeError, ValueError) as exc:
            raise RecordError(
                f"game {game_key!r}: cannot store a malformed record ({type(exc).__name__}: {exc})"
            ) from None
        forfeit = record.get("forfeit")
        forfeit_kind = str(forfeit.get("kind") or "forfeit") if isinstance(forfeit, dict) else None
        with self._write() as conn:
            row = conn.execute("SELECT id FROM games WHERE game_key = ?", (game_key,)).fetchone()
            if row is not None:
                raise StoreError(f"{self.path}: game {game_key!r} is already stored (id {row[0]})")
            cursor = conn.execute(
                "INSERT INTO games (game_key, match_key, variant, seed, players, winners, final_scores, hands, "
                "forfeit_kind, violations, finished_at, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    game_key,
                    match_key,
                    variant,
                    seed if -(2**63) <= seed < 2**63 else str(seed),
                    json.dumps(players),
                    winners,
                    scores,
                    hands,
                    forfeit_kind,
                    len(violations),
                    finished_at or _now(),
                    text,
                ),
            )
            game_id = cursor.lastrowid
            assert game_id is not None
            conn.executemany(
                "INSERT INTO seats (game_id, seat, bot) VALUES (?, ?, ?)",
                [(game_id, seat, name) for seat, name in enumerate(players)],
            )
            for violation in violations:
                conn.execute(
                    "INSERT INTO violations (game_id, seat, bot, kind, detail, excerpt, hand_number, at_seconds, "
                    "wall_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    _violation_row(game_id, players, violation),
                )
        return game_id

    def game_keys(self) -> set[str]:
        """The keys of every stored game."""
        with self._read() as conn:
            return {key for (key,) in conn.execute("SELECT game_key FROM games")}

    def game_count(self) -> int:
        """How many games are stored."""
        with self._read() as conn:
            return int(conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    def records(self) -> Iterator[tuple[int, str, GameRecord]]:
        """Every stored game as (id, game_key, record), in insertion order, read in batches."""
        last = 0
        while True:
            with self._read() as conn:
                batch = conn.execute(
                    "SELECT id, game_key, record FROM games WHERE id > ? ORDER BY id LIMIT 200", (last,)
                ).fetchall()
            if not batch:
                return
            for game_id, key, text in batch:
                yield game_id, key, self._record(game_id, key, text)
            last = batch[-1][0]

    def raw_records(self, *, after: int = 0, batch: int = 200) -> Iterator[tuple[int, str, str]]:
        """Stored games with an id above ``after`` as (id, game_key, record's JSON text), in insertion order.

        The text is not decoded: a reader that copies records elsewhere (the HTML report) or decodes them with a
        faster parser pays only for what it does. Read in batches of ``batch`` rows.
        """
        last = after
        while True:
            with self._read() as conn:
                rows = conn.execute(
                    "SELECT id, game_key, record FROM games WHERE id > ? ORDER BY id LIMIT ?", (last, batch)
                ).fetchall()
            if not rows:
                return
            yield from rows
            last = rows[-1][0]

    def game(self, ref: str | int) -> tuple[int, str, GameRecord]:
        """One stored game as (id, game_key, record), by id or by game key."""
        column = "id" if isinstance(ref, int) else "game_key"
        with self._read() as conn:
            row = conn.execute(f"SELECT id, game_key, record FROM games WHERE {column} = ?", (ref,)).fetchone()
        if row is None:
            raise StoreError(f"{self.path}: no game {ref!r}")
        return row[0], row[1], self._record(row[0], row[1], row[2])

    def _record(self, game_id: int, key: str, text: str) -> GameRecord:
        """A stored record, read and checked (``read_record``); one that is not a game record is the file's error,
        named with the game: nothing is changed."""
        try:
            return read_record(text)
        except RecordError as exc:
            raise StoreError(f"{self.path}: the stored game {key!r} (id {game_id}) is {exc}") from None

    def list_games(
        self,
        *,
        bot: str | None = None,
        variant: str | None = None,
        forfeits: bool = False,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[GameRow]:
        """Stored games in insertion order, optionally only those ``bot`` played, of ``variant``, or forfeited."""
        where, params = _game_filter(bot, variant, forfeits)
        sql = f"SELECT {_GAME_COLUMNS} FROM games WHERE {where} ORDER BY id LIMIT ? OFFSET ?"
        with self._read() as conn:
            rows = conn.execute(sql, [*params, -1 if limit is None else limit, offset]).fetchall()
        return [_game_row(r) for r in rows]

    def count_games(self, *, bot: str | None = None, variant: str | None = None, forfeits: bool = False) -> int:
        """How many stored games ``list_games`` would list with the same filters (and no limit)."""
        where, params = _game_filter(bot, variant, forfeits)
        with self._read() as conn:
            return int(conn.execute(f"SELECT count(*) FROM games WHERE {where}", params).fetchone()[0])

    def violations(self, bot: str | None = None) -> list[StoredViolation]:
        """Every recorded violation (of ``bot`` only, if given), oldest first."""
        sql = (
            "SELECT v.game_id, g.game_key, v.seat, v.bot, v.kind, v.detail, v.excerpt, v.hand_number, v.at_seconds, "
            "v.wall_time FROM violations v JOIN games g ON g.id = v.game_id"
        )
        with self._read() as conn:
            if bot is None:
                rows = conn.execute(sql + " ORDER BY v.id").fetchall()
            else:
                rows = conn.execute(sql + " WHERE v.bot = ? ORDER BY v.id", (bot,)).fetchall()
        return [
            {
                "game_id": game_id,
                "game_key": game_key,
                "seat": seat,
                "bot": name,
                "kind": kind,
                "detail": detail,
                "excerpt": excerpt,
                "hand_number": hand_number,
                "at_seconds": at_seconds,
                "at": at,
            }
            for game_id, game_key, seat, name, kind, detail, excerpt, hand_number, at_seconds, at in rows
        ]

    # ---- bot registry ----

    def register_bot(self, name: str, version: str, path: str, sha256: str, meta: Mapping[str, object]) -> bool:
        """Register a bot version; False if this name and version are registered already."""
        with self._write() as conn:
            row = conn.execute("SELECT sha256 FROM bots WHERE name = ? AND version = ?", (name, version)).fetchone()
            if row is not None:
                if row[0] != sha256:
                    raise StoreError(f"{self.path}: bot {name!r} version {version!r} is registered with other content")
                return False
            conn.execute(
                "INSERT INTO bots (name, version, path, sha256, meta, registered_at) VALUES (?, ?, ?, ?, ?, ?)",
                (name, version, path, sha256, json.dumps(meta), _now()),
            )
        return True

    def bots(self) -> list[BotRow]:
        """Every registered bot version, by name then registration order."""
        with self._read() as conn:
            rows = conn.execute(f"SELECT {_BOT_COLUMNS} FROM bots b ORDER BY name, id").fetchall()
        return [_bot_row(r) for r in rows]

    def bot(self, name: str, version: str | None = None) -> BotRow | None:
        """The bot ``name`` at ``version`` (the latest registered when None), or None."""
        with self._read() as conn:
            if version is None:
                row = conn.execute(f"SELECT {_BOT_COLUMNS} FROM bots b WHERE name = ? ORDER BY id DESC", (name,))
            else:
                row = conn.execute(f"SELECT {_BOT_COLUMNS} FROM bots b WHERE name = ? AND version = ?", (name, version))
            found = row.fetchone()
        return None if found is None else _bot_row(found)


def _game_filter(bot: str | None, variant: str | None, forfeits: bool) -> tuple[str, list[str]]:
    """The WHERE clause (and its parameters) of a listing of games by bot, variant and forfeit."""
    where, params = ["1"], list[str]()
    if bot is not None:
        where.append("id IN (SELECT game_id FROM seats WHERE bot = ?)")
        params.append(bot)
    if variant is not None:
        where.append("variant = ?")
        params.append(variant)
    if forfeits:
        where.append("forfeit_kind IS NOT NULL")
    return " AND ".join(where), params


def _game_row(r: _GameColumns) -> GameRow:
    players, winners, scores = (tuple(json.loads(text)) for text in r[5:8])
    return GameRow(r[0], r[1], r[2], r[3], int(r[4]), players, winners, scores, r[8], r[9], r[10], r[11])


def _bot_row(row: _BotColumns) -> BotRow:
    return BotRow(row[0], row[1], row[2], row[3], json.loads(row[4]), row[5], bool(row[6]))


def _violation_row(
    game_id: int, players: list[str], violation: ViolationJSON
) -> tuple[int, int, str | None, str, str, str, int | None, float | None, str | None]:
    """The violations-table row of one recorded violation; RecordError if it lacks a seat or kind."""
    try:
        seat, kind = int(violation["seat"]), str(violation["kind"])
    except (KeyError, TypeError, ValueError) as exc:
        raise RecordError(f"malformed violation {violation!r}: {type(exc).__name__}: {exc}") from None
    return (
        game_id,
        seat,
        players[seat] if 0 <= seat < len(players) else None,
        kind,
        str(violation.get("detail", "")),
        str(violation.get("excerpt", "")),
        violation.get("hand_number"),
        violation.get("at_seconds"),
        violation.get("wall_time"),
    )
