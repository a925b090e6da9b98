"""Fork servers: clean interpreters with the SDK (or the referee) imported, forking bots (or referees).

A Python bot spends ~80 ms of processor time before its first move, starting an interpreter and importing the SDK,
zmq and orjson, and a referee as much again: in a league of short matches that is most of what the bots cost, and
a tournament's start is its referees' interpreters starting at once. So a referee process keeps one fork server
for bots (``SERVER_COMMAND``, started with nothing but a plain environment: it never holds a token, an endpoint
or anything of the referee's), which imports those modules once and forks a child for each Python bot the referee
starts. The child confines itself exactly as a bot started by fork and exec does (``sandbox.Confinement.apply``:
cgroup, namespaces, view, rlimits, uid), then runs the bot's script as ``python script.py`` would, as ``__main__``,
with its own argv, environment and standard streams.

A tournament's coordinator keeps a second kind, a fork server for referees (``spawn_referee``), which imports the
referee and forks each slot's referee process, running its code as ``python -c`` would. Never the same server:
a forked process shares its server's address-space layout and stack canary, and a bot must not know its
referee's (they would help an exploit of a memory bug in what reads the bot's frames). A referee's own server for
its bots has a layout of its own: it is started by exec, or (as root) forked from a third kind, the coordinator's
server of bots' servers (``SERVERS``), started by exec beside the server for referees. That one imports what bots
need while the other imports the referee, and hands each referee a bots' server in a fork's time: ~100 ms of
imports off each referee's start, which is the start of every tournament run and of every slot.
Not root, a referee sweeps what its bots left among the processes re-parented to it (``sandbox``), so its bots'
server must be its child: it starts it by exec.

What the child must not inherit, it does not: the server reads only one-byte requests, and each child gets its
environment, token and standard streams from the referee over a socket pair made for it alone, after the fork (no
other bot's secret ever passes through the server's memory); the child closes every other descriptor before the
bot's code runs. The server's ``random`` state is reseeded at each fork (CPython's at-fork hooks), so bots do not
share it. Bots whose command is anything but ``<this Python> <script>.py [arguments]`` (Node, Java, executables,
options for the interpreter) start by fork and exec as before. ``ARENA_FORK_SERVER=0`` turns the servers off.

Protocol on the server's socket (SOCK_SEQPACKET): the referee sends ``F``; the server forks and answers
``P <pid>`` with the referee's end of the child's socket pair attached (or ``E <errno>`` when it cannot fork: that
process alone fails to start); the referee sends the child its ``Launch`` (pickled) with its three standard
streams attached. The server reports each child's end as ``X <pid> <wait status>`` but reaps it only at
``R <pid>``, once the referee has killed and swept what the bot left by its pid, process group and session (which
no other process can take meanwhile). It exits when the referee's end closes (the referee died or let it go): its
children have a parent-death signal on it, and take their bots with them.

The server of bots' servers reads, on a socket whose ends its coordinator hands each referee it forks (a fourth
descriptor beside the streams), ``S`` with one end of a socket pair the referee made and the referee's stderr
attached: it forks, and the child serves that referee on it as a bots' server (its stderr the referee's, as an exec'd
one's), first saying ``I <pid>``. A fork it cannot make closes that end
(the referee starts a bots' server by exec). It is killed with its coordinator's servers (``ForkServer.close``).
"""

from __future__ import annotations

import array
import atexit
import contextlib
import ctypes
import errno
import gc
import io
import os
import pickle
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import types
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn

from arena.errors import ArenaError
from arena.play.linux import (
    ARG_END,
    ARG_START,
    CSTIME,
    ENV_END,
    ENV_START,
    LIBC,
    PR_SET_DUMPABLE,
    UTIME,
    die_with_parent,
    prctl,
    readable,
    start_ticks,
    stat_fields,
)

if TYPE_CHECKING:
    from arena.play.sandbox import Confinement

# What a bot's child needs to confine itself and what a Python bot imports before it plays (by name: the SDK is not
# a dependency of the play layer); what a referee imports.
BOTS, REFEREES, SERVERS = "bots", "referees", "servers"
PRELOAD = {
    BOTS: (
        "arena.play.sandbox",  # the children's own confinement (Launch.confinement)
        "arena.sdk",
        "arena.sdk.sampling",
        "arena.sdk.solver",
        "arena.engine.scoring",
        "zmq",
        "zmq.backend",
        "orjson",
        "argparse",
    ),
    REFEREES: ("arena.play.referee",),
}
PRELOAD[SERVERS] = PRELOAD[BOTS]  # a bots' server forked from it has them imported
ROOM, ROOM_SIZE = "ARENA_ROOM", 16384
ARGS, ENVIRONMENT = (ARG_START, ARG_END), (ENV_START, ENV_END)
# The modules a plain interpreter holds at start are noted first: a bot's folder may shadow any other (_unshadow).
# Arguments: the socket's descriptor, room (see _show_as_execd), the kind (BOTS, REFEREES or SERVERS).
SERVER_COMMAND = (
    sys.executable,
    "-P",
    "-c",
    "import sys; started = set(sys.modules); from arena.play.forkserver import main; main(started)",
)
SET_UP = b"set up"  # a child's word that its set-up is done (anything else it sends says what failed)
LOST = -1  # in place of a wait status: the child died with its server (SIGKILL), which could not report it
START_TIMEOUT = 30.0  # seconds for the server to start and answer a request
SEEDED_TIMEOUT = 5.0  # seconds for the server of bots' servers to fork one (it imported beside the referees')
_MAX_SPEC = 1 << 20


class ForkServerError(ArenaError):
    """The fork server could not start a bot's process (it is gone, or did not answer)."""


class ForkServerLost(ArenaError):
    """A bot died with its fork server (killed from outside): nothing the bot did, so no violation can be charged;
    the match stops (a tournament records the failure, keeps the finished games, and plays the rest again)."""


@dataclass(frozen=True, slots=True)
class Launch:
    """What a child of the fork server needs to become one bot's process (sent to that child alone)."""

    argv: tuple[str, ...]  # (this Python, the script, ...): the script runs as __main__ with argv[1:] as sys.argv;
    # or (this Python, "-c", code, ...): the code runs as __main__ with ["-c", ...] as sys.argv
    env: dict[str, str]  # its whole environment
    cwd: str  # its working directory before confinement (a jailed bot moves to its home)
    confinement: Confinement | None  # None: not confined, only its parent-death signal


def enabled() -> bool:
    """Whether Python bots start from a fork server here (Linux, and not turned off by ``ARENA_FORK_SERVER=0``)."""
    return LIBC is not None and os.environ.get("ARENA_FORK_SERVER", "1") != "0"


def describe() -> str:
    """How Python bots (and a tournament's referees) start here, in one line (``arena doctor``)."""
    if enabled():
        return (
            "python bots: forked from a fork server with the SDK imported; a tournament's referees from another, "
            "with the referee imported (ARENA_FORK_SERVER=0: both by exec)"
        )
    why = "not Linux" if LIBC is None else "ARENA_FORK_SERVER=0"
    return f"python bots: started by exec ({why})"


def eligible(argv: tuple[str, ...]) -> bool:
    """Whether a bot with this command can start from the fork server: a ``.py`` script run by this Python (with
    arguments or without; not with options for the interpreter)."""
    if len(argv) < 2:
        return False
    return argv[0] == sys.executable and argv[1].endswith(".py") and not argv[1].startswith("-") and enabled()


# ---- the referee's side ----


class ForkedProcess:
    """A process forked by the fork server (a bot, a referee): the part of ``subprocess.Popen`` they use."""

    def __init__(
        self, server: ForkServer, pid: int, streams: tuple[io.FileIO | None, ...], setup: socket.socket | None = None
    ) -> None:
        self.server = server
        self.pid = pid
        self._setup = setup  # where the child says whether its set-up was done, before it runs the bot's code
        self._setup_failure: str | None = None
        self.started = start_ticks(pid)  # with the pid, names this process (None: it has already ended)
        self.lost = False  # it died with its server, which could not report how
        self._released = False
        self.stdin, self.stdout, self.stderr = streams
        self.returncode: int | None = None

    def poll(self) -> int | None:
        """Its exit code (negative: the signal that killed it), or None while it runs."""
        if self.returncode is None:
            status = self.server.status(self.pid, self.started)
            if status is not None:
                self.lost = status == LOST
                self.returncode = -signal.SIGKILL if self.lost else os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Wait for it to end; ``subprocess.TimeoutExpired`` after ``timeout`` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while (code := self.poll()) is None:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise subprocess.TimeoutExpired(f"bot process {self.pid}", timeout or 0.0)
            self.server.wait(remaining)
        return code

    def kill(self) -> None:
        """SIGKILL it, unless it has ended (until ``release`` its pid cannot be another process's)."""
        if self.poll() is None and not self._released:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)

    def set_up_failure(self) -> str | None:
        """Why the process ended before it ran the bot's code (its set-up or confinement failed: the arena's
        doing, not the bot's), or None when its set-up was done. Ask once it has ended. The child says so on a
        socket it closes before the bot's code runs, so no bot can forge it."""
        if self._setup is not None:
            try:
                said = self._setup.recv(4096, socket.MSG_DONTWAIT)
            except BlockingIOError:
                return None  # still setting up: it has not ended (asked too early: ask again later)
            except OSError:
                said = b""
            self._setup.close()
            self._setup = None
            if said != SET_UP:
                self._setup_failure = said.decode(errors="replace") or "its process ended before it was set up"
        return self._setup_failure

    def release(self) -> None:
        """Let the server reap it (call once it is killed and what it left is swept: until then its pid, process
        group and session stay its own, as a child's do until its parent waits for it)."""
        if not self._released:
            self._released = True
            self.server.release(self.pid)
        if self._setup is not None:
            self._setup.close()
            self._setup = None


class ForkServer:
    """The referee's handle on its fork server process (thread-safe: bots start and end in several threads)."""

    def __init__(self, sock: socket.socket, process: subprocess.Popen[bytes] | Adopted, kind: str = BOTS) -> None:
        self.socket = sock
        self.process = process
        self.kind = kind
        self.owner = os.getpid()
        self.made_in: tuple[dict[str, str], str] | None = None  # its environment and folder, if they are ours
        self.children: set[int] = set()  # forked and not yet released
        self.retired = False  # replaced: it ends once its last child is released
        self._statuses: dict[int, int] = {}
        self._forked: deque[tuple[int, int]] = deque()  # (pid, descriptor of its socket pair's end)
        self._fork_lock = threading.Lock()
        self._read_lock = threading.Lock()

    @classmethod
    def start(cls, kind: str = BOTS) -> ForkServer:
        """Start a fork server process (``SERVER_COMMAND``) for bots, with a plain environment in ``/``; or for
        referees, as ``python -c`` runs an exec'd referee: this process's environment and folder (what the
        referee's modules read as they are imported, TMPDIR say, and the interpreter's PYTHON* settings), its
        folder first on ``sys.path``. A referee handed the coordinator's server of bots' servers forks its server
        for bots from it (and starts one by exec if that fails)."""
        global _seed
        if kind == BOTS and _seed is not None and _bots_get_uids():
            try:
                return cls._forked_from(_seed)
            except ForkServerError:
                _seed = None  # gone or stuck: this referee's next server for bots starts by exec too
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        from arena.play.sandbox import plain_environment  # here: see the imports below

        if kind == REFEREES:
            command, (base, cwd) = [a for a in SERVER_COMMAND if a != "-P"], _here()
        else:
            command, base, cwd = list(SERVER_COMMAND), plain_environment(), "/"
        env = {**base, ROOM: "." * ROOM_SIZE}  # ROOM: room for its children's environments
        with theirs:
            process = subprocess.Popen(
                [*command, str(theirs.fileno()), "." * ROOM_SIZE, kind],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                env=env,
                cwd=cwd,
                start_new_session=True,
            )
        # Imported here, not at the top: a referee process starts its server before it imports the rest of itself.
        from arena.play.cpus import unpin_process
        from arena.play.sandbox import track

        unpin_process(process.pid)  # whatever thread started it: a child is put on its match's cores by its confinement
        track(process.pid, alive=True)  # not root: ours, not an escaped bot process to sweep
        handle = cls(ours, process, kind)
        handle.made_in = (base, cwd)
        return handle

    @classmethod
    def _forked_from(cls, seed: socket.socket) -> ForkServer:
        """A server for bots forked from the server of bots' servers ``seed``: it is sent one end of a new socket
        pair, on which its child serves as a bots' server and first says its pid."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        fds: list[int] = []
        try:
            with theirs:  # never blocks: a server whose queue is full is stuck (an exec does instead). sendmsg, not
                # send_fds, which drops its flags before Python 3.12 (gh-107898)
                # with our stderr: the server's own errors go to this referee's log, as from a server it exec'd
                attached = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [theirs.fileno(), 2]))]
                seed.sendmsg([b"S"], attached, socket.MSG_DONTWAIT)
            said, fds = _receive(ours, 64, 1) if readable(ours, SEEDED_TIMEOUT) else (b"", [])
            if not said.startswith(b"I "):
                raise ValueError("no bots' server")
            pid = int(said[2:])
        except (OSError, ValueError) as exc:
            ours.close()
            for fd in fds:
                os.close(fd)
            raise ForkServerError(f"the server of bots' servers gave none ({exc})") from None
        from arena.play.sandbox import plain_environment, track

        track(pid, alive=True)
        handle = cls(ours, Adopted(pid, fds[0] if fds else None))
        handle.made_in = (plain_environment(), "/")
        return handle

    def alive(self) -> bool:
        """Whether the server runs and belongs to this process (not inherited through a fork of the referee)."""
        return self.owner == os.getpid() and self.process.poll() is None

    def spawn(self, launch: Launch, streams: tuple[int, ...]) -> tuple[int, socket.socket | None]:
        """Fork a child, hand it ``launch`` and its standard streams: its pid, and the socket on which it says
        whether its set-up was done (None: the child was gone before it could be handed its launch)."""
        with self._fork_lock:
            try:
                self.socket.sendall(b"F")
                deadline = time.monotonic() + START_TIMEOUT
                while not self._forked:
                    if not self.alive() or time.monotonic() > deadline:
                        raise ForkServerError("the fork server did not answer")
                    self.wait(0.5)
                pid, fd = self._forked.popleft()
            except OSError as exc:
                raise ForkServerError(f"the fork server is gone ({exc})") from None
        if pid < 0:  # the server could not fork this one: like a failed fork of our own
            raise OSError(-pid, f"the fork server could not fork: {os.strerror(-pid)}")
        self.children.add(pid)
        channel = socket.socket(fileno=fd)
        try:
            socket.send_fds(channel, [pickle.dumps(launch)], list(streams))
        except OSError:  # the child died before it could read it: it ends before its set-up, and says nothing
            channel.close()
            return pid, None
        return pid, channel

    def status(self, pid: int, started: int | None) -> int | None:
        """The wait status of a child that has ended (None while it runs), given once (the caller keeps it).
        ``started``: when it started (``start_ticks``), to know it from a later process of the same pid."""
        if pid not in self._statuses:
            self._pump()
            if pid not in self._statuses and not self.alive() and (started is None or start_ticks(pid) != started):
                self._statuses[pid] = LOST  # it died with the server, which could not tell us
        return self._statuses.pop(pid, None)

    def release(self, pid: int) -> None:
        """Tell the server to reap a child we are done with (and let a retired server go after its last)."""
        with contextlib.suppress(OSError):
            self.socket.send(b"R %d" % pid)
        self.children.discard(pid)
        if self.retired and not self.children:
            self.close()

    def wait(self, timeout: float | None) -> None:
        """Wait up to ``timeout`` seconds for news from the server, and take it in."""
        # at most 50 ms: another thread may take in (and store) the news this one waits for
        with contextlib.suppress(OSError, ValueError):
            readable(self.socket, 0.05 if timeout is None else min(timeout, 0.05))
        self._pump()
        if not self.alive():  # its children died with it
            time.sleep(min(timeout or 0.05, 0.05))

    def _pump(self) -> None:
        with self._read_lock:
            while True:
                try:
                    message, fds = _receive(self.socket, 64, 1, socket.MSG_DONTWAIT)
                except OSError:  # nothing waiting (BlockingIOError), or the server is gone
                    return
                if not message:
                    return
                kind, *numbers = message.split()
                if kind == b"X":
                    self._statuses[int(numbers[0])] = int(numbers[1])
                elif kind == b"E":
                    self._forked.append((-int(numbers[0]), -1))
                elif kind == b"P" and fds:
                    self._statuses.pop(int(numbers[0]), None)  # a new child: what ended under its pid was another
                    self._forked.append((int(numbers[0]), fds[0]))

    def close(self) -> None:
        """Let the server go (it exits when its socket closes, its children with it), and reap it (or see it end).
        The server of bots' servers is killed: its referees hold ends of its socket, and the servers it forked
        serve on without it."""
        if self.owner != os.getpid():
            return
        self.socket.close()
        if self.kind == SERVERS:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)
        if isinstance(self.process, Adopted):
            self.process.close()
        from arena.play.sandbox import track

        track(self.process.pid, alive=False)


class Adopted:
    """A bots' server forked from the server of bots' servers: not our child (its parent reaps it). The part of
    ``subprocess.Popen`` that ``ForkServer`` uses, on a pidfd (where there is none, on its start time); its exit
    status is its parent's to know (0 here)."""

    def __init__(self, pid: int, pidfd: int | None) -> None:
        self.pid = pid
        self.started = start_ticks(pid)  # (None: gone already)
        self.returncode: int | None = None
        self._fd = pidfd  # from the process itself (it cannot name another), None where it could not make one

    def poll(self) -> int | None:
        """0 once it has ended, None while it runs."""
        if self.returncode is None and self._ended(0.0):
            self.returncode = 0
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Wait for it to end; ``subprocess.TimeoutExpired`` after ``timeout`` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while (code := self.poll()) is None:
            remaining = 0.05 if deadline is None else min(0.05, deadline - time.monotonic())
            if remaining <= 0:
                raise subprocess.TimeoutExpired(f"bots' server {self.pid}", timeout or 0.0)
            self._ended(remaining)
        return code

    def kill(self) -> None:
        """SIGKILL it, through its pidfd (never another process that took its pid); without one, unless it ended."""
        if self._fd is not None:
            signal.pidfd_send_signal(self._fd, signal.SIGKILL)
        elif self.poll() is None:
            os.kill(self.pid, signal.SIGKILL)

    def close(self) -> None:
        """Let its pidfd go (once it has ended)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def _ended(self, timeout: float) -> bool:
        fd = self._fd
        if fd is not None:
            with contextlib.suppress(OSError, ValueError):
                return readable(fd, timeout)
        if self.started is None or start_ticks(self.pid) != self.started:
            return True
        time.sleep(timeout)
        return start_ticks(self.pid) != self.started


_servers: dict[str, ForkServer] = {}  # by kind
_seed: socket.socket | None = None  # in a referee: the coordinator's server of bots' servers, if it was handed one
_server_lock = threading.Lock()


def server(kind: str = BOTS) -> ForkServer:
    """This process's fork server for bots (or for referees), started at the first call (and again if it has
    died)."""
    with _server_lock:
        handle = _servers.get(kind)
        stale = handle is not None and kind != BOTS and handle.made_in != _made_for(kind)
        if handle is None or not handle.alive() or stale:
            if handle is not None and handle.alive():  # started in another environment or folder: it serves its
                handle.retired = True  # running referees, and ends with the last of them (the server of bots'
                if not handle.children:  # servers has none: the servers it forked serve on without it)
                    handle.close()
            handle = _servers[kind] = ForkServer.start(kind)
            atexit.register(handle.close)  # the referee waits for it: no server outlives its referee
        return handle


# Variables that change while a process runs and that no import reads: pytest sets PYTEST_CURRENT_TEST afresh for
# each test (and each test's set-up and teardown). A server for referees is not started again for them (a forked
# referee gets the whole environment of its launch, theirs included).
VOLATILE = frozenset({"PYTEST_CURRENT_TEST"})


def _here() -> tuple[dict[str, str], str]:
    return {k: v for k, v in os.environ.items() if k not in VOLATILE}, os.getcwd()


def _made_for(kind: str) -> tuple[dict[str, str], str]:
    """The environment and folder a server of ``kind`` would start in now (a referee's bots' server lives as long
    as its referee, whose environment does not change: not asked)."""
    if kind == REFEREES:
        return _here()
    from arena.play.sandbox import plain_environment

    return plain_environment(), "/"


def reset() -> float:
    """End this process's fork servers (the next bot or referee starts a fresh one); the processor seconds they
    and their children used, which no rusage of ours counts (benchmarks)."""
    with _server_lock:
        handles = list(_servers.values())
        _servers.clear()
    used = 0.0
    for handle in handles:
        if handle.owner == os.getpid():
            used += _processor_seconds(handle.process.pid)
            handle.close()
    return used


def _processor_seconds(pid: int) -> float:
    """User and system time of a process and of its reaped children (/proc/PID/stat fields 14-17)."""
    fields = stat_fields(pid)
    if fields is None:
        return 0.0
    return sum(int(f) for f in fields[UTIME : CSTIME + 1]) / os.sysconf("SC_CLK_TCK")


def _discard(handle: ForkServer) -> None:
    """Stop using a server that failed a request: the next request starts a fresh one. It is not killed: the bots
    it forked run on (it ends with this process, or when it dies)."""
    with _server_lock:
        for kind, known in list(_servers.items()):
            if known is handle:
                del _servers[kind]


def warm(*kinds: str) -> None:
    """Start the fork server for bots (or those of ``kinds``) now, so that it imports while the referee prepares
    (no-op where they are off). A server that cannot start now is tried again when needed, which then fails with
    the reason."""
    if enabled():
        for kind in kinds or (BOTS,):
            with contextlib.suppress(OSError):
                server(kind)
            if kind == REFEREES:
                _seeds()  # (as root) the server of bots' servers, which the referees' bots' servers come from


def spawn(launch: Launch, *, stdio: bool) -> ForkedProcess:
    """Start a bot's process from the fork server, with pipes like ``BotProcess``'s Popen: stdin from /dev/null and
    stdout and stderr into one pipe (ZeroMQ bots), or three pipes (stdio bots). Retries once on a fresh server."""
    reading, writing = os.pipe2(os.O_CLOEXEC)
    if stdio:
        bot_in, feed = os.pipe2(os.O_CLOEXEC)
        errors, bot_err = os.pipe2(os.O_CLOEXEC)
        child, ours = (bot_in, writing, bot_err), (feed, reading, errors)
    else:
        null = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
        child, ours = (null, writing, writing), (-1, reading, -1)
    try:
        handle, pid, setup = _fork(BOTS, launch, child)
    except BaseException:
        for fd in set(ours) - {-1}:
            os.close(fd)
        raise
    finally:
        for fd in set(child):
            os.close(fd)
    modes = ("wb", "rb", "rb")
    streams = tuple(None if fd < 0 else io.FileIO(fd, mode) for fd, mode in zip(ours, modes, strict=True))
    return ForkedProcess(handle, pid, streams, setup)


def spawn_referee(launch: Launch, streams: tuple[int, int, int]) -> ForkedProcess:
    """Start a referee's process from this process's fork server for referees, with the standard streams
    ``streams`` (the caller closes its copies): it runs ``launch.argv`` (``python -c CODE ...``) unconfined, as
    ``subprocess.Popen`` with ``start_new_session`` would; its fork server for bots has a layout of its own (see the
    module's docstring). Retries once on a fresh server."""
    seed = _seed_for_referee()
    try:
        handle, pid, setup = _fork(REFEREES, launch, streams if seed < 0 else (*streams, seed))
    finally:
        if seed >= 0:
            os.close(seed)
    if setup is not None:
        setup.close()  # a referee's set-up is not confined: its failures are its own exit status
    return ForkedProcess(handle, pid, (None, None, None))


def _seeds() -> ForkServer | None:
    """As root, this process's server of bots' servers, for its referees (started now: it imports while the server
    for referees does); None where there is none."""
    if os.geteuid() != 0:
        return None  # a referee not root needs its bots' server for its child: see the module's docstring
    with contextlib.suppress(OSError):
        return server(SERVERS)
    return None


def _seed_for_referee() -> int:
    """A descriptor of our own of the server of bots' servers' socket, for a referee about to be forked (-1: none):
    taken while the server is still ours (a ``reset`` meanwhile closes its socket, not our copy)."""
    handle = _seeds()
    with _server_lock:
        if handle is not None and _servers.get(SERVERS) is handle:
            with contextlib.suppress(OSError):
                return os.dup(handle.socket.fileno())
    return -1


def _bots_get_uids() -> bool:
    """Whether this referee's bots run under uids of their own (root, and the sandbox may switch uids): only then
    may its bots' server be another process's child (not root, it sweeps what its bots left among the processes
    re-parented to it)."""
    from arena.play.sandbox import capabilities

    return capabilities().root


def _fork(kind: str, launch: Launch, streams: tuple[int, ...]) -> tuple[ForkServer, int, socket.socket | None]:
    """Fork a child from this process's server of ``kind``, handing it ``launch`` and ``streams``: the server, the
    child's pid and its set-up socket (``ForkServer.spawn``). A server that is gone is dropped and the fork tried
    once more on a fresh one (the streams pass only with a fork made); a fork the server could not make raises
    ``OSError`` at once."""
    for attempt in (1, 2):
        handle = server(kind)
        try:
            return handle, *handle.spawn(launch, streams)
        except ForkServerError:
            _discard(handle)
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def _forget() -> None:
    """In a fork of the referee: the servers belong to the parent (a child starts its own when it needs one); the
    child's copies of their sockets are closed, so that they still end when the referee does."""
    for handle in _servers.values():
        with contextlib.suppress(OSError):
            handle.socket.close()
    _servers.clear()


os.register_at_fork(after_in_child=_forget)


# ---- the server's side ----


def serve(fd: int, started: set[str], kind: str = BOTS) -> Launch:
    """The server's loop; returns (in a child, set up and confined) what the child is to run."""
    import importlib

    for name in PRELOAD[kind]:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    if kind == REFEREES:  # what the sandbox may do here: probed (in a forked child) once, not in every referee
        from arena.play.sandbox import capabilities

        capabilities()
    gc.collect()
    gc.freeze()  # what is imported stays shared with the children (no copy when their collector walks it)
    if kind == SERVERS:
        fd = _serve_servers(fd)  # returns in a child, a bots' server for one referee, with that referee's socket
    requests = socket.socket(fileno=fd)
    if kind == SERVERS:  # its pid, and a pidfd of itself: the referee knows it by that, not by a pid
        try:
            own = os.pidfd_open(os.getpid())
        except (AttributeError, OSError):  # before Linux 5.3, or refused: the referee goes by its start time
            own = -1
        _answer(requests, b"I %d" % os.getpid(), own)
        if own >= 0:
            os.close(own)
    wake_read, wake_write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch = select.poll()
    watch.register(requests, select.POLLIN)
    watch.register(wake_read, select.POLLIN)
    children: dict[int, str] = {}  # pid: "running", "ended" (reported, not reaped) or "released" (reap at its end)
    while True:
        with contextlib.suppress(InterruptedError):
            watch.poll()
        with contextlib.suppress(BlockingIOError):
            os.read(wake_read, 512)
        _report_ends(requests, children)
        try:
            request = requests.recv(32, socket.MSG_DONTWAIT)
        except BlockingIOError:
            continue
        except OSError:
            request = b""
        if not request:  # the referee is gone
            os._exit(0)
        if request.startswith(b"R "):
            _release(int(request[2:]), children)
            continue
        me = os.getpid()
        try:
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            try:
                pid = os.fork()
            except OSError:
                ours.close()
                theirs.close()
                raise
        except OSError as exc:  # this one process cannot start (its referee's tasks or memory are used up)
            _answer(requests, b"E %d" % (exc.errno or errno.EAGAIN))
            continue
        if pid == 0:
            die_with_parent()  # from the start: the server may die before the child has read its launch
            if os.getppid() != me:
                os._exit(127)  # it died before the line above
            requests.close()
            theirs.close()
            os.close(wake_read)
            os.close(wake_write)
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.default_int_handler)
            return _become_bot(ours, started)
        children[pid] = "running"
        ours.close()
        _answer(requests, b"P %d" % pid, theirs.fileno())
        theirs.close()


def _serve_servers(fd: int) -> int:
    """The loop of the server of bots' servers: for each ``S`` with a socket attached (a referee's) and the referee's
    stderr, fork a child that becomes a bots' server on that socket, with that stderr; returns in the child, that
    socket's descriptor. A fork that fails closes the socket: the referee starts a bots' server by exec. Ends when
    every end of its socket is closed."""
    requests = socket.socket(fileno=fd)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGCHLD, lambda *_: _reap_all())  # its children end with their referees
    while True:
        try:
            message, fds = _receive(requests, 16, 2)
        except OSError:
            message, fds = b"", []
        if not message:
            os._exit(0)
        if message != b"S" or len(fds) != 2:
            for extra in fds:
                os.close(extra)
            continue
        try:
            pid = os.fork()
        except OSError:
            pid = -1
        if pid == 0:
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            requests.close()
            os.dup2(fds[1], 2)
            os.close(fds[1])
            return fds[0]
        for fd in fds:
            os.close(fd)


def _reap_all() -> None:
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass


def _answer(requests: socket.socket, message: bytes, fd: int = -1) -> None:
    """Answer the referee's request (with a descriptor attached); if it is gone (killed while it asked), end: the
    children go with the server, as when it reads the end of its socket."""
    try:
        socket.send_fds(requests, [message], [fd] if fd >= 0 else [])
    except OSError:
        os._exit(0)


def _report_ends(requests: socket.socket, children: dict[int, str]) -> None:
    """Tell the referee of each child that has ended, leaving it a zombie: its pid (and process group and session)
    cannot be another process's until the referee, done killing and sweeping what it left, releases it (``R``), as
    with a child of its own."""
    for pid, state in list(children.items()):
        if state == "ended":
            continue
        try:
            info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            del children[pid]
            continue
        if info is None:
            continue
        if state == "released":
            _release(pid, children)
            continue
        code = info.si_status
        status = (
            (code & 0xFF) << 8
            if info.si_code == os.CLD_EXITED
            else code | (0x80 if info.si_code == os.CLD_DUMPED else 0)
        )
        children[pid] = "ended"
        with contextlib.suppress(OSError):
            requests.sendall(b"X %d %d" % (pid, status))


def _release(pid: int, children: dict[int, str]) -> None:
    """Reap a child the referee is done with (or, still running, reap it when it ends)."""
    if children.get(pid) == "running":
        children[pid] = "released"
        return
    children.pop(pid, None)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def _receive(sock: socket.socket, size: int, most: int, flags: int = 0) -> tuple[bytes, list[int]]:
    """A message and the descriptors that came with it (``socket.recv_fds`` of Python 3.11 ignores its flags)."""
    message, ancillary, _, _ = sock.recvmsg(size, socket.CMSG_LEN(most * 4), flags)
    fds: list[int] = []
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds += array.array("i", data[: len(data) - len(data) % 4])
    return message, fds


def _become_bot(channel: socket.socket, started: set[str]) -> Launch:  # pragma: no cover - in the server's child
    """In the child: take the launch and standard streams, confine itself, become the bot's (or the referee's)
    process (as ``subprocess.Popen`` would: streams, session, confinement, then every other descriptor closed)."""
    seed = -1  # a referee's: the coordinator's server of bots' servers
    try:
        message, fds = _receive(channel, _MAX_SPEC, 4)
        if len(fds) not in (3, 4):
            os._exit(127)  # the referee gave up on this child
        launch: Launch = pickle.loads(message)
        seed = fds[3] if len(fds) == 4 and launch.confinement is None else -1
        for target, fd in enumerate(fds[:3]):
            os.dup2(fd, target)
        for fd in set(fds) - {0, 1, 2, seed}:
            os.close(fd)
        os.setsid()
        os.chdir(launch.cwd)
    except BaseException as exc:
        detail = f"the bot's process could not be set up: {exc}"
        with contextlib.suppress(OSError):
            os.write(2, f"[arena: {detail}]\n".encode(errors="replace"))
        _set_up_failed(channel, detail)
    try:
        if launch.confinement is not None:
            launch.confinement.apply()  # says itself what failed, in the log
            # As an exec would: a process that changed its uid is not dumpable, which hides it (/proc/PID owned by
            # root, hidepid) from its own uid's processes, even from itself; nothing secret is in its memory.
            prctl(PR_SET_DUMPABLE, 1)
        else:
            die_with_parent()
    except BaseException as exc:
        _set_up_failed(channel, f"the sandbox could not be set up: {exc}")
    with contextlib.suppress(OSError):
        channel.send(SET_UP)
    if seed < 0:
        os.closerange(3, 1 << 16)  # the set-up socket too: from here on, what happens is the bot's doing
    else:
        os.closerange(3, seed)
        os.closerange(seed + 1, 1 << 16)
        global _seed
        os.set_inheritable(seed, False)
        _seed = socket.socket(fileno=seed)
    os.environ.clear()
    os.environ.update(launch.env)
    _show_as_execd(launch.argv, launch.env)
    if launch.argv[1] == "-c":  # python -c CODE: sys.path as the server for referees has it (its folder first)
        sys.argv = ["-c", *launch.argv[3:]]
    else:
        sys.argv = list(launch.argv[1:])
        folder = os.path.dirname(os.path.realpath(launch.argv[1]))
        sys.path.insert(0, folder)
        _unshadow(folder, started)
    sys.stdin, sys.stdout, sys.stderr = (_stream(fd) for fd in (0, 1, 2))
    return launch


def _set_up_failed(channel: socket.socket, detail: str) -> NoReturn:  # pragma: no cover - in the server's child
    """Tell the referee why this child could not become the bot's process, and end."""
    with contextlib.suppress(OSError):
        channel.send(detail.encode(errors="replace")[:4096])
    os._exit(127)


def _unshadow(folder: str, started: set[str]) -> None:  # pragma: no cover - runs in the server's child
    """Where the bot's folder shadows a module the server imported (its own ``zmq.py``, a copy of ``arena``), forget
    every module the server imported: the bot imports them afresh, its own first, as ``python script.py`` would (the
    script's folder comes first on ``sys.path``). Such a bot starts as slowly as by exec."""
    import importlib.machinery

    imported = [name for name in sys.modules if name not in started]
    tops = {name.partition(".")[0] for name in imported}
    if any(importlib.machinery.PathFinder.find_spec(top, [folder]) is not None for top in tops):
        for name in imported:  # all of them: a module the bot imports must see its copy, as its other imports do
            del sys.modules[name]


def _show_as_execd(argv: tuple[str, ...], env: dict[str, str]) -> None:  # pragma: no cover - in the server's child
    """Make /proc/self/cmdline and /proc/self/environ show the bot's command and environment, as after an exec
    (``ps``, tools and tests read them there).

    Those files show the memory where the server's arguments and environment were passed at its start, which nothing
    uses any more (``os.environ.clear`` took the environment's strings out of the C library's list): they are
    overwritten in place, NUL-padded. The server's command and environment end in long fillers (``ROOM``) to make
    room for a bot's.
    """
    fields = stat_fields("self")
    if fields is None or len(fields) <= ENV_END:
        return
    for (first, last), strings in ((ARGS, argv), (ENVIRONMENT, [f"{k}={v}" for k, v in env.items()])):
        start, end = int(fields[first]), int(fields[last])
        text = b"".join(s.encode(errors="replace") + b"\0" for s in strings)
        if 0 < start < end and len(text) <= end - start:
            ctypes.memmove(start, text.ljust(end - start, b"\0"), end - start)


def _stream(fd: int) -> io.TextIOWrapper:  # pragma: no cover - runs in the server's child
    """A standard stream on ``fd`` as CPython makes it for a bot (PYTHONUNBUFFERED, UTF-8, not a terminal)."""
    writing = fd != 0
    raw = io.FileIO(fd, "wb" if writing else "rb", closefd=False)
    binary = raw if writing else io.BufferedReader(raw)
    errors = "backslashreplace" if fd == 2 else "strict"
    stream = io.TextIOWrapper(binary, encoding="utf-8", errors=errors, newline="\n", write_through=writing)
    stream.mode = "w" if writing else "r"  # type: ignore[misc]
    return stream


def main(started: set[str]) -> None:
    """``SERVER_COMMAND FD ROOM KIND``: serve on the socket FD, preloading for KIND; in each child, run the bot's
    script as ``python script.py`` would, or a referee's code as ``python -c`` would (an uncaught exception: its
    traceback, from the script's frames on, and exit code 1). ``started``: the modules the interpreter held before
    it imported this one.

    A bot ends as the interpreter ends, by its teardown of every module, which copies most of the memory the child
    shared with its server (11-13 ms of processor time a bot). Ending without it was tried and given up: a bot's
    objects left to the collector are finalized in an order that can lose what a file left open still buffers
    (CPython's teardown avoids it), and ``__del__`` methods then see their globals gone or not, unlike CPython.
    A referee, the arena's own code, which holds nothing to finalize, ends without it (``_end``)."""
    kind = sys.argv[3] if len(sys.argv) > 3 else BOTS
    launch = serve(int(sys.argv[1]), started, kind)
    code = launch.argv[2] if launch.argv[1] == "-c" else None
    script = "<string>" if code is not None else launch.argv[1]
    status = 0
    if kind != REFEREES:  # registered first, so run last: after the bot's own atexit functions
        atexit.register(_spare_the_servers_modules, set(sys.modules) - started)
    # The code runs in a __main__ that stays in sys.modules to the end, as under python script.py (runpy.run_path's
    # goes at once): what its globals hold is let go by the interpreter's teardown of __main__, in CPython's order.
    module = sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        if code is None:  # the globals runpy.run_path gives a script file
            with io.open_code(os.path.abspath(script)) as source:
                compiled = compile(source.read(), script, "exec")
            module.__dict__.update(__file__=script, __cached__=None, __loader__=None, __package__="", __spec__=None)
        else:
            compiled = compile(code, script, "exec")
        del module  # sys.modules holds it
        exec(compiled, sys.modules["__main__"].__dict__)
    except SystemExit as stop:
        if kind != REFEREES:
            raise
        status = _exit_status(stop)
    except BaseException as exc:
        trace = exc.__traceback__
        while trace is not None and trace.tb_frame.f_code.co_filename != script:
            trace = trace.tb_next
        trace = trace or exc.__traceback__
        _report(exc.with_traceback(trace))
        if isinstance(exc, KeyboardInterrupt):  # as CPython ends: by the signal itself
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        status = 1
    if kind != REFEREES:
        sys.exit(status)
    _end(status)


def _report(exc: BaseException) -> None:  # pragma: no cover - runs in the server's child
    """Print an uncaught exception with ``sys.excepthook``, as CPython does, also when the hook itself fails."""
    try:
        sys.excepthook(type(exc), exc, exc.__traceback__)
    except BaseException as failure:
        failure.__context__ = None  # it arose while the original was being handled: CPython shows it alone
        with contextlib.suppress(BaseException):
            print("Error in sys.excepthook:", file=sys.stderr)
            trace = failure.__traceback__.tb_next if failure.__traceback__ else None  # from the hook's frame on
            sys.__excepthook__(type(failure), failure.with_traceback(trace), trace)
            print("\nOriginal exception was:", file=sys.stderr)
            sys.__excepthook__(type(exc), exc, exc.__traceback__)


def _spare_the_servers_modules(imported: set[str]) -> None:  # pragma: no cover - runs in the server's child
    """At a bot's exit, after its threads and its atexit functions: keep the interpreter's teardown off the modules
    the fork server imported (``imported``), which the bot shares with it, so that the teardown does not copy them.

    They leave ``sys.modules`` (which the teardown clears and collects) and are held for ever (a reference of our
    own that nothing releases), so that neither their globals nor what those hold is let go: 11-13 ms of processor
    time a bot, most of its end. What the bot made (``__main__``, the modules it imported, the objects it left in
    them) goes through the teardown as under ``python script.py``; a global of the bot naming such a module still
    finds it whole (where CPython might have cleared it first)."""
    import ctypes

    for name in imported:  # (sys, builtins and __main__ were there before the server: not among them)
        module = sys.modules.get(name)
        if isinstance(module, types.ModuleType):
            ctypes.pythonapi.Py_IncRef(ctypes.py_object(module))
            del sys.modules[name]


def _exit_status(stop: SystemExit) -> int:  # pragma: no cover - runs in the server's child
    """The exit status CPython gives an uncaught ``SystemExit`` (its message printed first, as CPython does): its
    code as a C long (-1 past one), 0 for None, else the code printed on stderr and 1."""
    if stop.code is None:
        return 0
    if isinstance(stop.code, int):
        value = int.__int__(stop.code)  # its value, whatever its class makes of operators
        return (value if -(2**63) <= value < 2**63 else -1) & 0xFF
    try:
        text = f"{stop.code}\n"
    except Exception:  # CPython writes what it can: here, the line's end
        text = "\n"
    with contextlib.suppress(Exception):
        if sys.stderr is None:
            os.write(2, text.encode(errors="backslashreplace"))
        else:
            sys.stderr.write(text)
    return 1


def _end(status: int) -> NoReturn:  # pragma: no cover - runs in the server's child
    """End a forked referee as the interpreter's exit would, less the teardown of every module (as
    ``multiprocessing`` ends the children it forks): 11-13 ms of processor time less for each. In CPython's order:
    non-daemon threads are waited for, ``atexit`` functions run, standard output and error are flushed (a failure
    to: status 120)."""
    threads = sys.modules.get("threading")
    try:
        if threads is not None:
            threads._shutdown()
    except BaseException as exc:  # interrupted while waiting: CPython says so and goes on
        _say_ignored("on threading shutdown", exc)
    atexit._run_exitfuncs()
    failed = False
    for stream in (sys.stdout, sys.stderr):
        if stream is None:
            continue
        try:
            if stream.closed:
                continue
        except Exception:  # no such attribute, or it fails: CPython takes the stream for open
            pass
        try:
            stream.flush()
        except Exception as exc:
            failed = True
            if stream is sys.stdout:
                _say_ignored(f"in: {stream!r}", exc)
    os._exit(120 if failed else status)


def _say_ignored(where: str, exc: BaseException) -> None:  # pragma: no cover - runs in the server's child
    """Report an exception the exit goes past, as CPython does (``Exception ignored ...``), on stderr if it can."""
    import traceback

    with contextlib.suppress(Exception):
        sys.stderr.write(f"Exception ignored {where}\n" + "".join(traceback.format_exception_only(exc)))
        sys.stderr.flush()
