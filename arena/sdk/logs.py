"""The SDK's logger, with the logging module loaded at its first use rather than with the SDK.

Most bots never log: the SDK logs only when something goes wrong (an illegal answer, a violation notice, a table
that disagreed with the referee). Importing logging (with traceback, string and textwrap) costs a bot process about
5 ms of processor time at every start, and a tournament starts thousands of them.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import logging

NAME = "arena.sdk"
_stderr_pending = False  # run() asked for stderr logs before anything had loaded the logging module


def log_to_stderr() -> None:
    """Send log records to stderr at INFO with their logger's name, unless the program configured logging itself.

    A program that has imported logging (its own code or a library it uses) is configured now. In any other,
    logging is configured when the SDK first logs, and never in a bot that never does (one that imports logging
    later, inside ``act``, finds it unconfigured until the SDK logs).
    """
    global _stderr_pending
    if "logging" in sys.modules:
        _configure()
    else:
        _stderr_pending = True


def logger() -> logging.Logger:
    """The SDK's logger, ``arena.sdk``; its first use loads logging (configured as :func:`log_to_stderr` asked)."""
    global _stderr_pending
    import logging

    if _stderr_pending:
        _stderr_pending = False
        _configure()
    return logging.getLogger(NAME)


def _configure() -> None:
    import logging

    if not logging.getLogger().handlers:
        logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(name)s: %(message)s")
