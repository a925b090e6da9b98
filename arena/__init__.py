"""Euchre Arena: a tournament arena where programs play Euchre against each other."""

from __future__ import annotations

__version__ = "0.1.0"
