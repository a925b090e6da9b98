"""The scoring table of docs/rules.md section 7, and rubber game points of section 8.3."""

from __future__ import annotations


def hand_points(players: int, maker: int, maker_tricks: int, *, alone: bool, defender_alone: bool) -> tuple[int, ...]:
    """Points per seat for a played hand; partners in four-hand both show their side's points."""
    if maker_tricks >= 3:
        if maker_tricks < 5:
            gain = 1
        elif players == 3:
            gain = 3
        elif players == 4 and alone:
            gain = 4
        else:
            gain = 2
        return tuple(gain if _same_side(players, s, maker) else 0 for s in range(players))
    gain = 4 if defender_alone else 2
    return tuple(0 if _same_side(players, s, maker) else gain for s in range(players))


def _same_side(players: int, seat: int, maker: int) -> bool:
    return seat == maker or (players == 4 and (seat - maker) % 2 == 0)


def rubber_game_points(loser_score: int) -> int:
    """Game points the winner of one game of a rubber earns, by the losing side's score in it."""
    if loser_score <= 0:
        return 3
    if loser_score <= 2:
        return 2
    return 1


RUBBER_BONUS = 2
