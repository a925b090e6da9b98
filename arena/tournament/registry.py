"""Submitted bots: validated by a handshake and a seeded smoke game, then kept as versioned copies.

A bot's version is the content hash of its script. The registry keeps a copy of every version under its home
directory (``.arena/`` in the working directory, or ``$ARENA_HOME``), so a registered version keeps running the
same code even if the original file changes.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ArenaError
from arena.play.botproc import BUNDLED, STDIO_PREFIX, BotCommand, file_digest, resolve_bot
from arena.play.matchspec import DEFAULT_TIME, BotEntry, GameSpec, MatchSpec
from arena.tournament.store import BotRow, Store

NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,39}$")


class SubmitError(ArenaError):
    """A bot failed validation; nothing was registered."""


@dataclass(frozen=True, slots=True)
class Validation:
    """What the smoke game showed."""

    ok: bool
    problems: list[str]
    games: int


class Registry:
    """The registered bots of this working directory (or of ``$ARENA_HOME``)."""

    def __init__(self, home: Path) -> None:
        self.home = home

    @classmethod
    def default(cls) -> Registry:
        """The registry at ``$ARENA_HOME`` or ``./.arena``."""
        return cls(Path(os.environ.get("ARENA_HOME", ".arena")))

    @property
    def db_path(self) -> Path:
        """The registry database."""
        return self.home / "registry.db"

    def lookup(self, name: str) -> BotCommand | None:
        """The command of the latest registered version of ``name``, or None if no such bot is registered."""
        if not self.db_path.exists():
            return None
        with Store.open(self.db_path, create=False) as store:
            row = store.bot(name)
        return None if row is None else _command(name, Path(row.path), row.meta.get("transport", "zmq"))

    def bots(self) -> list[BotRow]:
        """Every registered version."""
        if not self.db_path.exists():
            return []
        with Store.open(self.db_path, create=False) as store:
            return store.bots()

    def submit(
        self, path: str, *, name: str | None = None, time: str = DEFAULT_TIME
    ) -> tuple[BotRow | None, bool, Validation]:
        """Validate the bot at ``path`` and register it; returns (row, newly added, validation)."""
        command = resolve_bot(path)
        source = Path(command.program)  # a .java's source, not the jar it was compiled into
        name = name or command.name
        if name in BUNDLED:
            raise SubmitError(f"bot name {name!r} is a bundled bot's: choose another (--name)")
        if not NAME.match(name):
            raise SubmitError(f"bot name {name!r} must start with a letter and use letters, digits, _ . - (max 40)")
        validation = validate(command, time=time)
        if not validation.ok:
            return None, False, validation
        version = file_digest(str(source))
        target = self.home / "bots" / name / f"{version}{source.suffix}"
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            shutil.copy2(source, target)
        with Store.open(self.db_path) as store:
            meta = {"source": str(source.resolve()), "transport": command.transport}
            added = store.register_bot(name, version, str(target.resolve()), version, meta)
            row = store.bot(name, version)
        return row, added, validation


def _command(name: str, path: Path, transport: object) -> BotCommand:
    """How to start a registered copy: as ``resolve_bot`` would start the file, with the transport it was submitted
    with (``stdio:`` or not; ``transport`` as the registry holds it)."""
    command = resolve_bot(f"{STDIO_PREFIX}{path}" if transport == "stdio" else str(path))
    return dataclasses.replace(command, name=name)


def validate(command: BotCommand, *, time: str = DEFAULT_TIME, games: int = 2) -> Validation:
    """Handshake, then a short seeded two-hand match against ``random`` under the time control."""
    # Here, not at the top: the referee (and zmq under it) is for submitting alone; a tournament's coordinator reads
    # its entrants from the registry but forks its referees from a server that imported them.
    from arena.play.referee import run_match

    opponent = resolve_bot("random")
    with tempfile.TemporaryDirectory(prefix="arena-submit-") as logs:
        spec = MatchSpec(
            match_id="submit",
            variant="two-hand",
            bots=[
                BotEntry(name="candidate", argv=list(command.argv), transport=command.transport),
                BotEntry(name="random", argv=list(opponent.argv)),
            ],
            games=[GameSpec(seed=g // 2, seating=[0, 1] if g % 2 == 0 else [1, 0]) for g in range(games)],
            time=time,
            max_strikes=1,
            log_dir=logs,
        )
        records = run_match(spec)
        log_tail = _tail(Path(logs))
    problems: list[str] = []
    for record in records:
        for v in record.get("violations", []):
            if record["players"][v["seat"]] == "candidate":
                problems.append(f"game {record['game_index'] + 1}: {v['kind']}: {v['detail']}")
    if problems and log_tail:
        problems.append(f"the bot's output ended with:\n{log_tail}")
    return Validation(not problems, problems, len(records))


def _tail(logs: Path) -> str:
    texts = [p.read_text(errors="replace") for p in sorted(logs.glob("*candidate*.log"))]
    text = "".join(texts).strip()
    return "\n".join(text.splitlines()[-8:])
