"""The referee's protocol over scripted bots (arena.play.scripted): no socket, no process, milliseconds a test.

Each outcome of a handshake and of a decision request, as protocol.md §3, §9 and §11 say, driven frame by frame
through a real ``Referee`` whose transport and processes are stood in for. The same rules over real processes and
sockets: tests/test_referee.py, tests/test_handshake.py, tests/test_fuzz.py.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from configs import match_spec

from arena.engine.actions import Action
from arena.engine.game import Game
from arena.engine.record import GameRecord, replay
from arena.play import inbox
from arena.play.ask import Ask, AskState
from arena.play.handshake import Greeting, GreetingState
from arena.play.incoming import ALL_ACTIONS, MAX_MESSAGE_BYTES
from arena.play.matchspec import MatchSpec
from arena.play.referee import Referee
from arena.play.runner import Message, Response, Violation, play
from arena.play.scripted import Say, ScriptedChannel, ScriptedHub, ScriptedProcess, hello, reply

pytestmark = pytest.mark.timeout(30)

LEGAL: list[Action] = list(ALL_ACTIONS[:3])
BAD = {"type": "discard", "card": "AS"}  # legal at no first request of a two-hand game
HANDSHAKE_TIMEOUT = 0.3


def spec_of(tmp_path: Path, **settings: Any) -> MatchSpec:
    """A two-hand match of two scripted bots, ``one`` and ``two``, with a short handshake timeout."""
    fields: dict[str, Any] = {
        "match_id": "scripted",
        "time": "60+1",
        "handshake_timeout": HANDSHAKE_TIMEOUT,
        "trusted_bots": True,  # nothing to keep apart
        "log_dir": str(tmp_path),
    }
    return match_spec(["one", "two"], [(0, [0, 1])], **(fields | settings))  # a hub starts no program


@contextlib.contextmanager
def scripted(tmp_path: Path, hub: ScriptedHub | None = None, **settings: Any) -> Iterator[tuple[Referee, ScriptedHub]]:
    """A referee over ``hub``'s scripted bots (two well-behaved ones by default), closed at the end (its processes
    ended first: one that was never welcomed is not told the match is over, and its close would wait a second)."""
    hub = hub or ScriptedHub(bots=2)
    with contextlib.closing(Referee(spec_of(tmp_path, **settings), hub=hub, start=hub.start)) as referee:
        yield referee, hub
        for process in referee.processes:
            if process is not None:
                process.kill()


@pytest.fixture
def match(tmp_path: Path) -> Iterator[tuple[Referee, ScriptedChannel]]:
    """A started match seated for a game (bot b in seat b), and bot 1's channel, its greeting read and cleared."""
    with scripted(tmp_path) as (referee, hub):
        assert referee.start() == []
        assert referee.begin_game([0, 1], relaunch=False) == []
        hub.channels[1].sent.clear()
        yield referee, hub.channels[1]


def greeted(tmp_path: Path, *greeting: Say) -> tuple[list[tuple[int, str, str]], ScriptedChannel, Referee]:
    """Start a match whose bot 1 greets with ``greeting``: the failures (bot, kind, detail), its channel, and the
    referee (closed since)."""
    hub = ScriptedHub(bots=2)
    hub.channels[1].greeting = lambda process: list(greeting)
    with scripted(tmp_path, hub) as (referee, _):
        failures = [(b, v.kind, v.detail) for b, v in referee.start()]
        return failures, hub.channels[1], referee


def told(channel: ScriptedChannel, kind: str) -> list[dict[str, Any]]:
    """The messages of this type the referee sent the channel's bot."""
    return [m for m in channel.told() if m["type"] == kind]


def request(referee: Referee) -> Message:
    """A decision request (the fields the referee and a scripted bot read) with the next request id."""
    return {"type": "act", "request_id": next(referee.request_ids), "legal": [a.to_json() for a in LEGAL]}


def ask(referee: Referee, message: Message | None = None, allowed: float = 1.0) -> Response:
    """Ask bot 1 (in seat 1)."""
    return referee.ask(1, message or request(referee), allowed)


# ---- the handshake (protocol.md §3) ----


def test_a_hello_with_the_token_is_welcomed_and_its_connection_accepted(tmp_path: Path) -> None:
    hub = ScriptedHub(bots=2)
    hub.channels[1].greeting = lambda process: [Say(hello(process, name="what it calls itself"))]
    with scripted(tmp_path, hub) as (referee, _):
        assert referee.start() == []
        channel = hub.channels[1]
        assert channel.peer == channel.own
        [welcome] = channel.told()  # its name in the match, not its hello's
        assert welcome == {"type": "welcome", "protocol": 1, "match_id": referee.public_id, "name": "two"}
        assert referee.hello[1] is not None and referee.hello[1].name == "what it calls itself"
        assert referee.needs_restart == [False, False]


def test_a_bot_that_keeps_its_own_picture_gets_the_view_at_each_hands_and_games_first_request(
    tmp_path: Path,
) -> None:
    hub = ScriptedHub(bots=2)
    hub.channels[1].greeting = lambda process: [Say(hello(process, view=False))]
    with scripted(tmp_path, hub) as (referee, _):
        assert referee.start() == []
        referee.begin_game([0, 1], relaunch=False)
        assert [referee.wants_view(1, hand) for hand in (0, 0)] == [True, False]  # a game of one hand
        assert referee.wants_view(0, 0) and referee.wants_view(0, 0)  # its hello asked for the view every time
        referee.begin_game([0, 1], relaunch=False)  # hand numbers start again
        assert [referee.wants_view(1, hand) for hand in (0, 0, 1, 1)] == [True, False, True, False]


def test_a_first_frame_that_is_not_json_fails_the_handshake_and_the_bot_is_told_why(tmp_path: Path) -> None:
    failures, channel, referee = greeted(tmp_path, Say(b"garbage"))
    assert [(b, kind) for b, kind, _ in failures] == [(1, "handshake")]
    assert failures[0][2].startswith("first message:")
    [notice] = told(channel, "violation")
    assert notice["kind"] == "handshake" and notice["strikes"] == 1 and notice["detail"] == failures[0][2]
    assert channel.peer is None and referee.needs_restart[1] and not told(channel, "welcome")


def test_a_first_message_other_than_hello_fails_the_handshake(tmp_path: Path) -> None:
    answer = orjson.dumps({"type": "action", "request_id": 1, "action": LEGAL[0].to_json()})
    failures, _, _ = greeted(tmp_path, Say(answer))
    assert failures == [(1, "handshake", "the first message must be hello")]


@pytest.mark.parametrize("version", [0, 2])
def test_a_hello_in_another_protocol_fails_the_handshake(tmp_path: Path, version: int) -> None:
    hub = ScriptedHub(bots=2)
    hub.channels[1].greeting = lambda process: [Say(hello(process, protocol=version))]
    with scripted(tmp_path, hub) as (referee, _):
        failures = [(b, v.kind, v.detail) for b, v in referee.start()]
    assert failures == [(1, "handshake", f"protocol {version} not spoken (this referee speaks 1)")]
    assert told(hub.channels[1], "violation")


def test_a_hello_with_a_wrong_token_is_dropped_unanswered_and_the_wait_goes_on(tmp_path: Path) -> None:
    hub = ScriptedHub(bots=2)
    hub.channels[0].greeting = lambda process: [Say(hello(process, token="0" * 32), sender=b"stranger")]
    hub.channels[1].greeting = lambda process: [
        Say(hello(process, token="0" * 32), sender=b"stranger"),
        Say(hello(process), after=0.05),
    ]
    with scripted(tmp_path, hub) as (referee, _):
        started = time.monotonic()
        failures = [(b, v.kind, v.detail) for b, v in referee.start()]
        assert time.monotonic() - started >= HANDSHAKE_TIMEOUT  # bot 0 was waited for to the end
    assert failures == [(0, "handshake", "no hello within the handshake timeout")]
    assert hub.channels[0].foreign_frames == hub.channels[1].foreign_frames == 1
    # a stranger's hello gets no answer; the one who spoke last is told, when the wait ends, why it failed
    assert [m["detail"] for m in hub.channels[0].told()] == ["no hello within the handshake timeout"]
    assert hub.channels[1].peer == hub.channels[1].own


def test_a_bot_that_says_nothing_fails_the_handshake_at_its_timeout(tmp_path: Path) -> None:
    started = time.monotonic()
    failures, _, _ = greeted(tmp_path)
    assert HANDSHAKE_TIMEOUT <= time.monotonic() - started < HANDSHAKE_TIMEOUT + 0.5
    assert failures == [(1, "handshake", "no hello within the handshake timeout")]


@pytest.mark.parametrize(
    ("code", "detail"),
    [
        (1, "bot exited with code 1 before hello"),
        (0, "bot exited with code 0 before hello (its stdin is /dev/null: a bot that speaks JSON lines"),
    ],
)
def test_a_bot_that_ends_before_its_hello_fails_the_handshake(tmp_path: Path, code: int, detail: str) -> None:
    hub = ScriptedHub(bots=2)

    def ends(process: ScriptedProcess) -> list[Say]:
        process.exit(code)
        return []

    hub.channels[1].greeting = ends
    with scripted(tmp_path, hub) as (referee, _):
        started = time.monotonic()
        [(b, violation)] = referee.start()
        assert time.monotonic() - started < HANDSHAKE_TIMEOUT  # found dead, not waited for
    assert b == 1 and violation.kind == "handshake" and violation.detail.startswith(detail)


def test_strangers_hellos_past_the_limit_before_any_hello_are_a_flood_and_the_bot_is_cut_off(tmp_path: Path) -> None:
    hub = ScriptedHub(bots=2)
    hub.channels[1].greeting = lambda process: [
        Say(hello(process, token="0" * 32), sender=b"stranger") for _ in range(inbox.STRANGER_FRAMES + 1)
    ]
    with scripted(tmp_path, hub) as (referee, _):
        [(b, violation)] = referee.start()
        process = referee.processes[1]
        assert b == 1 and violation.kind == "flood"
        assert f"{inbox.STRANGER_FRAMES + 1} frames" in violation.detail
        assert process is not None and not process.alive()


def test_connections_past_the_limit_before_any_hello_are_a_flood_and_the_bot_is_cut_off(tmp_path: Path) -> None:
    hub = ScriptedHub(bots=2)

    def connects(process: ScriptedProcess) -> list[Say]:
        hub.channels[1].connected = inbox.MAX_CONNECTIONS + 1
        return []

    hub.channels[1].greeting = connects
    with scripted(tmp_path, hub) as (referee, _):
        [(b, violation)] = referee.start()
        process = referee.processes[1]
        assert b == 1 and violation.kind == "flood" and f"{inbox.MAX_CONNECTIONS + 1} connections" in violation.detail
        assert process is not None and not process.alive()
        assert hub.channels[1].connected == 1  # its connections were cut


def test_frames_right_behind_the_hello_are_one_unsolicited_strike_kept_for_its_game(tmp_path: Path) -> None:
    hub = ScriptedHub(bots=2)
    hub.channels[1].greeting = lambda process: [Say(hello(process)), Say(b"one"), Say(b"two")]
    with scripted(tmp_path, hub) as (referee, _):
        assert referee.start() == []
        assert [(b, v.kind) for b, v in referee.reports] == [(1, "unsolicited")]
        assert referee.begin_game([1, 0], relaunch=False) == []
        assert [(seat, v.kind) for seat, v in referee.interrupts()] == [(0, "unsolicited")]  # by seat


# ---- one bot's handshake, frame by frame (handshake.Greeting) ----


def greeting(referee: Referee) -> tuple[Greeting, ScriptedProcess]:
    """The greeting of a new process on an endpoint of its own (read through the match's inbox)."""
    process = ScriptedProcess("three")
    return Greeting(ScriptedChannel(index=2, address="scripted:2"), process, referee.inbox), process


@pytest.mark.parametrize(
    ("frame", "state", "detail"),
    [
        (b"{", GreetingState.REFUSED, "first message: not UTF-8 JSON"),
        (b'{"type":"action","request_id":1,"action":{"type":"pass"}}', GreetingState.REFUSED, "the first message"),
        ("protocol", GreetingState.REFUSED, "protocol 2 not spoken (this referee speaks 1)"),
        ("hello", GreetingState.GREETED, None),
    ],
)
def test_a_greeting_is_settled_by_its_first_frame_unless_a_strangers_hello(
    match: tuple[Referee, ScriptedChannel], frame: bytes | str, state: GreetingState, detail: str | None
) -> None:
    shake, process = greeting(match[0])
    assert shake.state is GreetingState.WAITING
    assert not shake.frame(b"other", hello(process, token="0" * 32))  # a stranger's: dropped, still waiting
    assert shake.state is GreetingState.WAITING and shake.endpoint.foreign_frames == 1
    raw = hello(process, protocol=2) if frame == "protocol" else hello(process) if frame == "hello" else frame
    assert isinstance(raw, bytes) and shake.frame(b"its own", raw)
    assert shake.state is state
    if detail is None:
        assert shake.violation is None and shake.hello is not None and shake.hello.name == "three"
        assert shake.endpoint.peer == b"its own"
    else:
        assert shake.violation is not None and shake.violation.kind == "handshake"
        assert shake.violation.detail.startswith(detail) and shake.endpoint.peer is None


def test_a_greeting_is_flooded_by_strangers_hellos_past_the_limit(match: tuple[Referee, ScriptedChannel]) -> None:
    shake, process = greeting(match[0])
    wrong = hello(process, token="0" * 32)
    assert not any(shake.frame(b"other", wrong) for _ in range(inbox.STRANGER_FRAMES))
    assert shake.frame(b"other", wrong) and shake.state is GreetingState.FLOODED
    assert shake.violation is not None and shake.violation.kind == "flood"


def test_a_greeting_ends_with_its_process_its_endpoints_flood_or_its_timeout(
    match: tuple[Referee, ScriptedChannel],
) -> None:
    shake, process = greeting(match[0])
    process.exit(0)
    shake.died()
    assert shake.state is GreetingState.DIED and shake.violation is not None
    assert shake.violation.detail.startswith("bot exited with code 0 before hello (its stdin is /dev/null")
    shake, _ = greeting(match[0])
    shake.flooded(Violation("flood", "17 connections"))
    assert shake.state is GreetingState.FLOODED and shake.violation == Violation("flood", "17 connections")
    shake, _ = greeting(match[0])
    shake.expire()
    assert shake.state is GreetingState.TIMED_OUT and shake.violation is not None
    assert shake.violation.detail == "no hello within the handshake timeout"


# ---- the decision request (protocol.md §9, §11) ----


def test_a_valid_answer_in_time_is_the_action(match: tuple[Referee, ScriptedChannel]) -> None:
    referee, channel = match
    message = request(referee)
    answer = ask(referee, message)
    assert answer.action == LEGAL[0] and answer.violation is None and 0 <= answer.elapsed < 0.5
    assert message["request_id"] in referee.answered[1]
    assert channel.told() == [message]
    assert channel.process is not None and channel.process.favoured is True


def test_an_answer_is_charged_the_time_it_took(match: tuple[Referee, ScriptedChannel]) -> None:
    referee, channel = match
    channel.answers.append(lambda message: [Say(reply(message, 1), after=0.1)])
    answer = ask(referee)
    assert answer.action == LEGAL[1] and answer.violation is None and 0.1 <= answer.elapsed < 0.5


def test_an_illegal_action_is_the_answer_and_the_runner_charges_it(match: tuple[Referee, ScriptedChannel]) -> None:
    referee, channel = match
    channel.answers.append(lambda message: [Say(reply({**message, "legal": [ALL_ACTIONS[-1].to_json()]}))])
    answer = ask(referee)
    assert answer.violation is None and answer.action == ALL_ACTIONS[-1]  # legal or not: the runner judges


def test_no_answer_by_the_deadline_is_a_timeout_and_its_late_answer_is_ignored(
    match: tuple[Referee, ScriptedChannel],
) -> None:
    referee, channel = match
    first = request(referee)
    channel.answers.append(lambda message: [Say(reply(message), after=0.3)])
    answer = ask(referee, first, allowed=0.1)
    assert answer.violation is not None and answer.violation.kind == "timeout"
    assert answer.violation.detail == "no answer within 0.100 s"
    assert 0.1 <= answer.elapsed < 0.3
    assert first["request_id"] in referee.expired[1] and referee.needs_restart[1]
    referee.needs_restart[1] = False  # (kept, to see what it does with the late answer)
    time.sleep(0.25)
    answer = ask(referee)  # the late answer waits when the next request goes out: ignored, counted
    assert answer.violation is None and answer.action == LEGAL[0]
    assert referee.reports == [] and channel.late == 0  # a valid answer ends the count


def test_a_bot_that_timed_out_is_replaced_before_its_next_game(match: tuple[Referee, ScriptedChannel]) -> None:
    referee, channel = match
    hung = channel.process
    channel.answers.append(lambda message: [])
    assert (timeout := ask(referee, allowed=0.05).violation) is not None and timeout.kind == "timeout"
    assert hung is not None and hung.alive()  # hung, not dead
    assert referee.begin_game([0, 1]) == []
    assert not hung.alive() and channel.process is not hung and channel.peer == channel.own
    assert ask(referee).violation is None


def test_a_late_answer_read_while_the_next_request_is_open_is_ignored(match: tuple[Referee, ScriptedChannel]) -> None:
    referee, channel = match
    first = request(referee)
    channel.answers.append(lambda message: [])
    assert (timeout := ask(referee, first, allowed=0.05).violation) is not None and timeout.kind == "timeout"
    referee.needs_restart[1] = False
    channel.answers.append(lambda message: [Say(reply(first)), Say(reply(message), after=0.05)])
    answer = ask(referee)
    assert answer.violation is None and answer.action == LEGAL[0] and referee.reports == []


def test_an_answer_to_another_request_is_out_of_turn(match: tuple[Referee, ScriptedChannel]) -> None:
    referee, channel = match
    message = request(referee)
    channel.answers.append(lambda message: [Say(reply(message, request_id=message["request_id"] + 5))])
    answer = ask(referee, message)
    assert answer.violation is not None and answer.violation.kind == "out_of_turn"
    assert f"answer to request {message['request_id'] + 5} while request {message['request_id']} is open" in (
        answer.violation.detail
    )
    assert answer.violation.excerpt.startswith('{"type":"action"')


def test_a_copy_of_an_accepted_answer_is_unsolicited_and_the_request_stays_open(
    match: tuple[Referee, ScriptedChannel],
) -> None:
    referee, channel = match
    first = request(referee)
    assert ask(referee, first).violation is None
    channel.answers.append(lambda message: [Say(reply(first)), Say(reply(message, 2))])
    answer = ask(referee)
    assert answer.violation is None and answer.action == LEGAL[2]
    assert [(b, v.kind) for b, v in referee.reports] == [(1, "unsolicited")]


def test_a_reply_to_a_request_settled_by_a_violation_is_out_of_turn(match: tuple[Referee, ScriptedChannel]) -> None:
    referee, channel = match
    first = request(referee)
    channel.answers.append(lambda message: [Say(b"{")])
    assert (broken := ask(referee, first).violation) is not None and broken.kind == "malformed"
    channel.answers.append(lambda message: [Say(reply(first))])
    answer = ask(referee)
    assert answer.violation is not None and answer.violation.kind == "out_of_turn"


@pytest.mark.parametrize(
    ("frame", "kind"),
    [
        (b"{", "malformed"),
        (b"\x00multipart", "malformed"),
        (b'{"type": "action", "request_id": 1}', "schema"),
        (b'{"type": "action", "x": "' + b"y" * MAX_MESSAGE_BYTES + b'"}', "oversized"),
    ],
    ids=["not-json", "multipart", "schema", "oversized"],
)
def test_a_broken_answer_is_its_violation(match: tuple[Referee, ScriptedChannel], frame: bytes, kind: str) -> None:
    referee, channel = match
    channel.answers.append(lambda message: [Say(frame)])
    answer = ask(referee)
    assert answer.action is None and answer.violation is not None and answer.violation.kind == kind
    assert answer.violation.excerpt == frame[:200].decode(errors="replace").replace("\x00", "\\x00")


def test_strangers_frames_while_asked_are_dropped_until_their_flood(match: tuple[Referee, ScriptedChannel]) -> None:
    referee, channel = match
    channel.answers.append(lambda message: [Say(reply(message), sender=b"stranger"), Say(reply(message, 1))])
    answer = ask(referee)
    assert answer.violation is None and answer.action == LEGAL[1] and channel.foreign_frames == 1
    channel.answers.append(lambda message: [Say(b"x", sender=b"stranger")] * inbox.STRANGER_FRAMES)
    answer = ask(referee)
    assert answer.violation is not None and answer.violation.kind == "flood"
    assert f"{inbox.STRANGER_FRAMES + 1} frames" in answer.violation.detail


def test_connections_past_the_limit_while_asked_are_a_flood(match: tuple[Referee, ScriptedChannel]) -> None:
    referee, channel = match

    def connects(message: Message) -> list[Say]:
        channel.connected = inbox.MAX_CONNECTIONS + 1
        return [Say(reply(message), after=0.5)]

    channel.answers.append(connects)
    answer = ask(referee)
    assert answer.violation is not None and answer.violation.kind == "flood" and answer.elapsed < 0.5


def test_a_burst_of_unasked_frames_past_the_limit_before_the_request_is_its_answer_charged_once(
    match: tuple[Referee, ScriptedChannel],
) -> None:
    referee, channel = match
    channel.say(*[Say(b"{}")] * (inbox.BURST_FRAMES + 1))
    answer = ask(referee)
    assert answer.violation is not None and answer.violation.kind == "flood" and answer.elapsed == 0.0
    assert referee.reports == []  # it was the answer, not also an interrupt
    assert channel.process is not None and not channel.process.alive() and referee.needs_restart[1]
    assert channel.told() == []  # never asked


def test_frames_sent_between_requests_are_one_unsolicited_strike_and_the_next_answer_counts(
    match: tuple[Referee, ScriptedChannel],
) -> None:
    referee, channel = match
    channel.say(Say(b"chatter"), Say(b"more chatter"))
    answer = ask(referee)
    assert answer.violation is None and answer.action == LEGAL[0]
    assert [(seat, v.kind) for seat, v in referee.interrupts()] == [(1, "unsolicited")]


def test_the_time_the_referee_spends_finding_its_memorys_holder_is_not_charged(
    match: tuple[Referee, ScriptedChannel], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bots' clocks stop while the referee stops them one by one to find the one holding its memory: an answer
    that comes after the search is charged the time it took without the search's, against its whole allowance."""
    referee, channel = match
    looks = iter([0.0, 0.3])  # the look before the request finds nothing; the first while it waits, a search

    def check(*, handshake: bool = False) -> float:
        spent = next(looks, 0.0)
        time.sleep(spent)
        return spent

    monkeypatch.setattr(referee.memory, "check", check)
    channel.answers.append(lambda message: [Say(reply(message), after=0.35)])
    answer = ask(referee, allowed=0.2)
    assert answer.violation is None and answer.action == LEGAL[0]
    assert 0.03 <= answer.elapsed < 0.2


def test_what_the_other_bots_sent_is_read_right_after_an_answer(tmp_path: Path) -> None:
    """Frames a bot sends unasked while another is asked are read as soon as that bot has answered, however fast
    (the runner charges them before the answer is played: tests/test_offences.py), not only while it waits."""
    with scripted(tmp_path) as (referee, hub):
        assert referee.start() == []
        referee.begin_game([0, 1], relaunch=False)
        hub.channels[0].say(Say(b"chatter"))
        answer = ask(referee)  # answered at once: the referee never waits
        assert answer.violation is None
        assert [(seat, v.kind) for seat, v in referee.interrupts()] == [(0, "unsolicited")]


def test_a_bot_that_dies_while_asked_is_found_at_once(match: tuple[Referee, ScriptedChannel]) -> None:
    referee, channel = match

    def dies(message: Message) -> list[Say]:
        assert channel.process is not None
        channel.process.exit(3)
        return []

    channel.answers.append(dies)
    answer = ask(referee, allowed=5.0)
    assert answer.violation is not None and answer.violation.kind == "crash"
    assert answer.violation.detail == "bot exited with code 3" and answer.elapsed < 1.0
    assert referee.needs_restart[1]


def test_a_bot_without_an_accepted_connection_is_not_asked(tmp_path: Path) -> None:
    hub = ScriptedHub(bots=2)
    hub.channels[1].greeting = lambda process: [Say(b"garbage")]
    with scripted(tmp_path, hub) as (referee, _):
        assert [b for b, _ in referee.start()] == [1]
        referee.begin_game([0, 1], relaunch=False)
        hub.channels[1].sent.clear()
        answer = ask(referee)
        assert answer.violation is not None and answer.violation.kind == "crash"
        assert answer.violation.detail == "bot has no accepted connection" and answer.elapsed == 0.0
        assert hub.channels[1].sent == []


# ---- one decision request, frame by frame (ask.Ask) ----


def asking(referee: Referee, *, expired: set[int] | None = None, answered: set[int] | None = None) -> Ask:
    """Request 7 to a bot whose accepted connection is ``bot``, on an endpoint of its own (index 1: what it does
    unasked is reported as bot 1's), sent at 100.0 and allowed 1 s."""
    channel = ScriptedChannel(index=1, address="scripted:1", peer=b"bot")
    return Ask(referee.inbox, channel, 7, 1.0, 100.0, expired or set(), answered or set())


def answer_to(request_id: int, legal: int = 0) -> bytes:
    """The canonical answer to ``request_id`` playing ``LEGAL[legal]``."""
    return reply({"request_id": request_id, "legal": [a.to_json() for a in LEGAL]}, legal)


def test_an_answer_in_time_settles_the_request_and_ends_the_bots_burst(match: tuple[Referee, ScriptedChannel]) -> None:
    asked = asking(match[0])
    asked.endpoint.burst = asked.endpoint.late = 3
    assert asked.state is AskState.WAITING and asked.deadline == 101.0
    assert asked.frame(b"bot", answer_to(7, 1), 0.25)
    assert asked.state is AskState.ANSWERED and asked.answer == Response(LEGAL[1], None, 0.25, answer_to(7, 1).decode())
    assert asked.answered == {7} and asked.endpoint.burst == asked.endpoint.late == 0


def test_an_answer_in_plain_form_is_read_by_the_parser(match: tuple[Referee, ScriptedChannel]) -> None:
    asked = asking(match[0])
    plain = b'{"request_id": 7, "type": "action", "action": {"type": "pass"}}'
    assert asked.frame(b"bot", plain, 0.1) and asked.state is AskState.ANSWERED
    assert asked.answer is not None and asked.answer.action == ALL_ACTIONS[0]


def test_an_answer_read_after_the_deadline_is_a_timeout(match: tuple[Referee, ScriptedChannel]) -> None:
    asked = asking(match[0])
    assert asked.frame(b"bot", answer_to(7), 1.5) and asked.state is AskState.TIMED_OUT
    assert asked.answer is not None and asked.answer.action is None and asked.answer.violation is not None
    assert asked.answer.violation.detail == "answered after 1.500 s, allowed 1.000 s"
    assert asked.expired == {7} and asked.answered == set()


@pytest.mark.parametrize(
    ("frame", "kind"),
    [
        (answer_to(8), "out_of_turn"),
        (b'{"type":"hello","name":"x","protocol":1,"token":"t"}', "out_of_turn"),
        (b"[1, 2", "malformed"),
        (b'{"type":"action","request_id":7,"action":{"type":"play","card":"10C"}}', "schema"),
        (b" " * (MAX_MESSAGE_BYTES + 1), "oversized"),
    ],
    ids=["another-request", "hello", "not-json", "schema", "oversized"],
)
def test_a_frame_that_breaks_a_rule_settles_the_request_as_its_violation(
    match: tuple[Referee, ScriptedChannel], frame: bytes, kind: str
) -> None:
    asked = asking(match[0])
    assert asked.frame(b"bot", frame, 0.1) and asked.state is AskState.VIOLATED
    assert asked.answer is not None and asked.answer.violation is not None
    assert asked.answer.violation.kind == kind and asked.answer.elapsed == 0.1
    assert asked.endpoint.burst == (1 if kind == "out_of_turn" else 0)  # what follows it is the same misstep


def test_a_strangers_frames_leave_the_request_open_until_their_flood(match: tuple[Referee, ScriptedChannel]) -> None:
    asked = asking(match[0])
    assert not any(asked.frame(b"other", answer_to(7), 0.1) for _ in range(inbox.STRANGER_FRAMES))
    assert asked.state is AskState.WAITING and asked.endpoint.foreign_frames == inbox.STRANGER_FRAMES
    assert asked.frame(b"other", answer_to(7), 0.2) and asked.state is AskState.FLOODED
    assert asked.answer is not None and asked.answer.violation is not None
    assert asked.answer.violation.kind == "flood" and asked.answer.elapsed == 0.2


def test_a_late_answer_to_an_expired_request_is_ignored_and_counted(match: tuple[Referee, ScriptedChannel]) -> None:
    referee = match[0]
    asked = asking(referee, expired={5})
    assert not asked.frame(b"bot", answer_to(5), 0.1) and not asked.frame(b"bot", answer_to(5), 0.1)
    assert asked.state is AskState.WAITING and asked.endpoint.late == 2 and referee.reports == []
    assert asked.frame(b"bot", answer_to(7), 0.2) and asked.state is AskState.ANSWERED and asked.endpoint.late == 0


def test_a_copy_of_an_accepted_answer_begins_a_burst_of_one_strike_and_the_request_stays_open(
    match: tuple[Referee, ScriptedChannel],
) -> None:
    referee = match[0]
    asked = asking(referee, answered={5})
    assert not asked.frame(b"bot", answer_to(5), 0.1)
    assert not asked.frame(b"bot", b"junk", 0.1)  # a frame of the burst, whatever it holds: not a second strike
    assert asked.state is AskState.WAITING and asked.endpoint.burst == 2
    assert [(b, v.kind) for b, v in referee.reports] == [(1, "unsolicited")]
    assert asked.frame(b"bot", answer_to(7), 0.3) and asked.state is AskState.ANSWERED


def test_a_burst_past_its_limit_is_a_flood(match: tuple[Referee, ScriptedChannel]) -> None:
    asked = asking(match[0])
    asked.endpoint.burst = inbox.BURST_FRAMES
    assert asked.frame(b"bot", b"{}", 0.1) and asked.state is AskState.FLOODED


def test_the_deadline_reads_what_waits_as_in_time_or_times_out(match: tuple[Referee, ScriptedChannel]) -> None:
    asked = asking(match[0])
    asked.expire(1.2)
    assert asked.state is AskState.TIMED_OUT and asked.expired == {7}
    assert asked.answer is not None and asked.answer.violation is not None
    assert asked.answer.violation.detail == "no answer within 1.000 s" and asked.answer.elapsed == 1.2
    asked = asking(match[0])
    assert isinstance(asked.endpoint, ScriptedChannel)
    asked.endpoint.own = b"bot"
    asked.endpoint.say(Say(b"junk", sender=b"other"), Say(answer_to(7)))
    asked.expire(1.2)  # arrived before the deadline, read after it: in time, charged the allowance
    assert asked.state is AskState.ANSWERED and asked.answer is not None and asked.answer.elapsed == 1.0
    assert asked.expired == set() and asked.answered == {7}
    asked = asking(match[0])
    assert isinstance(asked.endpoint, ScriptedChannel)
    asked.endpoint.own = b"bot"
    asked.endpoint.say(Say(b"{"))
    asked.expire(1.2)
    assert asked.state is AskState.VIOLATED and asked.expired == {7}


def test_a_request_ends_when_the_bot_is_found_dead_or_flooded(match: tuple[Referee, ScriptedChannel]) -> None:
    died, flood = Violation("crash", "bot exited with code 1"), Violation("flood", "17 connections")
    asked = asking(match[0])
    asked.died(died, 0.4)
    assert asked.state is AskState.DIED and asked.answer == Response(None, died, 0.4)
    asked = asking(match[0])
    asked.flooded(flood, 0.3)
    assert asked.state is AskState.FLOODED and asked.answer == Response(None, flood, 0.3)
    asked = asking(match[0])
    asked.restart_failed(Violation("handshake", "no hello within the handshake timeout"))
    assert asked.state is AskState.VIOLATED and asked.answer is not None and asked.answer.elapsed == 0.0


# ---- the match's policies: strikes, restarts, substitutes ----


def one_game(referee: Referee, seed: int = 0) -> GameRecord:
    """A one-hand game of the match (bot b in seat b)."""
    game = Game(referee.rules, seed, ["one", "two"])
    return play(
        game,
        referee,
        game_index=0,
        time_control=referee.time_control,
        policy=referee.spec.policy,
        request_ids=referee.request_ids,
        max_hands=1,
    ).record


def first_asked(referee: Referee, seat: int) -> int:
    """A seed whose game asks ``seat`` first."""
    return next(s for s in range(100) if Game(referee.rules, s, ["one", "two"]).current_seat() == seat)


def test_an_illegal_action_costs_the_game_and_a_strike(match: tuple[Referee, ScriptedChannel]) -> None:
    referee, channel = match
    channel.answers.append(lambda message: [Say(orjson.dumps({**orjson.loads(reply(message)), "action": BAD}))])
    record = one_game(referee, first_asked(referee, 1))
    assert [(v["seat"], v["kind"]) for v in record["violations"]] == [(1, "illegal")]
    assert record["forfeit"]["seat"] == 1 and referee.strikes == [0, 1]
    [notice] = told(channel, "violation")
    assert notice["kind"] == "illegal" and notice["strikes"] == 1 and notice["max_strikes"] == 3
    replay(record)


def test_a_bot_out_of_strikes_is_told_killed_and_forfeits_the_rest_of_the_match(tmp_path: Path) -> None:
    hub = ScriptedHub(bots=2)
    hub.channels[1].answer = lambda message: [Say(b"{")]
    with scripted(tmp_path, hub, max_strikes=2) as (referee, _):
        assert referee.start() == []
        for expected in (["malformed"], ["malformed"], ["disqualified"]):
            assert referee.begin_game([0, 1]) == []
            record = one_game(referee, first_asked(referee, 1))
            assert [v["kind"] for v in record["violations"]] == expected
        process = referee.processes[1]
        assert referee.disqualified(1) and process is not None and not process.alive()
        assert told(hub.channels[1], "match_end") == [{"type": "match_end", "reason": "out of strikes"}]  # §11


def test_a_flood_stops_the_bot_at_once_and_a_new_process_plays_its_next_game(
    match: tuple[Referee, ScriptedChannel],
) -> None:
    referee, channel = match
    channel.answers.append(lambda message: [Say(b"x", sender=b"stranger")] * (inbox.STRANGER_FRAMES + 1))
    first = channel.process
    record = one_game(referee, first_asked(referee, 1))
    assert [v["kind"] for v in record["violations"]] == ["flood"]
    assert first is not None and not first.alive() and channel.process is first and channel.peer is None
    assert referee.begin_game([0, 1]) == []
    assert channel.process is not first and channel.peer == channel.own


def test_under_substitute_a_hung_bot_is_replaced_within_its_game(tmp_path: Path) -> None:
    hub = ScriptedHub(bots=2)
    with scripted(tmp_path, hub, policy="substitute", time="0.2+0.1", max_decision=0.2) as (referee, _):
        assert referee.start() == []
        assert referee.begin_game([0, 1], relaunch=False) == []
        hub.channels[1].answers.append(lambda message: [])  # hangs once
        first = hub.channels[1].process
        record = one_game(referee, first_asked(referee, 1))
        assert [(v["seat"], v["kind"]) for v in record["violations"]] == [(1, "timeout")]
        assert "forfeit" not in record and record["timing"]["decisions"][1] > 1  # it played on
        assert hub.channels[1].process is not first and hub.starts == 3
        assert len(told(hub.channels[1], "game_start")) == 2  # told again to the new process
        replay(record)


def test_a_copy_of_an_answer_is_known_as_such_in_its_game_and_the_next_then_let_go(
    match: tuple[Referee, ScriptedChannel],
) -> None:
    referee, channel = match
    first = request(referee)
    assert ask(referee, first).violation is None
    referee.begin_game([0, 1], relaunch=False)
    channel.answers.append(lambda message: [Say(reply(first)), Say(reply(message), after=0.05)])
    answer = ask(referee)  # the game after: a copy, the burst's one strike; the request stays open
    assert answer.violation is None and [(b, v.kind) for b, v in referee.interrupts()] == [(1, "unsolicited")]
    referee.begin_game([0, 1], relaunch=False)
    channel.answers.append(lambda message: [Say(reply(first))])
    answer = ask(referee)  # two games on, its id is let go (a match's length costs no memory): another request's
    assert answer.violation is not None and answer.violation.kind == "out_of_turn"
