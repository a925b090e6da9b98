"""Pins the ratings maths: Bradley-Terry Elo, Laplace intervals widened for clusters, LOS, groups, three-hand
standings, the live fit behind the progress line, and live Elo. Coverage by simulation: test_ratings_coverage.py."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import ArenaError
from arena.tournament.ratings import (
    ELO_PER_NAT,
    Comparison,
    Fit,
    LiveElo,
    LiveFit,
    RatingsError,
    Tally,
    expected_score,
    fit_elo,
    los,
    rank_table,
    standing_comparisons,
    tally_table,
)

ELO_OF_75_PERCENT = 400.0 * math.log10(3.0)  # 190.85


def head_to_head(first: str, second: str, wins: int, losses: int, draws: int = 0, *, tag: str = "") -> list[Comparison]:
    """``first``'s record against ``second``, every game its own cluster."""
    return (
        [Comparison((first,), (second,), cluster=f"{tag}w{i}") for i in range(wins)]
        + [Comparison((second,), (first,), cluster=f"{tag}l{i}") for i in range(losses)]
        + [Comparison((first,), (second,), draw=True, cluster=f"{tag}d{i}") for i in range(draws)]
    )


def partnerships_where_a_wins(wins: int, losses: int) -> list[Comparison]:
    """A partners each of B, C, D in turn against the other two; A's side wins ``wins`` of every set."""
    result = []
    for partner, *opponents in (("B", "C", "D"), ("C", "B", "D"), ("D", "B", "C")):
        team, other = ("A", partner), tuple(opponents)
        result += [Comparison(team, other, cluster=f"{partner}w{i}") for i in range(wins)]
        result += [Comparison(other, team, cluster=f"{partner}l{i}") for i in range(losses)]
    return result


def simulated_partnerships(truth: dict[str, float], games: int, seed: int) -> list[Comparison]:
    """Random 2 v 2 games, outcomes drawn from the sum-of-Elo team model, two games per cluster."""
    rng = random.Random(seed)
    names = sorted(truth)
    result = []
    for g in range(games):
        a, b, c, d = rng.sample(names, 4)
        p = expected_score(truth[a] + truth[b], truth[c] + truth[d])
        won = rng.random() < p
        result.append(Comparison((a, b) if won else (c, d), (c, d) if won else (a, b), cluster=f"m{g // 2}"))
    return result


def log_likelihood(ratings: dict[str, float], comparisons: list[Comparison]) -> float:
    """Team Bradley-Terry log-likelihood on the Elo scale, written out game by game."""
    total = 0.0
    for c in comparisons:
        p = 1.0 / (1.0 + 10.0 ** (-(sum(ratings[n] for n in c.winners) - sum(ratings[n] for n in c.losers)) / 400))
        total += 0.5 * (math.log(p) + math.log(1.0 - p)) if c.draw else math.log(p)
    return total


# --- the point fit ---------------------------------------------------------------------------------------


def test_players_with_identical_records_get_identical_ratings() -> None:
    data = head_to_head("A", "C", 7, 3, tag="a") + head_to_head("B", "C", 7, 3, tag="b")
    data += head_to_head("A", "B", 2, 2, 1, tag="ab")
    ratings = fit_elo(data)
    assert ratings["A"] == pytest.approx(ratings["B"], abs=1e-9)
    assert ratings["A"] > ratings["C"] + 100


def test_a_75_percent_score_is_about_191_elo_and_the_mean_is_zero() -> None:
    ratings = fit_elo(head_to_head("A", "B", 300, 100))
    assert ratings["A"] - ratings["B"] == pytest.approx(ELO_OF_75_PERCENT, abs=1.0)
    assert ratings["A"] + ratings["B"] == pytest.approx(0.0, abs=1e-9)
    # the prior pulls only slightly, and less as it weakens
    assert ratings["A"] - ratings["B"] < ELO_OF_75_PERCENT
    nearly_mle = fit_elo(head_to_head("A", "B", 300, 100), prior_games=1e-6)
    assert nearly_mle["A"] - nearly_mle["B"] == pytest.approx(ELO_OF_75_PERCENT, abs=0.01)


def test_a_draw_counts_half_a_win_to_each_side() -> None:
    ratings = fit_elo(head_to_head("A", "B", 100, 0, 100))  # 150 of 200: a 75 % score
    assert ratings["A"] - ratings["B"] == pytest.approx(ELO_OF_75_PERCENT, abs=1.0)


def test_fit_is_a_maximum_of_the_game_by_game_team_likelihood() -> None:
    truth = {"A": 150.0, "B": 50.0, "C": 0.0, "D": -60.0, "E": -140.0}
    data = simulated_partnerships(truth, 400, seed=7)
    data += [Comparison(("A", "E"), ("B", "C"), draw=True, cluster="draws")] * 5
    ratings = fit_elo(data, prior_games=1e-9)
    step = 0.01
    for name in ratings:
        up = log_likelihood({**ratings, name: ratings[name] + step}, data)
        down = log_likelihood({**ratings, name: ratings[name] - step}, data)
        here = log_likelihood(ratings, data)
        assert (up - down) / (2 * step) == pytest.approx(0.0, abs=1e-5)
        assert here > up and here > down


def test_mixed_partnerships_rate_the_strong_individual_highest() -> None:
    ratings = fit_elo(partnerships_where_a_wins(30, 10))
    assert max(ratings, key=ratings.__getitem__) == "A"
    assert ratings["B"] == pytest.approx(ratings["C"], abs=1e-9)
    assert ratings["C"] == pytest.approx(ratings["D"], abs=1e-9)
    # a 75 % team score with A the only difference: A's Elo exceeds each other's by about 191
    assert ratings["A"] - ratings["B"] == pytest.approx(ELO_OF_75_PERCENT, abs=3.0)


def test_mixed_partnerships_recover_simulated_individual_ratings() -> None:
    truth = {"A": 200.0, "B": 100.0, "C": 0.0, "D": 0.0, "E": -100.0, "F": -200.0}
    ratings = fit_elo(simulated_partnerships(truth, 3000, seed=1))
    for name, value in truth.items():
        assert ratings[name] == pytest.approx(value, abs=40.0), name


def test_a_perfect_record_gives_a_finite_rating_that_grows_with_more_wins() -> None:
    ten = fit_elo(head_to_head("A", "B", 10, 0))
    forty = fit_elo(head_to_head("A", "B", 40, 0))
    assert all(math.isfinite(v) for v in ten.values())
    assert 400 < ten["A"] - ten["B"] < forty["A"] - forty["B"] < 1200


def test_perfect_records_in_a_chain_converge_even_with_a_very_weak_prior() -> None:
    data = head_to_head("A", "B", 1000, 0, tag="ab") + head_to_head("B", "C", 1000, 0, tag="bc")
    ratings = fit_elo(data, prior_games=1e-4)  # plain Newton overshoots here; the damped step does not
    assert all(math.isfinite(v) for v in ratings.values())
    assert ratings["A"] > ratings["B"] + 1000 > ratings["C"] + 2000
    assert ratings["A"] == pytest.approx(-ratings["C"], abs=1e-6)


def test_a_pairing_one_side_never_lost_played_thousands_of_times_is_fitted_with_the_rest() -> None:
    # Two counts the first fit could not finish ("did not converge"): along a pairing one side never lost the
    # posterior is so flat that rounding alone moved its steps by 1e-7, and they never reached the tolerance.
    apart = head_to_head("p0", "p3", 10_000, 0, tag="a") + head_to_head("p1", "p2", 10_193, 19_807, tag="b")
    ratings = fit_elo(apart)
    assert ratings["p0"] > ratings["p3"] + 1000
    score = 10_193 / 30_000  # 30,000 games against a prior of one: the fit is the head-to-head score's Elo
    assert ratings["p1"] - ratings["p2"] == pytest.approx(400.0 * math.log10(score / (1.0 - score)), abs=0.5)
    chain = (
        head_to_head("p2", "p3", 0, 1_000, tag="a")
        + head_to_head("p1", "p2", 7_053, 2_947, tag="b")
        + head_to_head("p0", "p1", 3_000, 0, tag="c")
        + head_to_head("p1", "p3", 1_000, 0, tag="d")
    )
    rows = rank_table(chain)
    assert [row.name for row in rows] == ["p0", "p1", "p3", "p2"]
    assert all(math.isfinite(row.elo) and row.plus_minus is not None and row.plus_minus > 0 for row in rows)


def test_a_group_is_fitted_alike_beside_an_unrelated_pairing_of_a_hundred_million_games() -> None:
    # The fit may end on a small predicted gain, measured against the whole log-posterior: a large group must not
    # loosen the fit of a small one, where a weak prior leaves a one-sided record a long way to go (review 9: with
    # the first such rule, 10-0 moved by 9.5 Elo next to a drawn pairing of 1e8 games).
    def fitted(unrelated: int) -> dict[str, float]:
        tally = Tally(clusters=False)
        tally.add(("a",), ("b",), count=10)
        if unrelated:
            tally.add(("x",), ("y",), count=unrelated)
            tally.add(("y",), ("x",), count=unrelated)
        return Fit(tally, prior_games=1e-4).elo

    alone, beside = fitted(0), fitted(50_000_000)
    assert beside["a"] - beside["b"] == pytest.approx(alone["a"] - alone["b"], abs=0.01)
    assert beside["x"] == pytest.approx(beside["y"], abs=1e-6)


def test_a_tally_takes_many_results_at_once_as_it_takes_them_one_by_one() -> None:
    one_by_one, at_once = Tally(), Tally()
    for _ in range(3):
        one_by_one.add(("a",), ("b",), cluster="c")
    one_by_one.add(("b",), ("a",), draw=True, cluster="d")
    at_once.add(("a",), ("b",), cluster="c", count=3)
    at_once.add(("b",), ("a",), draw=True, cluster="d")
    assert at_once.counts == one_by_one.counts and at_once.clusters == one_by_one.clusters
    with pytest.raises(RatingsError, match="positive"):
        at_once.add(("a",), ("b",), count=0)


def test_anchor_pins_a_named_player_and_keeps_the_gaps() -> None:
    data = head_to_head("A", "B", 30, 10) + head_to_head("B", "C", 20, 20, tag="bc")
    free = fit_elo(data)
    assert sum(free.values()) == pytest.approx(0.0, abs=1e-9)  # the fit itself is not centred: the table is
    anchored = fit_elo(data, anchor=("B", 1500.0))
    assert anchored["B"] == pytest.approx(1500.0)
    assert anchored["A"] - anchored["C"] == pytest.approx(free["A"] - free["C"], abs=1e-9)
    with pytest.raises(RatingsError):
        fit_elo(data, anchor=("Z", 0.0))


def test_no_comparisons_give_an_empty_table() -> None:
    assert fit_elo([]) == {}
    assert rank_table([]) == []


def test_a_comparison_needs_two_disjoint_nonempty_sides() -> None:
    with pytest.raises(RatingsError):
        Comparison(("A", "B"), ("B", "C"))
    with pytest.raises(RatingsError):
        Comparison((), ("B",))
    assert issubclass(RatingsError, ArenaError)


SIDES = [
    (("A",), ("B",)),
    (("B",), ("C",)),
    (("C",), ("A",)),
    (("A", "B"), ("C", "D")),
    (("D", "B"), ("C", "A")),
    (("A", "C"), ("B", "D")),
]
comparison_lists = st.lists(
    st.builds(
        lambda sides, draw, cluster: Comparison(sides[0], sides[1], draw=draw, cluster=cluster),
        st.sampled_from(SIDES),
        st.booleans(),
        st.sampled_from(["x", "y", "z", "w"]),
    ),
    min_size=1,
    max_size=30,
)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), comparisons=comparison_lists)
def test_game_order_does_not_change_the_table(data: st.DataObject, comparisons: list[Comparison]) -> None:
    shuffled = [
        Comparison(
            tuple(data.draw(st.permutations(c.winners))),
            tuple(data.draw(st.permutations(c.losers))),
            draw=c.draw,
            cluster=c.cluster,
        )
        for c in data.draw(st.permutations(comparisons))
    ]
    assert fit_elo(shuffled) == fit_elo(comparisons)
    assert rank_table(shuffled) == rank_table(comparisons)


# --- the table: Laplace intervals, records and LOS ---------------------------------------------------------


def three_players(scale: int, *, tag: str = "") -> list[Comparison]:
    return (
        head_to_head("A", "B", 6 * scale, 4 * scale, tag=tag + "ab")
        + head_to_head("B", "C", 6 * scale, 4 * scale, tag=tag + "bc")
        + head_to_head("A", "C", 7 * scale, 3 * scale, tag=tag + "ac")
    )


def test_the_table_is_a_function_of_the_results_alone() -> None:
    data = three_players(5)
    first = rank_table(data)
    assert first == rank_table(list(reversed(data)))
    tally = Tally()
    for c in data:
        tally.add(c.winners, c.losers, c.draw, c.cluster)
    assert tally_table(tally) == first
    assert rank_table(data, intervals=False) == [
        type(row)(**{**row.__dict__, "low": None, "high": None}) for row in first
    ]


def test_interval_contains_the_estimate_and_narrows_with_more_games() -> None:
    few = {row.name: row for row in rank_table(three_players(5))}
    many = {row.name: row for row in rank_table(three_players(20))}
    for name in "ABC":
        widths = []
        for row in (few[name], many[name]):
            assert row.low is not None and row.high is not None and row.plus_minus is not None
            assert row.low < row.elo < row.high
            widths.append(row.plus_minus)
        assert many[name].elo == pytest.approx(few[name].elo, abs=3.0)
        assert 0.35 < widths[1] / widths[0] < 0.7  # four times the games: about half the width
    assert sum(row.elo for row in few.values()) == pytest.approx(0.0, abs=1e-9)  # centred on the mean


def test_interval_matches_the_binomial_standard_error() -> None:
    # 240-160: the gap's standard error is 1 / sqrt(n p (1 - p)) nats; each rating (mean 0) carries half of it
    half_width = 1.959964 * ELO_PER_NAT / math.sqrt(400 * 0.6 * 0.4) / 2  # 17.4 Elo
    top = rank_table(head_to_head("A", "B", 240, 160))[0]
    assert top.low is not None and top.high is not None
    assert top.high - top.elo == pytest.approx(half_width, rel=0.01)  # the prior's one virtual game: 0.2 % narrower
    assert top.elo - top.low == pytest.approx(half_width, rel=0.01)
    ninety = rank_table(head_to_head("A", "B", 240, 160), confidence=0.9)[0]
    assert ninety.plus_minus == pytest.approx(top.plus_minus * 1.644854 / 1.959964)


def test_clusters_of_results_that_agree_widen_the_interval() -> None:
    independent = head_to_head("A", "B", 240, 160)
    # the same 400 results, but as 100 clusters of 4 identical results (e.g. a deal replayed 4 times)
    clustered = [c for c in head_to_head("A", "B", 60, 40) for _ in range(4)]
    wide = rank_table(clustered)[0]
    narrow = rank_table(independent)[0]
    assert wide.elo == pytest.approx(narrow.elo)
    assert wide.plus_minus is not None and narrow.plus_minus is not None
    assert 1.9 < wide.plus_minus / narrow.plus_minus < 2.1  # sqrt(4) = 2
    assert wide.los_next is not None and narrow.los_next is not None and wide.los_next < narrow.los_next


def test_clusters_never_narrow_the_interval_below_the_laplace_one() -> None:
    independent = rank_table(head_to_head("A", "B", 60, 40))[0]
    # duplicate rotations that cancel (each deal won once by each side): negatively correlated, not credited
    cancelling = [
        Comparison(winner, loser, cluster=f"deal{i}")
        for i in range(40)
        for winner, loser in ((("A",), ("B",)), (("B",), ("A",)))
    ] + head_to_head("A", "B", 20, 0, tag="x")
    one_cluster = [Comparison(c.winners, c.losers) for c in head_to_head("A", "B", 60, 40)]
    assert rank_table(one_cluster)[0].plus_minus == pytest.approx(independent.plus_minus, rel=1e-9)
    alone = [Comparison(c.winners, c.losers, cluster=str(i)) for i, c in enumerate(cancelling)]
    assert rank_table(cancelling)[0].plus_minus == pytest.approx(rank_table(alone)[0].plus_minus, rel=1e-9)


def test_the_cluster_widening_is_the_sandwich_of_the_docstring_summed_game_by_game() -> None:
    """``sd`` against the module docstring's formula worked out game by game: ``a' H^-1 a + max(0, w' C w)``, with
    ``C`` the within-cluster cross products of the games' scores ``x_g r_g``. Clusters mix matchups (1-vs-1 and
    2-vs-2, draws too), so the cross products of two different matchups count: the fit sums them matchup by
    matchup, and pairing a matchup with the wrong one passed every other test. (H and the fitted strengths are the
    fit's own; the rest is computed here.)"""
    rng = random.Random(11)
    names = ["A", "B", "C", "D", "E"]
    comparisons = []
    for cluster in range(150):  # a hot or cold deal for one player, in every game of it: correlated results
        hot = rng.choice(names)
        hot_wins = rng.random() < 0.5
        for _ in range(rng.randint(1, 4)):
            size = rng.choice((1, 1, 2))
            others = rng.sample([n for n in names if n != hot], 2 * size - 1)
            side, other = (hot, *others[: size - 1]), tuple(others[size - 1 :])
            if rng.random() < 0.1:
                comparisons.append(Comparison(side, other, draw=True, cluster=str(cluster)))
            else:
                winners, losers = (side, other) if hot_wins == (rng.random() < 0.85) else (other, side)
                comparisons.append(Comparison(winners, losers, cluster=str(cluster)))
    fit = Fit.of(comparisons)
    k = len(fit.players)
    index = {name: i for i, name in enumerate(fit.players)}
    theta, hess = fit._theta, fit._hess
    h = [[hess[min(i, j) * k + max(i, j)] for j in range(k)] for i in range(k)]  # (kept as its upper triangle)

    def solve(rhs: list[float]) -> list[float]:  # Gauss-Jordan: H is small, symmetric and positive definite
        rows = [[*h[i], rhs[i]] for i in range(k)]
        for col in range(k):
            pivot = max(range(col, k), key=lambda r: abs(rows[r][col]))
            rows[col], rows[pivot] = rows[pivot], rows[col]
            for r in range(k):
                if r != col:
                    factor = rows[r][col] / rows[col][col]
                    rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=True)]
        return [rows[i][k] / rows[i][i] for i in range(k)]

    widened = 0
    for name in names:
        contrast = [-1.0 / k] * k
        contrast[index[name]] += 1.0
        w = solve(contrast)
        laplace = sum(a * b for a, b in zip(contrast, w, strict=True))
        by_cluster: dict[str, list[float]] = {}
        for c in comparisons:
            plus = sum(theta[index[n]] for n in c.winners) - sum(theta[index[n]] for n in c.losers)
            residual = (0.5 if c.draw else 1.0) - 1.0 / (1.0 + math.exp(-plus))
            z = sum(w[index[n]] for n in c.winners) - sum(w[index[n]] for n in c.losers)
            by_cluster.setdefault(c.cluster, []).append(z * residual)
        extra = sum(sum(u) ** 2 - sum(x * x for x in u) for u in by_cluster.values())
        widened += extra > 0.05 * laplace
        assert fit.sd(name) == pytest.approx(ELO_PER_NAT * math.sqrt(laplace + max(extra, 0.0)), rel=1e-9)
    assert widened >= 3  # the clusters widen most intervals here: the cross products are what is tested


def test_the_results_of_one_three_hand_game_are_correlated_and_widen_the_interval() -> None:
    games = []
    for g in range(60):  # A tops most games; each game's two pairwise results of a player go together
        order = ["A", "B", "C"] if g % 3 else ["B", "A", "C"] if g % 2 else ["C", "B", "A"]
        games.append({name: 10 - 3 * place for place, name in enumerate(order)})
    by_game = [c for g, scores in enumerate(games) for c in standing_comparisons(scores, cluster=f"g{g}")]
    apart = [Comparison(c.winners, c.losers, c.draw, cluster=str(i)) for i, c in enumerate(by_game)]
    wide = {row.name: row.plus_minus or 0.0 for row in rank_table(by_game)}
    narrow = {row.name: row.plus_minus or 0.0 for row in rank_table(apart)}
    # A and C top or bottom a game against both others at once; B's two results mostly split
    assert wide["A"] > 1.2 * narrow["A"] and wide["C"] > 1.2 * narrow["C"], (wide, narrow)
    assert wide["B"] >= narrow["B"]


def test_table_is_sorted_and_counts_each_players_record() -> None:
    data = head_to_head("A", "B", 6, 3, 1) + head_to_head("C", "A", 2, 2, tag="ca")
    rows = rank_table(data, intervals=False)
    assert [row.elo for row in rows] == sorted((row.elo for row in rows), reverse=True)
    a = next(row for row in rows if row.name == "A")
    assert (a.games, a.wins, a.losses, a.draws) == (14, 8, 5, 1)
    assert a.score == pytest.approx(8.5 / 14)
    assert a.low is None and a.high is None and a.plus_minus is None
    assert rows[-1].los_next is None


def test_anchored_table_pins_the_anchor_and_its_interval() -> None:
    rows = {row.name: row for row in rank_table(three_players(5), anchor=("C", 1000.0))}
    assert rows["C"].elo == pytest.approx(1000.0)
    assert rows["C"].low == pytest.approx(1000.0) and rows["C"].high == pytest.approx(1000.0)
    assert rows["A"].low is not None and rows["A"].low > 1000.0


def test_los_is_one_half_for_identical_records() -> None:
    data = head_to_head("A", "C", 7, 3, tag="a") + head_to_head("B", "C", 7, 3, tag="b")
    data += head_to_head("A", "B", 2, 2, tag="ab")
    assert los(data, "A", "B") == pytest.approx(0.5, abs=1e-9)
    top = rank_table(data)[0]
    assert top.name in ("A", "B") and top.los_next == pytest.approx(0.5, abs=1e-9)


def test_los_is_near_one_for_a_dominant_player_and_complements() -> None:
    data = head_to_head("A", "B", 45, 5)
    ab, ba = los(data, "A", "B"), los(data, "B", "A")
    assert ab is not None and ba is not None
    assert ab > 0.999
    assert ba == pytest.approx(1.0 - ab)
    top = rank_table(data)[0]
    assert top.name == "A" and top.los_next is not None and top.los_next > 0.999


def test_los_of_a_close_match_agrees_with_the_classic_win_loss_formula() -> None:
    classic = 0.5 * (1.0 + math.erf((55 - 45) / math.sqrt(2.0 * (55 + 45))))  # 0.841
    assert los(head_to_head("A", "B", 55, 45), "A", "B") == pytest.approx(classic, abs=0.005)


# --- three-hand standings ---------------------------------------------------------------------------------


def test_a_standing_becomes_pairwise_results_with_ties_as_draws() -> None:
    assert standing_comparisons({"C": 7, "A": 10, "B": 7}, cluster="g1") == [
        Comparison(("A",), ("B",), cluster="g1"),
        Comparison(("A",), ("C",), cluster="g1"),
        Comparison(("B",), ("C",), draw=True, cluster="g1"),
    ]
    assert standing_comparisons({"X": 3.0, "Y": 3.0}) == [Comparison(("X",), ("Y",), draw=True)]
    assert standing_comparisons({"X": 3.0}) == []


def test_three_hand_standings_rank_the_players_in_order() -> None:
    data = []
    for g in range(30):
        data += standing_comparisons({"A": 10, "B": 6 + g % 3, "C": 5 - g % 2}, cluster=f"g{g}")
    data += standing_comparisons({"A": 4, "B": 10, "C": 8}, cluster="upset")
    rows = rank_table(data)
    assert [row.name for row in rows] == ["A", "B", "C"]
    assert all(math.isfinite(row.elo) for row in rows)
    assert rows[0].games == 62  # two pairwise results per game


# --- live Elo ---------------------------------------------------------------------------------------------


def test_live_elo_moves_the_winner_up_by_k_times_one_minus_expected() -> None:
    live = LiveElo(k=16.0)
    assert live.update(["A"], ["B"]) == pytest.approx(8.0)  # E = 0.5 between new players
    assert live.ratings() == {"A": 8.0, "B": -8.0}
    expected = 1.0 / (1.0 + 10.0 ** ((8.0 - -8.0) / 400.0))  # B's expected score, rated 16 below A
    delta = live.update(["B"], ["A"])
    assert delta == pytest.approx(16.0 * (1.0 - expected))
    assert live.rating("B") == pytest.approx(-8.0 + delta)
    assert live.rating("A") == pytest.approx(8.0 - delta)
    assert delta > 8.0  # the underdog gains more


def test_live_elo_rates_a_team_by_its_mean_and_is_zero_sum_for_equal_teams() -> None:
    live = LiveElo(k=20.0)
    live.update(["A", "B"], ["C", "D"])
    live.update(["A", "C"], ["B", "D"])
    mean_ab = (live.rating("A") + live.rating("B")) / 2
    mean_cd = (live.rating("C") + live.rating("D")) / 2
    delta = live.update(["C", "D"], ["A", "B"])
    assert delta == pytest.approx(20.0 * (1.0 - expected_score(mean_cd, mean_ab)))
    rng = random.Random(3)
    for _ in range(200):
        a, b, c, d = rng.sample("ABCDEF", 4)
        live.update([a, b], [c, d], draw=rng.random() < 0.2)
    assert sum(live.ratings().values()) == pytest.approx(0.0, abs=1e-9)


def test_live_elo_draws_move_only_unequal_players_and_leader_is_the_top() -> None:
    live = LiveElo(k=16.0)
    assert live.leader() is None
    assert live.update(["A"], ["B"], draw=True) == 0.0
    live.update(["A"], ["C"])
    assert live.leader() == "A"
    gain = live.update(["C"], ["A"], draw=True)
    assert gain > 0.0  # the lower-rated side gains from a draw
    replay = LiveElo(k=16.0)
    for c in (Comparison(("A",), ("B",), draw=True), Comparison(("A",), ("C",))):
        replay.record(c)
    assert replay.record(Comparison(("C",), ("A",), draw=True, cluster="m1")) == pytest.approx(gain)
    assert replay.ratings() == pytest.approx(live.ratings())


def test_live_elo_rejects_empty_or_overlapping_sides() -> None:
    live = LiveElo()
    with pytest.raises(RatingsError):
        live.update([], ["A"])
    with pytest.raises(RatingsError):
        live.update(["A", "B"], ["B", "C"])


def test_expected_score_is_the_400_log10_logistic() -> None:
    assert expected_score(ELO_OF_75_PERCENT, 0.0) == pytest.approx(0.75)
    assert expected_score(0.0, 0.0) == 0.5
    assert math.isclose(ELO_PER_NAT, 400.0 / math.log(10.0))


def test_a_clean_sweep_does_not_get_a_zero_width_interval() -> None:
    sweep = [Comparison(("a",), ("b",), cluster=f"c{i}") for i in range(12)]
    rows = rank_table(sweep)
    for row in rows:
        assert row.plus_minus is not None and row.plus_minus > 50
        assert row.low is not None and row.high is not None and row.low < row.elo < row.high


# --- one-sided and thin records (issue 13) ------------------------------------------------------------------


def test_a_one_sided_record_gets_a_wide_interval_that_reaches_modest_gaps() -> None:
    """A 20-0 sweep says A is better, not by how much: its interval reaches down to modest gaps."""
    a, b = rank_table(head_to_head("A", "B", 20, 0))
    assert a.low is not None and a.plus_minus is not None and b.plus_minus is not None
    assert a.elo - b.elo > 600  # the fit: far apart
    assert a.low < 100 and a.plus_minus > 200  # yet a true gap of 200 (A at +100) is inside the interval
    assert a.los_next is not None and 0.99 < a.los_next < 0.999


def test_a_single_drawn_game_gets_a_wider_interval_than_forty_games() -> None:
    data = head_to_head("A", "B", 25, 15, tag="ab") + head_to_head("B", "C", 22, 18, tag="bc")
    data += head_to_head("C", "A", 20, 20, tag="ca") + head_to_head("D", "A", 0, 0, 1, tag="da")
    rows = {row.name: row for row in rank_table(data)}
    widths = {name: row.plus_minus or 0.0 for name, row in rows.items()}
    assert widths["D"] > 2 * max(widths[name] for name in "ABC"), widths


# --- groups that never met ----------------------------------------------------------------------------------


def two_groups() -> list[Comparison]:
    """A and B (a clean sweep) never meet C and D (even), directly or through others."""
    return head_to_head("A", "B", 20, 0, tag="ab") + head_to_head("C", "D", 12, 8, tag="cd")


def test_players_who_never_met_are_not_compared() -> None:
    data = two_groups()
    assert los(data, "A", "C") is None and los(data, "D", "B") is None
    assert los(data, "A", "B") is not None and los(data, "C", "D") is not None
    fit = Fit.of(data)
    assert fit.group("A") == fit.group("B") != fit.group("C") == fit.group("D")


def test_the_table_lists_groups_apart_each_centred_on_its_mean() -> None:
    rows = rank_table(data := two_groups())
    assert [(row.name, row.group) for row in rows] == [("A", 1), ("B", 1), ("C", 2), ("D", 2)]
    assert rows[0].elo + rows[1].elo == pytest.approx(0.0, abs=1e-9)
    assert rows[2].elo + rows[3].elo == pytest.approx(0.0, abs=1e-9)
    assert rows[1].los_next is None and rows[3].los_next is None  # no LOS across groups, nor after the last
    assert rows[0].los_next is not None and rows[2].los_next is not None
    assert fit_elo(data) == pytest.approx({row.name: row.elo for row in rows})
    # adding a game between the groups joins them
    joined = rank_table([*data, Comparison(("B",), ("C",), cluster="bridge")])
    assert {row.group for row in joined} == {1} and all(row.los_next is not None for row in joined[:-1])


def test_teammates_who_never_faced_each_other_are_in_one_group() -> None:
    data = [Comparison(("A", "B"), ("C", "D"), cluster=f"g{i}") for i in range(6)]
    data += [Comparison(("C", "D"), ("A", "B"), cluster=f"h{i}") for i in range(4)]
    rows = rank_table(data)
    assert {row.group for row in rows} == {1}
    fit = Fit.of(data)
    assert fit.los("A", "B") == pytest.approx(0.5)  # only their sum is known: the prior splits it evenly


def test_an_anchor_pins_its_group_and_centres_the_others_on_it() -> None:
    rows = {row.name: row for row in rank_table(two_groups(), anchor=("B", 1500.0))}
    assert rows["B"].elo == pytest.approx(1500.0) and rows["B"].plus_minus == 0.0
    assert rows["C"].elo + rows["D"].elo == pytest.approx(3000.0)


# --- the live leader is the table's --------------------------------------------------------------------------


def test_the_live_fit_leads_with_the_tables_top_row_after_every_result() -> None:
    rng = random.Random(5)
    truth = {"A": 60.0, "B": 40.0, "C": 0.0, "D": -30.0}
    live = LiveFit()
    seen: list[Comparison] = []
    assert live.leader() is None
    disagreements_of_live_elo = 0
    elo = LiveElo(k=16.0)
    for g in range(120):
        a, b = rng.sample(sorted(truth), 2)
        won = rng.random() < expected_score(truth[a], truth[b])
        c = Comparison((a,) if won else (b,), (b,) if won else (a,), draw=rng.random() < 0.05, cluster=f"d{g // 2}")
        live.record(c)
        elo.record(c)
        seen.append(c)
        top = rank_table(seen, intervals=False)
        leader = live.leader()
        assert leader is not None
        if leader.groups == 1:
            assert (leader.name, leader.elo) == (top[0].name, top[0].elo)
        else:
            assert leader.groups == max(row.group for row in top)
        disagreements_of_live_elo += elo.leader() != top[0].name
    assert disagreements_of_live_elo > 0  # the incremental Elo the progress line showed before did disagree
