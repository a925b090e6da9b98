"""A referee that serves matches in turn (``python -m arena.play.referee --serve``) and the executor that keeps one
per tournament slot: bot processes carry over to the next match only where no process can meet a deal twice.

Real referee processes, real probe bots (tests/bots/probe.py dumps every frame it is told, with the process that got
it), real sockets.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from configs import tournament_config
from probing import match, probe, read_dump

from arena.play import forkserver
from arena.play.botproc import BotCommand
from arena.play.matchspec import MatchSpec
from arena.tournament import executor as executor_module
from arena.tournament.executor import LocalExecutor, run_match, slot
from arena.tournament.pool import Chains
from arena.tournament.run import RunReport, chains, failures, resolve_entrants, run_tournament
from arena.tournament.schedule import plan_matches
from arena.tournament.store import Store

pytestmark = pytest.mark.timeout(120)


def serve(specs: list[MatchSpec], hints: list[MatchSpec | None] | None = None) -> list[dict[str, Any]]:
    """Feed ``specs`` to one serving referee process (each with the hint of the match after it, if given); every
    line it wrote."""
    if hints is None:
        lines = "".join(json.dumps(spec.to_json()) + "\n" for spec in specs)
    else:
        lines = "".join(
            json.dumps({"spec": spec.to_json(), "next": hint and hint.to_json()}) + "\n"
            for spec, hint in zip(specs, hints, strict=True)
        )
    done = subprocess.run(
        [sys.executable, "-m", "arena.play.referee", "--serve"],
        input=lines.encode(),
        capture_output=True,
        timeout=100,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    return [json.loads(line) for line in done.stdout.splitlines()]


def two_hand(tmp_path: Path, games: list[tuple[int, list[int]]], **settings: Any) -> MatchSpec:
    """A two-hand match of two probes dumping what they are told (the same dump files for every match)."""
    bots = [probe("ann", "--dump", tmp_path / "ann.jsonl"), probe("bob", "--dump", tmp_path / "bob.jsonl")]
    return match(tmp_path, bots, games, variant="two-hand", options={"points_to_win": 3}, **settings)


def processes(dump: Path) -> list[str]:
    """The processes of a probe in the order they were first told anything."""
    seen: list[str] = []
    for entry in read_dump(dump):
        if entry["proc"] not in seen:
            seen.append(entry["proc"])
    return seen


def test_the_next_match_of_new_deals_is_played_by_the_same_processes_as_one_longer_match(tmp_path: Path) -> None:
    first = two_hand(tmp_path, [(11, [0, 1]), (12, [0, 1])])
    second = two_hand(tmp_path, [(13, [0, 1]), (14, [0, 1])]).replace(match_id=first.match_id + "b")
    out = serve([first, second])
    assert [m["type"] for m in out] == ["game", "game", "match_done", "game", "game", "match_done"]
    records = [m["record"] for m in out if m["type"] == "game"]
    assert [(r["match_id"], r["game_index"]) for r in records] == [
        (first.match_id, 0),
        (first.match_id, 1),
        (second.match_id, 0),
        (second.match_id, 1),
    ]
    assert [r["seed"] for r in records] == [11, 12, 13, 14]
    assert all(not r["violations"] and "forfeit" not in r for r in records)
    for name in ("ann", "bob"):
        dump = tmp_path / f"{name}.jsonl"
        assert len(processes(dump)) == 1  # one process played all four games
        told = [e["msg"] for e in read_dump(dump)]
        assert [m["game"] for m in told if m["type"] == "game_start"] == [0, 1, 2, 3]  # the games count on
        assert [m["type"] for m in told].count("match_end") == 1 and told[-1]["type"] == "match_end"
        logs = [
            tmp_path / "logs" / f"{spec.match_id}-bot{0 if name == 'ann' else 1}-{name}.log" for spec in (first, second)
        ]
        assert os.path.samefile(*logs)  # each match's log name leads to the one log of the process


@pytest.mark.parametrize(
    ("what", "change"),
    [
        ("the other rotation of a deal it played", {"games": [(12, [1, 0])]}),
        ("another clock", {"games": [(13, [0, 1])], "time": "4+0.1"}),
    ],
)
def test_a_match_that_would_show_a_process_a_deal_twice_or_other_rules_gets_fresh_processes(
    tmp_path: Path, what: str, change: dict[str, Any]
) -> None:
    first = two_hand(tmp_path, [(11, [0, 1]), (12, [0, 1])])
    games = change.pop("games")
    second = two_hand(tmp_path, games, **change)
    out = serve([first, second])
    assert [m["type"] for m in out] == ["game", "game", "match_done", "game", "match_done"], what
    for name in ("ann", "bob"):
        dump = tmp_path / f"{name}.jsonl"
        old, new = processes(dump)
        told = read_dump(dump)
        ends = [i for i, e in enumerate(told) if e["msg"]["type"] == "match_end"]
        assert len(ends) == 2, what  # each match ended for its own processes
        assert all(e["proc"] == old for e in told[: ends[0] + 1]) and all(e["proc"] == new for e in told[ends[0] + 1 :])
        starts = [(e["proc"], e["msg"]["game"]) for e in told if e["msg"]["type"] == "game_start"]
        assert starts == [(old, 0), (old, 1), (new, 0)]


@pytest.mark.parametrize("forked", [True, False], ids=["forked", "execd"])
def test_the_executor_keeps_a_referee_per_thread_and_replaces_one_that_died(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forked: bool
) -> None:
    monkeypatch.setenv("ARENA_FORK_SERVER", "1" if forked else "0")
    executor = LocalExecutor()
    specs = [two_hand(tmp_path, [(20 + i, [0, 1])]).replace(match_id=f"m{i}") for i in range(3)]
    got: list[tuple[str, int]] = []
    errors: list[str | None] = []
    last: list[subprocess.Popen[bytes] | forkserver.ForkedProcess] = []

    def play() -> None:
        with slot(executor):  # the slot's referee is ended, not killed, when its thread is done
            errors.append(executor.run(specs[0], lambda r: got.append((r["match_id"], r["seed"]))))
            referee = executor._servers[threading.get_ident()].process
            errors.append(executor.run(specs[1], lambda r: got.append((r["match_id"], r["seed"]))))
            assert executor._servers[threading.get_ident()].process is referee  # the same referee served both
            referee.kill()  # a referee that died between matches is replaced for the next
            referee.wait()
            errors.append(executor.run(specs[2], lambda r: got.append((r["match_id"], r["seed"]))))
            assert executor._servers[threading.get_ident()].process is not referee
            assert referee.returncode == -signal.SIGKILL
            # forked from this process's fork server for referees where fork servers work, else exec'd
            assert isinstance(referee, forkserver.ForkedProcess) == (forked and forkserver.enabled())
            last.append(executor._servers[threading.get_ident()].process)

    thread = threading.Thread(target=play)
    thread.start()
    thread.join(100)
    assert not thread.is_alive()
    assert got == [("m0", 20), ("m1", 21), ("m2", 22)]
    assert errors == [None, None, None]
    assert executor._servers == {}  # released: nothing left running
    assert last[0].returncode == 0  # the referee closed its match and exited (killed, it would be -9)
    assert len(processes(tmp_path / "ann.jsonl")) == 2  # one process for m0 and m1, a new one with the new referee


@pytest.mark.parametrize("variant", ["two-hand", "three-hand", "four-hand"])
def test_a_tournament_hands_each_slot_whole_chains_of_one_pairing_in_one_rotation(variant: str, tmp_path: Path) -> None:
    config = tournament_config(
        variant=variant, entrants=["a", "b", "c"], games_per_pairing=20, games_per_match=8, seed=5, partnership="self"
    )
    commands = {name: BotCommand(name, (sys.executable, f"{name}.py")) for name in config.entrants}
    matches = plan_matches(config, commands, done=set(), log_dir=str(tmp_path))
    grouped = chains(matches)
    assert sorted(spec.match_id for chain in grouped for spec, _ in chain) == sorted(s.match_id for s, _ in matches)
    assert [len(chain) for chain in grouped] == sorted((len(chain) for chain in grouped), reverse=True)
    for chain in grouped:
        seatings = {tuple(g.seating) for spec, _ in chain for g in spec.games}
        assert len(seatings) == 1  # one rotation
        seeds = [g.seed for spec, _ in chain for g in spec.games]
        assert len(seeds) == len(set(seeds)) == 20  # every deal of the pairing once
        assert len({tuple(b.name for b in spec.bots) for spec, _ in chain}) == 1  # one pairing
    rotations = {2: 2, 3: 3, 4: 2}[len(grouped[0][0][0].games[0].seating)]
    pairings = {"two-hand": 3, "three-hand": 1, "four-hand": 3}[variant]
    assert len(grouped) == pairings * rotations


def test_a_slot_left_without_a_chain_takes_the_last_match_of_the_longest_chain_in_play(tmp_path: Path) -> None:
    """Slots end about a match apart, not a chain apart: a slot that has played its chain out takes a match not yet
    begun from the end of the longest chain in play, but not one its slot has named as its next; looking ahead
    while its own last match plays, it takes only a whole chain waiting (else it would take another slot's work
    before it is idle)."""
    spec = two_hand(tmp_path, [(1, [0, 1])])
    a, b = ([(spec.replace(match_id=f"{name}{k}"), [f"{name}{k}"]) for k in range(3)] for name in "ab")
    c = [(spec.replace(match_id="c0"), ["c0"])]
    work = Chains([list(a), list(b), list(c)])
    first, second = work.slot(0), work.slot(1)  # two slots, stepped in turn
    assert next(first) == (a[0], a[1][0])  # its chain, and its next named (its referee may start its bots)
    assert next(second) == (b[0], b[1][0])
    assert next(first) == (a[1], a[2][0])
    assert next(first) == (a[2], c[0][0])  # its chain's last match: it takes the chain waiting, to prepare it
    assert next(first) == (c[0], None)  # looking ahead there, it takes only a whole chain waiting: none is
    assert next(first) == (b[2], None)  # then, idle, the last match of the other slot's chain, never the one named
    assert next(second) == (b[1], None)
    assert next(first, None) is None and next(second, None) is None  # every match played once


def test_a_match_that_raises_midway_leaves_its_referee_behind_not_its_games_to_the_next(tmp_path: Path) -> None:
    """The referee of a match cut short by an exception (here on_game's) is still in that match: the slot's next
    match gets a new one, and only its own games."""
    executor = LocalExecutor()
    first = two_hand(tmp_path, [(20, [0, 1]), (21, [1, 0]), (22, [0, 1])]).replace(match_id="m0")
    second = two_hand(tmp_path, [(30, [0, 1])]).replace(match_id="m1")
    got: list[tuple[str, int]] = []
    errors: list[str | None] = []

    def fail(record: Any) -> None:
        raise KeyError("on_game failed")

    def play() -> None:
        with slot(executor):
            errors.append(run_match(executor, first, fail))
            errors.append(run_match(executor, second, lambda r: got.append((r["match_id"], r["seed"]))))

    thread = threading.Thread(target=play)
    thread.start()
    thread.join(100)
    assert not thread.is_alive()
    assert errors[0] is not None and "KeyError" in errors[0] and errors[1] is None
    assert got == [("m1", 30)]


class KillSpy:
    """``os.killpg`` as the executor calls it, noting every call made by pid on a referee already ended (whose pid
    may be another process's by then: such a call is not passed on); ``after_end`` runs right after each end."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, after_end: Callable[[], object]) -> None:
        self.ended: list[int] = []
        self.late: list[int] = []
        self.real_killpg, real_end = os.killpg, executor_module._Server.end

        def end(server: Any) -> int:
            code = real_end(server)
            self.ended.append(server.process.pid)
            after_end()
            return code

        monkeypatch.setattr(executor_module._Server, "end", end)
        monkeypatch.setattr(os, "killpg", self.killpg)

    def killpg(self, pid: int, sig: int) -> None:
        if pid in self.ended:
            self.late.append(pid)
            return
        self.real_killpg(pid, sig)


@pytest.mark.parametrize("cut", ["raises", "referee dies"])
def test_a_cancel_landing_as_a_cut_short_match_ends_its_referee_never_signals_the_released_pid(
    cut: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once a referee's process is ended (reaped, or released to the fork server to reap), its pid may be another
    process's: a ``cancel()`` from another thread that lands just then must not kill by it. Here the cancel is made
    right after the end, where it would otherwise land before the executor forgets the referee; the match is cut
    short by an exception (on_game's), or by its referee's death (no ``match_done``)."""
    executor = LocalExecutor()
    # a referee to kill at game 1 must not have finished the match already: the bots take 10 s over game 2's first
    # request (a referee killed at game 1 never sees it, an exception ends the match before it)
    bots = [probe(name, "--think", "1:1:10") for name in ("ann", "bob")]
    spec = match(tmp_path, bots, [(20, [0, 1]), (21, [1, 0])], variant="two-hand", options={"points_to_win": 3})
    spy = KillSpy(monkeypatch, executor.cancel)

    def on_game(record: Any) -> None:
        if cut == "raises":
            raise KeyError("on_game failed")
        referee = executor._servers[threading.get_ident()].process.pid
        spy.real_killpg(referee, signal.SIGKILL)

    with slot(executor):
        error = run_match(executor, spec, on_game)
    assert error is not None and ("KeyError" if cut == "raises" else "referee exited") in error
    assert spy.ended and spy.late == []


def test_a_watchdog_that_fires_as_its_match_ends_never_signals_the_released_pid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The watchdog has decided to kill (no game for its limit) when the match's thread stops it and ends the
    referee: its kill comes before the end or not at all. Here the watchdog's kill waits (up to 2 s) for the end."""
    executor = LocalExecutor(stall_timeout=0.05)
    spec = two_hand(tmp_path, [(20, [0, 1]), (21, [1, 0])])
    ended = threading.Event()
    spy = KillSpy(monkeypatch, ended.set)
    firing, fired = threading.Event(), threading.Event()

    def killpg(pid: int, sig: int) -> None:
        if threading.current_thread() is threading.main_thread():
            spy.killpg(pid, sig)
            return
        firing.set()  # the watchdog's thread
        ended.wait(2)
        spy.killpg(pid, sig)
        fired.set()

    monkeypatch.setattr(os, "killpg", killpg)

    def fail(record: Any) -> None:
        # no game follows while this waits, so the watchdog fires now (the first game may come within its limit)
        assert firing.wait(5)
        raise KeyError("on_game failed")

    with slot(executor):
        run_match(executor, spec, fail)
    assert fired.wait(5)  # it did fire
    assert spy.ended and spy.late == []


class Faulty(LocalExecutor):
    """A local executor whose first match raises, as one whose referee cannot start does."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0
        self.lock = threading.Lock()

    def run(self, spec: MatchSpec, on_game: Any) -> str | None:
        with self.lock:
            self.calls += 1
            first = self.calls == 1
        if first:
            raise OSError(24, "Too many open files")
        return super().run(spec, on_game)


def test_a_match_whose_executor_raises_fails_alone_and_the_run_goes_on(tmp_path: Path) -> None:
    """The slot's thread died with the exception and the run waited for its match forever."""
    config = tournament_config(entrants=["random", "heuristic"], games_per_pairing=4, games_per_match=4, seed=3)
    reports: list[RunReport] = []
    with Store.open(tmp_path / "t.db") as store:

        def run() -> None:
            commands = resolve_entrants(config.entrants)
            log_dir = str(tmp_path / "logs")
            reports.append(run_tournament(config, store, commands, jobs=2, log_dir=log_dir, executor=Faulty()))

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        thread.join(120)
        assert not thread.is_alive(), "the run waits for the failed match"
        stored, recorded = store.game_count(), failures(store)
    report = reports[0]
    # every other match was played: each round's four games, cut for the two slots into chains of two games, each
    # in matches of one (a chain's tapered end): the failed match held one game
    assert report.total == 8 and report.played == stored == 7
    assert len(report.errors) == 1 and "executor failed: OSError: [Errno 24] Too many open files" in report.errors[0]
    assert len(recorded) == 1 and recorded[0]["error"] in report.errors[0]  # kept in the results file


def test_the_next_match_named_in_advance_has_its_bots_started_while_the_current_one_plays(tmp_path: Path) -> None:
    # The first match lasts 6 s more: time for the next match's bots to start on a loaded host (where 1.5 s was once
    # too little), within a clock that allows it.
    first = two_hand(tmp_path, [(11, [0, 1]), (12, [0, 1]), (13, [0, 1])], time="30+1")
    slow = probe("ann", "--dump", tmp_path / "ann.jsonl", "--think", "2:1:6")
    first = first.replace(bots=[slow, first.bots[1]])
    second = two_hand(tmp_path, [(11, [1, 0]), (14, [1, 0])])  # the other rotation of a deal: fresh processes
    out = serve([first, second], [second, None])
    assert [m["type"] for m in out] == ["game"] * 3 + ["match_done", "game", "game", "match_done"]
    for name in ("ann", "bob"):
        told = read_dump(tmp_path / f"{name}.jsonl")
        old, new = processes(tmp_path / f"{name}.jsonl")
        welcomed = next(e["t"] for e in told if e["proc"] == new and e["msg"]["type"] == "welcome")
        last_game_end = max(e["t"] for e in told if e["proc"] == old and e["msg"]["type"] == "game_end")
        assert welcomed < last_game_end  # shaken hands with before the first match was over
        # and they live through their match (bots die with the thread that started them: it must not end first)
        assert [e["msg"]["game"] for e in told if e["proc"] == new and e["msg"]["type"] == "game_start"] == [0, 1]


def test_a_match_prepared_in_advance_but_not_played_next_is_ended(tmp_path: Path) -> None:
    first = two_hand(tmp_path, [(11, [0, 1])])
    announced = two_hand(tmp_path, [(11, [1, 0])])
    instead = two_hand(tmp_path, [(11, [1, 0])], time="4+0.1")
    out = serve([first, instead], [announced, None])
    assert [m["type"] for m in out] == ["game", "match_done", "game", "match_done"]
    for name in ("ann", "bob"):
        dump = tmp_path / f"{name}.jsonl"
        procs = processes(dump)
        assert len(procs) == 3  # the first match's, the announced match's (ended unused), the match played
        told = read_dump(dump)
        starts = [e["proc"] for e in told if e["msg"]["type"] == "game_start"]
        assert starts == [procs[0], procs[2]]
        assert sum(e["msg"]["type"] == "match_end" for e in told) == 3  # every process was told the end


@pytest.mark.parametrize("forked", [True, False], ids=["forked", "execd"])
def test_referees_started_ahead_serve_the_slots_and_the_ones_left_are_ended(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forked: bool
) -> None:
    monkeypatch.setenv("ARENA_FORK_SERVER", "1" if forked else "0")  # exec'd: they lived as long as warm's thread
    executor = LocalExecutor()
    executor.warm(2, str(tmp_path / "logs"))
    executor._warmed()  # they start in a thread of their own: the coordinator goes on meanwhile
    ahead = [server.process for server in executor._warm]
    assert len(ahead) == 2 and all(p.poll() is None for p in ahead)  # running before any match was asked for
    spec = two_hand(tmp_path, [(30, [0, 1])]).replace(match_id="w0")
    got: list[int] = []

    def play() -> None:
        with slot(executor):
            assert executor.run(spec, lambda r: got.append(r["seed"])) is None
            assert executor._servers[threading.get_ident()].process is ahead[0]  # the first started, taken

    thread = threading.Thread(target=play)
    thread.start()
    thread.join(100)
    assert got == [30]
    assert ahead[0].returncode == 0  # released with its slot
    assert ahead[1].poll() is None and [s.process for s in executor._warm] == [ahead[1]]  # still waiting
    executor.close()
    assert ahead[1].wait(10) == 0  # ended cleanly, never used
    match_log = Path(spec.log_dir) / "w0-referee.log"
    warm_logs = sorted((tmp_path / "logs").glob("referee-*.log"))
    assert len(warm_logs) == 2 and os.path.samefile(match_log, warm_logs[0])  # the match's log is its referee's
