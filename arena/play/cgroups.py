"""A cgroup per bot process tree: resident memory (no swap), tasks and optionally CPU, for the whole tree at once.

The rlimits of ``arena.play.sandbox`` are per process: RLIMIT_AS caps address space, not memory actually used, so it
refuses runtimes that reserve much and touch little (a JVM, Node), and a bot may hold ``memory_mb`` times
``processes`` in all. Where the referee may create cgroups, each bot process tree gets its own instead:

- **memory**: resident memory of all its processes together (anonymous memory, page cache, its private tmpfs), with
  no swap. Past the limit the kernel reclaims what it can, then its OOM killer kills in that cgroup alone, and the
  cgroup's OOM counter says so (``BotCgroup.oom_killed``): the named violation ``memory``, not a ``crash``.
- **tasks**: processes and threads of the tree at once (``pids.max``); past it ``fork``/``clone`` fail with EAGAIN
  (a JVM starts 14 threads or more, more on more cores, hence 64 by default). Nothing is killed.
- **cpu**: a scheduling group of its own, which the referee makes idle (``cpu.idle``; else the least
  ``cpu.shares``/``cpu.weight``) while another bot is asked (``BotCgroup.favour``): a bot's whole tree, however many
  processes or sessions it makes, competes as one, and a bot thinking on its own clock gets the core from one that
  spins on its opponent's. Optionally a CFS quota too, a fraction of one core (2.0 is two cores) over 100 ms
  periods (``cpu_cores``).

Two flavours exist (``detect`` says which this host gives us, once per process):

- **cgroup v2** (one unified hierarchy, ``cgroup2``): usable as root, or in a subtree delegated to us (systemd
  ``Delegate=yes``, a container with a private cgroup namespace), when the memory and pids controllers are available
  in the referee's own cgroup (``/proc/self/cgroup``, line ``0::``). Bot cgroups are ``<own>/euchre-arena/<name>``
  with ``memory.max``, ``memory.swap.max`` 0, ``memory.oom.group`` 1 (an OOM kill takes the whole tree),
  ``pids.max`` and ``cpu.max``. v2 lets no cgroup but the root both hold processes and hand controllers to its
  children: when the referee's cgroup holds processes, they all move first to the leaf ``<own>/euchre-arena/referee``
  (what systemd asks of delegated services). Killing uses ``cgroup.kill`` (Linux 5.14), else SIGKILL per process.
- **cgroup v1** (a hierarchy per controller, ``/sys/fs/cgroup/{memory,pids,cpu}``): usable where those hierarchies
  are writable, in practice as root. Bot cgroups are ``euchre-arena/<name>`` under the referee's own cgroup in the
  memory and pids hierarchies, and ``<name>`` in the referee's own cgroup in the cpu hierarchy (a peer of the
  referee in the scheduler: see **cpu** above), with ``memory.limit_in_bytes``, ``memory.memsw.limit_in_bytes``
  equal to it (swap 0, when the kernel accounts swap), ``pids.max``, ``cpu.idle`` or ``cpu.shares``,
  ``cpu.cfs_quota_us``/``cpu.cfs_period_us``. The OOM counter is ``oom_kill`` in
  ``memory.oom_control`` (Linux 4.13); the OOM killer takes the largest process of the tree, not all of it.

v2 is preferred when it has the controllers; a hybrid host whose controllers are all bound to v1 (an empty v2 tree
at ``/sys/fs/cgroup/unified``) uses v1. Without cgroups the address-space rlimit of ``arena.play.sandbox`` stays the
only memory limit.

How a bot joins its cgroup: the parent creates it (``BotCgroup.create``) before the fork; the child, between fork
and exec, still root and before anything else (unshare, chroot, rlimits, setresuid), writes ``0`` into each file of
``join_paths`` (``join``: only open, write, close). A process cannot leave it later: the cgroup's files are root's,
and a bot under its own uid may write none of them. Everything the bot forks or clones is born in the cgroup, so
double-forked daemons stay in it and ``kill_all``/``remove`` find them.

Bot cgroups are named ``<pid namespace>.<referee pid>.<referee start time>.<name>``: ``create`` first sweeps (kills
and removes) those of referees that are gone, which is how a referee killed with SIGKILL is cleaned up after.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import signal
import sys
import time
from dataclasses import dataclass, field
from functools import cache
from typing import Literal

from arena.errors import ArenaError
from arena.play.linux import start_ticks

MIB = 1024 * 1024
DEFAULT_MEMORY = 1024 * MIB  # resident memory per bot process tree
DEFAULT_TASKS = 64  # processes and threads per bot process tree (a JVM starts 14 to 40 threads, more with more cores)
CPU_PERIOD_US = 100_000
SHARES = {"v1": (1024, 2), "v2": (100, 1)}  # cpu.shares and cpu.weight: the kernel's default and its least
PARENT = "euchre-arena"  # the directory, under the referee's own cgroup, that holds the bot cgroups
REFEREE_LEAF = "referee"  # v2: where the processes of the referee's cgroup go when they must leave it
KILL_SECONDS = 5.0  # how long kill_all and remove keep at it before giving up (a stale cgroup is swept later)
_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_BOT = re.compile(r"(\d+)\.(\d+)\.(\d+)\.([A-Za-z0-9_-]{1,64})")  # pid namespace, referee pid, its start time, name


class CgroupError(ArenaError):
    """A bot cgroup cannot be made or set up as asked (no cgroups here, a limit the kernel refuses, ...)."""


@dataclass(frozen=True, slots=True)
class Support:
    """Which cgroups this host gives the referee, and where its bot cgroups go.

    ``parents`` maps each usable controller to the directory that holds the bot cgroups (``.../euchre-arena``):
    one directory for all of them in v2, one per hierarchy in v1. ``base`` is the referee's own cgroup in v2 (where
    controllers are handed down), empty in v1.
    """

    kind: Literal["v2", "v1", "none"]
    explanation: str  # one line for people, e.g. "cgroup v1: memory, pids, cpu at /sys/fs/cgroup/{memory,pids,cpu}"
    where: str = ""  # the hierarchies in that line
    parents: tuple[tuple[str, str], ...] = ()  # (controller, directory of the bot cgroups)
    base: str = ""

    @property
    def available(self) -> bool:
        """Whether bot cgroups can be made (memory and pids at least)."""
        return self.kind != "none"

    @property
    def controllers(self) -> tuple[str, ...]:
        """The usable controllers: memory and pids, and cpu when it is there."""
        return tuple(controller for controller, _ in self.parents)

    @property
    def cpu(self) -> bool:
        """Whether a CPU limit can be set."""
        return "cpu" in self.controllers

    def parent(self, controller: str) -> str:
        """The directory that holds the bot cgroups in this controller's hierarchy."""
        return dict(self.parents)[controller]


# ---- what the host gives us ----


@dataclass(frozen=True, slots=True)
class _Mount:
    point: str  # where it is mounted
    root: str  # which cgroup of the hierarchy appears there (mountinfo field 4)
    controllers: frozenset[str]  # v1: the controllers bound to it; v2: empty


def _mounts() -> list[tuple[str, _Mount]]:
    """The cgroup mounts, as ("cgroup2" | "cgroup", mount), from /proc/self/mountinfo."""
    found = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fields, tail = left.split(), right.split()
            if len(fields) < 5 or len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
                continue
            point, root = _unescape(fields[4]), _unescape(fields[3])
            found.append((tail[0], _Mount(point, root, frozenset(tail[2].split(",")) - {"rw", "ro"})))
    return found


def _unescape(path: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), path)


def _own_cgroups() -> dict[str, str]:
    """The referee's own cgroup per hierarchy: "" for v2, each v1 controller (and name=...) for v1."""
    own = {}
    with open("/proc/self/cgroup") as f:
        for line in f:
            parts = line.rstrip("\n").split(":", 2)
            if len(parts) == 3:
                for controller in parts[1].split(",") if parts[1] else [""]:
                    own[controller] = parts[2]
    return own


def _place(mount: _Mount, path: str) -> str | None:
    """The directory of cgroup ``path`` of this mount's hierarchy, if the mount shows it."""
    if path.endswith(" (deleted)"):
        return None
    root = mount.root.rstrip("/")
    if path != root and not path.startswith(root + "/"):
        return None
    return (mount.point.rstrip("/") + path[len(root) :]).rstrip("/") or "/"


def _writable(*paths: str) -> bool:
    return all(os.access(path, os.W_OK) for path in paths)


def _controllers_of(directory: str) -> set[str]:
    try:
        return set(_read(f"{directory}/cgroup.controllers").split())
    except OSError:
        return set()


@cache
def detect() -> Support:
    """Which cgroups this host gives us (v2 preferred when it has the memory and pids controllers); cached."""
    if not sys.platform.startswith("linux"):
        return Support("none", "no cgroups: not Linux")
    try:
        mounts, own = _mounts(), _own_cgroups()
    except OSError as exc:
        return Support("none", f"no cgroups: cannot read /proc ({exc.strerror})")
    reasons: list[str] = []
    v2 = _detect_v2(mounts, own, reasons)
    if v2 is not None:
        return v2
    v1 = _detect_v1(mounts, own, reasons)
    if v1 is not None:
        return v1
    if os.geteuid() != 0 and not any(kind == "cgroup2" for kind, _ in mounts):
        return Support("none", "no cgroups: not root and no delegated cgroup v2 subtree")
    if os.geteuid() != 0:
        return Support("none", f"no cgroups: not root and no delegated cgroup v2 subtree ({'; '.join(reasons)})")
    return Support("none", f"no cgroups: {'; '.join(reasons) or 'no cgroup file system mounted'}")


def _detect_v2(mounts: list[tuple[str, _Mount]], own: dict[str, str], reasons: list[str]) -> Support | None:
    path = own.get("")
    for kind, mount in mounts:
        if kind != "cgroup2" or path is None:
            continue
        place = _place(mount, path)
        if place is None:
            continue
        base = place
        if place.endswith(f"/{PARENT}/{REFEREE_LEAF}"):  # moved there by an earlier referee of ours
            base = os.path.dirname(os.path.dirname(place))
        available = _controllers_of(base)
        missing = [c for c in ("memory", "pids") if c not in available]
        if missing:
            reasons.append(f"cgroup v2 at {base} has no {' or '.join(missing)} controller")
            continue
        if not _writable(base, f"{base}/cgroup.subtree_control", f"{base}/cgroup.procs"):
            reasons.append(f"cgroup v2 at {base} is not ours to write (not root, not delegated)")
            continue
        controllers = [c for c in ("memory", "pids", "cpu") if c in available]
        parent = f"{base}/{PARENT}"
        return Support(
            "v2",
            f"cgroup v2: {', '.join(controllers)} at {base}",
            base,
            tuple((c, parent) for c in controllers),
            base,
        )
    if path is None:
        reasons.append("no cgroup v2 hierarchy")
    return None


def _detect_v1(mounts: list[tuple[str, _Mount]], own: dict[str, str], reasons: list[str]) -> Support | None:
    where: dict[str, tuple[_Mount, str]] = {}
    for kind, mount in mounts:
        if kind != "cgroup":
            continue
        for controller in ("memory", "pids", "cpu"):
            if controller in mount.controllers and controller in own and controller not in where:
                place = _place(mount, own[controller])
                if place is not None and os.path.isdir(place):
                    where[controller] = (mount, place)
    missing = [c for c in ("memory", "pids") if c not in where]
    if missing:
        reasons.append(f"no cgroup v1 {' or '.join(missing)} hierarchy")
        return None
    closed = [c for c, (_, place) in where.items() if not _writable(place, f"{place}/cgroup.procs")]
    if "cpu" in closed or ("cpu" in where and not os.path.exists(f"{where['cpu'][1]}/cpu.cfs_quota_us")):
        del where["cpu"]
    if "memory" in closed or "pids" in closed:
        reasons.append(f"cgroup v1 {' and '.join(c for c in closed if c != 'cpu')} hierarchies not writable")
        return None
    controllers = [c for c in ("memory", "pids", "cpu") if c in where]
    places = _places([(c, *where[c]) for c in controllers])
    return Support(
        "v1",
        f"cgroup v1: {', '.join(controllers)} at {places}",
        places,
        # the cpu cgroups beside the referee's, not in a parent of their own: each bot tree is then a peer of the
        # referee and of the host's other processes in the scheduler, and a tree that spins while another bot is
        # asked spends no parent's share that the asked bot (or the referee) would then wait for
        tuple((c, f"{where[c][1].rstrip('/')}" + ("" if c == "cpu" else f"/{PARENT}")) for c in controllers),
    )


def _places(found: list[tuple[str, _Mount, str]]) -> str:
    """Where the hierarchies are, briefly: /sys/fs/cgroup/{memory,pids,cpu}, then the referee's own cgroups."""
    heads = {os.path.dirname(mount.point.rstrip("/")) for _, mount, _ in found}
    if len(found) < 2 or len(heads) != 1:
        return ", ".join(place for _, _, place in found)
    names = ",".join(os.path.basename(mount.point.rstrip("/")) for _, mount, _ in found)
    nested = [f"{c} {place[len(mount.point.rstrip('/')) :]}" for c, mount, place in found if place != mount.point]
    return f"{heads.pop()}/{{{names}}}" + (f" (the referee's cgroups: {', '.join(nested)})" if nested else "")


def describe(memory_bytes: int = DEFAULT_MEMORY, tasks: int = DEFAULT_TASKS, cpu_fraction: float | None = None) -> str:
    """The line for ``arena doctor``: what bounds a bot's memory and tasks on this host."""
    support = detect()
    if not support.available:
        return (
            f"memory and tasks: {support.explanation}; instead address space {memory_bytes // MIB} MiB per process "
            f"(RLIMIT_AS), {tasks} processes and threads per uid (RLIMIT_NPROC)"
        )
    share = "cpu share of its own, idle while another bot is asked"
    if not support.cpu:
        cpu = ", cpu neither shared out nor limitable (no cpu controller)"
    elif cpu_fraction is None:
        cpu = f", {share}"
    else:
        cpu = f", {share}, at most {cpu_fraction:g} core"
    return (
        f"memory and tasks: cgroup {support.kind} (memory {memory_bytes // MIB} MiB, swap 0, tasks {tasks}{cpu}) "
        f"per bot process tree, at {support.where}"
    )


# ---- one bot's cgroup ----


def join(paths: tuple[str, ...]) -> None:  # pragma: no cover - runs in the child between fork and exec
    """Move the calling process into the cgroups whose ``cgroup.procs`` files these are (system calls only)."""
    for path in paths:
        fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
        try:
            os.write(fd, b"0")
        finally:
            os.close(fd)


@dataclass
class BotCgroup:
    """The cgroup (v2) or cgroups (v1, one per hierarchy) of one bot process tree.

    Make it with ``create`` before forking the bot; the child calls ``child_join`` (or ``join(join_paths)``) first
    thing between fork and exec; once the bot has ended, read ``oom_killed`` and call ``remove``.
    """

    kind: Literal["v2", "v1"]
    name: str  # the directory name: <pid namespace>.<referee pid>.<start time>.<name>
    dirs: tuple[str, ...]  # its directories: one in v2; memory, pids (and cpu) in v1
    memory_dir: str
    join_paths: tuple[str, ...]  # the cgroup.procs files the bot's process writes b"0" into
    cpu_dir: str | None = None  # the directory with its processor share (None: no cpu controller)
    removed: bool = False
    _oom_kills: int = field(default=0, repr=False)  # read by remove, for oom_killed afterwards
    _favoured: bool | None = field(default=None, repr=False)  # the share last written (None: the kernel's default)
    _cpu_file: tuple[int, tuple[str, str]] | None = field(default=None, repr=False)  # (fd, its values) for favour
    _peak: int | None = field(default=None, repr=False)

    @classmethod
    def create(
        cls,
        name: str,
        *,
        memory_bytes: int = DEFAULT_MEMORY,
        tasks: int = DEFAULT_TASKS,
        cpu_fraction: float | None = None,
        support: Support | None = None,
    ) -> BotCgroup:
        """Make the cgroup(s) of one bot process tree, with its limits (first sweeping those of dead referees).

        ``name`` (letters, digits, ``-``, ``_``) must be unique among this referee's live bot cgroups. Raises
        ``CgroupError`` where there are no cgroups (``detect``), when a CPU limit is asked and there is no cpu
        controller, or when the kernel refuses a limit.
        """
        support = support or detect()
        if support.kind == "none":
            raise CgroupError(support.explanation)
        if not _NAME.fullmatch(name):
            raise CgroupError(f"bad cgroup name {name!r} (1 to 64 letters, digits, - or _)")
        if memory_bytes < 4 * MIB or tasks < 1:
            raise CgroupError(f"limits too small: memory {memory_bytes} bytes, tasks {tasks}")
        if cpu_fraction is not None and (cpu_fraction <= 0 or not support.cpu):
            raise CgroupError(f"no CPU limit of {cpu_fraction}: " + ("not positive" if support.cpu else "no cpu"))
        sweep_stale(support)
        kind: Literal["v2", "v1"] = "v2" if support.kind == "v2" else "v1"
        used = list(support.controllers)
        full = f"{_tag(os.getpid())}.{name}"
        dirs = tuple(dict.fromkeys(f"{support.parent(c)}/{full}" for c in used))
        group = cls(
            kind,
            full,
            dirs,
            f"{support.parent('memory')}/{full}",
            tuple(f"{d}/cgroup.procs" for d in dirs),
            f"{support.parent('cpu')}/{full}" if support.cpu else None,
        )
        for attempt in range(5):
            made: list[str] = []
            try:
                if kind == "v2":
                    _prepare_v2(support, cpu=support.cpu)
                for directory in dirs:
                    _make_parent(os.path.dirname(directory))
                    os.mkdir(directory, 0o755)
                    made.append(directory)
                group._limit(memory_bytes, tasks, cpu_fraction)
                return group
            except FileExistsError:
                _rmdirs(made)
                raise CgroupError(f"a bot cgroup named {name!r} of this referee exists already") from None
            except FileNotFoundError:  # a parent removed meanwhile by another referee: again
                _rmdirs(made)
                if attempt == 4:
                    raise CgroupError(f"cannot make the cgroup {dirs[0]}: it keeps vanishing") from None
            except OSError as exc:
                _rmdirs(made)
                raise CgroupError(f"cannot set up the cgroup {dirs[0]}: {exc}") from None
        raise AssertionError("unreachable")

    def _limit(self, memory_bytes: int, tasks: int, cpu_fraction: float | None) -> None:
        quota = None if cpu_fraction is None else max(1000, round(cpu_fraction * CPU_PERIOD_US))
        for directory in self.dirs:
            files = set(os.listdir(directory))
            if self.kind == "v2":
                if "memory.max" in files:
                    _write(f"{directory}/memory.max", str(memory_bytes))
                if "memory.swap.max" in files:
                    _write(f"{directory}/memory.swap.max", "0")
                if "memory.oom.group" in files:
                    _write(f"{directory}/memory.oom.group", "1")
                if "pids.max" in files:
                    _write(f"{directory}/pids.max", str(tasks))
                if quota is not None:
                    _write(f"{directory}/cpu.max", f"{quota} {CPU_PERIOD_US}")
            else:
                if "memory.limit_in_bytes" in files:  # before memsw, which may never be below it
                    _write(f"{directory}/memory.limit_in_bytes", str(memory_bytes))
                    if "memory.memsw.limit_in_bytes" in files:
                        _write(f"{directory}/memory.memsw.limit_in_bytes", str(memory_bytes))
                    with contextlib.suppress(OSError):  # no swap without memsw either, as far as it goes
                        _write(f"{directory}/memory.swappiness", "0")
                if "pids.max" in files:
                    _write(f"{directory}/pids.max", str(tasks))
                if quota is not None and "cpu.cfs_quota_us" in files:
                    _write(f"{directory}/cpu.cfs_period_us", str(CPU_PERIOD_US))
                    _write(f"{directory}/cpu.cfs_quota_us", str(quota))

    def favour(self, asked: bool) -> None:
        """Give the tree the processor while its bot is asked, and only what nobody else wants while another bot
        thinks on its clock: ``cpu.idle`` (Linux 5.15), under which any other task that wakes takes the processor
        at once (the asked bot, the referee reading its answer), else the least share. Nothing without a cpu
        controller, or when the tree is so already. The file stays open: a write is then a fraction of a
        microsecond, where opening it each time made the referee's two writes a request a tenth of a quick game."""
        if asked is self._favoured or self.removed or self.cpu_dir is None:
            return
        with contextlib.suppress(OSError):  # removed meanwhile (the bot is being stopped)
            if self._cpu_file is None:
                try:
                    self._cpu_file = (os.open(f"{self.cpu_dir}/cpu.idle", os.O_WRONLY | os.O_CLOEXEC), ("0", "1"))
                except FileNotFoundError:  # an older kernel: the share alone
                    name = "cpu.weight" if self.kind == "v2" else "cpu.shares"
                    fd = os.open(f"{self.cpu_dir}/{name}", os.O_WRONLY | os.O_CLOEXEC)
                    favoured, least = SHARES[self.kind]
                    self._cpu_file = (fd, (str(favoured), str(least)))
            fd, values = self._cpu_file
            os.pwrite(fd, values[0 if asked else 1].encode(), 0)
            self._favoured = asked

    def child_join(self) -> None:  # pragma: no cover - runs in the child between fork and exec
        """Move the calling process into this cgroup: call it in the child between fork and exec, still root."""
        join(self.join_paths)

    def oom_kills(self) -> int:
        """How many processes of the tree the OOM killer killed (after ``remove``: as read then)."""
        if self.removed:
            return self._oom_kills
        name = "memory.events" if self.kind == "v2" else "memory.oom_control"
        try:
            for line in _read(f"{self.memory_dir}/{name}").splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except (OSError, ValueError):
            pass
        return 0

    def oom_killed(self) -> bool:
        """Whether the OOM killer killed a process of the tree: the bot broke its memory limit."""
        return self.oom_kills() > 0

    def peak_memory(self) -> int | None:
        """The most memory the tree held at once, in bytes, where the kernel tells (v1; v2 from Linux 5.19)."""
        if self.removed:
            return self._peak
        name = "memory.peak" if self.kind == "v2" else "memory.max_usage_in_bytes"
        try:
            return int(_read(f"{self.memory_dir}/{name}"))
        except (OSError, ValueError):
            return None

    def pids(self) -> list[int]:
        """The processes in the cgroup now (not zombies)."""
        found: dict[int, None] = {}
        for directory in self.dirs:
            with contextlib.suppress(OSError, ValueError):
                found.update(dict.fromkeys(int(pid) for pid in _read(f"{directory}/cgroup.procs").split()))
        return list(found)

    def kill_all(self, timeout: float = KILL_SECONDS) -> bool:
        """SIGKILL every process of the tree, until none is left (True) or ``timeout`` has passed (False).

        v2 with ``cgroup.kill``: one write kills them all, forks held off. Otherwise SIGKILL every process listed,
        again and again: the tasks limit bounds what a fork bomb can add between two passes.
        """
        if self.kind == "v2":
            with contextlib.suppress(OSError):
                _write(f"{self.dirs[0]}/cgroup.kill", "1")
        deadline = time.monotonic() + timeout
        pause = 0.0005
        while True:
            pids = self.pids()
            if not pids:
                return True
            for pid in pids:
                self._kill(pid)
            if time.monotonic() > deadline:
                return False
            time.sleep(pause)
            pause = min(pause * 2, 0.02)

    def _kill(self, pid: int) -> None:
        """SIGKILL a process listed in the cgroup, through a pidfd checked to be still ours (pids get reused)."""
        try:
            fd = os.pidfd_open(pid)
        except OSError as exc:
            if exc.errno in (errno.ENOSYS, errno.EPERM, errno.EINVAL):  # before Linux 5.3: plain kill
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            return
        try:
            with open(f"/proc/{pid}/cgroup") as f:  # the pidfd holds the process: is it still one of ours?
                ours = any(line.rstrip("\n").endswith(f"/{self.name}") for line in f)
            if ours:
                signal.pidfd_send_signal(fd, signal.SIGKILL)
        except OSError:
            pass  # gone meanwhile
        finally:
            os.close(fd)

    def remove(self, timeout: float = KILL_SECONDS) -> bool:
        """Kill the tree and remove its cgroup(s), and our parent directory when it is left empty.

        Tolerant of races (processes still exiting, a directory already gone). Reads the OOM counter and the peak
        first, so ``oom_killed`` and ``peak_memory`` still answer afterwards. True when nothing is left; otherwise
        what is left is swept by the next ``create`` once this referee is gone. Safe to call more than once.
        """
        if self.removed:
            return True
        self._oom_kills, self._peak = self.oom_kills(), self.peak_memory()
        if self._cpu_file is not None:
            os.close(self._cpu_file[0])
            self._cpu_file = None
        deadline = time.monotonic() + timeout
        self.kill_all(timeout)
        while True:
            left = _rmdirs(self.dirs)
            if not left:
                break
            if time.monotonic() > deadline:
                return False
            self.kill_all(max(0.0, deadline - time.monotonic()))
            time.sleep(0.002)
        self.removed = True
        for directory in dict.fromkeys(os.path.dirname(d) for d in self.dirs):
            if os.path.basename(directory) == PARENT:  # ours (a v1 cpu cgroup sits in the referee's own)
                with contextlib.suppress(OSError):  # busy: other bots' cgroups are in it
                    os.rmdir(directory)
        return True

    def __enter__(self) -> BotCgroup:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def _rmdirs(dirs: tuple[str, ...] | list[str]) -> list[str]:
    """Remove what exists of these cgroup directories; the ones still there (busy)."""
    left = []
    for directory in dirs:
        try:
            os.rmdir(directory)
        except FileNotFoundError:
            pass
        except OSError as exc:
            if exc.errno not in (errno.EBUSY, errno.ENOTEMPTY):
                raise
            left.append(directory)
    return left


def _make_parent(directory: str) -> None:
    """Make our parent cgroup directory if it is missing. FileNotFoundError when it vanished meanwhile: another
    referee, or this one's close of a match in another thread, removed it as it left it empty (os.makedirs says
    FileExistsError when it found the directory made, then gone; that is no bot cgroup of the same name)."""
    try:
        os.makedirs(directory, mode=0o755, exist_ok=True)
    except FileExistsError:
        raise FileNotFoundError(errno.ENOENT, "a parent cgroup vanished while it was made", directory) from None


def _prepare_v2(support: Support, *, cpu: bool) -> None:
    """Hand the controllers down to the bot cgroups: base/cgroup.subtree_control, then euchre-arena's.

    A cgroup other than the root may not hold processes and hand controllers down: if ours does (EBUSY), its
    processes move to the leaf euchre-arena/referee first.
    """
    wanted = ["memory", "pids"] + (["cpu"] if cpu else [])
    base, parent = support.base, support.parent("memory")
    _make_parent(parent)
    try:
        _enable(base, wanted)
    except OSError as exc:
        if exc.errno != errno.EBUSY:
            raise
        leaf = f"{parent}/{REFEREE_LEAF}"
        os.makedirs(leaf, mode=0o755, exist_ok=True)
        for _ in range(100):
            pids = _read(f"{base}/cgroup.procs").split()
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    _write(f"{leaf}/cgroup.procs", pid)
        _enable(base, wanted)
    _enable(parent, wanted)


def _enable(directory: str, controllers: list[str]) -> None:
    enabled = set(_read(f"{directory}/cgroup.subtree_control").split())
    for controller in controllers:
        if controller not in enabled:
            _write(f"{directory}/cgroup.subtree_control", f"+{controller}")


# ---- cgroups of referees that are gone ----


def _tag(pid: int) -> str:
    """<pid namespace>.<pid>.<start time> of a live process of our pid namespace ("" when it is gone)."""
    start = _start_time(pid)
    return "" if start is None else f"{os.stat('/proc/self/ns/pid').st_ino}.{pid}.{start}"


_start_time = start_ticks


def sweep_stale(support: Support | None = None) -> int:
    """Kill and remove the bot cgroups of referees that are gone (of our pid namespace); how many were found."""
    support = support or detect()
    namespace = os.stat("/proc/self/ns/pid").st_ino
    stale: dict[str, list[str]] = {}
    for parent in dict.fromkeys(p for _, p in support.parents):
        try:
            names = os.listdir(parent)
        except OSError:
            continue
        for name in names:
            found = _BOT.fullmatch(name)
            if found is None or int(found.group(1)) != namespace:
                continue
            if _start_time(int(found.group(2))) != int(found.group(3)):
                stale.setdefault(name, []).append(f"{parent}/{name}")
    for name, dirs in stale.items():
        memory = next((d for d in dirs if d.startswith(f"{support.parent('memory')}/")), dirs[0])
        group = BotCgroup("v2" if support.kind == "v2" else "v1", name, tuple(dirs), memory, ())
        with contextlib.suppress(OSError):
            group.remove(timeout=1.0)
    return len(stale)


def _read(path: str) -> str:
    with open(path) as f:
        return f.read()


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)
