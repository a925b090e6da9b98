"""One table, two kinds of seat: the person's seat is played in this process, every other seat by the referee's bots.

The runner talks to one ``Seats``; :class:`SplitSeats` passes each call on to the person's seat (an in-process
handler, checked as the referee checks a bot) or to the referee, whose seats are the other seats in order. The
referee runs its bots exactly as in a match (processes, clocks, limits, violations): it only has one seat fewer.
"""

from __future__ import annotations

from arena.play.local import LocalSeats
from arena.play.referee import Referee
from arena.play.runner import Message, Response, Violation


class SplitSeats:
    """The runner's ``Seats`` over a person's seat (``local``, its seat 0) and the referee's bots (the rest)."""

    def __init__(self, seat: int, players: int, local: LocalSeats, referee: Referee) -> None:
        self.seat = seat
        self.local = local
        self.referee = referee
        self.others = [s for s in range(players) if s != seat]  # the referee's seat k is the table's others[k]

    def _inner(self, seat: int) -> int:
        return 0 if seat == self.seat else self.others.index(seat)

    def tell(self, seat: int, message: Message) -> None:
        """Send a message that needs no answer."""
        (self.local if seat == self.seat else self.referee).tell(self._inner(seat), message)

    def ask(self, seat: int, message: Message, allowed: float) -> Response:
        """Ask the person (no deadline: a person has no clock) or the bot (within ``allowed``)."""
        return (self.local if seat == self.seat else self.referee).ask(self._inner(seat), message, allowed)

    def penalize(self, seat: int, violation: Violation, *, game: int) -> bool:
        """Count a strike against the seat's player."""
        return (self.local if seat == self.seat else self.referee).penalize(self._inner(seat), violation, game=game)

    def disqualified(self, seat: int) -> bool:
        """Whether the seat's player has forfeited the rest of the match."""
        return (self.local if seat == self.seat else self.referee).disqualified(self._inner(seat))

    def interrupts(self) -> list[tuple[int, Violation]]:
        """The bots' unasked messages, by table seat (the person speaks only when asked)."""
        return [(self.others[k], violation) for k, violation in self.referee.interrupts()]

    def wants_view(self, seat: int, hand_number: int) -> bool:
        """The person's seat always gets the view; a bot, as its hello asked."""
        return (self.local if seat == self.seat else self.referee).wants_view(self._inner(seat), hand_number)

    def prepare(self, seat: int) -> None:
        """Get the seat ready to be asked (a bot that must be replaced is replaced now)."""
        (self.local if seat == self.seat else self.referee).prepare(self._inner(seat))
