"""Confining bot processes: resource limits, a user id per process, a private filesystem view, no network.

What a bot may use is a ``Limits`` (part of every match spec and tournament config). How much of it the OS lets us
enforce is found out once per referee process (``capabilities``): running as root on Linux, each bot process gets
an unused uid of its own and, where namespaces work, its own mount, network and IPC namespaces with a filesystem
view of nothing but the system directories, its runtime, its program, its endpoint and a small private /tmp.
SECURITY.md describes the threat model and what is enforced where.

Everything that runs between fork and exec (``Jail.preexec``) is prepared in the parent: the child only walks a list
of steps making system calls (no imports, no locks), which keeps it safe in the child of a threaded referee.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import itertools
import os
import resource
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from arena.errors import ArenaError
from arena.play import cgroups
from arena.play.linux import (
    GONE,
    LIBC,
    PPID,
    PR_SET_CHILD_SUBREAPER,
    PR_SET_NO_NEW_PRIVS,
    PR_SET_PDEATHSIG,
    SESSION,
    STATE,
    check,
    empty_user_keyrings,
    own_session_keyring,
    prctl,
    processes,
    refuse_shared_kernel_objects,
)
from arena.play.matchspec import Limits

MIB = 1024 * 1024
# Bot uids are taken from this range; a lock file per uid keeps concurrent referees apart. ARENA_UID_RANGE=FIRST:COUNT
# overrides it. The default lies above the ranges systemd hands to users and containers (up to 0x6FFFFFFF).
UID_RANGE = (1_900_000_000, 65_536)
LOCK_DIRS = ("/run/euchre-arena/uids", f"{tempfile.gettempdir()}/euchre-arena-uids")
# A uid's lock file says CLEAN once the uid was given back with nothing left under it; anything else (HELD while it
# is held, or was by a referee that died holding it; empty when new, or written by an older arena) means: look.
HELD, CLEAN = b"held\n", b"clean\n"
# Host directories every bot sees read-only (when they exist): enough to run programs, nothing that holds data.
SYSTEM_DIRS = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "opt")
DEVICES = ("null", "zero", "full", "random", "urandom")
# Mount points of the view a program's directory may not cover (a bot in /tmp sees its file, not the host's /tmp).
# Folders of the view that are links to its /tmp: a bot's shared memory and /var/tmp count against its disk limit.
VIEW_LINKS = {"/dev/shm": "/tmp", "/var/tmp": "/tmp"}
PRIVATE_POINTS = ("/", "/tmp", "/dev", "/proc", "/sys", "/var", *VIEW_LINKS)
SYS_DIRS = ("/sys/devices/system/cpu",)

_CLONE_NEWNS = 0x00020000
_CLONE_NEWIPC = 0x08000000
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWPID = 0x20000000
_CLONE_NEWNET = 0x40000000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 32, 4096, 16384, 1 << 18


class SandboxError(ArenaError):
    """A bot process cannot be confined as configured (no free uid, its program out of its reach, ...)."""


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What this machine lets the referee enforce (probed once per process)."""

    root: bool  # we are root and may give bots a uid of their own
    mount: bool  # a private filesystem view (mount namespace), with /proc showing only the bot's own processes
    hidepid: bool  # that /proc hides other users' processes
    network: bool  # no network at all (a network namespace of its own)
    ipc: bool  # no System V IPC shared with others (an IPC namespace)
    pid: bool = False  # a pid namespace of its own: its processes see no others (nor their file locks), and all die
    userns: bool = False  # not root: the namespaces above come inside a user namespace of the bot's own
    filtered: bool = False  # the seccomp filter holds: no file locks, keyrings, file watches or new sessions

    def describe(self) -> list[str]:
        """What a bot gets here, one line each (for ``arena doctor`` and the match log)."""
        yes = {True: "yes", False: "no"}
        return [
            f"own uid per bot: {yes[self.root]}" + ("" if self.root else " (bots run as the referee's user)"),
            f"private filesystem view: {yes[self.mount]}" + (" (in a user namespace)" if self.userns else ""),
            f"own pid namespace (no other processes, their file locks, or escapes): {yes[self.pid]}",
            f"no network: {yes[self.network]}",
            f"own IPC namespace: {yes[self.ipc]}",
            "no file locks, keyrings, file watches or new sessions (seccomp filter): "
            + ("yes" if self.filtered else "NO: two bots could pass notes through a file's locks (SECURITY.md)"),
            "bots kept apart (endpoints, tokens, files, locks): "
            + ("yes" if self.isolated else "NO: matches need --trusted-bots (SECURITY.md)"),
        ]

    @property
    def isolated(self) -> bool:
        """Whether bots are kept apart: none can reach another's endpoint, token, files or processes (a uid of its
        own, or a private view in a user namespace of its own), and none can pass another a note through the
        kernel's lock table, keyrings or file watches (the seccomp filter)."""
        return (self.root or (self.userns and self.mount)) and self.filtered


# ---- system calls, bound once so that the child between fork and exec only calls them ----


def _unshare(flags: int) -> None:
    check(LIBC.unshare(ctypes.c_int(flags)), "unshare")


def _bytes(text: str | None) -> bytes | None:
    return None if text is None else text.encode()


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    result: int = LIBC.mount(_bytes(source), target.encode(), _bytes(fstype), ctypes.c_ulong(flags), _bytes(data))
    check(result, f"mount {target}")


# ---- what the machine allows ----


@cache
def capabilities() -> Capabilities:
    """Probe (in a forked child) which namespaces work here; cached for the life of the process."""
    if LIBC is None:
        return Capabilities(root=False, mount=False, hidepid=False, network=False, ipc=False)
    bits = _probe(os.geteuid() == 0)
    for _ in range(2):  # a probe killed by a signal (an OOM kill, a sweep on a busy host) found nothing: again
        if bits >= 0:
            break
        bits = _probe(os.geteuid() == 0)
    if bits < 0:
        raise SandboxError(f"the probe of this host's namespaces was killed by signal {-bits}, three times")
    return Capabilities(
        root=bool(bits & 16),
        mount=bool(bits & 1),
        hidepid=bool(bits & 2),
        network=bool(bits & 4),
        ipc=bool(bits & 8),
        pid=bool(bits & 32),
        userns=bool(bits & 64),
        filtered=bool(bits & 128),
    )


def _probe(root: bool) -> int:
    """Try each namespace in a child; its exit code has a bit per success (mounts land in its own namespace), or,
    negative, the signal that killed it.

    Root: a mount namespace (1) whose /proc may hide other users' processes (2), network (4), IPC (8), a uid of
    the bot's own (16), a pid namespace with its own /proc (32). Not root: all of these but the uid inside a user
    namespace (64), or else just network and IPC in one. Then the bots' seccomp filter, installed and seen to refuse
    a file lock (128).
    """
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        bits = 0
        try:
            if root:
                with contextlib.suppress(OSError):
                    _unshare(_CLONE_NEWNS)
                    _mount(None, "/", None, _MS_REC | _MS_PRIVATE)
                    _mount("tmpfs", "/tmp", "tmpfs", _MS_NOSUID | _MS_NODEV, "size=64k")
                    bits |= 1
                    with contextlib.suppress(OSError):
                        _mount("proc", "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, "hidepid=2")
                        bits |= 2
                    with contextlib.suppress(OSError):
                        _unshare(_CLONE_NEWPID)
                        bits |= 32 if _in_new_pid_namespace() else 0
                with contextlib.suppress(OSError):
                    _unshare(_CLONE_NEWNET)
                    bits |= 4
                with contextlib.suppress(OSError):
                    _unshare(_CLONE_NEWIPC)
                    bits |= 8
                with contextlib.suppress(OSError):  # last: it drops our privileges
                    os.setgroups([])
                    os.setresgid(UID_RANGE[0], UID_RANGE[0], UID_RANGE[0])
                    os.setresuid(UID_RANGE[0], UID_RANGE[0], UID_RANGE[0])
                    bits |= 16
            else:
                uid, gid = os.geteuid(), os.getegid()
                try:
                    _unshare(_CLONE_NEWUSER | _CLONE_NEWNS | _CLONE_NEWNET | _CLONE_NEWIPC | _CLONE_NEWPID)
                    _map_ids(uid, gid)
                    _mount(None, "/", None, _MS_REC | _MS_PRIVATE)
                    _mount("tmpfs", "/tmp", "tmpfs", _MS_NOSUID | _MS_NODEV, "size=64k")
                    if _in_new_pid_namespace():
                        bits |= 1 | 4 | 8 | 32 | 64
                except OSError:
                    with contextlib.suppress(OSError):
                        _unshare(_CLONE_NEWUSER | _CLONE_NEWNET | _CLONE_NEWIPC)
                        bits |= 4 | 8
            with contextlib.suppress(OSError):
                prctl(PR_SET_NO_NEW_PRIVS, 1)
                if refuse_shared_kernel_objects():
                    locked = LIBC.flock(os.open("/", os.O_RDONLY), 1 | 4)  # LOCK_SH | LOCK_NB
                    bits |= 128 if locked != 0 and ctypes.get_errno() == errno.ENOLCK else 0
        finally:
            os._exit(bits)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)  # negative: the signal that killed it


def _in_new_pid_namespace() -> bool:  # pragma: no cover - runs in the probe's child
    """After unshare(CLONE_NEWPID): whether a child becomes pid 1 of the namespace and can mount its /proc there."""
    pid = os.fork()
    if pid == 0:
        code = 1
        with contextlib.suppress(OSError):
            _mount("proc", "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
            code = 0 if os.getpid() == 1 and os.listdir("/proc/1") else 1
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def _map_ids(uid: int, gid: int) -> None:
    """In a fresh user namespace: be there who we are outside (one uid and one gid mapped to themselves)."""
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        fd = os.open(f"/proc/self/{name}", os.O_WRONLY)
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)


def require_isolation(trusted: bool) -> None:
    """Refuse to run untrusted bots where the host cannot keep them apart (one line that says what to do)."""
    caps = capabilities()
    if trusted or caps.isolated:
        return
    if caps.root or (caps.userns and caps.mount):
        why = (
            "this host cannot keep bots apart (no seccomp filter for this machine or kernel): two bots could pass "
            "each other their cards through a file's locks. Run the arena on x86-64 or arm64 Linux with seccomp"
        )
    else:
        why = (
            "this host cannot keep bots apart (not root, and no user namespaces): one bot could take another's "
            "seat or read its files. Run the arena as root or where unprivileged user namespaces work"
        )
    raise SandboxError(f"{why}, or, for bots you trust, pass --trusted-bots (config: trusted_bots = true)")


# ---- user ids ----


def uid_range() -> tuple[int, int]:
    """The first bot uid and how many there are (``ARENA_UID_RANGE=FIRST:COUNT`` overrides the default)."""
    text = os.environ.get("ARENA_UID_RANGE")
    if not text:
        return UID_RANGE
    first, _, count = text.partition(":")
    try:
        return int(first), int(count or UID_RANGE[1])
    except ValueError:
        raise SandboxError(f"ARENA_UID_RANGE={text!r} is not FIRST:COUNT") from None


@dataclass
class Identity:
    """An unprivileged uid (and a gid of the same number) held by one bot process, locked while it is held."""

    uid: int
    lock: int  # the descriptor whose flock marks the uid as taken

    @property
    def gid(self) -> int:
        """The bot's own group."""
        return self.uid

    def release(self, clean: bool = False) -> None:
        """Give the uid back. ``clean``: nothing runs under it and nothing can (its cgroup, where all of its processes
        were born, was removed), so that its next claim need not look; otherwise it does, as after a referee that
        died holding it."""
        if self.lock >= 0:
            if clean:
                with contextlib.suppress(OSError):
                    os.pwrite(self.lock, CLEAN, 0)
                    os.ftruncate(self.lock, len(CLEAN))
            os.close(self.lock)
            self.lock = -1


def _lock_dir() -> str:
    for directory in LOCK_DIRS:
        with contextlib.suppress(OSError):
            os.makedirs(directory, mode=0o700, exist_ok=True)
        try:
            info = os.lstat(directory)
        except OSError:
            continue
        private = info.st_uid == os.geteuid() and (info.st_mode & 0o077) == 0
        if private and os.path.isdir(directory) and not os.path.islink(directory):
            return directory
    raise SandboxError(f"no private directory for uid locks (tried {', '.join(LOCK_DIRS)})")


def _try_lock(directory: str, uid: int) -> int | None:
    fd = os.open(f"{directory}/{uid}", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


_reaped_orphans = False


def claim_uid() -> Identity:
    """Lock the first free uid of the range and make sure nothing runs under it (a crashed referee's bots may).

    The first free one, so that a host uses no more uids than it ever runs bots at once: each uid a bot takes gets
    two user keyrings, which the kernel keeps until it reboots, and every bot's end (its session keyring freed)
    makes the kernel's key collector walk all the keys there are. Drawn at random from the 65,536, a league's host
    came to hold 116,000 of them, and its collector to take 5 % of the processor time of a run of the tests.

    Its lock file says whether the uid was given back clean (``CLEAN``): otherwise /proc is read for what runs under
    it (1-3 ms a claim).
    """
    global _reaped_orphans
    directory = _lock_dir()
    first, count = uid_range()
    if not _reaped_orphans:  # once per process: kill what bots of dead referees left behind
        _reaped_orphans = True
        for uid in sorted(u for u in _process_uids() if first <= u < first + count):
            fd = _try_lock(directory, uid)
            if fd is not None:
                sweep_uid(uid)
                os.close(fd)
    for uid in range(first, first + count):
        fd = _try_lock(directory, uid)
        if fd is not None:
            if os.pread(fd, len(CLEAN) + 1, 0) != CLEAN and processes_of(uid):  # left by a referee that died
                sweep_uid(uid)
            os.pwrite(fd, HELD, 0)
            os.ftruncate(fd, len(HELD))
            return Identity(uid, fd)
    raise SandboxError(f"all {count} bot uids from {first} are taken")


def _processes() -> Iterator[tuple[int, bool, tuple[int, ...]]]:
    """Every process: its pid, whether it is still running (not a zombie), its real, effective and saved uids.

    Read from /proc/PID/status, not from the owner of /proc/PID, which a process can make root's (not dumpable).
    Its first kilobyte holds both lines (the name before them is at most 64 characters, newlines escaped).
    """
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            fd = os.open(f"/proc/{name}/status", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            status = b"\n" + os.read(fd, 1024)
        except OSError:
            continue
        finally:
            os.close(fd)
        state, uids = _status_field(status, b"State") or [b"X"], _status_field(status, b"Uid")
        yield int(name), state[0] not in (b"Z", b"X"), tuple(int(u) for u in uids[:3])


def _status_field(status: bytes, key: bytes) -> list[bytes]:
    """The words of line ``key:`` of a /proc/PID/status text (that starts with a newline); [] without one."""
    start = status.find(b"\n" + key + b":")
    if start < 0:
        return []
    end = status.find(b"\n", start + 1)
    return status[start + len(key) + 2 : None if end < 0 else end].split()


def _process_uids() -> set[int]:
    return {uid for _, running, uids in _processes() if running for uid in uids}


def processes_of(uid: int) -> list[int]:
    """Pids of the live (not zombie) processes running as ``uid`` (real, effective or saved)."""
    return [pid for pid, running, uids in _processes() if running and uid in uids]


def sweep_uid(uid: int) -> None:
    """SIGKILL every process running as ``uid``, however it got there (forked, double-forked, its own session).

    A child takes the uid and signals -1: the kernel delivers SIGKILL to every process of that uid in one pass, with
    forks held off meanwhile, so a fork bomb cannot outrun it. Repeated until /proc shows none left.
    """
    for attempt in range(50):
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child
            try:
                os.setgroups([])
                os.setresgid(uid, uid, uid)
                os.setresuid(uid, uid, uid)
                os.kill(-1, signal.SIGKILL)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        if not processes_of(uid):
            return
        time.sleep(0.002 * attempt)


# ---- one bot process ----


@dataclass(frozen=True, slots=True)
class _Step:
    """One operation of building the view, done in the child: mkdir, file, symlink, (r)bind, device, tmpfs, proc."""

    op: str
    target: str
    source: str = ""
    data: str = ""
    readonly: bool = True


@dataclass(frozen=True, slots=True)
class Confinement:
    """What a bot's process does to itself, between fork and exec (or a fork server's fork and the bot's code).

    With a pid namespace the process forks once more: the bot becomes pid 1 of a namespace of its own, and the
    process stays outside as its monitor (``_monitor``), the process the referee knows. When the bot exits, or the
    monitor is killed, the kernel kills everything left in the namespace: nothing a bot starts outlives it.
    """

    joins: tuple[str, ...]  # its cgroup's cgroup.procs files
    flags: int  # the namespaces to unshare
    ids: tuple[int, int] | None  # (uid, gid) to map to themselves in a user namespace of its own
    steps: tuple[_Step, ...]  # its filesystem view, built under ``home`` (empty: the host's)
    limits: tuple[tuple[int, tuple[int, int]], ...]  # rlimits
    uid: int | None  # its own uid (and gid), or None to keep the referee's
    home: str  # its working directory (and the mount point of its view)
    cores: tuple[int, ...] = ()  # the cores it runs on (empty: the referee's)

    def apply(self) -> None:  # pragma: no cover - runs in the child (tests observe its effects)
        """Confine the calling process (a fresh child); only system calls, no imports, no locks."""
        flags, uid, home = self.flags, self.uid, self.home
        try:
            cgroups.join(self.joins)  # first: everything it becomes and starts is born in its cgroup
            if self.cores:  # before its runtime starts: a JVM or Node counts its processors once, at its start
                with contextlib.suppress(OSError):  # a core the referee lost meanwhile: left where the OS puts it
                    os.sched_setaffinity(0, self.cores)
            if flags:
                _unshare(flags)
            if self.ids is not None:
                _map_ids(*self.ids)
            if flags & _CLONE_NEWPID:
                bot = os.fork()
                if bot != 0:
                    _monitor(bot)  # never returns
            if self.steps:
                _build_view(home, self.steps, uid)
                os.chdir(home)
                os.chroot(".")
            for which, (soft, hard) in self.limits:
                try:
                    resource.setrlimit(which, (soft, hard))
                except (OSError, ValueError):
                    if LIBC is not None:  # elsewhere: the limits the OS honours
                        raise
            if uid is not None:
                own_session_keyring()  # as root: in root's key quota, which no bot can fill
                os.setgroups([])
                os.setresgid(uid, uid, uid)
                os.setresuid(uid, uid, uid)
                empty_user_keyrings()  # what an earlier process of the uid may have left for this one
            os.chdir(home)
            if LIBC is not None:
                prctl(PR_SET_NO_NEW_PRIVS, 1)
                refuse_shared_kernel_objects()  # after no_new_privs, which a filter needs without CAP_SYS_ADMIN
                prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # after setresuid, which clears it
        except BaseException as exc:
            os.write(2, f"[arena: the sandbox could not be set up: {exc}]\n".encode(errors="replace"))
            raise


class Jail:
    """The confinement of one bot process: its uid, its limits, its filesystem view, its namespaces.

    ``workdir`` is a fresh, empty host directory for this process: its home and working directory, and with a
    private view the mount point of the view's root.
    """

    def __init__(self, limits: Limits, *, workdir: Path, cores: list[int] | None = None) -> None:
        """``cores``: the cores the bot runs on (its match's), set before it runs; None: the referee's."""
        self.limits = limits
        self.cores = tuple(cores or ())
        self.caps = capabilities()
        self.workdir = str(workdir)
        self.identity: Identity | None = claim_uid() if self.caps.root else None
        self.cgroup = _cgroup_for(limits)
        if self.identity is not None and not self.caps.mount:
            os.chown(self.workdir, self.identity.uid, self.identity.gid)
        os.chmod(self.workdir, 0o700)
        if not self.caps.root and LIBC is not None:
            _enable_subreaper()

    @property
    def monitored(self) -> bool:
        """Whether the bot is pid 1 of a pid namespace of its own, and its process (the one the referee knows) the
        monitor outside it (``Confinement``): as root with a private view where pid namespaces work, or not root in
        a user namespace."""
        caps = self.caps
        return caps.mount and caps.pid if caps.root else caps.userns

    @property
    def uid(self) -> int | None:
        """The bot's uid, or None when it runs as the referee's."""
        return None if self.identity is None else self.identity.uid

    @property
    def gid(self) -> int | None:
        """The bot's gid, or None when it runs as the referee's."""
        return None if self.identity is None else self.identity.gid

    def environment(self, endpoint: str, token: str) -> dict[str, str]:
        """The whole environment of the bot: the endpoint and token, and what programs need to run."""
        return {
            **plain_environment(),
            "HOME": self.workdir,
            "TMPDIR": "/tmp",
            **transport_environment(endpoint),
            "ARENA_TOKEN": token,
        }

    def confinement(self, argv: tuple[str, ...], endpoint: str) -> Confinement:
        """What the bot's process does to itself before it runs the bot (``Confinement.apply``), all worked out here:
        the child only makes system calls. Plain data, so that a fork server's child can be handed it."""
        caps = self.caps
        limits = _rlimits(self.limits, caps, self.uid, cgroup=self.cgroup is not None)
        joins = () if self.cgroup is None else self.cgroup.join_paths
        private = caps.mount and (caps.root or caps.userns)
        steps = self.view(argv, endpoint) if private else []
        if self.identity is not None and not caps.mount:
            _check_reachable(self.identity.uid, exposures(argv, endpoint, self.limits))
        flags = 0
        if caps.root:
            flags |= (_CLONE_NEWNS if steps else 0) | (_CLONE_NEWNET if caps.network else 0)
            flags |= (_CLONE_NEWIPC if caps.ipc else 0) | (_CLONE_NEWPID if self.monitored else 0)
        elif caps.userns:
            flags |= _CLONE_NEWUSER | _CLONE_NEWNS | _CLONE_NEWNET | _CLONE_NEWIPC | _CLONE_NEWPID
        elif caps.network:
            flags |= _CLONE_NEWUSER | _CLONE_NEWNET | _CLONE_NEWIPC
        ids = (os.geteuid(), os.getegid()) if flags & _CLONE_NEWUSER else None
        return Confinement(joins, flags, ids, tuple(steps), tuple(limits), self.uid, self.workdir, self.cores)

    def view(self, argv: tuple[str, ...], endpoint: str) -> list[_Step]:
        """The steps that build the bot's filesystem view under its workdir (run in its mount namespace)."""
        steps = [_Step("tmpfs", "", data="mode=0755,size=4m,nr_inodes=4096")]
        for name in SYSTEM_DIRS:
            host = f"/{name}"
            if os.path.islink(host):
                steps.append(_Step("symlink", host, source=os.readlink(host)))
            elif os.path.isdir(host):
                steps += [_Step("mkdir", host), _Step("rbind", host, source=host)]
        steps += [_Step("mkdir", "/dev"), _Step("tmpfs", "/dev", data="mode=0755,size=64k,nr_inodes=64")]
        for device in DEVICES:
            if os.path.exists(f"/dev/{device}"):
                steps += [
                    _Step("file", f"/dev/{device}"),
                    _Step("device", f"/dev/{device}", f"/dev/{device}", "", False),
                ]
        for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1")):
            steps.append(_Step("symlink", f"/dev/{name}", source=target))
        steps += [
            _Step("symlink", "/dev/stderr", source="/proc/self/fd/2"),
            _Step("symlink", "/dev/shm", source=VIEW_LINKS["/dev/shm"]),
        ]
        hidepid = "hidepid=2" if self.caps.hidepid else ""
        steps += [_Step("mkdir", "/proc"), _Step("proc", "/proc", data=hidepid)]
        # Of /sys only what runtimes read to count processors: not the host's network devices, cgroups, hardware.
        for path in SYS_DIRS:
            if os.path.isdir(path):
                steps += [_Step("mkdir", path), _Step("bind", path, source=path)]
        size = f"size={self.limits.disk_mb}m,nr_inodes={max(1024, self.limits.disk_mb * 64)}"
        steps += [_Step("mkdir", "/tmp"), _Step("tmpfs", "/tmp", data=f"mode=1777,{size}")]
        steps += [_Step("mkdir", "/var"), _Step("symlink", "/var/tmp", source=VIEW_LINKS["/var/tmp"])]
        bound: list[tuple[str, bool]] = [(f"/{name}", False) for name in SYSTEM_DIRS]  # (path, writable)
        # Shallowest first where they are built: a folder is mounted before what is mounted inside it.
        for path, writable in sorted(exposures(argv, endpoint, self.limits), key=lambda e: _depth(in_view(e[0]))):
            if any(_under(path, b) and (w or not writable) for b, w in bound):
                continue  # already visible, with at least this access
            if not any(_under(path, b) for b, _ in bound):
                steps.append(_Step("mkdir" if os.path.isdir(path) else "file", in_view(path)))
            source = path if os.path.isdir(path) or _open(path, 0o004) else self._readable_copy(path)
            steps.append(_Step("rbind", in_view(path), source=source, readonly=not writable))
            bound.append((path, writable))
        steps.append(_Step("home", in_view(self.workdir)))
        return steps

    def _readable_copy(self, path: str) -> str:
        """A copy of a program file that other users may not read, for the bot to see in its place."""
        folder = Path(f"{self.workdir}.files")
        folder.mkdir(mode=0o700, exist_ok=True)
        copy = folder / f"{len(list(folder.iterdir()))}-{os.path.basename(path)}"
        shutil.copyfile(path, copy)
        os.chmod(copy, 0o755 if os.access(path, os.X_OK) else 0o644)
        return str(copy)

    def sweep(self, session: int) -> None:
        """Kill everything the process left: every process of its uid, or (not root) its session and our adoptees."""
        if self.identity is not None:
            # An empty cgroup: nothing of the uid runs (every process of it since the claim was born in the cgroup,
            # joining it being the first thing a bot's process does, and none can leave it): no sweep to make.
            if self.cgroup is None or self.cgroup.pids():
                sweep_uid(self.identity.uid)
        elif LIBC is not None:
            _kill_adopted(session)

    def memory_killed(self) -> bool:
        """Whether the kernel killed a process of the bot for going past its memory limit (its cgroup's OOM count)."""
        return self.cgroup is not None and self.cgroup.oom_killed()

    def describe(self) -> str:
        """How this process is confined, in one line (the first line of its log)."""
        memory = (
            f"memory {self.limits.memory_mb} MiB resident, no swap, {self.limits.processes} tasks "
            f"(cgroup {self.cgroup.kind})"
            if self.cgroup is not None
            else f"address space {self.limits.address_space_mb} MiB a process, {self.limits.processes} tasks (rlimits)"
        )
        who = f"uid {self.uid}" if self.uid is not None else "the referee's uid"
        view = "private view" if self.caps.mount and (self.caps.root or self.caps.userns) else "host filesystem"
        files = f"{self.limits.open_files} open files a process"
        return f"{memory}, {files}, cpu {self.limits.cpu_seconds} s, {who}, {view}"

    def release(self) -> None:
        """Give back the uid, remove the cgroup and the workdir (call after ``sweep``).

        The uid goes back clean only when its cgroup is gone: every process of the uid since the claim was born in
        it, and none can join it now (a child still setting up, which a kill by process group missed, fails to).
        Without a cgroup, a child that had not yet taken the uid when it was swept might take it later: its next
        claim looks in /proc, as before."""
        removed = self.cgroup is not None and self.cgroup.remove()
        _empty(Path(self.workdir))  # first: a late child that takes the uid after this fails at its home
        _empty(Path(f"{self.workdir}.files"))
        if self.identity is not None:
            self.identity.release(clean=removed)


def plain_environment() -> dict[str, str]:
    """What every process the referee starts for bots keeps of its environment (bots, the fork server): the search
    path, a UTF-8 locale, unbuffered Python, and the referee's PYTHONPATH if it has one; nothing else."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1"}
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env


def transport_environment(endpoint: str) -> dict[str, str]:
    """How a bot finds the referee: ``ARENA_ENDPOINT`` for ZeroMQ, ``ARENA_TRANSPORT=stdio`` for the pipes."""
    return {"ARENA_TRANSPORT": "stdio"} if endpoint == "stdio" else {"ARENA_ENDPOINT": endpoint}


def exposures(argv: tuple[str, ...], endpoint: str, limits: Limits) -> list[tuple[str, bool]]:
    """Host paths (real paths) a bot may reach, and whether it may write there, shallowest first.

    Its runtime (the arena's Python, when that is its program: the interpreter, its standard library, the
    installed packages and the arena package), the directories of its program and of its script (only the files
    when a directory is closed to other users or holds a mount point of the view, like /tmp), its endpoint's
    directory, and the configured ``readable`` and ``writable`` paths.
    """
    paths: dict[str, bool] = {}

    def add(path: str, writable: bool = False) -> None:
        if os.path.exists(path):
            real = os.path.realpath(path)
            paths[real] = paths.get(real, False) or writable

    program = argv[0] if argv else ""
    if program and os.path.realpath(program) == os.path.realpath(sys.executable):
        for prefix in {sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix}:
            add(prefix)
        add(str(Path(__file__).resolve().parent.parent))  # bots import the arena package (protocol, SDK)
        for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep):
            if entry:
                add(entry)
    for part in _program_and_script(argv):
        if os.path.isfile(part):
            real = os.path.realpath(part)
            folder = os.path.dirname(real)
            alone = any(_under(p, folder) for p in PRIVATE_POINTS) or not _open(folder, 0o005)
            add(real if alone else folder)
    for interpreter in _interpreters(argv):  # a runtime installed outside the system directories (nvm, sdkman)
        add(_install_prefix(interpreter))
    if endpoint.startswith("ipc://"):
        add(os.path.dirname(endpoint.removeprefix("ipc://")))
    for path in limits.readable:
        add(path)
    for path in limits.writable:
        add(path, writable=True)
    return sorted(paths.items(), key=lambda item: (item[0].count("/"), item[0]))


def _program_and_script(argv: tuple[str, ...]) -> list[str]:
    """The program, and its script: the first argument that is not an option (``java -Xlog:... Bot.java``). Files
    given as later arguments are the bot's business, not shown to it."""
    script = next((a for a in argv[1:] if not a.startswith("-")), None)
    return [argv[0], *([script] if script else [])] if argv else []


def _interpreters(argv: tuple[str, ...]) -> list[str]:
    """The real paths of the program and of the interpreter its ``#!`` line names, where outside the system
    directories (the arena's own Python is exposed as a whole already)."""
    found = []
    program = argv[0] if argv else ""
    if os.path.isfile(program):
        found.append(os.path.realpath(program))
        with contextlib.suppress(OSError), open(program, "rb") as f:
            head = f.read(256)
        if head.startswith(b"#!") and (words := head[2:].split(b"\n", 1)[0].split()):
            found.append(os.path.realpath(words[0].decode(errors="replace")))
    system = [f"/{name}" for name in SYSTEM_DIRS]
    ours = os.path.realpath(sys.executable)
    return [p for p in found if p != ours and os.path.isfile(p) and not any(_under(p, d) for d in system)]


def _install_prefix(program: str) -> str:
    """Where a runtime is installed: the folder above its ``bin`` (``~/.nvm/versions/node/v20``), else its own."""
    folder = os.path.dirname(program)
    return os.path.dirname(folder) if os.path.basename(folder) == "bin" else folder


def in_view(path: str) -> str:
    """Where the view builds what the bot will see at ``path``: through the view's own links (a TMPDIR under /var/tmp
    or /dev/shm, say). The steps run before the chroot, where an absolute link would lead out of the view."""
    for link, target in VIEW_LINKS.items():
        if _under(path, link):
            return target + path.removeprefix(link)
    return path


def _depth(path: str) -> tuple[int, str]:
    return path.count("/"), path


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _open(path: str, bits: int) -> bool:
    """Whether ``path`` grants other users these permission bits (0o004 read, 0o001 search)."""
    return os.stat(path).st_mode & bits == bits


def _build_view(root: str, steps: tuple[_Step, ...], uid: int | None) -> None:  # pragma: no cover - runs in the child
    """Carry out the view's steps under ``root`` (in a fresh mount namespace, before chroot), with the modes they
    name whatever the arena's umask (under 077 the folders on the way to a bot's home and endpoint were closed to
    the bot's uid: every bot failed to start)."""
    umask = os.umask(0o022)
    try:
        _build_steps(root, steps, uid)
    finally:
        os.umask(umask)  # the bot's own, as the arena's was


def _build_steps(root: str, steps: tuple[_Step, ...], uid: int | None) -> None:  # pragma: no cover - in the child
    _mount(None, "/", None, _MS_REC | _MS_PRIVATE)
    for step in steps:
        at = root + step.target
        if step.op == "tmpfs":
            _mount("tmpfs", at, "tmpfs", _MS_NOSUID | _MS_NODEV, step.data)
        elif step.op == "mkdir":
            os.makedirs(at, mode=0o755, exist_ok=True)
        elif step.op == "file":
            os.makedirs(os.path.dirname(at), mode=0o755, exist_ok=True)
            os.close(os.open(at, os.O_CREAT | os.O_WRONLY, 0o644))
        elif step.op == "symlink":
            os.makedirs(os.path.dirname(at), mode=0o755, exist_ok=True)
            os.symlink(step.source, at)
        elif step.op in ("bind", "rbind", "device"):
            _mount(step.source, at, None, _MS_BIND | (_MS_REC if step.op == "rbind" else 0))
            locked = _MS_NOSUID | (0 if step.op == "device" else _MS_NODEV) | (_MS_RDONLY if step.readonly else 0)
            _mount(None, at, None, _MS_BIND | _MS_REMOUNT | locked | _kept_flags(at))
        elif step.op == "proc":
            _mount("proc", at, "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, step.data or None)
        elif step.op == "home":
            os.makedirs(at, mode=0o700, exist_ok=True)
            if uid is not None:
                os.chown(at, uid, uid)
            os.chmod(at, 0o700)


def _kept_flags(path: str) -> int:  # pragma: no cover - runs in the child
    """The flags of the mount at ``path`` that a remount must keep (in a user namespace it may not drop them)."""
    have = os.statvfs(path).f_flag
    kept = 0
    for st, ms in _KEPT:
        if have & st:
            kept |= ms
    return kept


_KEPT = (
    (os.ST_RDONLY, _MS_RDONLY),
    (os.ST_NOSUID, _MS_NOSUID),
    (os.ST_NODEV, _MS_NODEV),
    (os.ST_NOEXEC, _MS_NOEXEC),
    (os.ST_NOATIME, 1024),
    (os.ST_NODIRATIME, 2048),
    (os.ST_RELATIME, 1 << 21),
)


def _monitor(bot: int) -> None:  # pragma: no cover - runs in the child
    """The bot's monitor (outside its pid namespace): wait for the bot and end the same way. Never returns.

    It holds no descriptor but its standard streams (so the referee sees the bot's exec, and no socket of the
    referee's lingers), and dies with the referee, which takes the bot's whole namespace with it.
    """
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    os.closerange(3, max(65536, resource.getrlimit(resource.RLIMIT_NOFILE)[0]))  # a referee may hold more now
    while True:
        try:
            _, status = os.waitpid(bot, 0)
            break
        except InterruptedError:
            continue
        except ChildProcessError:
            os._exit(1)
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        with contextlib.suppress(OSError, ValueError):  # SIGKILL and SIGSTOP keep their default anyway
            signal.signal(number, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [number])
        os.kill(os.getpid(), number)
        os._exit(128 + number)  # a signal that does not end a process by default
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


_cgroups_made = itertools.count()


def _cgroup_for(limits: Limits) -> cgroups.BotCgroup | None:
    """A cgroup for the next bot process (its memory, tasks and CPU share), where this host gives us cgroups."""
    if not cgroups.detect().available:
        return None
    return cgroups.BotCgroup.create(
        f"bot{next(_cgroups_made)}",
        memory_bytes=limits.memory_mb * MIB,
        tasks=limits.processes,
        cpu_fraction=limits.cpu_cores,
    )


def _rlimits(
    limits: Limits, caps: Capabilities, uid: int | None, *, cgroup: bool = False
) -> list[tuple[int, tuple[int, int]]]:
    """The rlimits of a bot process, clamped to what an unprivileged referee may set (no address-space limit when
    its cgroup limits the memory it really uses)."""
    nproc = limits.processes
    if uid is None and not caps.network:  # sharing the referee's uid: count what already runs under it
        nproc += _tasks_of(os.getuid())
    space = [] if cgroup else [(resource.RLIMIT_AS, limits.address_space_mb * MIB, limits.address_space_mb * MIB)]
    wanted = [
        *space,
        (resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 1),
        (resource.RLIMIT_NPROC, nproc, nproc),
        (resource.RLIMIT_FSIZE, limits.file_size_mb * MIB, limits.file_size_mb * MIB),
        (resource.RLIMIT_NOFILE, limits.open_files, limits.open_files),
        (resource.RLIMIT_CORE, 0, 0),
    ]
    result = []
    for which, soft, hard in wanted:
        if not caps.root:
            current = resource.getrlimit(which)[1]
            if current != resource.RLIM_INFINITY:
                soft, hard = min(soft, current), min(hard, current)
        result.append((which, (soft, hard)))
    return result


def _tasks_of(uid: int) -> int:
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if entry.stat().st_uid == uid:
                    count += len(os.listdir(f"/proc/{entry.name}/task"))
    return count


def _check_reachable(uid: int, paths: list[tuple[str, bool]]) -> None:
    """Refuse to start a bot under its own uid when (with no private view) its program is out of its reach."""
    for path, _ in paths:
        folder = path
        while folder != "/":
            folder = os.path.dirname(folder)
            mode = os.stat(folder).st_mode
            if not mode & 0o001:
                raise SandboxError(
                    f"bots run as uid {uid} and cannot reach {path} ({folder} is closed to other users); "
                    "open it, or run the arena as an unprivileged user"
                )


def _empty(folder: Path) -> None:
    """Remove the workdir and what a bot left in it (files of its uid; we are root or the same user)."""
    shutil.rmtree(folder, ignore_errors=True)


# ---- not root: the referee adopts orphans and kills them ----

_live: set[int] = set()  # pids of bot processes (and of the fork server) started, not root, still running


def track(pid: int, alive: bool) -> None:
    """Note a bot process (or the fork server) started or reaped (used when not root, to tell them from adopted
    orphans)."""
    if alive:
        _live.add(pid)
    else:
        _live.discard(pid)


def _enable_subreaper() -> None:
    with contextlib.suppress(OSError):
        prctl(PR_SET_CHILD_SUBREAPER, 1)


def _kill_adopted(session: int) -> None:
    """SIGKILL what a bot left (not root): its session, and the processes re-parented to us in sessions of their own.

    We are a child subreaper, so a descendant that double-forked into a new session is re-parented to us; a process
    of ours that is not a tracked bot and is not in our own session can only be such an escapee.
    """
    me, mine = os.getpid(), os.getsid(0)
    for _ in range(50):
        found = []
        for pid, fields in processes():
            if pid in _live:
                continue
            parent, sid = int(fields[PPID]), int(fields[SESSION])
            if fields[STATE] not in GONE and (sid == session or (parent == me and sid != mine)):
                found.append((pid, parent == me))
        if not found:
            return
        for pid, _ in found:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for pid, adopted in found:
            if adopted:
                with contextlib.suppress(ChildProcessError, OSError):
                    os.waitpid(pid, 0)
