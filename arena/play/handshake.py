"""The handshake of a match's bots: each one's first frame must be a ``hello`` with its token and the protocol's
version (protocol.md §3), within the match's ``handshake_timeout``; a bot that fails is told why, and charged.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import orjson

from arena import PROTOCOL_VERSION
from arena.play.inbox import READ_BUDGET
from arena.play.incoming import Hello, MessageError, read_bot_message
from arena.play.runner import DETAIL_LIMIT, Violation, excerpt

if TYPE_CHECKING:
    from arena.play.botproc import Process
    from arena.play.referee import Referee


class Handshake:
    """Shakes hands with the bots of one match's referee (at its start, and whenever one is restarted)."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee

    def run(self, indexes: list[int]) -> list[tuple[int, Violation]]:
        waiting = set(indexes)
        failed: list[tuple[int, Violation]] = []
        deadline = time.monotonic() + self.referee.spec.handshake_timeout
        while waiting:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            for endpoint in self.referee.hub.wait(min(remaining, 0.05)):
                b = endpoint.index
                if b not in waiting:
                    self.referee.inbox.drain(endpoint)  # a second hello, or a stranger: after its hello, unasked frames
                    continue
                for _ in range(READ_BUDGET):
                    frame = endpoint.receive()
                    if frame is None:
                        break
                    problem = self._check_hello(b, *frame)
                    if problem is None:
                        waiting.discard(b)
                        self.referee.inbox.drain(endpoint)  # what came right behind the hello was not asked for
                        break
                    if problem.kind != "foreign":
                        failed.append((b, problem))
                        waiting.discard(b)
                        break
                    if (flood := self.referee.inbox.flooded(endpoint)) is not None:
                        failed.append((b, flood))
                        waiting.discard(b)
                        self.referee.cut_off(b)  # now, as any flood: not at its restart
                        break
            self.referee.memory.check(handshake=True)
            for b in list(waiting):
                if (
                    flood := self.referee.inbox.flooded(self.referee.endpoints[b])
                ) is not None:  # connections, before any hello
                    failed.append((b, flood))
                    waiting.discard(b)
                    self.referee.cut_off(b)  # now, as any flood: not at its restart
                    continue
                process = self.referee.processes[b]
                if process is not None and not process.alive():
                    process.check_set_up()  # a process that never ran the bot's code is the arena's failure
                    ended = process.exit_description()
                    failed.append((b, Violation("handshake", f"bot {ended} before hello{_stdio_hint(process, ended)}")))
                    waiting.discard(b)
        failed.extend((b, Violation("handshake", "no hello within the handshake timeout")) for b in waiting)
        for b, violation in failed:
            self.referee.needs_restart[b] = True
            self._notify(b, violation)
        return failed

    def _notify(self, b: int, violation: Violation) -> None:
        """Tell a bot why its hello was refused (sent even though no peer was accepted on its endpoint)."""
        endpoint = self.referee.endpoints[b]
        if endpoint.last_sender is not None and endpoint.peer is None:
            notice = {
                "type": "violation",
                "kind": "handshake",
                "detail": violation.detail[:DETAIL_LIMIT],
                "strikes": self.referee.strikes[b] + 1,
                "max_strikes": self.referee.spec.max_strikes,
            }
            endpoint.send_to(endpoint.last_sender, orjson.dumps(notice))

    def _check_hello(self, b: int, ident: bytes, raw: bytes) -> Violation | None:
        process = self.referee.processes[b]
        assert process is not None
        try:
            message = read_bot_message(raw)
        except MessageError as exc:
            return Violation("handshake", f"first message: {exc.detail}", excerpt(raw))
        if not isinstance(message, Hello):
            return Violation("handshake", "the first message must be hello", excerpt(raw))
        if message.token != process.token:
            self.referee.inbox.stranger(self.referee.endpoints[b], raw)
            return Violation("foreign", "hello with a wrong token")
        if message.protocol != PROTOCOL_VERSION:
            return Violation("handshake", f"protocol {message.protocol} not spoken (this referee speaks 1)")
        self.referee.endpoints[b].peer = ident
        self.referee.hello[b] = message
        self.referee.viewed[b] = -1
        self.referee.send(
            b,
            {
                "type": "welcome",
                "protocol": PROTOCOL_VERSION,
                "match_id": self.referee.public_id,
                "name": self.referee.spec.bots[b].name,
            },
        )
        return None


def _stdio_hint(process: Process, ended: str) -> str:
    """A ZeroMQ bot that ended cleanly before its hello is most often a stdio bot given without ``stdio:``: its stdin
    is /dev/null, so it read the end of its input at once and stopped."""
    if process.command.transport == "zmq" and ended == "exited with code 0":
        return " (its stdin is /dev/null: a bot that speaks JSON lines on stdin and stdout is given as stdio:PATH)"
    return ""
