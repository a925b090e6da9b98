"""The handshake of a match's bots: each one's first frame must be a ``hello`` with its token and the protocol's
version (protocol.md §3), within the match's ``handshake_timeout``; a bot that fails is told why, and charged.
"""

from __future__ import annotations

import enum
import time
from typing import TYPE_CHECKING

import orjson

from arena import PROTOCOL_VERSION
from arena.play.inbox import READ_BUDGET, Inbox
from arena.play.incoming import Hello, MessageError, read_bot_message
from arena.play.runner import Violation, excerpt, violation_notice

if TYPE_CHECKING:
    from arena.play.botproc import Process
    from arena.play.referee import Referee
    from arena.play.transport import Channel


class GreetingState(enum.Enum):
    """Where the handshake of one bot process stands."""

    WAITING = "waiting"  # started: no hello read yet
    GREETED = "greeted"  # its hello was accepted: its connection is the endpoint's peer
    REFUSED = "refused"  # its first frame was no acceptable hello: not JSON, not a hello, another protocol
    FLOODED = "flooded"  # strangers' frames, or connections, past their limits before any hello
    DIED = "died"  # its process ended before its hello
    TIMED_OUT = "timed_out"  # no hello within the handshake timeout


class Greeting:
    """The handshake of one bot process, one frame at a time: WAITING until a frame settles it (``frame``) or its
    wait ends (``died``, ``flooded``, ``expire``); then ``state`` says how, with the ``hello`` it accepted or the
    ``violation`` it found. It reads no endpoint and sends nothing: ``Handshake`` does."""

    def __init__(self, endpoint: Channel, process: Process, inbox: Inbox) -> None:
        self.endpoint, self.process, self.inbox = endpoint, process, inbox
        self.state = GreetingState.WAITING
        self.hello: Hello | None = None
        self.violation: Violation | None = None

    def frame(self, ident: bytes, raw: bytes) -> bool:
        """Read one frame that came on the endpoint, from any connection (none is accepted yet): whether it settled
        the handshake. A hello with a wrong token is a stranger's, dropped and counted against the endpoint's limits."""
        try:
            message = read_bot_message(raw)
        except MessageError as exc:
            return self._end(
                GreetingState.REFUSED, Violation("handshake", f"first message: {exc.detail}", excerpt(raw))
            )
        if not isinstance(message, Hello):
            return self._end(
                GreetingState.REFUSED, Violation("handshake", "the first message must be hello", excerpt(raw))
            )
        if message.token != self.process.token:
            self.inbox.stranger(self.endpoint, raw)
            if (flood := self.inbox.flooded(self.endpoint)) is not None:
                return self._end(GreetingState.FLOODED, flood)
            return False
        if message.protocol != PROTOCOL_VERSION:
            detail = f"protocol {message.protocol} not spoken (this referee speaks {PROTOCOL_VERSION})"
            return self._end(GreetingState.REFUSED, Violation("handshake", detail))
        self.endpoint.peer = ident
        self.hello = message
        self.state = GreetingState.GREETED
        return True

    def flooded(self, violation: Violation) -> None:
        """The endpoint was flooded before any hello (connections that sent no frame)."""
        self._end(GreetingState.FLOODED, violation)

    def died(self) -> None:
        """The process was found ended before its hello."""
        ended = self.process.exit_description()
        self._end(
            GreetingState.DIED, Violation("handshake", f"bot {ended} before hello{_stdio_hint(self.process, ended)}")
        )

    def expire(self) -> None:
        """The handshake timeout passed with no hello."""
        self._end(GreetingState.TIMED_OUT, Violation("handshake", "no hello within the handshake timeout"))

    def _end(self, state: GreetingState, violation: Violation) -> bool:
        self.state, self.violation = state, violation
        return True


class Handshake:
    """Shakes hands with the bots of one match's referee (at its start, and whenever one is restarted): reads their
    endpoints into their ``Greeting`` until each is settled or the handshake timeout passes, and acts on each
    outcome (a welcome, a notice of the violation, a flood stopped)."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee

    def run(self, indexes: list[int]) -> list[tuple[int, Violation]]:
        """Shake hands with the bots ``indexes`` (their processes just started); returns those that failed."""
        referee = self.referee
        waiting: dict[int, Greeting] = {}
        for b in indexes:
            process = referee.processes[b]
            assert process is not None
            waiting[b] = Greeting(referee.endpoints[b], process, referee.inbox)
        failed: list[tuple[int, Violation]] = []
        deadline = time.monotonic() + referee.spec.handshake_timeout
        while waiting:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            for endpoint in referee.hub.wait(min(remaining, 0.05)):
                greeting = waiting.get(endpoint.index)
                if greeting is None:
                    referee.inbox.drain(endpoint)  # a second hello, or a stranger: after its hello, unasked frames
                    continue
                for _ in range(READ_BUDGET):
                    frame = endpoint.receive()
                    if frame is None or greeting.frame(*frame):
                        break
                self._settled(endpoint.index, greeting, waiting, failed)
            referee.memory.check(handshake=True)
            for b, greeting in list(waiting.items()):
                if (flood := referee.inbox.flooded(greeting.endpoint)) is not None:  # connections, before any hello
                    greeting.flooded(flood)
                elif not greeting.process.alive():
                    greeting.process.check_set_up()  # a process that never ran the bot's code is the arena's failure
                    greeting.died()
                self._settled(b, greeting, waiting, failed)
        for b, greeting in waiting.items():
            greeting.expire()
            assert greeting.violation is not None
            failed.append((b, greeting.violation))
        for b, violation in failed:
            referee.needs_restart[b] = True
            self._notify(b, violation)
        return failed

    def _settled(
        self, b: int, greeting: Greeting, waiting: dict[int, Greeting], failed: list[tuple[int, Violation]]
    ) -> None:
        """Act on a greeting that has settled: welcome the bot, or note its failure (a flood stops it now)."""
        if greeting.state is GreetingState.WAITING:
            return
        del waiting[b]
        if greeting.hello is not None:
            self._welcome(b, greeting.hello)
            return
        assert greeting.violation is not None
        failed.append((b, greeting.violation))
        if greeting.state is GreetingState.FLOODED:
            self.referee.cut_off(b)  # now, as any flood: not at its restart

    def _welcome(self, b: int, hello: Hello) -> None:
        """Welcome a bot whose hello was accepted; what came right behind the hello was not asked for."""
        referee = self.referee
        referee.hello[b] = hello
        referee.viewed[b] = -1
        referee.send(
            b,
            {
                "type": "welcome",
                "protocol": PROTOCOL_VERSION,
                "match_id": referee.public_id,
                "name": referee.spec.bots[b].name,
            },
        )
        referee.inbox.drain(referee.endpoints[b])

    def _notify(self, b: int, violation: Violation) -> None:
        """Tell a bot why its hello was refused (sent even though no peer was accepted on its endpoint)."""
        endpoint = self.referee.endpoints[b]
        if endpoint.last_sender is not None and endpoint.peer is None:
            strikes = self.referee.strikes[b] + 1
            notice = violation_notice("handshake", violation.detail, strikes, self.referee.spec.max_strikes)
            endpoint.send_to(endpoint.last_sender, orjson.dumps(notice))


def _stdio_hint(process: Process, ended: str) -> str:
    """A ZeroMQ bot that ended cleanly before its hello is most often a stdio bot given without ``stdio:``: its stdin
    is /dev/null, so it read the end of its input at once and stopped."""
    if process.command.transport == "zmq" and ended == "exited with code 0":
        return " (its stdin is /dev/null: a bot that speaks JSON lines on stdin and stdout is given as stdio:PATH)"
    return ""
