"""One pool of parallel slots that plays matches on an executor, in rounds, and tells what happens as events.

Tournaments, gauntlets and SPRT tests are its users: they say which matches a round holds and how its slots share
them (``Round``), and read the events (``GameFinished``, ``MatchEnded``, ``SlotFailed``); what they store, count
and decide is theirs. The pool keeps the rule they all need: a round begins only once every slot of the round before
has had its executor end every bot process it ran (``rest``), so that no bot process of a round meets one of the
next (SECURITY.md, fair play).
"""

from __future__ import annotations

import contextlib
import queue
import threading
import traceback
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol

from arena.engine.record import GameRecord
from arena.play.matchspec import MatchSpec
from arena.tournament.executor import Executor, run_match, slot

Planned = tuple[MatchSpec, list[str]]  # a match to play and the keys of its games, in order


@dataclass(frozen=True, slots=True)
class GameFinished:
    """A game of a match ended: its key (the match's ``keys[game_index]``) and its record."""

    key: str
    match_id: str
    record: GameRecord


@dataclass(frozen=True, slots=True)
class MatchEnded:
    """A match ended, all of its games played (``error`` None) or not (what went wrong); ``keys`` its games'."""

    match_id: str
    keys: tuple[str, ...]
    error: str | None


@dataclass(frozen=True, slots=True)
class SlotFailed:
    """A fault of ours ended a slot, and with it the rounds (the other slots stop at the round's end)."""

    place: int
    error: str


Event = GameFinished | MatchEnded | SlotFailed


class Round(Protocol):
    """The matches of one round and how the pool's slots share them."""

    def slot(self, place: int) -> Iterator[tuple[Planned, MatchSpec | None]]:
        """The matches slot ``place`` plays, in turn, each with the slot's next match if it is known already (its
        referee may start that match's bots meanwhile), else None. Never a match of another round."""
        ...


class Shared:
    """A round whose slots take its matches one at a time, in order (an SPRT's), nothing named ahead."""

    def __init__(self, matches: list[Planned]) -> None:
        self._matches = deque(matches)
        self._lock = threading.Lock()

    def slot(self, place: int) -> Iterator[tuple[Planned, MatchSpec | None]]:
        """The next match left, for whichever slot asks first."""
        while True:
            with self._lock:
                if not self._matches:
                    return
                planned = self._matches.popleft()
            yield planned, None


class Chains:
    """A round of chains, each played in turn by one slot (the same bots from match to match: its referee can carry
    them on). A slot with no chain left to start takes the last match of the longest chain another slot is playing
    (a fresh start: new bot processes), so that slots end about a match apart, not a chain apart; never a match its
    slot has named as its next (its referee may be starting that match's bots)."""

    def __init__(self, grouped: list[list[Planned]]) -> None:
        self._waiting = deque(grouped)
        self._playing: list[list[Planned]] = []
        self._named: set[int] = set()  # id() of the matches named as a slot's next
        self._lock = threading.Lock()

    def slot(self, place: int) -> Iterator[tuple[Planned, MatchSpec | None]]:
        """Chains for the slot, each match with the slot's next: the chain's, or at its end the next chain's."""
        chain = self._take()
        while chain is not None:
            following = None
            while (planned := self._next(chain)) is not None:
                upcoming = self._peek(chain)
                if upcoming is None:  # the chain's last match: the slot takes its next chain now, to prepare it
                    following = self._take(steal=False)  # it steals only once it has nothing else to do
                    upcoming = self._peek(following) if following else None
                yield planned, upcoming[0] if upcoming is not None else None
            chain = following if following is not None else self._take()  # its last match may have been taken

    def _take(self, *, steal: bool = True) -> list[Planned] | None:
        """Matches for a slot to play in turn: a waiting chain, else (``steal``) a match from the end of one in play;
        None when there is none."""
        with self._lock:
            if self._waiting:
                chain = self._waiting.popleft()
                self._playing.append(chain)
                return chain
            if not steal:
                return None
            self._playing = [chain for chain in self._playing if chain]
            free = [chain for chain in self._playing if id(chain[-1]) not in self._named]
            if not free:
                return None
            return [max(free, key=len).pop()]

    def _next(self, chain: list[Planned]) -> Planned | None:
        with self._lock:
            return chain.pop(0) if chain else None

    def _peek(self, chain: list[Planned]) -> Planned | None:
        """The chain's next match, left in it and named as its slot's next: no other slot takes it."""
        with self._lock:
            if not chain:
                return None
            self._named.add(id(chain[0]))
            return chain[0]


_DONE = object()  # what a slot's thread puts last on the events queue


class MatchPool:
    """``slots`` threads that play ``rounds`` on ``executor``, one round after another (see the module's docstring).

    ``cores``: a core for each slot, its matches pinned there (empty: as the specs say). ``between``: called between
    two rounds, once every slot has rested. Read ``events()`` to the end; ``stop()`` takes no further match or
    round, ``cancel()`` also has the executor kill what runs; after either, ``events()`` gives what was already
    finished and ends when the slots have.
    """

    def __init__(
        self,
        executor: Executor,
        slots: int,
        rounds: Iterator[Round],
        *,
        cores: list[int] | None = None,
        between: Callable[[], None] | None = None,
    ) -> None:
        self.executor, self.slots, self.cores, self.between = executor, slots, cores or [], between
        self._rounds = rounds
        self._events: queue.Queue[Event | object] = queue.Queue()
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self._ended = 0

    def events(self) -> Iterator[Event]:
        """What happens, as it happens, until every slot has ended (its slots start at the first call)."""
        if not self._threads and self.slots > 0 and self._ended == 0:
            self._start()
        while self._ended < len(self._threads):
            try:
                event = self._events.get(timeout=0.2)
            except queue.Empty:
                continue
            if event is _DONE:
                self._ended += 1
            else:
                assert isinstance(event, GameFinished | MatchEnded | SlotFailed)
                yield event

    def stop(self) -> None:
        """Take no further match or round; what is playing ends as it would."""
        self._stopping.set()

    def cancel(self) -> None:
        """Stop, and have the executor kill every match running (games already finished stay finished)."""
        self._stopping.set()
        self.executor.cancel()

    @property
    def stopping(self) -> bool:
        """Whether ``stop`` or ``cancel`` was called."""
        return self._stopping.is_set()

    def join(self, timeout: float = 10.0) -> None:
        """Wait for the slots' threads to end (they do once ``events()`` has ended)."""
        for thread in self._threads:
            thread.join(timeout=timeout)

    def _start(self) -> None:
        current: list[Round | None] = [next(self._rounds, None)]

        def advance() -> None:
            current[0] = None if self._stopping.is_set() else next(self._rounds, None)

        # Two turns between rounds: at the first every slot has played its part and the next round is known; only
        # if there is one do the slots rest (after the last round the slot's end closes everything anyway), and at
        # the second every slot has rested, so ``between`` runs with no bot process of the round alive.
        played = threading.Barrier(self.slots, action=advance)
        rested = threading.Barrier(self.slots, action=self.between)
        rest = getattr(self.executor, "rest", None)

        def run(place: int) -> None:
            with contextlib.ExitStack() as ending:
                ending.callback(self._events.put, _DONE)
                ending.enter_context(slot(self.executor))
                while (now := current[0]) is not None:
                    try:
                        self._play(now, place)
                        if not self._turn(played) or current[0] is None:
                            return
                        if rest is not None:
                            rest()
                        if not self._turn(rested):
                            return
                    except Exception as exc:  # a fault of ours: told, its traceback on stderr, the slot ended
                        played.abort()  # the other slots stop at a turn instead of waiting for this one for ever
                        rested.abort()
                        self._events.put(SlotFailed(place, f"{type(exc).__name__}: {exc}"))
                        traceback.print_exc()
                        return
                    except BaseException:
                        played.abort()
                        rested.abort()
                        raise

        self._threads = [
            threading.Thread(target=run, args=(place,), name=f"slot {place}", daemon=True)
            for place in range(self.slots)
        ]
        for thread in self._threads:
            thread.start()

    @staticmethod
    def _turn(barrier: threading.Barrier) -> bool:
        """Wait there for every slot; False if another slot failed (it aborted the barrier)."""
        try:
            barrier.wait()
        except threading.BrokenBarrierError:
            return False
        return True

    def _play(self, round_: Round, place: int) -> None:
        """One slot's part of a round."""
        hint = getattr(self.executor, "upcoming", None)  # an executor that can prepare the slot's next match

        def placed(spec: MatchSpec) -> MatchSpec:
            return spec.replace(cpus=[self.cores[place]]) if self.cores else spec

        for (spec, keys), upcoming in round_.slot(place):
            if self._stopping.is_set():
                return
            if hint is not None:
                hint(placed(upcoming) if upcoming is not None else None)
            spec = placed(spec)
            error = run_match(self.executor, spec, self._forward(spec.match_id, keys))
            self._events.put(MatchEnded(spec.match_id, tuple(keys), error))

    def _forward(self, match_id: str, keys: list[str]) -> Callable[[GameRecord], None]:
        """The on_game callback of one match: each game as an event, under its key."""

        def on_game(record: GameRecord) -> None:
            self._events.put(GameFinished(keys[record["game_index"]], match_id, record))

        return on_game
