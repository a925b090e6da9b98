"""The SPRT maths (arena/sprt/stats.py): LLRs checked against hand arithmetic, properties, and simulated error rates."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import pytest
from helpers import cases
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.sprt.stats import (
    EPSILON,
    NELO_PER_T,
    SCORES,
    Pentanomial,
    Sprt,
    SprtError,
    bounds,
    estimate,
    llr_logistic,
    llr_normalized,
    logistic_elo,
    logistic_score,
    mle_with_mean,
    mle_with_t,
)

ELO_75 = 400 * math.log10(3)  # an expected score of 0.75: 190.85 Elo


def test_llr_of_a_two_outcome_count_is_the_figure_computed_by_hand() -> None:
    # 10 pairs lost twice (LL) and 30 won twice (WW): with no other outcome (epsilon 0), the only distribution on
    # {0, 1} with mean s is (1 - s, s), so each hypothesis's maximum is fixed by its score alone:
    #   H0: elo0 = 0      -> s0 = 0.5,  p0 = (0.5, 0.5)
    #   H1: elo1 = 190.85 -> s1 = 0.75, p1 = (0.25, 0.75)
    # LLR = 10 ln(0.25 / 0.5) + 30 ln(0.75 / 0.5) = 10 (-0.693147) + 30 (0.405465) = -6.93147 + 12.16395 = 5.23248
    counts = Pentanomial((10, 0, 0, 0, 30))
    assert llr_logistic(counts, 0.0, ELO_75, epsilon=0.0) == pytest.approx(5.23248, abs=1e-5)
    # the regularised counts (a zero counts as 0.001) move it by little
    assert llr_logistic(counts, 0.0, ELO_75) == pytest.approx(5.23248, abs=0.02)


def test_normalized_llr_of_a_two_outcome_count_is_the_figure_computed_by_hand() -> None:
    # On {0, 1} a distribution (1 - p, p) has mu = p and sigma = sqrt(p (1 - p)); the t-value (mu - 0.5) / sigma = t
    # gives p = 0.5 + t / (2 sqrt(1 + t^2)). A pair's t is sqrt(2) nElo / (800 / ln 10); nElo1 = 347.436 / sqrt(6)
    # = 141.84 makes it 1 / sqrt(3), so p1 = 0.5 + (1 / sqrt 3) / (2 sqrt(4 / 3)) = 0.75; nElo0 = 0 gives p0 = 0.5:
    # the same two distributions as the logistic case above, so the same LLR, 5.23248.
    counts = Pentanomial((10, 0, 0, 0, 30))
    nelo1 = NELO_PER_T / math.sqrt(6)
    assert nelo1 == pytest.approx(141.84, abs=0.01)
    assert llr_normalized(counts, 0.0, nelo1, epsilon=0.0) == pytest.approx(5.23248, abs=1e-5)


def test_wald_bounds_are_the_logs_of_the_error_ratios() -> None:
    # ln(0.05 / 0.95) = -2.94444 and ln(0.95 / 0.05) = 2.94444; ln(0.1 / 0.95) = -2.25129, ln(0.9 / 0.05) = 2.89037
    assert bounds(0.05, 0.05) == pytest.approx((-2.94444, 2.94444), abs=1e-5)
    assert bounds(0.05, 0.1) == pytest.approx((-2.25129, 2.89037), abs=1e-5)
    assert Sprt(0, 5, 0.05, 0.05).verdict(2.95) == "H1"
    assert Sprt(0, 5, 0.05, 0.05).verdict(-2.95) == "H0"
    assert Sprt(0, 5, 0.05, 0.05).verdict(2.9) is None


def test_elo_conversions_and_the_estimate_by_hand() -> None:
    assert logistic_score(ELO_75) == pytest.approx(0.75)
    assert logistic_elo(0.75) == pytest.approx(190.849, abs=1e-3)
    # pairs scoring 1 and 2 of 2: fractions 0.5 and 1, mean 0.75, variance 0.0625, sd of the mean sqrt(0.0625 / 2)
    # = 0.176777; the interval 0.75 -+ 1.959964 * 0.176777 = [0.403525, 1.096475] reaches past 1 (+inf Elo)
    est = estimate(Pentanomial((0, 0, 1, 0, 1)))
    assert est.score == pytest.approx(0.75)
    assert est.elo == pytest.approx(190.849, abs=1e-3)
    assert est.elo_low == pytest.approx(logistic_elo(0.403525), abs=1e-3)
    assert est.elo_high == math.inf
    # LOS = Phi(0.25 / 0.176777) = Phi(1.414214) = 0.921350
    assert est.los == pytest.approx(0.921350, abs=1e-6)
    # normalised: (0.75 - 0.5) / (sqrt 2 * 0.25) * 347.436 = 245.67
    assert est.nelo == pytest.approx(245.67, abs=0.01)
    # 12 pairs all won twice: no spread; the exact bound 0.025 ** (1 / 12) = exp(-3.688879 / 12) = 0.735327, which is
    # 400 log10(0.735327 / 0.264673) = 177.5 Elo, and an open upper end
    won = estimate(Pentanomial((0, 0, 0, 0, 12)))
    assert (won.elo, won.elo_high, won.los) == (math.inf, math.inf, 1.0)
    assert won.elo_low == pytest.approx(177.5, abs=0.05)


def test_parameters_that_make_no_test_are_refused() -> None:
    with pytest.raises(SprtError, match="elo0 must be below elo1"):
        Sprt(5, 5)
    with pytest.raises(SprtError, match="alpha"):
        Sprt(0, 5, alpha=0)
    with pytest.raises(SprtError, match="a pair scores"):
        Pentanomial().add(0.3)


outcomes = st.lists(st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0]), min_size=1, max_size=60)


@settings(max_examples=cases(100))
@given(outcomes)
def test_the_counts_always_sum_to_the_pairs(points: list[float]) -> None:
    counts = Pentanomial()
    for p in points:
        counts = counts.add(p)
    assert counts.pairs == len(points)
    assert counts.points == pytest.approx(sum(points))


@settings(max_examples=cases(100), deadline=None)
@given(outcomes, st.sampled_from(["logistic", "normalized"]))
def test_the_llr_rises_with_wins_and_falls_with_losses(points: list[float], model: str) -> None:
    # a pair won twice raises the LLR, a pair lost twice lowers it, and a pair turned from two losses into two wins
    # raises it. (A pair moved up one outcome need not, among a few: the LLR weighs the spread too, and a smaller
    # spread sharpens a deficit, so (1, 1, 0, 0, 0) scores a hair above (0, 2, 0, 0, 0) against elo1 = 20.)
    counts = Pentanomial()
    for p in points:
        counts = counts.add(p)
    test = Sprt(0, 20, model=model)  # type: ignore[arg-type]
    llr = test.llr(counts)
    assert test.llr(counts.add(0.0)) < llr < test.llr(counts.add(2.0))
    if counts.counts[0]:
        won = (counts.counts[0] - 1, *counts.counts[1:4], counts.counts[4] + 1)
        assert test.llr(Pentanomial(won)) > llr


@settings(max_examples=cases(100), deadline=None)
@given(st.lists(st.integers(0, 50), min_size=5, max_size=5), st.floats(0.1, 0.9), st.floats(-0.6, 0.6))
def test_the_constrained_maxima_meet_their_constraints(counts: list[int], s: float, t: float) -> None:
    weights = [c + 0.001 for c in counts]
    phat = [w / sum(weights) for w in weights]
    p = mle_with_mean(phat, s)
    assert sum(p) == pytest.approx(1.0)
    assert sum(pi * a for pi, a in zip(p, SCORES, strict=True)) == pytest.approx(s, abs=1e-9)
    q = mle_with_t(phat, t)
    mu = sum(qi * a for qi, a in zip(q, SCORES, strict=True))
    sigma = math.sqrt(sum(qi * (a - mu) ** 2 for qi, a in zip(q, SCORES, strict=True)))
    assert sum(q) == pytest.approx(1.0)
    assert (mu - 0.5) / sigma == pytest.approx(t, abs=1e-6)


def frequencies(counts: Sequence[int]) -> list[float]:
    """The observed distribution of pair outcomes as the LLR regularises it: an empty cell counts ``EPSILON``."""
    weights = [n if n else EPSILON for n in counts]
    return [w / sum(weights) for w in weights]


@settings(max_examples=cases(100), deadline=None)
@given(
    st.lists(st.one_of(st.just(0), st.integers(1, 100), st.integers(1, 100_000)), min_size=5, max_size=5).filter(any),
    st.sampled_from([2.0, 5.0, 10.0, 50.0, -5.0, -10.0]),
)
def test_the_normalized_maximum_is_found_for_large_counts_with_empty_cells(counts: list[int], nelo: float) -> None:
    # Thousands of pairs and a cell never seen (as when one side never loses a pair twice): the regularised cell is
    # tilted up a thousandfold, rounding moves the iterates by up to 1e-8, and the fixed point must still be found
    # (the first implementation stopped only at 1e-12 and failed on some 2.5 % of such counts).
    phat = frequencies(counts)
    t = math.sqrt(2.0) * nelo / NELO_PER_T
    q = mle_with_t(phat, t)
    mu = sum(qi * a for qi, a in zip(q, SCORES, strict=True))
    var = sum(qi * (a - mu) ** 2 for qi, a in zip(q, SCORES, strict=True))
    assert sum(q) == pytest.approx(1.0)
    assert (mu - 0.5) / math.sqrt(var) == pytest.approx(t, abs=1e-7)
    # and it is the maximum's form, q_i = phat_i / (1 + x u_i) with u from its own moments: one x fits every cell of
    # phat_i - q_i = x u_i q_i (x by least squares; in this form a cell near a pole is no harder than the others)
    u = [a - 0.5 - t * (var + (a - mu) ** 2) / (2.0 * math.sqrt(var)) for a in SCORES]
    slope = [v * qi for v, qi in zip(u, q, strict=True)]
    gap = [p - qi for p, qi in zip(phat, q, strict=True)]
    x = sum(g * w for g, w in zip(gap, slope, strict=True)) / sum(w * w for w in slope)
    assert max(abs(g - x * w) for g, w in zip(gap, slope, strict=True)) < 1e-7


@settings(max_examples=cases(100), deadline=None)
@given(st.integers(0, 40), st.integers(0, 400), st.integers(0, 15), st.integers(0, 6))
def test_counts_whose_first_newton_step_lands_on_a_pole_get_the_true_maximum(
    c0: int, c2: int, c3: int, c4: int
) -> None:
    # With c1 = 3 c3 + 8 c4 the tilt's first Newton step at elo 0 lands on a pole of the secular equation; rounded one
    # ulp inside, the step there is tiny too and was taken for convergence: q then summed to ~1e13, and
    # (0, 11, 56, 1, 1) gave an LLR of -34 (H0 accepted) beside -0.7 for its neighbours (review 9).
    counts = (c0, 3 * c3 + 8 * c4, c2, c3, c4)
    if not any(counts):
        return
    phat = frequencies(counts)
    p = mle_with_mean(phat, 0.5)
    assert sum(p) == pytest.approx(1.0)
    assert sum(pi * a for pi, a in zip(p, SCORES, strict=True)) == pytest.approx(0.5, abs=1e-9)


def test_one_drawn_pair_moves_the_llr_a_little_beside_a_pole() -> None:
    test = Sprt(0, 5)
    here, fewer = test.llr(Pentanomial((0, 11, 56, 1, 1))), test.llr(Pentanomial((0, 11, 55, 1, 1)))
    assert here == pytest.approx(fewer, abs=0.05)


def test_a_count_that_defeated_the_fixed_point_gives_its_llr() -> None:
    counts = Pentanomial((0, 269, 1743, 1677, 2529))  # 6,218 pairs, never two losses: far above nelo 10
    assert 0.0 < llr_normalized(counts, 0.0, 5.0) < llr_normalized(counts, 0.0, 10.0)


# ---- simulation: the observed error rates ----

BASE_PDF = (0.05, 0.2, 0.5, 0.2, 0.05)  # pair outcomes at equal strength: duplicate pairs often split


def pentanomial_at(elo: float) -> list[float]:
    """BASE_PDF tilted (p_i proportional to b_i exp(lam a_i)) to the expected score of ``elo``."""
    target = logistic_score(elo)
    low, high = -50.0, 50.0
    for _ in range(200):
        lam = (low + high) / 2
        weights = [b * math.exp(lam * a) for b, a in zip(BASE_PDF, SCORES, strict=True)]
        mean = sum(w * a for w, a in zip(weights, SCORES, strict=True)) / sum(weights)
        low, high = (lam, high) if mean < target else (low, lam)
    return [w / sum(weights) for w in weights]


def run_test(test: Sprt, pdf: list[float], rng: random.Random, cap: int, seen: dict[Pentanomial, float]) -> str | None:
    """One sequential test on pairs drawn from ``pdf``: its verdict, or None at the cap (``seen``: LLRs computed)."""
    counts = Pentanomial()
    for _ in range(cap):
        counts = counts.add(rng.choices(range(5), pdf)[0] / 2)
        llr = seen.get(counts)
        if llr is None:
            llr = seen[counts] = test.llr(counts)
        verdict = test.verdict(llr)
        if verdict:
            return verdict
    return None


def error_rates(model: str, trials: int, elo1: float = 60.0) -> tuple[float, float]:
    """The rates of false H1 (pairs drawn at elo0 = 0) and false H0 (drawn at ``elo1``) over ``trials`` tests each."""
    alpha, beta = ALPHA, BETA
    test = Sprt(0.0, elo1, alpha, beta, model)  # type: ignore[arg-type]
    rng = random.Random(2026)
    if model == "logistic":
        at0, at1 = pentanomial_at(0.0), pentanomial_at(elo1)
    else:  # the same shapes, at the normalised Elo of the hypotheses
        at0, at1 = pentanomial_at(0.0), pentanomial_at(_logistic_for_nelo(elo1))
    seen: dict[Pentanomial, float] = {}
    false_h1 = sum(run_test(test, at0, rng, 2000, seen) == "H1" for _ in range(trials)) / trials
    false_h0 = sum(run_test(test, at1, rng, 2000, seen) == "H0" for _ in range(trials)) / trials
    return false_h1, false_h0


ALPHA, BETA = 0.05, 0.1


@pytest.mark.slow  # a simulation of thousands of tests
def test_simulated_error_rates_are_within_tolerance_of_alpha_and_beta() -> None:
    # elo0 = 0 and elo1 = 60 (a test decided in some forty pairs, so that 600 tests per hypothesis take seconds);
    # the synthetic pairs are drawn at elo0 (every H1 is an error, rate ~ alpha) and at elo1 (every H0 is one, ~ beta).
    # The binomial sd of a rate near 0.05 over 600 tests is 0.009, near 0.1 it is 0.012; the SPRT overshoots its
    # bounds, so its real error rates lie somewhat below the nominal ones.
    false_h1, false_h0 = error_rates("logistic", 600)
    assert 0.01 <= false_h1 <= ALPHA + 0.03, false_h1
    assert 0.03 <= false_h0 <= BETA + 0.035, false_h0


@pytest.mark.slow
def test_simulated_error_rates_of_the_normalized_model() -> None:
    # the same at normalised Elo 0 and 100, 300 tests each (its LLR solves a fixed point: about 1 ms a pair)
    false_h1, false_h0 = error_rates("normalized", 300, elo1=100.0)
    assert 0.005 <= false_h1 <= ALPHA + 0.04, false_h1
    assert 0.02 <= false_h0 <= BETA + 0.05, false_h0


def _logistic_for_nelo(nelo: float) -> float:
    """The logistic Elo at which a tilted BASE_PDF has normalised Elo ``nelo``."""
    low, high = 0.0, 400.0
    for _ in range(100):
        mid = (low + high) / 2
        est = estimate(_expected_counts(pentanomial_at(mid)))
        low, high = (mid, high) if est.nelo < nelo else (low, mid)
    return (low + high) / 2


def _expected_counts(pdf: list[float]) -> Pentanomial:
    return Pentanomial(tuple(round(p * 10**7) for p in pdf))  # type: ignore[arg-type]
