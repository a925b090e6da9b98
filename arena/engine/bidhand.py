"""What a hand of the bidding games (Hasenpfeffer, Nap) answers alike: whose turn it is, the tricks each seat has
won, and the legal actions made once a state (a driver asks for them, then ``apply`` checks against them)."""

from __future__ import annotations

from arena.engine.actions import Action
from arena.engine.cards import Card
from arena.engine.phases import BestCall, Phase, Trick
from arena.errors import IllegalActionError


class BidHand:
    """The queries a Game, the views and the referee ask of a hand, for the games whose hands compute their legal
    actions in ``_compute_legal``."""

    phase: Phase
    turn: int
    actions: list[tuple[int, Action]]
    leader: int | None
    hands: list[list[Card]]
    trick: list[tuple[int, Card]]
    tricks: list[Trick]
    _legal: tuple[Action, ...] | None
    cards_each: int  # the cards of a hand, and so its tricks
    # what a hand of the upcard's euchre has and these games have not: no upcard, no lone hands, no call for best
    alone: bool
    defender_alone: int | None
    upcard_taken: bool | None
    out: set[int]
    caller: int | None
    calls: list[BestCall]
    passed: list[tuple[int, int, Card]]
    best_discards: list[tuple[int, Card]]
    best_steps: set[int]

    def _no_upcard_parts(self) -> None:
        """Set what a euchre hand has and these games have not, as a euchre hand without them holds it."""
        self.alone, self.defender_alone, self.upcard_taken = False, None, None
        self.out, self.caller, self.calls, self.passed, self.best_discards, self.best_steps = (
            set(),
            None,
            [],
            [],
            [],
            set(),
        )

    @property
    def players(self) -> int:
        """Number of seats at the table."""
        raise NotImplementedError

    def is_over(self) -> bool:
        """Whether the hand is finished (played out, passed out or thrown in)."""
        return self.phase is Phase.DONE

    def current_seat(self) -> int | None:
        """The seat that must act now, or None when the hand is over."""
        return None if self.is_over() else self.turn

    def tricks_won(self) -> list[int]:
        """Tricks won so far by each seat."""
        won = [0] * self.players
        for trick in self.tricks:
            won[trick.winner] += 1
        return won

    def legal_actions(self) -> tuple[Action, ...]:
        """The legal actions of the seat to act, in a fixed order (empty when the hand is over)."""
        if self._legal is None:  # made once a state: a driver asks, then apply checks
            self._legal = self._compute_legal()
        return self._legal

    def _compute_legal(self) -> tuple[Action, ...]:
        raise NotImplementedError

    def _take_turn(self, action: Action, seat: int | None) -> int:
        """Check that ``action`` is the legal action of the seat to act (``seat``, if given), and record it: the seat
        that acted. An illegal action raises IllegalActionError saying why, and leaves the state unchanged."""
        if self.is_over():
            raise IllegalActionError("the hand is over; no action is expected")
        if seat is not None and seat != self.turn:
            raise IllegalActionError(f"it is seat {self.turn}'s turn, not seat {seat}'s")
        if action not in self.legal_actions():
            raise IllegalActionError(self._why_illegal(action))
        actor = self.turn
        self._legal = None
        self.actions.append((actor, action))
        return actor

    def _why_illegal(self, action: Action) -> str:
        return f"{action.to_json()} is not legal now (phase {self.phase.value})"

    def _lay(self, seat: int, card: Card) -> None:
        """``seat`` plays ``card`` to the trick: the next seat's turn; or, the trick full, its winner leads the next,
        or the hand ends."""
        assert self.leader is not None
        self.hands[seat].remove(card)
        self.trick.append((seat, card))
        if len(self.trick) < self.players:
            self.turn = (seat + 1) % self.players
            return
        trick = tuple(self.trick)
        winner = self._trick_winner(trick)
        self.tricks.append(Trick(self.leader, trick, winner))
        self.trick = []
        if len(self.tricks) == self.cards_each:
            self._finish(passed_out=False)
        else:
            self.turn = self.leader = winner

    def _trick_winner(self, trick: tuple[tuple[int, Card], ...]) -> int:
        """The seat that wins a full trick."""
        raise NotImplementedError

    def _finish(self, *, passed_out: bool) -> None:
        raise NotImplementedError
