"""A bot written from protocol.md alone with raw pyzmq (no SDK): plays a seeded-random legal action."""

import hashlib
import json
import os
import random

import zmq

context = zmq.Context()
socket = context.socket(zmq.DEALER)
socket.connect(os.environ["ARENA_ENDPOINT"])
socket.send(json.dumps({"type": "hello", "name": "raw", "protocol": 1, "token": os.environ["ARENA_TOKEN"]}).encode())
while True:
    if not socket.poll(60_000):
        break
    message = json.loads(socket.recv())
    if message["type"] == "match_end":
        break
    if message["type"] == "act":
        digest = hashlib.sha256(json.dumps(message["view"], sort_keys=True).encode()).digest()
        choice = random.Random(digest).choice(message["legal"])
        reply = {"type": "action", "request_id": message["request_id"], "action": choice}
        socket.send(json.dumps(reply).encode())
socket.close(linger=0)
context.term()
