"""The loop of a bot process: connect to the referee, say hello, answer requests until the match ends.

This is the bot side's transport, the SDK's only module that imports zmq, and only once ``run`` connects with it.
A bot started for the stdio transport (``ARENA_TRANSPORT=stdio``) reads JSON lines on stdin and writes them on stdout
instead, and never loads zmq (some 15 ms of processor time, a fifth of a bot's start); its own prints then go to
stderr (its log), so that nothing but protocol lines reaches the referee.
"""

from __future__ import annotations

import os
import sys
import time
from typing import TYPE_CHECKING

import orjson

from arena import PROTOCOL_VERSION, JSONObject
from arena.sdk.bot import ActFunction, Bot, as_bot
from arena.sdk.logs import log_to_stderr, logger

if TYPE_CHECKING:
    import zmq

IDLE_TIMEOUT_S = 600.0
POLL_MS = 1000
LINGER_MS = 2000


def run(
    bot: Bot | ActFunction,
    *,
    name: str | None = None,
    version: str | None = None,
    endpoint: str | None = None,
    token: str | None = None,
    idle_timeout: float = IDLE_TIMEOUT_S,
) -> None:
    """Play a match as a referee's child process: endpoint and token default to ARENA_ENDPOINT and ARENA_TOKEN.

    Returns after ``match_end``, after ``idle_timeout`` seconds without a message, or when the parent process is
    gone. Logs go to stderr only (at INFO, unless the program configured logging itself); stdout is left alone.
    """
    log_to_stderr()
    player = as_bot(bot, name=name)
    endpoint = endpoint or os.environ.get("ARENA_ENDPOINT")
    token = token if token is not None else os.environ.get("ARENA_TOKEN", "")
    stdio = endpoint is None and os.environ.get("ARENA_TRANSPORT") == "stdio"
    if not endpoint and not stdio:
        raise SystemExit("arena.sdk.run: no endpoint; the referee sets ARENA_ENDPOINT (or ARENA_TRANSPORT=stdio)")
    hello: JSONObject = {"type": "hello", "name": player.name, "protocol": PROTOCOL_VERSION, "token": token}
    if version or player.version:
        hello["version"] = version or player.version
    if not player.want_view:
        hello["view"] = False  # the SDK keeps the picture from the events; the view comes once per hand
    if player.variants is not None:
        hello["variants"] = list(player.variants)  # a match of another variant is refused before its first game
    if stdio or endpoint is None:
        _stdio_loop(player, hello)
    else:
        _zmq_session(player, hello, endpoint, idle_timeout)


def _zmq_session(player: Bot, hello: JSONObject, endpoint: str, idle_timeout: float) -> None:
    """The ZeroMQ transport: a DEALER connected to the referee's endpoint, for the whole match."""
    import zmq

    context = zmq.Context()
    socket = context.socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, LINGER_MS)
    try:
        socket.connect(endpoint)
        socket.send(_encode(hello))
        _loop(socket, player, idle_timeout)
    finally:
        socket.close()
        context.term()


def _loop(socket: zmq.Socket[bytes], player: Bot, idle_timeout: float) -> None:
    import zmq
    from zmq.backend import Socket as RawSocket

    # The socket's own send and receive, past pyzmq's Python layer (its send looks for routing ids and groups that a
    # DEALER never uses): about a microsecond less at every message.
    send, receive = RawSocket.send, RawSocket.recv
    parent = os.getppid()
    last = time.monotonic()
    socket.setsockopt(zmq.RCVTIMEO, POLL_MS)  # a blocking read that gives up now and then: no poll per message
    while not player.finished:
        try:
            raw = receive(socket)
        except zmq.Again:
            if time.monotonic() - last > idle_timeout:
                logger().warning("no message from the referee for %.0f s; exiting", idle_timeout)
                return
            if os.getppid() != parent:
                logger().warning("the parent process is gone; exiting")
                return
            continue
        last = time.monotonic()
        try:
            message = orjson.loads(raw)
        except orjson.JSONDecodeError:
            logger().warning("ignoring a frame that is not UTF-8 JSON (%d bytes)", len(raw))
            continue
        if not isinstance(message, dict):
            logger().warning("ignoring a message that is not a JSON object")
            continue
        reply = player.handle(message)
        if reply is not None:
            send(socket, _encode(reply))


def _stdio_loop(player: Bot, hello: JSONObject) -> None:
    """The stdio transport: one JSON object a line each way, until ``match_end`` or the end of stdin."""
    channel = os.fdopen(os.dup(1), "wb", buffering=0)  # the real stdout, kept for protocol lines alone
    os.dup2(2, 1)  # what the bot prints goes to its log
    channel.write(_encode(hello) + b"\n")
    for line in sys.stdin.buffer:
        try:
            message = orjson.loads(line)
        except orjson.JSONDecodeError:
            logger().warning("ignoring a line that is not UTF-8 JSON (%d bytes)", len(line))
            continue
        if not isinstance(message, dict):
            continue
        reply = player.handle(message)
        if reply is not None:
            channel.write(_encode(reply) + b"\n")
        if player.finished:
            return


_encode = orjson.dumps  # a message's wire form, on both transports
