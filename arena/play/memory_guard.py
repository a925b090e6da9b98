"""The referee's guard on its own memory: what a bot makes libzmq hold for it never reaches the referee's code, so
the referee watches its own resident memory and, past a margin, finds the bot that holds it by stopping them one by
one. What it watches is the growth no game's end explains: between games, growth that only the referee's own
bookkeeping can have made is taken into the base (``settle``), so a match of any length is never stopped for it.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from arena.errors import ArenaError
from arena.play.linux import release_free_memory, resident_bytes
from arena.play.runner import Violation

if TYPE_CHECKING:
    from arena.play.referee import Referee

# How far the referee's memory may grow in a match (it needs a few MB). A bot can make libzmq hold data that the
# referee never sees: the frames of a multipart message it never finishes, each under the hard frame limit, counted
# by no high-water mark, from a single connection and in well under a second (SECURITY.md, the referee's memory
# under a flood). libzmq does not say which connection holds it: past this, the bots are stopped one by one until the
# memory comes back. The one whose stop gave it back is charged a flood; those stopped before it are restarted at
# once, uncharged. Where none gave it back (it is held elsewhere in this process), the match stops (MemoryOverrun).
MEMORY_MARGIN = 512 * 1024 * 1024
# The referee's own memory between games (what it keeps of the games played is bounded, but the allocator keeps
# what it touched): growth up to MEMORY_MARGIN // OWN_SHARE since the last base, found between games with no bot
# holding more than its one connection and none to be replaced, is the referee's own and becomes the new base.
OWN_SHARE = 8
MEMORY_LOOK = 0.1  # seconds between looks at it
MEMORY_RELEASE = 1.0  # seconds to wait for a stopped bot's connections to give their memory back


class MemoryOverrun(ArenaError):
    """The referee's memory grew past ``MEMORY_MARGIN`` in a match: the match stops, as when its fork server is lost
    (a tournament records the failure, keeps the finished games, and plays the rest again)."""


class MemoryGuard:
    """The memory watch of one match's referee: its memory when the match began, and when it was last looked at."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee
        self.base = resident_bytes()  # this process's memory before the match, then as last settled
        self.looked = 0.0
        self.searching = False  # for the bot that holds it (_holder): no look meanwhile

    def check(self, *, handshake: bool = False) -> float:
        """A look (every ``MEMORY_LOOK`` seconds at most) at whether this process's memory grew past
        ``MEMORY_MARGIN`` since its base (``settle``): if so, the bot that holds it is charged (``_holder``) or, in
        a handshake or where none does, the match stops (``MemoryOverrun``). Returns the seconds the search for
        the holder took (the clock of a bot being asked stops meanwhile)."""
        now = time.monotonic()
        if now - self.looked < MEMORY_LOOK or self.base is None or self.searching:
            return 0.0
        self.looked = now
        grown = self.grown()
        if grown <= MEMORY_MARGIN:
            return 0.0
        if not handshake:
            self.searching = True
            try:
                found = self._holder(grown)
            finally:
                self.searching = False
            if found is not None:
                return time.monotonic() - now
        connections = ", ".join(
            f"{entry.name} {endpoint.connections()}"
            for entry, endpoint in zip(self.referee.spec.bots, self.referee.endpoints, strict=False)
        )
        where = "in a handshake" if handshake else "and no bot of the match held it"
        raise MemoryOverrun(
            f"the referee's memory grew {grown >> 20} MiB in match {self.referee.spec.match_id}"
            f" (at most {MEMORY_MARGIN >> 20} MiB) {where}: ZeroMQ keeps a message never finished unread; the match"
            " stops and no bot is charged"
            f" (connections open: {connections})"
        )

    def settle(self) -> None:
        """Between games: take the memory now as the base, where what it grew since is the referee's own. A bot's
        bytes held unread need a connection of the bot's: its own one (held by a message it never finishes, so it
        cannot answer, times out and is replaced, which frees them) or another one. So the growth is the referee's
        own when no endpoint has more than one connection, no bot is to be replaced, and it is small
        (``OWN_SHARE``); otherwise it stays counted, and a flood is found as before."""
        if self.base is None or self.searching:
            return
        referee = self.referee
        if any(referee.needs_restart) or any(endpoint.connections() > 1 for endpoint in referee.endpoints):
            return
        now = resident_bytes()
        if now is not None and now - self.base <= MEMORY_MARGIN // OWN_SHARE:
            self.base = now

    def grown(self) -> int:
        """How far this process's memory grew since its base (0 where /proc does not tell)."""
        if self.base is None:
            return 0
        return (resident_bytes() or self.base) - self.base

    def _holder(self, grown: int) -> int | None:
        """Stop the bots one by one (those with the most connections first) until one's stop gives ``grown`` bytes
        of memory back, at least half of them; charge it a ``flood`` (the answer to its next request) and return it.
        The bots stopped before it are restarted at once and rejoin the game, uncharged. None if no bot's stop did."""
        order = sorted(range(len(self.referee.endpoints)), key=lambda b: -self.referee.endpoints[b].connections())
        for b in order:
            if self.referee.processes[b] is None or self.referee.struck_out[b]:
                continue
            self.referee.cut_off(b)
            freed, deadline = 0, time.monotonic() + MEMORY_RELEASE
            while freed < grown // 2 and time.monotonic() < deadline:
                time.sleep(0.02)
                release_free_memory()
                freed = grown - self.grown()
            if freed >= grown // 2:
                self.referee.needs_restart[b] = True
                detail = f"its connections held {freed >> 20} MiB of messages it never finished (at most"
                self.referee.report(b, Violation("flood", f"{detail} {MEMORY_MARGIN >> 20} MiB)"))
                self.looked = 0.0
                return b
            self.referee.relaunched[b] = self.referee.relaunch_midgame(b)  # not its doing: back at once
        return None

    def overgrown(self) -> bool:
        """Whether the memory has grown past the margin (a look now, whenever the last was)."""
        return self.grown() > MEMORY_MARGIN
