"""The referee against a second wave of hostile bots (tests/bots/adversary.py): real processes, sockets and files.

Each test is one attack: a flood from a stranger socket the bot opened on its own endpoint, an innocent opponent
thinking while the flood goes on, a flooder thinking past its clock, partners reading each other's cards from the
kernel's lock table, a bot taking another's seat, a signalled referee leaving processes behind, escape codes meant
for the user's terminal, a full disk, and the small ones (duplicate keys, a second hello, a 4,000-digit request id,
strangers' bytes in the seat's traffic, record file modes). Every test has a time limit: an attack that hangs the
referee fails the test instead of the suite.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from configs import games_per_seating, write_config
from helpers import ROOT
from sandboxing import match_in, started, still_running

from arena.cli import main
from arena.play import inbox, memory_guard
from arena.play.matchspec import BotEntry, MatchSpec
from arena.play.referee import Referee, run_match
from arena.play.sandbox import capabilities

BOTS = ROOT / "tests" / "bots"
ADVERSARY = [sys.executable, str(BOTS / "adversary.py")]
RAW = [sys.executable, str(BOTS / "raw_random.py")]
CAPS = capabilities()
isolated = pytest.mark.skipif(not CAPS.isolated, reason="no private view for bots here (neither root nor user ns)")
ESC = "\x1b"


def adversary(name: str, mode: str, *args: str | Path) -> BotEntry:
    return BotEntry(name=name, argv=[*ADVERSARY, mode, *map(str, args)])


def spec_of(
    tmp_path: Path, bots: list[BotEntry], seatings: list[list[int]], *, variant: str = "two-hand", **settings: Any
) -> MatchSpec:
    """One game per seating, deal seeds 0, 1, ..."""
    return match_in(tmp_path, bots, games_per_seating(seatings), variant, **settings)


def violations_of(record: dict[str, Any], seat: int) -> list[str]:
    return [v["kind"] for v in record["violations"] if v["seat"] == seat]


# ---- 1-3: a stranger's flood on the bot's own endpoint ----


@pytest.mark.timeout(90)
def test_a_stranger_flood_on_its_own_endpoint_is_the_bots_flood_and_the_innocent_pays_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    bots = [adversary("innocent", "polite", "--think", "0.2"), adversary("flooder", "stranger-flood", "--out", out)]
    spec = spec_of(tmp_path, bots, [[0, 1], [1, 0]], time="1+0.3")
    started_at = time.monotonic()
    records = run_match(spec)
    assert time.monotonic() - started_at < 60  # it ended: the flood neither hung the referee nor ran it out
    for record, flooder_seat in zip(records, (1, 0), strict=True):
        assert record["forfeit"]["seat"] == flooder_seat and record["forfeit"]["kind"] == "flood"
        assert violations_of(record, 1 - flooder_seat) == []  # the innocent thinks 0.2 s and never times out
        assert "frames" in record["forfeit"]["detail"]
    strikes = {entry["name"]: entry["strikes"] for entry in records[-1]["bots"]}
    assert strikes == {"innocent": 0, "flooder": 2}
    processes = started(out)
    tokens = Counter(name.partition("-")[0] for name in processes)
    assert len(tokens) == 2 and min(tokens.values()) >= 2  # two processes of the flooder, each with a flooding child
    deadline = time.monotonic() + 5
    while still_running(processes) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert still_running(processes) == []


@pytest.mark.timeout(90)
def test_copies_of_a_late_answer_are_ignored_but_counted_to_a_flood(tmp_path: Path) -> None:
    """A late answer is ignored, not charged; under the substitute policy the bot that timed out plays on until its
    next decision, and an outside check's sent 1.1-1.7 GB of copies a game, all read, none charged."""
    bots = [adversary("innocent", "polite", "--think", "0.3"), adversary("late", "late-flood")]  # its copies are read
    spec = spec_of(tmp_path, bots, [[0, 1]], time="1+0.2", max_decision=0.5, policy="substitute", max_strikes=5)
    (record,) = run_match(spec)
    late = [v for v in record["violations"] if v["seat"] == 1]
    kinds = [v["kind"] for v in late]
    # before: timeouts alone. Timeouts until the flood (a loaded host's bot may send its first 1,000 copies only
    # after its next decision timed out too), then the flood
    assert "flood" in kinds and kinds[0] == "timeout", late
    flood = kinds.index("flood")
    assert set(kinds[:flood]) == {"timeout"}, late
    assert late[flood]["detail"].startswith("more than 1000 frames in a row without being asked (")
    assert "copies of late answers)" in late[flood]["detail"]
    assert violations_of(record, 0) == []


@pytest.mark.timeout(90)
def test_a_valid_answer_ends_the_count_of_late_copies_so_two_bursts_under_the_limit_are_no_flood(
    tmp_path: Path,
) -> None:
    """Late copies count towards a flood only until the bot's next valid answer. The bot is asked through the
    referee's own ask (no runner: a runner replaces a bot that timed out before asking it again, and then the count
    starts again with its new process): its first and third decisions time out, each followed by 600 copies of the
    late answer, and each time out is followed by a valid answer. Counted on, the copies would pass the limit."""
    copies = inbox.BURST_FRAMES * 3 // 5
    bots = [adversary("polite", "polite"), adversary("late", "late-twice", "--copies", str(copies))]
    spec = spec_of(tmp_path, bots, [[0, 1]], policy="substitute", max_strikes=10)
    with contextlib.closing(Referee(spec)) as referee:
        assert referee.start() == []
        referee.begin_game([0, 1], relaunch=False)
        referee.send(1, {"type": "game_start", "game": 5})

        def ask(allowed: float) -> tuple[str | None, str | None]:
            request_id = next(referee.request_ids)
            legal = [{"type": "pass"}]
            message = {"type": "act", "request_id": request_id, "legal": legal, "time_left_ms": int(allowed * 1000)}
            answer = referee.ask(1, message, allowed)
            action = None if answer.action is None else answer.action.to_json()["type"]
            return action, None if answer.violation is None else answer.violation.kind

        for _ in range(2):
            assert ask(0.5) == (None, "timeout")
            assert ask(60.0) == ("pass", None)  # read behind 600 copies (before: a flood at the second 600)
        assert [(b, v.kind) for b, v in referee.reports] == []


@pytest.mark.timeout(120)
def test_a_bot_whose_message_is_never_finished_is_found_by_the_memory_it_holds_and_charged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """libzmq keeps the frames of a multipart message until its last: each under the hard frame limit, counted by no
    high-water mark, never read by the referee. An outside check's took a referee from 44 MB to 1.2 GB, unseen; and
    a guard that stopped the match let a losing bot cancel its game uncharged. Past the margin the bots are stopped
    one by one: the one whose stop gave the memory back is charged, the others restart uncharged."""
    monkeypatch.setattr(memory_guard, "MEMORY_MARGIN", 64 * 1024 * 1024)  # of the bot's 256 MiB
    bots = [adversary("innocent", "polite", "--think", "0.05"), adversary("endless", "endless-message")]
    spec = spec_of(tmp_path, bots, [[0, 1], [1, 0], [0, 1]], time="10+0.5")
    try:
        records = run_match(spec)  # before: played to its end, no violation, the memory held
    except memory_guard.MemoryOverrun as stopped:
        # where the memory did not come back within a second of the holder's stop (about 1 run in 6 here), nobody
        # is charged and the match stops: never an innocent charged, never the memory kept
        assert "no bot of the match held it" in str(stopped) and "endless 2" in str(stopped)
        return
    held = r"its connections held (\d+) MiB of messages it never finished \(at most 64 MiB\)"
    charged = []
    for record in records:
        endless = record["players"].index("endless")
        assert violations_of(record, 1 - endless) == []  # the innocent, stopped first or not, is charged nothing
        for violation in record["violations"]:
            found = re.fullmatch(held, violation["detail"])
            assert violation["kind"] == "flood" and found and int(found[1]) >= 32, violation
            charged.append(violation)
        assert record.get("forfeit", {"seat": endless})["seat"] == endless
    assert charged  # found (again after each restart; a flood found as a game ends counts in the next game)


@pytest.mark.timeout(120)
def test_the_bot_charged_for_the_memory_is_the_one_whose_bytes_filled_it_not_the_first_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two bots hold messages never finished: "small" 24 MiB from its welcome, under the margin, and "endless" 56 MiB
    from its first game, which takes the referee past it. The small one is stopped first (as many connections, and
    the first bot): its stop gives back some memory, not most of the growth; the bot charged is the one whose stop
    does."""
    monkeypatch.setattr(memory_guard, "MEMORY_MARGIN", 64 * 1024 * 1024)
    bots = [
        adversary("small", "endless-message", "--early", "--mib", "24", "--think", "0.02"),
        adversary("endless", "endless-message", "--mib", "56", "--think", "0.02"),  # done sending as it is found
    ]
    spec = spec_of(tmp_path, bots, [[0, 1], [1, 0], [0, 1], [1, 0]], time="10+0.5")
    try:
        records = run_match(spec)
    except memory_guard.MemoryOverrun as stopped:  # the memory came back late (see the test above): nobody charged
        assert "no bot of the match held it" in str(stopped), stopped
        return
    charged = [(record["players"][v["seat"]], v["kind"]) for record in records for v in record["violations"]]
    assert charged and set(charged) == {("endless", "flood")}, charged  # with the first stop charged: ("small", ...)


@pytest.mark.timeout(120)
def test_a_message_never_finished_in_the_handshake_stops_the_match_and_charges_no_bot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same attack while the other bot has not said hello yet: the bots cannot be stopped one by one to find the
    holder there (a restarted bot would start its handshake again), so the match stops, nobody charged, the memory
    not kept."""
    monkeypatch.setattr(memory_guard, "MEMORY_MARGIN", 64 * 1024 * 1024)
    bots = [
        adversary("innocent", "slow-hello", "--hello-after", "5"),
        adversary("endless", "endless-message", "--early"),
    ]
    spec = spec_of(tmp_path, bots, [[0, 1]], time="10+0.5", handshake_timeout=20)
    with pytest.raises(memory_guard.MemoryOverrun) as stopped:
        run_match(spec)
    assert "in a handshake" in str(stopped.value) and "endless 2" in str(stopped.value), stopped.value


@pytest.mark.timeout(90)
def test_a_flooder_thinking_past_its_allowance_never_wins_on_time(tmp_path: Path) -> None:
    out = tmp_path / "out"
    bots = [
        adversary("innocent", "polite"),
        adversary("flooder", "stranger-flood", "--think", "2.5", "--out", out),
    ]
    spec = spec_of(tmp_path, bots, [[0, 1]], time="1+0.1", max_decision=1.1)
    (record,) = run_match(spec)
    assert record["forfeit"]["seat"] == 1 and record["forfeit"]["kind"] in ("flood", "timeout")
    assert record["winners"] == [0]
    assert max(record["timing"]["thinking"]) < 30


@pytest.mark.timeout(90)
def test_an_answer_read_after_its_allowance_is_a_timeout_whatever_else_happened(tmp_path: Path) -> None:
    """A slow bot with no flood at all: 2.2 s a decision on an allowance of at most 2 s times out, every time (the
    fast bot, at most 2 s too, keeps its clock under any load)."""
    bots = [adversary("fast", "polite"), adversary("slow", "polite", "--think", "2.2")]
    spec = spec_of(tmp_path, bots, [[0, 1], [1, 0]], time="1.5+0.5", max_decision=2.0)
    records = run_match(spec)
    for record, slow in zip(records, (1, 0), strict=True):
        assert record["forfeit"]["seat"] == slow and record["forfeit"]["kind"] == "timeout"
        assert record["timing"]["thinking"][slow] >= 2.0


# ---- 4: partners reading each other's cards from machine-wide tables ----


@isolated
@pytest.mark.skipif(not CAPS.pid, reason="no pid namespaces here: /proc/locks is machine-wide (SECURITY.md)")
@pytest.mark.timeout(90)
def test_partners_cannot_read_each_others_cards_from_the_kernels_lock_table(tmp_path: Path) -> None:
    out = tmp_path / "out"
    spy, raw = adversary("spy", "lock-spy", "--out", out), BotEntry(name="raw", argv=RAW)
    (record,) = run_match(spec_of(tmp_path, [spy, raw, spy, raw], [[0, 1, 2, 3]], variant="four-hand"))
    assert record["violations"] == []
    reports = [json.loads(p.read_text()) for p in out.glob("*.json")]
    assert len(reports) == 2  # both partners looked
    for report in reports:
        assert report["learned"] == 0  # /proc/locks shows the locks of its own pid namespace alone
        assert report["tables"]["/sys/class/net"] is False  # nor the host's network devices


@isolated
@pytest.mark.skipif(not CAPS.filtered, reason="no seccomp filter here: matches with strangers are refused")
@pytest.mark.timeout(90)
def test_partners_cannot_pass_their_cards_through_locks_on_a_file_both_may_read(tmp_path: Path) -> None:
    """F_GETLK names another owner's conflicting lock whatever its uid or pid namespace (a private /proc/locks
    does not hide it): an outside check's two copies of one entrant spelled their cards in lock offsets on their own
    script, 194 of 194 hands. Every lock call is refused (ENOLCK), so nothing is learned, and the game goes on."""
    out = tmp_path / "out"
    talk, raw = adversary("talk", "lock-talk", "--out", out), BotEntry(name="raw", argv=RAW)
    records = run_match(spec_of(tmp_path, [talk, raw, talk, raw], [[0, 1, 2, 3], [1, 0, 3, 2]], variant="four-hand"))
    assert all(record["violations"] == [] and "forfeit" not in record for record in records)
    reports = [json.loads(p.read_text()) for p in out.glob("*.json")]
    assert len(reports) >= 2  # both partners tried, in each game
    for report in reports:
        assert report["learned"] == []
        assert report["errors"] == ["ENOLCK"]  # the record locks, F_GETLK and flock alike


# ---- 5: taking another bot's seat ----


@isolated
@pytest.mark.timeout(90)
def test_an_intruder_cannot_reach_another_bots_endpoint(tmp_path: Path) -> None:
    hostile = [sys.executable, str(BOTS / "hostile.py")]
    bots = [BotEntry(name="intruder", argv=[*hostile, "intruder"]), BotEntry(name="raw", argv=RAW)]
    spec = spec_of(tmp_path, bots, [[0, 1], [1, 0]])
    records = run_match(spec)
    for record in records:
        assert record["violations"] == [] and "forfeit" not in record


# ---- 6: a signalled referee leaves nothing running ----


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=["TERM", "INT", "HUP"])
@pytest.mark.timeout(60)
def test_a_signalled_referee_ends_every_process_of_the_match(tmp_path: Path, signum: int) -> None:
    out = tmp_path / "out"
    bots = [adversary("spawner", "spawn-and-wait", "--out", out, "--think", "0.5"), BotEntry(name="raw", argv=RAW)]
    spec = spec_of(tmp_path, bots, [[0, 1]] * 20)
    referee = subprocess.Popen(
        [sys.executable, "-m", "arena.play.referee"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, cwd=tmp_path
    )
    assert referee.stdin is not None
    referee.stdin.write(json.dumps(spec.to_json()).encode())
    referee.stdin.close()
    deadline = time.monotonic() + 20
    while len(started(out)) < 2 and time.monotonic() < deadline:  # the bot and its child that ignores signals
        time.sleep(0.05)
    processes = started(out)
    assert len(processes) == 2 and len(still_running(processes)) == 2
    referee.send_signal(signum)
    referee.wait(timeout=15)
    deadline = time.monotonic() + 5
    while still_running(processes) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert still_running(processes) == []


# ---- 7: escape codes meant for the user's terminal ----


@pytest.mark.timeout(60)
def test_escape_codes_from_a_bot_never_reach_the_terminal(tmp_path: Path) -> None:
    records = tmp_path / "games.jsonl"
    runner = CliRunner()
    args = ["match", str(BOTS / "adversary.py"), "random", "--variant", "two-hand", "--games", "2", "--seed", "3"]
    shutil.copy(BOTS / "adversary.py", tmp_path / "escapes.py")
    shutil.copy(BOTS / "adversary.py", tmp_path / "escape-name.py")
    for bot in ("escapes.py", "escape-name.py"):
        args[1] = str(tmp_path / bot)
        played = runner.invoke(main, [*args, "--record", str(records), "--log-dir", str(tmp_path / "logs")])
        assert played.exit_code == 0, played.output
        assert ESC not in played.output
    lines = records.read_text().splitlines()
    excerpt = json.loads(lines[0])["violations"][0]["excerpt"]  # the escapes bot's first game
    assert ESC not in excerpt and "\\x1b]0;pwned" in excerpt  # spelled out, not dropped: the user sees what came
    replay = runner.invoke(main, ["replay", str(records)])
    assert replay.exit_code == 0 and ESC not in replay.output and "\u202e" not in replay.output
    assert "pwned" in replay.output
    hellos = [entry["hello"] for r in map(json.loads, lines) for entry in r["bots"]]
    assert any(h and "\\x1b" in h for h in hellos) and not any(h and ESC in h for h in hellos)


# ---- 8: the disk ----


@isolated
@pytest.mark.timeout(90)
def test_a_bot_cannot_fill_the_hosts_disk_and_leaves_nothing_behind(tmp_path: Path) -> None:
    out = tmp_path / "out"
    before = {folder: set(os.listdir(folder)) for folder in ("/tmp", "/dev/shm")}
    bots = [adversary("hog", "disk-hog", "--out", out), BotEntry(name="raw", argv=RAW)]
    spec = spec_of(tmp_path, bots, [[0, 1]])
    (record,) = run_match(spec)
    assert record["violations"] == []
    (report,) = [json.loads(p.read_text()) for p in out.glob("*.json")]
    written = sum(report["written"].values())
    assert written <= spec.limits.disk_mb * 1024 * 1024  # /tmp, /dev/shm and home share one small private tmpfs
    assert report["files"] < 20_000
    for folder, names in before.items():
        assert not {n for n in set(os.listdir(folder)) - names if n.startswith(("hog-", "many-"))}


# ---- 9: the small ones ----


@pytest.mark.timeout(60)
def test_duplicate_keys_in_an_answer_are_malformed_not_the_last_one_wins(tmp_path: Path) -> None:
    bots = [BotEntry(name="raw", argv=RAW), adversary("dup", "dup-keys")]
    (record,) = run_match(spec_of(tmp_path, bots, [[0, 1]]))
    assert record["forfeit"]["seat"] == 1 and record["forfeit"]["kind"] == "malformed"
    assert "twice" in record["forfeit"]["detail"]


@pytest.mark.timeout(60)
def test_a_second_hello_straight_after_the_first_is_a_strike(tmp_path: Path) -> None:
    bots = [BotEntry(name="raw", argv=RAW), adversary("twice", "double-hello")]
    (record,) = run_match(spec_of(tmp_path, bots, [[0, 1]]))
    # unsolicited when it came before the bot's first request (play/test_referee_fuzz.py pins that down); out_of_turn
    # in the rare case that the bot was held between its two sends until it was asked (protocol.md §9): a strike
    # either way
    assert violations_of(record, 1) in (["unsolicited"], ["out_of_turn"]) and record["forfeit"]["seat"] == 1
    assert record["bots"][1]["strikes"] == 1


@pytest.mark.timeout(60)
def test_a_violations_detail_and_excerpt_are_capped(tmp_path: Path) -> None:
    bots = [BotEntry(name="raw", argv=RAW), adversary("long", "long-id")]
    (record,) = run_match(spec_of(tmp_path, bots, [[0, 1]]))
    (violation,) = record["violations"]
    assert violation["kind"] == "out_of_turn"
    assert len(violation["detail"]) <= 300 and len(violation["excerpt"]) <= 200


@pytest.mark.timeout(60)
def test_strangers_bytes_are_not_the_seats_traffic(tmp_path: Path) -> None:
    """The same deal with and without a stranger speaking on a bot's endpoint: the bytes received from each seat
    are the same (what the referee sent differs only in the clock's digits)."""
    import zmq

    bots = [BotEntry(name="raw0", argv=RAW), BotEntry(name="raw1", argv=RAW)]
    (baseline,) = run_match(spec_of(tmp_path / "a", bots, [[0, 1]]))
    from arena.play.referee import Referee
    from arena.play.runner import play

    with contextlib.closing(Referee(spec_of(tmp_path / "b", bots, [[0, 1]]))) as referee:
        assert referee.start() == []
        context = zmq.Context()
        strangers = [context.socket(zmq.DEALER) for _ in referee.endpoints]
        for socket, endpoint in zip(strangers, referee.endpoints, strict=True):
            socket.setsockopt(zmq.LINGER, 0)
            socket.connect(endpoint.address)
            for _ in range(20):
                socket.send(b"x" * 1000)
        time.sleep(0.2)
        referee.begin_game([0, 1])
        from arena.engine.game import Game

        outcome = play(Game(referee.rules, 0, ["raw0", "raw1"]), referee, game_index=0, time_control=None)
        before = [(e.bytes_out, e.bytes_in) for e in referee.endpoints]
        for socket in strangers:
            socket.close()
        context.term()
    assert outcome.record["violations"] == []
    assert [b[1] for b in before] == [b[1] for b in baseline["timing"]["bytes"]]


@pytest.mark.timeout(60)
def test_record_files_and_result_databases_are_private_to_their_owner(tmp_path: Path) -> None:
    records = tmp_path / "games.jsonl"
    old = os.umask(0o022)
    try:
        result = CliRunner().invoke(
            main,
            [
                "match",
                "random",
                "random",
                "--variant",
                "two-hand",
                "--games",
                "1",
                "--record",
                str(records),
                "--log-dir",
                str(tmp_path / "logs"),
            ],
        )
        from arena.tournament.store import Store

        with Store.open(tmp_path / "results.db"):
            pass
    finally:
        os.umask(old)
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(records.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "results.db").stat().st_mode) == 0o600


# ---- the tournament holds: a flooding entrant, a stalled match ----


@pytest.mark.timeout(120)
def test_a_bot_that_connects_without_end_is_a_flood_and_cannot_take_the_referees_last_descriptor(
    tmp_path: Path,
) -> None:
    """Each connection to a bot's endpoint is a descriptor of the referee's, and libzmq aborts the whole process
    when an accept finds none left: a bot that forked and connected without end (64 processes of 253 connections
    at the default limits) ended its match with 'Too many open files (src/ipc_listener.cpp)', under a referee
    limited to 8,192. The referee fits its bots' descriptors to what it may hold, and each connection can hold an
    unfinished frame in its memory (an outside check's 64 held 2.1 GB): past a few connections, a flood."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 8192:
        pytest.skip(f"this process may open only {hard} descriptors")
    flooder = tmp_path / "conn-flood.py"  # the mode is the script's name
    shutil.copyfile(BOTS / "adversary.py", flooder)
    logs, record = tmp_path / "logs", tmp_path / "games.jsonl"
    command = [sys.executable, "-m", "arena", "match", str(flooder), "random", "--variant", "two-hand", "--games", "2"]
    done = subprocess.run(
        [*command, "--log-dir", str(logs), "--record", str(record)],
        capture_output=True,
        text=True,
        timeout=100,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (8192, 8192)),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    games = [json.loads(line) for line in record.read_text().splitlines()]
    assert len(games) == 2  # both played
    for game in games:
        flooder_seat = game["players"].index("conn-flood")
        assert game["forfeit"]["seat"] == flooder_seat and game["forfeit"]["kind"] == "flood", game["forfeit"]
        # before: no violation at all, the connections held until the match ended
        assert re.fullmatch(r"\d+ connections open on its endpoint \(limit 16\)", game["forfeit"]["detail"])
        assert [v for v in game["violations"] if v["seat"] != flooder_seat] == []


@pytest.mark.timeout(60)
def test_a_connection_bomb_in_a_long_handshake_neither_hangs_nor_stalls_the_referee(tmp_path: Path) -> None:
    """libzmq sends a socket's monitor events blocking: past ~2,000 unread ones (a bomb's connections, while the
    referee waited for a slow hello) its I/O stopped for every endpoint, and stopping the flooder hung the referee
    for ever (a review's: conn-flood against a bot that says hello after a second)."""
    flooder = tmp_path / "conn-flood.py"  # the mode is the script's name
    shutil.copyfile(BOTS / "adversary.py", flooder)
    bots = [BotEntry(name="flooder", argv=[sys.executable, str(flooder)]), adversary("slow", "slow-hello")]
    (record,) = run_match(spec_of(tmp_path, bots, [[0, 1]]))  # before: never returned
    assert record["forfeit"]["seat"] == 0 and record["forfeit"]["kind"] == "flood"
    assert violations_of(record, 1) == []


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_a_tournament_with_a_flooding_entrant_stores_every_game(tmp_path: Path) -> None:
    flooder = tmp_path / "stranger-flood.py"  # adversary.py takes its mode from its name
    shutil.copy(BOTS / "adversary.py", flooder)
    config = write_config(
        tmp_path / "flooded.toml", name="flooded", entrants=["random", BOTS / "raw_random.py", flooder],
        games_per_pairing=2, games_per_match=2, time="30+1", seed=5, jobs=2, rating={"bootstrap": 50},
    )  # fmt: skip
    arena = [sys.executable, "-m", "arena", "tournament", "run", str(config), "--quiet", "--format", "json"]
    result = subprocess.run(arena, capture_output=True, text=True, timeout=200, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    from arena.tournament.store import Store

    with Store.open(tmp_path / "flooded.db", create=False) as store:
        records = [record for _, _, record in store.records()]
    assert len(records) == 3 * 2 * 2  # three pairings, two deals, both seatings
    floods = 0
    for record in records:
        # Whatever the flooder is charged is its own doing (a flood, and on a loaded host also an `unsolicited` or a
        # `timeout`, its children taking its processor): no one else is charged, and no one else forfeits.
        charged = {record["players"][v["seat"]] for v in record["violations"]}
        assert charged <= {"stranger-flood"}, record["violations"]
        if "forfeit" in record:
            assert record["players"][record["forfeit"]["seat"]] == "stranger-flood"
        floods += any(v["kind"] == "flood" for v in record["violations"])
    assert floods >= 1  # its children flood from its welcome on: the referee met the flood (8 of 8 games here)


@pytest.mark.slow  # waits for the watchdog
@pytest.mark.timeout(90)
def test_the_watchdog_ends_a_match_that_stops_making_progress_and_keeps_its_games(tmp_path: Path) -> None:
    from arena.tournament.executor import LocalExecutor

    out = tmp_path / "out"
    hung = BotEntry(
        name="hung", argv=[sys.executable, str(BOTS / "hostile.py"), "timeout", "--game", "1", "--pid-dir", str(out)]
    )
    bots = [BotEntry(name="raw", argv=RAW), hung]
    # an hour a decision: only the watchdog can end game 1
    spec = spec_of(tmp_path, bots, [[0, 1], [1, 0], [0, 1]], time="3600+0", max_decision=3600)
    games: list[dict[str, Any]] = []
    started_at = time.monotonic()
    error = LocalExecutor(stall_timeout=4).run(spec, games.append)
    assert time.monotonic() - started_at < 40
    assert error is not None and "no game finished for 4 s" in error and "1 of its 3 games" in error
    assert [g["game_index"] for g in games] == [0]
    processes = started(out)
    deadline = time.monotonic() + 5
    while still_running(processes) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes and still_running(processes) == []


# ---- a host that cannot keep bots apart ----


@pytest.mark.timeout(60)
def test_where_bots_cannot_be_kept_apart_a_match_is_refused_in_one_line_unless_declared_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not root and no user namespaces (or macOS): one bot could reach another's endpoint. Refused, with what to do;
    bots declared trusted still play."""
    from arena.play import sandbox

    bare = sandbox.Capabilities(root=False, mount=False, hidepid=False, network=False, ipc=False)
    monkeypatch.setattr(sandbox, "capabilities", lambda: bare)
    bots = [BotEntry(name="raw0", argv=RAW), BotEntry(name="raw1", argv=RAW)]
    with pytest.raises(sandbox.SandboxError, match="cannot keep bots apart") as refused:
        run_match(spec_of(tmp_path / "a", bots, [[0, 1]]))
    assert "--trusted-bots" in str(refused.value) and "\n" not in str(refused.value)
    (record,) = run_match(spec_of(tmp_path / "b", bots, [[0, 1]], trusted_bots=True))
    assert record["violations"] == [] and "forfeit" not in record


@pytest.mark.timeout(60)
def test_where_the_seccomp_filter_cannot_be_installed_a_match_is_refused_unless_declared_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Root with every namespace, but no seccomp filter (another machine, an old kernel): two bots could spell their
    cards in file locks. Refused in one line naming the reason; `arena doctor` says it too; trusted bots play."""
    from arena.play import sandbox

    unfiltered = sandbox.Capabilities(
        root=True, mount=True, hidepid=True, network=True, ipc=True, pid=True, filtered=False
    )
    monkeypatch.setattr(sandbox, "capabilities", lambda: unfiltered)
    bots = [BotEntry(name="raw0", argv=RAW), BotEntry(name="raw1", argv=RAW)]
    with pytest.raises(sandbox.SandboxError, match="locks") as refused:
        run_match(spec_of(tmp_path / "a", bots, [[0, 1]]))
    assert "--trusted-bots" in str(refused.value) and "\n" not in str(refused.value)
    said = [line for line in unfiltered.describe() if "seccomp" in line]
    assert len(said) == 1 and "NO:" in said[0]
    if sys.platform == "linux" and os.uname().machine in ("x86_64", "aarch64"):  # the machines the filter knows
        assert [line for line in CAPS.describe() if "seccomp" in line] == [
            "no file locks, keyrings, file watches or new sessions (seccomp filter): yes"
        ]
