"""The fork server for Python bots (arena.play.forkserver): a forked bot is the process an exec'd one would be.

Real processes throughout: the server, its children, their pipes and exit statuses. The sandbox's confinement of
forked bots is checked by the hardening tests, which run their snooping bots both ways (tests/system/test_hardening.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

import pytest
from configs import match_spec

from arena.engine.game import Game
from arena.play import cgroups, forkserver
from arena.play.botproc import BotCommand, BotProcess, BotStartError, resolve_bot
from arena.play.linux import PPID, STATE, start_ticks, stat_fields
from arena.play.matchspec import BotEntry
from arena.play.referee import Referee
from arena.play.runner import play

pytestmark = pytest.mark.skipif(not forkserver.enabled(), reason="no fork server here (not Linux)")


@pytest.fixture
def started(tmp_path: Path) -> Iterator[list[BotProcess]]:
    """Bot processes a test starts (killed at its end)."""
    processes: list[BotProcess] = []
    yield processes
    for process in processes:
        process.kill()


def start(started: list[BotProcess], folder: Path, name: str, code: str, *args: str, stdio: bool = False) -> BotProcess:
    """A bot process running ``code`` as its script (unconfined: the server's mechanics, not the sandbox)."""
    script = folder / f"{name}.py"
    script.write_text(textwrap.dedent(code))
    command = BotCommand(name, (sys.executable, str(script), *args), "stdio" if stdio else "zmq")
    assert forkserver.eligible(command.argv)
    process = BotProcess(command, "ipc:///nonexistent/endpoint", folder / f"{name}.log")
    started.append(process)
    assert isinstance(process.process, forkserver.ForkedProcess)
    return process


def ended(process: BotProcess, folder: Path, name: str) -> str:
    """Wait for the bot to end; its log."""
    process.process.wait(timeout=30)
    process.kill()  # reaps and joins the log's copier
    return (folder / f"{name}.log").read_text()


SCAN = """
import re
found = set()
with open("/proc/self/maps") as maps, open("/proc/self/mem", "rb", buffering=0) as mem:
    for line in maps:
        span, perms = line.split()[:2]
        if "r" not in perms or line.rstrip().endswith(("[vvar]", "[vsyscall]")):
            continue
        start, end = (int(x, 16) for x in span.split("-"))
        try:
            mem.seek(start)
            found.update(re.findall(rb"[0-9a-f]{32}", mem.read(end - start)))
        except (OSError, ValueError, OverflowError):
            pass
print(len(found))
print(b" ".join(sorted(found)).decode())
"""  # a bot that lists the 32-digit hex strings (tokens) in its memory


def test_a_forked_bot_runs_its_script_as_main_with_its_own_argv_environment_and_descriptors(
    tmp_path: Path, started: list[BotProcess]
) -> None:
    bot = start(
        started,
        tmp_path,
        "probe",
        """
        import os, sys, json
        print(json.dumps({
            "name": __name__, "argv": sys.argv, "path0": sys.path[0], "env": dict(os.environ),
            "environ": open("/proc/self/environ", "rb").read().rstrip(b"\\0").decode().split("\\0"),
            "cmdline": open("/proc/self/cmdline", "rb").read().rstrip(b"\\0").decode().split("\\0"),
            "fds": sorted(int(fd) for fd in os.listdir("/proc/self/fd")), "sid": os.getsid(0) == os.getpid(),
        }))
        """,
        "--level",
        "3",
    )
    seen = json.loads(ended(bot, tmp_path, "probe"))
    assert seen["name"] == "__main__"
    assert seen["argv"] == [str(tmp_path / "probe.py"), "--level", "3"]
    assert seen["path0"] == str(tmp_path.resolve())
    assert seen["env"]["ARENA_TOKEN"] == bot.token and seen["env"]["ARENA_ENDPOINT"] == "ipc:///nonexistent/endpoint"
    assert forkserver.ROOM not in seen["env"]
    # what the kernel shows of it is its own environment too (tools and other processes read it there)
    assert sorted(seen["environ"]) == sorted(f"{k}={v}" for k, v in seen["env"].items())
    assert seen["cmdline"] == [sys.executable, str(tmp_path / "probe.py"), "--level", "3"]
    assert seen["fds"] == [0, 1, 2, 3]  # 3: the listing's own
    assert seen["sid"]  # a session of its own, as start_new_session gives


def test_a_bots_own_copy_of_a_module_the_server_imported_is_the_one_it_gets(
    tmp_path: Path, started: list[BotProcess]
) -> None:
    """As with ``python script.py``, the script's folder comes first: its ``orjson.py`` and its ``arena`` package
    shadow the server's (an author who vendors the SDK gets the copy they vendored)."""
    (tmp_path / "orjson.py").write_text("MINE = 'orjson of the bot'\n")
    (tmp_path / "arena").mkdir()
    (tmp_path / "arena" / "__init__.py").write_text("MINE = 'arena of the bot'\n")
    bot = start(
        started,
        tmp_path,
        "vendored",
        """
        import orjson, arena, zmq
        print(orjson.MINE, arena.MINE, hasattr(zmq, "Context"), sep=", ")
        """,
    )
    assert ended(bot, tmp_path, "vendored") == "orjson of the bot, arena of the bot, True\n"


def test_exit_codes_signals_and_tracebacks_reach_the_referee(tmp_path: Path, started: list[BotProcess]) -> None:
    three = start(started, tmp_path, "three", "import sys; sys.exit(3)")
    raises = start(started, tmp_path, "raises", "raise RuntimeError('boom')")
    killed = start(started, tmp_path, "killed", "import os, signal; os.kill(os.getpid(), signal.SIGTERM)")
    interrupted = start(started, tmp_path, "interrupted", "raise KeyboardInterrupt")
    sleeper = start(started, tmp_path, "sleeper", "import time; time.sleep(600)")
    assert ended(three, tmp_path, "three") == ""
    assert three.exit_description() == "exited with code 3"
    trace = ended(raises, tmp_path, "raises")
    assert trace.startswith("Traceback") and trace.rstrip().endswith("RuntimeError: boom")
    assert str(tmp_path / "raises.py") in trace and "runpy" not in trace and "forkserver" not in trace
    assert raises.exit_description() == "exited with code 1"
    ended(killed, tmp_path, "killed")
    assert killed.exit_description() == "killed by signal SIGTERM"
    assert "KeyboardInterrupt" in ended(interrupted, tmp_path, "interrupted")
    assert interrupted.exit_description() == "killed by signal SIGINT"  # as CPython ends on one
    assert sleeper.alive() and sleeper.process.poll() is None
    with pytest.raises(subprocess.TimeoutExpired):
        sleeper.process.wait(timeout=0.1)
    sleeper.kill()
    assert not sleeper.alive() and sleeper.exit_description() == "killed by signal SIGKILL"


ENDING = """
import atexit, sys, threading, time
late = open(sys.argv[1] + "/left-open.txt", "w")  # left open: the end of the program writes it
late.write("written, never flushed")
atexit.register(print, "atexit ran", file=sys.stderr)
threading.Thread(target=lambda: (time.sleep(0.2), print("thread done", file=sys.stderr))).start()
print("main done", file=sys.stderr)
"""

# Ways a program ends, each appended to ENDING (found by a review of the forked children's end, as different from
# ``python script.py``: each of these but the first differed).
ENDINGS = {
    "falls-off": "",
    "code-7": "sys.exit(7)",
    "code-minus-1": "sys.exit(-1)",
    "text": "sys.exit('a message')",
    "code-past-a-long": "sys.exit(2**64)",  # CPython: -1, so 255
    "int-subclass": "class Code(int):\n    def __and__(self, other): raise RuntimeError('not me')\nsys.exit(Code(3))",
    "gzip-and-zip-left-open": (  # their ends are written by close(), which the teardown of __main__ calls
        "import gzip, zipfile\n"
        "def helper(): pass  # a function keeps the script's globals alive past its end\n"
        "packed = gzip.GzipFile(sys.argv[1] + '/left-open.gz', 'wb', mtime=0); packed.write(b'x' * 600)\n"
        "archive = zipfile.ZipFile(sys.argv[1] + '/left-open.zip', 'w')\n"
        "archive.writestr(zipfile.ZipInfo('a', (2026, 12, 2, 0, 0, 0)), 'b' * 100)  # the same bytes at any time"
    ),
    "stdout-closed": "sys.stdout.close()",
    "stdout-broken": "import os\nr, w = os.pipe(); os.close(r)\nsys.stdout = open(w, 'w'); print('lost')",
    "stdout-broken-and-code-3": "import os\nr, w = os.pipe(); os.close(r)\nsys.stdout = open(w, 'w')\nsys.exit(3)",
    "no-stderr-and-text": (  # the thread has said its line first (a sleep of 0.3 s left it 0.1 s under load)
        "[t.join() for t in threading.enumerate() if t is not threading.main_thread()]\n"
        "sys.stderr = None\nsys.exit('said on descriptor 2')"
    ),
    "excepthook-raises": "def hook(*args): raise ZeroDivisionError('the hook broke')\nsys.excepthook = hook\n"
    "raise ValueError('the original')",
}  # not an uncaught KeyboardInterrupt: a forked bot dies by SIGINT at once, before its threads and atexit


@pytest.mark.parametrize("ending", ENDINGS)
def test_a_forked_bot_ends_as_the_same_script_run_by_python_does(
    tmp_path: Path, started: list[BotProcess], ending: str
) -> None:
    """Nothing a program sees of its end differs from ``python script.py`` (run here by exec, beside it, its output
    and errors into one pipe as a bot's log): what it says and in which order, threads waited for, atexit run,
    files left open written and closed, its exit status. (Twelve cases from two reviews of a faster end, given up:
    six of them failed with it.)"""
    (tmp_path / "forked").mkdir()
    (tmp_path / "execd").mkdir()
    bot = start(started, tmp_path, "ending", ENDING + ENDINGS[ending], str(tmp_path / "forked"))
    log = ended(bot, tmp_path, "ending")
    execd = subprocess.run(
        [sys.executable, str(tmp_path / "ending.py"), str(tmp_path / "execd")],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60,
        check=False,
    )  # fmt: skip
    assert log == execd.stdout
    said = [line for line in log.splitlines() if line in ("main done", "thread done", "atexit ran")]
    assert said == ["main done", "thread done", "atexit ran"]
    code = execd.returncode
    assert bot.exit_description() == (
        f"killed by signal {signal.Signals(-code).name}" if code < 0 else f"exited with code {code}"
    )
    for name in sorted(p.name for p in (tmp_path / "execd").iterdir()):
        assert (tmp_path / "forked" / name).read_bytes() == (tmp_path / "execd" / name).read_bytes(), name
    assert ending != "gzip-and-zip-left-open" or len(list((tmp_path / "forked").iterdir())) == 3


def test_a_stdio_bot_talks_over_its_own_pipes(tmp_path: Path, started: list[BotProcess]) -> None:
    bot = start(
        started,
        tmp_path,
        "echo",
        """
        import sys
        line = sys.stdin.readline()
        sys.stdout.write(line.upper())
        sys.stdout.flush()
        print("to the log", file=sys.stderr)
        """,
        stdio=True,
    )
    assert bot.pipes is not None
    to_bot, from_bot = bot.pipes
    os.write(to_bot, b"hello\n")
    deadline, got = time.monotonic() + 30, b""
    while not got.endswith(b"\n") and time.monotonic() < deadline:
        got += os.read(from_bot, 100)
    assert got == b"HELLO\n"
    assert "to the log" in ended(bot, tmp_path, "echo")


def test_bots_forked_from_one_server_do_not_share_their_random_state(tmp_path: Path, started: list[BotProcess]) -> None:
    code = "import random; print(random.getrandbits(64))"
    first, second = (start(started, tmp_path, f"r{k}", code) for k in range(2))
    assert ended(first, tmp_path, "r0") != ended(second, tmp_path, "r1")


def test_no_other_bots_token_is_in_a_forked_bots_memory(tmp_path: Path, started: list[BotProcess]) -> None:
    """The server never holds a launch (each child reads its own): a later bot cannot dig an earlier one's token out
    of the memory it was forked with."""
    earlier = [start(started, tmp_path, f"early{k}", "import time; time.sleep(600)") for k in range(3)]
    scanner = start(started, tmp_path, "scanner", SCAN)
    log = ended(scanner, tmp_path, "scanner")
    count, tokens = log.splitlines()[:2]
    assert int(count) > 0 and scanner.token in tokens.split()  # the scan sees its own token: it can find one
    assert not any(bot.token in log for bot in earlier)


def test_an_ended_bots_pid_stays_its_own_until_the_referee_is_done_with_it(
    tmp_path: Path, started: list[BotProcess]
) -> None:
    """The server reports a child's end but reaps it only when told: until then no other process can take its pid
    (nor its process group or session), which the referee signals and sweeps by, as with a child of its own."""
    bot = start(started, tmp_path, "brief", "pass")
    bot.process.wait(timeout=30)
    fields = stat_fields(bot.pid)
    assert fields is not None and fields[STATE] == b"Z"  # ended, reported, held
    bot.kill()  # kills and sweeps by its pid, then releases it
    deadline = time.monotonic() + 10
    while stat_fields(bot.pid) is not None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert stat_fields(bot.pid) is None


@pytest.mark.skipif(not cgroups.detect().available, reason="no cgroups here to starve the server of tasks")
def test_a_fork_the_server_cannot_make_fails_that_bot_alone(tmp_path: Path, started: list[BotProcess]) -> None:
    sleeper = start(started, tmp_path, "sleeper", "import time; time.sleep(600)")
    server = forkserver.server()
    full = cgroups.BotCgroup.create(f"forkserver-full-{os.getpid()}", tasks=1)  # the server alone: no fork
    try:
        for path in full.join_paths:
            Path(path).write_text(str(server.process.pid))
        with pytest.raises(BotStartError, match="could not fork"):
            start(started, tmp_path, "unlucky", "pass")
        assert sleeper.alive() and server.alive() and forkserver.server() is server  # nothing else was lost
    finally:
        forkserver.reset()  # a server in that cgroup is no use to later tests
        full.remove()


def test_a_bot_dies_with_its_server_and_the_next_bot_gets_a_new_server(
    tmp_path: Path, started: list[BotProcess]
) -> None:
    sleeper = start(started, tmp_path, "sleeper", "import time; time.sleep(600)")
    server = forkserver.server()
    server.process.kill()
    server.process.wait(timeout=10)
    deadline = time.monotonic() + 10
    while sleeper.alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not sleeper.alive() and start_ticks(sleeper.pid) is None
    with pytest.raises(forkserver.ForkServerLost):  # not its doing: no violation to describe
        sleeper.exit_description()
    after = start(started, tmp_path, "after", "print('fresh')")
    assert forkserver.server() is not server
    assert ended(after, tmp_path, "after") == "fresh\n"


def test_a_match_whose_fork_server_dies_stops_and_charges_no_bot(tmp_path: Path) -> None:
    """Bots killed with their server did nothing wrong: the match stops (a tournament records the failure, keeps the
    finished games and plays the rest again) instead of charging the first bot found dead with a crash."""
    bots = [BotEntry(name=f"r{k}", argv=list(resolve_bot("random").argv)) for k in range(2)]
    spec = match_spec(bots, [(0, [0, 1])], match_id="lost", log_dir=str(tmp_path))
    with contextlib.closing(Referee(spec)) as referee:
        assert referee.start() == [] and referee.begin_game([0, 1]) == []
        server = forkserver.server()
        server.process.kill()
        server.process.wait(timeout=10)
        game = Game(referee.rules, 0, ["r0", "r1"])
        with pytest.raises(forkserver.ForkServerLost):
            play(game, referee, game_index=0, time_control=referee.time_control)


def test_the_server_ends_with_its_referee_and_takes_its_bots_along(tmp_path: Path) -> None:
    """A referee killed outright: its server sees its socket close and exits; the bots die with the server. Even
    when the referee had forked a process that lives on (its copy of the socket is closed in the fork)."""
    script = tmp_path / "sleeper.py"
    script.write_text("import time; time.sleep(600)")
    referee = textwrap.dedent(
        f"""
        import os, sys, time
        from pathlib import Path
        from arena.play import forkserver
        from arena.play.botproc import BotCommand, BotProcess
        command = BotCommand("s", (sys.executable, {str(script)!r}))
        bot = BotProcess(command, "ipc:///x", Path({str(tmp_path)!r}) / "s.log")
        helper = os.fork()
        if helper == 0:
            time.sleep(60)
            os._exit(0)
        print(forkserver.server().process.pid, bot.pid, helper, flush=True)
        time.sleep(600)
        """
    )
    process = subprocess.Popen([sys.executable, "-c", referee], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        server, bot, helper = map(int, process.stdout.readline().split())
        assert start_ticks(server) is not None and start_ticks(bot) is not None
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    try:
        deadline = time.monotonic() + 10
        while (start_ticks(server) or start_ticks(bot)) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert start_ticks(helper) is not None  # still there, and holding no end of the server's socket
        assert start_ticks(server) is None and start_ticks(bot) is None
    finally:
        os.kill(helper, signal.SIGKILL)


def test_a_forked_referees_bots_server_has_a_layout_and_a_memory_of_its_own(tmp_path: Path) -> None:
    """A tournament's referee is forked from the fork server for referees (spawn_referee); the server that forks its
    bots is forked (as root) from the server of bots' servers, which the coordinator started by exec, or (not root)
    is the referee's child, started by exec: a bot's memory holds nothing of the referee's launch, its libraries lie
    elsewhere than the referee's (a bot that knew its referee's layout and stack canary would have half of an
    exploit of a memory bug in what reads its frames), and the bots die with the referee."""
    (tmp_path / "scan.py").write_text(SCAN)
    (tmp_path / "sleeper.py").write_text("import time; time.sleep(600)")
    referee = textwrap.dedent(
        f"""
        import os, sys, time
        from pathlib import Path
        from arena.play import forkserver
        from arena.play.botproc import BotCommand, BotProcess
        folder = Path({str(tmp_path)!r})
        def bot(name):
            command = BotCommand(name, (sys.executable, str(folder / f"{{name}}.py")))
            return BotProcess(command, "ipc:///x", folder / f"{{name}}.log")
        scanner, sleeper = bot("scan"), bot("sleeper")
        scanner.process.wait(timeout=60)
        print(os.getppid(), forkserver.server().process.pid, sleeper.pid, flush=True)
        print(scanner.token, os.environ["ARENA_TEST_SECRET"], *sys.argv, flush=True)
        time.sleep(600)
        """
    )
    secret = os.urandom(16).hex()
    launch = forkserver.Launch(
        (sys.executable, "-c", referee, "--serve"), {**os.environ, "ARENA_TEST_SECRET": secret}, str(tmp_path), None
    )
    process, output = forked_referee(launch)
    with output:
        try:
            parent, bots_server, sleeper = map(int, output.readline().split())
            token, seen, *argv = output.readline().split()
            assert parent == forkserver.server(forkserver.REFEREES).process.pid != forkserver.server().process.pid
            if os.geteuid() == 0:
                servers = forkserver.server(forkserver.SERVERS).process.pid
                assert parent_of(bots_server) == servers != parent and parent_of(servers) == os.getpid()
            else:
                assert parent_of(bots_server) == process.pid
            assert parent_of(sleeper) == bots_server
            assert seen == secret and argv == ["-c", "--serve"]  # its launch reached the referee
            found = (tmp_path / "scan.log").read_text().splitlines()[1].split()
            assert token in found and secret not in found  # the scan works; the referee's launch is not in a bot
            if Path("/proc/sys/kernel/randomize_va_space").read_text().strip() != "0":
                bot, server_, referee_ = (libraries_at(pid) for pid in (sleeper, bots_server, process.pid))
                both = sorted(bot.keys() & referee_.keys())  # libc, at least
                assert both and all(bot[k] != referee_[k] for k in both)  # a layout of their own
                shared = sorted(bot.keys() & server_.keys())  # what a fork shares (the check can fail)
                assert shared and [bot[k] for k in shared] == [server_[k] for k in shared]
        finally:
            process.kill()
            process.wait(timeout=10)
            process.release()
    deadline = time.monotonic() + 10
    while (start_ticks(bots_server) or start_ticks(sleeper)) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert start_ticks(bots_server) is None and start_ticks(sleeper) is None  # they died with their referee


@pytest.mark.skipif(os.geteuid() != 0, reason="a referee not root starts its bots' server by exec")
def test_a_referee_whose_server_of_bots_servers_is_gone_starts_its_bots_server_by_exec(tmp_path: Path) -> None:
    """The server of bots' servers killed after a referee was forked: the referee's first bot still starts, from a
    bots' server of its own, started by exec; and a referee forked next is handed a new server of bots' servers."""
    (tmp_path / "sleeper.py").write_text("import time; time.sleep(600)")
    go = tmp_path / "go"
    referee = textwrap.dedent(
        f"""
        import os, sys, time
        from pathlib import Path
        from arena.play import forkserver
        from arena.play.botproc import BotCommand, BotProcess
        folder = Path({str(tmp_path)!r})
        while not (folder / "go").exists():
            time.sleep(0.01)
        command = BotCommand("sleeper", (sys.executable, str(folder / "sleeper.py")))
        sleeper = BotProcess(command, "ipc:///x", folder / "sleeper.log")
        print(forkserver.server().process.pid, sleeper.pid, sleeper.alive(), flush=True)
        time.sleep(600)
        """
    )
    launch = forkserver.Launch((sys.executable, "-c", referee), dict(os.environ), str(tmp_path), None)
    forkserver.reset()
    first, output = forked_referee(launch)
    servers = forkserver.server(forkserver.SERVERS).process
    try:
        with output:
            servers.kill()
            servers.wait(timeout=10)
            go.touch()
            bots_server, sleeper, alive = output.readline().split()
            assert parent_of(int(bots_server)) == first.pid and parent_of(int(sleeper)) == int(bots_server)
            assert alive == "True"
        go.unlink()
        second, output = forked_referee(launch)
        with output:
            go.touch()
            bots_server = output.readline().split()[0]
            assert parent_of(int(bots_server)) == forkserver.server(forkserver.SERVERS).process.pid != servers.pid
            second.kill()
            second.wait(timeout=10)
            second.release()
    finally:
        first.kill()
        first.wait(timeout=10)
        first.release()


SEEDED_REFEREE = """
import dataclasses, os, sys, time
from pathlib import Path
from arena.play import forkserver, sandbox
folder = Path(sys.argv[1])
forkserver.SEEDED_TIMEOUT = 1.0
if sys.argv[2] == "no-uids":  # root, but the sandbox cannot give bots uids of their own
    found = sandbox.capabilities()
    sandbox.capabilities = lambda: dataclasses.replace(found, root=False)
while not (folder / "go").exists():
    time.sleep(0.01)
began = time.monotonic()
server = forkserver.server()
print(server.process.pid, round(time.monotonic() - began, 2), flush=True)
time.sleep(600)
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="no server of bots' servers when not root")
@pytest.mark.parametrize("case", ["no-uids", "stopped"])
def test_a_referee_takes_its_bots_server_by_exec_when_its_bots_share_its_uid_or_the_server_is_stuck(
    tmp_path: Path, case: str
) -> None:
    """Root without uids to give bots (a container without them), the referee sweeps what its bots leave among the
    processes re-parented to it: its bots' server must be its child, started by exec. A server of bots' servers
    that is stopped costs a referee its wait (SEEDED_TIMEOUT), not its start."""
    forkserver.reset()
    launch = forkserver.Launch(
        (sys.executable, "-c", SEEDED_REFEREE, str(tmp_path), case), dict(os.environ), str(tmp_path), None
    )
    referee, output = forked_referee(launch)
    servers = forkserver.server(forkserver.SERVERS).process
    try:
        with output:
            if case == "stopped":
                os.kill(servers.pid, signal.SIGSTOP)
            (tmp_path / "go").touch()
            bots_server, waited = output.readline().split()
            assert parent_of(int(bots_server)) == referee.pid
            if case == "stopped":  # it asked, waited its SEEDED_TIMEOUT (1 s here), not START_TIMEOUT's 30 s
                assert 0.9 <= float(waited) < 30.0
            else:  # it did not ask
                assert float(waited) < 0.9
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(servers.pid, signal.SIGCONT)
        referee.kill()
        referee.wait(timeout=10)
        referee.release()


@pytest.mark.timeout(60)
def test_asking_a_server_of_bots_servers_that_reads_nothing_never_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stuck server's socket fills up (each referee's request stays queued, its socket pair's end in flight): the
    request after that must fail at once, not block the referee for ever (send_fds drops MSG_DONTWAIT before 3.12)."""
    monkeypatch.setattr(forkserver, "SEEDED_TIMEOUT", 0.0)
    ours, stuck = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with ours, stuck:
        for _ in range(600):  # the queue holds about 280
            with pytest.raises(forkserver.ForkServerError):
                forkserver.ForkServer._forked_from(ours)


def test_a_bots_server_of_another_parent_that_is_gone_is_known_as_ended() -> None:
    """``Adopted`` without a pidfd (before Linux 5.3): it goes by the start time; a process gone before it was
    looked at is ended at once (not waited for)."""
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    adopted = forkserver.Adopted(gone.pid, None)
    assert adopted.poll() == 0 and adopted.wait(timeout=0.1) == 0
    living = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        adopted = forkserver.Adopted(living.pid, None)
        assert adopted.poll() is None
        with pytest.raises(subprocess.TimeoutExpired):
            adopted.wait(timeout=0.1)
        living.kill()
        living.wait()
        assert adopted.wait(timeout=5) == 0
    finally:
        living.kill()
        living.wait()


@pytest.mark.skipif(os.geteuid() != 0, reason="no server of bots' servers when not root")
def test_a_new_pythonpath_gets_a_new_server_of_bots_servers(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Its bots' servers, and so their bots, import with the PYTHONPATH it started with: a coordinator whose
    environment changed (a test, a long-lived worker) gets a fresh one, and the old one goes."""
    forkserver.reset()
    first = forkserver.server(forkserver.SERVERS)
    assert forkserver.server(forkserver.SERVERS) is first
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    second = forkserver.server(forkserver.SERVERS)
    assert second is not first and second.alive()
    first.process.wait(timeout=10)  # killed
    forkserver.reset()


@pytest.mark.skipif(os.geteuid() != 0, reason="no server of bots' servers when not root")
def test_the_server_of_bots_servers_ends_with_its_coordinators_servers_and_its_bots_servers_go_on(
    tmp_path: Path,
) -> None:
    """reset() (as the end of a run) kills the server of bots' servers, though referees hold ends of its socket;
    a bots' server it forked serves its referee on."""
    forkserver.reset()
    seeds = forkserver.server(forkserver.SERVERS)
    log = tmp_path / "referee.log"
    ours = os.dup(2)
    with open(log, "wb") as stderr:  # a referee's stderr is its log, not its coordinator's (the server's)
        os.dup2(stderr.fileno(), 2)
        try:
            bots = forkserver.ForkServer._forked_from(seeds.socket)
        finally:
            os.dup2(ours, 2)
            os.close(ours)
    assert parent_of(bots.process.pid) == seeds.process.pid
    assert isinstance(bots.process, forkserver.Adopted) and bots.process._fd is not None  # its pidfd came along
    assert os.stat(f"/proc/{bots.process.pid}/fd/2") == os.stat(log)  # its errors go to the referee's log
    forkserver.reset()
    assert start_ticks(seeds.process.pid) is None  # killed and reaped
    assert bots.alive()
    bots.close()
    assert bots.process.poll() == 0 and start_ticks(bots.process.pid) is None  # its socket closed: it ended


def test_a_forked_referee_starts_as_python_c_would_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a referee's modules fix as they are imported, and the interpreter at its start, follow this process's
    environment and folder, as for ``python -c`` here (the server for referees is started in them, and started
    again when they change): not the plain environment in ``/`` of a server for bots."""
    code = textwrap.dedent(
        """
        import json, sys, tempfile
        from arena.play import sandbox
        print(json.dumps([tempfile.gettempdir(), sandbox.LOCK_DIRS, sys.path[0], sys.flags.safe_path, sys.argv]))
        """
    )
    monkeypatch.chdir(tmp_path)
    argv = (sys.executable, "-c", code, "--serve")
    seen, servers = [], []
    for place in ("one", "another"):  # the second: after a change of environment
        monkeypatch.setenv("TMPDIR", str(tmp_path / place))
        (tmp_path / place).mkdir()
        execd = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
        process, output = forked_referee(forkserver.Launch(argv, dict(os.environ), str(tmp_path), None))
        with output:
            forked = output.read()
        assert process.wait(timeout=30) == 0
        process.release()
        assert json.loads(forked) == json.loads(execd)
        seen.append(json.loads(forked)[0])
        servers.append(process.server)
    assert seen == [str(tmp_path / "one"), str(tmp_path / "another")]
    assert servers[0] is not servers[1] and servers[0].process.wait(timeout=10) == 0  # the first one ended
    assert servers[1].alive()


def test_the_variable_pytest_sets_for_each_test_keeps_the_server_for_referees(monkeypatch: pytest.MonkeyPatch) -> None:
    """pytest sets PYTEST_CURRENT_TEST afresh for every test: the server for referees serves on through it (a
    server a test would cost every test that plays), and each referee still gets it as its launch has it; any other
    change of the environment starts a fresh server."""
    code = "import os; print(os.environ['PYTEST_CURRENT_TEST'])"
    argv = (sys.executable, "-c", code, "--serve")
    servers, seen = [], []
    for test in ("test_one (call)", "test_two (setup)"):
        monkeypatch.setenv("PYTEST_CURRENT_TEST", test)
        process, output = forked_referee(forkserver.Launch(argv, dict(os.environ), os.getcwd(), None))
        with output:
            seen.append(output.read().strip())
        assert process.wait(timeout=30) == 0
        process.release()
        servers.append(process.server)
    assert seen == ["test_one (call)", "test_two (setup)"]
    assert servers[0] is servers[1] and servers[0].alive()
    monkeypatch.setenv("ARENA_TEST_OTHER_VARIABLE", "1")
    assert forkserver.server(forkserver.REFEREES) is not servers[0]


def forked_referee(launch: forkserver.Launch) -> tuple[forkserver.ForkedProcess, TextIO]:
    """A referee's process forked by spawn_referee (stdin from /dev/null, stderr ours): it and its output."""
    reading, writing = os.pipe()
    with open(os.devnull, "rb") as null:
        process = forkserver.spawn_referee(launch, (null.fileno(), writing, 2))
    os.close(writing)
    return process, open(reading)


def libraries_at(pid: int) -> dict[str, int]:
    """Where each shared library of a process starts in its memory."""
    starts: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/maps").read_text().splitlines():
        fields = line.split()
        if len(fields) >= 6 and ".so" in fields[5]:
            starts.setdefault(fields[5], int(fields[0].split("-")[0], 16))
    assert starts, f"no shared library mapped in process {pid}"
    return starts


def parent_of(pid: int) -> int:
    fields = stat_fields(pid)
    assert fields is not None
    return int(fields[PPID])


def test_waiting_on_a_server_whose_socket_is_past_descriptor_1023_waits(tmp_path: Path) -> None:
    """A referee holding its bots' connections may hand its server a descriptor past 1023, which select() refuses:
    wait() then returned at once, and a bot's wait() spun a core instead of sleeping."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1200:
        pytest.skip(f"this process may open only {hard} descriptors")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1200), hard))
    forkserver.reset()  # first: ending a server frees its descriptors
    held = [os.open(os.devnull, os.O_RDONLY)]
    while held[-1] < 1100:  # every free descriptor below: the server's socket takes the lowest one left
        held.append(os.open(os.devnull, os.O_RDONLY))
    try:
        handle = forkserver.server(forkserver.BOTS)
        assert handle.socket.fileno() > 1023
        start = time.monotonic()
        handle.wait(0.2)
        assert time.monotonic() - start >= 0.04  # it slept (50 ms at most at a time), no news having come
    finally:
        for fd in held:
            os.close(fd)
        forkserver.reset()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_only_python_scripts_run_by_this_python_are_forked(monkeypatch: pytest.MonkeyPatch) -> None:
    assert forkserver.eligible((sys.executable, "/bots/mine.py"))
    assert not forkserver.eligible(("/usr/bin/python3.9", "/bots/mine.py"))
    assert forkserver.eligible((sys.executable, "/bots/mine.py", "--level", "3"))
    assert not forkserver.eligible((sys.executable, "-m", "mine"))
    assert not forkserver.eligible((sys.executable, "-X", "dev", "/bots/mine.py"))
    assert not forkserver.eligible(("/usr/bin/node", "/bots/mine.js"))
    monkeypatch.setenv("ARENA_FORK_SERVER", "0")
    assert not forkserver.eligible((sys.executable, "/bots/mine.py"))
