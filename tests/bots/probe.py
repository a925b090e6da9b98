"""A raw-pyzmq test bot that records what it is told, and when, and misbehaves only when asked to.

    probe.py [--dump FILE] [--report DIR] [--no-view] [--think G:N:S]... [--illegal-at G:N]...
             [--illegal-when-leading] [--crash-at G:N] [--protocol V] [--once MARKER] [--passes P]
             [--unasked-on-lead FILE] [--hold FILE] [--compact]

It plays a legal action chosen deterministically from what it was told (so a match replays exactly): with
``--passes P`` it passes with probability P whenever it may (so that bidding reaches its rarer turns), otherwise it
picks uniformly among the legal actions.

--dump FILE       appends one JSON line per frame received: ``{"t": receipt time (time.monotonic, the system-wide
                  monotonic clock), "proc": which process of the bot, "msg": the frame}``
--report DIR      writes DIR/PROC.json at start: its uids, gids, supplementary groups and /proc/self/status fields

--no-view         says ``"view": false`` in its hello (the view comes only with the first request of each hand)
--think G:N:S     takes S seconds over its N-th request (1-based) of game G, reading (and dumping) whatever arrives
                  meanwhile, then answers (late, if its time ran out)
--illegal-at G:N  answers its N-th request of game G with a card it may not play
--illegal-when-leading
                  the same, at every request where its game score is strictly above every rival's
--crash-at G:N    exits at its N-th request of game G
--protocol V      says protocol V in its hello
--unasked-on-lead FILE
                  the first time it leads a trick (so the other seat acts next), it creates FILE.coming, answers, and
                  20 ms later sends a frame it was not asked for, then creates FILE
--hold FILE       once FILE.coming exists, holds its next answer until FILE exists (at most 5 s) and 0.2 s more, so
                  that the referee reads the unasked frame while it waits for this bot
--compact         answers as the referee writes JSON (no spaces: the form its quick path reads without a parser)
--once MARKER     only the first process to misbehave (think, play illegally, crash, say another protocol) does; its
                  replacements behave

A process is named by a digest of its ARENA_TOKEN, new at every process start (its pid may be 1 in a pid namespace
of its own).
"""

import argparse
import hashlib
import json
import os
import random
import sys
import time
from pathlib import Path

import zmq

CARDS = [r + s for s in "CDHS" for r in "789TJQKA"] + ["JK"]
PROC = hashlib.sha256(os.environ["ARENA_TOKEN"].encode()).hexdigest()[:12]
STATUS_FIELDS = ("Uid", "Gid", "Groups", "NoNewPrivs", "CapInh", "CapPrm", "CapEff", "CapAmb", "Seccomp")


def request(text: str) -> tuple[int, int]:
    game, _, n = text.partition(":")
    return int(game), int(n)


def thinking(text: str) -> tuple[int, int, float]:
    game, n, seconds = text.split(":")
    return int(game), int(n), float(seconds)


parser = argparse.ArgumentParser()
parser.add_argument("--dump")
parser.add_argument("--report")
parser.add_argument("--no-view", action="store_true")
parser.add_argument("--think", type=thinking, action="append", default=[])
parser.add_argument("--illegal-at", type=request, action="append", default=[])
parser.add_argument("--illegal-when-leading", action="store_true")
parser.add_argument("--crash-at", type=request)
parser.add_argument("--once")
parser.add_argument("--passes", type=float)
parser.add_argument("--protocol", type=int)
parser.add_argument("--unasked-on-lead")
parser.add_argument("--hold")
parser.add_argument("--compact", action="store_true")
args = parser.parse_args()

if args.report:
    status = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in STATUS_FIELDS:
            status[key] = value.split()
    facts = {
        "proc": PROC,
        "resuid": list(os.getresuid()),
        "resgid": list(os.getresgid()),
        "groups": os.getgroups(),
        "status": status,
    }
    Path(args.report, f"{PROC}.json").write_text(json.dumps(facts))

dump = None
if args.dump:  # shared with the processes that may replace this one, which run under other uids when root
    dump = os.fdopen(os.open(args.dump, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666), "a")
    if os.fstat(dump.fileno()).st_uid == os.getuid():
        os.fchmod(dump.fileno(), 0o666)


def note(raw: bytes) -> dict:
    """Parse a frame and append it, with its time of receipt, to the dump."""
    message = json.loads(raw)
    if dump is not None:
        dump.write(json.dumps({"t": time.monotonic(), "proc": PROC, "msg": message}) + "\n")
        dump.flush()
    return message


marked = False  # whether this process is the one that created the --once marker


def armed() -> bool:
    """Whether this process may misbehave (with --once, only the first process to get here does)."""
    global marked
    if args.once is None or marked:
        return True
    try:
        Path(args.once).touch(exist_ok=False)
    except FileExistsError:
        return False
    marked = True
    return True


context = zmq.Context()
socket = context.socket(zmq.DEALER)
socket.connect(os.environ["ARENA_ENDPOINT"])
hello = {"type": "hello", "name": "probe", "protocol": 1, "token": os.environ["ARENA_TOKEN"], "version": "1"}
if args.no_view:
    hello["view"] = False
if args.protocol is not None and armed():
    hello["protocol"] = args.protocol
socket.send(json.dumps(hello).encode())

game, asked, done, chattered, held = -1, 0, False, False, False
while not done and socket.poll(60_000):
    message = note(socket.recv())
    kind = message["type"]
    if kind == "match_end":
        break
    if kind == "game_start" and message["game"] != game:
        game, asked = message["game"], 0
    if kind != "act":
        continue
    asked += 1
    basis = message.get("view") or {"legal": message["legal"], "events": message["events"]}
    digest = hashlib.sha256(json.dumps(basis, sort_keys=True).encode()).digest()
    rng = random.Random(digest)
    choice = rng.choice(message["legal"])
    if args.passes is not None and {"type": "pass"} in message["legal"]:
        others = [a for a in message["legal"] if a != {"type": "pass"}]
        choice = {"type": "pass"} if rng.random() < args.passes or not others else rng.choice(others)
    if args.crash_at == (game, asked) and armed():
        sys.exit(3)
    view = message.get("view")
    leading = False
    if args.illegal_when_leading and view is not None:  # ahead of every rival (a partner shares its score)
        seat, scores, n = view["seat"], view["scores"], view["players"]
        rivals = [s for s in range(n) if s != seat and not (n == 4 and s == (seat + 2) % 4)]
        leading = all(scores[seat] > scores[s] for s in rivals)
    if ((game, asked) in args.illegal_at or leading) and armed():
        choice = next({"type": "play", "card": c} for c in CARDS if {"type": "play", "card": c} not in message["legal"])
    for g, n, seconds in args.think:
        if (g, n) == (game, asked) and armed():
            until = time.monotonic() + seconds
            while (left := until - time.monotonic()) > 0:
                if socket.poll(max(1, int(left * 1000))) and note(socket.recv())["type"] == "match_end":
                    done = True
                    break
    leads = view is not None and view["phase"] == "play" and not view["trick"]
    chatter = args.unasked_on_lead is not None and leads and not chattered
    if chatter:
        Path(f"{args.unasked_on_lead}.coming").touch()
    if args.hold and not held and Path(f"{args.hold}.coming").exists():
        held = True
        until = time.monotonic() + 5
        while not Path(args.hold).exists() and time.monotonic() < until:
            time.sleep(0.005)
        time.sleep(0.2)
    if not done:
        answer = {"type": "action", "request_id": message["request_id"], "action": choice}
        socket.send(json.dumps(answer, separators=(",", ":") if args.compact else None).encode())
    if chatter:
        chattered = True
        time.sleep(0.02)
        socket.send(json.dumps({"type": "action", "request_id": 0, "action": {"type": "pass"}}).encode())
        Path(args.unasked_on_lead).touch()
socket.close(linger=0)
context.term()
