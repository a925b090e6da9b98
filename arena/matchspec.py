"""The executor interface: a match spec goes in, game results come out (one referee process per match)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from arena.sandbox import Limits


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
        default=None, description="Cores the referee and its bots run on (arena.cpus); None: wherever the OS puts them"
    )
