"""Bot processes: finding a bot's command, starting it confined (arena.play.sandbox), its capped log, killing it."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import IO, Literal, Protocol

from arena.errors import ArenaError
from arena.play import forkserver
from arena.play.linux import children_of, die_with_parent, readable
from arena.play.matchspec import BotEntry, runtime_options
from arena.play.runtimes import compiled_java, runtime_of
from arena.play.sandbox import Confinement, Jail, plain_environment, track, transport_environment

BUNDLED_DIR = Path(__file__).resolve().parent.parent / "bots"  # inside the package, so that a wheel carries them
BUNDLED = ("random", "heuristic", "search")
LOG_LIMIT = 1024 * 1024


class BotNotFoundError(ArenaError):
    """A bot name or path does not lead to something that can be run."""


Transport = Literal["zmq", "stdio"]
STDIO_PREFIX = "stdio:"
# Scripts run by an interpreter found on PATH, by their suffix (a ``.py`` runs with the arena's own Python).
# The JVM's own warnings go to stderr (by default they go to stdout, which is a stdio bot's channel).
_JVM = ("java", "-Xlog:disable", "-Xlog:all=warning:stderr")
INTERPRETERS = {".js": ("node",), ".mjs": ("node",), ".java": _JVM, ".jar": (*_JVM, "-jar")}


@dataclass(frozen=True, slots=True)
class BotCommand:
    """How to start a bot: a display name, the argv (its runtime and program), how it talks (ZeroMQ, or lines on
    stdin/stdout), the arguments for its program and the flags for its runtime (an entrant's: arena.play.runtimes
    puts the command line together), and the file whose content is its version when that is not ``argv[-1]`` (the
    source of a ``.java`` run from its compiled jar)."""

    name: str
    argv: tuple[str, ...]
    transport: Transport = "zmq"
    args: tuple[str, ...] = ()
    runtime_flags: tuple[str, ...] = ()
    source: str | None = None

    @property
    def program(self) -> str:
        """The file whose content is the bot's version (its digest fingerprints the bot's games)."""
        return self.source or self.argv[-1]

    def entry(self, name: str | None = None) -> BotEntry:
        """The match's entry for this bot, under ``name`` (default: its own)."""
        return BotEntry(
            name=self.name if name is None else name,
            argv=list(self.argv),
            transport=self.transport,
            args=list(self.args),
            runtime_flags=list(self.runtime_flags),
        )

    def given(self, *, args: tuple[str, ...] = (), runtime_flags: tuple[str, ...] = ()) -> BotCommand:
        """This bot with arguments for its program and flags for its runtime (java, node or python): BotNotFoundError
        if it has no runtime to give them to, or a flag is not an option in one word."""
        if runtime_flags and runtime_of(self.argv) is None:
            raise BotNotFoundError(
                f"bot {self.name!r} runs as an executable of its own: runtime flags are for a .py, .js, .java or .jar"
            )
        try:
            runtime_options(runtime_flags)
        except ArenaError as exc:
            raise BotNotFoundError(f"bot {self.name!r}: {exc}") from None
        return dataclasses.replace(self, args=tuple(args), runtime_flags=tuple(runtime_flags))


def resolve_bot(spec: str) -> BotCommand:
    """A bundled bot's name (``random``, ``heuristic``), or a script path, prefixed ``stdio:`` for a bot that speaks
    JSON lines on its stdin and stdout. A ``.py`` runs with this Python, a ``.js`` with ``node``, a ``.java`` with
    ``java`` (compiled once into the arena's cache, then run as a ``.jar``: arena.play.runtimes), a ``.jar`` with
    ``java -jar``; anything else must be executable. BotCompileError for a ``.java`` that does not compile."""
    transport: Transport = "zmq"
    if spec.startswith(STDIO_PREFIX):
        spec, transport = spec.removeprefix(STDIO_PREFIX), "stdio"
    if spec in BUNDLED and (BUNDLED_DIR / f"{spec}_bot.py").is_file():
        return BotCommand(spec, (sys.executable, str(BUNDLED_DIR / f"{spec}_bot.py")), transport)
    path = Path(spec)
    if not path.is_file():
        known = ", ".join(b for b in BUNDLED if (BUNDLED_DIR / f"{b}_bot.py").is_file())
        raise BotNotFoundError(f"no bot {spec!r}: not a bundled bot ({known}) and no such file")
    name = path.stem.removesuffix("_bot")
    if path.suffix == ".py":
        return BotCommand(name, (sys.executable, str(path.resolve())), transport)
    if path.suffix in INTERPRETERS:
        program, *flags = INTERPRETERS[path.suffix]
        found = shutil.which(program)
        if found is None:
            raise BotNotFoundError(f"bot {spec!r} needs {program!r}, which is not on PATH")
        if path.suffix == ".java":  # compiled now, outside any clock; its source stays its version
            jar = compiled_java(path.resolve(), name)
            return BotCommand(name, (found, *flags, "-jar", str(jar)), transport, source=str(path.resolve()))
        return BotCommand(name, (found, *flags, str(path.resolve())), transport)
    if not os.access(path, os.X_OK):
        raise BotNotFoundError(f"bot {spec!r} is not executable (chmod +x it, or give a .py, .js or .java script)")
    return BotCommand(name, (str(path.resolve()),), transport)


def file_digest(path: str) -> str:
    """Short sha256 of a file's content: a bot's version."""
    import hashlib

    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:12]


class Process(Protocol):
    """What the referee needs of a bot's process: a ``BotProcess``, or the stand-in of a scripted bot
    (arena.play.scripted) in tests that need no real process."""

    token: str  # the secret its hello must carry
    command: BotCommand

    @property
    def pid(self) -> int:
        """The process id (also its process group id)."""

    def alive(self) -> bool:
        """Whether the process is still running."""

    def wait_until(self, deadline: float) -> bool:
        """Wait for the process to end, until ``deadline`` (``time.monotonic()``) at most; whether it has ended."""

    def exit_description(self) -> str:
        """How the process ended, for a violation record."""

    def death_kind(self) -> Literal["memory", "crash"]:
        """The violation a dead bot is charged with."""

    def check_set_up(self) -> None:
        """Raise ``BotStartError`` if the process ended before it ran the bot's code (the arena's failure)."""

    def favour(self, asked: bool) -> None:
        """Give the bot's tree the processor while it is asked, and little while another bot is."""

    def kill(self) -> None:
        """Kill the process and everything it started."""


class BotStartError(ArenaError):
    """A bot process could not be started (its program cannot run, or its sandbox cannot be set up)."""


class BotProcess:
    """One running bot: its own session (process group), output to a size-capped log, a fresh secret token.

    With a ``jail`` the bot also runs confined (its own uid, limits, filesystem view, no network: arena.play.sandbox);
    without one it only gets the scrubbed environment and its own session.
    """

    def __init__(
        self,
        command: BotCommand,
        endpoint: str,
        log_path: Path,
        *,
        jail: Jail | None = None,
        log_limit: int = LOG_LIMIT,
    ) -> None:
        self.command = command
        self.token = secrets.token_hex(16)
        self.jail = jail
        log_path.parent.mkdir(parents=True, exist_ok=True)
        if jail is not None and (not log_path.exists() or log_path.stat().st_size < log_limit):
            # each process's first line in the log: how it is confined (counted in the log's cap like the rest)
            with os.fdopen(os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600), "a") as log:
                log.write(f"[arena: {jail.describe()}]\n")
        argv = _absolute(command.argv)
        stdio = command.transport == "stdio"
        reason: list[str] = []  # why an exec'd process could not be set up
        try:
            env, confinement = self._confinement(argv, endpoint)
            self.process: subprocess.Popen[bytes] | forkserver.ForkedProcess
            if forkserver.eligible(argv):  # a Python script: forked from a warm interpreter with the SDK imported
                launch = forkserver.Launch(argv, env, os.getcwd(), confinement)
                self.process = forkserver.spawn(launch, stdio=stdio)
            else:
                with _set_up_reason(reason) as told:
                    self.process = subprocess.Popen(
                        argv,
                        stdin=subprocess.PIPE if stdio else subprocess.DEVNULL,
                        stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE if stdio else subprocess.STDOUT,
                        env=env,
                        start_new_session=True,
                        close_fds=True,
                        preexec_fn=die_with_parent if confinement is None else partial(_confine, confinement, told),
                        bufsize=0,
                    )
        except (OSError, subprocess.SubprocessError, ArenaError) as exc:
            if jail is not None:
                jail.release()
            why = f"the sandbox could not be set up: {reason[0]}" if reason else exc
            raise BotStartError(f"cannot start bot {command.name!r} ({' '.join(argv)}): {why}") from None
        track(self.process.pid, alive=True)
        assert self.process.stdout is not None
        # stdio: the bot's stdin and stdout are its channel (protocol.md: the stdio transport), its stderr its log
        self.pipes: tuple[int, int] | None = None
        output = self.process.stdout
        if stdio:
            assert self.process.stdin is not None and self.process.stderr is not None
            self.pipes = (self.process.stdin.fileno(), self.process.stdout.fileno())
            output = self.process.stderr
        self._log = threading.Thread(target=_copy_capped, args=(output, log_path, log_limit), daemon=True)
        self._log.start()

    def _confinement(self, argv: tuple[str, ...], endpoint: str) -> tuple[dict[str, str], Confinement | None]:
        """The bot's environment and what its process does to itself before it runs the bot (its jail's; None:
        nothing but dying with its parent)."""
        if self.jail is not None:
            return self.jail.environment(endpoint, self.token), self.jail.confinement(argv, endpoint)
        env = {
            **plain_environment(),
            "HOME": os.environ.get("HOME", "/"),
            **transport_environment(endpoint),
            "ARENA_TOKEN": self.token,
        }
        return env, None

    def check_set_up(self) -> None:
        """Raise ``BotStartError`` if the process ended before it ran the bot's code: its set-up or confinement
        failed, which is the arena's failure, not a violation of the bot's. (A forked process says so on a socket
        that it closes before the bot's code runs; an exec'd one made its start fail at once.)"""
        if not isinstance(self.process, forkserver.ForkedProcess):
            return
        self._not_lost()  # a process that died with its server (ForkServerLost): not a failed set-up either
        if (why := self.process.set_up_failure()) is not None:
            raise BotStartError(f"cannot start bot {self.command.name!r}: {why}")

    def favour(self, asked: bool) -> None:
        """Give the bot's tree the processor while it is asked, and only what nobody else wants while another bot
        is (its cgroup's ``favour``). Without a cgroup nothing: the tree's one session is one scheduler autogroup
        with an equal share (a session's autogroup cannot be turned down and back up a request at a time: the
        kernel takes at most ten such changes a second from a process without CAP_SYS_ADMIN)."""
        cgroup = self.jail.cgroup if self.jail is not None else None
        if cgroup is not None:
            cgroup.favour(asked)

    @property
    def pid(self) -> int:
        """The process id (also its process group id)."""
        return self.process.pid

    def alive(self) -> bool:
        """Whether the process is still running."""
        return self.process.poll() is None

    def wait_until(self, deadline: float) -> bool:
        """Wait for the process to end, until ``deadline`` (``time.monotonic()``) at most; whether it has ended.

        Its end wakes the wait: a forked bot's server reports it, and a pidfd becomes readable when a bot started by
        exec exits (``Popen.wait`` would sleep up to 50 ms between looks)."""
        if isinstance(self.process, forkserver.ForkedProcess):
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=max(0.0, deadline - time.monotonic()))
        elif self.process.poll() is None:
            try:
                fd = os.pidfd_open(self.process.pid)
            except (AttributeError, OSError):  # no pidfds here (not Linux, before 5.3, refused): look every 10 ms
                while self.alive() and time.monotonic() < deadline:
                    time.sleep(0.01)
            else:
                try:
                    readable(fd, deadline - time.monotonic())
                finally:
                    os.close(fd)
        return not self.alive()

    def exit_description(self) -> str:
        """How the process ended, for a violation record. Raises ``ForkServerLost`` for a bot that died with its
        fork server: not its doing, and no violation to record."""
        code = self.process.poll()
        if code is None:
            return "still running"
        self._not_lost()
        if self.memory_killed():
            return f"killed by the kernel at its memory limit ({self.jail.limits.memory_mb} MiB)"  # type: ignore[union-attr]
        if code < 0:
            return f"killed by signal {signal.Signals(-code).name}"
        return f"exited with code {code}"

    def memory_killed(self) -> bool:
        """Whether the kernel killed a process of the bot for going past its memory limit (where cgroups tell)."""
        return self.jail is not None and self.jail.memory_killed()

    def death_kind(self) -> Literal["memory", "crash"]:
        """The violation a dead bot is charged with: ``memory`` past its memory limit, else ``crash`` (raises
        ``ForkServerLost`` as ``exit_description`` does)."""
        self._not_lost()
        return "memory" if self.memory_killed() else "crash"

    def _not_lost(self) -> None:
        """Raise ``ForkServerLost`` if the process died with its fork server (not its doing)."""
        if isinstance(self.process, forkserver.ForkedProcess) and self.process.lost:  # known once poll() saw its end
            raise forkserver.ForkServerLost(f"bot {self.command.name!r} died with the referee's fork server")

    def kill(self) -> None:
        """Kill the whole process group and everything else the bot started, reap it, and free its sandbox."""
        inside = children_of(self.process.pid) if self.jail is not None and self.jail.monitored else []
        if inside and self.process.poll() is None:  # (none yet, or not listed here: killed by group as before)
            # The bot first: pid 1 of its namespace, the child of a monitor (the process we know), which sees it end
            # and ends the same way. Killed with it, the monitor went first and left the bot, which ends after the
            # rest of its namespace, a zombie for the host's pid 1 (not root: for us) to reap, one a killed bot, for
            # ever where nobody does (an arena that is pid 1 in a container; a referee that plays many matches).
            if self.jail is not None and self.jail.uid is not None:
                self.jail.sweep(self.process.pid)  # every process of its uid
            for bot in inside:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(bot, signal.SIGKILL)
            self.wait_until(time.monotonic() + 1.0)
        # Once a child of ours has ended, poll() has reaped it and its pid may come round to another process: its
        # jail's sweep finds what it left instead. (A fork server's child stays unreaped until release() below.)
        if self.process.poll() is None or self.jail is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
        if self.jail is not None:
            self.jail.sweep(self.process.pid)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)
        if isinstance(self.process, forkserver.ForkedProcess):
            self.process.release()  # its pid was its own up to here
        track(self.process.pid, alive=False)
        if self.pipes is not None:
            for stream in (self.process.stdin, self.process.stdout):
                with contextlib.suppress(OSError):
                    stream.close()  # type: ignore[union-attr]
        self._log.join(timeout=2)
        if self.jail is not None:
            self.jail.release()
            self.jail = None


@contextlib.contextmanager
def _set_up_reason(reason: list[str]) -> Iterator[int]:
    """A pipe for the exec'd child to say why its confinement failed (``_confine``), read into ``reason`` after
    the start (which then raised: Python's own message says only that the child's set-up failed)."""
    reading, writing = os.pipe2(os.O_CLOEXEC)
    try:
        yield writing
    finally:
        os.close(writing)
        with os.fdopen(reading, "rb") as said:
            if text := said.read(4096):
                reason.append(text.decode(errors="replace"))


def _confine(confinement: Confinement, told: int) -> None:  # pragma: no cover - in the child, before its exec
    try:
        confinement.apply()
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.write(told, str(exc).encode(errors="replace")[:4096])
        raise


def _absolute(argv: tuple[str, ...]) -> tuple[str, ...]:
    """The program and its script as absolute paths when they are relative ones: a bot runs in its own directory."""
    head = tuple(os.path.abspath(a) if not os.path.isabs(a) and os.path.isfile(a) else a for a in argv[:2])
    return head + argv[2:]


def _copy_capped(stream: IO[bytes], path: Path, limit: int) -> None:
    """Copy a bot's output to its log until the file holds ``limit`` bytes, then note the cut and drain the rest.

    The cap is per log file: a restarted bot appends to the same log and shares what is left of the limit.
    """
    written = path.stat().st_size if path.exists() else 0
    if written >= limit:
        written = limit + 1  # already cut: drain silently
    # private to the referee's user: a bot running under another uid must not read its opponents' logs
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600), "ab") as log:
        while chunk := stream.read1(65536) if hasattr(stream, "read1") else stream.read(65536):
            if written < limit:
                part = chunk[: limit - written]
                log.write(part)
                log.flush()
                written += len(part)
                if written >= limit:
                    log.write(b"\n[arena: log truncated at the size limit]\n")
                    log.flush()
    stream.close()
