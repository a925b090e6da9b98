"""A second wave of hostile bots (raw pyzmq, written from protocol.md and SECURITY.md): attacks on the referee itself.

    adversary.py [MODE] [--think S] [--out DIR] [--game G]

MODE defaults to the script's own name (a copy named ``stranger-flood.py`` floods: a tournament entrant needs no
arguments). Processes it starts are recorded in DIR as ``TOKEN-PID`` files (see tests/sandboxing.py).
Plays a seeded-random legal action like raw_random.py, thinking ``--think`` seconds before each answer, and:
    polite           nothing more
    stranger-flood   once welcomed, starts two children that connect sockets of their own to the bot's endpoint and
                     send frames without end, never saying hello
    dup-keys         answers {"action": <an illegal card>, "action": <a legal one>}: the last key would win
    double-hello     says hello twice in a row
    long-id          answers a 4,000-digit request id
    escapes          answers with a frame of terminal escape codes (clear screen, set title, bidi override)
    escape-name      calls itself, in its hello, by a name full of escape codes
    lock-spy         (four-hand partners) takes POSIX record locks on its own script at offsets that encode its cards,
                     reads /proc/locks for its partner's, and writes what it learned to DIR/<token>.json; it also
                     writes which machine-wide tables it could read
    lock-talk        (four-hand partners) the same locks, read back with F_GETLK (which names another owner's
                     conflicting lock whatever its uid or namespace) and with flock on offsets' own files; writes to
                     DIR/<token>.json the partner's cards it learned and the errors its lock calls met
    disk-hog         writes up to 200 MiB into /tmp, /dev/shm and its home, and as many small files as it may;
                     reports to DIR/<token>.json what it managed, and leaves it all behind
    mitm             before its opponents connect, renames every other endpoint socket it can find, binds its own in
                     its place and relays, turning each of their answers into an illegal one (the seat takeover of
                     a bot that shares the referee's uid); creates DIR/hijacked when done (or found none)
    spawn-and-wait   starts a child in a session of its own that ignores SIGTERM, SIGINT and SIGHUP, records it in
                     DIR, then plays on
    conn-flood       before its hello, forks 48 children (or as many as it may), each holding as many bare connections
                     to its endpoint as it may (each costs the referee a descriptor); says how many on stderr, plays on
    slow-hello       says hello a second (``--hello-after``) after it starts (as a JVM might), then plays politely
    late-flood       lets its first decision time out, then sends copies of its late answer (which the referee
                     ignores) without end
    late-twice       lets its first and third decisions time out, then sends each late answer ``--copies`` times;
                     answers the others at once
    core-thief       before its hello, forks 48 children (or as many as it may), each in a session of its own where
                     it may (a scheduler autogroup each), spinning for ever; plays on at once
    endless-message  at its first game's start, starts a child that opens a connection of its own to its endpoint,
                     speaking ZMTP 3 itself, and sends frames of 512 KiB that each say more follow, 256 MiB in all
                     (``--mib``), never the last one; plays on (with ``--early``: once welcomed, in the match's
                     handshake)

Misbehaviour in answers (dup-keys, long-id, escapes) happens at the first decision of game ``--game`` (default 0).
"""

import argparse
import contextlib
import errno
import fcntl
import hashlib
import json
import os
import random
import signal
import socket as socket_module
import struct
import sys
import threading
import time
import traceback
from pathlib import Path

import zmq

parser = argparse.ArgumentParser()
parser.add_argument("mode", nargs="?", default=Path(__file__).stem)
parser.add_argument("--think", type=float, default=0.0)
parser.add_argument("--out")
parser.add_argument("--game", type=int, default=0)
parser.add_argument("--hello-after", type=float, default=1.0)  # slow-hello's wait
parser.add_argument("--early", action="store_true")  # endless-message: once welcomed, in the match's handshake
parser.add_argument("--mib", type=int, default=256)  # endless-message: how much it sends
parser.add_argument("--copies", type=int, default=1)  # late-twice: how many times it sends a late answer
args = parser.parse_args()
mode = args.mode
endpoint, token = os.environ["ARENA_ENDPOINT"], os.environ["ARENA_TOKEN"]
CARDS = [r + s for s in "CDHS" for r in "789TJQKA"] + ["JK"]
FLOOD_FRAME = b'{"type": "action", "request_id": 1, "action": {"type": "pass"}}'
ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x1b[H\x1b[31mRED\u202eevil\x9b"


def report(found: dict) -> None:
    Path(args.out, f"{token}.json").write_text(json.dumps(found))


def on_record(pid: int) -> None:
    """Note a process of this bot in DIR (``--out``) as ``TOKEN-PID`` holding its uid (tests/sandboxing.py reads it)."""
    if args.out:
        Path(args.out, f"{token}-{pid}").write_text(str(os.getuid()))


def readable(path: str) -> bool:
    try:
        if os.path.isdir(path):
            return bool(os.listdir(path))
        with open(path, "rb") as f:
            return bool(f.read(4096))
    except OSError:
        return False


def hog_disk() -> dict:
    written = {}
    for k, folder in enumerate(("/tmp", "/dev/shm", os.environ.get("HOME", "/tmp"))):
        total = 0
        with contextlib.suppress(OSError), open(os.path.join(folder, f"hog-{k}-{token}"), "wb") as f:
            chunk = b"x" * (1 << 20)
            for _ in range(200):
                f.write(chunk)
                f.flush()
                total += len(chunk)
        written[folder] = total
    files = 0
    with contextlib.suppress(OSError):
        os.makedirs(f"/tmp/many-{token}", exist_ok=True)
        for k in range(20_000):
            Path(f"/tmp/many-{token}/{k}").touch()
            files += 1
    return {"written": written, "files": files}


def flood() -> None:
    """Two flooding processes (faster together than one referee can read), then a moment for them to connect.
    Forked, not started by exec: with no interpreter to start they flood within milliseconds, on a loaded machine
    too (one started by exec could still be importing zmq when a short game ended). Each records itself before it
    floods: the referee may end the bot before the bot could record it."""
    for _ in range(2):
        flooder = os.fork()
        if flooder == 0:
            try:
                on_record(os.getpid())
                with contextlib.suppress(OSError):  # a session of its own, where the arena allows it
                    os.setsid()
                stranger = zmq.Context().socket(zmq.DEALER)  # a context of its own: the parent's is not the child's
                stranger.setsockopt(zmq.SNDHWM, 0)
                stranger.connect(endpoint)
                while True:
                    stranger.send(FLOOD_FRAME)
            except BaseException:  # a flooder that cannot flood says why (in the bot's log)
                traceback.print_exc()
            finally:
                os._exit(1)
    time.sleep(0.3)


def relay(front: zmq.Socket, back: zmq.Socket) -> None:
    """Between a victim (front) and its real endpoint (back): pass everything, but spoil every answer."""
    poller = zmq.Poller()
    poller.register(front, zmq.POLLIN)
    poller.register(back, zmq.POLLIN)
    victim = None
    while True:
        for sock, _ in poller.poll():
            if sock is front:
                victim, frame = front.recv_multipart()
                message = json.loads(frame)
                if message.get("type") == "action":
                    message["action"] = {"type": "play", "card": "JK"}
                back.send(json.dumps(message).encode())
            elif victim is not None:
                front.send_multipart([victim, back.recv()])


def endless_message() -> None:
    """A child sends, on a connection of its own, one multipart message that never ends (ZMTP 3 by hand: a DEALER's
    greeting and READY, then frames with the MORE flag). pyzmq could not: it sends a message's frames only whole."""
    if os.fork() != 0:
        return
    path = endpoint.removeprefix("ipc://")
    conn = socket_module.socket(socket_module.AF_UNIX, socket_module.SOCK_STREAM)
    conn.connect(path)
    conn.sendall(b"\xff" + b"\x00" * 8 + b"\x7f" + b"\x03\x00" + b"NULL" + b"\x00" * 48)  # greeting: ZMTP 3.0, NULL
    conn.recv(64)
    ready = b"\x05READY\x0bSocket-Type" + struct.pack(">I", 6) + b"DEALER"
    conn.sendall(b"\x04" + bytes([len(ready)]) + ready)
    frame = b"\x03" + struct.pack(">Q", 512 * 1024) + b"x" * (512 * 1024)  # long frame, more to follow
    sent = 0
    with contextlib.suppress(OSError):
        for _ in range(2 * args.mib):
            conn.sendall(frame)
            sent += 1
    print(f"endless-message: {sent} frames of 512 KiB sent", file=sys.stderr, flush=True)
    time.sleep(600)
    os._exit(0)


def connect_flood() -> None:
    """Fork 48 children (or as many as the bot may), each holding as many bare connections to the endpoint as it may (no
    ZMTP greeting: each costs the referee a descriptor until libzmq's handshake timeout); report the total."""
    path = endpoint.removeprefix("ipc://")
    reading, writing = os.pipe()
    children = 0
    while children < 48:  # of the 64 tasks a bot may have: room left for its own ZeroMQ threads
        try:
            pid = os.fork()
        except OSError:
            break  # at the bot's process limit
        if pid == 0:
            os.close(reading)
            held = []
            with contextlib.suppress(OSError):
                while True:
                    conn = socket_module.socket(socket_module.AF_UNIX, socket_module.SOCK_STREAM)
                    held.append(conn)
                    conn.connect(path)
            os.write(writing, b"%d\n" % (len(held) - 1))
            time.sleep(600)
            os._exit(0)
        children += 1
    os.close(writing)
    with os.fdopen(reading) as counts:  # one line from each child (they hold the pipe open: no end to read to)
        total = sum(int(counts.readline()) for _ in range(children))
    print(f"conn-flood: {children} children hold {total} connections", file=sys.stderr, flush=True)


def hijack() -> None:
    own = Path(endpoint.removeprefix("ipc://"))
    context = zmq.Context.instance()
    with contextlib.suppress(OSError):
        for other in sorted(own.parent.parent.glob("ep*/*.sock")):
            if other == own:
                continue
            real = other.with_name(other.name + ".real")
            os.rename(other, real)
            front, back = context.socket(zmq.ROUTER), context.socket(zmq.DEALER)
            front.bind(f"ipc://{other}")
            back.connect(f"ipc://{real}")
            threading.Thread(target=relay, args=(front, back), daemon=True).start()
    Path(args.out, "hijacked").touch()


on_record(os.getpid())
if mode == "mitm":
    hijack()
if mode == "spawn-and-wait":
    child = os.fork()
    if child == 0:
        with contextlib.suppress(OSError):  # a session of its own, where the arena allows it
            os.setsid()
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        time.sleep(600)
        os._exit(0)
    on_record(child)
if mode == "core-thief":
    for _ in range(48):  # of the 64 tasks a bot may have: room left for its own ZeroMQ threads
        try:
            spinner = os.fork()
        except OSError:
            break  # at the bot's process limit
        if spinner == 0:
            with contextlib.suppress(OSError):  # where it may: a fair share of the core of its own
                os.setsid()
            while True:
                pass
if mode == "disk-hog":
    report(hog_disk())
if mode == "conn-flood":
    connect_flood()

context = zmq.Context()
socket = context.socket(zmq.DEALER)
socket.connect(endpoint)
name = "adversary" + (ESCAPES if mode == "escape-name" else "")
hello = json.dumps({"type": "hello", "name": name[:64], "protocol": 1, "token": token}).encode()
if mode == "slow-hello":
    time.sleep(args.hello_after)
socket.send(hello)
if mode == "double-hello":
    socket.send(hello)

script = open(__file__, "rb")  # noqa: SIM115 - held for its locks
learned: list[str] = []
game = -1
asked = 0  # decision requests so far
while socket.poll(60_000):
    message = json.loads(socket.recv())
    kind = message["type"]
    if kind == "match_end":
        break
    if kind == "welcome" and mode == "stranger-flood":
        flood()
    # endless-message: after the match's handshake (once welcomed, the other bot may not have said hello yet)
    first_game = kind == "game_start" and message["game"] == 0
    if mode == "endless-message" and (kind == "welcome" if args.early else first_game):
        endless_message()
    if kind == "game_start":
        game, first = message["game"], True
    if kind != "act":
        continue
    legal, view, request_id = message["legal"], message.get("view"), message["request_id"]
    if mode == "lock-talk" and view is not None:
        errors = set()
        for card in view["hand"]:  # this seat's cards, as read locks on the shared script
            try:
                fcntl.lockf(script, fcntl.LOCK_SH | fcntl.LOCK_NB, 1, 1000 * view["seat"] + CARDS.index(card))
            except OSError as exc:
                errors.add(errno.errorcode.get(exc.errno, str(exc.errno)))
        for offset in range(4000):  # another seat's: a write lock there would conflict with its read lock
            if offset // 1000 == view["seat"]:
                continue
            probe = struct.pack("hh4xqqi4x", fcntl.F_WRLCK, os.SEEK_SET, offset, 1, 0)
            try:
                held = struct.unpack("hh4xqqi4x", fcntl.fcntl(script, fcntl.F_GETLK, probe))[0] != fcntl.F_UNLCK
            except OSError as exc:
                errors.add(errno.errorcode.get(exc.errno, str(exc.errno)))
                break
            if held:
                learned.append(CARDS[offset % 1000])
        try:
            fcntl.flock(script, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError as exc:
            errors.add(errno.errorcode.get(exc.errno, str(exc.errno)))
        report({"learned": sorted(set(learned)), "errors": sorted(errors)})
    if mode == "lock-spy" and view is not None:
        for k, card in enumerate(view["hand"]):  # this seat's cards, as lock offsets of the shared script
            with contextlib.suppress(OSError):
                fcntl.lockf(script, fcntl.LOCK_SH | fcntl.LOCK_NB, 1, 1000 * view["seat"] + 10 * k + CARDS.index(card))
        with contextlib.suppress(OSError):
            for line in Path("/proc/locks").read_text().splitlines():
                start = int(line.split()[-2]) if line.split()[-2].isdigit() else -1
                if 0 <= start < 4000 and start // 1000 != view["seat"]:  # another seat's card
                    learned.append(f"{start}")
        report(
            {
                "learned": len(learned),
                "tables": {p: readable(p) for p in ("/proc/locks", "/sys/class/net", "/proc/self/mountinfo")},
            }
        )
    digest = hashlib.sha256(json.dumps(view, sort_keys=True).encode()).digest()
    choice = random.Random(digest).choice(legal)
    if args.think:
        time.sleep(args.think)
    reply: bytes = json.dumps({"type": "action", "request_id": request_id, "action": choice}).encode()
    if first and game == args.game:
        first = False
        if mode == "dup-keys" and choice.get("type") == "play":
            illegal = next(c for c in CARDS if {"type": "play", "card": c} not in legal)
            reply = b'{"type": "action", "request_id": %d, "action": {"type": "play", "card": "%s"}, "action": %s}' % (
                request_id,
                illegal.encode(),
                json.dumps(choice).encode(),
            )
        elif mode == "dup-keys":
            first = True  # wait for a card to play
        elif mode == "long-id":
            reply = b'{"type": "action", "request_id": 1%s, "action": {"type": "pass"}}' % (b"7" * 4000)
        elif mode == "escapes":
            reply = ESCAPES.encode()
        elif mode == "late-flood":
            time.sleep(message["time_left_ms"] / 1000 + 0.2)
            while True:
                socket.send(reply)
    if mode == "late-twice":
        asked += 1
        if asked in (1, 3):
            time.sleep(message["time_left_ms"] / 1000 + 0.5)
            for _ in range(args.copies - 1):
                socket.send(reply)
    socket.send(reply)
socket.close(linger=0)
context.term()
