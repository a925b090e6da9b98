"""One decision request to one bot, as a state: WAITING from the request's send until a frame of the bot settles it,
its deadline passes, or the referee finds the bot dead or flooded (protocol.md §9, §11).

The transitions take the frames and the seconds since the request left from their caller (``Referee.ask`` reads the
endpoint and the clock), so that a test can drive them frame by frame.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

from arena.play.inbox import READ_BUDGET, Inbox
from arena.play.incoming import MessageError, Reply, canonical_reply, read_bot_message
from arena.play.runner import Response, Violation, excerpt

if TYPE_CHECKING:
    from arena.engine.actions import Action
    from arena.play.transport import Channel


class AskState(enum.Enum):
    """Where a decision request stands."""

    WAITING = "waiting"  # sent: nothing has settled it yet
    ANSWERED = "answered"  # an action read in time (legal or not: the runner judges)
    VIOLATED = "violated"  # a frame that broke a rule settled it: malformed, schema, oversized, out_of_turn
    TIMED_OUT = "timed_out"  # no answer by the deadline, or an answer read after it
    FLOODED = "flooded"  # the endpoint's traffic passed its limits
    DIED = "died"  # the process ended


# The states bound once as module globals for the request's hot path: an Enum member looked up through its class
# costs several times a global's lookup (Python 3.11).
WAITING, ANSWERED, VIOLATED, TIMED_OUT, FLOODED, DIED = AskState


def answered(
    endpoint: Channel, answered: set[int], request_id: int, action: Action, quoted: str, elapsed: float
) -> Response:
    """A valid answer read in time (WAITING -> ANSWERED): it ends the bot's burst of unasked frames (those that come
    after it are a new one), and a copy of it later is part of a burst, not an answer."""
    endpoint.burst = endpoint.late = 0
    answered.add(request_id)
    return Response(action, None, elapsed, quoted)


class Ask:
    """A decision request sent to one bot's ``endpoint`` at ``start`` (``time.perf_counter()``), allowed ``allowed``
    seconds. ``expired`` and ``answered``: the ids of the bot's requests that timed out and that it answered
    validly (a frame answering one of them is late, or a copy: not this request's answer). Once settled,
    ``state`` says how and ``answer`` is what the request got."""

    __slots__ = (
        "allowed",
        "answer",
        "answered",
        "deadline",
        "endpoint",
        "expired",
        "inbox",
        "request_id",
        "start",
        "state",
    )

    def __init__(
        self,
        inbox: Inbox,
        endpoint: Channel,
        request_id: int,
        allowed: float,
        start: float,
        expired: set[int],
        answered: set[int],
    ) -> None:
        self.inbox, self.endpoint, self.request_id = inbox, endpoint, request_id
        self.allowed, self.start, self.deadline = allowed, start, start + allowed
        self.expired, self.answered = expired, answered
        self.state = WAITING
        self.answer: Response | None = None

    def frame(self, ident: bytes, raw: bytes, elapsed: float) -> bool:
        """One frame from the endpoint (``ident``: its connection), read ``elapsed`` seconds after the request left:
        whether it settled the request (``state`` says how). A frame that does not settle it is a stranger's (dropped,
        counted), a late answer to an expired request (ignored, counted) or a frame of a burst of unasked ones (one
        ``unsolicited`` strike a burst): the request stays open, unless the count ends in a flood."""
        endpoint = self.endpoint
        if ident != endpoint.peer:
            self.inbox.stranger(endpoint, raw)
            return self._unless_flooded(self.inbox.flooded(endpoint), elapsed)
        action = canonical_reply(raw, self.request_id)
        if action is not None:  # the common case, valid by construction: no validator run
            # and short printable ASCII by construction: its excerpt (``excerpt``) is the frame itself
            return self._answered(action, raw.decode("ascii"), elapsed)
        try:
            reply = read_bot_message(raw)
        except MessageError as exc:
            if endpoint.burst:  # a frame of a burst of unasked ones, whatever it holds: not the answer (below)
                return self._unless_flooded(self.inbox.unasked(endpoint, raw), elapsed)
            return self._violated(Violation(exc.kind, exc.detail, excerpt(raw)), elapsed)
        if isinstance(reply, Reply) and reply.request_id in self.expired:
            endpoint.late += 1  # a late answer to a request that timed out (or a copy of one): ignored, but counted
            return self._unless_flooded(self.inbox.flooded(endpoint), elapsed)
        if isinstance(reply, Reply) and reply.request_id == self.request_id:
            return self._answered(reply.action, excerpt(raw), elapsed)
        # Not the answer. A copy of an accepted answer, or any frame of a burst of unasked frames (they run from the
        # first to the bot's next valid answer, across requests and games), is part of that burst, wherever the reads
        # fall: no second strike, and the request stays open.
        if endpoint.burst or (isinstance(reply, Reply) and reply.request_id in self.answered):
            return self._unless_flooded(self.inbox.unasked(endpoint, raw), elapsed)
        endpoint.burst = 1  # what follows it, up to a valid answer, is the same misstep
        if not isinstance(reply, Reply):
            return self._violated(
                Violation("out_of_turn", "hello again in the middle of a match", excerpt(raw)), elapsed
            )
        detail = f"answer to request {reply.request_id} while request {self.request_id} is open"
        return self._violated(Violation("out_of_turn", detail, excerpt(raw)), elapsed)

    def _answered(self, action: Action, quoted: str, elapsed: float) -> bool:
        """The bot's answer: in time, the request's action; read after the deadline, too late (a timeout)."""
        if elapsed > self.allowed:
            self.expired.add(self.request_id)  # whatever comes for it later is late, not out of turn
            late = Violation("timeout", f"answered after {elapsed:.3f} s, allowed {self.allowed:.3f} s")
            self._end(AskState.TIMED_OUT, late, elapsed, quoted)
            return True
        self.state, self.answer = (
            ANSWERED,
            answered(self.endpoint, self.answered, self.request_id, action, quoted, elapsed),
        )
        return True

    def _violated(self, violation: Violation, elapsed: float) -> bool:
        """A frame that broke a rule of the protocol settles the request."""
        self._end(AskState.VIOLATED, violation, elapsed)
        return True

    def _unless_flooded(self, flood: Violation | None, elapsed: float) -> bool:
        """A frame that did not settle the request, unless its count past the endpoint's limits is a flood."""
        if flood is None:
            return False
        self._end(AskState.FLOODED, flood, elapsed)
        return True

    def look(self, frame: tuple[bytes, bytes] | None, elapsed: float) -> bool:
        """Read the endpoint's waiting frames (``frame`` already read), at most ``READ_BUDGET``, up to one that settles
        the request: whether one did (they were all read ``elapsed`` seconds after the request left)."""
        for _ in range(READ_BUDGET):
            if frame is None:
                frame = self.endpoint.receive()
                if frame is None:
                    return False
            if self.frame(*frame, elapsed):
                return True
            frame = None
        return False

    def expire(self, elapsed: float) -> None:
        """The deadline passed, ``elapsed`` seconds after the request left. What already waits arrived in time (the
        referee may have been busy): one last bounded look, charged the whole allowance; else a timeout. Whatever
        comes for the request later is late, not out of turn."""
        if self.look(None, self.allowed) and self.state is AskState.ANSWERED:
            return
        self.expired.add(self.request_id)
        if self.state is AskState.WAITING:
            self._end(AskState.TIMED_OUT, Violation("timeout", f"no answer within {self.allowed:.3f} s"), elapsed)

    def pause(self, seconds: float) -> None:
        """The bot's clock stopped for ``seconds`` (the referee stopped the bots one by one to find which held its
        memory): the request's start and deadline move on by as much, and the seconds since it left with them."""
        self.start += seconds
        self.deadline += seconds

    def flooded(self, violation: Violation, elapsed: float) -> None:
        """The endpoint was found flooded (by its connections, or holding the referee's memory) while it waited."""
        self._end(AskState.FLOODED, violation, elapsed)

    def died(self, violation: Violation, elapsed: float) -> None:
        """The process was found ended while it waited."""
        self._end(AskState.DIED, violation, elapsed)

    def restart_failed(self, violation: Violation) -> None:
        """The process was stopped while it waited (not for its own doing) and its replacement failed its handshake:
        that failure is the answer, and the request was never asked of a bot."""
        self._end(AskState.VIOLATED, violation, 0.0)

    def _end(self, state: AskState, violation: Violation, elapsed: float, quoted: str = "") -> None:
        self.state, self.answer = state, Response(None, violation, elapsed, quoted)
