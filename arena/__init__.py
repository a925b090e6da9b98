"""Euchre Arena: a tournament arena where programs play Euchre against each other."""

from __future__ import annotations

__version__ = "0.1.0"
PROTOCOL_VERSION = 1  # of the wire protocol (protocol.md); here so that a bot need not load the message models

JSONObject = dict[str, object]
"""A JSON object as parsed, its values not yet known: each is checked (or its message's type read) where used."""
