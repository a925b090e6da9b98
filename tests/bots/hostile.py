"""A raw-pyzmq test bot that plays like raw_random.py until its cue, then breaks one rule of the protocol.

    hostile.py MODE [--game G] [--act N] [--times K] [--once MARKER] [--dump FILE] [--pid-dir DIR]
               [--noise BYTES] [--wait-for FILE] [--signal FILE] [--hold FILE] [--delay S] [--look PATH]...
               [--spin] [--settle S]

In-game modes misbehave at the N-th decision request of game G (an index, or ``all``) and the K-1 after it:
    timeout        never answers
    crash          exits
    malformed      sends bytes that are not UTF-8
    not-json       sends UTF-8 text that is not JSON
    deep           sends JSON nested 30,000 deep
    schema         sends JSON of the wrong shape
    oversized      pads its answer to 200 KiB, over the limit and under the transport's hard limit
    huge           pads its answer to 2 MiB, over the transport's hard limit (1 MiB)
    illegal        plays a card it may not play
    wrong-request  answers a request that was never made
    rehello        says hello again
    flood          answers, waits 5 ms, sends a burst of frames (only when it leads, so the other seat acts next)
    chatter        sends three more frames hard on the heels of its answer
    late           answers after sleeping ``--delay`` seconds (past its time bank)
    wrong-phase    acts for another phase: a bid while it must play, a card while it must bid
    hog            allocates (and touches) memory until it is refused, says how much it got, and dies of it
    cpu-hog        spins until its CPU time runs out
Start modes misbehave before playing:
    crash-at-start, bad-protocol, no-hello (an action first), bad-token, silent (never says hello)
Other modes:
    polite         never misbehaves
    intruder       also speaks on every other bot's endpoint it can find (listing directories, guessing names)
    thief          also reads another bot's endpoint and token from /proc/PID/environ and answers for it
    spawn          leaves a grandchild process behind
    escape         leaves a grandchild behind in a session of its own (double fork + setsid)
    fork-bomb      once connected, forks without end (every child too); reports the tasks it sees to stderr
                   ``--settle`` seconds later (1 by default: the bomb at its limit), then plays on (the forks go on)
    snoop          once connected, tries to learn what it may not: other processes through /proc, the referee's
                   memory and environment, other endpoints, the network, and every ``--look PATH`` (a database,
                   logs, records, another bot's files); reports what it saw as one JSON line on stderr, then plays

With ``--once`` the bot misbehaves only if MARKER does not exist yet (and creates it), so a restarted process
behaves. ``--dump`` appends every frame received to FILE, ``--pid-dir`` leaves a file named for each pid it starts
(``TOKEN-PID``: a bot's pid is its own namespace's, its token tells it apart on the host; the file holds
the uid it runs as), ``--noise`` writes that many bytes to stderr first, ``--wait-for FILE`` makes a slow
starter that connects once FILE exists (or after 5 s). A thief creates ``--signal FILE`` once it has spoken (or
given up); a flooder creates FILE.coming before its answer and FILE after its burst, and a bot with ``--hold FILE``
then holds back its next answer until FILE exists (so that the burst is read while that bot is being asked).
``--spin`` burns a CPU in a thread meanwhile.
"""

import argparse
import contextlib
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import zmq

FDS_AT_START = sorted(int(fd) for fd in os.listdir("/proc/self/fd"))  # before it opens any (3: the listing)
START_MODES = {"crash-at-start", "bad-protocol", "no-hello", "bad-token", "silent"}
CARDS = [r + s for s in "CDHS" for r in "789TJQKA"] + ["JK"]

parser = argparse.ArgumentParser()
parser.add_argument("mode")
parser.add_argument("--game", default="0")
parser.add_argument("--act", type=int, default=3)
parser.add_argument("--times", type=int, default=1)
parser.add_argument("--once")
parser.add_argument("--dump")
parser.add_argument("--pid-dir")
parser.add_argument("--noise", type=int, default=0)
parser.add_argument("--wait-for")
parser.add_argument("--signal")
parser.add_argument("--hold")
parser.add_argument("--delay", type=float, default=2.0)
parser.add_argument("--look", action="append", default=[])
parser.add_argument("--spin", action="store_true")
parser.add_argument("--settle", type=float, default=1.0)
args = parser.parse_args()
mode = args.mode
endpoint, token = os.environ["ARENA_ENDPOINT"], os.environ["ARENA_TOKEN"]


def armed() -> bool:
    """Whether this process may misbehave (with --once, only the first process to get here does)."""
    if args.once is None:
        return True
    try:
        Path(args.once).touch(exist_ok=False)
    except FileExistsError:
        return False
    return True


def send(sock: zmq.Socket, message: object) -> None:
    sock.send(json.dumps(message).encode())


def on_record() -> None:
    """Note this process in ``--pid-dir`` as ``TOKEN-PID`` holding its uid (tests/sandboxing.py reads it)."""
    if args.pid_dir:
        Path(args.pid_dir, f"{token}-{os.getpid()}").write_text(str(os.getuid()))


on_record()
if mode == "spawn":
    child = subprocess.Popen(["sleep", "600"])
    Path(args.pid_dir, f"{token}-{child.pid}").touch()
if mode == "escape":
    recorded, recorded_w = os.pipe()
    if os.fork() == 0:
        with contextlib.suppress(OSError):  # a session of its own, where the arena allows it
            os.setsid()
        if os.fork() == 0:
            on_record()
            os.write(recorded_w, b".")
            time.sleep(600)
        os._exit(0)
    os.wait()
    os.close(recorded_w)
    os.read(recorded, 1)  # the escapee is on record before the bot plays on (a short match could end first)
    os.close(recorded)
if args.noise:
    chunk = b"noise " * 10_000 + b"\n"
    for _ in range(args.noise // len(chunk) + 1):
        sys.stderr.buffer.write(chunk)
    sys.stderr.flush()


def steal() -> None:
    """Find another bot of this match by its environment, say hello with its token, and answer for it, badly; or,
    having found none within 2 s, say so (``--signal``) and give up."""
    # The match's directory: each endpoint sits in a folder of its own in it (``ep<N>/bot<N>.sock``). The folder
    # itself was compared, which no other bot's endpoint is in: the thief could not have found its victim anyway.
    directory = Path(endpoint.removeprefix("ipc://")).parent.parent
    # The other bots start before this one, so an environment that can be read is read within the first scans: 2 s
    # is ample even on a slow host (the slow starter waiting on --signal would otherwise wait its 5 s). A scan every
    # 50 ms, 40 in the 2 s: a victim whose environment can be read is there all along (the slow starter waits for
    # the signal), so the first scan after its start finds it, as at the 400 scans one every 5 ms made (each reads
    # every process's environment: about a core second in all).
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        for proc in Path("/proc").iterdir():
            try:
                entries = (proc / "environ").read_bytes().decode(errors="replace").split("\0")
            except OSError:
                continue
            env = dict(entry.partition("=")[::2] for entry in entries)
            victim = env.get("ARENA_ENDPOINT", "")
            if victim and victim != endpoint and Path(victim.removeprefix("ipc://")).parent.parent == directory:
                stolen = zmq.Context().socket(zmq.DEALER)
                stolen.connect(victim)
                send(stolen, {"type": "hello", "name": "thief", "protocol": 1, "token": env["ARENA_TOKEN"]})
                if args.signal:
                    Path(args.signal).touch()
                while True:
                    message = json.loads(stolen.recv())
                    if message["type"] == "act":
                        action = next(
                            {"type": "play", "card": c}
                            for c in CARDS
                            if {"type": "play", "card": c} not in message["legal"]
                        )
                        send(stolen, {"type": "action", "request_id": message["request_id"], "action": action})
        time.sleep(0.05)
    if args.signal:  # nothing to steal: the slow starter may go on
        Path(args.signal).touch()


def neighbours() -> set[str]:
    """Other bots' endpoints: whatever listing the directories around its own shows, and names guessed from its own."""
    own = Path(endpoint.removeprefix("ipc://"))
    found = set()
    for directory in (own.parent, own.parent.parent):
        with contextlib.suppress(OSError):
            found.update(str(p) for p in directory.rglob("*.sock"))
    for n in range(8):  # the same layout with another bot's number
        folder, name = (re.sub(r"\d+", str(n), part) for part in (own.parent.name, own.name))
        found.add(str(own.parent.parent / folder / name))
    return {f"ipc://{path}" for path in found} - {endpoint}


def bomb() -> None:
    """Fork for ever, in every child too; a refused fork is retried (the slots it holds stay taken)."""
    if os.fork() != 0:
        return
    while True:
        try:
            os.fork()
        except OSError:
            time.sleep(0.05)


def tasks() -> int:
    """Tasks (processes and threads) this bot can see in /proc."""
    count = 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                count += len(list((entry / "task").iterdir()))
    return count


def attempt(action) -> str:
    """What came of trying: ``ok`` (with a little of what it read), or the error's name."""
    try:
        result = action()
    except OSError as exc:
        return type(exc).__name__ + (f" {errno_name(exc.errno)}" if exc.errno else "")
    return "ok" + (f": {result[:60]!r}" if isinstance(result, (bytes, str)) and result else "")


def read_or_list(path: str) -> str | bytes:
    """A file's first bytes, or a directory's entries."""
    if os.path.isdir(path):
        return ",".join(sorted(os.listdir(path)))
    with open(path, "rb") as f:
        return f.read(200)


def errno_name(code: int) -> str:
    import errno

    return errno.errorcode.get(code, str(code))


def snoop() -> dict:
    """Everything it tried, and what came of it."""
    import resource
    import socket as sockets

    parent = os.getppid()
    seen: dict = {"uid": os.getuid(), "gid": os.getgid(), "groups": os.getgroups(), "cwd": os.getcwd()}
    seen["env"] = sorted(os.environ)
    seen["fds_at_start"] = FDS_AT_START
    seen["forked"] = "arena.play.forkserver" in sys.modules  # by the referee's fork server, not exec'd
    seen["limits"] = {
        name: list(resource.getrlimit(getattr(resource, f"RLIMIT_{name}")))
        for name in ("AS", "CPU", "NPROC", "FSIZE", "NOFILE", "CORE")
    }
    seen["pids"] = sorted(int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit())
    seen["parent"] = {
        name: attempt(lambda name=name: Path(f"/proc/{parent}/{name}").read_bytes())
        for name in ("environ", "mem", "cmdline", "maps")
    }
    # pid 1 of a namespace of its own has no parent it can name (getppid() is 0): the referee is out of sight
    seen["signal_parent"] = attempt(lambda: os.kill(parent, 0)) if parent > 0 else "hidden: no parent in sight"
    tokens = []
    for pid in seen["pids"]:
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:
            continue
        tokens += [e for e in environ.split(b"\0") if e.startswith(b"ARENA_TOKEN=") and e[12:].decode() != token]
    seen["foreign_tokens"] = len(tokens)
    own = Path(endpoint.removeprefix("ipc://"))
    seen["endpoint_dir"] = attempt(lambda: ",".join(sorted(os.listdir(own.parent))))
    seen["match_dir"] = attempt(lambda: ",".join(sorted(os.listdir(own.parent.parent))))
    others = {}
    for address in sorted(neighbours()):
        unix = sockets.socket(sockets.AF_UNIX, sockets.SOCK_STREAM)
        others[address] = attempt(lambda unix=unix, address=address: unix.connect(address.removeprefix("ipc://")))
        unix.close()
    seen["other_endpoints"] = others
    seen["network"] = attempt(lambda: sockets.create_connection(("1.1.1.1", 53), timeout=1).close())
    seen["loopback"] = attempt(lambda: sockets.create_connection(("127.0.0.1", 22), timeout=1).close())
    seen["abstract"] = attempt(lambda: sockets.socket(sockets.AF_UNIX).connect("\0arena-probe"))
    seen["look"] = {path: attempt(lambda path=path: read_or_list(path)) for path in args.look}
    seen["write_home"] = attempt(lambda: Path(os.environ.get("HOME", "."), "mine").write_text("x"))
    seen["write_tmp"] = attempt(lambda: Path("/tmp/snoop").write_text("x"))
    seen["home_is_cwd"] = os.environ.get("HOME") == os.getcwd()
    return seen


def spin() -> None:
    """Burn a CPU for as long as it is allowed to."""
    while True:
        pass


if mode == "thief":
    threading.Thread(target=steal, daemon=True).start()
if args.spin:
    # The spinner holds the GIL but for the main thread's turns, which it gets 0.5 ms after it asks, not 5 ms
    # (Python's default): a core burnt as before, but its bot plays at its pace, not held up at every wake-up (its
    # four games took 7 s, the spinner's core all along, where the other match of a tournament took 0.6 s).
    sys.setswitchinterval(0.0005)
    threading.Thread(target=spin, daemon=True).start()
if args.wait_for:  # a slow starter: connect once FILE exists (or after 5 s)
    waited = time.monotonic() + 5
    while not Path(args.wait_for).exists() and time.monotonic() < waited:
        time.sleep(0.01)
    time.sleep(0.2)
start_cue = mode in START_MODES and armed()
if start_cue and mode == "crash-at-start":
    sys.exit(3)
context = zmq.Context()
socket = context.socket(zmq.DEALER)
socket.connect(endpoint)
hello = {"type": "hello", "name": mode, "protocol": 1, "token": token}
if start_cue and mode == "bad-protocol":
    hello["protocol"] = 99
if start_cue and mode == "bad-token":
    hello["token"] = "0" * 32
if start_cue and mode == "no-hello":
    send(socket, {"type": "action", "request_id": 1, "action": {"type": "pass"}})
if not (start_cue and mode == "silent"):
    send(socket, hello)
if mode == "fork-bomb":
    bomb()
    time.sleep(args.settle)
    print(f"fork-bomb: {tasks()} tasks", file=sys.stderr, flush=True)
if mode == "snoop":
    print("snoop: " + json.dumps(snoop()), file=sys.stderr, flush=True)

others = []
if mode == "intruder":
    for address in sorted(neighbours()):
        other = context.socket(zmq.DEALER)
        other.setsockopt(zmq.LINGER, 0)
        other.connect(address)  # asynchronous: an endpoint it may not reach just never gets the frames
        send(other, {"type": "hello", "name": "intruder", "protocol": 1, "token": token})
        others.append(other)

dump = open(args.dump, "ab") if args.dump else None  # noqa: SIM115
game, acts, fouls, held = -1, 0, 0, False
while socket.poll(60_000):
    raw = socket.recv()
    if dump is not None:
        dump.write(raw + b"\n")
        dump.flush()
    message = json.loads(raw)
    if message["type"] == "match_end":
        break
    if message["type"] == "game_start":
        game, acts, fouls = message["game"], 0, 0
    if message["type"] != "act":
        continue
    acts += 1
    request_id, legal, view = message["request_id"], message["legal"], message["view"]
    digest = hashlib.sha256(json.dumps(view, sort_keys=True).encode()).digest()
    choice = random.Random(digest).choice(legal)
    reply = {"type": "action", "request_id": request_id, "action": choice}
    in_game = args.game in ("all", str(game))
    cue = in_game and acts >= args.act and fouls < args.times
    if mode == "flood":
        cue = cue and view["phase"] == "play" and not view["trick"]
    if cue and armed():
        fouls += 1
        if mode == "timeout":
            time.sleep(600)
        elif mode == "crash":
            os._exit(3)
        elif mode == "malformed":
            socket.send(b"\xff\xfe{not json")
            continue
        elif mode == "not-json":
            socket.send(b"{type: action}")
            continue
        elif mode == "deep":  # valid JSON, nested deeper than any parser's recursion limit, under the size cap
            socket.send(
                b'{"type": "action", "request_id": %d, "action": ' % request_id + b"[" * 30000 + b"]" * 30000 + b"}"
            )
            continue
        elif mode == "schema":
            send(socket, {"type": "action", "request_id": request_id, "move": choice})
            continue
        elif mode == "oversized":
            reply["padding"] = "x" * (200 * 1024)
        elif mode == "huge":
            reply["padding"] = "x" * (2 * 1024 * 1024)
        elif mode == "illegal":
            reply["action"] = next(
                {"type": "play", "card": c} for c in CARDS if {"type": "play", "card": c} not in legal
            )
        elif mode == "wrong-request":
            reply["request_id"] = request_id + 1
        elif mode == "rehello":
            send(socket, hello)
            continue
        elif mode == "late":
            time.sleep(args.delay)
        elif mode == "wrong-phase":
            wrong = {"type": "play", "card": CARDS[0]} if view["phase"] != "play" else {"type": "order_up"}
            reply["action"] = wrong
        elif mode == "hog":
            hoard, got = [], 0
            try:
                while True:
                    hoard.append(b"\x01" * (16 * 1024 * 1024))
                    got += 16
            except MemoryError:
                hoard.clear()
                print(f"hog: refused after {got} MiB", file=sys.stderr, flush=True)
                raise
        elif mode == "cpu-hog":
            while True:
                pass
    if args.hold and not held and Path(f"{args.hold}.coming").exists():  # let an announced flood arrive first
        held = True
        waited = time.monotonic() + 5
        while not Path(args.hold).exists() and time.monotonic() < waited:
            time.sleep(0.005)
        time.sleep(0.5)  # the flood's frames reach the referee first (0.05 s was one wake-up of ZeroMQ's I/O thread)
    if cue and mode == "flood" and args.signal:
        Path(f"{args.signal}.coming").touch()
    send(socket, reply)
    if cue and mode == "chatter":  # extra frames hard on the heels of the answer
        for _ in range(3):
            send(socket, {"type": "action", "request_id": 0, "action": {"type": "pass"}})
    if cue and mode == "flood":  # a burst once the answer has surely been read on its own
        time.sleep(0.005)
        for _ in range(200):
            send(socket, {"type": "action", "request_id": 0, "action": {"type": "pass"}})
        if args.signal:
            Path(args.signal).touch()
    for other in others:  # the next request is probably another seat's: try to answer it for that seat
        for guess in (request_id + 1, request_id + 2):
            send(other, {"type": "action", "request_id": guess, "action": {"type": "pass"}})
            send(other, {"type": "action", "request_id": guess, "action": choice})
socket.close(linger=0)
if mode == "thief":
    os._exit(0)  # the stealing thread may still be waiting on its socket
context.term()
