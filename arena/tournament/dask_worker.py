"""The worker's side of a match on a Dask cluster: one task plays one match as ``LocalExecutor`` does here.

The task gets the match spec and the bots' files by content. It writes each file once per worker (or finds it on a
declared shared path), checks its sha256, and starts it with this host's runtime for its kind (``resolve_bot``: a
missing ``node`` or ``java`` is a one-line error). It takes a core of its own (a lock file per core, so that worker
processes on one machine never share one), runs the referee with ``LocalExecutor`` (confinement and watchdog as
locally), and sends each finished game to the coordinator through the run's queue on the scheduler, noting in the
scheduler's metadata how many games of the match it delivered. If the worker dies, Dask runs the task again
elsewhere: the new attempt reads that count and plays only the rest of the match. If the coordinator cancels the
task, or goes away, the task's state on the worker says so and the referee is killed.

Imports Dask: imported only where the dask executor is used (``pip install 'euchre-arena[dask]'``).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from distributed import Client, Worker, get_client, get_worker

from arena.engine.record import GameRecord
from arena.errors import ArenaError
from arena.play.botproc import STDIO_PREFIX, resolve_bot
from arena.play.cpus import idlest
from arena.play.matchspec import BotEntry, MatchSpec
from arena.play.sandbox import require_isolation
from arena.tournament.executor import Executor, LocalExecutor

MakeExecutor = Callable[[], Executor]
LOG_RETURN_LIMIT = 4 * 1024 * 1024  # the logs a task sends back with its result, at most (each log is capped already)
WATCH_EVERY = 0.5  # seconds between looks at whether the task is still wanted


@dataclass(frozen=True, slots=True)
class ShippedBot:
    """A bot as it travels to a worker: its name, transport, file name and content hash (and where a shared
    filesystem holds it, if it does; else its bytes travel as the task's dependency keyed by the hash)."""

    name: str
    transport: str
    filename: str
    digest: str
    executable: bool
    shared: str | None = None
    args: tuple[str, ...] = ()  # the entrant's arguments for its program and flags for its runtime
    runtime_flags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TaskResult:
    """What a match task hands back: its error (None when the match completed), the indices of the games the
    scheduler's queue got for this match (from earlier attempts too), the worker's address and the match's logs
    (file name -> bytes)."""

    error: str | None
    delivered: list[int]
    worker: str
    logs: dict[str, bytes]


def content(data: bytes) -> bytes:
    """A bot file's bytes as a task of their own: a worker that lost them gets them again from the scheduler."""
    return data


def digest_of(path: Path) -> str:
    """Full sha256 of a file's content."""
    sha = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            sha.update(chunk)
    return sha.hexdigest()


def progress_key(run: str, match_id: str) -> list[str]:
    """Where the scheduler's metadata counts a match's delivered games (read by a re-run of the task); the run's
    whole branch, ``progress_key(run, "")[:-1]``, is cleared when the run ends."""
    return ["arena-delivered", run, match_id]


def play_match(
    spec_json: str,
    bots: list[ShippedBot],
    contents: dict[str, bytes],
    *,
    run: str,
    queue: str,
    pin: bool,
    make_executor: MakeExecutor | None = None,
) -> TaskResult:
    """The task of one match on a worker (see the module's docstring); ``make_executor`` plays it (default: a
    ``LocalExecutor``, a referee process)."""
    worker = get_worker()
    client: Client = get_client()
    spec = MatchSpec.from_json(json.loads(spec_json))
    progress = progress_key(run, spec.match_id)
    start = int(client.get_metadata(progress, 0))  # games an earlier attempt delivered (the queue holds them)
    before = list(range(start))  # the coordinator waits for these too: they are in the queue ahead of ours
    if start >= len(spec.games):
        return TaskResult(None, before, worker.address, {})
    executor = make_executor() if make_executor is not None else LocalExecutor()
    try:
        entries = [install(bot, contents, Path(worker.local_directory) / "arena-bots") for bot in bots]
        if isinstance(executor, LocalExecutor):  # bots run here: refuse as a local run would
            require_isolation(spec.trusted_bots)
    except ArenaError as exc:
        return TaskResult(f"on worker {worker.address}: {exc}", [], worker.address, {})
    sender = _Sender(client, queue, spec.match_id, progress)

    def on_game(record: GameRecord) -> None:
        record["game_index"] += start  # its place in the whole match
        sender.add(record["game_index"], record)

    with tempfile.TemporaryDirectory(prefix="arena-match-", dir=worker.local_directory) as logs:
        rest = spec.replace(games=spec.games[start:], bots=entries, log_dir=logs, cpus=None)
        try:
            with claimed_core(pin) as core, _watch(worker, executor):
                if core is not None:
                    rest = rest.replace(cpus=[core])
                error = executor.run(rest, on_game)
        finally:
            close = getattr(executor, "close", None)  # an executor that keeps its referee for a next match ends it
            if close is not None:
                close()
            delivered, failed = sender.close()
        kept = _logs(Path(logs))
    error = error or failed
    if error is not None:
        error = f"on worker {worker.address}: {error}"
    return TaskResult(error, before + delivered, worker.address, kept)


class _Sender:
    """Sends a match's finished games to the run's queue, in order, from a thread of its own: the referee is never
    held up by the scheduler, and games that finish while a send is under way go together in the next one. After
    each send (once the scheduler holds its games), the match's progress count moves on."""

    def __init__(self, client: Client, queue: str, match_id: str, progress: list[str]) -> None:
        self.client, self.queue, self.match_id, self.progress = client, queue, match_id, progress
        self._pending: list[tuple[int, GameRecord]] = []  # games to send, each with its index in the match
        self._sent: list[int] = []
        self._failed: str | None = None
        self._closing = False
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._send, name="arena-sender", daemon=True)
        self._thread.start()

    def add(self, index: int, record: GameRecord) -> None:
        """Send this game (soon)."""
        with self._changed:
            self._pending.append((index, record))
            self._changed.notify()

    def close(self) -> tuple[list[int], str | None]:
        """Send what is left; the indices of the games the scheduler holds, and why a send failed (or None)."""
        with self._changed:
            self._closing = True
            self._changed.notify()
        self._thread.join()
        return self._sent, self._failed

    def _send(self) -> None:
        scheduler = self.client.scheduler  # Queue.put without a Queue: unpickling one here would register
        # this worker as a user of the run's queue, which then outlives the run
        while True:
            with self._changed:
                self._changed.wait_for(lambda: bool(self._pending) or self._closing)
                batch, self._pending = self._pending, []
            if not batch:
                return
            try:
                games = [[index, record] for index, record in batch]  # on the queue as lists
                self.client.sync(scheduler.queue_put, name=self.queue, data=[self.match_id, games])
                self.client.set_metadata(self.progress, batch[-1][0] + 1)
            except Exception as exc:  # the scheduler is gone: the games not sent are not stored, and replayed
                self._failed = f"cannot send finished games to the coordinator: {type(exc).__name__}: {exc}"
                return
            self._sent += [index for index, _ in batch]


def install(bot: ShippedBot, contents: dict[str, bytes], cache: Path) -> BotEntry:
    """The bot's file on this worker, checked by hash, and the command that starts it with this host's runtime."""
    if bot.shared is not None:
        path = Path(bot.shared)
        if not path.is_file():
            raise ArenaError(f"bot {bot.name!r}: no file {path} on the shared path")
    else:
        path = cache / bot.digest / bot.filename
        if not path.is_file():
            _write_once(path, contents[bot.digest], bot.executable)
    found = digest_of(path)
    if found != bot.digest:
        raise ArenaError(f"bot {bot.name!r}: {path} has sha256 {found[:12]}, the coordinator's has {bot.digest[:12]}")
    command = resolve_bot((STDIO_PREFIX if bot.transport == "stdio" else "") + str(path))
    return command.given(args=bot.args, runtime_flags=bot.runtime_flags).entry(bot.name)


def _write_once(path: Path, data: bytes, executable: bool) -> None:
    """Write a bot's file atomically (tasks of one worker may race to write the same one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".part-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(temporary, 0o755 if executable else 0o644)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


@contextlib.contextmanager
def claimed_core(pin: bool, *, folder: Path | None = None) -> Iterator[int | None]:
    """A core no other match on this machine holds (a lock file per core, in ``folder``: by default one per user in
    the temporary folder), the idlest first; when every core is held (more matches than cores), the idlest, shared,
    as a local run with more jobs than cores does. None when not pinning or where the system cannot pin."""
    if not pin:
        yield None
        return
    ranked = list(dict.fromkeys(idlest(os.cpu_count() or 1)))
    if not ranked:
        yield None
        return
    folder = folder or Path(tempfile.gettempdir()) / f"arena-cores-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    for core in ranked:
        fd = os.open(folder / f"{core}.lock", os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        try:
            yield core
        finally:
            os.close(fd)  # closing the file releases its lock
        return
    yield ranked[0]


@contextlib.contextmanager
def _watch(worker: Worker, executor: Executor) -> Iterator[None]:
    """Cancel the match as soon as this task is no longer wanted (the run was stopped, or its coordinator went
    away): the scheduler then marks the task cancelled on the worker, but cannot stop the thread running it."""
    key = worker.get_current_task()
    done = threading.Event()

    def watch() -> None:
        while not done.wait(WATCH_EVERY):
            task = worker.state.tasks.get(key)
            if task is None or task.state not in ("executing", "long-running"):
                executor.cancel()
                return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()


def _logs(folder: Path) -> dict[str, bytes]:
    """The match's log files, to be written beside the coordinator's results (up to LOG_RETURN_LIMIT in all)."""
    kept: dict[str, bytes] = {}
    room = LOG_RETURN_LIMIT
    for path in sorted(folder.iterdir()):
        if path.is_file() and room > 0:
            data = path.read_bytes()[:room]
            kept[path.name] = data
            room -= len(data)
    return kept
