"""Where matches run. The scheduler hands a match spec to an executor and gets finished games back.

``LocalExecutor`` runs matches in referee processes on this machine (``python -m arena.play.referee --serve``), each
spec as a JSON line on a referee's stdin, one JSON line per finished game on its stdout. Another executor (a
cluster engine) only has to implement ``run``: ``DaskExecutor`` (arena.tournament.dask_executor) runs each match
as a Dask task, and ``open_executor`` picks one by name.
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
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Protocol, cast

import orjson

from arena import JSONObject
from arena.engine.record import GameRecord
from arena.errors import ArenaError
from arena.play import cgroups, forkserver
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

    # Optional: ``remote = True`` for an executor whose matches run elsewhere (the coordinator then neither checks
    # the host's isolation nor pins cores), ``release()``, called by each parallel slot's thread when it is done,
    # ``rest()``, by a slot's thread at the end of a round (every bot process it ran must have ended when it returns:
    # an executor that ends them with each match needs none), and ``warm(count, log_dir)``, called once the
    # coordinator knows how many slots it runs, before its last preparations.


@contextlib.contextmanager
def slot(executor: Executor) -> Iterator[None]:
    """The life of one parallel slot's thread: run its matches inside; on the way out the executor ends what it keeps
    for the thread (``release``: a LocalExecutor's referee, which would otherwise die unclosed with the thread)."""
    try:
        yield
    finally:
        release = getattr(executor, "release", None)
        if release is not None:
            release()


def run_match(executor: Executor, spec: MatchSpec, on_game: OnGame) -> str | None:
    """``executor.run``, with what it raises (a referee that could not start, a fault of ours) turned into the
    match's failure, so that the slot goes on and the run records it rather than waiting for the match forever."""
    try:
        return executor.run(spec, on_game)
    except Exception as exc:
        return f"the executor failed: {type(exc).__name__}: {exc}"


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
    """Matches in referee processes on this machine: one referee per thread that calls ``run`` (a tournament's
    parallel slot), kept for the slot's next match (``python -m arena.play.referee --serve``), so a referee starts
    once a slot and bot processes carry over from one match to the next where the referee allows it (``carry_on``:
    never a deal twice for one process). Each referee runs in its own process group and dies with its parent.

    A watchdog ends a match that finishes no game for ``stall_timeout`` seconds (default ``stall_limit``): its
    referee and bots are killed, the games it finished are kept, and ``run`` says what happened. ``release`` (by
    the thread that ran matches) or ``close`` ends the referees cleanly. ``warm`` starts referees ahead, for the
    slots about to run: their start (a Python process and its imports) overlaps what the coordinator still does.
    """

    def __init__(self, *, stall_timeout: float | None = None) -> None:
        self._servers: dict[int, _Server] = {}  # by thread
        self._warm: list[_Server] = []  # started ahead, not yet taken by a thread
        self._warming: threading.Thread | None = None  # starting them
        self._next: dict[int, MatchSpec | None] = {}  # by thread: the slot's match after the one it runs next
        self._lock = threading.Lock()
        self._cancelled = False
        self.stall_timeout = stall_timeout

    def run(self, spec: MatchSpec, on_game: OnGame) -> str | None:
        """Run the match in this thread's referee process and stream its games back."""
        log_dir = Path(spec.log_dir)
        log_dir.mkdir(parents=True, exist_ok=True)
        log = log_dir / f"{spec.match_id}-referee.log"
        self._warmed()
        with self._lock:
            if self._cancelled:
                return "cancelled"
            server = self._servers.get(threading.get_ident())
            if server is None or not server.alive():
                if server is not None:  # it died between matches: reaped, replaced
                    server.end()
                server = self._take_warm() or _Server(log)
                self._servers[threading.get_ident()] = server
            if server.log != log:  # a referee that served before, or started ahead: its log under this match's name
                with contextlib.suppress(OSError):
                    os.link(server.log, log)
        limit = self.stall_timeout or stall_limit(spec)
        watchdog = _Watchdog(server.process, limit)
        games, done = 0, False
        try:
            server.send(spec, self._next.pop(threading.get_ident(), None))
            for message in server.messages():
                if message.get("type") == "game":
                    watchdog.progress()
                    on_game(cast(GameRecord, message["record"]))  # game_record's, with the referee's part
                    games += 1
                elif message.get("type") == "match_done":
                    done = True
                    break
        except BaseException:  # the referee is still in this match: the slot's next one needs another
            watchdog.stop()  # before its pid is released (the watchdog kills by it)
            self._forget(server)  # first: a cancel() would otherwise kill by its pid once released
            server.kill()
            server.end()
            raise
        finally:
            watchdog.stop()
        if done:
            return None
        self._forget(server)  # before its pid is released, as above
        code = server.end()
        if watchdog.fired:
            return (
                f"no game finished for {limit:.0f} s: the match was stopped, its referee and bots killed "
                f"({games} of its {len(spec.games)} games finished and are kept; see {log.name})"
            )
        return f"referee exited with code {code} (see {log.name})"

    def warm(self, count: int, log_dir: str) -> None:
        """Start referees ahead so that ``count`` are waiting (their logs in ``log_dir`` until their first match):
        forked ones in the background (forking waits for the fork server's imports), ``run`` waiting for them. One
        that fails to start is left out: the slot starts its own, and says why if that fails too."""
        folder = Path(log_dir)
        folder.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S")

        def start() -> None:
            for place in range(count):
                with self._lock:
                    if self._cancelled or len(self._warm) >= count:
                        return
                try:
                    server = _Server(folder / f"referee-{stamp}-{os.getpid()}-{place}.log")
                except (ArenaError, OSError):
                    return
                with self._lock:
                    if not self._cancelled:
                        self._warm.append(server)
                        continue
                server.kill()
                server.end()

        self._warmed()
        if not forkserver.enabled():  # exec'd (at once): here, since each dies with the thread that started it
            start()
            return
        self._warming = threading.Thread(target=start, name="warm referees", daemon=True)
        self._warming.start()

    def _warmed(self) -> None:
        """Wait for the referees ``warm`` is starting."""
        warming = self._warming
        if warming is not None:
            warming.join()

    def _take_warm(self) -> _Server | None:
        """A referee started ahead and still running (with the lock held), or None."""
        while self._warm:
            server = self._warm.pop(0)
            if server.alive():
                return server
            server.end()
        return None

    def upcoming(self, spec: MatchSpec | None) -> None:
        """Say which match the calling thread runs after its next one (None: none known), so that its referee can
        start that match's bots while the next one plays."""
        self._next[threading.get_ident()] = spec

    def rest(self) -> None:
        """End every bot process of the calling thread's referee, and wait until they have ended; the referee stays,
        for the slot's next match (a round's end: the next round's bots must not meet this one's)."""
        with self._lock:
            server = self._servers.get(threading.get_ident())
        if server is not None:
            watchdog = _Watchdog(server.process, REST_LIMIT)  # a referee that does not answer is killed
            rested = server.rest()
            watchdog.stop()
            if not rested:  # it died or would not say: ended, as at a match that failed
                self._forget(server)
                server.kill()
                server.end()
        _sweep_bots()  # and what the referees this slot lost (killed, crashed) left running

    def release(self) -> None:
        """End the calling thread's referee cleanly (its bots are told the match is over): the slot is done."""
        with self._lock:
            server = self._servers.pop(threading.get_ident(), None)
        if server is not None:
            server.end()

    def close(self) -> None:
        """End every referee cleanly, and with them every bot process they ran (a killed referee's too)."""
        self._warmed()
        with self._lock:
            servers, self._servers = [*self._servers.values(), *self._warm], {}
            self._warm = []
        for server in servers:
            server.end()
        _sweep_bots()

    def cancel(self) -> None:
        """Kill every running referee (and so, with them, their bots)."""
        with self._lock:
            self._cancelled = True
        self._warmed()  # it starts no more
        with self._lock:
            for server in [*self._servers.values(), *self._warm]:
                server.kill()

    def _forget(self, server: _Server) -> None:
        with self._lock:
            for key, known in list(self._servers.items()):
                if known is server:
                    del self._servers[key]


# The referee process starts its fork server first, so that the server imports what Python bots need while the
# referee imports the rest of itself (``python -m arena.play.referee`` does the same, later). Where fork servers
# work, the referee is forked from this process's fork server for referees (the referee imported) and runs this
# code there; its bots' server is forked from the server of bots' servers or started by exec (forkserver: a bot must
# not share its referee's layout).
REFEREE_COMMAND = (
    sys.executable,
    "-c",
    "from arena.play import forkserver; forkserver.warm(); from arena.play.referee import main; main()",
)


REST_LIMIT = 60.0
"""Seconds a referee has to end its bots at a round's end (it gives each 1 s after ``match_end``): past it, it is
killed, as a match's watchdog would."""


def _sweep_bots() -> None:
    """Kill what is left of the bot processes of referees that are gone (their cgroups), at once: a referee killed
    with SIGKILL leaves its bots to die by their parent-death signals, a moment later, and a round must not begin
    before they have. Nothing where there are no cgroups (there the signals are all there is)."""
    if cgroups.detect().available:
        cgroups.sweep_stale()


class _Server:
    """One referee process serving matches in turn: specs in as JSON lines, games and ``match_done`` out."""

    def __init__(self, log: Path) -> None:
        self.log = log
        self.process: subprocess.Popen[bytes] | forkserver.ForkedProcess
        with open(log, "ab") as stderr:
            if forkserver.enabled():
                self.process, self._stdin, self._stdout = _forked_referee(stderr.fileno())
                return
            self.process = subprocess.Popen(
                [*REFEREE_COMMAND, "--serve"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                start_new_session=True,
                preexec_fn=die_with_parent,
            )
        assert self.process.stdin is not None and self.process.stdout is not None
        self._stdin, self._stdout = self.process.stdin, self.process.stdout

    def alive(self) -> bool:
        """Whether the referee still runs (and its input is open)."""
        return self.process.poll() is None and not self._stdin.closed

    def send(self, spec: MatchSpec, upcoming: MatchSpec | None = None) -> None:
        """Hand the referee its next match, and the one after it if known (a referee that died meanwhile shows at
        the next read)."""
        line = {
            "spec": spec.to_json(),
            "next": None if upcoming is None else upcoming.to_json(),
        }
        with contextlib.suppress(BrokenPipeError, ValueError):
            self._stdin.write(json.dumps(line).encode() + b"\n")
            self._stdin.flush()

    def rest(self) -> bool:
        """Have the referee end its bots; whether it said they have ended (False: it died, or said something else)."""
        with contextlib.suppress(BrokenPipeError, ValueError, OSError):
            self._stdin.write(b'{"rest": true}\n')
            self._stdin.flush()
            for message in self.messages():
                return message.get("type") == "rested"
        return False

    def messages(self) -> Iterator[JSONObject]:
        """The referee's lines as they come, until its output ends."""
        for line in self._stdout:
            yield orjson.loads(line)

    def end(self) -> int:
        """Close its input (it closes its match and exits), wait for it, kill it if it lingers; its exit code."""
        with contextlib.suppress(BrokenPipeError, OSError, ValueError):
            self._stdin.close()
        try:
            code = self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill()
            code = self.process.wait()
        if isinstance(self.process, forkserver.ForkedProcess):
            self.process.release()  # its process group is gone: the server may reap it
        return code

    def kill(self) -> None:
        """Kill the referee's process group (the bots die with it). Only before ``end``: after it, the pid may be
        another process's (the executor never ends a referee that ``cancel`` can still reach)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)


def scheduler_address(address: str | None) -> str:
    """The Dask scheduler's address: ``address``, else ``DASK_SCHEDULER_ADDRESS``; an error that says how to give one
    where neither is set."""
    address = address or os.environ.get("DASK_SCHEDULER_ADDRESS")
    if not address:
        raise ArenaError(
            "the dask executor needs its scheduler's address: --scheduler tcp://HOST:8786, or scheduler = "
            '"..." in the config\'s [executor] table'
        )
    return address


@contextlib.contextmanager
def open_executor(
    kind: str,
    *,
    scheduler: str | None = None,
    shared: tuple[str, ...] = (),
    connect_timeout: float = 10.0,
    pin: bool = True,
    stall_timeout: float | None = None,
) -> Iterator[tuple[Executor, int | None]]:
    """The executor called ``kind`` (``local`` or ``dask``) and how many matches to keep in flight on it (None: the
    run's own jobs; on a cluster, twice its worker threads, so that each worker has its next match at hand)."""
    if kind == "local":
        yield LocalExecutor(stall_timeout=stall_timeout), None
        return
    scheduler = scheduler_address(scheduler)  # before Dask's import (~0.9 s of processor time) is spent on nothing
    try:
        from arena.tournament.dask_executor import DaskExecutor
    except ImportError as exc:
        if exc.name is None or exc.name.split(".")[0] not in ("dask", "distributed"):
            raise
        raise ArenaError("the dask executor needs Dask: pip install 'euchre-arena[dask]'") from None
    with DaskExecutor.connect(
        scheduler, timeout=connect_timeout, shared=shared, pin=pin, stall_timeout=stall_timeout
    ) as executor:
        yield executor, 2 * executor.capacity()


def _forked_referee(stderr: int) -> tuple[forkserver.ForkedProcess, IO[bytes], IO[bytes]]:
    """A serving referee forked from this process's fork server (its stderr to ``stderr``): the process, its input
    and its output."""
    launch = forkserver.Launch((*REFEREE_COMMAND, "--serve"), dict(os.environ), os.getcwd(), None)
    theirs_in, ours_in = os.pipe2(os.O_CLOEXEC)
    ours_out, theirs_out = os.pipe2(os.O_CLOEXEC)
    try:
        process = forkserver.spawn_referee(launch, (theirs_in, theirs_out, stderr))
    except BaseException:
        os.close(ours_in)
        os.close(ours_out)
        raise
    finally:
        os.close(theirs_in)
        os.close(theirs_out)
    return process, open(ours_in, "wb"), open(ours_out, "rb")


class _Watchdog:
    """Kills a referee's process group when no game has finished for ``limit`` seconds."""

    def __init__(self, process: subprocess.Popen[bytes] | forkserver.ForkedProcess, limit: float) -> None:
        self.process, self.limit = process, limit
        self.fired = False
        self._last = time.monotonic()
        self._done = threading.Event()
        self._lock = threading.Lock()  # a kill under way ends before stop() returns
        threading.Thread(target=self._watch, daemon=True).start()

    def progress(self) -> None:
        """A game finished: the clock starts again."""
        self._last = time.monotonic()

    def stop(self) -> None:
        """The match is over: once this returns, the watchdog kills nothing (the referee's pid may be released)."""
        with self._lock:
            self._done.set()

    def _watch(self) -> None:
        while not self._done.wait(min(1.0, self.limit / 4)):
            if time.monotonic() - self._last > self.limit:
                with self._lock:
                    if self._done.is_set():
                        return
                    self.fired = True
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(self.process.pid, signal.SIGKILL)  # the bots die with their referee (sandbox)
                return
