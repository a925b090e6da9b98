"""Time controls: ``BANK+INC`` text, and the clock of one seat in one game."""

from __future__ import annotations

import re
from dataclasses import dataclass

from arena.errors import ArenaError

_TIME = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*\+\s*(\d+(?:\.\d+)?)\s*$")


class TimeControlError(ArenaError, ValueError):
    """A time control is not of the form BANK+INC with non-negative seconds."""


@dataclass(frozen=True, slots=True)
class TimeControl:
    """A bank per game, an increment per decision and a hard cap per decision, in seconds."""

    bank: float = 5.0
    increment: float = 0.1
    max_decision: float = 10.0

    @classmethod
    def parse(cls, text: str, *, max_decision: float = 10.0) -> TimeControl:
        """Parse ``BANK+INC`` such as ``5+0.1``."""
        match = _TIME.match(text)
        if not match:
            raise TimeControlError(f"time control {text!r} is not BANK+INC in seconds, e.g. 5+0.1")
        bank, inc = float(match.group(1)), float(match.group(2))
        if bank + inc <= 0:
            raise TimeControlError(f"time control {text!r} leaves no time for a decision")
        if max_decision <= 0:
            raise TimeControlError(f"the hard cap per decision must be positive (got {max_decision})")
        return cls(bank, inc, max_decision)

    def __str__(self) -> str:
        return f"{self.bank:g}+{self.increment:g}"

    def to_json(self) -> dict[str, int]:
        """The wire form, in milliseconds."""
        return {
            "bank_ms": round(self.bank * 1000),
            "increment_ms": round(self.increment * 1000),
            "max_decision_ms": round(self.max_decision * 1000),
        }


class Clock:
    """One seat's clock in one game: each decision may use the bank plus the increment, up to the hard cap."""

    def __init__(self, control: TimeControl) -> None:
        self.control = control
        self.bank = control.bank

    def allowed(self) -> float:
        """Seconds the next decision may take."""
        return min(self.bank + self.control.increment, self.control.max_decision)

    def spend(self, used: float) -> None:
        """Charge a decision that took ``used`` seconds: the bank gains the increment and loses what was used."""
        self.bank = max(0.0, self.bank + self.control.increment - used)
