"""ZeroMQ transport: one private ROUTER endpoint per bot process. The only module that imports zmq.

Each bot process gets its own ipc endpoint and its own secret token. The endpoint's socket sits alone in a directory
of its own inside the match's private directory; when bots run under uids of their own (arena.sandbox), that
directory is open to the group of the bot process of the moment and to nobody else, and in a bot's private view no
other endpoint exists. The first peer whose hello carries the token becomes the endpoint's one accepted peer;
frames from any other peer on that endpoint (which only the bot itself can have opened) are counted apart, for the
referee to judge (a flood past its limits), and their bytes are not the seat's traffic. Before a bot process is
restarted its endpoint is bound afresh (``Hub.renew``): old connections and their queues are dropped unread.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import select
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import zmq

# Frames above this size make ZeroMQ drop the connection before the referee ever reads them; frames between
# protocol.MAX_MESSAGE_BYTES and this are read and recorded as an ``oversized`` violation.
HARD_FRAME_LIMIT = 32 * 1024 * 1024


# Plain ints: pyzmq's enum flags cost a Python call per operation on the referee's hot path.
_NOBLOCK = int(zmq.NOBLOCK)
_SNDMORE_NOBLOCK = int(zmq.SNDMORE) | int(zmq.NOBLOCK)
_EVENTS = int(zmq.EVENTS)
_POLLIN = int(zmq.POLLIN)
_RCVTIMEO = int(zmq.RCVTIMEO)


@dataclass
class Endpoint:
    """The referee's end of one bot process's connection."""

    index: int
    address: str
    socket: zmq.Socket  # type: ignore[type-arg]
    peer: bytes | None = None
    last_sender: bytes | None = None
    foreign_frames: int = 0  # frames from other connections (or a wrong token), over the match
    strangers: int = 0  # the same since the current process started, and their bytes: past a limit, a flood
    stranger_bytes: int = 0
    burst: int = 0  # frames of the accepted peer in the current unasked burst
    flooded: bool = False  # a flood was charged for the current process: not again until it is replaced
    bytes_out: int = 0  # traffic with the accepted peer, for timing reports
    bytes_in: int = 0
    _timeout: int = -1
    # True when the last look found nothing waiting and no socket call came since: then nothing has arrived for as
    # long as the socket's mailbox fd (ZMQ_FD) stays unreadable (see Hub.maybe_waiting).
    quiet: bool = False

    def send(self, data: bytes) -> bool:
        """Send one frame to the accepted peer; False when there is none or it cannot take more."""
        if self.peer is None:
            return False
        self.quiet = False  # a send may process the socket's commands, input arrivals among them
        try:
            self.socket.send(self.peer, _SNDMORE_NOBLOCK)
            self.socket.send(data, _NOBLOCK)
        except zmq.ZMQError:
            return False
        self.bytes_out += len(data)
        return True

    def send_to(self, peer: bytes, data: bytes) -> None:
        """Send one frame to a peer that was not accepted (to tell it why)."""
        self.quiet = False
        with contextlib.suppress(zmq.ZMQError):
            self.socket.send_multipart([peer, data], flags=zmq.NOBLOCK)

    def receive(self) -> tuple[bytes, bytes] | None:
        """One waiting (peer id, frame) pair without blocking, or None. Multi-frame messages keep their first frame."""
        if not self.has_input():
            return None
        try:
            parts = self.socket.recv_multipart(_NOBLOCK)
        except zmq.Again:
            self.quiet = True
            return None
        self.quiet = False
        return self._split(parts)

    def receive_within(self, timeout: float) -> tuple[bytes, bytes] | None:
        """One (peer id, frame) pair, waiting at most ``timeout`` seconds (a blocking read: no poll round trip)."""
        ms = max(1, int(timeout * 1000))
        if ms != self._timeout:
            self.socket.setsockopt(_RCVTIMEO, ms)
            self._timeout = ms
        try:
            parts = self.socket.recv_multipart()
        except zmq.Again:
            self.quiet = True
            return None
        self.quiet = False
        return self._split(parts)

    def _split(self, parts: list[bytes]) -> tuple[bytes, bytes] | None:
        if len(parts) < 2:
            return None
        self.last_sender = parts[0]
        if parts[0] == self.peer:  # strangers' bytes are not the seat's traffic
            self.bytes_in += len(parts[1])
        return parts[0], parts[1] if len(parts) == 2 else b"\x00multipart"

    def has_input(self) -> bool:
        """Whether a frame is waiting, without waiting."""
        events: int = self.socket.getsockopt(_EVENTS)  # type: ignore[assignment]
        self.quiet = not events & _POLLIN
        return not self.quiet

    def forget_peer(self) -> None:
        """Forget the accepted peer (its process is gone; a restarted process says hello again)."""
        self.peer = None
        self.last_sender = None
        self.strangers = self.stranger_bytes = self.burst = 0
        self.flooded = False


OWNER = "referee"  # in a match directory: the pid and start time of the referee process that made it


def _start_time(pid: int) -> str | None:
    """When a process started (clock ticks since boot, from /proc), or None where that cannot be read."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    return stat.rsplit(b")", 1)[1].split()[19].decode()


def remove_stale_directories() -> None:
    """Remove the match directories of referees that died without closing them (killed with SIGKILL)."""
    if _start_time(os.getpid()) is None:
        return  # no /proc: no telling the living from the dead
    for entry in os.scandir(tempfile.gettempdir()):
        if not entry.name.startswith("arena-") or not entry.is_dir(follow_symlinks=False):
            continue
        try:
            if entry.stat(follow_symlinks=False).st_uid != os.geteuid():
                continue
            pid, start = Path(entry.path, OWNER).read_text().split()
        except (OSError, ValueError):
            continue
        if _start_time(int(pid)) != start:
            shutil.rmtree(entry.path, ignore_errors=True)


class Hub:
    """All endpoints of one match, and waiting on them together."""

    def __init__(self) -> None:
        self.context = zmq.Context()
        remove_stale_directories()
        self.directory = tempfile.mkdtemp(prefix="arena-")
        # Bots under other uids may pass through (to their own endpoint and workdir) but not list it.
        os.chmod(self.directory, 0o711 if os.geteuid() == 0 else 0o700)
        if (me := _start_time(os.getpid())) is not None:
            Path(self.directory, OWNER).write_text(f"{os.getpid()} {me}")
        self.endpoints: list[Endpoint] = []
        self.poller = zmq.Poller()
        self.mailboxes = select.poll()  # the sockets' ZMQ_FDs, by fd
        self._by_fd: dict[int, Endpoint] = {}
        self._starts = itertools.count()

    def open(self) -> Endpoint:
        """Bind a new private endpoint: ``<dir>/ep<index>/bot<index>.sock``, reachable by no one until ``admit``."""
        index = len(self.endpoints)
        folder = Path(self.directory, f"ep{index}")
        folder.mkdir(mode=0o700)
        address = f"ipc://{folder}/bot{index}.sock"
        endpoint = Endpoint(index, address, self._bind(address))
        self.endpoints.append(endpoint)
        self._watch(endpoint)
        return endpoint

    def renew(self, endpoint: Endpoint) -> None:
        """Close the endpoint's socket and bind a fresh one at the same address, before a bot process is restarted.

        Every connection of the old process (and of anything it started) is cut, and whatever it queued is dropped
        unread: a flooder's backlog costs nothing, and nothing the dead process sent becomes the new one's word.
        """
        self.poller.unregister(endpoint.socket)
        fd: int = endpoint.socket.getsockopt(zmq.FD)  # type: ignore[assignment]
        self.mailboxes.unregister(fd)
        del self._by_fd[fd]
        endpoint.socket.close(linger=0)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(endpoint.address.removeprefix("ipc://"))
        endpoint.socket = self._bind(endpoint.address)
        endpoint.quiet = False
        endpoint._timeout = -1
        endpoint.forget_peer()
        self._watch(endpoint)

    def _bind(self, address: str) -> zmq.Socket:  # type: ignore[type-arg]
        socket = self.context.socket(zmq.ROUTER)
        socket.setsockopt(zmq.LINGER, 0)
        socket.setsockopt(zmq.MAXMSGSIZE, HARD_FRAME_LIMIT)
        socket.setsockopt(zmq.RCVHWM, 1000)
        socket.bind(address)
        return socket

    def _watch(self, endpoint: Endpoint) -> None:
        self.poller.register(endpoint.socket, zmq.POLLIN)
        fd: int = endpoint.socket.getsockopt(zmq.FD)  # type: ignore[assignment]
        self.mailboxes.register(fd, select.POLLIN)
        self._by_fd[fd] = endpoint

    def admit(self, endpoint: Endpoint, gid: int | None) -> None:
        """Open an endpoint to one group alone (a bot process's own), closing it to the group admitted before.

        The directory becomes ``root:gid 0710`` and the socket ``root:gid 0660``: the bot can connect but cannot
        list, remove or replace anything. With ``gid`` None (bots share the referee's uid) nothing changes.
        """
        if gid is None:
            return
        folder = Path(self.directory, f"ep{endpoint.index}")
        path = folder / f"bot{endpoint.index}.sock"
        os.chown(folder, -1, gid)
        os.chmod(folder, 0o710)
        os.chown(path, -1, gid)
        os.chmod(path, 0o660)

    def workdir(self, endpoint: Endpoint) -> Path:
        """A fresh empty directory for the next process of this endpoint's bot (its home), removed by ``close``."""
        folder = Path(self.directory, f"home{endpoint.index}-{next(self._starts)}")
        folder.mkdir(mode=0o700)
        return folder

    def wait(self, timeout: float) -> list[Endpoint]:
        """Endpoints with frames waiting, after at most ``timeout`` seconds."""
        ready = dict(self.poller.poll(max(0, int(timeout * 1000))))
        for endpoint in self.endpoints:
            endpoint.quiet = False
        return [e for e in self.endpoints if e.socket in ready]

    def maybe_waiting(self) -> list[Endpoint]:
        """Endpoints that may have frames waiting, at the cost of one system call for all the quiet ones.

        A ZeroMQ socket's mailbox fd turns readable when a command reaches it, and a message that arrives for a
        reader that found nothing is announced by one. So a quiet endpoint whose fd is not readable has nothing
        waiting; the others are worth a real look (``has_input`` or ``receive``), which also makes them quiet again.
        """
        stirred = {fd for fd, _ in self.mailboxes.poll(0)}
        return [e for fd, e in self._by_fd.items() if not e.quiet or fd in stirred]

    def close(self) -> None:
        """Close every socket and remove the private directory."""
        for endpoint in self.endpoints:
            endpoint.socket.close(linger=0)
        self.context.term()
        shutil.rmtree(self.directory, ignore_errors=True)
