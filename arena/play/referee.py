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
from typing import Any

import orjson

from arena.engine.game import Game
from arena.engine.options import make_rules
from arena.engine.record import GameRecord
from arena.errors import ArenaError
from arena.play import forkserver
from arena.play.ask import ANSWERED, DIED, TIMED_OUT, Ask, answered
from arena.play.botproc import BotCommand, BotProcess, Process
from arena.play.clock import TimeControl
from arena.play.cpus import pin_match, unpin, unpin_thread
from arena.play.handshake import Handshake
from arena.play.inbox import Inbox
from arena.play.incoming import Hello, canonical_reply
from arena.play.linux import raise_open_files
from arena.play.matchspec import MIN_OPEN_FILES, Limits, MatchSpec, SpecError
from arena.play.memory_guard import MEMORY_LOOK, MemoryGuard, MemoryOverrun
from arena.play.runner import Message, Response, Violation, play, violation_notice
from arena.play.runtimes import command_line
from arena.play.sandbox import Jail, require_isolation
from arena.play.transport import Channel, Channels, Hub
from arena.signals import stop_like_ctrl_c
from arena.text import printable

# Kinds after which the bot's process is replaced before its next game (it may be dead or stuck).
RESTART_AFTER = frozenset({"crash", "memory", "timeout", "handshake", "flood"})
# seconds a bot out of strikes has to read its last notice and match_end and exit before it is killed: once a match
STRUCK_OUT_GRACE = 1.0

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


# How a referee starts bot ``b``'s process on its endpoint: ``start_bot``, or a scripted stand-in in tests.
Starter = Callable[["Referee", int], Process]


def start_bot(referee: Referee, b: int) -> BotProcess:
    """Start bot ``b``'s process: confined (its jail, its own uid when we are root), on its match's cores from its
    first instruction (a runtime counts its processors as it starts), its runtime told its limits
    (arena.play.runtimes), its endpoint opened to it alone, its output to its match log."""
    hub, endpoint, entry = referee.hub, referee.endpoints[b], referee.spec.bots[b]
    assert isinstance(hub, Hub)  # a process is reached through a real endpoint
    log = referee.log_dir / f"{referee.spec.match_id}-bot{b}-{entry.name}.log"
    cores = referee.spec.cpus
    jail = Jail(referee.limits, workdir=hub.workdir(endpoint), cores=cores)
    hub.admit(endpoint, jail.gid)
    command = BotCommand(entry.name, command_line(entry, referee.limits, cores), entry.transport)
    process = BotProcess(command, endpoint.address, log, jail=jail)
    if process.pipes is not None:  # a stdio bot: its stdin and stdout are the channel
        hub.attach(endpoint, *process.pipes)
    return process


class VariantRefused(ArenaError):
    """A bot said in its hello that it does not play the match's variant: the match is refused before any game."""


class Referee:
    """Runs a match: implements the runner's ``Seats`` over real processes and sockets.

    It keeps each bot's process, endpoint and standing (strikes, restarts) and asks for decisions against the clock;
    its parts do the rest: ``handshake`` (arena.play.handshake) greets each process it starts (a ``Greeting`` each),
    an ``Ask`` (arena.play.ask) reads the asked bot's frames into one request's outcome, ``inbox``
    (arena.play.inbox) reads what nobody asked for (unasked frames, strangers, floods) and ``memory``
    (arena.play.memory_guard) watches this process's own memory.
    """

    def __init__(
        self, spec: MatchSpec, *, beside: int = 0, hub: Channels | None = None, start: Starter = start_bot
    ) -> None:
        """``beside``: how many other matches this process may hold with their bots while this one plays. ``hub``
        and ``start``: the bots' endpoints and how their processes start (scripted ones in tests: arena.play.scripted;
        by default a new ``Hub`` and ``start_bot``)."""
        self.spec = spec
        self.rules = make_rules(spec.variant, spec.options)
        self.time_control = TimeControl.parse(spec.time, max_decision=spec.max_decision)
        for game in spec.games:
            if sorted(game.seating) != list(range(len(spec.bots))) or len(game.seating) != self.rules.players:
                raise ArenaError(f"a {spec.variant} game seats each of {self.rules.players} bots exactly once")
        self.limits = fitted_limits(spec, 1 + beside)  # what each bot process runs under
        self.hub = Hub() if hub is None else hub
        self.start_bot = start
        self.endpoints: list[Channel] = []
        self.processes: list[Process | None] = []
        self.hello: list[Hello | None] = []
        self.strikes = [0] * len(spec.bots)
        self.struck_out = [False] * len(spec.bots)  # out of strikes: forfeits the rest of the match
        self.needs_restart = [False] * len(spec.bots)
        # Per bot process (a new process starts with none; carried on to the next match with the process):
        self.expired: list[set[int]] = [set() for _ in spec.bots]  # its requests that timed out
        self.answered: list[set[int]] = [set() for _ in spec.bots]  # its requests it answered validly (bounded:
        self.answered_before = [0] * len(spec.bots)  # those up to this id, before the last game, are let go)
        self.viewed = [-1] * len(spec.bots)  # hand of the last request that carried the view, per bot
        self.request_ids = itertools.count(1)  # unique across the match, so a late answer is never mistaken
        self.seating: list[int] = []
        self.reports: list[tuple[int, Violation]] = []  # found outside a decision, not yet charged; by bot index
        self.relaunched: dict[int, Violation | None] = {}  # bots replaced by prepare: how the restart went
        self._game_start: list[Message | None] = [None] * len(spec.bots)
        self.affinity: set[int] | None = None  # this thread's cores before the match was pinned
        self.log_dir = Path(spec.log_dir)
        # what the bots are told the match is called: not its id, which in a tournament names the pairing, the
        # rotation and the deals (a bot of a later round could look up a note left for exactly that deal)
        self.public_id = secrets.token_hex(6)
        self.dealt: set[int] = set()  # seeds of the games these processes played (or started): see carry_on
        self.closed = threading.Event()  # set when the match is closed and its bots are gone
        self.games_before = 0  # games these processes played in earlier matches (carry_on)
        self.memory = MemoryGuard(self)
        self.inbox = Inbox(self)
        self.handshake = Handshake(self)

    # ---- lifecycle ----

    def start(self) -> list[tuple[int, Violation]]:
        """Start every bot and shake hands; returns the bots that failed the handshake."""
        require_isolation(self.spec.trusted_bots)
        for entry in self.spec.bots:
            self.endpoints.append(self.hub.open(stdio=entry.transport == "stdio"))
            self.processes.append(None)
            self.hello.append(None)
        failed = self._launch(list(range(len(self.spec.bots))))
        refused = self.refused()
        if refused:
            raise VariantRefused("; ".join(refused))
        # The referee's thread onto the match's cores too (its bots are on them from their start: start_bot).
        if self.spec.cpus:
            self.affinity = pin_match(self.spec.cpus, [p.pid for p in self.processes if p is not None])
        return failed

    def refused(self) -> list[str]:
        """The bots whose hello lists the variants they play, and not this match's: why each refuses it (once for
        copies of one bot under one name, which say the same)."""
        variant = self.spec.variant
        reasons = (
            f"bot {entry.name!r} does not play {variant!r}: its hello lists {', '.join(hello.variants) or 'none'}"
            for entry, hello in zip(self.spec.bots, self.hello, strict=True)
            if hello is not None and hello.variants is not None and variant not in hello.variants
        )
        return list(dict.fromkeys(reasons))

    def _launch(self, indexes: list[int]) -> list[tuple[int, Violation]]:
        for b in indexes:
            old = self.processes[b]
            if old is not None:
                old.kill()
            self.hub.renew(self.endpoints[b])  # what the dead process (or its leftovers) sent is dropped unread
            self.expired[b], self.answered[b] = set(), set()  # (request ids never repeat: nothing to mistake)
            self.processes[b] = self.start_bot(self, b)
            self.needs_restart[b] = False
        return self.handshake.run(indexes)

    def close(self) -> None:
        """Tell every bot the match is over, give it a moment to exit, then kill what is left."""
        for b in range(len(self.processes)):
            self.send(b, {"type": "match_end", "reason": "match over"})
        deadline = time.monotonic() + 1.0
        for process in self.processes:
            while process is not None and not process.wait_until(min(deadline, time.monotonic() + MEMORY_LOOK)):
                if time.monotonic() >= deadline or self.memory.overgrown():
                    deadline = 0.0  # no more grace: a bot filling the memory after the match
                    break
        for process in self.processes:
            if process is not None:
                process.kill()
        self.hub.close()
        unpin(self.affinity)
        self.closed.set()

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
        for b, ids in enumerate(self.answered):  # a copy of an answer of the last game or this one is still known as
            before = self.answered_before[b]  # such; those of older games are let go (a match's length costs nothing)
            self.answered_before[b] = max(ids, default=before)
            self.answered[b] = {r for r in ids if r > before}
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
        self.send(b, message)

    def send(self, b: int, message: Message | bytes) -> None:
        """Send bot ``b`` a message (or a frame already encoded), unless it is out of the match."""
        if not self.struck_out[b]:
            self.endpoints[b].send(message if isinstance(message, bytes) else orjson.dumps(message))

    def prepare(self, seat: int) -> None:
        """Under the substitute policy a bot that must be replaced is replaced now, before its request is built, so
        that the request carries the view (protocol.md §2); a failed restart is the answer ``ask`` gives."""
        b = self.seating[seat]
        if self.spec.policy == "substitute" and (self.needs_restart[b] or self.endpoints[b].peer is None):
            self.relaunched[b] = self.relaunch_midgame(b)

    def ask(self, seat: int, message: Message, allowed: float) -> Response:
        """Send a decision request and wait for its answer, a violation, or the deadline."""
        self.memory.check()  # a bot found holding the memory is charged below (its flood)
        b = self.seating[seat]
        endpoint, process = self.endpoints[b], self.processes[b]
        assert process is not None
        if (failure := self.relaunched.pop(b, None)) is not None:
            return Response(None, failure, 0.0)
        # a flood that stopped it since its last request (at a restart's handshake) is this request's answer
        if (flood := self.inbox.flood_found(b)) is not None:
            return Response(None, flood, 0.0)
        # A process that died since its last answer is found below, when it does not answer (no wait() per request).
        if endpoint.peer is None or (self.needs_restart[b] and self.spec.policy == "forfeit"):
            if process.alive():
                return Response(None, Violation("crash", "bot has no accepted connection"), 0.0)
            return Response(None, Violation(process.death_kind(), f"bot {process.exit_description()}"), 0.0)
        request_id = message["request_id"]
        if endpoint.has_input():  # what waits before the request was not asked for: read it as such (§9), not as
            self.inbox.drain(endpoint)  # a first frame read while asked, however late the referee got round to it
            if (flood := self.inbox.flood_found(b)) is not None:
                return Response(None, flood, 0.0)
        frame = orjson.dumps(message)
        for other, each in enumerate(self.processes):  # the asked bot's tree gets the processor, the others wait
            if each is not None:
                each.favour(other == b)
        # The clock starts as the request leaves: a referee held up right after the send (a busy host) must not
        # give the bot that time for free.
        start = time.perf_counter()
        self.send(b, frame)
        first = endpoint.receive_within(min(allowed, 0.05))
        if first is not None and first[0] == endpoint.peer:  # the usual answer: canonical and in time, settled here
            action, elapsed = canonical_reply(first[1], request_id), time.perf_counter() - start
            if action is not None and elapsed <= allowed:
                quick = answered(endpoint, self.answered[b], request_id, action, first[1].decode("ascii"), elapsed)
                self.inbox.read_behind(b, endpoint)
                return quick
        asked = Ask(self.inbox, endpoint, request_id, allowed, start, self.expired[b], self.answered[b])
        while True:
            now = time.perf_counter()
            if first is None and now >= asked.deadline:
                asked.expire(now - asked.start)
                if asked.state is ANSWERED:
                    self.inbox.read_behind(b, endpoint)
                break
            if first is None:
                first = endpoint.receive_within(min(asked.deadline - now, 0.05))
            if first is not None:
                elapsed = time.perf_counter() - asked.start
                settled = asked.frame(*first, elapsed) or asked.look(None, elapsed)
                first = None
                if settled:
                    if asked.state is not TIMED_OUT:  # what came behind it is read now, as unasked
                        self.inbox.read_behind(b, endpoint)
                    break
                continue  # frames that did not count (or the look's budget ran out): check the clock, look again
            self.inbox.drain_others(b)
            if spent := self.memory.check():  # the clock stopped while the bots were stopped one by one
                asked.pause(spent)
                if (flood := self.inbox.flood_found(b)) is not None:  # it held the memory
                    asked.flooded(flood, time.perf_counter() - asked.start)
                    break
                if b in self.relaunched:  # stopped before the holder was found, restarted: asked again
                    if (failure := self.relaunched.pop(b)) is not None:
                        asked.restart_failed(failure)
                        break
                    relaunched = self.processes[b]
                    assert relaunched is not None
                    process = relaunched
                    self.send(b, frame)
            if (flood := self.inbox.flooded(endpoint)) is not None:  # connections that sent no frame
                asked.flooded(flood, time.perf_counter() - asked.start)
                break
            if not process.alive():
                died = Violation(process.death_kind(), f"bot {process.exit_description()}")
                asked.died(died, time.perf_counter() - asked.start)  # charged until it was found dead
                break
        if asked.state is TIMED_OUT or asked.state is DIED:
            self.needs_restart[b] = True
        assert asked.answer is not None
        return asked.answer

    def cut_off(self, b: int) -> None:
        """Kill bot ``b``'s process and everything it started, and close every connection to its endpoint (libzmq
        drops what they held)."""
        if (process := self.processes[b]) is not None:
            process.kill()
        self.hub.renew(self.endpoints[b])

    def report(self, b: int, violation: Violation) -> None:
        """Queue a violation of bot ``b`` found outside a decision (handshake, unsolicited message, flood): it is
        charged in the bot's current game, or in its next one if it is not seated yet."""
        if not self.struck_out[b]:
            self.reports.append((b, violation))

    def relaunch_midgame(self, b: int) -> Violation | None:
        """Under the substitute policy a dead bot is replaced at once and rejoins the game from its next view."""
        if self.struck_out[b]:
            return Violation("disqualified", "out of strikes earlier in the match")
        failures = self._launch([b])
        if failures:
            return failures[0][1]
        start = self._game_start[b]
        if start is not None:
            self.send(b, start)
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
        if not self.reports:
            return []
        found = [(self.seating.index(b), v) for b, v in self.reports if b in self.seating and not self.struck_out[b]]
        self.reports = [(b, v) for b, v in self.reports if b not in self.seating and not self.struck_out[b]]
        return found

    def penalize(self, seat: int, violation: Violation, *, game: int) -> bool:
        """Count a strike against the bot in ``seat``, tell it, and disqualify it at ``max_strikes``."""
        b = self.seating[seat]
        self.strikes[b] += 1
        if violation.kind in RESTART_AFTER:
            self.needs_restart[b] = True
        if violation.kind == "flood":  # stop the flood now: the process, all it started, and its connections
            self.cut_off(b)
        self.send(b, violation_notice(violation.kind, violation.detail, self.strikes[b], self.spec.max_strikes))
        if self.strikes[b] >= self.spec.max_strikes and not self.struck_out[b]:
            self.send(b, {"type": "match_end", "reason": "out of strikes"})  # (send() says nothing to a bot out)
            self.struck_out[b] = True
            process = self.processes[b]
            if process is not None:  # time to read why and exit (protocol.md §11), then killed whatever it does
                process.wait_until(time.monotonic() + STRUCK_OUT_GRACE)
                process.kill()
        return self.struck_out[b]

    def disqualified(self, seat: int) -> bool:
        """Whether the bot in ``seat`` has forfeited the rest of the match."""
        return self.struck_out[self.seating[seat]]


def run_match(spec: MatchSpec, on_game: Callable[[GameRecord], None] | None = None) -> list[GameRecord]:
    """Run every game of the match; each finished game's record is passed to ``on_game`` as soon as it ends and not
    kept (the list returned is empty: a match of any length runs in the same memory). Without ``on_game``, the
    records are returned."""
    kept: list[GameRecord] = []
    with contextlib.closing(Referee(spec)) as referee:
        play_match(referee, referee.start(), kept.append if on_game is None else on_game)
    return kept


def play_match(referee: Referee, failures: list[tuple[int, Violation]], on_game: Callable[[GameRecord], None]) -> int:
    """Play every game of the referee's match (its bots started, ``failures`` those whose handshake failed), each
    record handed to ``on_game`` as the game ends and not kept; returns how many games were played."""
    spec = referee.spec
    for index, game_spec in enumerate(spec.games):
        referee.memory.settle()  # what the games so far left grown is the referee's own, not a bot's
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
        on_game(record)
        del outcome, record, game  # gone before the next game's: the referee holds one game at a time
    return len(spec.games)


def close_in_background(referee: Referee) -> threading.Thread:
    """Close ``referee``'s match in a thread of its own, so that the next match's bots start meanwhile; this thread is
    unpinned now (the next match's bots are put on their own match's cores as they start: start_bot)."""
    unpin(referee.affinity)
    referee.affinity = None
    closing = threading.Thread(target=referee.close, name=f"close {referee.spec.match_id}", daemon=True)
    closing.start()
    return closing


class Prepared:
    """The referee of a match to come, its bots started and shaken hands with in a thread of its own while the
    current match plays (on the match's cores from their start, as every bot is: ``start_bot``)."""

    def __init__(self, spec: MatchSpec) -> None:
        self.spec = spec
        self.referee = Referee(spec, beside=1)  # the match playing meanwhile
        self.failures: list[tuple[int, Violation]] = []
        self.error: BaseException | None = None
        self._ready = threading.Event()
        threading.Thread(target=self._start, name=f"prepare {spec.match_id}", daemon=True).start()

    def _start(self) -> None:
        unpin_thread()  # not on the current match's core (its bots go to their own match's cores as they start)
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
                closing.append(close_in_background(referee))  # its bots end while the next ones start
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
    except (MemoryOverrun, VariantRefused) as exc:  # one line for the log the run's warning names, not a traceback
        sys.stderr.write(f"referee: {exc}\n")
        sys.exit(1)


if __name__ == "__main__":
    main()
