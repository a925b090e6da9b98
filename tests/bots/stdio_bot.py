"""A stdio test bot written from protocol.md alone (no SDK, no ZeroMQ): JSON lines on stdin and stdout.

    stdio_bot.py MODE [--once MARKER] [--out FILE]

Plays a seeded-random legal action, and:
    polite        nothing more
    junk          at its third decision writes a line that is not JSON
    long-line     at its third decision writes 2 MiB with no newline, then its answer on the next line
    long-line-alone  at its third decision writes 2 MiB and a newline, and no answer (that line settles the request)
    dies-mid-line    at its third decision writes 2 MiB with no newline (past the referee's 1 MiB cut) and exits;
                     with ``--once``, only the first process does (its replacement plays)
    dies-mid-short-line  the same with 512 KiB (under the cut: a line begun, never ended)
    deaf          stops reading its stdin after the hello (the referee must not block on its full pipe)
    viewless      says ``"view": false`` and records in FILE whether each request carried the view; with
                  ``--once``, crashes at its fifth decision the first time (a restart mid-game follows)
    always-junk   answers every request with a line that is not JSON, and writes to FILE each violation notice
                  and match_end it reads, pausing 50 ms after each (a bot out of strikes must be able to read why)
"""

import argparse
import hashlib
import json
import os
import random
import sys
import time
from pathlib import Path

parser = argparse.ArgumentParser()
parser.add_argument("mode")
parser.add_argument("--once")
parser.add_argument("--out")
args = parser.parse_args()
os.umask(0)  # what it writes stays writable by its replacement, which runs under another uid


def say(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def armed() -> bool:
    if args.once is None:
        return True
    try:
        Path(args.once).touch(exist_ok=False)
    except FileExistsError:
        return False
    return True


hello = {"type": "hello", "name": args.mode, "protocol": 1, "token": os.environ["ARENA_TOKEN"]}
if args.mode == "viewless":
    hello["view"] = False
say(hello)
if args.mode == "deaf":
    time.sleep(600)
acts = 0
for line in sys.stdin:
    message = json.loads(line)
    if args.mode == "always-junk" and args.out and message["type"] in ("violation", "match_end"):
        with open(args.out, "a") as f:
            f.write(f"{message['type']} {message.get('strikes', message.get('reason'))}\n")
        time.sleep(0.05)  # a bot that takes its time over a notice: the next line must still be there to read
    if message["type"] == "match_end":
        break
    if message["type"] != "act":
        continue
    acts += 1
    if args.mode == "viewless" and args.out:
        with open(args.out, "a") as f:
            f.write(f"{acts} {'view' in message}\n")
        if acts == 5 and armed():
            os._exit(3)
    if (args.mode == "junk" and acts == 3) or args.mode == "always-junk":
        sys.stdout.write("this is not json\n")
        sys.stdout.flush()
        continue
    if args.mode == "long-line-alone" and acts == 3:
        sys.stdout.write("x" * (2 << 20) + "\n")
        sys.stdout.flush()
        continue
    if args.mode.startswith("dies-mid-") and acts == 3 and armed():
        sys.stdout.write("x" * ((2 << 20) if args.mode == "dies-mid-line" else (512 << 10)))
        sys.stdout.flush()
        os._exit(3)
    if args.mode == "long-line" and acts == 3:
        sys.stdout.write("x" * (2 << 20))
        sys.stdout.write("\n")
    legal = message["legal"]
    choice = random.Random(hashlib.sha256(line.encode()).digest()).choice(legal)
    say({"type": "action", "request_id": message["request_id"], "action": choice})
