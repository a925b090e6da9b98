"""Text that a bot controls, made safe to print: escape codes and other invisible characters are spelled out.

A bot chooses the bytes of its frames, its hello's name and version, and parts of what the referee says about them
(a violation's excerpt, a schema error's path). Before any of it is stored, printed, logged or put in a report it
goes through ``printable``, so that it can neither drive a terminal (set its title, clear the screen, move the
cursor) nor hide or reorder text (bidirectional overrides).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TextIO


def printable(text: str, limit: int | None = None) -> str:
    """``text`` with every non-printable character written as a Python escape (``\\x1b``, ``\\n``, ``\\u202e``), cut
    to ``limit`` characters (after escaping) when given."""
    if not text.isprintable():
        text = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
    return text if limit is None or len(text) <= limit else text[: limit - 1] + "…"


def terminal_safe(text: str) -> str:
    """Multi-line ``text`` for a terminal: lines and tabs kept, every other non-printable character escaped."""
    if text.isprintable():
        return text
    return "\n".join("\t".join(printable(part) for part in line.split("\t")) for line in text.split("\n"))


def open_private(path: str | Path) -> TextIO:
    """Open a text file for appending, created readable and writable by its owner alone (0600) if it is new.

    Game records hold every hidden card: they are the referee's, not every local user's (an existing file keeps
    the mode its owner gave it). Its folder is created if missing, as ``--log-dir``'s is.
    """
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    return os.fdopen(os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600), "a", encoding="utf-8")
