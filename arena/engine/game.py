"""A game (or a rubber of games) of Euchre: the seeded cut for first dealer, hands in turn, scores, the winner."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from arena.engine import hasenpfeffer
from arena.engine.actions import Action
from arena.engine.cards import make_deck
from arena.engine.hand import Deal, HandState
from arena.engine.hasenpfeffer import HasenpfefferDeal, HasenpfefferHand
from arena.engine.nap import NapDeal, NapHand
from arena.engine.options import Rules
from arena.engine.scoring import RUBBER_BONUS, rubber_game_points
from arena.errors import IllegalActionError

SEED_PREFIX = "euchre-arena"

AnyHand = HandState | HasenpfefferHand | NapHand
"""A hand of any game of the arena."""


def hand_rng(seed: int, index: int) -> random.Random:
    """The random source of the ``index``-th deal of a game seeded ``seed`` (independent of play)."""
    return random.Random(f"{SEED_PREFIX}/{seed}/hand/{index}")


def cut_for_dealer(players: int, seed: int) -> int:
    """Each player draws a card in seat order, the lowest card deals, ties draw again (docs/rules.md section 3)."""
    rng = random.Random(f"{SEED_PREFIX}/{seed}/cut")
    deck = make_deck(32 if players > 2 else 24)
    rng.shuffle(deck)
    drawing = list(range(players))
    while True:
        draws = {seat: deck.pop() for seat in drawing}
        low = min(c.rank for c in draws.values())
        drawing = [seat for seat, c in draws.items() if c.rank == low]
        if len(drawing) == 1:
            return drawing[0]


def new_hand(rules: Rules, dealer: int, rng: random.Random) -> AnyHand:
    """A hand of the game ``rules`` play, dealt by ``dealer`` from a pack shuffled with ``rng``."""
    game = rules.game
    if game == "hasenpfeffer":
        return HasenpfefferHand(rules, dealer, HasenpfefferDeal.shuffled(dealer, rng))
    if game == "nap":
        return NapHand(rules, dealer, NapDeal.shuffled(rules, dealer, rng))
    return HandState(rules, dealer, Deal.shuffled(rules, dealer, rng))


@dataclass(frozen=True, slots=True)
class GameSummary:
    """One finished game of a rubber: the hands it spans, its final scores per seat, winners and game points."""

    first_hand: int
    last_hand: int
    final_scores: tuple[int, ...]
    winners: tuple[int, ...]
    game_points: int


class Game:
    """A game to ``points_to_win``, or a rubber when the option is on; OpenSpiel-style state with seeded deals."""

    def __init__(self, rules: Rules, seed: int, players: Sequence[str] | None = None) -> None:
        self.rules = rules
        self.seed = seed
        self.players = list(players) if players is not None else [f"seat{i}" for i in range(rules.players)]
        if len(self.players) != rules.players:
            raise ValueError(f"{rules.variant} needs {rules.players} players, got {len(self.players)}")
        self.first_dealer = cut_for_dealer(rules.players, seed)
        self.side_scores = [0] * rules.sides
        self.hands: list[AnyHand] = []
        self.scores_after: list[tuple[int, ...]] = []
        self.games: list[GameSummary] = []
        self.winners: tuple[int, ...] = ()
        self.forfeited_by: int | None = None
        self.drawn = False
        self.slam = False  # won while the losers had no point, under the rule option slam: it counts as two games
        self.hand = self._new_hand(self.first_dealer)

    # ---- queries ----

    def is_over(self) -> bool:
        """Whether the game (or rubber) is finished."""
        return bool(self.winners) or self.drawn

    def current_seat(self) -> int | None:
        """The seat to act, or None when the game is over."""
        return None if self.is_over() else self.hand.current_seat()

    def legal_actions(self) -> tuple[Action, ...]:
        """Legal actions of the seat to act."""
        return () if self.is_over() else self.hand.legal_actions()

    def scores(self) -> tuple[int, ...]:
        """Current game scores per seat (partners show their side's score)."""
        return tuple(self.side_scores[self.rules.side_of(s)] for s in range(self.rules.players))

    def standings(self) -> list[int]:
        """Seats ordered best first by final score (ties by seat number)."""
        final = self.scores_after[-1] if self.scores_after else self.scores()
        return sorted(range(self.rules.players), key=lambda s: (-final[s], s))

    # ---- progress ----

    def draw(self) -> None:
        """End the game now without a winner (a referee's limit on the number of hands, not a rule of play)."""
        if self.is_over():
            raise IllegalActionError("the game is already over")
        self.drawn = True

    def forfeit(self, seat: int) -> None:
        """End the game now, lost by ``seat``'s side (a referee's decision, not a rule of play)."""
        if self.is_over():
            raise IllegalActionError("the game is already over")
        rules = self.rules
        self.forfeited_by = seat
        others = [s for s in range(rules.players) if rules.side_of(s) != rules.side_of(seat)]
        if rules.sides > 2:  # no two sides: the best of the others wins (all the best if tied)
            scores = self.scores()
            top = max(scores[s] for s in others)
            others = [s for s in others if scores[s] == top]
        self.winners = tuple(others)

    def apply(self, action: Action, seat: int | None = None) -> None:
        """Apply the action of the seat to act; start the next hand or finish the game when a hand ends."""
        if self.is_over():
            raise IllegalActionError("the game is over; no action is expected")
        hand = self.hand
        hand.apply(action, seat)
        if hand.is_over():
            self._end_hand(hand)

    def _new_hand(self, dealer: int) -> AnyHand:
        return new_hand(self.rules, dealer, hand_rng(self.seed, len(self.hands)))

    def _end_hand(self, hand: AnyHand) -> None:
        assert hand.result is not None
        rules = self.rules
        for side in range(rules.sides):  # seat ``side`` is on side ``side`` in every variant
            self.side_scores[side] += hand.result.points[side]
        self.hands.append(hand)
        self.scores_after.append(self.scores())
        if self._game_won():
            self._end_game()
        if not self.is_over():
            self.hand = self._new_hand((hand.dealer + 1) % rules.players)

    def _game_won(self) -> bool:
        return self._winning_side() is not None

    def _winning_side(self) -> int | None:
        """The side that has won the game with the last hand, if one has: alone at the top, at or past the target;
        in Hasenpfeffer both sides may reach it at once (docs/rules.md section 14)."""
        hand = self.hands[-1]
        if isinstance(hand, HasenpfefferHand):
            return hasenpfeffer.game_winner(self.rules.options, tuple(self.side_scores), hand.bidder, hand.made)
        top = max(self.side_scores)
        opts = self.rules.options
        if self.rules.game == "nap":  # so many deals, or a target; a tie at the top plays on (docs/rules.md 15)
            ended = top >= opts.target_score if opts.target_score else len(self.hands) >= self._nap_deals()
            return self.side_scores.index(top) if ended and self.side_scores.count(top) == 1 else None
        won = top >= opts.points_to_win and self.side_scores.count(top) == 1
        return self.side_scores.index(top) if won else None

    def _nap_deals(self) -> int:
        """The deals a game of Nap lasts: each seat deals ``deals_per_player`` times."""
        return self.rules.options.deals_per_player * self.rules.players

    def _end_game(self) -> None:
        rules = self.rules
        opts = rules.options
        scores = self.scores()
        top_side = self._winning_side()
        assert top_side is not None
        top = self.side_scores[top_side]
        winners = tuple(s for s in range(rules.players) if rules.side_of(s) == top_side)
        loser_score = max(v for side, v in enumerate(self.side_scores) if side != top_side)
        if not opts.rubber:
            self.winners = winners
            self.slam = opts.slam and loser_score == 0
            return
        first = self.games[-1].last_hand + 1 if self.games else 0
        self.games.append(GameSummary(first, len(self.hands) - 1, scores, winners, rubber_game_points(loser_score)))
        if sum(1 for g in self.games if g.winners == winners) == 2:
            self.winners = winners
        else:  # the next game of the rubber; with laps, the winners carry what they scored beyond the target
            carried = top - opts.points_to_win if opts.laps else 0
            self.side_scores = [carried if side == top_side else 0 for side in range(rules.sides)]

    def rubber_game_points(self) -> tuple[int, ...]:
        """Game points per seat summed over the rubber's games."""
        return tuple(sum(g.game_points for g in self.games if s in g.winners) for s in range(self.rules.players))

    def rubber_points(self) -> tuple[int, ...]:
        """The rubber's score per seat: the winners get the difference of game points plus the bonus."""
        if not self.winners or not self.rules.options.rubber:
            return (0,) * self.rules.players
        gp = self.rubber_game_points()
        winner = self.winners[0]
        loser = max(gp[s] for s in range(self.rules.players) if s not in self.winners)
        return tuple(gp[winner] - loser + RUBBER_BONUS if s in self.winners else 0 for s in range(self.rules.players))
