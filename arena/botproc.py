"""Bot processes: finding a bot's command, starting it in its own session, its capped log, killing it for good."""

from __future__ import annotations

import contextlib
import ctypes
import os
import secrets
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from arena.errors import ArenaError

BUNDLED_DIR = Path(__file__).resolve().parent.parent / "bots"
BUNDLED = ("random", "heuristic", "search")
LOG_LIMIT = 1024 * 1024


class BotNotFoundError(ArenaError):
    """A bot name or path does not lead to something that can be run."""


@dataclass(frozen=True, slots=True)
class BotCommand:
    """How to start a bot: a display name and the argv."""

    name: str
    argv: tuple[str, ...]


def resolve_bot(spec: str) -> BotCommand:
    """A bundled bot's name (``random``, ``heuristic``) or a script path: ``.py`` runs with this Python."""
    if spec in BUNDLED and (BUNDLED_DIR / f"{spec}_bot.py").is_file():
        return BotCommand(spec, (sys.executable, str(BUNDLED_DIR / f"{spec}_bot.py")))
    path = Path(spec)
    if not path.is_file():
        known = ", ".join(b for b in BUNDLED if (BUNDLED_DIR / f"{b}_bot.py").is_file())
        raise BotNotFoundError(f"no bot {spec!r}: not a bundled bot ({known}) and no such file")
    name = path.stem.removesuffix("_bot")
    if path.suffix == ".py":
        return BotCommand(name, (sys.executable, str(path.resolve())))
    if not os.access(path, os.X_OK):
        raise BotNotFoundError(f"bot {spec!r} is not executable (chmod +x it, or give a .py script)")
    return BotCommand(name, (str(path.resolve()),))


def die_with_parent() -> None:
    """In a child between fork and exec: ask Linux to SIGKILL it when its parent dies (no-op elsewhere)."""
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _load_prctl() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _load_prctl()


def file_digest(path: str) -> str:
    """Short sha256 of a file's content: a bot's version."""
    import hashlib

    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:12]


class BotProcess:
    """One running bot: its own session (process group), output to a size-capped log, a fresh secret token."""

    def __init__(self, command: BotCommand, endpoint: str, log_path: Path, *, log_limit: int = LOG_LIMIT) -> None:
        self.command = command
        self.token = secrets.token_hex(16)
        log_path.parent.mkdir(parents=True, exist_ok=True)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": os.environ.get("HOME", "/"),
            "LANG": "C.UTF-8",
            "PYTHONUNBUFFERED": "1",
            "ARENA_ENDPOINT": endpoint,
            "ARENA_TOKEN": self.token,
        }
        if "PYTHONPATH" in os.environ:
            env["PYTHONPATH"] = os.environ["PYTHONPATH"]
        self.process = subprocess.Popen(
            command.argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
            close_fds=True,
            preexec_fn=die_with_parent,
        )
        assert self.process.stdout is not None
        self._log = threading.Thread(target=_copy_capped, args=(self.process.stdout, log_path, log_limit), daemon=True)
        self._log.start()

    @property
    def pid(self) -> int:
        """The process id (also its process group id)."""
        return self.process.pid

    def alive(self) -> bool:
        """Whether the process is still running."""
        return self.process.poll() is None

    def exit_description(self) -> str:
        """How the process ended, for a violation record."""
        code = self.process.poll()
        if code is None:
            return "still running"
        if code < 0:
            return f"killed by signal {signal.Signals(-code).name}"
        return f"exited with code {code}"

    def kill(self) -> None:
        """Kill the whole process group and reap the process."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)
        self._log.join(timeout=2)


def _copy_capped(stream: IO[bytes], path: Path, limit: int) -> None:
    """Copy a bot's output to its log until the file holds ``limit`` bytes, then note the cut and drain the rest.

    The cap is per log file: a restarted bot appends to the same log and shares what is left of the limit.
    """
    written = path.stat().st_size if path.exists() else 0
    if written >= limit:
        written = limit + 1  # already cut: drain silently
    with open(path, "ab") as log:
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
