"""Bots in other languages, over the stdio transport: the bundled Node and Java examples in real matches of every
variant, memory by cgroup (a JVM and Node holding 300 MiB play; past the limit a bot gets ``memory``), the stdio
transport's own violations, and a runtime installed outside the system directories.

Node and a JDK are on the machines this project runs on; a test that needs one skips, saying so, where it is absent.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import subprocess
import sys
import threading
import zipfile
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT
from sandboxing import match_in

from arena.play import cgroups
from arena.play.botproc import resolve_bot
from arena.play.cpus import idlest
from arena.play.matchspec import BotEntry, GameSpec, MatchSpec
from arena.play.referee import Referee, VariantRefused, run_match
from arena.play.runtimes import BotCompileError

TEST_BOTS = ROOT / "tests" / "bots"
NODE_BOT = ROOT / "bots" / "node" / "euchre_bot.js"
JAVA_BOT = ROOT / "bots" / "java" / "EuchreBot.java"
NODE, JAVA, JAVAC = shutil.which("node"), shutil.which("java"), shutil.which("javac")
needs_node = pytest.mark.skipif(NODE is None, reason="no node on PATH: Node bots cannot run here")
needs_java = pytest.mark.skipif(
    JAVA is None or JAVAC is None, reason="no java/javac on PATH: Java bots cannot run here"
)
needs_cgroups = pytest.mark.skipif(
    not cgroups.detect().available, reason=f"no memory limit by cgroup here ({cgroups.detect().explanation})"
)
VARIANTS: list[Any] = [
    pytest.param("two-hand", {}, id="two-hand"),
    pytest.param("three-hand", {}, id="three-hand"),
    pytest.param("four-hand", {}, id="four-hand"),
    pytest.param("four-hand", {"going_alone": True, "defend_alone": True}, id="four-hand-alone"),
    pytest.param("four-hand-32", {}, id="four-hand-32"),
    pytest.param("british", {}, id="benny"),
    pytest.param("four-hand", {"stick_the_dealer": True, "dealer_exchange": "mandatory"}, id="stick-the-dealer"),
    pytest.param("two-hand", {"rubber": True, "points_to_win": 5}, id="rubber"),
]


def entry(spec: str, name: str, *args: str) -> BotEntry:
    command = resolve_bot(spec)
    return BotEntry(name=name, argv=[*command.argv, *args], transport=command.transport)


# The JVM's optimising compiler (C2) takes most of a short-lived bot's processor time, in threads of its own; the
# bots here live for a game or two, which they play move for move the same with the quick compiler (C1) alone, in
# half the processor time.
QUICK_JIT = "-XX:TieredStopAtLevel=1"


def java_entry(jar: Path, name: str, *args: str) -> BotEntry:
    """``stdio:JAR`` as the arena resolves it (``java ... -jar JAR``), the JVM told to use its quick compiler only."""
    bot = entry(f"stdio:{jar}", name, *args)
    assert Path(bot.argv[0]).name == "java" and "-jar" in bot.argv, bot.argv
    return BotEntry(name=name, argv=[bot.argv[0], QUICK_JIT, *bot.argv[1:]], transport=bot.transport)


def match(tmp_path: Path, bots: list[BotEntry], variant: str, games: int, **settings: Any) -> MatchSpec:
    n = {"two-hand": 2, "three-hand": 3}.get(variant, 4)
    seatings = [[(seat - k) % n for seat in range(n)] for k in range(n)]
    """``games`` games, each deal in every rotation of the seats."""
    schedule = [GameSpec(seed=g // n, seating=seatings[g % n]) for g in range(games)]
    return match_in(tmp_path, bots, schedule, variant, **settings)


@pytest.fixture(scope="module")
def java_jar(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The Java example and the Java memory hog, compiled once (one ``javac`` for both) into runnable jars
    (``java File.java`` works too, but compiles at every start).

    A jar is a zip file with a manifest naming its main class: written here, not by the JDK's ``jar`` tool, a JVM of
    its own at each call (~0.18 processor seconds each)."""
    if JAVA is None or JAVAC is None:
        pytest.skip("no java/javac on PATH")
    folder = tmp_path_factory.mktemp("java")
    classes = folder / "classes"
    compile_both = [JAVAC, f"-J{QUICK_JIT}", "-d", str(classes), str(JAVA_BOT), str(TEST_BOTS / "Hog.java")]
    subprocess.run(compile_both, check=True, capture_output=True, timeout=120)
    jars = {}
    for main in ("EuchreBot", "Hog"):
        jar = folder / f"{main}.jar"
        with zipfile.ZipFile(jar, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("META-INF/MANIFEST.MF", f"Manifest-Version: 1.0\r\nMain-Class: {main}\r\n\r\n")
            for compiled in sorted(classes.rglob("*.class")):
                archive.write(compiled, compiled.relative_to(classes).as_posix())
        jars[main] = jar
    return jars


@needs_node
@needs_java
@pytest.mark.slow  # make check keeps one Node and Java game: the README test
@pytest.mark.parametrize(("variant", "options"), VARIANTS)
@pytest.mark.timeout(180)
def test_the_node_and_java_examples_play_every_variant_without_a_violation(
    tmp_path: Path, java_jar: dict[str, Path], variant: str, options: dict[str, Any]
) -> None:
    node, java = entry(f"stdio:{NODE_BOT}", "node"), java_entry(java_jar["EuchreBot"], "java")
    if variant == "three-hand":
        bots = [node, java, entry("heuristic", "heuristic")]
    elif variant == "two-hand":
        bots = [node, java]
    else:
        bots = [node, java, dataclasses.replace(node, name="node"), dataclasses.replace(java, name="java")]
    records = run_match(match(tmp_path, bots, variant, len(bots), options=options))
    assert len(records) == len(bots)
    for record in records:
        assert record["violations"] == [] and "forfeit" not in record
        assert record["hands"]
        assert {entry["hello"] for entry in record["bots"]} >= {"node-example", "java-example"}


@needs_node
@needs_java
@pytest.mark.timeout(120)
def test_the_node_and_java_examples_say_they_do_not_play_railroad_and_the_match_is_refused(
    tmp_path: Path, java_jar: dict[str, Path]
) -> None:
    node, java = entry(f"stdio:{NODE_BOT}", "node"), java_entry(java_jar["EuchreBot"], "java")
    bots = [entry("heuristic", "heuristic"), node, entry("random", "random"), java]
    played: list[object] = []
    with pytest.raises(VariantRefused) as refused:
        run_match(match(tmp_path, bots, "railroad", 4), played.append)
    assert played == []  # before any game
    message = str(refused.value)
    for name in ("node", "java"):
        assert f"bot {name!r} does not play 'railroad': its hello lists two-hand, three-hand" in message
    assert "heuristic" not in message and "random" not in message


OUTSIDE_BOT = TEST_BOTS / "outside_bot.js"  # written from the documents alone (issue 43's outside check)


@needs_node
@pytest.mark.parametrize(
    ("variant", "options"),
    [
        ("railroad", {"best_order": "receive_first", "points_to_win": 5}),
        ("hasenpfeffer-single", {"defenders_score_tricks": True, "points_to_win": 5}),
    ],
)
@pytest.mark.timeout(120)
def test_a_bot_written_from_the_documents_plays_the_new_games_and_tracks_its_hand(
    tmp_path: Path, variant: str, options: dict[str, Any]
) -> None:
    """The outside check's bot, beside heuristic, keeps its hand from the events alone and finds it equal to the
    view at every request; no violation. A change of the wire that protocol.md does not follow breaks it."""
    outside = [entry(f"stdio:{OUTSIDE_BOT}", f"outside-{k}", "--track", "--bold") for k in "ab"]
    bots = [outside[0], entry("heuristic", "heuristic-a"), outside[1], entry("heuristic", "heuristic-b")]
    spec = match(tmp_path, bots, variant, 16, options=options)
    records = run_match(spec)
    assert [v for record in records for v in record["violations"]] == []
    # a card told to some seats only, which tracking a hand from events must follow: received on a call for best, or
    # the widow taken by a declarer, at one of the outside bot's seats
    told = [
        record["players"][(a["seat"] + 2) % 4 if a["type"] == "give_best" else a["seat"]]
        for record in records
        for hand in record["hands"]
        for a in hand["actions"]
        if a["type"] in ("give_best", "declare")
    ]
    assert any(name.startswith("outside") for name in told), told
    for name in ("outside-a", "outside-b"):
        log = next((tmp_path / "logs").glob(f"*-{name}.log")).read_text()
        assert "TRACK" not in log and '"trackChecks":0' not in log and '"trackMismatches":0' in log, log[-2000:]


@needs_node
@needs_java
@pytest.mark.slow
@pytest.mark.timeout(180)
def test_the_node_and_java_examples_beat_random(tmp_path: Path, java_jar: dict[str, Path]) -> None:
    """Each against the bundled random bot, on the same twelve two-hand deals from both seats (24 games)."""
    for example in (entry(f"stdio:{NODE_BOT}", "example"), java_entry(java_jar["EuchreBot"], "example")):
        bots = [example, entry("random", "random")]
        records = run_match(match(tmp_path / example.argv[-1][-4:], bots, "two-hand", 24))
        wins = sum(record["players"][record["winners"][0]] == "example" for record in records)
        assert all(record["violations"] == [] for record in records)
        assert wins >= 18, f"{example.argv[-1]}: {wins} of 24"


@needs_node
@pytest.mark.timeout(120)
def test_a_node_bot_by_source_and_a_java_bot_by_source_file_run_as_the_readme_says(tmp_path: Path) -> None:
    """``node FILE.js``, and a ``.java`` as a user gives it: compiled once when it is resolved (outside any clock,
    into the arena's cache), its processes started from the jar within the default handshake."""
    bots = [entry(f"stdio:{NODE_BOT}", "node")]
    if JAVA and JAVAC:
        command = resolve_bot(f"stdio:{JAVA_BOT}")
        assert command.program == str(JAVA_BOT) and command.argv[-2:-1] == ("-jar",), command.argv
        assert resolve_bot(f"stdio:{JAVA_BOT}").argv == command.argv  # compiled once: the same jar
        bots.append(java_entry(Path(command.argv[-1]), "java"))
    else:
        bots.append(entry("random", "random"))
    (record,) = run_match(match(tmp_path, bots, "two-hand", 1))
    assert record["violations"] == [] and "forfeit" not in record


# ---- memory: a cgroup per bot process tree ----


@needs_node
@pytest.mark.timeout(120)
def test_a_node_bot_holding_300_mib_plays_under_the_default_limits(tmp_path: Path) -> None:
    bots = [entry(f"stdio:{TEST_BOTS / 'hog.js'}", "hog", "300"), entry("random", "random")]
    records = run_match(match(tmp_path, bots, "two-hand", 2))
    assert all(record["violations"] == [] and "forfeit" not in record for record in records)


@needs_java
@pytest.mark.timeout(120)
def test_a_java_bot_holding_300_mib_plays_under_the_default_limits(tmp_path: Path, java_jar: dict[str, Path]) -> None:
    bots = [java_entry(java_jar["Hog"], "hog", "300"), entry("random", "random")]
    records = run_match(match(tmp_path, bots, "two-hand", 2))
    assert all(record["violations"] == [] and "forfeit" not in record for record in records)


@needs_cgroups
@needs_node
@needs_java
@pytest.mark.slow
@pytest.mark.timeout(180)
def test_a_bot_past_its_memory_limit_gets_the_memory_violation_and_the_match_goes_on(
    tmp_path: Path, java_jar: dict[str, Path]
) -> None:
    # The JVM's heap is sized from the limit (its own OutOfMemoryError would end it first): the hog's flag lets it
    # grow past the limit, as a bot's author may.
    java_hog = dataclasses.replace(java_entry(java_jar["Hog"], "hog", "0", "grow"), runtime_flags=["-Xmx1g"])
    for hog in (entry(f"stdio:{TEST_BOTS / 'hog.js'}", "hog", "0", "grow"), java_hog):
        bots = [hog, entry("random", "random")]
        # A generous clock: each decision allocates and touches 32 MiB more, which a loaded host slowed past the
        # default allowance (a `timeout` before the limit was reached, beside the suite's other work).
        folder = tmp_path / hog.argv[0].rsplit("/", 1)[-1]
        spec = match(folder, bots, "two-hand", 2, time="60+1", max_decision=30.0)
        spec = spec.replace(limits=spec.limits.replace(memory_mb=256))
        records = run_match(spec)
        assert len(records) == 2  # the match went on: the hog restarted for the second game
        for record in records:
            hog_seat = record["players"].index("hog")
            assert record["forfeit"]["seat"] == hog_seat and record["forfeit"]["kind"] == "memory"
            assert "memory limit (256 MiB)" in record["forfeit"]["detail"]


# ---- the stdio transport's own violations ----

STDIO = [sys.executable, str(TEST_BOTS / "stdio_bot.py")]


def stdio_bot(name: str, *args: str | Path) -> BotEntry:
    return BotEntry(name=name, argv=[*STDIO, *map(str, args)], transport="stdio")


@pytest.mark.parametrize(
    ("mode", "kind", "settings"),
    [
        ("junk", "malformed", {}),
        ("long-line", "oversized", {}),
        pytest.param("deaf", "timeout", {"time": "1+0", "max_decision": 1.0}, marks=pytest.mark.slow),  # waits 1 s
    ],
)
@pytest.mark.timeout(60)
def test_a_stdio_bot_that_breaks_the_line_protocol_gets_its_violation(
    tmp_path: Path, mode: str, kind: str, settings: dict[str, Any]
) -> None:
    bots = [stdio_bot("polite", "polite"), stdio_bot("rude", mode)]
    first, second = run_match(match(tmp_path, bots, "two-hand", 2, **settings))
    assert first["forfeit"]["kind"] == kind and first["players"][first["forfeit"]["seat"]] == "rude"
    assert {first["players"][v["seat"]] for v in first["violations"]} == {"rude"}
    assert all(second["players"][v["seat"]] == "rude" for v in second["violations"])


@pytest.mark.parametrize("policy", ["forfeit", "substitute"])
@pytest.mark.timeout(60)
def test_a_bot_out_of_strikes_reads_its_last_notice_and_match_end_before_it_is_killed(
    tmp_path: Path, policy: str
) -> None:
    """protocol.md §11: at ``max_strikes`` the bot gets the ``violation`` notice, then ``match_end`` with reason
    "out of strikes", and only then is killed; killed at once, it would not read them."""
    told = tmp_path / "out" / "told"
    bots = [stdio_bot("polite", "polite"), stdio_bot("rude", "always-junk", "--out", told)]
    records = run_match(match(tmp_path, bots, "two-hand", 4, policy=policy, max_strikes=2, time="60+1"))
    kinds = [v["kind"] for r in records for v in r["violations"] if r["players"][v["seat"]] == "rude"]
    assert kinds[:2] == ["malformed", "malformed"] and set(kinds[2:]) <= {"disqualified"}
    assert told.read_text().splitlines() == ["violation 1", "violation 2", "match_end out of strikes"]


@pytest.mark.timeout(60)
def test_an_over_long_line_is_one_violation_and_its_tail_is_skipped(tmp_path: Path) -> None:
    """A 2 MiB line is cut at 1 MiB (``oversized``) and the rest of it, up to its newline, is skipped: not read as
    further lines, which would be more violations and strikes. The game goes on (substitute) and the bot plays on."""
    bots = [stdio_bot("polite", "polite"), stdio_bot("rude", "long-line-alone")]
    records = run_match(match(tmp_path, bots, "two-hand", 2, policy="substitute"))
    kinds = [(r["players"][v["seat"]], v["kind"]) for r in records for v in r["violations"]]
    assert kinds == [("rude", "oversized")]  # at its third decision of the match
    assert all("forfeit" not in r and r["winners"] for r in records)


@pytest.mark.parametrize("mode", ["dies-mid-line", "dies-mid-short-line"])
@pytest.mark.timeout(60)
def test_a_bot_restarted_after_dying_mid_line_is_heard_from_its_hello(tmp_path: Path, mode: str) -> None:
    """A bot that dies in the middle of a line (past the 1 MiB cut, whose tail is being skipped, or before it) is
    replaced (substitute): the replacement's hello is its first line, neither skipped as the old line's tail nor
    joined to the old line's start. Its strikes: the cut line's ``oversized`` (if cut) and the ``crash``, no
    ``handshake``."""
    bots = [stdio_bot("crashy", mode, "--once", tmp_path / "out" / "marker"), stdio_bot("polite", "polite")]
    (record,) = run_match(match(tmp_path, bots, "two-hand", 1, policy="substitute"))
    expected = ["oversized", "crash"] if mode == "dies-mid-line" else ["crash"]
    assert [v["kind"] for v in record["violations"]] == expected
    assert {v["seat"] for v in record["violations"]} == {record["players"].index("crashy")}
    assert "forfeit" not in record and record["winners"]


@pytest.mark.timeout(60)
def test_after_a_restart_the_first_request_carries_the_view_even_for_a_viewless_bot(tmp_path: Path) -> None:
    """protocol.md §2: under ``substitute`` a bot that crashed mid-hand is replaced at its next request, and that
    request carries the view although its hello said ``"view": false``."""
    out = tmp_path / "out"
    seen = out / "seen"
    bots = [stdio_bot("crashy", "viewless", "--once", out / "marker", "--out", seen), stdio_bot("polite", "polite")]
    spec = match(tmp_path, bots, "two-hand", 1, policy="substitute")
    (record,) = run_match(spec)
    assert [v["kind"] for v in record["violations"]] == ["crash"]
    lines = seen.read_text().split("\n")
    restart = lines.index("5 True" if "5 True" in lines else "5 False") + 1
    assert lines[restart] == "1 True"  # the replacement's first request
    assert "1 False" not in lines[restart:]


# ---- a runtime installed where the sandbox does not look ----


@needs_node
@pytest.mark.timeout(60)
def test_a_bot_whose_interpreter_lives_outside_the_system_directories_runs(tmp_path: Path) -> None:
    """A shebang into a private runtime (as nvm or sdkman install them): its installation is shown read-only."""
    assert NODE is not None
    runtime = tmp_path / "runtime" / "bin"
    runtime.mkdir(parents=True)
    shutil.copy(Path(NODE).resolve(), runtime / "node")
    bot = tmp_path / "bots" / "mine.js"
    bot.parent.mkdir()
    bot.write_text(f"#!{runtime / 'node'}\n" + NODE_BOT.read_text().split("\n", 1)[1])
    bot.chmod(0o755)
    for path in (tmp_path, tmp_path / "runtime", runtime, runtime / "node", bot.parent):
        path.chmod(0o755)
    bots = [BotEntry(name="mine", argv=[str(bot)], transport="stdio"), entry("random", "random")]
    (record,) = run_match(match(tmp_path, bots, "two-hand", 1))
    assert record["violations"] == [] and "forfeit" not in record


# ---- what a runtime sees of its limits, and the flags a bot's author gives it ----

SIZES_JAVA, SIZES_JS = TEST_BOTS / "Sizes.java", TEST_BOTS / "sizes.js"


def seen(record: dict[str, Any], name: str) -> dict[str, str]:
    """What bot ``name`` said in its hello's name (``heap=... cpus=...``), as a dict."""
    (hello,) = {bot["hello"] for bot in record["bots"] if bot["name"] == name}
    return dict(word.split("=", 1) for word in hello.split())


def sizes_entry(path: Path, name: str, *, args: tuple[str, ...] = (), flags: tuple[str, ...] = ()) -> BotEntry:
    return resolve_bot(f"stdio:{path}").given(args=args, runtime_flags=flags).entry(name)


@needs_java
@needs_node
@pytest.mark.timeout(180)
@pytest.mark.parametrize("memory_mb", [384, 1024])
def test_a_jvm_and_node_see_their_memory_limit_and_their_match_s_one_core_from_their_start(
    tmp_path: Path, memory_mb: int
) -> None:
    """The sandbox shows no cgroup filesystem, and a runtime counts its processors once as it starts: the JVM's
    Runtime.maxMemory() and Node's heap limit come from the memory limit, and both count the one core their match is
    pinned to (before, a JVM sized its heap from the host's memory and counted 2 processors in 28 of 75 starts)."""
    core = [sorted(os.sched_getaffinity(0))[-1]]
    bots = [sizes_entry(SIZES_JAVA, "jvm"), sizes_entry(SIZES_JS, "node")]
    spec = match(tmp_path, bots, "two-hand", 1)
    spec = spec.replace(cpus=core, limits=spec.limits.replace(memory_mb=memory_mb))
    (record,) = run_match(spec)
    assert record["violations"] == [], record["violations"]
    jvm, node = seen(record, "jvm"), seen(record, "node")
    assert jvm["cpus"] == node["cpus"] == "1", (jvm, node)
    assert memory_mb // 2 <= int(jvm["heap"]) <= memory_mb, jvm
    assert memory_mb // 2 <= int(node["heap"]) <= memory_mb, node


@needs_java
@needs_node
@pytest.mark.timeout(180)
def test_an_unpinned_runtime_counts_every_core_it_may_use_and_a_cpu_quota_caps_the_count(tmp_path: Path) -> None:
    cores = len(os.sched_getaffinity(0))
    for quota, expected in ((None, cores), (1.0, 1)):
        bots = [sizes_entry(SIZES_JAVA, "jvm"), sizes_entry(SIZES_JS, "node")]
        spec = match(tmp_path / str(quota), bots, "two-hand", 1)
        (record,) = run_match(spec.replace(cpus=None, limits=spec.limits.replace(cpu_cores=quota)))
        assert seen(record, "jvm")["cpus"] == str(expected), record["bots"]
        assert quota is not None or seen(record, "node")["cpus"] == str(expected), record["bots"]


@needs_java
@needs_node
@pytest.mark.timeout(180)
def test_runtime_flags_and_arguments_given_to_an_entrant_reach_its_runtime_and_its_program(tmp_path: Path) -> None:
    """``runtime_flags`` go to the runtime (a JVM's system property, Node's --expose-gc), ``args`` to the program;
    a bot's own heap flag wins over the arena's (it comes after), and its processor count is kept."""
    flags = ("-Darena.flag=given", "-Xmx200m", "-XX:ActiveProcessorCount=7")
    bots = [
        sizes_entry(SIZES_JAVA, "jvm", args=("one", "two"), flags=flags),
        sizes_entry(SIZES_JS, "node", args=("one",), flags=("--expose-gc", "--max-old-space-size=100")),
    ]
    spec = match(tmp_path, bots, "two-hand", 1)
    (record,) = run_match(spec.replace(cpus=[sorted(os.sched_getaffinity(0))[0]]))
    jvm, node = seen(record, "jvm"), seen(record, "node")
    assert jvm["flag"] == "given" and jvm["args"] == "2" and jvm["cpus"] == "1", jvm
    assert 150 <= int(jvm["heap"]) <= 200, jvm
    assert node["gc"] == "function" and node["args"] == "1", node
    assert int(node["heap"]) < 200, node


@needs_java
def test_a_java_source_that_does_not_compile_is_an_error_naming_the_bot_and_quoting_javac(tmp_path: Path) -> None:
    source = tmp_path / "Broken.java"
    source.write_text('public class Broken {\n    int x = "not a number";\n}\n')
    with pytest.raises(BotCompileError) as raised:
        resolve_bot(f"stdio:{source}")
    message = str(raised.value)
    assert message.startswith(f"bot 'Broken' ({source}) does not compile:"), message
    assert "Broken.java:2: error: incompatible types" in message, message


def _shake_hands(spec: MatchSpec, failures: list[str]) -> None:
    """Start the match's bots and shake hands (no game), as a match does before its first; note every failure."""
    with contextlib.closing(Referee(spec)) as referee:
        failures += [f"{spec.match_id} bot {b}: {v.detail}" for b, v in referee.start()]


@needs_java
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_java_source_bot_says_hello_in_time_in_every_one_of_50_four_hand_matches_two_at_once(
    tmp_path: Path,
) -> None:
    """Two teams of copies of one ``.java`` bot in four-hand, two matches at once (as ``--jobs 2``), each pinned to a
    core of its own from its processes' start: each match's four JVMs say hello within the default handshake, 50
    matches of 50. (Before the source was compiled once, its JVMs compiled it at every start: 2 of 27 such matches
    lost game 0 to the handshake.)"""
    command = resolve_bot(f"stdio:{JAVA_BOT}")
    bots = [command.entry(f"java-{k}") for k in range(4)]
    cores = idlest(2)
    failures: list[str] = []
    for round_ in range(25):
        pair = [
            match(tmp_path / f"{round_}-{k}", bots, "four-hand", 0).replace(match_id=f"m{round_}-{k}", cpus=[core])
            for k, core in enumerate(cores or [None, None])
        ]
        threads = [threading.Thread(target=_shake_hands, args=(spec, failures)) for spec in pair]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert failures == []
