"""What one seat may know (RULES.md section 8), as a type: the only picture of a game that leaves the referee."""

from __future__ import annotations

from typing import Any, NamedTuple, TypedDict

from arena.engine.actions import Action, Discard
from arena.engine.cards import CARD_TEXT, Card, Suit
from arena.engine.game import Game
from arena.engine.hand import HandState, Phase, Trick


class SeatView(NamedTuple):
    """Everything ``seat`` may know about the current hand and game, and nothing more."""

    seat: int
    players: int
    hand_number: int
    dealer: int
    phase: Phase
    turn: int | None
    hand: tuple[Card, ...]
    upcard: Card
    upcard_taken: bool | None
    discarded: Card | None
    bids: tuple[tuple[int, Action], ...]
    trump: Suit | None
    maker: int | None
    alone: bool
    defender_alone: int | None
    sitting_out: tuple[int, ...]
    tricks: tuple[Trick, ...]
    trick: tuple[tuple[int, Card], ...]
    tricks_won: tuple[int, ...]
    scores: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        """The wire form of the view."""
        return {
            "seat": self.seat,
            "players": self.players,
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "phase": self.phase.value,
            "turn": self.turn,
            "hand": [CARD_TEXT[c] for c in self.hand],
            "upcard": CARD_TEXT[self.upcard],
            "upcard_taken": self.upcard_taken,
            "discarded": None if self.discarded is None else str(self.discarded),
            "bids": [{"seat": s, **a.to_json()} for s, a in self.bids],
            "trump": None if self.trump is None else str(self.trump),
            "maker": self.maker,
            "alone": self.alone,
            "defender_alone": self.defender_alone,
            "sitting_out": list(self.sitting_out),
            "tricks": [trick_json(t) for t in self.tricks],
            "trick": [{"seat": s, "card": CARD_TEXT[c]} for s, c in self.trick],
            "tricks_won": list(self.tricks_won),
            "scores": list(self.scores),
        }


class PlayedCardJSON(TypedDict):
    """A card of a trick and who played it."""

    seat: int
    card: str


class TrickJSON(TypedDict):
    """A finished trick: who led, the cards in play order, who won it."""

    leader: int
    cards: list[PlayedCardJSON]
    winner: int


def trick_json(trick: Trick) -> TrickJSON:
    """A finished trick as JSON: leader, cards in play order, winner."""
    return {
        "leader": trick.leader,
        "cards": [{"seat": s, "card": CARD_TEXT[c]} for s, c in trick.cards],
        "winner": trick.winner,
    }


def hand_view(hand: HandState, seat: int, *, hand_number: int, scores: tuple[int, ...]) -> SeatView:
    """The view of ``seat`` of one hand; the dealer does not see his cards before naming trump on the Benny."""
    blind = hand.phase is Phase.NAME_TRUMP and seat == hand.dealer
    own = () if blind else tuple(sorted(hand.hands[seat]))
    won = [0] * hand.players
    for t in hand.tricks:
        won[t.winner] += 1
    return SeatView(
        seat=seat,
        players=hand.players,
        hand_number=hand_number,
        dealer=hand.dealer,
        phase=hand.phase,
        turn=hand.current_seat(),
        hand=own,
        upcard=hand.deal.upcard,
        upcard_taken=hand.upcard_taken,
        discarded=hand.discarded if seat == hand.dealer else None,
        bids=tuple((s, a) for s, a in hand.actions if not isinstance(a, Discard) and a.type != "play"),
        trump=hand.trump,
        maker=hand.maker,
        alone=hand.alone,
        defender_alone=hand.defender_alone,
        sitting_out=tuple(sorted(hand.out)),
        tricks=tuple(hand.tricks),
        trick=tuple(hand.trick),
        tricks_won=tuple(won),
        scores=scores,
    )


def seat_view(game: Game, seat: int) -> SeatView:
    """The view of ``seat`` of the game's current hand."""
    return hand_view(game.hand, seat, hand_number=len(game.hands), scores=game.scores())
