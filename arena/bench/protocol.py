"""Decisions per second through referee and bot processes, beside raw ping-pong of same-size messages.

Both transports: ZeroMQ bots beside pyzmq ping-pong over ipc, stdio bots beside line ping-pong over two pipes.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from typing import TypedDict

import zmq

from arena.play.botproc import resolve_bot
from arena.play.cpus import idlest
from arena.play.matchspec import BotEntry, GameSpec, MatchSpec
from arena.play.referee import run_match

# The peer of the ping-pong: answers every frame with a reply of a given size, until told "stop".
_ECHO = """
import sys, zmq
ctx = zmq.Context(); s = ctx.socket(zmq.DEALER); s.connect(sys.argv[1]); reply = b"x" * int(sys.argv[2])
s.send(b"ready")
while (m := s.recv()) != b"stop":
    s.send(reply)
"""


def ping_pong(request_size: int, reply_size: int, seconds: float) -> float:
    """Round trips per second between this process (ROUTER) and a child process (DEALER) over ipc."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as directory:
        return _ping_pong(f"ipc://{directory}/echo.sock", request_size, reply_size, seconds)


def _ping_pong(address: str, request_size: int, reply_size: int, seconds: float) -> float:
    context = zmq.Context()
    socket = context.socket(zmq.ROUTER)
    socket.bind(address)
    child = subprocess.Popen([sys.executable, "-c", _ECHO, address, str(reply_size)])
    try:
        peer, _ = socket.recv_multipart()
        request = b"y" * request_size
        count, start = 0, time.perf_counter()
        while True:
            for _ in range(200):
                socket.send_multipart([peer, request])
                socket.recv_multipart()
            count += 200
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
        socket.send_multipart([peer, b"stop"])
        return count / elapsed
    finally:
        child.wait(timeout=10)
        socket.close(linger=0)
        context.term()


# The peer of the pipe ping-pong: answers every line with a line of a given size, until told "stop".
_LINE_ECHO = """
import sys
reply = b"x" * int(sys.argv[1]) + b"\\n"
out = sys.stdout.buffer
out.write(b"ready\\n"); out.flush()
for line in sys.stdin.buffer:
    if line == b"stop\\n":
        break
    out.write(reply); out.flush()
"""


def pipe_ping_pong(request_size: int, reply_size: int, seconds: float) -> float:
    """Round trips per second of newline-ended lines between this process and a child over its stdin and stdout."""
    child = subprocess.Popen(
        [sys.executable, "-c", _LINE_ECHO, str(reply_size)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0
    )
    assert child.stdin is not None and child.stdout is not None
    out, into = child.stdout, child.stdin.fileno()
    try:
        out.readline()
        request = b"y" * request_size + b"\n"
        count, start = 0, time.perf_counter()
        while True:
            for _ in range(200):
                os.write(into, request)
                out.readline()
            count += 200
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
        os.write(into, b"stop\n")
        return count / elapsed
    finally:
        child.stdin.close()
        child.wait(timeout=10)


def referee_rate(variant: str, games: int, bot: str, cpus: list[int] | None = None) -> dict[str, float]:
    """Decisions per second inside games, mean message sizes, and per-game and per-match overheads, for ``bot``;
    the match on ``cpus`` (None: wherever the OS puts its processes)."""
    command = resolve_bot(bot)
    players = 4 if variant.startswith("four") else 2
    with tempfile.TemporaryDirectory(prefix="arena-bench-logs-") as logs:
        spec = MatchSpec(
            match_id="bench",
            variant=variant,
            bots=[BotEntry(name=f"b{i}", argv=list(command.argv), transport=command.transport) for i in range(players)],
            games=[GameSpec(seed=g, seating=list(range(players))) for g in range(games)],
            time="60+1",
            log_dir=logs,
            cpus=cpus,
        )
        start = time.perf_counter()
        records = run_match(spec)
        total = time.perf_counter() - start
    decisions = sum(sum(r["timing"]["decisions"]) for r in records)
    in_games = sum(r["timing"]["seconds"] for r in records)
    thinking = sum(sum(r["timing"]["thinking"]) for r in records)
    sent = sum(b[0] for r in records for b in r["timing"]["bytes"])
    received = sum(b[1] for r in records for b in r["timing"]["bytes"])
    return {
        "decisions": decisions,
        "decisions_per_second": decisions / in_games,
        "bytes_per_decision_out": sent / decisions,
        "bytes_per_decision_in": received / decisions,
        "seconds_per_game": in_games / games,
        "referee_seconds_per_game": (in_games - thinking) / games,
        "match_setup_seconds": total - in_games,
    }


class StdioBench(TypedDict):
    """The stdio transport's part of ProtocolBench: message sizes, decisions per second beside pipe round trips, the
    median round's ratio and each round's."""

    request_bytes: int
    reply_bytes: int
    arena_decisions_per_second: float
    pipe_round_trips_per_second: float
    round_ratios: list[float]
    ratio: float


class ProtocolBench(TypedDict):
    """What ``arena bench protocol --json`` prints (see ``run``)."""

    stdio: StdioBench
    variant: str
    bot: str
    request_bytes: int
    reply_bytes: int
    cpus: list[int] | None
    arena_decisions_per_second: float
    arena_unpinned_decisions_per_second: float
    pyzmq_round_trips_per_second: float
    round_ratios: list[float]
    ratio: float
    ratio_unpinned: float
    seconds_per_game: float
    referee_seconds_per_game: float
    match_setup_seconds: float
    load_average: float | None


def run(
    seconds: float, games: int = 20, variant: str = "four-hand", bot: str = "random", rounds: int = 5
) -> ProtocolBench:
    """Both measurements, interleaved in ``rounds`` rounds so that machine noise hits both; the median round ratio.

    The match runs as the arena runs matches, on one core (arena.play.cpus), and, for comparison, spread by the OS
    (``ratio_unpinned``). The ping-pong is plain pyzmq between two processes wherever the OS puts them. The ratio
    needs a quiet machine: when other cores are busy, a ping-pong wakes its peer on a running core (2-3x faster
    than from an idle one); ``load_average`` (the 1-minute figure before the run) says which case it was.
    """
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    core = idlest(1) or None
    details = referee_rate(variant, 2, bot, core)  # a warm-up that also measures the real message sizes
    request_size = round(details["bytes_per_decision_out"])
    reply_size = round(details["bytes_per_decision_in"])
    zmq_rates: list[float] = []
    arena_rates: dict[str, list[float]] = {"pinned": [], "unpinned": []}
    ratios: dict[str, list[float]] = {"pinned": [], "unpinned": []}
    per_game = max(1, games // rounds)
    for _ in range(rounds):
        raw = ping_pong(request_size, reply_size, seconds / rounds)
        zmq_rates.append(raw)
        for how, cpus in (("pinned", core), ("unpinned", None)):
            measured = referee_rate(variant, per_game, bot, cpus)
            arena_rates[how].append(measured["decisions_per_second"])
            ratios[how].append(measured["decisions_per_second"] / raw)
            if how == "pinned":
                details = measured
    stdio = stdio_ratio(variant, seconds, games, bot, core, rounds)
    for values in ratios.values():
        values.sort()
    return {
        "stdio": stdio,
        "variant": variant,
        "bot": bot,
        "request_bytes": request_size,
        "reply_bytes": reply_size,
        "cpus": core,
        "arena_decisions_per_second": sum(arena_rates["pinned"]) / rounds,
        "arena_unpinned_decisions_per_second": sum(arena_rates["unpinned"]) / rounds,
        "pyzmq_round_trips_per_second": sum(zmq_rates) / rounds,
        "round_ratios": [round(r, 3) for r in ratios["pinned"]],
        "ratio": ratios["pinned"][rounds // 2],
        "ratio_unpinned": ratios["unpinned"][rounds // 2],
        "seconds_per_game": details["seconds_per_game"],
        "referee_seconds_per_game": details["referee_seconds_per_game"],
        "match_setup_seconds": details["match_setup_seconds"],
        "load_average": load,
    }


def stdio_ratio(variant: str, seconds: float, games: int, bot: str, core: list[int] | None, rounds: int) -> StdioBench:
    """The stdio transport: the same match with the bots on stdin/stdout, beside line ping-pong over pipes."""
    stdio_bot = f"stdio:{bot}"
    details = referee_rate(variant, 2, stdio_bot, core)
    request_size = round(details["bytes_per_decision_out"])
    reply_size = round(details["bytes_per_decision_in"])
    pipe_rates, arena_rates, ratios = [], [], []
    for _ in range(rounds):
        raw = pipe_ping_pong(request_size, reply_size, seconds / rounds)
        measured = referee_rate(variant, max(1, games // rounds), stdio_bot, core)
        pipe_rates.append(raw)
        arena_rates.append(measured["decisions_per_second"])
        ratios.append(measured["decisions_per_second"] / raw)
    ratios.sort()
    return {
        "request_bytes": request_size,
        "reply_bytes": reply_size,
        "arena_decisions_per_second": sum(arena_rates) / rounds,
        "pipe_round_trips_per_second": sum(pipe_rates) / rounds,
        "round_ratios": [round(r, 3) for r in ratios],
        "ratio": ratios[rounds // 2],
    }
