"""The referee: runs one match between bot processes, the only place where hidden cards live.

Bots are subprocesses in their own sessions, each with a private ZeroMQ endpoint and token (arena.play.transport). The
referee keeps the same processes for the whole match, restarts a bot that died or hung, enforces the clocks,
validates every frame, and records every violation. A bot cannot crash it: everything a bot sends is data.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import secrets
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

import orjson

from arena import PROTOCOL_VERSION
from arena.engine.game import Game
from arena.engine.options import make_rules
from arena.engine.record import GameRecord
from arena.errors import ArenaError
from arena.play import forkserver
from arena.play.botproc import BotCommand, BotProcess
from arena.play.clock import TimeControl
from arena.play.cpus import pin_match, unpin, unpin_thread
from arena.play.incoming import Hello, MessageError, Reply, canonical_reply, read_bot_message
from arena.play.linux import raise_open_files, release_free_memory, resident_bytes
from arena.play.matchspec import MIN_OPEN_FILES, Limits, MatchSpec, SpecError
from arena.play.runner import DETAIL_LIMIT, EXCERPT_LIMIT, Answer, Message, Violation, play
from arena.play.sandbox import Jail, require_isolation
from arena.play.transport import Channel, Hub
from arena.signals import stop_like_ctrl_c
from arena.text import printable

# Kinds after which the bot's process is replaced before its next game (it may be dead or stuck).
RESTART_AFTER = frozenset({"crash", "memory", "timeout", "handshake", "flood"})

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


# How far the referee's memory may grow in a match (it needs a few MB). A bot can make libzmq hold data that the
# referee never sees: the frames of a multipart message it never finishes, each under the hard frame limit, counted
# by no high-water mark (an outside check's bot took a referee to 1.2 GB in 0.7 s, from one connection). libzmq does
# not say which connection holds it: past this, the bots are stopped one by one until the memory comes back. The one
# whose stop gave it back is charged a flood; those stopped before it are restarted at once, uncharged. Where none
# gave it back (it is held elsewhere in this process), the match stops (MemoryOverrun).
MEMORY_MARGIN = 512 * 1024 * 1024
MEMORY_LOOK = 0.1  # seconds between looks at it
MEMORY_RELEASE = 1.0  # seconds to wait for a stopped bot's connections to give their memory back


class MemoryOverrun(ArenaError):
    """The referee's memory grew past ``MEMORY_MARGIN`` in a match: the match stops, as when its fork server is lost
    (a tournament records the failure, keeps the finished games, and plays the rest again)."""


# What the referee needs beyond its bots' connections: its own files and pipes, ZeroMQ's sockets and signals.
DESCRIPTOR_HEADROOM = 1024
_short_warned = False


def fitted_limits(spec: MatchSpec, referees: int = 1) -> Limits:
    """The limits the match's bots run under: the spec's, with ``open_files`` lowered where this process could not
    hold every connection the bots could open to their endpoints (each process of a ZeroMQ bot may hold
    ``open_files``; libzmq aborts the whole referee when an accept finds no descriptor left: a bot that forked and
    connected without end used to end its match that way). ``referees``: how many matches this process holds at
    once, each with its bots (a serving referee: the match playing and the next one's, prepared). The process's own
    limit is raised first, as far as it may go."""
    global _short_warned
    limits = spec.limits
    connecting = sum(entry.transport != "stdio" for entry in spec.bots) * referees  # stdio bots cannot connect
    if not connecting:
        return limits
    needed = connecting * limits.processes * limits.open_files + DESCRIPTOR_HEADROOM
    have = raise_open_files(needed)
    if have >= needed:
        return limits
    per_process = int(have - DESCRIPTOR_HEADROOM) // (connecting * limits.processes)
    if per_process < MIN_OPEN_FILES and not _short_warned:
        _short_warned = True
        print(
            f"warning: the referee may open {have} descriptors, too few for the connections its bots could make"
            f" ({connecting} bots of {limits.processes} processes): a bot could end its match (raise the hard"
            " limit, ulimit -Hn, or lower limits.processes)",
            file=sys.stderr,
        )
    return limits.replace(open_files=max(MIN_OPEN_FILES, per_process))


class Referee:
    """Runs a match: implements the runner's ``Seats`` over real processes and sockets."""

    def __init__(self, spec: MatchSpec, *, beside: int = 0) -> None:
        """``beside``: how many other matches this process may hold with their bots while this one plays."""
        self.spec = spec
        self.rules = make_rules(spec.variant, spec.options)
        self.time_control = TimeControl.parse(spec.time, max_decision=spec.max_decision)
        for game in spec.games:
            if sorted(game.seating) != list(range(len(spec.bots))) or len(game.seating) != self.rules.players:
                raise ArenaError(f"a {spec.variant} game seats each of {self.rules.players} bots exactly once")
        self.limits = fitted_limits(spec, 1 + beside)  # what each bot process runs under
        self.hub = Hub()
        self.endpoints: list[Channel] = []
        self.processes: list[BotProcess | None] = []
        self.hello: list[Hello | None] = []
        self.strikes = [0] * len(spec.bots)
        self.struck_out = [False] * len(spec.bots)  # out of strikes: forfeits the rest of the match
        self.needs_restart = [False] * len(spec.bots)
        # Per bot process (a new process starts with none; carried on to the next match with the process):
        self.expired: list[set[int]] = [set() for _ in spec.bots]  # its requests that timed out
        self.answered: list[set[int]] = [set() for _ in spec.bots]  # its requests it answered validly
        self.viewed = [-1] * len(spec.bots)  # hand of the last request that carried the view, per bot
        self.request_ids = itertools.count(1)  # unique across the match, so a late answer is never mistaken
        self.seating: list[int] = []
        self._reports: list[tuple[int, Violation]] = []  # by bot index
        self._relaunched: dict[int, Violation | None] = {}  # bots replaced by prepare: how the restart went
        self._game_start: list[Message | None] = [None] * len(spec.bots)
        self._affinity: set[int] | None = None  # this thread's cores before the match was pinned
        self.log_dir = Path(spec.log_dir)
        # what the bots are told the match is called: not its id, which in a tournament names the pairing, the
        # rotation and the deals (a bot of a later round could look up a note left for exactly that deal)
        self.public_id = secrets.token_hex(6)
        self.dealt: set[int] = set()  # seeds of the games these processes played (or started): see carry_on
        self.closed = threading.Event()  # set when the match is closed and its bots are gone
        self.games_before = 0  # games these processes played in earlier matches (carry_on)
        self._memory_base = resident_bytes()  # this process's memory before the match (see MEMORY_MARGIN)
        self._memory_looked = 0.0
        self._searching = False  # for the bot that holds it (_memory_holder): no look meanwhile

    # ---- lifecycle ----

    def __enter__(self) -> Referee:
        return self

    def __exit__(self, *exc: object | TracebackType) -> None:
        self.close()

    def start(self) -> list[tuple[int, Violation]]:
        """Start every bot and shake hands; returns the bots that failed the handshake."""
        require_isolation(self.spec.trusted_bots)
        for entry in self.spec.bots:
            self.endpoints.append(self.hub.open(stdio=entry.transport == "stdio"))
            self.processes.append(None)
            self.hello.append(None)
        failed = self._launch(list(range(len(self.spec.bots))))
        # Only now onto the match's cores: the bots started up in parallel; bots restarted later inherit the pinning.
        if self.spec.cpus:
            self._affinity = pin_match(self.spec.cpus, [p.pid for p in self.processes if p is not None])
        return failed

    def _launch(self, indexes: list[int]) -> list[tuple[int, Violation]]:
        for b in indexes:
            old = self.processes[b]
            if old is not None:
                old.kill()
            entry, endpoint = self.spec.bots[b], self.endpoints[b]
            self.hub.renew(endpoint)  # what the dead process (or its leftovers) sent is dropped unread
            self.expired[b], self.answered[b] = set(), set()  # (request ids never repeat: nothing to mistake)
            log = self.log_dir / f"{self.spec.match_id}-bot{b}-{entry.name}.log"
            jail = Jail(self.limits, workdir=self.hub.workdir(endpoint))  # its own uid when we are root
            self.hub.admit(endpoint, jail.gid)  # the endpoint opens to this process alone
            command = BotCommand(entry.name, tuple(entry.argv), entry.transport)
            process = self.processes[b] = BotProcess(command, endpoint.address, log, jail=jail)
            if process.pipes is not None:  # a stdio bot: its stdin and stdout are the channel
                self.hub.attach(endpoint, *process.pipes)
            self.needs_restart[b] = False
        return self._handshake(indexes)

    def _handshake(self, indexes: list[int]) -> list[tuple[int, Violation]]:
        waiting = set(indexes)
        failed: list[tuple[int, Violation]] = []
        deadline = time.monotonic() + self.spec.handshake_timeout
        while waiting:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            for endpoint in self.hub.wait(min(remaining, 0.05)):
                b = endpoint.index
                if b not in waiting:
                    self._drain(endpoint)  # a second hello, or a stranger: after its hello, unasked frames
                    continue
                for _ in range(READ_BUDGET):
                    frame = endpoint.receive()
                    if frame is None:
                        break
                    problem = self._check_hello(b, *frame)
                    if problem is None:
                        waiting.discard(b)
                        self._drain(endpoint)  # what came right behind the hello was not asked for
                        break
                    if problem.kind != "foreign":
                        failed.append((b, problem))
                        waiting.discard(b)
                        break
                    if (flood := self._flooded(endpoint)) is not None:
                        failed.append((b, flood))
                        waiting.discard(b)
                        break
            self._check_memory(handshake=True)
            for b in list(waiting):
                if (flood := self._flooded(self.endpoints[b])) is not None:  # connections, before any hello
                    failed.append((b, flood))
                    waiting.discard(b)
                    self._cut_off(b)  # now, as any flood: not at its restart
                    continue
                process = self.processes[b]
                if process is not None and not process.alive():
                    process.check_set_up()  # a process that never ran the bot's code is the arena's failure
                    ended = process.exit_description()
                    failed.append((b, Violation("handshake", f"bot {ended} before hello{_stdio_hint(process, ended)}")))
                    waiting.discard(b)
        failed.extend((b, Violation("handshake", "no hello within the handshake timeout")) for b in waiting)
        for b, violation in failed:
            self.needs_restart[b] = True
            self._notify_handshake(b, violation)
        return failed

    def _notify_handshake(self, b: int, violation: Violation) -> None:
        """Tell a bot why its hello was refused (sent even though no peer was accepted on its endpoint)."""
        endpoint = self.endpoints[b]
        if endpoint.last_sender is not None and endpoint.peer is None:
            notice = {
                "type": "violation",
                "kind": "handshake",
                "detail": violation.detail[:DETAIL_LIMIT],
                "strikes": self.strikes[b] + 1,
                "max_strikes": self.spec.max_strikes,
            }
            endpoint.send_to(endpoint.last_sender, orjson.dumps(notice))

    def _check_hello(self, b: int, ident: bytes, raw: bytes) -> Violation | None:
        process = self.processes[b]
        assert process is not None
        try:
            message = read_bot_message(raw)
        except MessageError as exc:
            return Violation("handshake", f"first message: {exc.detail}", _excerpt(raw))
        if not isinstance(message, Hello):
            return Violation("handshake", "the first message must be hello", _excerpt(raw))
        if message.token != process.token:
            self._stranger(self.endpoints[b], raw)
            return Violation("foreign", "hello with a wrong token")
        if message.protocol != PROTOCOL_VERSION:
            return Violation("handshake", f"protocol {message.protocol} not spoken (this referee speaks 1)")
        self.endpoints[b].peer = ident
        self.hello[b] = message
        self.viewed[b] = -1
        self._send(
            b,
            {
                "type": "welcome",
                "protocol": PROTOCOL_VERSION,
                "match_id": self.public_id,
                "name": self.spec.bots[b].name,
            },
        )
        return None

    def close(self) -> None:
        """Tell every bot the match is over, give it a moment to exit, then kill what is left."""
        for b in range(len(self.processes)):
            self._send(b, {"type": "match_end", "reason": "match over"})
        deadline = time.monotonic() + 1.0
        for process in self.processes:
            while process is not None and not process.wait_until(min(deadline, time.monotonic() + MEMORY_LOOK)):
                if time.monotonic() >= deadline or self._memory_grown() > MEMORY_MARGIN:
                    deadline = 0.0  # no more grace: a bot filling the memory after the match (a check's: 1.6 GB)
                    break
        for process in self.processes:
            if process is not None:
                process.kill()
        self.hub.close()
        unpin(self._affinity)
        self.closed.set()

    def close_in_background(self) -> threading.Thread:
        """Close the match in a thread of its own, so that the next match's bots start meanwhile; this thread is
        unpinned now (bots it starts next must start up on every core)."""
        unpin(self._affinity)
        self._affinity = None
        closing = threading.Thread(target=self.close, name=f"close {self.spec.match_id}", daemon=True)
        closing.start()
        return closing

    def could_carry_on(self, spec: MatchSpec, current: MatchSpec | None = None) -> bool:
        """Whether ``spec`` is the same match but for its id and deals, none of them dealt to these processes (nor
        in ``current``, a match about to be played by them): the conditions of ``carry_on`` that do not depend on
        how the bots fare."""
        if spec.replace(match_id="", games=[]) != self.spec.replace(match_id="", games=[]):
            return False
        dealt = self.dealt | ({game.seed for game in current.games} if current is not None else set())
        return not dealt & {game.seed for game in spec.games}

    def carry_on(self, spec: MatchSpec) -> bool:
        """Play ``spec`` next with the same bot processes, if that is allowed; False: close this match and start anew.

        Allowed when the match is the same in everything but its id and its games (the same bots under the same
        rules, clock, limits and cores), every process is alive and in good standing, and none of its deals was dealt
        to these processes before: a bot process never meets a deal twice, so it can never see from another seat the
        cards it held (duplicate rotations are played by fresh processes). To the bots it is one longer match: no
        ``match_end`` between the two, game numbers go on, strikes start again at zero.
        """
        if not self.could_carry_on(spec):
            return False
        if (
            any(self.struck_out)
            or any(self.needs_restart)
            or not all(p is not None and p.alive() for p in self.processes)
        ):
            return False
        for b, entry in enumerate(spec.bots):  # the new match's log names lead to the same logs
            first = self.log_dir / f"{self.spec.match_id}-bot{b}-{entry.name}.log"
            with contextlib.suppress(OSError):
                os.link(first, self.log_dir / f"{spec.match_id}-bot{b}-{entry.name}.log")
        self.games_before += len(self.spec.games)
        self.spec = spec
        self.strikes = [0] * len(spec.bots)
        return True

    # ---- the runner's Seats interface ----

    def begin_game(self, seating: list[int], *, relaunch: bool = True) -> list[tuple[int, Violation]]:
        """Seat the bots for the next game, replacing processes that died or hung; returns handshake failures."""
        self.seating = list(seating)
        self.viewed = [-1] * len(self.spec.bots)  # hand numbers start again: the first request carries the view
        if not relaunch:
            return []
        dead = [
            b
            for b, p in enumerate(self.processes)
            if not self.struck_out[b] and (self.needs_restart[b] or p is None or not p.alive())
        ]
        return self._launch(dead) if dead else []

    def tell(self, seat: int, message: Message) -> None:
        """Send a message to the bot in ``seat``."""
        b = self.seating[seat]
        if message["type"] == "game_start":
            self._game_start[b] = message
        self._send(b, message)

    def _send(self, b: int, message: Message) -> None:
        self._send_frame(b, orjson.dumps(message))

    def _send_frame(self, b: int, frame: bytes) -> None:
        if not self.struck_out[b]:
            self.endpoints[b].send(frame)

    def prepare(self, seat: int) -> None:
        """Under the substitute policy a bot that must be replaced is replaced now, before its request is built, so
        that the request carries the view (protocol.md §2); a failed restart is the answer ``ask`` gives."""
        b = self.seating[seat]
        if self.spec.policy == "substitute" and (self.needs_restart[b] or self.endpoints[b].peer is None):
            self._relaunched[b] = self._relaunch_midgame(b)

    def ask(self, seat: int, message: Message, allowed: float) -> Answer:
        """Send a decision request and wait for its answer, a violation, or the deadline."""
        self._check_memory()  # a bot found holding the memory is charged below (its flood)
        b = self.seating[seat]
        endpoint, process = self.endpoints[b], self.processes[b]
        assert process is not None
        if (failure := self._relaunched.pop(b, None)) is not None:
            return Answer(None, failure, 0.0)
        if (flood := self._flood_found(b)) is not None:  # stopped since its last request (at a restart's handshake)
            return Answer(None, flood, 0.0)
        # A process that died since its last answer is found below, when it does not answer (no wait() per request).
        if endpoint.peer is None or (self.needs_restart[b] and self.spec.policy == "forfeit"):
            if process.alive():
                return Answer(None, Violation("crash", "bot has no accepted connection"), 0.0)
            return Answer(None, Violation(process.death_kind(), f"bot {process.exit_description()}"), 0.0)
        request_id = message["request_id"]
        if endpoint.has_input():  # what waits before the request was not asked for: read it as such (§9), not as
            self._drain(endpoint)  # a first frame read while asked, however late the referee got round to it
            if (flood := self._flood_found(b)) is not None:
                return Answer(None, flood, 0.0)
        frame = orjson.dumps(message)
        for other, each in enumerate(self.processes):  # the asked bot's tree gets the processor, the others wait
            if each is not None:
                each.favour(other == b)
        # The clock starts as the request leaves: a referee held up right after the send (a busy host) must not
        # give the bot that time for free (it was charged 489 ms for a 500 ms think once).
        start = time.perf_counter()
        self._send_frame(b, frame)
        deadline = start + allowed
        while True:
            now = time.perf_counter()
            if now >= deadline:
                # What already waits arrived in time (the referee may have been busy): one last bounded look.
                settled = self._answer(endpoint, request_id, None)
                if settled is not None and settled.violation is None:
                    return self._answered(b, endpoint, request_id, settled, allowed)
                self.expired[b].add(request_id)  # whatever comes for it later is late, not out of turn
                if settled is not None:  # a flood, or a broken frame: that is what it did
                    return Answer(None, settled.violation, allowed, settled.excerpt)
                self.needs_restart[b] = True
                return Answer(None, Violation("timeout", f"no answer within {allowed:.3f} s"), now - start)
            first = endpoint.receive_within(min(deadline - now, 0.05))
            if first is not None:
                settled = self._answer(endpoint, request_id, first)
                if settled is not None:
                    elapsed = time.perf_counter() - start
                    if elapsed > allowed and settled.violation is None:  # read after the deadline: too late
                        self.expired[b].add(request_id)
                        self.needs_restart[b] = True
                        late = Violation("timeout", f"answered after {elapsed:.3f} s, allowed {allowed:.3f} s")
                        return Answer(None, late, elapsed, settled.excerpt)
                    return self._answered(b, endpoint, request_id, settled, elapsed)
                continue  # frames that did not count (or the look's budget ran out): check the clock, look again
            self._drain_others(b)
            if spent := self._check_memory():  # the clock stopped while the bots were stopped one by one
                deadline += spent
                if (flood := self._flood_found(b)) is not None:  # it held the memory
                    return Answer(None, flood, time.perf_counter() - start - spent)
                if b in self._relaunched:  # stopped before the holder was found, restarted: asked again
                    if (failure := self._relaunched.pop(b)) is not None:
                        return Answer(None, failure, 0.0)
                    endpoint, relaunched = self.endpoints[b], self.processes[b]
                    assert relaunched is not None
                    process = relaunched
                    self._send_frame(b, frame)
            if (flood := self._flooded(endpoint)) is not None:  # connections that sent no frame
                return Answer(None, flood, time.perf_counter() - start)
            if not process.alive():
                self.needs_restart[b] = True
                died = Violation(process.death_kind(), f"bot {process.exit_description()}")
                return Answer(None, died, time.perf_counter() - start)  # charged until it was found dead

    def _answered(self, b: int, endpoint: Channel, request_id: int, settled: Answer, elapsed: float) -> Answer:
        """The asked bot's answer, charged ``elapsed``; frames that came with it are read (bounded) as unasked.

        A valid answer ends the bot's burst of unasked frames: those that come after it are a new one."""
        if settled.violation is None:
            endpoint.burst = endpoint.late = 0
            self.answered[b].add(request_id)
        if endpoint.has_input():  # more frames after the answer: unsolicited
            self._drain(endpoint)
        self._drain_others(b)
        return Answer(settled.action, settled.violation, elapsed, settled.excerpt)

    def _answer(self, endpoint: Channel, request_id: int, frame: tuple[bytes, bytes] | None) -> Answer | None:
        """Read the asked bot's frames (``frame`` already read), at most ``READ_BUDGET``, up to the first that settles
        the open request: its answer or a violation (a flood of strangers' frames among them)."""
        for _ in range(READ_BUDGET):
            if frame is None:
                frame = endpoint.receive()
                if frame is None:
                    return None
            settled = self._settle(endpoint, request_id, *frame)
            if settled is not None:
                return settled
            frame = None
        return None

    def _settle(self, endpoint: Channel, request_id: int, ident: bytes, raw: bytes) -> Answer | None:
        """What one frame of the asked bot means for the open request; None for a frame that does not count."""
        if ident != endpoint.peer:
            self._stranger(endpoint, raw)
            flood = self._flooded(endpoint)
            return None if flood is None else Answer(None, flood, 0.0)
        action = canonical_reply(raw, request_id)
        if action is not None:  # the common case, valid by construction: no validator run
            # and short printable ASCII by construction: its excerpt (_excerpt) is the frame itself
            return Answer(action, None, 0.0, raw.decode("ascii"))
        try:
            reply = read_bot_message(raw)
        except MessageError as exc:
            if endpoint.burst:  # a frame of a burst of unasked ones, whatever it holds: not the answer (below)
                return self._unasked(endpoint, raw)
            return Answer(None, Violation(exc.kind, exc.detail, _excerpt(raw)), 0.0)
        if isinstance(reply, Reply) and reply.request_id in self.expired[endpoint.index]:
            endpoint.late += 1  # a late answer to a request that timed out (or a copy of one): ignored, but counted
            flood = self._flooded(endpoint)
            return None if flood is None else Answer(None, flood, 0.0)
        if isinstance(reply, Reply) and reply.request_id == request_id:
            return Answer(reply.action, None, 0.0, _excerpt(raw))
        # Not the answer. A copy of an accepted answer, or any frame of a burst of unasked frames (they run from the
        # first to the bot's next valid answer, across requests and games), is part of that burst, wherever the reads
        # fall: no second strike, and the request stays open.
        if endpoint.burst or (isinstance(reply, Reply) and reply.request_id in self.answered[endpoint.index]):
            return self._unasked(endpoint, raw)
        endpoint.burst = 1  # what follows it, up to a valid answer, is the same misstep
        if not isinstance(reply, Reply):
            return Answer(None, Violation("out_of_turn", "hello again in the middle of a match", _excerpt(raw)), 0.0)
        detail = f"answer to request {reply.request_id} while request {request_id} is open"
        return Answer(None, Violation("out_of_turn", detail, _excerpt(raw)), 0.0)

    def _unasked(self, endpoint: Channel, raw: bytes) -> Answer | None:
        """A frame of the asked bot that is part of a burst of unasked ones: the burst's first is its one
        ``unsolicited`` strike; None (the request stays open), or the ``flood`` that ends it."""
        endpoint.burst += 1
        if endpoint.burst == 1:
            self.report(endpoint.index, Violation("unsolicited", "message while not asked to act", _excerpt(raw)))
        flood = self._flooded(endpoint)
        return None if flood is None else Answer(None, flood, 0.0)

    def _check_memory(self, *, handshake: bool = False) -> float:
        """A look (every ``MEMORY_LOOK`` seconds at most) at whether this process's memory grew past
        ``MEMORY_MARGIN`` since the match began: if so, the bot that holds it is charged (``_memory_holder``) or, in
        a handshake or where none does, the match stops (``MemoryOverrun``). Returns the seconds the search for
        the holder took (the clock of a bot being asked stops meanwhile)."""
        now = time.monotonic()
        if now - self._memory_looked < MEMORY_LOOK or self._memory_base is None or self._searching:
            return 0.0
        self._memory_looked = now
        grown = self._memory_grown()
        if grown <= MEMORY_MARGIN:
            return 0.0
        if not handshake:
            self._searching = True
            try:
                found = self._memory_holder(grown)
            finally:
                self._searching = False
            if found is not None:
                return time.monotonic() - now
        connections = ", ".join(
            f"{entry.name} {endpoint.connections()}"
            for entry, endpoint in zip(self.spec.bots, self.endpoints, strict=False)
        )
        where = "in a handshake" if handshake else "and no bot of the match held it"
        raise MemoryOverrun(
            f"the referee's memory grew {grown >> 20} MiB in match {self.spec.match_id} (at most {MEMORY_MARGIN >> 20}"
            f" MiB) {where}: ZeroMQ keeps a message never finished unread; the match stops and no bot is charged"
            f" (connections open: {connections})"
        )

    def _memory_grown(self) -> int:
        """How far this process's memory grew since the match began (0 where /proc does not tell)."""
        if self._memory_base is None:
            return 0
        return (resident_bytes() or self._memory_base) - self._memory_base

    def _memory_holder(self, grown: int) -> int | None:
        """Stop the bots one by one (those with the most connections first) until one's stop gives ``grown`` bytes
        of memory back, at least half of them; charge it a ``flood`` (the answer to its next request) and return it.
        The bots stopped before it are restarted at once and rejoin the game, uncharged. None if no bot's stop did."""
        order = sorted(range(len(self.endpoints)), key=lambda b: -self.endpoints[b].connections())
        for b in order:
            if self.processes[b] is None or self.struck_out[b]:
                continue
            self._cut_off(b)
            freed, deadline = 0, time.monotonic() + MEMORY_RELEASE
            while freed < grown // 2 and time.monotonic() < deadline:
                time.sleep(0.02)
                release_free_memory()
                freed = grown - self._memory_grown()
            if freed >= grown // 2:
                self.needs_restart[b] = True
                detail = f"its connections held {freed >> 20} MiB of messages it never finished (at most"
                self.report(b, Violation("flood", f"{detail} {MEMORY_MARGIN >> 20} MiB)"))
                self._memory_looked = 0.0
                return b
            self._relaunched[b] = self._relaunch_midgame(b)  # not its doing: back at once
        return None

    def _flood_found(self, b: int) -> Violation | None:
        """The ``flood`` that stopped bot ``b`` outside a request (a drain), taken from the pending reports: it is
        the answer to the request due, charged once (not again as the crash of the process it killed)."""
        for c, violation in self._reports:
            if c == b and violation.kind == "flood":
                self._reports.remove((c, violation))
                return violation
        return None

    def _drain(self, endpoint: Channel) -> None:
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
                self._stranger(endpoint, raw)
            elif self._stale(b, raw):
                endpoint.late += 1
            else:
                endpoint.burst += 1
                if endpoint.burst == 1:
                    unsolicited = Violation("unsolicited", "message while not asked to act", _excerpt(raw))
            if (flood := self._flooded(endpoint)) is not None:
                self._stop(b, flood)
                return
        if (flood := self._flooded(endpoint)) is not None:  # connections that sent no frame
            self._stop(b, flood)
            return
        if unsolicited is not None:
            self.report(b, unsolicited)  # one strike for a burst, however many frames it had

    def _stranger(self, endpoint: Channel, raw: bytes) -> None:
        """Count a frame from a connection that is not the endpoint's accepted one (dropped unread)."""
        endpoint.foreign_frames += 1
        endpoint.strangers += 1
        endpoint.stranger_bytes += len(raw)

    def _flooded(self, endpoint: Channel) -> Violation | None:
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

    def _cut_off(self, b: int) -> None:
        """Kill bot ``b``'s process and everything it started, and close every connection to its endpoint (libzmq
        drops what they held)."""
        if (process := self.processes[b]) is not None:
            process.kill()
        self.hub.renew(self.endpoints[b])

    def _stop(self, b: int, violation: Violation) -> None:
        """Kill a flooding bot's process (and everything it started) now, and record the violation against it."""
        self._cut_off(b)
        self.needs_restart[b] = True
        self.report(b, violation)

    def _stale(self, b: int, raw: bytes) -> bool:
        """Whether a frame is a late answer to a request this bot was sent earlier (not a violation)."""
        try:
            message = read_bot_message(raw)
        except MessageError:
            return False
        return isinstance(message, Reply) and message.request_id in self.expired[b]

    def _drain_others(self, asked: int) -> None:
        """Read what the bots other than ``asked`` have sent (each burst one ``unsolicited`` violation)."""
        for endpoint in self.hub.maybe_waiting():
            if endpoint.index != asked:
                self._drain(endpoint)

    def report(self, b: int, violation: Violation) -> None:
        """Queue a violation of bot ``b`` found outside a decision (handshake, unsolicited message, flood): it is
        charged in the bot's current game, or in its next one if it is not seated yet."""
        if not self.struck_out[b]:
            self._reports.append((b, violation))

    def _relaunch_midgame(self, b: int) -> Violation | None:
        """Under the substitute policy a dead bot is replaced at once and rejoins the game from its next view."""
        if self.struck_out[b]:
            return Violation("disqualified", "out of strikes earlier in the match")
        failures = self._launch([b])
        if failures:
            return failures[0][1]
        start = self._game_start[b]
        if start is not None:
            self._send(b, start)
        return None

    def wants_view(self, seat: int, hand_number: int) -> bool:
        """Whether the request carries the view: if the bot's hello asked for it, else at the first request of each
        hand (and so after a restart), so that a bot keeping its own picture can always recover it."""
        b = self.seating[seat]
        hello = self.hello[b]
        if hello is None or hello.view:
            return True
        first, self.viewed[b] = self.viewed[b] != hand_number, hand_number
        return first

    def interrupts(self) -> list[tuple[int, Violation]]:
        """Violations of seated bots that spoke without being asked (or flooded), since the last call, by seat."""
        if not self._reports:
            return []
        found = [(self.seating.index(b), v) for b, v in self._reports if b in self.seating and not self.struck_out[b]]
        self._reports = [(b, v) for b, v in self._reports if b not in self.seating and not self.struck_out[b]]
        return found

    def penalize(self, seat: int, violation: Violation, *, game: int) -> bool:
        """Count a strike against the bot in ``seat``, tell it, and disqualify it at ``max_strikes``."""
        b = self.seating[seat]
        self.strikes[b] += 1
        if violation.kind in RESTART_AFTER:
            self.needs_restart[b] = True
        if violation.kind == "flood":  # stop the flood now: the process, all it started, and its connections
            self._cut_off(b)
        self._send(
            b,
            {
                "type": "violation",
                "kind": violation.kind,
                "detail": violation.detail[:DETAIL_LIMIT],
                "strikes": self.strikes[b],
                "max_strikes": self.spec.max_strikes,
            },
        )
        if self.strikes[b] >= self.spec.max_strikes and not self.struck_out[b]:
            self.struck_out[b] = True
            self._send(b, {"type": "match_end", "reason": "out of strikes"})
            process = self.processes[b]
            if process is not None:
                process.kill()
        return self.struck_out[b]

    def disqualified(self, seat: int) -> bool:
        """Whether the bot in ``seat`` has forfeited the rest of the match."""
        return self.struck_out[self.seating[seat]]


def _stdio_hint(process: BotProcess, ended: str) -> str:
    """A ZeroMQ bot that ended cleanly before its hello is most often a stdio bot given without ``stdio:``: its stdin
    is /dev/null, so it read the end of its input at once and stopped."""
    if process.command.transport == "zmq" and ended == "exited with code 0":
        return " (its stdin is /dev/null: a bot that speaks JSON lines on stdin and stdout is given as stdio:PATH)"
    return ""


def _excerpt(raw: bytes) -> str:
    """The start of a frame as printable text: every byte a bot controls is escaped before it reaches a terminal."""
    return printable(raw[:EXCERPT_LIMIT].decode("utf-8", errors="replace"))


def run_match(spec: MatchSpec, on_game: Callable[[GameRecord], None] | None = None) -> list[GameRecord]:
    """Run every game of the match; each finished game's record is passed to ``on_game`` as soon as it ends."""
    with Referee(spec) as referee:
        return play_match(referee, referee.start(), on_game)


def play_match(
    referee: Referee, failures: list[tuple[int, Violation]], on_game: Callable[[GameRecord], None] | None = None
) -> list[GameRecord]:
    """Play every game of the referee's match (its bots started, ``failures`` those whose handshake failed)."""
    spec = referee.spec
    records: list[GameRecord] = []
    for index, game_spec in enumerate(spec.games):
        failures += referee.begin_game(game_spec.seating, relaunch=index > 0)
        referee.dealt.add(game_spec.seed)
        names = [spec.bots[b].name for b in game_spec.seating]
        game = Game(referee.rules, game_spec.seed, names)
        for b, violation in failures:
            referee.report(b, violation)
        failures = []
        traffic = [(e.bytes_out, e.bytes_in) for e in referee.endpoints]
        outcome = play(
            game,
            referee,
            game_index=referee.games_before + index,  # the bots count on across matches carried on
            time_control=referee.time_control,
            policy=spec.policy,
            request_ids=referee.request_ids,
            max_hands=spec.max_hands,
        )
        record = outcome.record
        record["timing"]["bytes"] = [
            [referee.endpoints[b].bytes_out - traffic[b][0], referee.endpoints[b].bytes_in - traffic[b][1]]
            for b in game_spec.seating
        ]  # per seat: sent to the bot, received from it
        record["match_id"] = spec.match_id
        record["game_index"] = index
        record["bots"] = [
            {
                "seat": seat,
                "name": spec.bots[b].name,
                "hello": None if (hello := referee.hello[b]) is None else printable(hello.name),
                "version": None if hello is None or hello.version is None else printable(hello.version),
                "strikes": referee.strikes[b],
            }
            for seat, b in enumerate(game_spec.seating)
        ]
        records.append(record)
        if on_game is not None:
            on_game(record)
    return records


class Prepared:
    """The referee of a match to come, its bots started and shaken hands with in a thread of its own while the
    current match plays (moved onto the match's cores only once they have said hello)."""

    def __init__(self, spec: MatchSpec) -> None:
        self.spec = spec
        self.referee = Referee(spec, beside=1)  # the match playing meanwhile
        self.failures: list[tuple[int, Violation]] = []
        self.error: BaseException | None = None
        self._ready = threading.Event()
        threading.Thread(target=self._start, name=f"prepare {spec.match_id}", daemon=True).start()

    def _start(self) -> None:
        unpin_thread()  # its bots start up on every core, not on the core the current match plays on
        try:
            self.failures = self.referee.start()
            for process in self.referee.processes:  # they wait through the current match: idle meanwhile
                if process is not None:
                    process.favour(False)
        except BaseException as exc:  # handed over by take(): the match is then started afresh
            self.error = exc
        finally:
            self._ready.set()
        # The bots die with the thread that started them (PR_SET_PDEATHSIG is a thread's): it lives as long as they.
        self.referee.closed.wait()

    def take(self) -> tuple[Referee, list[tuple[int, Violation]]] | None:
        """The started referee and its handshake failures (None if its start failed: it is closed)."""
        self._ready.wait()
        if self.error is not None:
            self.referee.close()
            return None
        return self.referee, self.failures

    def discard(self) -> None:
        """Not needed after all: end its bots."""
        self._ready.wait()
        self.referee.close()


def serve(specs: Iterator[tuple[MatchSpec, MatchSpec | None] | None], emit: Callable[[dict[str, Any]], None]) -> None:
    """Play the matches ``specs`` yields one after another, each with a hint of the one after it (or None);
    each game, then a ``match_done`` line, goes to ``emit``. A None from ``specs`` is a rest: every bot process
    is ended (and reaped) before a ``rested`` line goes out, and the next match starts anew.

    Bot processes carry over to the next match where ``carry_on`` allows; where it cannot, the hinted next match is
    prepared (its bots started) while the current one plays, and the old bots are closed in the background.
    """
    referee: Referee | None = None
    prepared: Prepared | None = None
    closing: list[threading.Thread] = []

    def end_every_bot() -> None:
        """The prepared match's bots, the current one's, those still closing: all ended and reaped."""
        nonlocal referee, prepared, closing
        if prepared is not None:
            prepared.discard()
            prepared = None
        if referee is not None:
            referee.close()
            referee = None
        for thread in closing:
            thread.join()
        closing = []

    try:
        for item in specs:
            if item is None:  # a rest: no bot process of this referee lives on
                end_every_bot()
                emit({"type": "rested"})
                continue
            spec, upcoming = item
            failures: list[tuple[int, Violation]] = []
            if referee is not None and not referee.carry_on(spec):
                closing = [thread for thread in closing if thread.is_alive()]
                closing.append(referee.close_in_background())  # its bots end while the next ones start
                referee = None
            if prepared is not None:
                taken = prepared.take() if referee is None and prepared.spec == spec else None
                if taken is None:
                    prepared.discard()
                else:
                    referee, failures = taken
                prepared = None
            if referee is None:
                referee = Referee(spec, beside=1)  # and the next match's, prepared while this one plays
                failures = referee.start()
            if upcoming is not None and not referee.could_carry_on(upcoming, spec):
                prepared = Prepared(upcoming)
            play_match(referee, failures, lambda record: emit({"type": "game", "record": record}))
            emit({"type": "match_done", "match_id": spec.match_id})
    finally:
        end_every_bot()


def _serving(lines: Iterable[bytes]) -> Iterator[tuple[MatchSpec, MatchSpec | None] | None]:
    """The matches on the lines of a serving referee's input: a spec, or ``{"spec": ..., "next": ...}`` with a hint
    of the match after it; or ``{"rest": true}``, a rest (None: see ``serve``)."""
    for line in lines:
        if not line.strip():
            continue
        data = orjson.loads(line)
        if data.get("rest") is True:
            yield None
        elif "spec" in data:
            upcoming = data.get("next")
            yield (
                MatchSpec.from_json(data["spec"]),
                None if upcoming is None else MatchSpec.from_json(upcoming),
            )
        else:
            yield MatchSpec.from_json(data), None


def main() -> None:
    """Entry point of a referee process: a match spec (JSON) on stdin, one JSON line per finished game on stdout.

    With ``--serve``: one spec per line on stdin, played in turn (``serve``), each followed by a ``match_done`` line;
    the process ends at the end of its input. A tournament keeps one such referee per parallel slot.
    """
    import sys

    stop_like_ctrl_c()
    forkserver.warm()  # it imports what Python bots need while this process reads its first spec

    def emit(message: dict[str, Any]) -> None:
        sys.stdout.buffer.write(orjson.dumps(message) + b"\n")
        sys.stdout.buffer.flush()

    try:
        if "--serve" in sys.argv[1:]:
            serve(_serving(sys.stdin.buffer), emit)
        else:
            run_match(
                MatchSpec.from_json(orjson.loads(sys.stdin.buffer.read())),
                lambda r: emit({"type": "game", "record": r}),
            )
    except (SpecError, orjson.JSONDecodeError) as exc:
        sys.stderr.write(f"referee: bad match spec: {exc}\n")
        sys.exit(2)
    except KeyboardInterrupt as stop:  # a signal closes the match on the way out: every bot process is ended
        sys.stderr.write(f"referee: {stop or 'interrupted'}; the match was closed\n")
        sys.exit(130)
    except MemoryOverrun as exc:  # one line for the log the run's warning names, not a traceback
        sys.stderr.write(f"referee: {exc}\n")
        sys.exit(1)


if __name__ == "__main__":
    main()
