"""The referee's transport over real ZeroMQ sockets: the cheap look for waiting frames never misses one."""

from __future__ import annotations

import fcntl
import json
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import zmq
from configs import write_config
from helpers import RAW_RANDOM, run_arena

from arena.play.transport import IPC_PATH_MAX, PEER, SEND_BACKLOG, Endpoint, Hub, PipeEndpoint, TransportError


@pytest.fixture
def hub() -> Iterator[Hub]:
    hub = Hub()
    yield hub
    for socket in DEALERS.pop(id(hub), []):
        socket.close(linger=0)
    hub.close()


DEALERS: dict[int, list[zmq.Socket]] = {}  # type: ignore[type-arg]


def connect(hub: Hub, endpoint: Endpoint) -> zmq.Socket:  # type: ignore[type-arg]
    """A bot's DEALER on ``endpoint``, accepted as its peer after a first frame (closed with the hub)."""
    dealer = hub.context.socket(zmq.DEALER)
    DEALERS.setdefault(id(hub), []).append(dealer)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.connect(endpoint.address)
    dealer.send(b"hello")
    frame = endpoint.receive_within(5.0)
    assert frame is not None and frame[1] == b"hello"
    endpoint.peer = frame[0]
    return dealer


def test_a_quiet_endpoint_shows_up_as_soon_as_a_frame_arrives(hub: Hub) -> None:
    first, second = hub.open(), hub.open()
    dealer = connect(hub, first)
    connect(hub, second)
    assert not first.has_input() and not second.has_input()
    assert hub.maybe_waiting() == []  # both looked at and found empty: nothing to look at again
    dealer.send(b"late")
    deadline = time.monotonic() + 5.0
    while first not in hub.maybe_waiting():
        assert time.monotonic() < deadline, "a frame arrived and the quiet endpoint never stirred"
        time.sleep(0.001)
    assert second not in hub.maybe_waiting()
    assert first.receive() is not None and first.receive() is None
    assert first.send(b"to the bot")
    assert first in hub.maybe_waiting()  # a send may have read the socket's commands: no longer known to be quiet


def test_every_frame_is_read_by_a_referee_that_looks_only_where_maybe_waiting_points(hub: Hub) -> None:
    """A sender thread sends at random moments; the referee side sends, looks and reads in a random order, but reads
    only endpoints that ``maybe_waiting`` names. A frame stuck behind an endpoint wrongly taken as quiet would never
    be read, and the loop would run into its deadline."""
    endpoints = [hub.open() for _ in range(3)]
    dealers = [connect(hub, e) for e in endpoints]
    count = 400
    rng = random.Random(7)
    pauses = [rng.random() * 0.0004 for _ in range(count)]
    targets = [rng.randrange(3) for _ in range(count)]

    def send() -> None:
        for pause, target in zip(pauses, targets, strict=True):
            time.sleep(pause)
            dealers[target].send(b"frame")

    sender = threading.Thread(target=send)
    sender.start()
    received = [0, 0, 0]
    deadline = time.monotonic() + 30.0
    while sum(received) < count and time.monotonic() < deadline:
        candidates = hub.maybe_waiting()
        move = rng.randrange(3)
        if move == 0:
            endpoints[rng.randrange(3)].send(b"request")
        elif move == 1:
            for endpoint in candidates:
                while endpoint.receive() is not None:
                    received[endpoint.index] += 1
        elif candidates:
            rng.choice(candidates).has_input()
    sender.join()
    assert received == [targets.count(i) for i in range(3)]


@pytest.mark.parametrize("wait", [False, True], ids=["receive", "receive_within"])
def test_a_message_of_several_frames_is_read_whole_and_stands_as_the_multipart_marker(hub: Hub, wait: bool) -> None:
    """The referee reads a message frame by frame: one of several frames must be read to its end (its traffic
    counted by its first frame, as the bot's), stand as the marker the referee charges as ``malformed``, and leave
    the next message intact; a stranger's frames are not the seat's traffic."""
    endpoint = hub.open()
    assert isinstance(endpoint, Endpoint)
    dealer = connect(hub, endpoint)
    stranger = hub.context.socket(zmq.DEALER)
    DEALERS[id(hub)].append(stranger)
    stranger.setsockopt(zmq.LINGER, 0)
    stranger.connect(endpoint.address)
    before = endpoint.bytes_in
    dealer.send_multipart([b"first", b"", b"third"])
    dealer.send_multipart([b"", b"two"])
    dealer.send(b"plain")

    def read() -> tuple[bytes, bytes] | None:
        if wait:
            return endpoint.receive_within(5.0)
        deadline = time.monotonic() + 5.0
        while (frame := endpoint.receive()) is None and time.monotonic() < deadline:
            time.sleep(0.001)
        return frame

    assert read() == (endpoint.peer, b"\x00multipart")
    assert read() == (endpoint.peer, b"\x00multipart")
    assert read() == (endpoint.peer, b"plain")
    assert endpoint.bytes_in - before == len(b"first") + len(b"plain")
    stranger.send(b"not yours")
    frame = read()
    assert frame is not None and frame[0] != endpoint.peer and frame[1] == b"not yours"
    assert endpoint.last_sender == frame[0]
    assert endpoint.bytes_in - before == len(b"first") + len(b"plain")
    assert endpoint.receive() is None


def test_a_hub_closes_even_with_a_socket_of_its_context_left_open() -> None:
    """A socket that a failure left open (as a failed bind once did) no longer makes ``close`` wait forever: a
    referee whose endpoints could not be opened used to hang in ``zmq.Context.term`` instead of reporting why."""
    hub = Hub()
    left = hub.context.socket(zmq.ROUTER)  # left open (and held, as the failed bind's traceback held its socket)
    closing = threading.Thread(target=hub.close, daemon=True)
    closing.start()
    closing.join(timeout=30)
    assert not closing.is_alive(), "Hub.close() hangs on the socket left open"
    assert left.closed


def test_a_temporary_folder_too_deep_for_the_sockets_is_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ZeroMQ's ipc paths hold at most 107 characters: a TMPDIR deeper than that is named, with what to do (the bind
    used to fail and the referee to hang)."""
    deep = tmp_path / ("d" * (IPC_PATH_MAX - len(str(tmp_path))))
    deep.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(deep))
    with pytest.raises(TransportError, match=r"too long a path .* set TMPDIR to a shorter path"):
        Hub()
    assert list(deep.iterdir()) == []  # nothing left behind
    monkeypatch.setenv("TMPDIR", str(deep))
    done = run_arena("match", "random", "random", "--variant", "two-hand", "--games", "1", timeout=120)
    assert done.returncode == 2 and done.stderr.startswith("Error: the temporary folder"), done.stderr
    config = write_config(tmp_path / "deep.toml", **DEEP_TOURNAMENT)
    done = run_arena("tournament", "run", config, "--db", tmp_path / "deep.db", "--quiet", timeout=120)
    assert done.returncode == 1, done.stderr  # every match failed: the run is not done
    assert "too long a path" in (tmp_path / "deep-logs" / "random-raw_random_r0_0-1-referee.log").read_text()
    assert re.search(r"warning: (\d+) of \1 games were not played: run the same command to play them\n$", done.stderr)
    failed = [line for line in done.stderr.splitlines() if line.startswith("warning: match ")]
    assert 8 <= len(failed) < 40, failed  # it stopped taking matches after 8 failed in a row (of 40)
    assert "warning: stopped: 8 matches in a row failed, of every pairing, with no game stored" in done.stderr


DEEP_TOURNAMENT = dict(name="deep", entrants=["random", RAW_RANDOM], games_per_pairing=80, games_per_match=2, jobs=2)


# A stdio bot that reads nothing until FILE exists, then its stdin line by line up to {"end": true}, and writes back
# the "n" of every line it read whole.
DEAF_THEN_READING = """
import json, os, sys, time
while not os.path.exists(sys.argv[1]):
    time.sleep(0.01)
seen = []
for line in sys.stdin:
    message = json.loads(line)
    if message.get("end"):
        break
    seen.append(message["n"])
print(json.dumps(seen), flush=True)
"""


def test_what_a_stdio_bot_leaves_unread_is_bounded_and_dropped_in_whole_lines(hub: Hub, tmp_path: Path) -> None:
    """A bot that does not read its stdin: the referee keeps at most SEND_BACKLOG bytes for it beyond what the pipe
    holds, refuses the frames past that (whole: the bot later reads only whole lines, the accepted ones in order),
    and takes frames again once the bot reads."""
    go = tmp_path / "go"
    bot = subprocess.Popen(
        [sys.executable, "-c", DEAF_THEN_READING, str(go)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    try:
        assert bot.stdin is not None and bot.stdout is not None
        channel = hub.open(stdio=True)
        assert isinstance(channel, PipeEndpoint)
        hub.attach(channel, bot.stdin.fileno(), bot.stdout.fileno())
        channel.peer = PEER  # as an accepted hello makes it
        pipe = fcntl.fcntl(bot.stdin.fileno(), fcntl.F_GETPIPE_SZ)
        frame_bytes = 1024 * 1024
        accepted = [n for n in range(40) if channel.send(json.dumps({"n": n, "pad": "x" * frame_bytes}).encode())]
        held = sum(frame_bytes + 20 for _ in accepted)  # each frame's bytes, its newline and its "n" field
        assert 16 <= len(accepted) < 40 and held <= SEND_BACKLOG + pipe + 20 * len(accepted), len(accepted)
        assert accepted == list(range(len(accepted)))  # once full, nothing more until the bot reads
        go.touch()
        deadline = time.monotonic() + 20
        while not channel.send(b'{"end": true}'):
            assert time.monotonic() < deadline, "the bot reading did not make room"
            channel.has_input()  # a look writes what the pipe takes of the backlog
        said = None
        while said is None and time.monotonic() < deadline:
            said = channel.receive_within(0.001)
        assert said is not None and json.loads(said[1]) == accepted
    finally:
        bot.kill()
        bot.wait()
