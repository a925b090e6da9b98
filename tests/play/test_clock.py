"""Time controls (protocol.md section 10): the clock's arithmetic, and what real bots get from a real referee.

A decision may take ``allowed = min(bank + increment, max_decision)``; afterwards ``bank = max(0, bank + increment -
used)``. The unit tests pin that arithmetic. The match tests check it on the wire (``time_left_ms`` of every request
against the seconds the referee charged, ``timing.thinking``) and check when a timeout fires: a bot that thinks well
past its allowance times out about when the allowance runs out, and a bot that thinks within it does not. The margins
are wide (hundreds of milliseconds) so that a busy machine cannot make them flake.
"""

from __future__ import annotations

import itertools
import time
from pathlib import Path
from typing import Any

import pytest
from probing import acts, match, probe, read_dump

from arena.errors import ArenaError
from arena.play.clock import Clock, TimeControl, TimeControlError
from arena.play.inbox import Inbox
from arena.play.referee import run_match
from arena.play.transport import Channel, Endpoint

ROUNDING = 0.002  # time_left_ms is rounded to the millisecond, timing.thinking to 0.1 ms


# A hang fails the test instead of stalling the suite (pytest-timeout).
pytestmark = pytest.mark.timeout(60)


# ---- the arithmetic ----


@pytest.mark.parametrize(
    ("text", "max_decision", "expected"),
    [
        ("5+0.1", 10.0, (5.0, 0.1, 10.0)),
        (" 3 + 0.5 ", 10.0, (3.0, 0.5, 10.0)),
        ("0+2", 1.5, (0.0, 2.0, 1.5)),
        ("60+0", 0.25, (60.0, 0.0, 0.25)),
        ("2.75+1.125", 30.0, (2.75, 1.125, 30.0)),
    ],
)
def test_a_time_control_is_parsed_into_bank_increment_and_cap(
    text: str, max_decision: float, expected: tuple[float, float, float]
) -> None:
    control = TimeControl.parse(text, max_decision=max_decision)
    assert (control.bank, control.increment, control.max_decision) == expected


def test_the_default_time_control_is_five_seconds_plus_a_tenth_capped_at_ten() -> None:
    default = TimeControl()
    assert (default.bank, default.increment, default.max_decision) == (5.0, 0.1, 10.0)
    parsed = TimeControl.parse("5+0.1")
    assert parsed == default and parsed.max_decision == 10.0


@pytest.mark.parametrize("text", ["5", "5+", "+0.1", "-1+2", "5-0.1", "5+0.1+1", "five+0", "1e3+1", "", "0+0"])
def test_a_malformed_or_empty_time_control_is_refused(text: str) -> None:
    with pytest.raises(TimeControlError) as caught:
        TimeControl.parse(text)
    assert isinstance(caught.value, ArenaError) and isinstance(caught.value, ValueError)
    assert repr(text) in str(caught.value)


@pytest.mark.parametrize("cap", [0.0, -1.0])
def test_a_cap_per_decision_must_be_positive(cap: float) -> None:
    with pytest.raises(TimeControlError, match="positive"):
        TimeControl.parse("5+0.1", max_decision=cap)


def test_a_time_control_prints_as_it_is_written_and_goes_on_the_wire_in_milliseconds() -> None:
    control = TimeControl.parse("2.5+0.125", max_decision=7.75)
    assert str(control) == "2.5+0.125"
    assert TimeControl.parse(str(control), max_decision=7.75) == control
    assert control.to_json() == {"bank_ms": 2500, "increment_ms": 125, "max_decision_ms": 7750}
    assert TimeControl(0.0005, 0.0015, 1.0).to_json() == {"bank_ms": 0, "increment_ms": 2, "max_decision_ms": 1000}


def test_a_fresh_clock_allows_its_bank_plus_one_increment() -> None:
    clock = Clock(TimeControl(5.0, 0.1, 10.0))
    assert clock.bank == 5.0
    assert clock.allowed() == pytest.approx(5.1)


def test_each_decision_adds_the_increment_to_the_bank_and_takes_what_was_used() -> None:
    clock = Clock(TimeControl(5.0, 0.1, 10.0))
    clock.spend(0.2)  # protocol.md's example: 5.0 + 0.1 - 0.2
    assert clock.bank == pytest.approx(4.9)
    assert clock.allowed() == pytest.approx(5.0)
    clock.spend(1.5)
    assert clock.bank == pytest.approx(3.5)
    clock.spend(0.0)
    assert clock.bank == pytest.approx(3.6)
    assert clock.allowed() == pytest.approx(3.7)


def test_a_bot_that_answers_at_once_gains_an_increment_per_decision_up_to_the_cap() -> None:
    clock = Clock(TimeControl(5.0, 0.1, 10.0))
    shown = []
    for _ in range(60):
        shown.append(round(clock.allowed() * 1000))
        clock.spend(0.0)
    assert shown[:4] == [5100, 5200, 5300, 5400]
    assert shown[48:52] == [9900, 10000, 10000, 10000]
    assert max(shown) == 10000
    assert clock.bank == pytest.approx(11.0)  # the bank keeps growing: only each decision is capped


def test_the_cap_bounds_a_decision_whatever_the_bank() -> None:
    clock = Clock(TimeControl(100.0, 1.0, 2.0))
    assert clock.allowed() == 2.0
    clock.spend(2.0)
    assert clock.bank == pytest.approx(99.0)
    assert clock.allowed() == 2.0
    exact = Clock(TimeControl(1.5, 0.5, 2.0))  # bank + increment exactly at the cap
    assert exact.allowed() == 2.0


def test_the_bank_never_goes_below_zero() -> None:
    clock = Clock(TimeControl(1.0, 0.25, 10.0))
    clock.spend(3.0)  # more than was allowed (a timeout is charged what it took)
    assert clock.bank == 0.0
    assert clock.allowed() == pytest.approx(0.25)  # the increment alone
    clock.spend(0.1)
    assert clock.bank == pytest.approx(0.15)


def test_clocks_are_independent() -> None:
    control = TimeControl(5.0, 0.1, 10.0)
    first, second = Clock(control), Clock(control)
    first.spend(4.0)
    assert second.bank == 5.0 and second.allowed() == pytest.approx(5.1)
    assert control.bank == 5.0


# ---- on the wire: real referee, real bots ----


def two_hand(tmp_path: Path, thinker: list[str], games: int = 1, **settings: Any) -> tuple[Any, list[dict[str, Any]]]:
    """A two-hand match (deal seed 0, seats swapped each game): bot 0 is ``probe.py`` with ``thinker``'s arguments,
    bot 1 a probe that answers at once; both dump what they receive."""
    bots = [
        probe("thinker", "--dump", tmp_path / "bot0.jsonl", *thinker),
        probe("quick", "--dump", tmp_path / "bot1.jsonl"),
    ]
    seatings = [(0, [0, 1] if g % 2 == 0 else [1, 0]) for g in range(games)]
    spec = match(tmp_path, bots, seatings, variant="two-hand", **settings)
    return spec, run_match(spec)


def requests_by_game(dump: Path) -> list[list[dict[str, Any]]]:
    """The decision requests a probe received, per game, each with its time of receipt."""
    games: list[list[dict[str, Any]]] = []
    for entry in read_dump(dump):
        if entry["msg"]["type"] == "game_start" and entry["msg"]["game"] == len(games):
            games.append([])
        elif entry["msg"]["type"] == "act":
            games[-1].append(entry)
    return games


def test_time_left_on_the_wire_follows_the_bank_the_increment_and_the_time_charged(tmp_path: Path) -> None:
    """``time_left_ms`` of the n-th request is ``bank + n * increment`` minus what the n-1 decisions before it took.

    The referee charged the seat ``thinking`` seconds over all n decisions, so ``time_left_ms`` of the last request
    plus ``thinking`` minus ``bank + n * increment`` is what the last decision took: at least 0, and at most what the
    seat took in all less the 0.3 s it was made to think over its second decision.
    """
    bank, increment = 1.0, 0.25
    spec, records = two_hand(tmp_path, ["--think", "0:2:0.3"], games=2, time="1+0.25", max_decision=60)
    assert all(r["violations"] == [] for r in records)
    dumps = [tmp_path / "bot0.jsonl", tmp_path / "bot1.jsonl"]
    for b, dump in enumerate(dumps):
        starts = [e["msg"] for e in read_dump(dump) if e["msg"]["type"] == "game_start"]
        assert [s["time"] for s in starts] == [{"bank_ms": 1000, "increment_ms": 250, "max_decision_ms": 60000}] * 2
        for index, requests in enumerate(requests_by_game(dump)):
            record, seat = records[index], spec.games[index].seating.index(b)
            shown = [r["msg"]["time_left_ms"] for r in requests]
            n, thinking = len(shown), record["timing"]["thinking"][seat]
            assert n == record["timing"]["decisions"][seat] and n > 10
            assert shown[0] == 1250, "each game starts with a fresh clock: bank plus one increment"
            assert all(later - earlier <= 250 + 1 for earlier, later in itertools.pairwise(shown))
            assert max(shown) > 1250 + 5 * 250, "answering at once, the bank grows by the increment"
            last = shown[-1] / 1000 + thinking - (bank + n * increment)
            thought = 0.3 if (b, index) == (0, 0) else 0.0
            assert -ROUNDING <= last <= thinking - thought + ROUNDING, (shown, thinking)


@pytest.mark.slow  # waits out real allowances
def test_a_bot_may_spend_the_increments_it_saved(tmp_path: Path) -> None:
    """0.2 s of bank and 0.3 s a decision: after nine quick answers, a decision of 1.6 s is within the allowance."""
    _, (record,) = two_hand(tmp_path, ["--think", "0:10:1.6"], time="0.2+0.3", max_decision=30)
    assert record["violations"] == [] and "forfeit" not in record
    requests = acts(tmp_path / "bot0.jsonl")
    assert requests[0]["msg"]["time_left_ms"] == 500
    assert requests[9]["msg"]["time_left_ms"] >= 0.2 * 1000 + 10 * 300 - 400  # at most 0.4 s used by nine answers
    assert record["timing"]["thinking"][0] >= 1.6


def test_the_cap_per_decision_times_out_a_bot_with_a_large_bank_when_the_cap_runs_out(tmp_path: Path) -> None:
    _, (record,) = two_hand(tmp_path, ["--think", "0:2:3"], time="30+1", max_decision=1.0)
    requests = acts(tmp_path / "bot0.jsonl")
    assert [r["msg"]["time_left_ms"] for r in requests] == [1000, 1000]
    assert all(r["msg"]["time_left_ms"] == 1000 for r in acts(tmp_path / "bot1.jsonl"))
    assert record["forfeit"]["seat"] == 0 and record["forfeit"]["kind"] == "timeout"
    assert [(v["seat"], v["kind"]) for v in record["violations"]] == [(0, "timeout")]
    fired = timeout_notice_after(tmp_path / "bot0.jsonl", requests[1])
    # Not early by the referee's clock; the bot's (from its receipt) runs short by however late the request came.
    assert record["timing"]["decision_ms"][0][-1] >= 1000 - 1  # (whole ms in the request, hundredths here)
    assert fired <= 1.0 + 1.5, f"the timeout fired {fired:.3f} s after the request, not about 1 s"
    assert 1.0 <= record["timing"]["thinking"][0] <= 1.0 + 1.5


def test_a_bot_that_overspends_its_bank_times_out_when_bank_and_increment_run_out(tmp_path: Path) -> None:
    """1+0.1: a first decision of 0.6 s leaves about 0.5 s of bank, so the second may take about 0.6 s, not 1.3 s."""
    _, (record,) = two_hand(tmp_path, ["--think", "0:1:0.6", "--think", "0:2:1.3"], time="1+0.1", max_decision=10)
    requests = acts(tmp_path / "bot0.jsonl")
    assert len(requests) == 2
    first, second = (r["msg"]["time_left_ms"] for r in requests)
    assert first == 1100
    assert 1100 + 100 - 600 - 400 <= second <= 1100 + 100 - 600 + 1  # what the first decision took, at least 0.6 s
    assert record["forfeit"]["seat"] == 0 and record["forfeit"]["kind"] == "timeout"
    fired = timeout_notice_after(tmp_path / "bot0.jsonl", requests[1])
    allowed = second / 1000
    # Not early by the referee's clock (the bot's runs short by however late the request reached it: under load
    # that was a quarter of the allowance); not much later by the bot's.
    assert record["timing"]["decision_ms"][0][-1] >= second - 1  # (whole ms in the request, hundredths here)
    assert fired <= allowed + 0.6, f"the timeout fired {fired:.3f} s after the request ({allowed} s)"


def test_a_request_that_ends_in_a_violation_is_charged_too(tmp_path: Path) -> None:
    """Under substitute the game goes on after an illegal answer that took 0.5 s: those 0.5 s left the bank."""
    _, (record,) = two_hand(
        tmp_path, ["--think", "0:2:0.5", "--illegal-at", "0:2"], time="2+0.25", max_decision=30, policy="substitute"
    )
    assert [(v["seat"], v["kind"]) for v in record["violations"]] == [(0, "illegal")]
    assert "forfeit" not in record
    shown = [r["msg"]["time_left_ms"] for r in acts(tmp_path / "bot0.jsonl")]
    assert shown[0] == 2250
    assert shown[2] <= shown[1] + 250 - 500 + 1, shown[:3]


def test_a_referee_held_up_right_after_it_sends_a_request_still_charges_the_whole_think(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The clock starts as the request leaves: a referee held up right after its send (a busy host) gives the bot
    no time for free. It started after the send, and a loaded machine once charged a 500 ms think 489 ms."""
    sent = Endpoint.send
    asked: list[bytes] = []

    def send_then_stall(self: Endpoint, data: bytes) -> bool:
        done = sent(self, data)
        if self.index == 0 and b'"type":"act"' in data and len(asked) < 3:
            asked.append(data)
            time.sleep(0.2)  # the referee descheduled: the bot has the request and thinks meanwhile
        return done

    monkeypatch.setattr(Endpoint, "send", send_then_stall)
    _, (record,) = two_hand(tmp_path, ["--think", "0:2:0.5"], time="2+0.25", max_decision=30)
    assert record["violations"] == [] and len(asked) == 3
    shown = [r["msg"]["time_left_ms"] for r in acts(tmp_path / "bot0.jsonl")]
    assert shown[2] <= shown[1] + 250 - 500 + 1, shown[:3]  # the whole 500 ms left the bank


@pytest.mark.slow  # waits past a real allowance
def test_an_answer_that_came_while_the_referee_was_busy_elsewhere_past_the_deadline_is_in_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At the deadline the referee looks once more: an answer that arrived in time while it was busy elsewhere
    (held up past the deadline reading the other bot's frames while the thinker's 0.5 s of thought ran out) is in
    time, charged the whole allowance."""
    drain_others, read_behind = Inbox.drain_others, Inbox.read_behind
    held: list[int] = []
    behind: list[int] = []  # while the referee reads behind an answer: no request is open

    def after_an_answer(self: Inbox, b: int, endpoint: Channel) -> None:
        behind.append(b)
        try:
            read_behind(self, b, endpoint)
        finally:
            behind.pop()

    def busy(self: Inbox, asked: int) -> None:
        if asked == 0 and not held and not behind:  # the thinker's request open, its 0.5 s of thought begun
            held.append(asked)
            time.sleep(1.2)  # past its 1 s allowance
            waiting = time.monotonic() + 20  # and until its answer waits, however slow the host
            while not self.referee.endpoints[0].has_input() and time.monotonic() < waiting:
                time.sleep(0.01)
        drain_others(self, asked)

    monkeypatch.setattr(Inbox, "read_behind", after_an_answer)
    monkeypatch.setattr(Inbox, "drain_others", busy)
    _, (record,) = two_hand(tmp_path, ["--think", "0:2:0.5"], time="0+1", max_decision=1.0)  # 1 s a decision
    assert held and record["violations"] == [] and "forfeit" not in record
    assert record["timing"]["thinking"][0] >= 1.0 - ROUNDING  # the held request was charged its whole allowance


@pytest.mark.slow  # waits past a real allowance
@pytest.mark.parametrize("read", [1, 2], ids=["first-read", "later-read"])
def test_an_answer_read_after_its_allowance_is_late_however_long_the_read_took(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read: int
) -> None:
    """Lateness is judged by the time after the read: an answer sent 1.3 s into a 1 s allowance, read by a read
    that began in time (the request's first read, or a later one) and ended when it came, is a timeout. The answer
    is in the referee's own compact form, which the first read judges at once (its quick path)."""
    sent, receive_within = Endpoint.send, Endpoint.receive_within
    reads: list[int] = []  # the reads of the thinker's endpoint since its second request left

    def send(self: Endpoint, data: bytes) -> bool:
        if self.index == 0 and b'"type":"act"' in data:
            reads.append(0)
        return sent(self, data)

    def slow_read(self: Endpoint, timeout: float) -> tuple[bytes, bytes] | None:
        if self.index == 0 and len(reads) == 2:
            reads[1] += 1
            if reads[1] == read:  # this read began in time, and ends when the late answer has come
                return receive_within(self, 20.0)
        return receive_within(self, timeout)

    monkeypatch.setattr(Endpoint, "send", send)
    monkeypatch.setattr(Endpoint, "receive_within", slow_read)
    _, (record,) = two_hand(
        tmp_path,
        ["--think", "0:2:1.3", "--once", tmp_path / "once", "--compact"],
        time="0+1",
        max_decision=1.0,
        policy="substitute",
    )
    assert [(v["seat"], v["kind"]) for v in record["violations"]] == [(0, "timeout")]
    assert record["violations"][0]["detail"].startswith("answered after 1.")  # read, and judged late


@pytest.mark.slow  # waits out real allowances
def test_a_request_that_timed_out_is_charged_the_whole_allowance(tmp_path: Path) -> None:
    """1.5+0.25: the second request allows about 1.75 s; thinking 3 s there times out and empties the bank, so the
    replacement process (substitute policy) is allowed the increment alone."""
    _, (record,) = two_hand(
        tmp_path,
        ["--think", "0:2:3", "--once", tmp_path / "once"],
        time="1.5+0.25",
        max_decision=30,
        policy="substitute",
    )
    assert [(v["seat"], v["kind"]) for v in record["violations"]] == [(0, "timeout")]
    assert "forfeit" not in record
    requests = acts(tmp_path / "bot0.jsonl")
    first, second, third = (r["msg"]["time_left_ms"] for r in requests[:3])
    assert first == 1750 and 1500 <= second <= 2000
    assert requests[2]["proc"] != requests[1]["proc"], "the process that hung was replaced"
    assert third == 250, "the bank the timed-out request spent is gone: the increment alone is left"


@pytest.mark.slow  # waits out real allowances
def test_a_late_answer_to_a_request_that_timed_out_is_ignored(tmp_path: Path) -> None:
    """A bot answers 0.6 s after its 2 s ran out, while the other bot thinks: only the timeout is charged. (Margins
    of 0.6-0.8 s each way: a loaded machine stretches a bot's think and delays a request by tenths of a second.)"""
    bots = [
        probe("late", "--dump", tmp_path / "bot0.jsonl", "--think", "0:1:2.6", "--once", tmp_path / "late-once"),
        probe("slow", "--dump", tmp_path / "bot1.jsonl", "--think", "0:1:1.2", "--think", "0:2:1.2"),
    ]
    spec = match(tmp_path, bots, [(0, [0, 1])], variant="two-hand", time="30+0", max_decision=2.0, policy="substitute")
    (record,) = run_match(spec)
    assert [(v["seat"], v["kind"]) for v in record["violations"]] == [(0, "timeout")]
    assert "forfeit" not in record and record["winners"]
    late = acts(tmp_path / "bot0.jsonl")[0]["t"] + 2.6  # when the late answer left
    waits = [r["t"] for r in acts(tmp_path / "bot1.jsonl")[:2]]
    assert any(t <= late - 0.1 and t + 1.2 >= late + 0.1 for t in waits), "the late answer came while slow was asked"


def timeout_notice_after(dump: Path, request: dict[str, Any]) -> float:
    """Seconds between the bot's receipt of ``request`` and of the timeout notice that followed it."""
    frames = read_dump(dump)
    later = frames[frames.index(request) + 1 :]
    notice = next(e for e in later if e["msg"]["type"] == "violation")
    assert notice["msg"]["kind"] == "timeout"
    return float(notice["t"] - request["t"])
