"""What a referee needs to run a match, serializable so that any executor can carry it: the bots and their commands,
the games, the clock and policy, and the limits every bot process runs under (arena.play.sandbox enforces them)."""

from __future__ import annotations

import os
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator


class Limits(BaseModel):
    """What each bot process may use. Enforcement depends on the OS and on running as root (SECURITY.md)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    memory_mb: int = Field(
        default=1024,
        ge=64,
        description="Resident memory of the bot's whole process tree, no swap (its cgroup); where there are no "
        "cgroups, address_space_mb per process stands in",
    )
    address_space_mb: int = Field(
        default=8192,
        ge=64,
        description="Address space per process (RLIMIT_AS), only where no cgroup limits memory: high enough for a "
        "JVM (4 GiB) or Node to start, which reserve far more than they touch",
    )
    cpu_seconds: int = Field(default=600, ge=1, description="CPU time per process (RLIMIT_CPU), then it is killed")
    processes: int = Field(
        default=64,
        ge=1,
        description="Processes and threads of the bot at once (its cgroup's pids.max, and RLIMIT_NPROC): a JVM needs "
        "14 or more",
    )
    cpu_cores: float | None = Field(
        default=None, gt=0, description="CPU share of the bot's tree in cores (its cgroup's quota); unset: no limit"
    )
    file_size_mb: int = Field(default=64, ge=1, description="Largest file the bot may write (RLIMIT_FSIZE), MiB")
    open_files: int = Field(default=256, ge=16, description="Open file descriptors per process (RLIMIT_NOFILE)")
    disk_mb: int = Field(default=64, ge=1, description="Size of the bot's private /tmp, which holds its home, MiB")
    readable: tuple[str, ...] = Field(default=(), description="More host paths every bot may read")
    writable: tuple[str, ...] = Field(
        default=(), description="Host directories every bot may write, shared by all bots (tests and debugging)"
    )

    @field_validator("readable", "writable")
    @classmethod
    def _absolute(cls, paths: tuple[str, ...]) -> tuple[str, ...]:
        for path in paths:
            if not os.path.isabs(path):
                raise ValueError(f"{path!r} is not an absolute path")
        return paths


class BotEntry(BaseModel):
    """A contestant process of the match: the name it is rated under and the command that starts it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    argv: list[str]
    transport: Literal["zmq", "stdio"] = Field(
        default="zmq", description="ZeroMQ (protocol.md §1) or JSON lines on stdin/stdout (the stdio transport)"
    )


class GameSpec(BaseModel):
    """One game of a match: the deal seed and which bot (index into ``bots``) sits in each seat."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seed: int
    seating: list[int]


class MatchSpec(BaseModel):
    """Everything a referee needs to run a match; serializable so any executor can carry it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    match_id: str
    variant: str
    options: dict[str, Any] = Field(default_factory=dict)
    bots: list[BotEntry]
    games: list[GameSpec]
    time: str = "5+0.1"
    max_decision: float = 10.0
    handshake_timeout: float = 10.0
    policy: Literal["forfeit", "substitute"] = "forfeit"
    max_strikes: int = Field(default=3, ge=1)
    max_hands: int = Field(default=1000, ge=1, description="A game not decided after this many hands is drawn")
    log_dir: str = "logs"
    limits: Limits = Field(default_factory=Limits, description="What each bot process may use (SECURITY.md)")
    trusted_bots: bool = Field(
        default=False,
        description="Run the match even where the host cannot keep bots apart (SECURITY.md): for bots you trust",
    )
    cpus: list[int] | None = Field(
        default=None,
        description="Cores the referee and its bots run on (arena.play.cpus); None: wherever the OS puts them",
    )
