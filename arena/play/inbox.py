"""What the referee reads from its bots' endpoints, against the limits: the frames nobody asked for (one
``unsolicited`` strike a burst), strangers' frames, late answers, and the floods that end them (protocol.md §9,
SECURITY.md). The asked bot's frames are read by its request (arena.play.ask), which counts them here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.play.incoming import MessageError, Reply, read_bot_message
from arena.play.runner import Violation, excerpt
from arena.play.transport import Channel

if TYPE_CHECKING:
    from arena.play.referee import Referee

# Every read loop is bounded: at most this many frames of one endpoint are read in one look, the rest waits for the
# next look (the asked bot's endpoint is looked at first, and between looks the deadline is checked).
READ_BUDGET = 64
# Only the bot's own processes can reach its endpoint (SECURITY.md), so traffic there is the bot's doing. Frames from
# connections other than its accepted one (or hellos with a wrong token) are dropped, up to these limits per process;
# past them the endpoint is flooded: a ``flood`` violation, and the process (with all it started) is killed at once.
STRANGER_FRAMES = 100
STRANGER_BYTES = 64 * 1024 * 1024
# Unasked frames of the accepted connection: a burst is one ``unsolicited`` strike; past this many it is a flood.
BURST_FRAMES = 1000
# Connections open at once on a bot's endpoint: it needs one (ZeroMQ may briefly hold a second as it reconnects). Each
# holds up to transport.HARD_FRAME_LIMIT of an unfinished frame in the referee's memory, and one that sends nothing
# is never read: past this many, a flood.
MAX_CONNECTIONS = 16
DRAIN_BUDGET = STRANGER_FRAMES + BURST_FRAMES + 2  # a look at an unasked endpoint empties it, or finds a flood


class Inbox:
    """The reading of one match's endpoints; what it finds outside a request goes to the referee's reports."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee

    def read_behind(self, b: int, endpoint: Channel) -> None:
        """After bot ``b``'s answer: the frames that came behind it, and what the other bots sent meanwhile, are read
        (bounded) as unasked."""
        if endpoint.has_input():
            self.drain(endpoint)
        self.drain_others(b)

    def unasked(self, endpoint: Channel, raw: bytes) -> Violation | None:
        """A frame of the asked bot that is part of a burst of unasked ones: the burst's first is its one
        ``unsolicited`` strike; the ``flood`` that ends the burst, or None (the request stays open)."""
        endpoint.burst += 1
        if endpoint.burst == 1:
            self.referee.report(
                endpoint.index, Violation("unsolicited", "message while not asked to act", excerpt(raw))
            )
        return self.flooded(endpoint)

    def flood_found(self, b: int) -> Violation | None:
        """The ``flood`` that stopped bot ``b`` outside a request (a drain), taken from the pending reports: it is
        the answer to the request due, charged once (not again as the crash of the process it killed)."""
        for c, violation in self.referee.reports:
            if c == b and violation.kind == "flood":
                self.referee.reports.remove((c, violation))
                return violation
        return None

    def drain(self, endpoint: Channel) -> None:
        """Read the waiting frames of a bot with no open request: a burst of its own frames is one ``unsolicited``
        violation, too many frames a ``flood``. Bounded: by the time the limits allow no more frames, it is a flood."""
        b = endpoint.index
        unsolicited: Violation | None = None
        for _ in range(DRAIN_BUDGET):
            frame = endpoint.receive()
            if frame is None:
                break
            ident, raw = frame
            if ident != endpoint.peer:
                self.stranger(endpoint, raw)
            elif self._stale(b, raw):
                endpoint.late += 1
            else:
                endpoint.burst += 1
                if endpoint.burst == 1:
                    unsolicited = Violation("unsolicited", "message while not asked to act", excerpt(raw))
            if (flood := self.flooded(endpoint)) is not None:
                self.stop(b, flood)
                return
        if (flood := self.flooded(endpoint)) is not None:  # connections that sent no frame
            self.stop(b, flood)
            return
        if unsolicited is not None:
            self.referee.report(b, unsolicited)  # one strike for a burst, however many frames it had

    def stranger(self, endpoint: Channel, raw: bytes) -> None:
        """Count a frame from a connection that is not the endpoint's accepted one (dropped unread)."""
        endpoint.foreign_frames += 1
        endpoint.strangers += 1
        endpoint.stranger_bytes += len(raw)

    def flooded(self, endpoint: Channel) -> Violation | None:
        """A ``flood`` violation once the endpoint's unasked traffic passes its limits (once a process), else None."""
        connections = endpoint.connections()  # its monitor read even after a flood, which it keeps in step
        if endpoint.flooded:
            return None
        if endpoint.strangers > STRANGER_FRAMES or endpoint.stranger_bytes > STRANGER_BYTES:
            endpoint.flooded = True
            return Violation(
                "flood",
                f"{endpoint.strangers} frames ({endpoint.stranger_bytes} bytes) from connections other than the bot's "
                f"own on its endpoint (limit {STRANGER_FRAMES} frames, {STRANGER_BYTES >> 20} MiB)",
            )
        if endpoint.burst + endpoint.late > BURST_FRAMES:
            endpoint.flooded = True
            late = f" ({endpoint.late} of them copies of late answers)" if endpoint.late else ""
            return Violation("flood", f"more than {BURST_FRAMES} frames in a row without being asked{late}")
        if connections > MAX_CONNECTIONS:
            endpoint.flooded = True
            return Violation("flood", f"{connections} connections open on its endpoint (limit {MAX_CONNECTIONS})")
        return None

    def stop(self, b: int, violation: Violation) -> None:
        """Kill a flooding bot's process (and everything it started) now, and record the violation against it."""
        self.referee.cut_off(b)
        self.referee.needs_restart[b] = True
        self.referee.report(b, violation)

    def _stale(self, b: int, raw: bytes) -> bool:
        """Whether a frame is a late answer to a request this bot was sent earlier (not a violation)."""
        try:
            message = read_bot_message(raw)
        except MessageError:
            return False
        return isinstance(message, Reply) and message.request_id in self.referee.expired[b]

    def drain_others(self, asked: int) -> None:
        """Read what the bots other than ``asked`` have sent (each burst one ``unsolicited`` violation)."""
        for endpoint in self.referee.hub.maybe_waiting():
            if endpoint.index != asked:
                self.drain(endpoint)
