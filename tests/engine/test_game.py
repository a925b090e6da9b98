"""Games and rubbers (docs/rules.md sections 3 and 8): the seeded cut, the deal passing left, winning, ties, rubbers."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

import pytest
from helpers import finish_hand_where, game_where, maker_tricks, snapshot

from arena.engine.actions import PASS, OrderUp
from arena.engine.game import Game, cut_for_dealer
from arena.engine.hand import HandState
from arena.engine.options import make_rules
from arena.engine.playout import random_game
from arena.errors import IllegalActionError

# ---- the first dealer and the deals ----


@pytest.mark.parametrize("variant", ["two-hand", "three-hand", "four-hand"])
def test_first_dealer_comes_from_a_seeded_cut_and_is_deterministic(variant: str) -> None:
    rules = make_rules(variant)
    for seed in range(40):
        first = Game(rules, seed).first_dealer
        assert first == Game(rules, seed).first_dealer == cut_for_dealer(rules.players, seed)
        assert Game(rules, seed).hand.dealer == first


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_cut_gives_every_seat_a_chance_to_deal(players: int) -> None:
    dealers = [cut_for_dealer(players, seed) for seed in range(2000)]
    assert set(dealers) == set(range(players))
    assert min(dealers.count(s) for s in range(players)) > 2000 / players * 0.7


def test_the_first_dealer_does_not_depend_on_the_variant_options() -> None:
    for seed in range(20):
        assert Game(make_rules("four-hand"), seed).first_dealer == Game(make_rules("british"), seed).first_dealer


@pytest.mark.parametrize("variant", ["two-hand", "three-hand", "four-hand", "four-hand-32", "british"])
def test_same_seed_gives_the_same_deals_whatever_is_played(variant: str) -> None:
    rules = make_rules(variant, {"points_to_win": 5})
    one = random_game(rules, 11, random.Random(1))
    two = random_game(rules, 11, random.Random(2))
    common = min(len(one.hands), len(two.hands))
    assert common >= 1
    assert [h.deal for h in one.hands[:common]] == [h.deal for h in two.hands[:common]]
    assert random_game(rules, 12, random.Random(1)).hands[0].deal != one.hands[0].deal


def test_each_deal_gives_five_cards_to_each_seat_and_keeps_the_rest_in_the_kitty() -> None:
    for variant, size in (("two-hand", 24), ("three-hand", 24), ("four-hand-32", 32), ("british", 25)):
        rules = make_rules(variant)
        deal = Game(rules, 5).hand.deal
        assert all(len(h) == 5 for h in deal.hands) and len(deal.hands) == rules.players
        cards = [c for h in deal.hands for c in h] + [deal.upcard, *deal.kitty]
        assert len(cards) == size and len(set(cards)) == size


# ---- the deal passes to the left ----


def test_passed_out_hand_scores_nothing_and_the_deal_passes_left() -> None:
    game = Game(make_rules("four-hand"), 3)
    first = game.hand.dealer
    for _ in range(8):
        game.apply(PASS)
    assert len(game.hands) == 1 and game.hands[0].result is not None and game.hands[0].result.passed_out
    assert game.scores() == (0, 0, 0, 0) and game.scores_after == [(0, 0, 0, 0)]
    assert game.hand.dealer == (first + 1) % 4
    assert game.hand.deal != game.hands[0].deal
    assert game.current_seat() == (first + 2) % 4  # the new eldest


@pytest.mark.parametrize("variant", ["two-hand", "three-hand", "four-hand"])
def test_the_deal_passes_to_the_left_every_hand(variant: str) -> None:
    rules = make_rules(variant)
    game = random_game(rules, 8, random.Random(8))
    dealers = [h.dealer for h in game.hands]
    assert dealers[0] == game.first_dealer
    assert all(b == (a + 1) % rules.players for a, b in itertools.pairwise(dealers))


def test_with_stick_the_dealer_no_hand_is_passed_out() -> None:
    game = random_game(make_rules("four-hand", {"stick_the_dealer": True}), 4, random.Random(4))
    assert not any(h.result is not None and h.result.passed_out for h in game.hands)


# ---- winning a game ----


@pytest.mark.parametrize("variant", ["two-hand", "three-hand", "four-hand", "british"])
def test_game_ends_after_the_first_hand_with_a_sole_top_score_at_points_to_win(variant: str) -> None:
    rules = make_rules(variant)
    for seed in range(5):
        game = random_game(rules, seed, random.Random(seed))
        final = game.scores_after[-1]
        assert max(final) >= 10
        assert all(final[w] == max(final) for w in game.winners)
        assert sorted({rules.side_of(w) for w in game.winners}) == [rules.side_of(game.winners[0])]
        for scores in game.scores_after[:-1]:
            top = max(scores)
            assert top < 10 or scores.count(top) > (2 if rules.partnerships else 1)
        assert game.legal_actions() == () and game.current_seat() is None


def test_scores_are_the_sum_of_hand_points_and_partners_show_the_same_score() -> None:
    game = random_game(make_rules("four-hand"), 21, random.Random(21))
    total = [0, 0, 0, 0]
    for hand, after in zip(game.hands, game.scores_after, strict=True):
        assert hand.result is not None
        total = [t + p for t, p in zip(total, hand.result.points, strict=True)]
        assert after == tuple(total)
        assert after[0] == after[2] and after[1] == after[3]


def test_points_to_win_is_honoured() -> None:
    game = random_game(make_rules("two-hand", {"points_to_win": 3}), 2, random.Random(2))
    assert max(game.scores_after[-1]) >= 3
    assert all(max(s) < 3 for s in game.scores_after[:-1])


def test_no_action_is_accepted_after_the_game_is_over() -> None:
    game = random_game(make_rules("two-hand", {"points_to_win": 1}), 2, random.Random(2))
    assert game.is_over()
    with pytest.raises(IllegalActionError):
        game.apply(PASS)


def test_illegal_action_in_a_game_leaves_the_game_unchanged() -> None:
    game = Game(make_rules("two-hand"), 6)
    rng = random.Random(6)
    while len(game.hands) < 3:
        game.apply(rng.choice(game.legal_actions()))
    before = snapshot(game)
    with pytest.raises(IllegalActionError):
        game.apply(OrderUp(True))
    with pytest.raises(IllegalActionError):
        game.apply(PASS, game.hand.dealer)  # the dealer speaks last
    assert snapshot(game) == before
    game.apply(PASS)
    assert snapshot(game) != before


def test_a_game_needs_one_player_name_per_seat() -> None:
    with pytest.raises(ValueError):
        Game(make_rules("four-hand"), 1, ["a", "b", "c"])
    assert Game(make_rules("three-hand"), 1, ["a", "b", "c"]).players == ["a", "b", "c"]


# ---- the three-hand tie ----


def maker_euchred(seat: int) -> Callable[[HandState], bool]:
    """A predicate: the finished hand was made by ``seat`` and euchred."""
    return lambda h: h.maker == seat and maker_tricks(h) < 3


def made_by(seat: int, tricks: set[int]) -> Callable[[HandState], bool]:
    """A predicate: the finished hand was made by ``seat``, who took a number of tricks in ``tricks``."""
    return lambda h: h.maker == seat and maker_tricks(h) in tricks


def test_three_hand_game_goes_on_while_the_top_score_is_tied() -> None:
    game = Game(make_rules("three-hand"), 1)
    game.side_scores = [8, 8, 0]
    game = finish_hand_where(game, maker_euchred(2))  # seats 0 and 1 both reach 10
    assert game.scores_after[-1] == (10, 10, 0)
    assert not game.is_over() and game.winners == ()
    rng = random.Random(0)
    while not game.is_over():
        game.apply(rng.choice(game.legal_actions()))
    final = game.scores_after[-1]
    assert len(game.winners) == 1
    winner = game.winners[0]
    assert final[winner] > max(s for i, s in enumerate(final) if i != winner)
    assert game.standings() == sorted(range(3), key=lambda s: -final[s])


def test_three_hand_two_players_past_the_target_on_one_hand_the_higher_wins() -> None:
    game = Game(make_rules("three-hand"), 1)
    game.side_scores = [9, 8, 0]
    game = finish_hand_where(game, maker_euchred(2))
    assert game.scores_after[-1] == (11, 10, 0)
    assert game.is_over() and game.winners == (0,)
    assert game.standings() == [0, 1, 2]


def test_three_hand_three_way_tie_goes_on() -> None:
    game = Game(make_rules("three-hand"), 2)
    game.side_scores = [10, 10, 9]
    game = finish_hand_where(game, made_by(2, {3, 4}))
    assert game.scores_after[-1] == (10, 10, 10) and not game.is_over()


def test_three_hand_tie_continuation_can_be_won_by_the_player_who_was_behind() -> None:
    game = game_where(make_rules("three-hand"), [10, 10, 8], made_by(2, {5}))
    assert game.scores_after[-1] == (10, 10, 11)
    assert game.winners == (2,) and game.standings()[0] == 2


def test_three_hand_standings_are_ordered_by_points() -> None:
    for seed in range(6):
        game = random_game(make_rules("three-hand"), seed, random.Random(seed))
        final = game.scores_after[-1]
        order = game.standings()
        assert sorted(order) == [0, 1, 2]
        assert [final[s] for s in order] == sorted(final, reverse=True)
        assert order[0] == game.winners[0]


# ---- rubbers ----


def scores_for(side: int) -> Callable[[HandState], bool]:
    """A predicate: the finished hand gave points to the seats of scoring side ``side``."""
    return lambda h: h.result is not None and h.result.points[side] > 0


def play_game_of_rubber(game: Game, start: list[int], winner_side: int) -> Game:
    """Start a game of the rubber at the given side scores and finish it with one hand won by ``winner_side``."""
    game.side_scores = list(start)
    games_before = len(game.games)
    game = finish_hand_where(game, scores_for(winner_side))
    assert len(game.games) == games_before + 1
    return game


@pytest.mark.parametrize(("loser_score", "game_points"), [(0, 3), (1, 2), (2, 2), (3, 1), (7, 1)])
def test_rubber_game_points_depend_on_the_losers_score(loser_score: int, game_points: int) -> None:
    game = Game(make_rules("two-hand", {"rubber": True}), 4)
    game = play_game_of_rubber(game, [9, loser_score], 0)
    summary = game.games[0]
    assert summary.winners == (0,)
    assert summary.final_scores[1] == loser_score and summary.final_scores[0] >= 10
    assert summary.game_points == game_points
    assert not game.is_over() and game.side_scores == [0, 0]  # the next game starts from zero


def test_two_hand_rubber_ends_when_a_side_wins_two_games_and_scores_the_difference_plus_two() -> None:
    game = Game(make_rules("two-hand", {"rubber": True}), 5)
    game = play_game_of_rubber(game, [9, 0], 0)  # seat 0 wins, 3 game points
    game = play_game_of_rubber(game, [2, 9], 1)  # seat 1 wins, 2 game points
    assert not game.is_over()
    game = play_game_of_rubber(game, [9, 5], 0)  # seat 0 wins again, 1 game point: the rubber is over
    assert game.is_over() and game.winners == (0,)
    assert [g.game_points for g in game.games] == [3, 2, 1]
    assert game.rubber_game_points() == (4, 2)
    assert game.rubber_points() == (4 - 2 + 2, 0)
    spans = [(g.first_hand, g.last_hand) for g in game.games]
    assert spans == [(0, 0), (1, 1), (2, 2)]


def test_four_hand_rubber_two_straight_games_end_it() -> None:
    game = Game(make_rules("four-hand", {"rubber": True}), 6)
    game = play_game_of_rubber(game, [0, 9], 1)
    assert game.games[0].winners == (1, 3) and game.games[0].game_points == 3
    game = play_game_of_rubber(game, [4, 9], 1)
    assert game.is_over() and game.winners == (1, 3)
    assert game.rubber_game_points() == (0, 4, 0, 4)
    assert game.rubber_points() == (0, 6, 0, 6)


def test_rubber_deal_keeps_passing_left_across_games() -> None:
    game = Game(make_rules("two-hand", {"rubber": True}), 7)
    game = play_game_of_rubber(game, [9, 0], 0)
    game = play_game_of_rubber(game, [0, 9], 1)
    dealers = [h.dealer for h in game.hands] + [game.hand.dealer]
    assert all(b == (a + 1) % 2 for a, b in itertools.pairwise(dealers))


def test_random_rubbers_follow_the_rubber_rules() -> None:
    for variant in ("two-hand", "four-hand"):
        rules = make_rules(variant, {"rubber": True, "points_to_win": 4})
        for seed in range(4):
            game = random_game(rules, seed, random.Random(seed))
            wins: dict[tuple[int, ...], int] = {}
            for g in game.games:
                wins[g.winners] = wins.get(g.winners, 0) + 1
                loser = max(s for i, s in enumerate(g.final_scores) if i not in g.winners)
                assert g.game_points == (3 if loser == 0 else 2 if loser <= 2 else 1)
            assert wins[game.winners] == 2 and sum(wins.values()) in (2, 3)
            assert game.games[-1].winners == game.winners
            gp = game.rubber_game_points()
            other = max(gp[s] for s in range(rules.players) if s not in game.winners)
            assert game.rubber_points() == tuple(
                gp[s] - other + 2 if s in game.winners else 0 for s in range(rules.players)
            )


def test_without_rubber_there_are_no_rubber_points() -> None:
    game = random_game(make_rules("two-hand", {"points_to_win": 2}), 1, random.Random(1))
    assert game.rubber_points() == (0, 0) and game.games == []


def test_hand_state_is_the_current_hand_of_the_game() -> None:
    game = Game(make_rules("three-hand"), 9)
    assert isinstance(game.hand, HandState) and game.hand.dealer == game.first_dealer
    assert game.current_seat() == (game.first_dealer + 1) % 3
