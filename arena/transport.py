"""ZeroMQ transport: one private ROUTER endpoint per bot process. The only module that imports zmq.

Each bot process gets its own ipc endpoint inside a private directory (mode 0700) and its own secret token. The
first peer whose hello carries the token becomes the endpoint's one accepted peer; frames from any other peer on
that endpoint are dropped and counted, never attributed to the seat.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from dataclasses import dataclass

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
    foreign_frames: int = 0
    bytes_out: int = 0  # traffic with the accepted peer, for timing reports
    bytes_in: int = 0
    _timeout: int = -1

    def send(self, data: bytes) -> bool:
        """Send one frame to the accepted peer; False when there is none or it cannot take more."""
        if self.peer is None:
            return False
        try:
            self.socket.send(self.peer, _SNDMORE_NOBLOCK)
            self.socket.send(data, _NOBLOCK)
        except zmq.ZMQError:
            return False
        self.bytes_out += len(data)
        return True

    def send_to(self, peer: bytes, data: bytes) -> None:
        """Send one frame to a peer that was not accepted (to tell it why)."""
        with contextlib.suppress(zmq.ZMQError):
            self.socket.send_multipart([peer, data], flags=zmq.NOBLOCK)

    def receive(self) -> tuple[bytes, bytes] | None:
        """One waiting (peer id, frame) pair without blocking, or None. Multi-frame messages keep their first frame."""
        if not self.has_input():
            return None
        try:
            parts = self.socket.recv_multipart(_NOBLOCK)
        except zmq.Again:
            return None
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
            return None
        return self._split(parts)

    def _split(self, parts: list[bytes]) -> tuple[bytes, bytes] | None:
        if len(parts) < 2:
            return None
        self.last_sender = parts[0]
        self.bytes_in += len(parts[1])
        return parts[0], parts[1] if len(parts) == 2 else b"\x00multipart"

    def wait(self, timeout: float) -> bool:
        """Whether a frame is waiting, after at most ``timeout`` seconds."""
        return bool(self.socket.poll(max(0, int(timeout * 1000)), zmq.POLLIN))

    def has_input(self) -> bool:
        """Whether a frame is waiting, without waiting."""
        events: int = self.socket.getsockopt(_EVENTS)  # type: ignore[assignment]
        return bool(events & _POLLIN)

    def forget_peer(self) -> None:
        """Forget the accepted peer (its process is gone; a restarted process says hello again)."""
        self.peer = None
        self.last_sender = None


class Hub:
    """All endpoints of one match, and waiting on them together."""

    def __init__(self) -> None:
        self.context = zmq.Context()
        self.directory = tempfile.mkdtemp(prefix="arena-")
        os.chmod(self.directory, 0o700)
        self.endpoints: list[Endpoint] = []
        self.poller = zmq.Poller()

    def open(self) -> Endpoint:
        """Bind a new private endpoint."""
        index = len(self.endpoints)
        socket = self.context.socket(zmq.ROUTER)
        socket.setsockopt(zmq.LINGER, 0)
        socket.setsockopt(zmq.MAXMSGSIZE, HARD_FRAME_LIMIT)
        socket.setsockopt(zmq.RCVHWM, 1000)
        address = f"ipc://{self.directory}/bot{index}.sock"
        socket.bind(address)
        endpoint = Endpoint(index, address, socket)
        self.endpoints.append(endpoint)
        self.poller.register(socket, zmq.POLLIN)
        return endpoint

    def wait(self, timeout: float) -> list[Endpoint]:
        """Endpoints with frames waiting, after at most ``timeout`` seconds."""
        ready = dict(self.poller.poll(max(0, int(timeout * 1000))))
        return [e for e in self.endpoints if e.socket in ready]

    def close(self) -> None:
        """Close every socket and remove the private directory."""
        for endpoint in self.endpoints:
            endpoint.socket.close(linger=0)
        self.context.term()
        shutil.rmtree(self.directory, ignore_errors=True)
