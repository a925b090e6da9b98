"""Suite-wide settings: Hypothesis profiles, and the ``slow`` marker's meaning.

Profiles (``pytest --hypothesis-profile NAME``, or ``HYPOTHESIS_PROFILE=NAME``): ``default`` runs what CI runs (the
fuzz tests together more than 10,000 cases), ``thorough`` ten times as many cases, ``quick`` a fifth. Property
tests scale their own case counts with the profile (``helpers.cases``).

``slow`` marks the tests that kill tournaments, fuzz real sockets, measure benchmarks or play long matches:
``make check`` leaves them out, ``make test`` (CI) runs everything.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
from collections.abc import Iterator

import pytest
import zmq
from hypothesis import settings

settings.register_profile("default", max_examples=100)
settings.register_profile("quick", max_examples=20)
settings.register_profile("thorough", max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# A suite started in the background by a shell without job control (``make test &`` in a script, some CI runners)
# inherits SIGINT ignored, and so would every process the tests start: a run told to stop by Ctrl-C would then play
# on. The tests of Ctrl-C need it delivered, so the suite's processes start with SIGINT at its default (an ignored
# signal is inherited through exec; a handled one is reset to the default).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture
def router() -> Iterator[tuple[str, zmq.Socket[bytes]]]:
    """A ROUTER bound to an ipc endpoint in a fresh short temporary directory: the referee's side, for a bot run
    alone (tests of the SDK and of a bot's start)."""
    folder = tempfile.mkdtemp(prefix="arena-bot-")
    endpoint = f"ipc://{folder}/bot.sock"
    context = zmq.Context()
    socket = context.socket(zmq.ROUTER)
    socket.setsockopt(zmq.LINGER, 0)
    socket.bind(endpoint)
    yield endpoint, socket
    socket.close()
    context.term()
    shutil.rmtree(folder, ignore_errors=True)
