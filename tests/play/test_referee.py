"""End-to-end tests of the referee: real bot processes, real ZeroMQ sockets, no mocks.

Each hostile bot (tests/bots/hostile.py) plays like the raw pyzmq bot until its cue, then breaks one rule of the
protocol; the referee must record the documented violation against the right seat, settle that game, and carry on
with the other seats and the rest of the match.
"""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from configs import games_per_seating, match_spec
from helpers import ROOT
from sandboxing import open_to_bots, started, still_running

from arena.engine.actions import parse_action
from arena.engine.game import Game
from arena.engine.options import VARIANTS, make_rules
from arena.engine.record import replay
from arena.play.matchspec import BotEntry, MatchSpec
from arena.play.protocol import REFEREE_MESSAGE
from arena.play.referee import Referee, run_match
from arena.play.runner import play
from arena.play.sandbox import capabilities

BOTS = ROOT / "tests" / "bots"
RAW = [sys.executable, str(BOTS / "raw_random.py")]
HOSTILE = [sys.executable, str(BOTS / "hostile.py")]
VIOLATION_FIELDS = {"seat", "kind", "detail", "excerpt", "hand_number", "at_seconds", "wall_time"}
WALL_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
# Kinds after which the referee replaces the process (it may be dead or stuck); the others keep it.
RESTARTED = {"timeout", "crash", "handshake"}


def hostile(name: str, *args: str | Path) -> BotEntry:
    """A hostile.py bot with these arguments."""
    return BotEntry(name=name, argv=[*HOSTILE, *map(str, args)])


def match(
    tmp_path: Path, bots: list[BotEntry], seatings: list[list[int]], *, variant: str = "two-hand", **settings: Any
) -> MatchSpec:
    """A match of one game per seating (deal seeds 0, 1, ...) with its logs under ``tmp_path``, where bots may write."""
    limits = open_to_bots(tmp_path, settings.pop("limits", None))
    return match_spec(bots, games_per_seating(seatings), tmp_path=tmp_path, variant=variant, limits=limits, **settings)


def check_records(records: list[dict[str, Any]], spec: MatchSpec) -> None:
    """One well-formed, replayable record per game of the match, each violation well-formed too."""
    assert [r["game_index"] for r in records] == list(range(len(spec.games)))
    for record, game in zip(records, spec.games, strict=True):
        assert record["match_id"] == spec.match_id
        assert record["seed"] == game.seed
        assert record["players"] == [spec.bots[b].name for b in game.seating]
        assert [entry["seat"] for entry in record["bots"]] == list(range(len(game.seating)))
        assert record["winners"]
        if "forfeit" in record:  # the offender's side loses: in four-hand its partner too
            offender, n = record["forfeit"]["seat"], len(game.seating)
            side = {s for s in range(n) if s % 2 == offender % 2} if n == 4 else {offender}
            assert not side & set(record["winners"])
        replay(record)
        for violation in record["violations"]:
            assert set(violation) == VIOLATION_FIELDS
            assert isinstance(violation["detail"], str) and violation["detail"]
            assert isinstance(violation["excerpt"], str) and len(violation["excerpt"]) <= 200
            assert 0 <= violation["hand_number"] <= len(record["hands"])
            assert violation["at_seconds"] >= 0
            assert WALL_TIME.match(violation["wall_time"])


def strikes(record: dict[str, Any], name: str) -> int:
    """The strikes of bot ``name`` in the match after this game."""
    (count,) = {entry["strikes"] for entry in record["bots"] if entry["name"] == name}
    return count


def pids(directory: Path) -> list[str]:
    """The processes that hostile.py bots recorded in ``directory`` (``TOKEN-PID``, see sandboxing.started)."""
    return list(started(directory))


def comparable(record: dict[str, Any]) -> dict[str, Any]:
    """A record without what legitimately differs between two runs: timings, wall-clock and the match id."""
    keep = {k: v for k, v in record.items() if k not in ("timing", "match_id")}
    keep["violations"] = [
        {k: v for k, v in violation.items() if k not in ("at_seconds", "wall_time")}
        for violation in record["violations"]
    ]
    return keep


# ---- one hostile bot per violation kind, under the default "forfeit" policy ----

# mode of hostile.py, the kind it must be recorded as, whether only its first process misbehaves, match settings (a
# handshake limit holds for every bot of the match, the innocent's too: 2 s, where a start takes 0.03-0.7 s)
KINDS: list[Any] = [
    pytest.param("timeout", "timeout", False, {"time": "3+0.1", "max_decision": 1.5}, id="timeout"),
    pytest.param("crash", "crash", False, {}, id="crash"),
    pytest.param("malformed", "malformed", False, {}, id="malformed-not-utf8"),
    pytest.param("not-json", "malformed", False, {}, id="malformed-not-json"),
    pytest.param("schema", "schema", False, {}, id="schema"),
    pytest.param("oversized", "oversized", False, {}, id="oversized"),
    pytest.param("illegal", "illegal", False, {}, id="illegal"),
    pytest.param("wrong-request", "out_of_turn", False, {}, id="out_of_turn-wrong-request"),
    pytest.param("rehello", "out_of_turn", False, {}, id="out_of_turn-hello-again"),
    pytest.param("flood", "unsolicited", False, {}, id="unsolicited-flood"),
    pytest.param("crash-at-start", "handshake", True, {}, id="handshake-crash-at-start"),
    pytest.param("bad-protocol", "handshake", True, {}, id="handshake-wrong-protocol"),
    pytest.param("no-hello", "handshake", True, {}, id="handshake-no-hello"),
    pytest.param("bad-token", "handshake", True, {"handshake_timeout": 2.0}, id="handshake-wrong-token"),
    pytest.param("silent", "handshake", True, {"handshake_timeout": 2.0}, id="handshake-silent"),
]

Played = tuple[MatchSpec, list[dict[str, Any]], Path]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, bool, dict[str, Any]], Played]:
    """Play (once per module) a two-game match: an innocent bot, and a hostile one whose cue is in game 0.

    The hostile bot sits in seat 1 of game 0 and seat 0 of game 1. Returns the spec, the records, and the directory
    with the pid files of the innocent (``pids-innocent``) and the hostile bot (``pids-hostile``).
    """

    @cache
    def run(mode: str, once: bool, settings: tuple[tuple[str, Any], ...]) -> Played:
        tmp = tmp_path_factory.mktemp(mode)
        extra: list[str | Path] = ["--once", tmp / "marker"] if once else []
        bots = [
            hostile("innocent", "polite", "--hold", tmp / "flooded", "--pid-dir", tmp / "pids-innocent"),
            hostile("hostile", mode, "--signal", tmp / "flooded", "--pid-dir", tmp / "pids-hostile", *extra),
        ]
        for directory in ("pids-innocent", "pids-hostile"):
            (tmp / directory).mkdir()
        spec = match(tmp, bots, [[0, 1], [1, 0]], **dict(settings))
        return spec, run_match(spec), tmp

    return lambda mode, once, settings: run(mode, once, tuple(sorted(settings.items())))


@pytest.mark.parametrize(("mode", "kind", "once", "settings"), KINDS)
def test_a_violation_loses_the_offenders_game_and_the_match_goes_on(
    played: Callable[[str, bool, dict[str, Any]], Played], mode: str, kind: str, once: bool, settings: dict[str, Any]
) -> None:
    spec, records, tmp = played(mode, once, settings)
    check_records(records, spec)
    first, second = records
    assert first["forfeit"]["seat"] == 1
    assert first["forfeit"]["kind"] == kind
    assert first["forfeit"]["detail"]
    assert first["winners"] == [0]
    assert first["violations"]
    assert {(v["seat"], v["kind"]) for v in first["violations"]} == {(1, kind)}
    assert "forfeit" not in second
    assert second["violations"] == []
    assert len(second["hands"]) > 0
    assert [strikes(r, "innocent") for r in records] == [0, 0]
    assert [strikes(r, "hostile") for r in records] == [1, 1]
    assert len(pids(tmp / "pids-innocent")) == 1
    hostile_pids = pids(tmp / "pids-hostile")
    if kind in RESTARTED:
        assert len(hostile_pids) >= 2
    else:
        assert len(hostile_pids) == 1
    assert second["bots"][0]["hello"] == mode  # the bot (or its replacement) took part in game 1
    assert still_running(hostile_pids + pids(tmp / "pids-innocent")) == []


def test_a_flood_of_unsolicited_frames_loses_the_flooders_game_not_the_innocents(
    played: Callable[[str, bool, dict[str, Any]], Played],
) -> None:
    spec, records, tmp = played("flood", False, {})
    check_records(records, spec)
    first = records[0]
    assert first["forfeit"]["seat"] == 1
    assert first["forfeit"]["kind"] == "unsolicited"
    assert first["winners"] == [0]
    assert {(v["seat"], v["kind"]) for v in first["violations"]} == {(1, "unsolicited")}
    assert all(v["seat"] == 0 for r in records[1:] for v in r["violations"])  # the flooder sits in seat 0 in game 1
    assert [strikes(r, "innocent") for r in records] == [0, 0]
    assert still_running(pids(tmp / "pids-hostile") + pids(tmp / "pids-innocent")) == []


def test_an_offence_found_while_another_bot_was_asked_is_charged_before_that_bots_move_is_played(
    played: Callable[[str, bool, dict[str, Any]], Played],
) -> None:
    """The flooder leads, then bursts while the innocent is asked (the innocent holds its answer until the burst is
    in): the game is forfeited with the flooder's lead as its last action; the innocent's move is not played."""
    _, records, _ = played("flood", False, {})
    forfeit = records[0]["forfeit"]
    assert forfeit["seat"] == 1 and forfeit["kind"] == "unsolicited"
    assert forfeit["actions"][-1]["seat"] == 1 and forfeit["actions"][-1]["type"] == "play"


@pytest.mark.timeout(120)
def test_a_bot_that_dies_while_asked_is_found_dead_at_once_not_at_its_deadline(tmp_path: Path) -> None:
    """With 30 s to think, a bot that crashes on a request is charged `crash` within a second or two (the referee
    watches the process while it waits), not a `timeout` 30 s later."""
    bots = [BotEntry(name="raw", argv=RAW), hostile("crasher", "crash", "--game", "0")]
    (record,) = run_match(match(tmp_path, bots, [[0, 1]], time="30+0", max_decision=30.0))
    assert record["forfeit"]["seat"] == 1 and record["forfeit"]["kind"] == "crash"
    assert record["timing"]["thinking"][1] < 10  # found while waiting: 0.1 s apart; at the deadline it would be 30


EXCERPTS: list[Any] = [
    pytest.param("malformed", "\ufffd\ufffd{not json", id="malformed-not-utf8"),
    pytest.param("not-json", "{type: action}", id="malformed-not-json"),
    pytest.param("schema", '{"type": "action", "request_id"', id="schema"),
    pytest.param("oversized", '{"type": "action", "request_id"', id="oversized"),
    pytest.param("rehello", '{"type": "hello"', id="out_of_turn-hello-again"),
    pytest.param("flood", '{"type": "action", "request_id": 0', id="unsolicited-flood"),
    pytest.param("illegal", '{"type": "action", "request_id"', id="illegal"),
    pytest.param("wrong-request", '{"type": "action", "request_id"', id="out_of_turn-wrong-request"),
]


@pytest.mark.parametrize(("mode", "prefix"), EXCERPTS)
def test_a_violation_quotes_the_start_of_the_frame_the_bot_sent(
    played: Callable[[str, bool, dict[str, Any]], Played], mode: str, prefix: str
) -> None:
    _, records, _ = played(mode, False, {})
    assert records[0]["violations"][0]["excerpt"].startswith(prefix)


def test_json_nested_too_deep_to_parse_is_charged_to_the_bot_not_fatal_to_the_referee(tmp_path: Path) -> None:
    bots = [BotEntry(name="raw", argv=RAW), hostile("deep", "deep")]
    spec = match(tmp_path, bots, [[0, 1], [1, 0]])
    records = run_match(spec)
    check_records(records, spec)
    assert records[0]["forfeit"]["seat"] == 1
    assert records[0]["forfeit"]["kind"] in ("malformed", "schema")
    assert records[0]["winners"] == [0]
    assert "forfeit" not in records[1]


def test_a_frame_over_the_transports_hard_limit_costs_the_game_and_the_match_goes_on(tmp_path: Path) -> None:
    bots = [BotEntry(name="raw", argv=RAW), hostile("huge", "huge")]
    spec = match(tmp_path, bots, [[0, 1], [1, 0]], time="3+0.1", max_decision=1.5)
    records = run_match(spec)
    check_records(records, spec)
    assert records[0]["forfeit"]["seat"] == 1
    # ZeroMQ drops the connection unread: the answer never comes (before, under 32 MiB, it was read: oversized)
    assert records[0]["forfeit"]["kind"] == "timeout"
    assert "forfeit" not in records[1]
    assert [strikes(r, "raw") for r in records] == [0, 0]


def test_the_partner_of_an_offender_loses_with_it_and_is_charged_nothing(tmp_path: Path) -> None:
    bots = [
        BotEntry(name="north", argv=RAW),
        hostile("east", "illegal"),
        BotEntry(name="south", argv=RAW),
        BotEntry(name="west", argv=RAW),
    ]
    spec = match(tmp_path, bots, [[0, 1, 2, 3]], variant="four-hand")
    records = run_match(spec)
    check_records(records, spec)
    (record,) = records
    assert record["forfeit"]["seat"] == 1
    assert record["winners"] == [0, 2]
    assert [entry["strikes"] for entry in record["bots"]] == [0, 1, 0, 0]
    assert {v["seat"] for v in record["violations"]} == {1}


# ---- strikes ----


def test_a_bot_out_of_strikes_forfeits_the_rest_of_the_match(tmp_path: Path) -> None:
    pid_dir = tmp_path / "pids"
    pid_dir.mkdir()
    bots = [BotEntry(name="raw", argv=RAW), hostile("cheat", "illegal", "--game", "all", "--pid-dir", pid_dir)]
    spec = match(tmp_path, bots, [[0, 1], [1, 0], [0, 1], [1, 0], [0, 1]])
    records = run_match(spec)
    check_records(records, spec)
    kinds = [r["forfeit"]["kind"] for r in records]
    assert kinds == ["illegal"] * 3 + ["disqualified"] * 2
    assert [r["forfeit"]["seat"] for r in records] == [1, 0, 1, 0, 1]
    assert [r["winners"] for r in records] == [[0], [1], [0], [1], [0]]
    assert [strikes(r, "cheat") for r in records] == [1, 2, 3, 3, 3]
    assert [strikes(r, "raw") for r in records] == [0] * 5
    for record in records[3:]:
        assert record["hands"] == []
        assert [(v["seat"], v["kind"]) for v in record["violations"]] == [(record["forfeit"]["seat"], "disqualified")]
    assert len(pids(pid_dir)) == 1
    assert still_running(pids(pid_dir)) == []


def test_a_bot_that_always_fails_the_handshake_is_charged_one_strike_per_game(tmp_path: Path) -> None:
    bots = [BotEntry(name="raw", argv=RAW), hostile("dud", "crash-at-start")]
    spec = match(tmp_path, bots, [[0, 1]] * 4)
    records = run_match(spec)
    check_records(records, spec)
    assert [r["forfeit"]["kind"] for r in records] == ["handshake"] * 3 + ["disqualified"]
    assert [len(r["violations"]) for r in records] == [1, 1, 1, 1]
    assert [strikes(r, "dud") for r in records] == [1, 2, 3, 3]


# ---- policy "substitute" ----


def test_under_substitute_the_referee_plays_the_first_legal_action_and_the_game_goes_on(tmp_path: Path) -> None:
    bots = [BotEntry(name="raw", argv=RAW), hostile("cheat", "illegal", "--act", "3")]
    spec = match(tmp_path, bots, [[0, 1]], policy="substitute")
    (record,) = run_match(spec)
    check_records([record], spec)
    assert "forfeit" not in record
    assert [(v["seat"], v["kind"]) for v in record["violations"]] == [(1, "illegal")]
    assert [entry["strikes"] for entry in record["bots"]] == [0, 1]
    game, decisions = Game(make_rules("two-hand"), record["seed"], record["players"]), 0
    for hand in record["hands"]:
        for entry in hand["actions"]:
            action = parse_action({k: v for k, v in entry.items() if k != "seat"})
            if entry["seat"] == 1:
                decisions += 1
                if decisions == 3:
                    assert action == game.legal_actions()[0]
            game.apply(action, entry["seat"])
    assert decisions > 3


@pytest.mark.parametrize(
    ("mode", "settings"),
    [("crash", {}), ("timeout", {"time": "3+0.1", "max_decision": 1.5})],
)
def test_under_substitute_a_dead_or_hung_bot_is_replaced_within_the_game(
    tmp_path: Path, mode: str, settings: dict[str, Any]
) -> None:
    pid_dir = tmp_path / "pids"
    pid_dir.mkdir()
    bots = [
        BotEntry(name="raw", argv=RAW),
        hostile("flaky", mode, "--once", tmp_path / "marker", "--pid-dir", pid_dir),
    ]
    spec = match(tmp_path, bots, [[0, 1]], policy="substitute", **settings)
    (record,) = run_match(spec)
    check_records([record], spec)
    assert "forfeit" not in record
    assert [(v["seat"], v["kind"]) for v in record["violations"]] == [(1, mode)]
    assert [entry["strikes"] for entry in record["bots"]] == [0, 1]
    assert record["timing"]["decisions"][1] > 3  # it went on deciding after the replacement
    assert len(pids(pid_dir)) == 2
    assert still_running(pids(pid_dir)) == []


def test_under_substitute_a_replacement_that_fails_the_handshake_is_charged_a_handshake(tmp_path: Path) -> None:
    bots = [BotEntry(name="raw", argv=RAW), hostile("dud", "bad-protocol")]
    spec = match(tmp_path, bots, [[0, 1]], policy="substitute")
    (record,) = run_match(spec)
    check_records([record], spec)
    assert record["forfeit"]["seat"] == 1
    assert [v["kind"] for v in record["violations"]] == ["handshake"] * 3
    assert all("SIGKILL" not in v["detail"] for v in record["violations"])


def test_under_substitute_the_game_is_lost_at_the_last_strike(tmp_path: Path) -> None:
    bots = [BotEntry(name="raw", argv=RAW), hostile("cheat", "schema", "--times", "99")]
    spec = match(tmp_path, bots, [[0, 1], [1, 0]], policy="substitute")
    records = run_match(spec)
    check_records(records, spec)
    first, second = records
    assert [(v["seat"], v["kind"]) for v in first["violations"]] == [(1, "schema")] * 3
    assert first["forfeit"]["kind"] == "schema"
    assert first["winners"] == [0]
    assert second["forfeit"]["kind"] == "disqualified"
    assert second["winners"] == [1]
    assert [strikes(r, "raw") for r in records] == [0, 0]


# ---- the match as a whole ----


def test_the_same_seed_twice_gives_the_same_match(tmp_path: Path) -> None:
    bots = [BotEntry(name="raw", argv=RAW), hostile("cheat", "illegal", "--game", "1")]
    seatings = [[0, 1], [1, 0], [0, 1]]
    first = run_match(match(tmp_path / "a", bots, seatings))
    second = run_match(match(tmp_path / "b", bots, seatings))
    assert [r["violations"] != [] for r in first] == [False, True, False]
    assert [comparable(r) for r in first] == [comparable(r) for r in second]


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_raw_pyzmq_bot_plays_a_full_match_in_every_variant(tmp_path: Path, variant: str) -> None:
    n = VARIANTS[variant].players
    bots = [BotEntry(name=f"raw{b}", argv=RAW) for b in range(n)]
    # random play ends a Hasenpfeffer game only where the defenders score their tricks (else both sides bid high, are
    # set and sink below zero until the hand limit)
    quick = {"defenders_score_tricks": True, "points_to_win": 3} if VARIANTS[variant].game == "hasenpfeffer" else {}
    seatings = [list(range(n)), [(seat + 1) % n for seat in range(n)]]
    spec = match(tmp_path, bots, seatings, variant=variant, options=quick)
    records = run_match(spec)
    check_records(records, spec)
    for record in records:
        assert "forfeit" not in record
        assert record["violations"] == []
        assert max(record["final_scores"]) >= record["options"]["points_to_win"]
        assert all(entry["strikes"] == 0 and entry["hello"] == "raw" for entry in record["bots"])


def test_a_second_process_cannot_speak_for_another_bots_seat(tmp_path: Path) -> None:
    seatings = [[0, 1, 2], [1, 2, 0]]
    polite = [hostile("x", "polite"), BotEntry(name="y", argv=RAW), BotEntry(name="z", argv=RAW)]
    intruder = [hostile("x", "intruder"), *polite[1:]]
    baseline = run_match(match(tmp_path / "polite", polite, seatings, variant="three-hand"))
    spec = match(tmp_path / "intruder", intruder, seatings, variant="three-hand")
    records = run_match(spec)
    check_records(records, spec)
    assert all(r["violations"] == [] and "forfeit" not in r for r in records)
    assert all(entry["strikes"] == 0 for r in records for entry in r["bots"])
    unaffected = [{k: v for k, v in comparable(r).items() if k != "bots"} for r in records]
    assert unaffected == [{k: v for k, v in comparable(r).items() if k != "bots"} for r in baseline]


def test_frames_sent_hard_on_the_heels_of_an_answer_are_one_strike_wherever_the_reads_fall(tmp_path: Path) -> None:
    """``chatter`` sends three frames right after its answer, once. They may be read with the answer, while the other
    bot plays, or while it is asked again, in this game or the next: that is timing, not what it did, so it is one
    strike every time (before: 2-3 strikes in 13 of 30 matches, when the frames reached the next game's request)."""
    for run in range(6):
        spec = match(
            tmp_path / f"run{run}", [hostile("innocent", "polite"), hostile("chatter", "chatter")], [[0, 1], [1, 0]]
        )
        records = run_match(spec)
        check_records(records, spec)
        charged = [v for r in records for v in r["violations"]]
        assert len(charged) == 1 and charged[0]["kind"] in ("unsolicited", "out_of_turn"), charged
        assert strikes(records[-1], "chatter") == 1 and strikes(records[-1], "innocent") == 0


@pytest.mark.skipif(not capabilities().isolated, reason="this host cannot keep bots apart (SECURITY.md)")
def test_a_process_that_reads_a_bots_environment_cannot_take_its_seat(tmp_path: Path) -> None:
    spoken = tmp_path / "spoken"
    bots = [hostile("slow", "polite", "--wait-for", spoken), hostile("thief", "thief", "--signal", spoken)]
    spec = match(tmp_path, bots, [[0, 1]])
    (record,) = run_match(spec)
    assert record["bots"][0]["hello"] == "polite"
    assert record["violations"] == []
    assert "forfeit" not in record


INTRUDER = """
import json, pathlib, sys, time, zmq
context = zmq.Context()
sockets = []
for address in sys.argv[2:]:
    sockets.append(context.socket(zmq.DEALER))
    sockets[-1].setsockopt(zmq.LINGER, 0)
    sockets[-1].connect(address)
guess = 0
for _ in range(3):  # 36 frames an endpoint: under the limit past which strangers' traffic is a flood
    for s in sockets:
        s.send(json.dumps({"type": "hello", "name": "intruder", "protocol": 1, "token": "0" * 32}).encode())
        for request_id in range(guess, guess + 10):
            s.send(json.dumps({"type": "action", "request_id": request_id, "action": {"type": "pass"}}).encode())
        s.send(b"junk")
    pathlib.Path(sys.argv[1]).touch()
    guess = (guess + 1) % 300
    time.sleep(0.001)
time.sleep(600)
"""


def test_a_few_frames_from_a_stranger_on_a_bots_endpoint_are_dropped_not_charged(tmp_path: Path) -> None:
    bots = [BotEntry(name="raw0", argv=RAW), BotEntry(name="raw1", argv=RAW)]
    spec = match(tmp_path, bots, [[0, 1]])
    (baseline,) = run_match(spec)
    with contextlib.closing(Referee(spec)) as referee:
        assert referee.start() == []
        addresses = [endpoint.address for endpoint in referee.endpoints]
        ready = tmp_path / "stranger-ready"
        stranger = subprocess.Popen([sys.executable, "-c", INTRUDER, ready, *addresses])
        try:
            deadline = time.monotonic() + 30
            while not ready.exists() and time.monotonic() < deadline:
                time.sleep(0.01)
            # its frames waiting on both endpoints before the game: sent is not yet arrived, and a short game could
            # end before the referee read a late stranger's first frame
            while not all(e.has_input() for e in referee.endpoints) and time.monotonic() < deadline:
                time.sleep(0.01)
            assert referee.begin_game([0, 1]) == []
            game = Game(referee.rules, 0, ["raw0", "raw1"])
            outcome = play(game, referee, game_index=0, time_control=referee.time_control)
        finally:
            stranger.kill()
            stranger.wait()
        assert all(endpoint.foreign_frames > 0 for endpoint in referee.endpoints)
        assert referee.strikes == [0, 0]
    record = outcome.record
    assert record["violations"] == []
    assert "forfeit" not in record
    assert record["hands"] == baseline["hands"]
    assert record["winners"] == baseline["winners"]


# ---- processes and their output ----


def test_each_bots_output_goes_to_its_own_size_capped_log(tmp_path: Path) -> None:
    bots = [hostile("quiet", "polite"), hostile("noisy", "polite", "--noise", 5 * 1024 * 1024)]
    spec = match(tmp_path, bots, [[0, 1]])
    (record,) = run_match(spec)
    assert record["violations"] == []
    logs = tmp_path / "logs"
    noisy = (logs / f"{spec.match_id}-bot1-noisy.log").read_bytes()
    quiet = (logs / f"{spec.match_id}-bot0-quiet.log").read_bytes()
    assert b"noise" in noisy
    assert len(noisy) <= 1024 * 1024 + 100
    assert noisy.rstrip().endswith(b"[arena: log truncated at the size limit]")
    assert b"noise" not in quiet


def test_a_restarted_bot_shares_one_size_capped_log(tmp_path: Path) -> None:
    bots = [BotEntry(name="raw", argv=RAW), hostile("noisy", "crash", "--game", "all", "--noise", 3 * 1024 * 1024)]
    spec = match(tmp_path, bots, [[0, 1], [0, 1], [0, 1]])
    records = run_match(spec)
    assert [r["forfeit"]["kind"] for r in records] == ["crash"] * 3  # three processes, each writing 3 MiB
    log = tmp_path / "logs" / f"{spec.match_id}-bot1-noisy.log"
    assert log.stat().st_size <= 1024 * 1024 + 100


def test_no_bot_process_outlives_the_match(tmp_path: Path) -> None:
    pid_dir = tmp_path / "pids"
    pid_dir.mkdir()
    bots = [
        hostile("parent", "spawn", "--pid-dir", pid_dir),
        hostile("crashed", "crash", "--game", "0", "--pid-dir", pid_dir),
        hostile("hung", "timeout", "--game", "1", "--pid-dir", pid_dir),  # still hung when the match ends
    ]
    spec = match(tmp_path, bots, [[0, 1, 2], [2, 0, 1]], variant="three-hand", time="3+0.1", max_decision=1.5)
    records = run_match(spec)
    check_records(records, spec)
    assert [r["forfeit"]["kind"] for r in records] == ["crash", "timeout"]
    assert len(pids(pid_dir)) == 5  # the spawner and its child, the crashed bot and its replacement, the hung bot
    assert still_running(pids(pid_dir)) == []


@pytest.mark.slow
def test_two_seven_seat_matches_at_once_keep_each_bot_in_its_limits_and_leave_nothing(tmp_path: Path) -> None:
    """Two matches of seven seats at once (a tournament's jobs 2): in each, a bot that eats memory is stopped at its
    own limit and forfeits, one leaves a child and one a grandchild in a session of its own; the four others play
    on untouched, and when both matches are over no process any of them started is left."""
    results: dict[str, list[dict[str, Any]]] = {}

    def one(name: str, variant: str, options: dict[str, Any]) -> None:
        folder = tmp_path / name
        pid_dir = folder / "pids"
        pid_dir.mkdir(parents=True)
        bots = [
            hostile("hog", "hog", "--game", "0", "--act", "2", "--pid-dir", pid_dir),
            hostile("parent", "spawn", "--pid-dir", pid_dir),
            hostile("escaper", "escape", "--pid-dir", pid_dir),
            *(hostile(f"polite{b}", "polite", "--pid-dir", pid_dir) for b in range(4)),
        ]
        spec = match(folder, bots, [list(range(7))], variant=variant, options=options, time="60+1")
        results[name] = run_match(spec)

    threads = [
        threading.Thread(target=one, args=("nap", "nap", {"players": 7, "deals_per_player": 1})),
        threading.Thread(target=one, args=("seven", "seven-hand", {"points_to_win": 3})),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    assert set(results) == {"nap", "seven"}
    for name, (record,) in results.items():
        assert record["forfeit"]["seat"] == 0 and record["forfeit"]["kind"] == "memory", (name, record["forfeit"])
        assert {v["seat"] for v in record["violations"]} == {0}  # nobody else was charged
        replay(record)
        assert len(pids(tmp_path / name / "pids")) >= 7 + 2  # each bot, the child and the grandchild
        assert still_running(pids(tmp_path / name / "pids")) == []


def test_every_message_a_bot_receives_is_valid_against_the_protocol(tmp_path: Path) -> None:
    dumps = [tmp_path / f"bot{b}.jsonl" for b in range(4)]
    bots = [hostile(f"b{b}", "polite", "--dump", dumps[b]) for b in range(4)]
    bots[3] = hostile("b3", "illegal", "--game", "1", "--act", "5", "--dump", dumps[3])
    spec = match(
        tmp_path,
        bots,
        [[0, 1, 2, 3], [1, 2, 3, 0]],
        variant="british",
        options={"defend_alone": True},
        policy="substitute",
    )
    records = run_match(spec)
    check_records(records, spec)
    seen: set[str] = set()
    for dump in dumps:
        messages = [REFEREE_MESSAGE.validate_json(line) for line in dump.read_bytes().splitlines()]
        seen.update(m.type for m in messages)
        assert messages[0].type == "welcome"
        assert messages[-1].type == "match_end"
        seat = None
        for message in messages:
            if message.type == "game_start":
                seat = message.seat
            if message.type == "act":
                assert message.view.seat == seat
                assert message.legal
    assert seen == {"welcome", "game_start", "act", "events", "game_end", "violation", "match_end"}
    assert json.loads(dumps[3].read_bytes().splitlines()[-1])["reason"] == "match over"
