"""The one exception hierarchy of the arena; the CLI turns these into clear messages."""

from __future__ import annotations


class ArenaError(Exception):
    """Base of every error the arena raises on purpose."""


class OptionsError(ArenaError, ValueError):
    """A rule option, variant or combination of options is unknown or incoherent."""


class RulesError(ArenaError):
    """Base of errors about actions and game states."""


class InvalidActionError(RulesError, ValueError):
    """The value is not an action at all (unknown type, bad card text, missing field)."""


class IllegalActionError(RulesError):
    """The action is well formed but not legal in the current state."""


class RecordError(ArenaError, ValueError):
    """A game record is malformed or does not replay to itself."""
