"""ZeroMQ transport: one private ROUTER endpoint per bot process. The only module that imports zmq.

Each bot process gets its own ipc endpoint and its own secret token. The endpoint's socket sits alone in a directory
of its own inside the match's private directory; when bots run under uids of their own (arena.play.sandbox), that
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
import struct
import tempfile
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import zmq
from zmq.backend import Socket as _RawSocket

from arena.errors import ArenaError
from arena.play.linux import start_ticks

# Frames above this size make ZeroMQ drop the connection before the referee ever reads them; frames between
# protocol.MAX_MESSAGE_BYTES and this are read and recorded as an ``oversized`` violation. ZeroMQ holds a frame
# whole until its last byte: a frame begun and never finished holds up to this much of the referee's memory, for
# each connection, and a bot may open many (what that did to a referee: SECURITY.md).
HARD_FRAME_LIMIT = 1024 * 1024


# Plain ints: pyzmq's enum flags cost a Python call per operation on the referee's hot path.
_NOBLOCK = int(zmq.NOBLOCK)
_SNDMORE_NOBLOCK = int(zmq.SNDMORE) | int(zmq.NOBLOCK)
_EVENTS = int(zmq.EVENTS)
_POLLIN = int(zmq.POLLIN)
_RCVTIMEO = int(zmq.RCVTIMEO)
# The socket's own methods, past pyzmq's Python layer (its ``send`` checks for routing ids and groups we never use,
# its ``recv_multipart`` asks for RCVMORE after every frame): about 1 us a call on the referee's hot path.
_send = _RawSocket.send
_recv = _RawSocket.recv


@dataclass(kw_only=True)
class Channel:
    """The referee's end of one bot process's connection, whatever carries it: the accepted peer and the counters.

    The I/O methods (``send``, ``send_to``, ``receive``, ``receive_within``, ``has_input``) are a ZeroMQ
    endpoint's (``Endpoint``) or a pair of pipes' (``PipeEndpoint``).
    """

    index: int
    address: str
    peer: bytes | None = None
    last_sender: bytes | None = None
    foreign_frames: int = 0  # frames from other connections (or a wrong token), over the match
    strangers: int = 0  # the same since the current process started, and their bytes: past a limit, a flood
    stranger_bytes: int = 0
    burst: int = 0  # frames of the accepted peer in the current unasked burst
    late: int = 0  # late answers (or copies) of the accepted peer since its last valid answer: ignored, counted
    flooded: bool = False  # a flood was charged for the current process: not again until it is replaced
    bytes_out: int = 0  # traffic with the accepted peer, for timing reports
    bytes_in: int = 0
    # True when the last look found nothing waiting and no call came since: then nothing has arrived for as long as
    # the channel's fd (a socket's ZMQ_FD mailbox, a pipe) stays unreadable (see Hub.maybe_waiting).
    quiet: bool = False

    def forget_peer(self) -> None:
        """Forget the accepted peer (its process is gone; a restarted process says hello again)."""
        self.peer = None
        self.last_sender = None
        self.strangers = self.stranger_bytes = self.burst = self.late = 0
        self.flooded = False

    def send(self, data: bytes) -> bool:
        """Send one frame to the accepted peer; False when there is none or it cannot take more."""
        raise NotImplementedError

    def send_to(self, peer: bytes, data: bytes) -> None:
        """Send one frame to a peer that was not accepted (to tell it why)."""
        raise NotImplementedError

    def receive(self) -> tuple[bytes, bytes] | None:
        """One waiting (peer id, frame) pair without blocking, or None."""
        raise NotImplementedError

    def receive_within(self, timeout: float) -> tuple[bytes, bytes] | None:
        """One (peer id, frame) pair, waiting at most ``timeout`` seconds."""
        raise NotImplementedError

    def has_input(self) -> bool:
        """Whether a frame is waiting, without waiting."""
        raise NotImplementedError

    def connections(self) -> int:
        """How many connections the bot's processes hold open to the referee (a pipe: one)."""
        return 1


@dataclass(kw_only=True)
class Endpoint(Channel):
    """A bot process's private ZeroMQ ROUTER endpoint."""

    socket: zmq.Socket  # type: ignore[type-arg]
    monitor: zmq.Socket | None = None  # type: ignore[type-arg]  # the socket's connection events (Hub._watch)
    _timeout: int = -1
    _connections: int = 0

    def send(self, data: bytes) -> bool:
        """Send one frame to the accepted peer; False when there is none or it cannot take more."""
        if self.peer is None:
            return False
        self.quiet = False  # a send may process the socket's commands, input arrivals among them
        try:
            _send(self.socket, self.peer, _SNDMORE_NOBLOCK)
            _send(self.socket, data, _NOBLOCK)
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
            return self._read(_NOBLOCK)
        except zmq.Again:
            self.quiet = True
            return None

    def receive_within(self, timeout: float) -> tuple[bytes, bytes] | None:
        """One (peer id, frame) pair, waiting at most ``timeout`` seconds (a blocking read: no poll round trip)."""
        ms = max(1, int(timeout * 1000))
        if ms != self._timeout:
            self.socket.setsockopt(_RCVTIMEO, ms)
            self._timeout = ms
        try:
            return self._read(0)
        except zmq.Again:
            self.quiet = True
            return None

    def _read(self, flags: int) -> tuple[bytes, bytes]:
        """One whole message: its sender (the ROUTER's routing-id frame, which a frame always follows) and its frame;
        a message of several frames is read to its end and stands as ``b"\\x00multipart"``."""
        socket = self.socket
        sender = _recv(socket, flags)
        self.quiet = False
        # The rest of a message arrives with its first frame. Read as a zmq.Frame, a part tells whether more follow
        # (``more``) without a RCVMORE option call, which costs pyzmq an enum lookup.
        part = _recv(socket, _NOBLOCK, False)
        frame = part.bytes
        self.last_sender = sender
        if sender == self.peer:  # strangers' bytes are not the seat's traffic
            self.bytes_in += len(frame)
        if part.more:
            frame = b"\x00multipart"
            while _recv(socket, _NOBLOCK, False).more:
                pass
        return sender, frame

    def has_input(self) -> bool:
        """Whether a frame is waiting, without waiting."""
        events: int = self.socket.getsockopt(_EVENTS)  # type: ignore[assignment]
        self.quiet = not events & _POLLIN
        return not self.quiet

    def connections(self) -> int:
        """How many connections are open on the endpoint (its monitor's events read so far, the waiting ones now).

        Each can hold an unfinished frame of up to ``HARD_FRAME_LIMIT`` in the referee's memory, and one that sends
        nothing is never read: the referee bounds their number (a ``flood``), not only their traffic."""
        monitor = self.monitor
        if monitor is not None:
            while monitor.getsockopt(_EVENTS) & _POLLIN:  # type: ignore[operator]
                event = _EVENT_ID.unpack_from(monitor.recv_multipart(_NOBLOCK)[0])[0]
                self._connections += _OPENED.get(event, 0)
        return self._connections


# A monitor's events: the connections they open or close. An event's first frame starts with its 16-bit id (native
# order; zmq_socket_monitor(3)). Read here, not with zmq.utils.monitor: that module imports zmq.asyncio, and asyncio
# with it (25-60 ms of every referee's and every tournament run's start).
_EVENT_ID = struct.Struct("=H")
_OPENED: dict[int, int] = {int(zmq.EVENT_ACCEPTED): 1, int(zmq.EVENT_DISCONNECTED): -1}
PEER = b"stdio"  # the one peer of a pipe: the bot process's own stdout
LINE_LIMIT = 1024 * 1024  # a line longer than this is cut here (and recorded as oversized); the rest is skipped
SEND_BACKLOG = 16 * 1024 * 1024  # what a bot that does not read its stdin may leave unread before frames are dropped


@dataclass(kw_only=True)
class PipeEndpoint(Channel):
    """A stdio bot: one JSON object a line on its stdin and stdout (protocol.md, the stdio transport).

    Both pipes are non-blocking: a bot that stops reading its stdin cannot block the referee (what it leaves
    unread is kept up to ``SEND_BACKLOG``, then frames are dropped as a full ZeroMQ queue drops them), and reading
    takes what is there. The bot's stdout has no other writer than the bot and what it starts, so every line on
    it is the bot's.
    """

    read_fd: int = -1
    write_fd: int = -1
    _lines: deque[bytes] = field(default_factory=deque)
    _partial: bytearray = field(default_factory=bytearray)
    _skipping: bool = False
    _unsent: bytearray = field(default_factory=bytearray)
    _poll: select.poll = field(default_factory=select.poll)

    def attach(self, write_fd: int, read_fd: int) -> None:
        """Talk to a (new) process through these descriptors: its stdin's write end and its stdout's read end."""
        self.detach()
        self.write_fd, self.read_fd = write_fd, read_fd
        os.set_blocking(write_fd, False)
        os.set_blocking(read_fd, False)
        self._poll = select.poll()
        self._poll.register(read_fd, select.POLLIN)

    def detach(self) -> None:
        """Forget the process's pipes (it is gone or being replaced) and whatever was buffered."""
        self.read_fd = self.write_fd = -1
        self._lines.clear()
        self._partial.clear()
        self._unsent.clear()
        self._skipping = False
        self.forget_peer()

    def send(self, data: bytes) -> bool:
        """Send one line (``data`` and a newline); False when there is no peer or it has left too much unread."""
        if self.peer is None or self.write_fd < 0:
            return False
        return self._write(data)

    def send_to(self, peer: bytes, data: bytes) -> None:
        """Send one line to the process whose hello was refused."""
        if self.write_fd >= 0:
            self._write(data)

    def _write(self, data: bytes) -> bool:
        if len(self._unsent) + len(data) > SEND_BACKLOG:
            return False
        self._unsent += data + b"\n"
        if not self._flush():
            return False
        self.bytes_out += len(data)
        return True

    def _flush(self) -> bool:
        """Write what the pipe takes of what is unsent; False when the process is gone."""
        try:
            while self._unsent:
                written = os.write(self.write_fd, self._unsent)
                del self._unsent[:written]
        except BlockingIOError:
            pass  # the rest goes out with the next write or read
        except OSError:
            self._unsent.clear()
            return False
        return True

    def receive(self) -> tuple[bytes, bytes] | None:
        """One waiting line without blocking, or None."""
        if not self._lines:
            self._fill()
        if not self._lines:
            self.quiet = True
            return None
        self.quiet = False
        line = self._lines.popleft()
        self.last_sender = PEER
        if self.peer == PEER:
            self.bytes_in += len(line)
        return PEER, line

    def receive_within(self, timeout: float) -> tuple[bytes, bytes] | None:
        """One line, waiting at most ``timeout`` seconds."""
        if not self._lines and self.read_fd >= 0:
            self._poll.poll(max(0, int(timeout * 1000)))
        return self.receive()

    @property
    def buffered(self) -> bool:
        """Whether lines already read wait in the buffer (a poll on the pipe would not tell)."""
        return bool(self._lines)

    def has_input(self) -> bool:
        """Whether a line is waiting, without waiting."""
        if not self._lines:
            self._fill()
        self.quiet = not self._lines
        return not self.quiet

    def _fill(self) -> None:
        """Read what the pipe holds (at most 1 MiB a call) and cut it into lines."""
        if self._unsent and self.write_fd >= 0:
            self._flush()
        if self.read_fd < 0:
            return
        for _ in range(16):
            try:
                chunk = os.read(self.read_fd, 65536)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                return
            if not chunk:
                return  # end of file: the process closed its stdout or died
            self._split(chunk)

    def _split(self, chunk: bytes) -> None:
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            if self._skipping:
                self._skipping = False
            else:
                self._partial += chunk[start:end]
                self._lines.append(bytes(self._partial))
            self._partial.clear()
            start = end + 1
        if not self._skipping:
            self._partial += chunk[start:]
            if len(self._partial) > LINE_LIMIT:  # a line with no end in sight: what came is its excerpt
                self._lines.append(bytes(self._partial[: LINE_LIMIT + 1]))
                self._partial.clear()
                self._skipping = True


OWNER = "referee"  # in a match directory: the pid and start time of the referee process that made it
MAX_ENDPOINTS = 9  # one digit: a match has at most four bots, one endpoint each (ep0/bot0.sock ...)
IPC_PATH_MAX = getattr(zmq, "IPC_PATH_MAX_LEN", 107)  # a socket's path, at most (sockaddr_un.sun_path)


def _start_time(pid: int) -> str | None:
    """When a process started (clock ticks since boot, from /proc), or None where that cannot be read."""
    ticks = start_ticks(pid)
    return None if ticks is None else str(ticks)


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


class Channels(Protocol):
    """What a referee needs of its match's endpoints: a ``Hub``, or the in-memory channels of scripted bots
    (arena.play.scripted) in tests that need no socket."""

    def open(self, *, stdio: bool = False) -> Channel:
        """A new endpoint for the next bot of the match."""

    def renew(self, endpoint: Channel) -> None:
        """Cut every connection to the endpoint and drop what they sent, before its bot's process is replaced."""

    def wait(self, timeout: float) -> list[Channel]:
        """Endpoints with frames waiting, after at most ``timeout`` seconds."""

    def maybe_waiting(self) -> list[Channel]:
        """Endpoints that may have frames waiting (the others certainly have none)."""

    def close(self) -> None:
        """Close every endpoint."""


class TransportError(ArenaError):
    """A match's endpoints cannot be opened (the temporary folder's path is too long for them, say)."""


class Hub:
    """All endpoints of one match, and waiting on them together."""

    def __init__(self) -> None:
        remove_stale_directories()
        # its real path: a bot's view shows real paths (a TMPDIR reached through a link would not be there)
        self.directory = os.path.realpath(tempfile.mkdtemp(prefix="arena-"))
        longest = len(os.fsencode(f"{self.directory}/ep{MAX_ENDPOINTS}/bot{MAX_ENDPOINTS}.sock"))  # bytes
        if longest > IPC_PATH_MAX:
            os.rmdir(self.directory)
            raise TransportError(
                f"the temporary folder {tempfile.gettempdir()} has too long a path for a match's sockets"
                f" ({longest} bytes in their paths, at most {IPC_PATH_MAX}): set TMPDIR to a shorter path"
            )
        self.context = zmq.Context()
        # Bots under other uids may pass through (to their own endpoint and workdir) but not list it.
        os.chmod(self.directory, 0o711 if os.geteuid() == 0 else 0o700)
        if (me := _start_time(os.getpid())) is not None:
            Path(self.directory, OWNER).write_text(f"{os.getpid()} {me}")
        self.endpoints: list[Channel] = []
        self.poller = zmq.Poller()
        self.mailboxes = select.poll()  # the sockets' ZMQ_FDs, by fd
        self._by_fd: dict[int, Channel] = {}  # the endpoints' mailboxes (and their monitors'), and the pipes
        self._monitored: dict[object, Endpoint] = {}  # the endpoints' monitors
        self._monitors = itertools.count()
        self._starts = itertools.count()

    def open(self, *, stdio: bool = False) -> Channel:
        """Bind a new private endpoint: ``<dir>/ep<index>/bot<index>.sock``, reachable by no one until ``admit``; or,
        with ``stdio``, a channel over the pipes of the bot process ``attach`` gives it."""
        index = len(self.endpoints)
        if stdio:
            channel: Channel = PipeEndpoint(index=index, address="stdio")
            self.endpoints.append(channel)
            return channel
        folder = Path(self.directory, f"ep{index}")
        folder.mkdir(mode=0o700)
        address = f"ipc://{folder}/bot{index}.sock"
        endpoint = Endpoint(index=index, address=address, socket=self._bind(address))
        self.endpoints.append(endpoint)
        self._watch(endpoint)
        return endpoint

    def attach(self, channel: Channel, write_fd: int, read_fd: int) -> None:
        """Connect a stdio channel to its (new) process's pipes."""
        assert isinstance(channel, PipeEndpoint)
        self._unwatch(channel)
        channel.attach(write_fd, read_fd)
        self.poller.register(read_fd, zmq.POLLIN)
        self.mailboxes.register(read_fd, select.POLLIN)
        self._by_fd[read_fd] = channel

    def renew(self, endpoint: Channel) -> None:
        """Close the endpoint's socket and bind a fresh one at the same address, before a bot process is restarted
        (a stdio channel forgets its process's pipes).

        Every connection of the old process (and of anything it started) is cut, and whatever it queued is dropped
        unread: a flooder's backlog costs nothing, and nothing the dead process sent becomes the new one's word.
        """
        self._unwatch(endpoint)
        if isinstance(endpoint, PipeEndpoint):
            endpoint.detach()
            return
        assert isinstance(endpoint, Endpoint)
        endpoint.socket.close(linger=0)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(endpoint.address.removeprefix("ipc://"))
        endpoint.socket = self._bind(endpoint.address)
        endpoint.quiet = False
        endpoint._timeout = -1
        endpoint.forget_peer()
        self._watch(endpoint)

    def _unwatch(self, channel: Channel) -> None:
        if isinstance(channel, PipeEndpoint):
            if channel.read_fd >= 0:
                self.poller.unregister(channel.read_fd)
                self.mailboxes.unregister(channel.read_fd)
                del self._by_fd[channel.read_fd]
            return
        assert isinstance(channel, Endpoint)
        self.poller.unregister(channel.socket)
        fd: int = channel.socket.getsockopt(zmq.FD)  # type: ignore[assignment]
        self.mailboxes.unregister(fd)
        del self._by_fd[fd]
        if channel.monitor is not None:
            monitor, channel.monitor = channel.monitor, None
            self.poller.unregister(monitor)
            fd = monitor.getsockopt(zmq.FD)  # type: ignore[assignment]
            self.mailboxes.unregister(fd)
            del self._by_fd[fd]
            del self._monitored[monitor]
            channel.socket.disable_monitor()
            monitor.close(linger=0)

    def _bind(self, address: str) -> zmq.Socket:  # type: ignore[type-arg]
        socket = self.context.socket(zmq.ROUTER)
        try:
            socket.setsockopt(zmq.LINGER, 0)
            socket.setsockopt(zmq.MAXMSGSIZE, HARD_FRAME_LIMIT)
            socket.setsockopt(zmq.RCVHWM, 1000)
            socket.bind(address)
        except zmq.ZMQError as exc:
            socket.close(linger=0)
            raise TransportError(f"cannot open the endpoint {address}: {exc}") from None
        return socket

    def _watch(self, endpoint: Endpoint) -> None:
        """Wait on the endpoint's frames, and on its connections' comings and goings (its monitor's events)."""
        endpoint._connections = 0
        # The monitor's own reading end, with no high-water mark: libzmq's I/O thread sends the events blocking, and
        # past ~2,000 unread (a connection bomb) it stopped every endpoint's I/O and a disable_monitor() hung (a
        # review's; libzmq issue 3575). pyzmq's get_monitor_socket() leaves the mark at 1,000.
        address = f"inproc://arena-monitor-{next(self._monitors)}"
        endpoint.socket.monitor(address, zmq.EVENT_ACCEPTED | zmq.EVENT_DISCONNECTED)
        endpoint.monitor = self.context.socket(zmq.PAIR)
        endpoint.monitor.setsockopt(zmq.RCVHWM, 0)
        endpoint.monitor.connect(address)
        for socket in (endpoint.socket, endpoint.monitor):
            self.poller.register(socket, zmq.POLLIN)
            fd: int = socket.getsockopt(zmq.FD)  # type: ignore[assignment]
            self.mailboxes.register(fd, select.POLLIN)
            self._by_fd[fd] = endpoint
        self._monitored[endpoint.monitor] = endpoint

    def admit(self, endpoint: Channel, gid: int | None) -> None:
        """Open an endpoint to one group alone (a bot process's own), closing it to the group admitted before.

        The directory becomes ``root:gid 0710`` and the socket ``root:gid 0660``: the bot can connect but cannot
        list, remove or replace anything. With ``gid`` None (bots share the referee's uid) nothing changes.
        """
        if gid is None or not isinstance(endpoint, Endpoint):
            return
        folder = Path(self.directory, f"ep{endpoint.index}")
        path = folder / f"bot{endpoint.index}.sock"
        os.chown(folder, -1, gid)
        os.chmod(folder, 0o710)
        os.chown(path, -1, gid)
        os.chmod(path, 0o660)

    def workdir(self, endpoint: Channel) -> Path:
        """A fresh empty directory for the next process of this endpoint's bot (its home), removed by ``close``."""
        folder = Path(self.directory, f"home{endpoint.index}-{next(self._starts)}")
        folder.mkdir(mode=0o700)
        return folder

    def wait(self, timeout: float) -> list[Channel]:
        """Endpoints with frames waiting, after at most ``timeout`` seconds."""
        buffered = [e for e in self.endpoints if isinstance(e, PipeEndpoint) and e.buffered]
        ready = dict(self.poller.poll(0 if buffered else max(0, int(timeout * 1000))))
        for endpoint in self.endpoints:
            endpoint.quiet = False
        stirred = {self._monitored[key].index for key in ready if key in self._monitored}  # connections came or went
        return [e for e in self.endpoints if _key(e) in ready or e in buffered or e.index in stirred]

    def maybe_waiting(self) -> list[Channel]:
        """Endpoints that may have frames waiting, at the cost of one system call for all the quiet ones.

        A ZeroMQ socket's mailbox fd turns readable when a command reaches it, and a message that arrives for a
        reader that found nothing is announced by one. So a quiet endpoint whose fd is not readable has nothing
        waiting; the others are worth a real look (``has_input`` or ``receive``), which also makes them quiet again.
        """
        ready = self.mailboxes.poll(0)
        if not ready:  # the usual answer
            return [e for e in self._by_fd.values() if not e.quiet]
        stirred = {fd for fd, _ in ready}
        # an endpoint once, though two of its fds (its socket's and its monitor's) may say so
        return list({e.index: e for fd, e in self._by_fd.items() if not e.quiet or fd in stirred}.values())

    def close(self) -> None:
        """Close every socket and remove the private directory (pipes are closed with their processes)."""
        # every socket of the context, the endpoints' and any other left open (term() would wait for it forever)
        self.context.destroy(linger=0)
        shutil.rmtree(self.directory, ignore_errors=True)


def _key(channel: Channel) -> object:
    """What the poller reports a channel by: its socket, or its pipe's descriptor."""
    return channel.read_fd if isinstance(channel, PipeEndpoint) else channel.socket  # type: ignore[attr-defined]
