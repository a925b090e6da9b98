"""Helpers for tests whose bots leave traces (pid files, dumps, markers) in a test's directory.

Bots run sandboxed (arena.sandbox): under uids of their own when the tests run as root, and seeing only their own
files. A test that wants its bots to write somewhere opens that directory to them with ``open_to_bots``.
"""

from __future__ import annotations

import os
from pathlib import Path

from arena.sandbox import Limits


def open_to_bots(directory: Path, limits: Limits | None = None) -> Limits:
    """Let every bot of a match write in ``directory`` (shared by all of them) and return the match's limits."""
    directory.mkdir(parents=True, exist_ok=True)
    for root, folders, files in os.walk(directory):
        os.chmod(root, 0o1777)
        for name in folders:
            os.chmod(os.path.join(root, name), 0o1777)
        for name in files:
            os.chmod(os.path.join(root, name), 0o666)
    base = limits or Limits()
    return base.model_copy(update={"writable": (*base.writable, str(directory))})
