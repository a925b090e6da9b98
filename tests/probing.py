"""Helpers for the tests that watch real matches through tests/bots/probe.py: matches and what the bots were told.

The probe bot appends every frame it receives to a dump file (with its time of receipt), so a test can check what
each bot was actually told, and when, against the engine's truth.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from configs import match_spec
from sandboxing import open_to_bots

from arena.play.matchspec import BotEntry, MatchSpec

BOTS = Path(__file__).resolve().parent / "bots"
PROBE = [sys.executable, str(BOTS / "probe.py")]


def probe(name: str, *args: str | Path) -> BotEntry:
    """A probe.py bot with these arguments."""
    return BotEntry(name=name, argv=[*PROBE, *map(str, args)])


def match(
    tmp_path: Path,
    bots: list[BotEntry],
    games: list[tuple[int, list[int]]],
    *,
    variant: str,
    **settings: Any,
) -> MatchSpec:
    """A match of the given (seed, seating) games, its logs under ``tmp_path``, where every bot may write."""
    limits = open_to_bots(tmp_path, settings.pop("limits", None))
    return match_spec(bots, games, tmp_path=tmp_path, variant=variant, limits=limits, **settings)


def read_dump(path: Path) -> list[dict[str, Any]]:
    """The frames a probe received, in order: ``{"t", "proc", "msg"}`` each (its processes append to one file)."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def acts(path: Path) -> list[dict[str, Any]]:
    """The decision requests in a probe's dump, each with its time of receipt and process."""
    return [entry for entry in read_dump(path) if entry["msg"]["type"] == "act"]
