"""What a referee needs to run a match, serializable so that any executor can carry it: the bots and their commands,
the games, the clock and policy, and the limits every bot process runs under (arena.play.sandbox enforces them).

Plain frozen dataclasses, read from JSON by ``from_json`` with every value checked strictly (an error names the
key): a referee process starts without a validation library, ~140 ms sooner. The tournament config validates its
``[limits]`` table through a pydantic mirror of ``Limits`` built from these fields (arena.tournament.config), with
the same bounds and descriptions; tests/play/test_matchspec.py keeps the two in agreement.
"""

from __future__ import annotations

import dataclasses
import math
import os
import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar, Union, get_args, get_origin, get_type_hints

from arena.errors import ArenaError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


class SpecError(ArenaError, ValueError):
    """A match spec (or its limits) has an unknown key, a missing one, or a value of the wrong kind."""


def _about(description: str, **bounds: float) -> dict[str, str | float]:
    """A field's metadata: its meaning (the config reference prints it) and its bounds (``ge``, ``gt``)."""
    return {"description": description, **bounds}


# Folders of which a bot's private view has its own (arena.play.sandbox): shown the host's, it would have no /tmp
# to make its home in, or no /dev, /proc of its own.
OWN_FOLDERS = ("/", "/tmp", "/var", "/var/tmp", "/dev", "/dev/shm", "/proc", "/sys")


def exposable(paths: tuple[str, ...]) -> tuple[str, ...]:
    """``paths``, if every one is absolute and none is a folder of which a bot has its own; SpecError (a ValueError)
    naming the first that is not."""
    for path in paths:
        if not os.path.isabs(path):
            raise SpecError(f"{path!r} is not an absolute path")
        if os.path.normpath(path) in OWN_FOLDERS:
            raise SpecError(f"{path!r} is one of the folders each bot has its own of: name a folder inside it")
    return paths


MIN_OPEN_FILES = 16  # a bot process's descriptors, at the least (its streams, its endpoint, a runtime's files)


@dataclass(frozen=True, slots=True)
class Limits:
    """What each bot process may use. Enforcement depends on the OS and on running as root (SECURITY.md)."""

    memory_mb: int = field(
        default=1024,
        metadata=_about(
            "Resident memory of the bot's whole process tree, no swap (its cgroup); where there are no cgroups, "
            "address_space_mb per process stands in",
            ge=64,
        ),
    )
    address_space_mb: int = field(
        default=8192,
        metadata=_about(
            "Address space per process (RLIMIT_AS), only where no cgroup limits memory: high enough for a JVM "
            "(4 GiB) or Node to start, which reserve far more than they touch",
            ge=64,
        ),
    )
    cpu_seconds: int = field(default=600, metadata=_about("CPU time per process (RLIMIT_CPU), then it is killed", ge=1))
    processes: int = field(
        default=64,
        metadata=_about(
            "Processes and threads of the bot at once (its cgroup's pids.max, and RLIMIT_NPROC): a JVM needs 14 or "
            "more",
            ge=1,
        ),
    )
    cpu_cores: float | None = field(
        default=None,
        metadata=_about("CPU share of the bot's tree in cores (its cgroup's quota); unset: no limit", gt=0),
    )
    file_size_mb: int = field(default=64, metadata=_about("Largest file the bot may write (RLIMIT_FSIZE), MiB", ge=1))
    open_files: int = field(
        default=256,
        metadata=_about(
            "Open file descriptors per process (RLIMIT_NOFILE); lowered for a match where its referee could not hold"
            " every connection its bots could open (SECURITY.md)",
            ge=MIN_OPEN_FILES,
        ),
    )
    disk_mb: int = field(default=64, metadata=_about("Size of the bot's private /tmp, which holds its home, MiB", ge=1))
    readable: tuple[str, ...] = field(default=(), metadata=_about("More host paths every bot may read"))
    writable: tuple[str, ...] = field(
        default=(),
        metadata=_about("Host directories every bot may write, shared by all bots (tests and debugging)"),
    )

    ABSOLUTE: ClassVar[tuple[str, ...]] = ("readable", "writable")  # keys whose paths must be exposable

    def __post_init__(self) -> None:
        _validate(self)
        for key in self.ABSOLUTE:
            try:
                exposable(getattr(self, key))
            except SpecError as exc:
                raise SpecError(f"{key}: {exc}") from None

    @classmethod
    def from_json(cls, data: object) -> Limits:
        """Limits from a JSON object; SpecError names the first unknown key or bad value."""
        return _build(cls, data, "limits")

    def replace(self, **changes: Any) -> Limits:
        """A copy with ``changes`` (checked as every Limits is)."""
        return dataclasses.replace(self, **changes)

    def to_json(self) -> dict[str, object]:
        return _to_json(self)


@dataclass(frozen=True, slots=True)
class BotEntry:
    """A contestant process of the match: the name it is rated under and the command that starts it (its runtime
    and program, ``argv``; the flags for its runtime and the arguments for its program, each apart:
    arena.play.runtimes puts them together with the arena's own flags)."""

    name: str
    argv: list[str]
    transport: Literal["zmq", "stdio"] = field(
        default="zmq",
        metadata=_about("ZeroMQ (protocol.md §1) or JSON lines on stdin/stdout (the stdio transport)"),
    )
    args: list[str] = field(default_factory=list, metadata=_about("Arguments for the bot's program"))
    runtime_flags: list[str] = field(
        default_factory=list, metadata=_about("Options for the bot's runtime (java, node, python), each one word")
    )

    def __post_init__(self) -> None:
        _validate(self)
        runtime_options(self.runtime_flags)


def runtime_options(flags: list[str] | tuple[str, ...]) -> list[str] | tuple[str, ...]:
    """``flags``, if each is an option in one word, without spaces (``-Xss4m``, ``--stack-size=4000``); SpecError
    naming the first that is not (a value given as a word of its own would be taken for the bot's program)."""
    for flag in flags:
        if not flag.startswith("-") or any(c.isspace() for c in flag) or flag in ("-", "--"):
            raise SpecError(
                f"runtime_flags: {flag!r} is not an option in one word (give -Xss4m, --stack-size=4000, -Dkey=value)"
            )
    return flags


@dataclass(frozen=True, slots=True)
class GameSpec:
    """One game of a match: the deal seed and which bot (index into ``bots``) sits in each seat."""

    seed: int
    seating: list[int]

    def __post_init__(self) -> None:
        _validate(self)


DEFAULT_TIME = "5+0.1"  # a bot's clock: a bank of 5 s, 0.1 s more at each decision
DEFAULT_MAX_DECISION = 10.0  # seconds: the hard cap on any one decision
DEFAULT_MAX_HANDS = 1000  # hands after which an undecided game is drawn
DEFAULT_MAX_STRIKES = 3  # violations after which a bot forfeits its match
DEFAULT_POLICY: Literal["forfeit", "substitute"] = "forfeit"  # a violation costs the game
DEFAULT_LOG_DIR = "logs"  # where each bot's output goes
# seconds from a bot's start to its hello: a JVM's or Node's start-up on a loaded core fits with room to spare
DEFAULT_HANDSHAKE_TIMEOUT = 10.0


@dataclass(frozen=True, slots=True)
class MatchSpec:
    """Everything a referee needs to run a match; serializable so any executor can carry it."""

    match_id: str
    variant: str
    bots: list[BotEntry]
    games: list[GameSpec]
    options: dict[str, Any] = field(default_factory=dict)
    time: str = DEFAULT_TIME
    max_decision: float = DEFAULT_MAX_DECISION
    handshake_timeout: float = field(
        default=DEFAULT_HANDSHAKE_TIMEOUT,
        metadata=_about("Seconds from a bot's start to its hello (protocol.md §3)", gt=0),
    )
    policy: Literal["forfeit", "substitute"] = DEFAULT_POLICY
    max_strikes: int = field(
        default=DEFAULT_MAX_STRIKES, metadata=_about("Violations after which a bot forfeits its match", ge=1)
    )
    max_hands: int = field(
        default=DEFAULT_MAX_HANDS, metadata=_about("A game not decided after this many hands is drawn", ge=1)
    )
    log_dir: str = DEFAULT_LOG_DIR
    limits: Limits = field(default_factory=Limits, metadata=_about("What each bot process may use (SECURITY.md)"))
    trusted_bots: bool = field(
        default=False,
        metadata=_about("Run the match even where the host cannot keep bots apart (SECURITY.md): for bots you trust"),
    )
    cpus: list[int] | None = field(
        default=None,
        metadata=_about("Cores the referee and its bots run on (arena.play.cpus); None: wherever the OS puts them"),
    )

    def __post_init__(self) -> None:
        _validate(self)

    @classmethod
    def from_json(cls, data: object) -> MatchSpec:
        """A spec from its JSON object (``to_json``'s output); SpecError names the first problem (``games[2].seed:
        must be an integer``)."""
        return _build(cls, data, "spec")

    def to_json(self) -> dict[str, object]:
        """The spec as a JSON object, every field included."""
        return _to_json(self)

    def replace(self, **changes: Any) -> MatchSpec:
        """A copy with ``changes`` (checked as every spec is)."""
        return dataclasses.replace(self, **changes)


# ---- strict checking: every field of its declared type, JSON objects into their dataclasses ----

_T = TypeVar("_T")


def _validate(instance: DataclassInstance) -> None:
    """Check every field of ``instance`` (a dataclass above) and normalize it: a JSON object becomes its dataclass,
    a list a tuple where a tuple is declared. SpecError names the field (``games[2].seed: must be an integer``)."""
    hints = _hints(type(instance))
    for spec in dataclasses.fields(instance):
        value = _check(getattr(instance, spec.name), hints[spec.name], spec.name, spec.metadata)
        object.__setattr__(instance, spec.name, value)


def _build(cls: type[_T], data: object, where: str) -> _T:
    """``cls`` from a JSON object: every key known, every required key there, every value checked."""
    if not isinstance(data, dict):
        raise SpecError(f"{where}: must be an object (got {type(data).__name__})")
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = [key for key in data if key not in fields]
    if unknown:
        raise SpecError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(fields)})")
    for name, spec in fields.items():
        if name not in data and spec.default is dataclasses.MISSING and spec.default_factory is dataclasses.MISSING:
            raise SpecError(f"{where}: {name!r} is missing")
    try:
        return cls(**data)
    except SpecError as exc:
        raise SpecError(f"{where}.{exc}") from None


_HINTS: dict[type, dict[str, object]] = {}


def _hints(cls: type) -> dict[str, object]:
    if cls not in _HINTS:
        _HINTS[cls] = get_type_hints(cls)
    return _HINTS[cls]


def _check(value: object, hint: object, where: str, bounds: Mapping[str, object] | None = None) -> object:
    """``value`` as a ``hint`` (strictly: no bool for a number, no number for a string), within ``bounds``."""
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return _check(value, inner, where, bounds)
    if origin is Literal:
        if type(value) not in (str, int) or value not in args:
            raise SpecError(f"{where}: must be one of {', '.join(map(repr, args))} (got {value!r})")
        return value
    if origin in (list, tuple):
        if not isinstance(value, list | tuple):
            raise SpecError(f"{where}: must be a list (got {type(value).__name__})")
        items = [_check(item, args[0], f"{where}[{i}]") for i, item in enumerate(value)]
        return items if origin is list else tuple(items)
    if origin is dict:
        if not isinstance(value, dict) or not all(isinstance(key, str) for key in value):
            raise SpecError(f"{where}: must be an object")
        return dict(value)
    if dataclasses.is_dataclass(hint):
        return value if isinstance(value, hint) else _build(hint, value, where)  # type: ignore[arg-type]
    return _scalar(value, hint, where, bounds or {})


_KINDS: dict[object, str] = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}


def _scalar(value: object, hint: object, where: str, bounds: Mapping[str, object]) -> object:
    if hint is bool:
        ok = type(value) is bool
    elif hint is int:
        ok = type(value) is int
    elif hint is float:
        ok = type(value) is int or (type(value) is float and math.isfinite(value))
    else:
        ok = type(value) is hint
    if not ok:
        raise SpecError(f"{where}: must be {_KINDS.get(hint, hint)} (got {value!r})")
    if not isinstance(value, int | float):
        return value
    least, above = bounds.get("ge"), bounds.get("gt")
    if isinstance(least, int | float) and value < least:
        raise SpecError(f"{where}: must be at least {least} (got {value!r})")
    if isinstance(above, int | float) and value <= above:
        raise SpecError(f"{where}: must be more than {above} (got {value!r})")
    return float(value) if hint is float else value


def _to_json(instance: DataclassInstance) -> dict[str, object]:
    return {f.name: _to_json_value(getattr(instance, f.name)) for f in dataclasses.fields(instance)}


def _to_json_value(value: object) -> object:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _to_json(value)
    if isinstance(value, list | tuple):
        return [_to_json_value(item) for item in value]
    if isinstance(value, dict):
        return {key: _to_json_value(item) for key, item in value.items()}
    return value
