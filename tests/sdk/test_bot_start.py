"""What a bot process loads on its way to its first decision, and that its logs reach stderr all the same.

A tournament starts thousands of bot processes, and every module a bot imports is paid for at each start. These
tests run the real bot scripts against a ROUTER through hello, one decision and ``match_end``, with ``-X importtime``
listing every module the process imported, and check that none of the heavy ones a bot has no use for was among
them: the rules engine that runs hands (a bot only reads views), the referee's and the tournament's side, pydantic,
argparse, and logging, which the SDK loads only when it has something to log.
"""

from __future__ import annotations

import errno
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import zmq
from helpers import ROOT, bot_process, exited_cleanly, receive, send

from arena.engine.actions import parse_action
from arena.engine.game import Game
from arena.engine.options import make_rules
from arena.play import outgoing as messages
from arena.play.botproc import BotProcess

BOTS = ROOT / "arena" / "bots"
SEED = 3
TIME = {"bank_ms": 60_000, "increment_ms": 1000, "max_decision_ms": 60_000}

HEAVY = (
    "arena.engine.game",  # the rules engine: a bot reads views and keeps a table, it never runs a hand
    "arena.engine.hand",
    "arena.engine.playout",
    "arena.engine.record",
    "arena.play",  # the referee's side, the tournament's, the CLI's
    "arena.tournament",
    "arena.cli",
    "pydantic",
    "pydantic_core",
    "click",
    "rich",
    "jinja2",
    "sqlite3",
    "asyncio",
    "argparse",  # the search bot parses a command line only when it has one
    "logging",  # loaded when the SDK first logs
    # blake2b for the views' seeds comes from _blake2, without hashlib's loading of OpenSSL
    *(("hashlib",) if importlib.util.find_spec("_blake2") else ()),
)


def converse(
    router: tuple[str, zmq.Socket[bytes]], argv: list[str], *, notices: tuple[dict[str, Any], ...] = ()
) -> tuple[dict[str, Any], str]:
    """Start a bot process, take its hello, ask it one decision of a fresh four-hand game, send ``notices`` and
    ``match_end``; return its action (checked legal) and its stderr once it has exited cleanly."""
    endpoint, socket = router
    env = {**os.environ, "ARENA_ENDPOINT": endpoint, "ARENA_TOKEN": "t"}
    with bot_process(argv, env) as process:
        identity, hello = receive(socket, 30_000)
        assert hello["type"] == "hello"
        game, told = first_decision(hello["name"])
        for message in told:
            send(socket, identity, message)
        _, reply = receive(socket, 30_000)
        assert reply["request_id"] == 7 and parse_action(reply["action"]) in game.legal_actions()
        for notice in notices:
            send(socket, identity, notice)
        send(socket, identity, {"type": "match_end", "reason": "done"})
        return reply["action"], exited_cleanly(process, 30)


def converse_over_stdio(argv: list[str]) -> tuple[dict[str, Any], str]:
    """``converse`` on the stdio transport: JSON lines on the bot's stdin and stdout."""
    env = {**os.environ, "ARENA_TRANSPORT": "stdio", "ARENA_TOKEN": "t"}
    env.pop("ARENA_ENDPOINT", None)
    process = subprocess.Popen(
        argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        hello = json.loads(process.stdout.readline())
        assert hello["type"] == "hello"
        game, told = first_decision(hello["name"])
        process.stdin.write("".join(json.dumps(m) + "\n" for m in told))
        process.stdin.flush()
        reply = json.loads(process.stdout.readline())
        assert reply["request_id"] == 7 and parse_action(reply["action"]) in game.legal_actions()
        out, err = process.communicate(json.dumps({"type": "match_end", "reason": "done"}) + "\n", timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    assert out == ""
    return reply["action"], err


def first_decision(name: str) -> tuple[Game, list[dict[str, Any]]]:
    """A fresh four-hand game, and what its first seat to act is told up to its first request (request id 7)."""
    game = Game(make_rules("four-hand"), SEED)
    seat = game.current_seat()
    assert seat is not None
    events = messages.hand_start_events(game)[seat]
    welcome = {"type": "welcome", "protocol": 1, "match_id": "m1", "name": name}
    return game, [
        welcome,
        messages.game_start(game, 0, seat, TIME),
        messages.act_request(game, seat, 7, [events], 60_000),
    ]


def imported(stderr: str) -> list[str]:
    """The modules a ``-X importtime`` process imported, in order (its stderr's ``import time:`` lines)."""
    lines = [line for line in stderr.splitlines() if line.startswith("import time:")]
    return [line.split("|")[2].strip() for line in lines[1:]]  # the first is the header


def heavy(modules: list[str]) -> list[str]:
    """The modules among ``modules`` that are, or are inside, one of HEAVY."""
    return [m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY)]


def test_imported_reads_the_importtime_listing_and_heavy_finds_submodules() -> None:
    """The helpers of the tests below: a listing's module names are read, and a heavy module or its submodule found."""
    stderr = (
        "import time: self [us] | cumulative | imported package\n"
        "import time:       120 |        120 |   zmq.backend\n"
        "arena.sdk: a log line\n"
        "import time:       300 |        900 | logging\n"
        "import time:        80 |         80 |     arena.play.protocol\n"
    )
    assert imported(stderr) == ["zmq.backend", "logging", "arena.play.protocol"]
    assert heavy(imported(stderr)) == ["logging", "arena.play.protocol"]
    assert heavy(["arena.playground", "loggingx", "arena.engine.view"]) == []


@pytest.mark.parametrize("bot", ["random", "heuristic", "search"])
def test_a_bundled_bot_loads_no_heavy_module_through_its_first_decision(
    router: tuple[str, zmq.Socket[bytes]], bot: str
) -> None:
    _, err = converse(router, [sys.executable, "-X", "importtime", str(BOTS / f"{bot}_bot.py")])
    modules = imported(err)
    assert "arena.sdk" in modules and "zmq" in modules  # the listing is there: the check below means something
    assert heavy(modules) == []


def test_a_bot_on_the_stdio_transport_never_loads_zmq() -> None:
    _, err = converse_over_stdio([sys.executable, "-X", "importtime", str(BOTS / "random_bot.py")])
    modules = imported(err)
    assert "arena.sdk" in modules
    assert heavy(modules) == [] and not [m for m in modules if m == "zmq" or m.startswith("zmq.")]


def test_the_sdk_loads_logging_to_log_and_logs_to_stderr_with_the_loggers_name(
    router: tuple[str, zmq.Socket[bytes]],
) -> None:
    violation = {"type": "violation", "kind": "timeout", "detail": "slow", "strikes": 1, "max_strikes": 3}
    _, err = converse(router, [sys.executable, "-X", "importtime", str(BOTS / "random_bot.py")], notices=(violation,))
    assert "logging" in imported(err)
    assert "arena.sdk: violation timeout: slow (strike 1 of 3)" in err.splitlines()


def test_a_bot_that_imported_logging_has_stderr_logs_at_info_from_its_start(
    router: tuple[str, zmq.Socket[bytes]], tmp_path: Path
) -> None:
    script = tmp_path / "loud_bot.py"
    script.write_text(
        "import logging\n"
        "from arena.sdk import Bot, run\n"
        "class Loud(Bot):\n"
        "    name = 'loud'\n"
        "    def on_game_start(self, table):\n"
        "        logging.getLogger('loud').info('game %s, seat %s', table.game, table.seat)\n"
        "    def act(self, view, legal):\n"
        "        return legal[0]\n"
        "run(Loud())\n"
    )
    action, err = converse(router, [sys.executable, str(script)])
    assert action == {"type": "pass"}
    assert f"loud: game 0, seat {Game(make_rules('four-hand'), SEED).current_seat()}" in err.splitlines()


def _no_pidfds(pid: int) -> int:
    raise OSError(errno.ENOSYS, "pidfd_open is not implemented")


@pytest.mark.parametrize("pidfds", ["pidfd", "refused", "absent"])
def test_waiting_for_an_execd_bots_end_notices_it_and_keeps_the_deadline(
    pidfds: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``BotProcess.wait_until`` (what ``Referee.close`` waits with) on a process started by exec, where pidfds work,
    where the kernel refuses them, and where the os module has none (not Linux): it sees the end, and waits no less
    than until its deadline for a process that does not end."""
    if pidfds == "refused":
        monkeypatch.setattr(os, "pidfd_open", _no_pidfds)
    elif pidfds == "absent":
        monkeypatch.delattr(os, "pidfd_open")
    waiter = BotProcess.__new__(BotProcess)  # only its process: what wait_until uses
    waiter.process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.2)"])
    assert waiter.wait_until(time.monotonic() + 30) and waiter.process.returncode == 0
    waiter.process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        deadline = time.monotonic() + 0.3
        assert not waiter.wait_until(deadline)
        assert time.monotonic() >= deadline
    finally:
        waiter.process.kill()
        waiter.process.wait()
