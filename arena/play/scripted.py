"""Scripted bots for fast protocol tests: the referee's transport and bot processes stood in for in this process.

A ``ScriptedHub`` is a match's endpoints in memory (it implements ``transport.Channels``) and starts each bot's
process (it is a Referee's ``start``): a ``ScriptedProcess``, alive until it is killed or told to exit. What a
process sends comes from its channel's scripts, each frame a ``Say`` with an optional delay and sender: a greeting
when the process starts (by default its hello), and an answer to each decision request (by default the first legal
action, at once). What the referee sends is kept in the channel's ``sent``. No socket, no subprocess, no thread::

    hub = ScriptedHub(bots=2)
    hub.channels[1].greeting = lambda process: [Say(b"not a hello")]
    referee = Referee(spec, hub=hub, start=hub.start)
    referee.start()  # bot 1 fails the handshake: [(1, Violation("handshake", ...))]
    hub.channels[0].answers.append(lambda request: [Say(reply(request), after=0.2)])

Delays are real time (the referee reads the clock as it does with real bots): a test that needs a deadline to pass
keeps its allowances short. Frames of one channel arrive in the order they were scripted, each not before its time.
"""

from __future__ import annotations

import secrets
import signal
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import orjson

from arena import PROTOCOL_VERSION
from arena.play.botproc import BotCommand, Transport
from arena.play.runner import Message
from arena.play.transport import Channel

if TYPE_CHECKING:
    from arena.play.referee import Referee


@dataclass(frozen=True, slots=True)
class Say:
    """One frame a scripted bot sends: ``after`` seconds after it was scripted, from ``sender`` (None: the
    connection of the bot's process; anything else is another connection on its endpoint, a stranger)."""

    frame: bytes
    after: float = 0.0
    sender: bytes | None = None


Greeting = Callable[["ScriptedProcess"], list[Say]]  # what a new process sends first
Script = Callable[[Message], list[Say]]  # a decision request -> what the bot sends back


class ScriptedProcess:
    """A bot process's stand-in: its token, and alive until it is killed or told to ``exit``."""

    pid = 0  # no process of its own (a match of scripted bots is not pinned to cores)

    def __init__(self, name: str = "scripted", transport: Transport = "zmq") -> None:
        self.token = secrets.token_hex(16)
        self.command = BotCommand(name, ("scripted",), transport)
        self.code: int | None = None  # how it ended: an exit code, or minus the signal that killed it
        self.favoured: bool | None = None  # whether the referee last gave it the processor

    def alive(self) -> bool:
        """Running until it exits or is killed."""
        return self.code is None

    def exit(self, code: int) -> None:
        """End the process with this exit code (as if the bot had stopped)."""
        if self.code is None:
            self.code = code

    def kill(self) -> None:
        """End it as the referee does: SIGKILL."""
        self.exit(-signal.SIGKILL)

    def wait_until(self, deadline: float) -> bool:
        """Whether it has ended by ``deadline``: a running one sleeps the wait through, as a real one that does not
        exit would."""
        if self.alive():
            time.sleep(max(0.0, deadline - time.monotonic()))
        return not self.alive()

    def exit_description(self) -> str:
        """How it ended, in ``BotProcess``'s words."""
        if self.code is None:
            return "still running"
        if self.code < 0:
            return f"killed by signal {signal.Signals(-self.code).name}"
        return f"exited with code {self.code}"

    def death_kind(self) -> Literal["memory", "crash"]:
        """A scripted process has no memory limit: any end is a crash."""
        return "crash"

    def check_set_up(self) -> None:
        """Nothing to set up: it always ran."""

    def favour(self, asked: bool) -> None:
        """Note whether it was given the processor."""
        self.favoured = asked


def hello(process: ScriptedProcess, **fields: Any) -> bytes:
    """The hello of ``process`` (its token, protocol 1), with ``fields`` added or replaced."""
    message = {"type": "hello", "name": process.command.name, "protocol": PROTOCOL_VERSION, "token": process.token}
    return orjson.dumps({**message, **fields})


def reply(request: Message, legal: int = 0, *, request_id: int | None = None) -> bytes:
    """The answer to ``request`` that plays its ``legal``-th legal action (with another ``request_id`` if given)."""
    answered = request["request_id"] if request_id is None else request_id
    return orjson.dumps({"type": "action", "request_id": answered, "action": request["legal"][legal]})


def greet(process: ScriptedProcess) -> list[Say]:
    """The greeting of a well-behaved bot: its hello, at once."""
    return [Say(hello(process))]


def first_legal(request: Message) -> list[Say]:
    """The answer of a well-behaved bot: the first legal action, at once."""
    return [Say(reply(request))]


@dataclass(kw_only=True)
class ScriptedChannel(Channel):
    """A bot's endpoint in memory: frames its process sends arrive from its scripts, at their times; what the
    referee sends is kept, and a decision request is answered as scripted (``answers`` first, then ``answer``)."""

    greeting: Greeting = greet
    answers: deque[Script] = field(default_factory=deque)  # the next requests' answers, in order
    answer: Script = first_legal  # for the requests after those
    process: ScriptedProcess | None = None  # the bot's process of the moment
    own: bytes = b""  # the routing id of its process's connection
    connected: int = 1  # connections open on the endpoint (``connections``)
    sent: list[bytes] = field(default_factory=list)  # every frame the referee sent, to its peer or not
    _queue: deque[tuple[float, bytes, bytes]] = field(default_factory=deque)  # (when, sender, frame)

    def say(self, *frames: Say) -> None:
        """Have the bot send ``frames`` (each after its delay, none before the one scripted ahead of it)."""
        now = time.monotonic()
        for say in frames:
            when = max(now + say.after, self._queue[-1][0] if self._queue else 0.0)
            self._queue.append((when, self.own if say.sender is None else say.sender, say.frame))

    def start(self, process: ScriptedProcess, own: bytes) -> None:
        """A new process of the bot, on a new connection: it sends its greeting."""
        self.process, self.own = process, own
        self.say(*self.greeting(process))

    def renew(self) -> None:
        """Cut the endpoint's connections: what they sent and was not read is dropped, the peer forgotten."""
        self._queue.clear()
        self.connected = 1
        self.quiet = False
        self.forget_peer()

    def send(self, data: bytes) -> bool:
        """Send one frame to the accepted peer; False when there is none."""
        if self.peer is None:
            return False
        self.bytes_out += len(data)
        self._deliver(data)
        return True

    def send_to(self, peer: bytes, data: bytes) -> None:
        """Send one frame to a peer that was not accepted."""
        self._deliver(data)

    def _deliver(self, data: bytes) -> None:
        """Keep the frame; a running process answers a decision request as scripted and exits at ``match_end``."""
        self.sent.append(data)
        if self.process is None or not self.process.alive():
            return
        message = orjson.loads(data)
        if message["type"] == "act":
            script = self.answers.popleft() if self.answers else self.answer
            self.say(*script(message))
        elif message["type"] == "match_end":
            self.process.exit(0)

    def due(self) -> float | None:
        """When the next frame arrives (``time.monotonic()``), or None when none is scripted."""
        return self._queue[0][0] if self._queue else None

    def receive(self) -> tuple[bytes, bytes] | None:
        """The next frame whose time has come, or None."""
        if not self.has_input():
            return None
        _, sender, frame = self._queue.popleft()
        self.last_sender = sender
        if sender == self.peer:
            self.bytes_in += len(frame)
        return sender, frame

    def receive_within(self, timeout: float) -> tuple[bytes, bytes] | None:
        """The next frame, waiting at most ``timeout`` seconds for it (sleeping: nothing else can send)."""
        due = self.due()
        wait = timeout if due is None else min(timeout, due - time.monotonic())
        if wait > 0:
            time.sleep(wait)
        return self.receive()

    def has_input(self) -> bool:
        """Whether a frame's time has come."""
        self.quiet = not (self._queue and self._queue[0][0] <= time.monotonic())
        return not self.quiet

    def connections(self) -> int:
        """The connections the script says are open."""
        return self.connected

    def told(self) -> list[dict[str, Any]]:
        """What the referee sent, decoded."""
        return [orjson.loads(frame) for frame in self.sent]


class ScriptedHub:
    """The endpoints of a match of scripted bots (``transport.Channels``), and the starter of their processes
    (``start``, a Referee's ``start``). ``bots``: channels made ahead, to be scripted before the referee opens them
    (their first processes' greetings)."""

    def __init__(self, bots: int = 0) -> None:
        self.channels = [ScriptedChannel(index=b, address=f"scripted:{b}") for b in range(bots)]
        self.opened = 0
        self.starts = 0  # processes started so far: each one's connection has a routing id of its own

    def open(self, *, stdio: bool = False) -> Channel:
        """The next channel (the same whatever the bot's transport)."""
        if self.opened == len(self.channels):
            self.channels.append(ScriptedChannel(index=self.opened, address=f"scripted:{self.opened}"))
        self.opened += 1
        return self.channels[self.opened - 1]

    def start(self, referee: Referee, b: int) -> ScriptedProcess:
        """Start bot ``b``'s next process: it sends its channel's greeting."""
        entry = referee.spec.bots[b]
        process = ScriptedProcess(entry.name, entry.transport)
        self.starts += 1
        self.channels[b].start(process, f"process-{self.starts}".encode())
        return process

    def renew(self, endpoint: Channel) -> None:
        """Cut the channel's connections (its process is being replaced)."""
        self.channels[endpoint.index].renew()

    def wait(self, timeout: float) -> list[Channel]:
        """Channels with frames waiting, after at most ``timeout`` seconds."""
        ready = self.maybe_waiting()
        if ready:
            return ready
        due = [when for channel in self.channels if (when := channel.due()) is not None]
        wait = min([timeout, *(when - time.monotonic() for when in due)])
        if wait > 0:
            time.sleep(wait)
        return self.maybe_waiting()

    def maybe_waiting(self) -> list[Channel]:
        """Channels with frames whose time has come."""
        return [channel for channel in self.channels if channel.has_input()]

    def close(self) -> None:
        """Nothing to close."""
