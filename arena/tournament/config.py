"""Tournament configs: TOML files in tournaments/, validated into one frozen model with errors that name the key."""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from arena.engine.options import make_rules
from arena.errors import ArenaError
from arena.play.clock import TimeControl
from arena.play.matchspec import Limits


class ConfigError(ArenaError, ValueError):
    """A tournament config is missing, not TOML, or has an unknown key or a bad value."""


class RatingSettings(BaseModel):
    """How the ranking table is computed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    k: float = Field(default=16.0, gt=0, description="K factor of the live Elo shown during the run")
    bootstrap: int = Field(default=1000, ge=0, description="Bootstrap resamples for the interval (0: none)")
    confidence: float = Field(default=0.95, gt=0, lt=1)


class TournamentConfig(BaseModel):
    """A round-robin tournament: who plays, under which rules, how many games, with what clock and seed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1)
    variant: str = "four-hand"
    options: dict[str, Any] = Field(default_factory=dict)
    entrants: list[str] = Field(min_length=2)
    games_per_pairing: int = Field(
        default=10, ge=1, description="Deal sequences per pairing (each played in every rotation when duplicate)"
    )
    games_per_match: int = Field(default=8, ge=1, description="Games one referee process plays before the next match")
    time: str = "5+0.1"
    max_decision: float = Field(default=10.0, gt=0)
    seed: int = 1
    jobs: int | None = Field(default=None, ge=1)
    pin: bool = Field(default=True, description="Each parallel match on a core of its own (arena.play.cpus)")
    duplicate: bool = True
    partnership: Literal["self", "mixed"] = "self"
    policy: Literal["forfeit", "substitute"] = "forfeit"
    max_strikes: int = Field(default=3, ge=1)
    max_hands: int = Field(default=1000, ge=1, description="A game not decided after this many hands is drawn")
    trusted_bots: bool = Field(
        default=False, description="Play even where the host cannot keep bots apart (SECURITY.md); not for strangers"
    )
    rating: RatingSettings = RatingSettings()
    limits: Limits = Limits()

    @field_validator("time")
    @classmethod
    def _time_control(cls, value: str) -> str:
        TimeControl.parse(value)
        return value

    @field_validator("entrants")
    @classmethod
    def _distinct(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError("each entrant may appear once")
        return value

    def fingerprint(self) -> str:
        """A hash of everything that decides which games are played and how (not jobs or rating settings)."""
        # settings added later are left out at their defaults, so that older tournaments keep their fingerprint
        later = {key for key, default in (("limits", Limits()), ("max_hands", 1000)) if getattr(self, key) == default}
        fixed = self.model_dump(exclude={"jobs", "pin", "rating", "trusted_bots"} | later)
        return hashlib.sha256(json.dumps(fixed, sort_keys=True).encode()).hexdigest()[:16]

    def job_count(self) -> int:
        """Parallel matches: the config's jobs, or one per core."""
        return self.jobs or os.cpu_count() or 1


def load_config(path: str | Path) -> TournamentConfig:
    """Read and validate a tournament config; every problem becomes a ConfigError naming the file and the key."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such tournament config") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    data.setdefault("name", path.stem)
    try:
        config = TournamentConfig.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(p) for p in first["loc"]) or "config"
        if first["type"] == "extra_forbidden":
            raise ConfigError(f"{path}: unknown key {key!r}") from None
        raise ConfigError(f"{path}: bad value for {key!r}: {first['msg']} (got {first.get('input')!r})") from None
    try:
        make_rules(config.variant, config.options)
    except ArenaError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    return config
