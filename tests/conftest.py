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
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
import zmq

# Hypothesis runs the functions other packages register for its "hypothesis" entry point when it is imported: here
# only trio's (pulled in by selenium), whose ~60 modules every pytest worker imported (and, in a fresh clone, each
# compiled) for no test's use. Set before Hypothesis is imported (its pytest plugin does not import it).
os.environ.setdefault("HYPOTHESIS_NO_PLUGINS", "1")

from hypothesis import settings  # after the variable above

settings.register_profile("default", max_examples=100)
settings.register_profile("quick", max_examples=20)
settings.register_profile("thorough", max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# The Dask clusters the tests start (and every process the tests start, which reads these at import) without the
# periodic work of a long-lived cluster the tests do not use: a worker's profiler samples its threads every 10 ms,
# memory is polled every 100 ms, the event loop ticked every 20 ms (what that costs: docs/scaling.md).
for _key, _value in {
    "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False",
    "DASK_DISTRIBUTED__WORKER__MEMORY__MONITOR_INTERVAL": "1s",
    "DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL": "1s",
    "DASK_DISTRIBUTED__ADMIN__SYSTEM_MONITOR__INTERVAL": "2s",
}.items():
    os.environ.setdefault(_key, _value)

# The arena's own folder (the registry's default, the cache of compiled .java bots) in a folder of the suite's, not in
# the checkout the suite runs from; the processes the tests start inherit it.
if "ARENA_HOME" not in os.environ:
    os.environ["ARENA_HOME"] = tempfile.mkdtemp(prefix="arena-home-")

# A suite started in the background by a shell without job control (``make test &`` in a script, some CI runners)
# inherits SIGINT ignored, and so would every process the tests start: a run told to stop by Ctrl-C would then play
# on. The tests of Ctrl-C need it delivered, so the suite's processes start with SIGINT at its default (an ignored
# signal is inherited through exec; a handled one is reset to the default).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# The modules in the order the workers get them (``--dist loadfile`` hands out whole modules in the order of
# collection, ``--no-loadscope-reorder``): the longest first, so that none starts last and runs alone at the end,
# but the modules that mostly wait on bots and clocks each between two that compute, so that both cores stay busy.
# The rest follow in their usual order. The timings behind the order: docs/performance.md. Modules are named by their
# path under tests/ (``in_tests``): test modules of different folders may share a name (sprt/ and tournament/).
LONGEST_FIRST = (
    "tournament/test_dask_executor.py", "play/test_referee_fuzz.py", "play/test_referee.py", "report/test_build.py",
    "play/test_cgroups_cpu_share.py", "system/test_languages.py",
    "system/test_adversaries.py", "tournament/test_pool_rounds.py",
    "system/test_hardening.py", "tournament/test_run_crash_resume.py", "play/test_clock.py", "sprt/test_run.py",
    "tournament/test_ratings_coverage.py", "play/test_forkserver.py", "engine/test_hand_properties.py",
    "tournament/test_run.py", "tournament/test_executor_serve.py", "bots/test_heuristic_bot.py",
    "bots/test_search_bot.py", "report/test_live.py", "system/test_wheel.py", "sprt/test_stats.py",
    "tournament/test_growth.py", "test_cli_match.py", "play/test_protocol_wire.py", "human/test_command.py",
    "test_cli_stops.py", "test_cli.py", "engine/test_hand_openspiel.py", "bench/test_tournament.py",
    "play/test_outgoing_secrets.py",
)  # fmt: skip
TESTS = Path(__file__).resolve().parent


def in_tests(path: str | Path) -> str:
    """A test module's path under tests/ (``play/test_referee.py``), from its path or its node id's file part,
    which is relative to the checkout (``tests/play/test_referee.py``)."""
    path = (TESTS.parent / path).resolve()  # an absolute path stays itself
    return path.relative_to(TESTS).as_posix() if path.is_relative_to(TESTS) else path.as_posix()


if _missing := [name for name in LONGEST_FIRST if not (TESTS / name).is_file()]:
    warnings.warn(f"conftest.LONGEST_FIRST names modules that are gone: {_missing}", stacklevel=1)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest modules first (``LONGEST_FIRST``), the rest after them in the order collected."""
    rank = {name: n for n, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(in_tests(item.path), len(rank)))


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


# The security tests: on a machine that can run them all (root, every namespace, the seccomp filter, cgroups), one
# of them skipped is a failure of the run, not a quiet pass: a skip there means a test's own condition is wrong, or
# something the set-up should install is missing.
SECURITY = (
    "system/test_hardening.py", "system/test_adversaries.py", "play/test_referee.py", "play/test_forkserver.py",
    "play/test_cgroups.py", "tournament/test_pool_rounds.py", "play/test_cgroups_cpu_share.py",
    "play/test_outgoing_secrets.py", "play/test_referee_fuzz.py", "tournament/test_run_crash_resume.py",
    "play/test_sandbox_privileges.py",
)  # fmt: skip
_skipped_security: list[str] = []


def capable_host() -> bool:
    """Whether this machine, and this checkout's place on it, can run every security test: root, a private view, pid
    namespaces, the filter, cgroups with the cpu controller, and a checkout an unprivileged user can run (the tests
    of the arena run as ``nobody`` need it: not so under a 0700 folder)."""
    from helpers import checkout_open_to_others

    from arena.play.cgroups import detect
    from arena.play.sandbox import capabilities

    caps = capabilities()
    return (
        os.geteuid() == 0
        and caps.isolated
        and caps.pid
        and caps.mount
        and bool(detect().cpu)
        and checkout_open_to_others()
    )


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Note a security test that was skipped (on xdist's controller too: workers' reports come here)."""
    if report.skipped and in_tests(report.nodeid.split("::")[0]) in SECURITY:
        _skipped_security.append(report.nodeid)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail a run that skipped a security test on a machine that can run it."""
    if _skipped_security and capable_host() and not hasattr(session.config, "workerinput"):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        listed = "\n  ".join(_skipped_security)
        session.config.get_terminal_writer().line(
            f"\nsecurity tests skipped on a machine that can run them (a failure here):\n  {listed}", red=True
        )
