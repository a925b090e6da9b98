"""Matches on a Dask cluster: the coordinator's side (the workers' side is arena.tournament.dask_worker).

Each match is one Dask task. Its games come back as they finish (those that finish while a send is under way, in
the next send) through a Dask queue on the scheduler (one per run): a reader thread here takes them in batches and
hands each to its match's ``on_game``, so the coordinator stores every game as it arrives and stays the only
writer of the store. Games, not matches, are what survives a failure: a worker killed mid-match has delivered the
games it finished; Dask runs the task again on another worker, which plays only the rest (the count of delivered
games the task keeps in the scheduler's metadata says where to start), and a game that arrives twice (sent by an
attempt just before it died, not yet counted) is passed on once.

Why a queue: a task's return value arrives only when the whole match is over, and Dask's pub/sub and event topics
give no acknowledgement (a message can be dropped; events stay in the scheduler's memory). A queue ``put`` returns
when the scheduler holds the game, and a ``get`` takes it out, so nothing piles up there. The reader polls with
batch gets (a blocking get that times out is logged as an error by the scheduler).

Bots travel by content: each bot file is a small task of its own keyed by its sha256 (recomputed from the
scheduler if a worker holding it dies), which the workers fetch, write once and check before a match starts; a file
under a declared shared folder is only checked.

Imports Dask: import this module only when the dask executor is asked for (``open_executor`` does).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict, Unpack

from distributed import CancelledError, Client, Future, KilledWorker, Queue

from arena.errors import ArenaError
from arena.play.matchspec import BotEntry, MatchSpec
from arena.tournament.dask_worker import (
    MakeExecutor,
    ShippedBot,
    TaskResult,
    content,
    digest_of,
    play_match,
    progress_key,
)
from arena.tournament.executor import LocalExecutor, OnGame, scheduler_address

CONNECT_TIMEOUT = 10.0  # seconds to reach the scheduler
WORKERS_TIMEOUT = 60.0  # seconds to wait for a first worker
DELIVERY_TIMEOUT = 60.0  # seconds a finished match's last games may take to come through the queue
POLL = 0.02  # seconds between looks at an empty queue
RETRY = 1.0  # seconds before a look at the queue after one failed


@dataclass
class _Match:
    """A match in flight: where its games go and which of them arrived."""

    on_game: OnGame
    seen: set[int] = field(default_factory=set)


class ExecutorOptions(TypedDict, total=False):
    """The keywords of a DaskExecutor beside its client."""

    pin: bool
    shared: tuple[str, ...]
    stall_timeout: float | None
    make_executor: MakeExecutor | None


class DaskExecutor:
    """Runs each match as a Dask task on the cluster of ``client`` (see the module's docstring).

    ``pin``: each match on a core of its own on its worker. ``shared``: folders the workers see at the same path.
    ``make_executor`` plays a match on the worker (default: a ``LocalExecutor`` with ``stall_timeout``).
    """

    remote = True  # matches run on the workers: the coordinator neither checks isolation nor pins cores for them

    def __init__(
        self,
        client: Client,
        *,
        pin: bool = True,
        shared: tuple[str, ...] = (),
        stall_timeout: float | None = None,
        make_executor: MakeExecutor | None = None,
    ) -> None:
        self.client = client
        self.pin = pin
        self.shared = tuple(os.path.realpath(p) for p in shared)
        self.make_executor = make_executor or functools.partial(LocalExecutor, stall_timeout=stall_timeout)
        self.run_id = uuid.uuid4().hex[:12]
        self.queue = Queue(f"arena-{self.run_id}-games", client=client)
        self._lock = threading.Condition()
        self._matches: dict[str, _Match] = {}
        self._futures: set[Future[TaskResult]] = set()  # the matches' tasks in flight
        self._shipped: dict[str, tuple[ShippedBot, Future[bytes] | None]] = {}  # by the bot file's path
        self._cancelled = False
        self._closed = threading.Event()
        self._reader = threading.Thread(target=self._read, name="arena-dask-reader", daemon=True)
        self._reader.start()

    @classmethod
    @contextlib.contextmanager
    def connect(
        cls, address: str | None, *, timeout: float = CONNECT_TIMEOUT, **options: Unpack[ExecutorOptions]
    ) -> Iterator[DaskExecutor]:
        """An executor on the scheduler at ``address`` (else ``DASK_SCHEDULER_ADDRESS``), closed on the way out;
        ``timeout``: seconds to reach it; ``options``: the executor's own (``DaskExecutor``'s keywords)."""
        address = scheduler_address(address)
        try:
            client = Client(address, timeout=timeout, set_as_default=False)
        except OSError as exc:
            raise ArenaError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
        try:
            try:
                client.wait_for_workers(1, timeout=WORKERS_TIMEOUT)
            except TimeoutError:
                raise ArenaError(f"the Dask scheduler at {address} has no worker (start one: dask worker)") from None
            executor = cls(client, **options)
            try:
                yield executor
            finally:
                executor.close()
        finally:
            client.close()

    def capacity(self) -> int:
        """Matches the cluster plays at once: its workers' threads, one match per thread."""
        threads: dict[str, int] = self.client.nthreads()
        return max(1, sum(threads.values()))

    def run(self, spec: MatchSpec, on_game: OnGame) -> str | None:
        """Run the match as a task on a worker; its games are passed to ``on_game`` as they arrive."""
        try:
            bots, contents = self._ship(spec.bots)
        except OSError as exc:
            return f"cannot send a bot's file to the cluster: {exc}"
        match = _Match(on_game)
        with self._lock:
            if self._cancelled:
                return "cancelled"
            try:
                future = self._submit(spec, bots, contents)
            except Exception as exc:  # the scheduler is gone: this match fails, the run goes on to say so
                return f"cannot hand the match to the Dask scheduler: {type(exc).__name__}: {exc}"
            self._matches[spec.match_id] = match
            self._futures.add(future)
        try:
            return self._outcome(spec, future, match)
        finally:
            with self._lock:
                self._futures.discard(future)
                del self._matches[spec.match_id]
            future.release()

    def _submit(
        self, spec: MatchSpec, bots: list[ShippedBot], contents: dict[str, Future[bytes]]
    ) -> Future[TaskResult]:
        """The match's task (its key names the run and the match, as the scheduler's logs show it)."""
        return self.client.submit(
            play_match,
            json.dumps(spec.to_json()),
            bots,
            contents,
            run=self.run_id,
            queue=self.queue.name,
            pin=self.pin,
            make_executor=self.make_executor,
            key=f"arena-{self.run_id}-match-{spec.match_id}",
            pure=False,
        )

    def _outcome(self, spec: MatchSpec, future: Future[TaskResult], match: _Match) -> str | None:
        """Wait for the task, then for the games it delivered; write its logs beside the results."""
        try:
            result: TaskResult = future.result()
        except CancelledError:
            return "cancelled"
        except KilledWorker as exc:
            return f"every worker that ran it died ({exc}); its finished games are kept"
        except Exception as exc:  # the task raised on the worker: say what, in one line
            return f"the task failed on a worker: {type(exc).__name__}: {exc}"
        with self._lock:
            arrived = self._lock.wait_for(lambda: match.seen.issuperset(result.delivered), timeout=DELIVERY_TIMEOUT)
        if result.logs:
            folder = Path(spec.log_dir)
            folder.mkdir(parents=True, exist_ok=True)
            for name, data in result.logs.items():
                with open(folder / Path(name).name, "ab") as log:
                    log.write(data)
        if not arrived:
            missing = sorted(set(result.delivered) - match.seen)
            return f"games {missing} were sent by {result.worker} but never arrived"
        return result.error

    def cancel(self) -> None:
        """Cancel every match in flight (the workers kill their referees; games already passed on stay done)."""
        with self._lock:
            self._cancelled = True
            futures = list(self._futures)
        self.client.cancel(futures)

    def close(self) -> None:
        """Stop reading games and let the run's queue, progress counts and bot files go."""
        self._closed.set()
        self._reader.join(timeout=5)
        with contextlib.suppress(Exception):
            self.queue.close()
            self.client.set_metadata(progress_key(self.run_id, "")[:-1], {})
        for _, future in self._shipped.values():
            if future is not None:
                future.release()

    def _ship(self, entries: list[BotEntry]) -> tuple[list[ShippedBot], dict[str, Future[bytes]]]:
        """The match's bots as they travel (a bot file is hashed and sent to the cluster once per run)."""
        bots, contents = [], {}
        for entry in entries:
            path = os.path.realpath(entry.argv[-1])
            with self._lock:
                if path not in self._shipped:
                    self._shipped[path] = self._shipment(entry, path)
                bot, future = self._shipped[path]
            given = (tuple(entry.args), tuple(entry.runtime_flags))
            bots.append(
                ShippedBot(entry.name, entry.transport, bot.filename, bot.digest, bot.executable, bot.shared, *given)
            )
            if future is not None:
                contents[bot.digest] = future
        return bots, contents

    def _shipment(self, entry: BotEntry, path: str) -> tuple[ShippedBot, Future[bytes] | None]:
        digest = digest_of(Path(path))
        shared = path if any(path.startswith(folder.rstrip("/") + "/") for folder in self.shared) else None
        bot = ShippedBot(entry.name, entry.transport, os.path.basename(path), digest, os.access(path, os.X_OK), shared)
        if shared is not None:
            return bot, None
        data = Path(path).read_bytes()
        return bot, self.client.submit(content, data, key=f"arena-bot-{digest}", pure=False)

    def _read(self) -> None:
        """Take finished games from the run's queue, in batches, and pass each on once."""
        while not self._closed.is_set():
            try:
                items = self.queue.get(batch=True)
            except Exception:  # the client is closing, or lost the scheduler for a moment (it reconnects)
                if self._closed.is_set() or self.client.status in ("closing", "closed"):
                    return
                self._closed.wait(RETRY)
                continue
            if not items:
                self._closed.wait(POLL)
            for match_id, games in items:  # a task sends the games that finished since its last send together
                with self._lock:
                    match = self._matches.get(match_id)
                    if match is None:
                        continue  # a match no longer wanted (cancelled, or of an attempt that was given up)
                    for index, record in games:
                        if index not in match.seen:  # else a game sent twice (by an attempt that died)
                            match.on_game(record)
                            match.seen.add(index)
                    self._lock.notify_all()
