"""A cgroup per bot process tree (arena.play.cgroups): memory, tasks and CPU limits, OOM kills told apart, nothing left.

Real processes in real cgroups, no mocks. Skipped where this host gives the referee no cgroups (not root, no
writable v1 hierarchy, no delegated v2 subtree with the memory and pids controllers). Every test has a time limit.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType

import pytest
from helpers import ROOT

from arena.play.cgroups import MIB, PARENT, BotCgroup, CgroupError, Support, describe, detect, join, sweep_stale
from arena.play.matchspec import Limits
from arena.play.sandbox import Jail, claim_uid

SUPPORT = detect()
needs_cgroups = pytest.mark.skipif(
    not SUPPORT.available, reason=f"no cgroups for the referee here: {SUPPORT.explanation}"
)
SYSTEM_PYTHON = "/usr/bin/python3"  # one that other uids may run (the venv's may sit under /root)
SECONDS = 20  # per test: a regression fails instead of hanging


@pytest.fixture(autouse=True)
def time_limit() -> Iterator[None]:
    def expired(signum: int, frame: FrameType | None) -> None:
        raise TimeoutError(f"test still running after {SECONDS} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(SECONDS)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def make() -> Iterator[Callable[..., BotCgroup]]:
    """BotCgroup.create, with every cgroup made removed at the end of the test whatever happens."""
    made: list[BotCgroup] = []

    def create(name: str, *, memory_bytes: int, tasks: int, cpu_fraction: float | None = None) -> BotCgroup:
        group = BotCgroup.create(name, memory_bytes=memory_bytes, tasks=tasks, cpu_fraction=cpu_fraction)
        made.append(group)
        return group

    yield create
    for group in made:
        group.remove()


def in_cgroup(group: BotCgroup, uid: int | None = None) -> Callable[[], None]:
    """A preexec function: join the cgroup first (still root), then take ``uid`` as the sandbox does."""
    paths = group.join_paths

    def child() -> None:
        join(paths)
        if uid is not None:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)

    return child


def run(group: BotCgroup, code: str, uid: int | None = None) -> subprocess.CompletedProcess[str]:
    """Run a Python snippet in the cgroup (no rlimits at all) and wait for it; under ``uid``: the system Python."""
    return subprocess.run(
        [sys.executable if uid is None else SYSTEM_PYTHON, "-c", textwrap.dedent(code)],
        preexec_fn=in_cgroup(group, uid),
        capture_output=True,
        text=True,
        timeout=SECONDS,
        cwd="/",
    )


def gone(pid: int) -> bool:
    """Whether a process is dead (or a zombie waiting for its reaper)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X")
    except OSError:
        return True


ALLOCATE = """
    import sys
    mib = int(sys.argv[1]) if len(sys.argv) > 1 else {mib}
    chunks = []
    for i in range(mib):
        chunk = bytearray(1 << 20)
        chunk[::4096] = b"\\x01" * 256  # touch every page
        chunks.append(chunk)
    print("allocated", mib, flush=True)
"""


def test_detect_tells_which_cgroups_and_describe_gives_one_line() -> None:
    assert SUPPORT.kind in ("v2", "v1", "none")
    assert "\n" not in SUPPORT.explanation and "\n" not in describe()
    assert describe().startswith("memory and tasks: ")
    if SUPPORT.available:
        assert SUPPORT.explanation.startswith(f"cgroup {SUPPORT.kind}: memory, pids")
        assert {"memory", "pids"} <= set(SUPPORT.controllers)
        assert f"cgroup {SUPPORT.kind} (memory 512 MiB, swap 0, tasks 32" in describe(512 * MIB, 32)
    else:
        assert SUPPORT.explanation.startswith("no cgroups: ")
        assert "RLIMIT_AS" in describe()
    hybrid = os.path.exists("/sys/fs/cgroup/unified/cgroup.controllers") and os.path.isdir("/sys/fs/cgroup/memory")
    if hybrid and os.geteuid() == 0 and not Path("/sys/fs/cgroup/unified/cgroup.controllers").read_text().strip():
        assert SUPPORT.kind == "v1"  # an empty v2 tree beside v1 controllers: v1 is used


@needs_cgroups
def test_a_bot_within_its_memory_limit_lives(make: Callable[..., BotCgroup]) -> None:
    group = make("lives", memory_bytes=1024 * MIB, tasks=64)
    done = run(group, ALLOCATE.format(mib=300))
    assert done.returncode == 0, done.stderr
    assert "allocated 300" in done.stdout
    assert not group.oom_killed()
    peak = group.peak_memory()
    assert peak is None or 300 * MIB <= peak < 1024 * MIB


@needs_cgroups
def test_a_bot_past_its_memory_limit_is_oom_killed_and_told_apart(make: Callable[..., BotCgroup]) -> None:
    hog, innocent = make("hog", memory_bytes=128 * MIB, tasks=16), make("innocent", memory_bytes=128 * MIB, tasks=16)
    assert run(innocent, ALLOCATE.format(mib=64)).returncode == 0
    done = run(hog, ALLOCATE.format(mib=300))
    assert done.returncode == -signal.SIGKILL
    assert "allocated" not in done.stdout
    assert hog.oom_killed() and hog.oom_kills() >= 1
    assert not innocent.oom_killed()
    hog.remove()
    assert hog.oom_killed()  # still known once the cgroup is gone


@needs_cgroups
@pytest.mark.skipif(os.geteuid() != 0 or not os.access(SYSTEM_PYTHON, os.X_OK), reason="needs root and a system Python")
def test_a_bot_under_its_own_uid_is_held_and_cannot_leave(make: Callable[..., BotCgroup]) -> None:
    group = make("uid", memory_bytes=128 * MIB, tasks=16)
    identity = claim_uid()
    outside = [os.path.dirname(os.path.dirname(d)) + "/cgroup.procs" for d in group.dirs]
    limits = [f"{d}/{f}" for d in group.dirs for f in ("memory.limit_in_bytes", "pids.max", "memory.max")]
    try:
        escape = f"""
            import os
            for path in {outside!r}:
                try:
                    with open(path, "w") as f:
                        f.write("0")
                    print("escaped to", path)
                except OSError as exc:
                    print("refused", exc.errno)
            for path in {[p for p in limits if os.path.exists(p)]!r}:
                try:
                    with open(path, "w") as f:
                        f.write("max")
                    print("raised", path)
                except OSError as exc:
                    print("refused", exc.errno)
            print("uid", os.getuid())
        """
        done = run(group, escape, identity.uid)
        assert done.returncode == 0, done.stderr
        assert "escaped" not in done.stdout and "raised" not in done.stdout
        assert f"uid {identity.uid}" in done.stdout and "refused" in done.stdout
        done = run(group, ALLOCATE.format(mib=300), identity.uid)
        assert done.returncode == -signal.SIGKILL and group.oom_killed()
    finally:
        group.remove()
        identity.release()


@needs_cgroups
def test_threads_and_processes_past_the_tasks_limit_are_refused_not_killed(make: Callable[..., BotCgroup]) -> None:
    group = make("tasks", memory_bytes=256 * MIB, tasks=16)
    code = """
        import errno, os, threading
        stop = threading.Event()
        threads, refused = [], 0
        for _ in range(100):
            thread = threading.Thread(target=stop.wait)
            try:
                thread.start()
                threads.append(thread)
            except RuntimeError:  # pthread_create: EAGAIN
                refused += 1
        stop.set()
        for thread in threads:
            thread.join()
        print("threads", len(threads), refused, flush=True)
        r, w = os.pipe()
        children, errors = [], set()
        for _ in range(100):
            try:
                pid = os.fork()
            except OSError as exc:
                errors.add(errno.errorcode[exc.errno])
                continue
            if pid == 0:
                os.close(w)
                os.read(r, 1)
                os._exit(0)
            children.append(pid)
        os.close(w)
        for pid in children:
            os.waitpid(pid, 0)
        print("processes", len(children), sorted(errors), flush=True)
    """
    done = run(group, code)
    assert done.returncode == 0, done.stderr
    words = done.stdout.split()
    started, refused = int(words[1]), int(words[2])
    assert 0 < started < 16 and started + refused == 100
    forked = int(words[4])
    assert 0 < forked < 16 and "['EAGAIN']" in done.stdout


@needs_cgroups
def test_remove_kills_a_double_forked_daemon_and_leaves_nothing(make: Callable[..., BotCgroup]) -> None:
    group = make("daemon", memory_bytes=128 * MIB, tasks=16)
    code = """
        import os, sys, time
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                print(os.getpid(), flush=True)
                sys.stdout.close()
                os.close(1)
                time.sleep(600)
            os._exit(0)
        os.wait()
    """
    bot = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)], preexec_fn=in_cgroup(group), stdout=subprocess.PIPE, text=True
    )
    assert bot.stdout is not None
    daemon = int(bot.stdout.readline())
    assert bot.wait(timeout=SECONDS) == 0
    assert not gone(daemon) and group.pids() == [daemon]
    # our parent directories (a v1 cpu cgroup sits in the referee's own, which stays)
    parents = {p for p in map(os.path.dirname, group.dirs) if os.path.basename(p) == PARENT}
    assert parents
    assert group.remove() and group.removed
    assert gone(daemon)
    assert not any(os.path.exists(d) for d in group.dirs)
    for parent in parents:  # our parent directory goes too, unless other bots' cgroups are in it
        assert not os.path.exists(parent) or any(entry.is_dir() for entry in os.scandir(parent))
    assert group.remove()  # again: nothing to do


@needs_cgroups
def test_remove_kills_a_fork_bomb(make: Callable[..., BotCgroup]) -> None:
    group = make("bomb", memory_bytes=128 * MIB, tasks=16)
    code = """
        import os, time
        print("go", flush=True)
        os.close(1)
        while True:
            try:
                os.fork()
            except OSError:
                time.sleep(0.001)
    """
    bot = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)], preexec_fn=in_cgroup(group), stdout=subprocess.PIPE
    )
    assert bot.stdout is not None and bot.stdout.readline() == b"go\n"
    deadline = time.monotonic() + 10
    while len(group.pids()) <= 1 and time.monotonic() < deadline:  # it forks within milliseconds, unless starved
        time.sleep(0.01)
    assert len(group.pids()) > 1
    assert group.remove()
    assert bot.wait(timeout=SECONDS) == -signal.SIGKILL
    assert not any(os.path.exists(d) for d in group.dirs)


def cgroup_directories(pid: int) -> dict[str, str]:
    """The cgroup directories a process is in, by controller ("" for the v2 tree), from /proc (not from the arena)."""
    mounts: dict[str, str] = {}
    for line in Path("/proc/self/mounts").read_text().splitlines():
        _, point, kind, options = line.split()[:4]
        if kind == "cgroup2":
            mounts.setdefault("", point)
        elif kind == "cgroup":
            for option in options.split(","):
                mounts.setdefault(option, point)
    found = {}
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            if controller in mounts:
                found[controller] = mounts[controller] + path
    return found


def kernel_limits(pid: int) -> tuple[int, int, float | None, int]:
    """What the kernel holds a process to: resident memory (bytes), tasks, CPU cores (None: no quota), and memory
    plus swap (bytes: the memory itself when no swap is allowed), read from its cgroups' files."""
    where = cgroup_directories(pid)
    if "memory" not in where:  # v2: one directory for every controller
        d = where[""]
        memory = int(Path(f"{d}/memory.max").read_text())
        swap = Path(f"{d}/memory.swap.max")
        quota, period = Path(f"{d}/cpu.max").read_text().split()
        cores = None if quota == "max" else int(quota) / int(period)
        tasks = int(Path(f"{d}/pids.max").read_text())
        return memory, tasks, cores, memory + (int(swap.read_text()) if swap.exists() else 0)
    memory = int(Path(f"{where['memory']}/memory.limit_in_bytes").read_text())
    memsw = Path(f"{where['memory']}/memory.memsw.limit_in_bytes")
    tasks = int(Path(f"{where['pids']}/pids.max").read_text())
    cores = None
    if "cpu" in where:
        quota = int(Path(f"{where['cpu']}/cpu.cfs_quota_us").read_text())
        period = int(Path(f"{where['cpu']}/cpu.cfs_period_us").read_text())
        cores = None if quota < 0 else quota / period
    return memory, tasks, cores, int(memsw.read_text()) if memsw.exists() else memory


@needs_cgroups
@pytest.mark.parametrize(
    "limits",
    [Limits(memory_mb=300, processes=40, cpu_cores=0.5), Limits(memory_mb=1000, processes=17), Limits()],
    ids=["300MiB-40-half-core", "1000MiB-17", "defaults"],
)
def test_a_bot_gets_the_limits_configured_in_its_cgroup(tmp_path: Path, limits: Limits) -> None:
    """The memory (MiB: 1,048,576 bytes each), tasks and CPU share a bot's process is held to, read from the cgroups
    /proc says it is in, are those of its match's ``[limits]``; no swap beyond its memory where the kernel counts it."""
    if limits.cpu_cores is not None and not SUPPORT.cpu:
        pytest.skip("no cpu controller here")
    os.chmod(tmp_path, 0o755)
    jail = Jail(limits, workdir=tmp_path)
    try:
        assert jail.cgroup is not None
        program = ("sleep", "600")
        bot = subprocess.Popen(program, preexec_fn=jail.confinement(program, "stdio").apply, start_new_session=True)
        deadline = time.monotonic() + SECONDS / 2
        while not jail.cgroup.pids() and time.monotonic() < deadline:
            time.sleep(0.01)
        memory, tasks, cores, with_swap = kernel_limits(jail.cgroup.pids()[0])
        assert (memory, tasks, cores) == (limits.memory_mb * 1024 * 1024, limits.processes, limits.cpu_cores)
        assert with_swap == memory
        jail.sweep(bot.pid)
        bot.wait(timeout=SECONDS / 2)
    finally:
        jail.release()


# A referee that makes a bot cgroup with a bot in it, says the bot's pid and the cgroup's folders, and waits to be
# killed; PRELUDE is run first (the pid-reuse test names the cgroups as another process's)
DYING_REFEREE = """
import os, subprocess, sys, time
from arena.play import cgroups
from arena.play.cgroups import BotCgroup, MIB, join
PRELUDE
group = BotCgroup.create("seat0", memory_bytes=64 * MIB, tasks=8)
paths = group.join_paths
bot = subprocess.Popen(["sleep", "600"], preexec_fn=lambda: join(paths))
print(bot.pid, *group.dirs, flush=True)
time.sleep(600)
"""


def killed_referee(prelude: str = "", *args: str) -> tuple[str, list[str]]:
    """Run DYING_REFEREE (with ``prelude`` and ``args``) and kill it: its bot's pid and its cgroups' folders."""
    code = DYING_REFEREE.replace("PRELUDE", textwrap.dedent(prelude))
    dead = subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert dead.stdout is not None
    pid, *dirs = dead.stdout.readline().split()
    dead.kill()
    assert dead.wait(timeout=SECONDS) == -signal.SIGKILL
    return pid, dirs


@needs_cgroups
def test_the_cgroups_of_a_dead_referee_are_swept_by_the_next(make: Callable[..., BotCgroup]) -> None:
    pid, dirs = killed_referee()
    # The bot outlived its referee, unless a referee of a concurrent test, starting just now, swept them first (the
    # same outcome by another hand, seen once in a full run): a sweep kills before it removes, so cgroups that are
    # going or gone hold no bot.
    assert all(os.path.isdir(d) for d in dirs) or gone(int(pid))
    mine = make("alive", memory_bytes=64 * MIB, tasks=8)  # sweeps as it creates
    assert not any(os.path.exists(d) for d in dirs)
    assert gone(int(pid))
    sweep_stale()
    assert all(os.path.isdir(d) for d in mine.dirs)  # a live referee's cgroups stay


@needs_cgroups
def test_the_cgroups_of_a_dead_referee_whose_pid_was_reused_are_swept(make: Callable[..., BotCgroup]) -> None:
    """A referee's cgroups are named by its pid and start time: once it is dead they are swept even when its pid
    now belongs to another process (pid reuse), which has another start time. The dead referee here names its
    cgroups by the pid of a live process (this test's), with its own start time: what a referee whose pid was
    taken again after its death leaves behind."""
    reuse = """
        reused, mine = sys.argv[1], cgroups.start_ticks(os.getpid())
        cgroups._tag = lambda pid: f"{os.stat('/proc/self/ns/pid').st_ino}.{reused}.{mine}"
    """
    pid, dirs = killed_referee(reuse, str(os.getpid()))
    assert all(f".{os.getpid()}." in d for d in dirs)  # named by a live process's pid
    assert all(os.path.isdir(d) for d in dirs) or gone(int(pid))  # (or swept already by a concurrent test's referee)
    make("alive", memory_bytes=64 * MIB, tasks=8)  # sweeps as it creates
    assert not any(os.path.exists(d) for d in dirs)
    assert gone(int(pid))


@needs_cgroups
def test_a_parent_removed_while_it_is_made_is_made_again_not_taken_for_a_cgroup_of_the_same_name(
    make: Callable[..., BotCgroup], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A referee closing a match in one thread removes our parent directory once it is empty, while another thread
    creates the next match's cgroups: os.makedirs then found it made and then gone (FileExistsError), which a
    tournament's referee took for "a bot cgroup named 'bot2' of this referee exists already" and died of."""
    real = os.makedirs
    raced: list[str] = []

    def racing(name: str, mode: int = 0o777, exist_ok: bool = False) -> None:
        if not raced:  # the first parent: made by one thread, then removed by the other before it was looked at
            raced.append(name)
            raise FileExistsError(errno.EEXIST, "File exists", name)
        real(name, mode, exist_ok)

    monkeypatch.setattr(os, "makedirs", racing)
    group = make("raced", memory_bytes=64 * MIB, tasks=8)
    assert raced and all(os.path.isdir(d) for d in group.dirs)


@needs_cgroups
@pytest.mark.skipif(not SUPPORT.cpu, reason="no cpu controller")
def test_a_cpu_limit_slows_a_spinner(make: Callable[..., BotCgroup]) -> None:
    group = make("cpu", memory_bytes=128 * MIB, tasks=8, cpu_fraction=0.1)
    code = """
        import time
        end = time.monotonic() + 0.6
        while time.monotonic() < end:
            pass
        print(time.process_time())
    """
    done = run(group, code)
    assert done.returncode == 0, done.stderr
    assert float(done.stdout) < 0.3  # 10% of 0.6 s, plus start-up


@needs_cgroups
def test_bad_requests_are_refused(make: Callable[..., BotCgroup]) -> None:
    with pytest.raises(CgroupError, match="bad cgroup name"):
        BotCgroup.create("../escape")
    with pytest.raises(CgroupError, match="too small"):
        BotCgroup.create("tiny", memory_bytes=1024)
    make("twice", memory_bytes=64 * MIB, tasks=8)
    with pytest.raises(CgroupError, match="exists already"):
        BotCgroup.create("twice", memory_bytes=64 * MIB, tasks=8)
    with pytest.raises(CgroupError, match="no cgroups"):
        BotCgroup.create("none", support=Support("none", "no cgroups: a test"))


V2_HOST = "/sys/fs/cgroup/unified"


@pytest.mark.skipif(
    os.geteuid() != 0 or not os.path.exists(f"{V2_HOST}/cgroup.procs") or SUPPORT.kind == "v2",
    reason="needs root and a cgroup v2 tree beside the cgroups in use",
)
def test_v2_joining_killing_and_removing_work_on_a_controllerless_v2_tree() -> None:
    """The v2 mechanics that need no controller (join, cgroup.kill, remove, sweep), where v2 has none to give."""
    own = Path("/proc/self/cgroup").read_text().split("0::", 1)[1].split("\n", 1)[0].rstrip("/")
    parent = f"{V2_HOST}{own}/euchre-arena"
    support = Support("v2", "cgroup v2: a test", "", (("memory", parent), ("pids", parent)), f"{V2_HOST}{own}")
    pid_max = int(Path("/proc/sys/kernel/pid_max").read_text())
    name = f"{os.stat('/proc/self/ns/pid').st_ino}.{pid_max + os.getpid()}.1.v2test"  # a referee that cannot exist
    directory = f"{parent}/{name}"
    os.makedirs(directory)
    group = BotCgroup("v2", name, (directory,), directory, (f"{directory}/cgroup.procs",))
    try:
        sleeper = subprocess.Popen(["sleep", "600"], preexec_fn=lambda: join(group.join_paths))
        assert group.pids() == [sleeper.pid]
        assert group.kill_all()
        assert sleeper.wait(timeout=SECONDS) == -signal.SIGKILL
        left = subprocess.Popen(["sleep", "600"], preexec_fn=lambda: join(group.join_paths))
        assert sweep_stale(support) >= 1  # its referee is gone
        assert left.wait(timeout=SECONDS) == -signal.SIGKILL
        assert not os.path.exists(directory) and not os.path.exists(parent)
    finally:
        group.remove()
