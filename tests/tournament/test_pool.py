"""The match pool (arena.tournament.pool) with a scripted executor: fast checks of its order and its events.

The real executor, referees and bots are in test_pool_rounds.py, test_executor_serve.py and test_run.py; here an
executor that only writes down what it is asked shows what the pool promises: a round's matches start only after
every slot rested from the round before, each game and match is told once as a typed event, and a slot that fails or
a stop ends the run without a hang.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from configs import match_spec
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.play.matchspec import MatchSpec
from arena.tournament.pool import Chains, GameFinished, MatchEnded, MatchPool, Planned, Shared, SlotFailed
from arena.tournament.run import split


def planned(match_id: str, games: int) -> Planned:
    spec = match_spec(["a", "b"], [(g, [0, 1]) for g in range(games)], match_id=match_id)
    return spec, [f"{match_id}/{g}" for g in range(games)]


class Scripted:
    """An executor that plays nothing: it writes down each call (what, which slot's thread, when) and answers each
    match with its games in order and the error ``errors`` names for it."""

    def __init__(self, errors: dict[str, str] | None = None, fail_rest: bool = False) -> None:
        self.log: list[tuple[str, str, float]] = []
        self.errors = errors or {}
        self.fail_rest = fail_rest
        self.cancelled = False
        self._lock = threading.Lock()

    def _note(self, what: str) -> None:
        with self._lock:
            self.log.append((what, threading.current_thread().name, time.monotonic()))

    def run(self, spec: MatchSpec, on_game: Callable[[Any], None]) -> str | None:
        self._note(f"start {spec.match_id}")
        time.sleep(0.005)
        for index in range(len(spec.games)):
            on_game({"game_index": index, "match_id": spec.match_id})
        self._note(f"end {spec.match_id}")
        return self.errors.get(spec.match_id)

    def rest(self) -> None:
        self._note("rest")
        if self.fail_rest and threading.current_thread().name == "slot 1":
            raise RuntimeError("a fault of ours")

    def cancel(self) -> None:
        self.cancelled = True


def test_a_round_starts_only_after_every_slot_rested_and_every_event_comes_once() -> None:
    rounds = [[planned(f"r{r}m{m}", 2) for m in range(3)] for r in range(3)]
    executor = Scripted(errors={"r1m2": "it broke"})
    between: list[float] = []
    pool = MatchPool(executor, 2, (Shared(r) for r in rounds), between=lambda: between.append(time.monotonic()))
    events = list(pool.events())
    pool.join()
    games = [e for e in events if isinstance(e, GameFinished)]
    ended = [e for e in events if isinstance(e, MatchEnded)]
    assert sorted(g.key for g in games) == sorted(k for r in rounds for _, keys in r for k in keys)
    assert sorted(e.match_id for e in ended) == sorted(spec.match_id for r in rounds for spec, _ in r)
    assert {e.match_id: e.error for e in ended}["r1m2"] == "it broke"
    assert all(e.keys == tuple(f"{e.match_id}/{g}" for g in range(2)) for e in ended)
    starts = {what.split()[1]: at for what, _, at in executor.log if what.startswith("start")}
    ends = {what.split()[1]: at for what, _, at in executor.log if what.startswith("end")}
    rests = sorted(at for what, _, at in executor.log if what == "rest")
    assert len(rests) == 2 * 2  # each slot, between rounds: not after the last (the slot's end ends its bots)
    assert len(between) == 2  # between rounds, not after the last
    for number in (1, 2):
        earlier = [ends[f"r{number - 1}m{m}"] for m in range(3)]
        rested = rests[2 * number - 2 : 2 * number]  # both slots' rests after that round
        later = [starts[f"r{number}m{m}"] for m in range(3)]
        assert max(earlier) <= min(rested) <= max(rested) <= between[number - 1] <= min(later)


def test_a_slot_that_fails_says_so_and_the_run_ends_without_waiting_for_it() -> None:
    """A fault of ours in a slot (here its executor's rest; a match's own failure is its MatchEnded's error) is
    told, and the other slots stop at the round's end instead of waiting for it."""
    rounds = [[planned(f"r{r}m{m}", 1) for m in range(2)] for r in range(3)]
    executor = Scripted(fail_rest=True)
    pool = MatchPool(executor, 2, (Shared(r) for r in rounds))
    events: list[Any] = []
    finished = threading.Event()

    def read() -> None:
        events.extend(pool.events())
        finished.set()

    threading.Thread(target=read, daemon=True).start()
    assert finished.wait(10), "the pool waits for a slot that is gone"
    failed = [e for e in events if isinstance(e, SlotFailed)]
    assert len(failed) == 1 and "RuntimeError: a fault of ours" in failed[0].error
    assert not any(what.startswith("start r1") for what, _, _ in executor.log)  # no further round


def test_stop_takes_no_further_match_and_cancel_asks_the_executor() -> None:
    executor = Scripted()
    pool = MatchPool(executor, 1, iter([Chains([[planned(f"m{m}", 1) for m in range(20)]])]))
    seen = []
    for event in pool.events():
        seen.append(event)
        if isinstance(event, MatchEnded) and event.match_id == "m2":
            pool.cancel()
    pool.join()
    assert executor.cancelled and pool.stopping
    ended = [e.match_id for e in seen if isinstance(e, MatchEnded)]
    assert ended[:3] == ["m0", "m1", "m2"] and len(ended) <= 4  # at most the match already begun meanwhile


@pytest.mark.parametrize("slots", [1, 3])
def test_chains_are_shared_by_the_slots_each_match_once(slots: int) -> None:
    grouped = [[planned(f"c{c}m{m}", 1) for m in range(4)] for c in range(2)]
    executor = Scripted()
    pool = MatchPool(executor, slots, iter([Chains(grouped)]))
    played = [e.match_id for e in pool.events() if isinstance(e, MatchEnded)]
    pool.join()
    assert sorted(played) == sorted(f"c{c}m{m}" for c in range(2) for m in range(4))


@settings(max_examples=60, deadline=None)
@given(
    lengths=st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=5),
    slots=st.integers(min_value=1, max_value=6),
    size=st.integers(min_value=1, max_value=10),
)
def test_split_cuts_chains_for_the_slots_and_tapers_their_ends(lengths: list[int], slots: int, size: int) -> None:
    """Every game once, in matches of at most ``size``; a chain for each slot where there are games enough; with more
    than one slot every chain ends in a match of one game, after halves (what an idle slot takes is short)."""
    grouped = []
    for c, n in enumerate(lengths):  # pairing c's deals 0..n-1 in rotation 0, in matches of ``size`` as planned
        chain = []
        for first in range(0, n, size):
            spec, _ = planned(f"c{c}_{first}", min(size, n - first))
            chain.append((spec, [f"c{c}/{deal}/0" for deal in range(first, first + len(spec.games))]))
        grouped.append(chain)
    cut = split(grouped, slots, size)
    keys = [key for chain in cut for _, match_keys in chain for key in match_keys]
    assert sorted(keys) == sorted(key for chain in grouped for _, match_keys in chain for key in match_keys)
    assert len(cut) >= min(slots, sum(lengths))
    for chain in cut:
        sizes = [len(match_keys) for _, match_keys in chain]
        assert all(1 <= n <= size for n in sizes)
        assert all(len(spec.games) == n for (spec, _), n in zip(chain, sizes, strict=True))
        assert len({spec.match_id for spec, _ in chain}) == len(chain)  # each match named for its own games
        if slots > 1:
            assert sizes[-1] == 1 and sizes == sorted(sizes, reverse=True)
            short = [n for n in sizes if n < size]
            assert all(a <= -(-b // 2) + 1 for b, a in itertools.pairwise(short))  # about halves
        else:
            assert sizes[:-1] == [size] * (len(sizes) - 1)  # one slot: whole matches, nothing to take
