"""The scoring table (docs/rules.md section 7) and rubber game points (section 8.3), row by row."""

from __future__ import annotations

import pytest
from helpers import expected_points

from arena.engine.scoring import RUBBER_BONUS, hand_points, rubber_game_points


def points(players: int, maker: int, tricks: int, *, alone: bool = False, lone: bool = False) -> tuple[int, ...]:
    """The engine's points per seat for a played hand."""
    return hand_points(players, maker, tricks, alone=alone, defender_alone=lone)


# ---- two-hand ----


@pytest.mark.parametrize("tricks", [3, 4])
def test_two_hand_maker_taking_three_or_four_scores_one(tricks: int) -> None:
    assert points(2, 0, tricks) == (1, 0)
    assert points(2, 1, tricks) == (0, 1)


def test_two_hand_march_scores_two() -> None:
    assert points(2, 1, 5) == (0, 2)


@pytest.mark.parametrize("tricks", [0, 1, 2])
def test_two_hand_euchre_gives_the_defender_two(tricks: int) -> None:
    assert points(2, 0, tricks) == (0, 2)
    assert points(2, 1, tricks) == (2, 0)


# ---- three-hand ----


@pytest.mark.parametrize("tricks", [3, 4])
def test_three_hand_maker_taking_three_or_four_scores_one(tricks: int) -> None:
    assert points(3, 1, tricks) == (0, 1, 0)


def test_three_hand_march_scores_three() -> None:
    assert points(3, 2, 5) == (0, 0, 3)


@pytest.mark.parametrize("tricks", [0, 1, 2])
def test_three_hand_euchre_gives_each_defender_two(tricks: int) -> None:
    assert points(3, 0, tricks) == (0, 2, 2)
    assert points(3, 1, tricks) == (2, 0, 2)


# ---- four-hand with a partner ----


@pytest.mark.parametrize("tricks", [3, 4])
def test_four_hand_makers_taking_three_or_four_score_one_each_partner_showing_it(tricks: int) -> None:
    assert points(4, 1, tricks) == (0, 1, 0, 1)


def test_four_hand_partnership_march_scores_two() -> None:
    assert points(4, 2, 5) == (2, 0, 2, 0)


@pytest.mark.parametrize("tricks", [0, 1, 2])
def test_four_hand_partnership_euchre_gives_the_defenders_two(tricks: int) -> None:
    assert points(4, 3, tricks) == (2, 0, 2, 0)


# ---- four-hand, maker alone ----


@pytest.mark.parametrize("tricks", [3, 4])
def test_lone_maker_taking_three_or_four_scores_one(tricks: int) -> None:
    assert points(4, 0, tricks, alone=True) == (1, 0, 1, 0)


def test_lone_maker_march_scores_four() -> None:
    assert points(4, 3, 5, alone=True) == (0, 4, 0, 4)


@pytest.mark.parametrize("tricks", [0, 1, 2])
def test_lone_maker_euchred_gives_the_defenders_two(tricks: int) -> None:
    assert points(4, 0, tricks, alone=True) == (0, 2, 0, 2)


# ---- four-hand, alone against a lone defender ----


@pytest.mark.parametrize("tricks", [3, 4])
def test_alone_against_a_lone_defender_three_or_four_tricks_score_one(tricks: int) -> None:
    assert points(4, 1, tricks, alone=True, lone=True) == (0, 1, 0, 1)


def test_alone_against_a_lone_defender_march_scores_four() -> None:
    assert points(4, 1, 5, alone=True, lone=True) == (0, 4, 0, 4)


@pytest.mark.parametrize("tricks", [0, 1, 2])
def test_alone_against_a_lone_defender_euchre_gives_the_defenders_four(tricks: int) -> None:
    assert points(4, 1, tricks, alone=True, lone=True) == (4, 0, 4, 0)


def test_hand_points_agree_with_the_table_for_every_row_seat_and_trick_count() -> None:
    rows = [(2, False, False), (3, False, False), (4, False, False), (4, True, False), (4, True, True)]
    for players, alone, lone in rows:
        for maker in range(players):
            for tricks in range(6):
                assert points(players, maker, tricks, alone=alone, lone=lone) == expected_points(
                    players, maker, tricks, alone=alone, lone_defender=lone
                ), (players, alone, lone, maker, tricks)


# ---- rubber game points ----


def test_rubber_game_won_against_a_loser_at_zero_earns_three() -> None:
    assert rubber_game_points(0) == 3


@pytest.mark.parametrize("loser", [1, 2])
def test_rubber_game_won_against_a_loser_at_one_or_two_earns_two(loser: int) -> None:
    assert rubber_game_points(loser) == 2


@pytest.mark.parametrize("loser", [3, 4, 9, 12])
def test_rubber_game_won_against_a_loser_at_three_or_more_earns_one(loser: int) -> None:
    assert rubber_game_points(loser) == 1


def test_rubber_bonus_is_two() -> None:
    assert RUBBER_BONUS == 2
