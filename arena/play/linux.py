"""What the arena asks of Linux directly: libc calls through ctypes, a process's line in ``/proc/PID/stat``, and
the process's own limit of open descriptors.

The libc functions are bound once, at import, so that a child between fork and exec only calls them (no import, no
lock). Elsewhere than Linux ``LIBC`` is None and the callers fall back (no namespaces, no parent-death signal).
"""

from __future__ import annotations

import ctypes
import errno
import math
import os
import resource
import select
import signal
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import socket

PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 4, 36, 38


def _libc() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


LIBC = _libc()


def check(result: int, what: str) -> None:
    """Raise the errno of a failed libc call as an OSError naming ``what``."""
    if result != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{what}: {os.strerror(code)}")


def raise_open_files(needed: int) -> float:
    """Raise this process's limit of open descriptors towards ``needed`` (never lower it): the soft limit up to the
    hard one, and the hard one too where we may (with CAP_SYS_RESOURCE, up to ``fs.nr_open``). The soft limit it
    has now (``math.inf``: unlimited)."""
    unlimited = resource.RLIM_INFINITY
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != unlimited and soft < needed:
        try:
            with open("/proc/sys/fs/nr_open") as nr_open:
                ceiling = int(nr_open.read())
        except (OSError, ValueError):
            ceiling = needed
        wanted = min(needed, ceiling)
        attempts = [(wanted, hard if hard == unlimited else max(hard, wanted))]
        if hard != unlimited and hard < wanted:
            attempts.append((hard, hard))  # not allowed past it: as far as it goes
        for limits in attempts:
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, limits)
                break
            except (ValueError, OSError):
                continue
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return math.inf if soft == unlimited else soft


def prctl(option: int, value: int) -> None:
    """``prctl(option, value)``; raises OSError on failure."""
    check(LIBC.prctl(option, ctypes.c_ulong(value), 0, 0, 0), "prctl")


# keyctl(2) by its system call number (glibc has no wrapper) on the machines we know; elsewhere no keyring is cleared.
_KEYCTL = {"x86_64": 250, "aarch64": 219, "i686": 288, "armv7l": 311, "riscv64": 219, "ppc64le": 271}.get(
    os.uname().machine
)
KEYCTL_JOIN_SESSION_KEYRING, KEYCTL_CLEAR, KEYCTL_UNLINK, KEYCTL_GET_PERSISTENT = 1, 7, 9, 22
KEY_SPEC_SESSION_KEYRING, KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING = -3, -4, -5
# Errors that mean this process has no keyrings to use (the kernel has none, or a seccomp policy refuses keyctl to
# every process of the container): then a bot has none to read either.
_NO_KEYRINGS = {errno.ENOSYS, errno.EOPNOTSUPP, errno.EPERM}


def _keyctl(*args: int | None) -> int:
    """keyctl(2) with these arguments (None: a NULL pointer); its result, negative on failure (errno set)."""
    number = _KEYCTL
    assert number is not None  # callers return first where the call is unknown
    words = [None if a is None else ctypes.c_long(a) for a in args]
    return int(LIBC.syscall(ctypes.c_long(number), *words))


def own_session_keyring() -> None:
    """In a child about to take a bot's uid (still root): join a new, empty session keyring, owned by root.

    A process inherits its parent's session keyring: a referee started from an ssh login, a systemd service or a
    container has one, and every bot would share it, to read the referee's keys and to pass notes to the others.
    Joined before the uid changes, the new keyring counts against root's key quota, not the bot uid's, which a
    bot can fill (200 keys) so that the next process of its uid could not join one and kept its referee's. Raises
    OSError where the kernel has keyrings and still gives none (the bot must not start with its referee's).
    """
    if LIBC is None or _KEYCTL is None:
        return
    if _keyctl(KEYCTL_JOIN_SESSION_KEYRING, None) < 0:
        code = ctypes.get_errno()
        if code not in _NO_KEYRINGS:
            raise OSError(code, f"a session keyring of its own: {os.strerror(code)}")


def empty_user_keyrings() -> None:
    """In a child that has just taken a bot's uid: empty the keyrings the kernel keeps with the uid, which outlive
    its processes (its user, user-session and persistent keyrings), so that a bot cannot leave there what it knows
    for a later process of the same uid. Failures are ignored: a kernel or container without keyrings has none."""
    if LIBC is None or _KEYCTL is None:
        return
    for keyring in (KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING):
        _keyctl(KEYCTL_CLEAR, keyring)
    persistent = _keyctl(KEYCTL_GET_PERSISTENT, -1, KEY_SPEC_SESSION_KEYRING)  # linked into the session keyring
    if persistent > 0:
        _keyctl(KEYCTL_CLEAR, persistent)
        _keyctl(KEYCTL_UNLINK, persistent, KEY_SPEC_SESSION_KEYRING)


# seccomp: calls refused to bots. The key management calls, as Docker's default profile refuses them: keyrings are not
# namespaced by uid, so a bot could make a keyring, open it to all, and another bot of another uid join it by name.
# inotify, fanotify, dnotify (fcntl's F_NOTIFY) and leases (F_SETLEASE): a bot watching a system file that every bot
# may read sees its partner open it. File locks (flock, and fcntl's record-lock commands): a lock taken on a file
# both may read (a system file, their own script) is seen by the other whatever its uid or namespace (F_GETLK names
# a conflicting lock, flock fails on one): two copies of one entrant spelled their cards in lock offsets. cachestat:
# which pages of a shared file are cached, the same kind of note. These are refused with EPERM, the locks with ENOLCK
# ("no locks available", which programs that lock take as a lock they cannot have). setsid (EPERM): a new session is a
# scheduler autogroup of its own where bots share the root cpu cgroup, and a bot's children each in one took the
# core from its opponent. A bot needs none of them. (Futexes on shared file pages are such a channel too, but refusing
# them hangs Python's multiprocessing locks: SECURITY.md, covert channels.)
# (machine: audit arch, calls refused with EPERM, calls refused with ENOLCK, fcntl)
_MACHINES = {
    # add_key, request_key, keyctl, inotify_init, inotify_add_watch, inotify_init1, fanotify_init, setsid, cachestat;
    # flock; fcntl
    "x86_64": (0xC000003E, (248, 249, 250, 253, 254, 294, 300, 112, 451), (73,), 72),
    "aarch64": (0xC00000B7, (217, 218, 219, 26, 27, 262, 157, 451), (32,), 25),
}
_MACHINE = _MACHINES.get(os.uname().machine)
_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2
_SECCOMP_RET_ALLOW, _SECCOMP_RET_ERRNO, _SECCOMP_RET_KILL_PROCESS = 0x7FFF0000, 0x00050000, 0x80000000
_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06
_X32_BIT = 0x40000000
_ARCH, _NR, _ARG1_LOW = 4, 0, 24  # offsets in seccomp_data: arch, nr, the low half of args[1] (little-endian)
# fcntl's commands to lease a file (signalled when another process opens it, whose open then waits up to 45 s) and
# to watch a folder (dnotify); fcntl reads its command as a 32-bit int
F_SETLEASE, F_NOTIFY = 1024, 1026
# fcntl's record locks: F_GETLK, F_SETLK, F_SETLKW (the same numbers as their 64 forms on 64-bit machines) and the
# open file description locks F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW
F_LOCKS = (5, 6, 7, 36, 37, 38)


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def _bot_filter(
    arch: int, refused: tuple[int, ...], unlocked: tuple[int, ...], fcntl: int
) -> list[tuple[int, int, int, int]]:
    """The filter's program: (code, jump if true, jump if false, constant), jumps counted from the next step. It is
    written with the names of its endings (allow, kill, refuse, nolock), which become jumps at the end."""
    Jump = int | str
    steps: list[tuple[int, Jump, Jump, int]] = [
        (_LD_W_ABS, 0, 0, _ARCH),
        (_JEQ_K, 1, 0, arch),
        (_RET_K, 0, 0, _SECCOMP_RET_KILL_PROCESS),  # another machine's calls (a 32-bit ABI)
        (_LD_W_ABS, 0, 0, _NR),
        (_JGE_K, "kill", 0, _X32_BIT),  # x32 calls
        *((_JEQ_K, "refuse", 0, number) for number in refused),
        *((_JEQ_K, "nolock", 0, number) for number in unlocked),
        (_JEQ_K, 0, "allow", fcntl),
        (_LD_W_ABS, 0, 0, _ARG1_LOW),
        (_JEQ_K, "refuse", 0, F_SETLEASE),
        (_JEQ_K, "refuse", 0, F_NOTIFY),
        *((_JEQ_K, "nolock", 0, command) for command in F_LOCKS),
        (_RET_K, 0, 0, _SECCOMP_RET_ALLOW),
    ]
    endings = {
        "allow": _SECCOMP_RET_ALLOW,
        "kill": _SECCOMP_RET_KILL_PROCESS,
        "refuse": _SECCOMP_RET_ERRNO | errno.EPERM,
        "nolock": _SECCOMP_RET_ERRNO | errno.ENOLCK,
    }
    at = {name: len(steps) + index for index, name in enumerate(endings)}
    steps += [(_RET_K, 0, 0, value) for value in endings.values()]

    def offset(jump: Jump, step: int) -> int:
        return at[jump] - step - 1 if isinstance(jump, str) else jump

    return [(code, offset(yes, step), offset(no, step), k) for step, (code, yes, no, k) in enumerate(steps)]


def refuse_shared_kernel_objects() -> bool:
    """In a bot's child, after ``no_new_privs``: refuse it (and all it starts) the calls through which bots could
    meet or pass notes (keyrings, file watches, file locks, page-cache state) and new sessions (above). Another
    machine's calls (a 32-bit or x32 ABI) end the process. False where this machine is not known here: nothing is
    refused (``sandbox.capabilities`` then says bots are not kept apart)."""
    if LIBC is None or _MACHINE is None:
        return False
    program = _bot_filter(*_MACHINE)
    filters = (_SockFilter * len(program))(*(_SockFilter(*step) for step in program))
    fprog = _SockFprog(len(program), filters)
    check(LIBC.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0), "seccomp")
    return True


def drop_page_cache() -> None:
    """Write back, then drop the host's clean page cache, dentries and inodes (root only; OSError otherwise): what a
    bot of one round could have left the next in which file pages are cached."""
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as control:
        control.write("3")


def die_with_parent() -> None:
    """In a child between fork and exec: ask Linux to SIGKILL it when its parent dies (no-op elsewhere)."""
    if LIBC is not None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


# ---- /proc/PID/stat ----
# Fields after the command's closing parenthesis (the command may hold spaces and parentheses): 0 state, 1 ppid,
# 2 process group, 3 session, ..., 11-14 its user and system time and those of its reaped children (clock ticks),
# ..., 19 start time in clock ticks since boot, ..., 45-48 the bounds of the arguments and of the environment in
# the process's memory (Linux 3.5).
STATE, PPID, SESSION, START_TIME = 0, 1, 3, 19
UTIME, STIME, CSTIME = 11, 12, 14  # its user and system time; the last of the four processor times
ARG_START, ARG_END, ENV_START, ENV_END = 45, 46, 47, 48  # where its arguments and environment lie in its memory
GONE = (b"Z", b"X")  # zombie or dead: not running any more


def readable(source: int | socket.socket, seconds: float) -> bool:
    """Wait up to ``seconds`` for ``source`` to be readable (a pidfd: its process ended; a socket: a message, or its
    peer gone); whether it is. poll, not select: a referee holding its bots' connections has descriptors past 1023,
    which select refuses."""
    waiting = select.poll()
    waiting.register(source, select.POLLIN)
    return bool(waiting.poll(max(0.0, seconds) * 1000))


def stat_fields(pid: int | str) -> list[bytes] | None:
    """The fields of ``/proc/PID/stat`` after the command (None when the process is gone or unreadable)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return fields if len(fields) > START_TIME else None


def start_ticks(pid: int | str) -> int | None:
    """When a live process started (clock ticks since boot): with its pid, it names the process across reuse."""
    fields = stat_fields(pid)
    return None if fields is None or fields[STATE] in GONE else int(fields[START_TIME])


def resident_bytes() -> int | None:
    """This process's resident memory in bytes (None where /proc does not tell)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError, AttributeError):
        return None


def release_free_memory() -> None:
    """Give the memory this process has freed back to the system (glibc's ``malloc_trim``; no-op elsewhere)."""
    trim = getattr(LIBC, "malloc_trim", None)
    if trim is not None:
        trim(0)


def children_of(pid: int) -> list[int]:
    """The children of process ``pid``'s first thread (none when it is gone, or where Linux does not list them)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children", "rb") as f:
            return [int(child) for child in f.read().split()]
    except OSError:
        return []


def processes() -> Iterator[tuple[int, list[bytes]]]:
    """Every process with the fields of its stat line."""
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and (fields := stat_fields(entry.name)) is not None:
            yield int(entry.name), fields
