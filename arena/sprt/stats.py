"""SPRT maths on duplicate game pairs (pure, no I/O): the pentanomial model, the generalised LLR, Elo estimates.

docs/sprt.md explains it for its readers; this is the reference.

Pairs. A duplicate deal is played twice, the seats swapped, by fresh bot processes; the pair scores 0, 0.5, 1, 1.5
or 2 points of 2 for NEW (a win 1, a draw 0.5, a loss 0 in each game). ``Pentanomial`` counts the pairs by score.
The statistics use a pair's score as a fraction, ``a = points / 2`` in (0, 0.25, 0.5, 0.75, 1): its mean is the
expected score of one game.

Elo. Logistic Elo ``elo`` means an expected score ``1 / (1 + 10 ** (-elo / 400))``, the scale of the ranking table.
Normalised Elo is ``(mu - 0.5) / sigma_game * 800 / ln 10``, ``sigma_game`` the standard deviation of one game's
score: ``sqrt(2)`` times that of a pair's fraction, whose two games count half each (fishtest's convention for
pentanomial results).

LLR. The generalised SPRT (as fishtest computes it): the log-likelihood ratio of the observed pair counts under the
best (maximum-likelihood) pentanomial distribution with the score of H1 against the best with the score of H0,
``LLR = sum_i n_i * ln(p1_i / p0_i)``. Under the logistic model the constraint is the mean, ``mu = s``; the maximum
is ``p_i = phat_i / (1 + x (a_i - s))`` with ``x`` the root of ``sum_i phat_i (a_i - s) / (1 + x (a_i - s)) = 0``
(decreasing in ``x``, one root between the poles). Under the normalised model the constraint is the t-value,
``(mu - 0.5) / sigma = t``; the same form holds with ``a_i - s`` replaced by
``u_i = a_i - 0.5 - t (sigma^2 + (a_i - mu)^2) / (2 sigma)``, and since ``u`` depends on the ``mu`` and ``sigma``
of the solution, it is solved by iterating to a fixed point. A count of zero is replaced by ``epsilon`` (1e-3),
so that the constrained maximum exists even when every pair so far scored the same.

Decision. Wald's bounds: H0 is accepted when ``LLR <= ln(beta / (1 - alpha))``, H1 when
``LLR >= ln((1 - beta) / alpha)``, and the test goes on in between.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

from arena.errors import ArenaError
from arena.tournament.ratings import elo_of_score, expected_score, score_interval

SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
"""The five pair outcomes as a fraction of the pair's two games: LL, LD, DD or WL, WD, WW."""

NELO_PER_T = 800.0 / math.log(10.0)
"""Normalised Elo per unit of per-game t-value (``(mu - 0.5) / sigma_game``)."""

EPSILON = 1e-3
"""What a pentanomial count of zero counts as in the LLR (fishtest's regularisation)."""

MAX_NELO = 100.0
"""The largest normalised Elo a hypothesis may state (a pair's t-value of 0.41; the solver starts at 0.94)."""

Model = Literal["logistic", "normalized"]
Verdict = Literal["H0", "H1"]


class SprtError(ArenaError, ValueError):
    """SPRT parameters that make no test: alpha or beta out of (0, 1), elo0 not below elo1, a bad pair score."""


@dataclass(frozen=True, slots=True)
class Pentanomial:
    """Counts of duplicate pairs by NEW's score: 0, 0.5, 1, 1.5 and 2 points of 2 (``counts[i]`` scored ``i / 2``)."""

    counts: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)

    def add(self, points: float) -> Pentanomial:
        """These counts and one more pair, in which NEW scored ``points`` (0, 0.5, 1, 1.5 or 2)."""
        index = round(points * 2)
        if not (0 <= index <= 4 and index == points * 2):
            raise SprtError(f"a pair scores 0, 0.5, 1, 1.5 or 2 points, not {points!r}")
        counts = list(self.counts)
        counts[index] += 1
        return Pentanomial((counts[0], counts[1], counts[2], counts[3], counts[4]))

    @property
    def pairs(self) -> int:
        """How many pairs are counted."""
        return sum(self.counts)

    @property
    def points(self) -> float:
        """NEW's points over all the pairs (two per pair at most)."""
        return sum(i / 2 * n for i, n in enumerate(self.counts))

    def __str__(self) -> str:
        return "[" + ", ".join(str(n) for n in self.counts) + "]"


def logistic_score(elo: float) -> float:
    """Expected score of one game at a logistic Elo difference ``elo``."""
    return expected_score(elo, 0.0)


logistic_elo = elo_of_score  # the logistic Elo difference of an expected score (infinite at 0 and 1)


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's LLR bounds: accept H0 at or below the first, H1 at or above the second."""
    _check_errors(alpha, beta)
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def _check_errors(alpha: float, beta: float) -> None:
    for name, value in (("alpha", alpha), ("beta", beta)):
        if not 0.0 < value < 1.0:
            raise SprtError(f"{name} must be between 0 and 1 (got {value})")
    if alpha + beta >= 1.0:
        raise SprtError(f"alpha + beta must be below 1 (got {alpha} + {beta})")


def _empirical(counts: Pentanomial, epsilon: float) -> tuple[float, list[float]]:
    """The regularised pair count and the empirical distribution over ``SCORES``."""
    weights = [float(n) if n > 0 else epsilon for n in counts.counts]
    total = sum(weights)
    return total, [w / total for w in weights]


def _moments(pdf: list[float]) -> tuple[float, float]:
    # written out for the five outcomes (the inner loop of mle_with_t): the same products, added in the same order
    # as a sum over them, so the same bits
    p0, p1, p2, p3, p4 = pdf
    a0, a1, a2, a3, a4 = SCORES
    mu = 0.0 + p0 * a0 + p1 * a1 + p2 * a2 + p3 * a3 + p4 * a4
    var = (
        0.0
        + p0 * (a0 - mu) ** 2
        + p1 * (a1 - mu) ** 2
        + p2 * (a2 - mu) ** 2
        + p3 * (a3 - mu) ** 2
        + p4 * (a4 - mu) ** 2
    )
    return mu, var


def _tilt(phat: list[float], u: list[float], start: float = 0.0) -> tuple[list[float], float]:
    """The distribution ``phat_i / (1 + x u_i)`` whose ``u`` has mean 0, and ``x``: the root of the secular equation.

    ``f(x) = sum_i phat_i u_i / (1 + x u_i)`` falls from +inf to -inf between the poles ``-1 / max u`` and
    ``-1 / min u``; a safeguarded Newton iteration (it bisects the bracket where a step would leave it or did not
    halve ``|f|``) finds its one root there, from ``start`` if it lies between them
    (the root of a nearby ``u``: a fixed point's iterates), else from 0. (The inner loop of every LLR: the products
    ``phat_i u_i`` and ``phat_i u_i^2`` are taken once, not at every Newton step.)
    """
    high, low = max(u), min(u)
    if high <= 0.0 or low >= 0.0:  # no distribution on these points has the wanted mean: the nearest is a point mass
        raise SprtError("the constraint lies outside the outcomes' range")
    left, right = -1.0 / high, -1.0 / low
    # the five outcomes' terms written out: this loop runs a million times in a simulated SPRT, and unrolled (with
    # _moments and _offsets) it is much cheaper (the same operations in the same order: the same bits)
    (v0, v1, v2, v3, v4), (p0, p1, p2, p3, p4) = u, phat
    q0, q1, q2, q3, q4 = p0 * v0, p1 * v1, p2 * v2, p3 * v3, p4 * v4
    r0, r1, r2, r3, r4 = q0 * v0, q1 * v1, q2 * v2, q3 * v3, q4 * v4
    x = start if left < start < right else 0.0
    before = math.inf  # |f| at the last x
    for _ in range(200):
        d0, d1, d2, d3, d4 = 1.0 + x * v0, 1.0 + x * v1, 1.0 + x * v2, 1.0 + x * v3, 1.0 + x * v4
        t0, t1, t2, t3, t4 = q0 / d0, q1 / d1, q2 / d2, q3 / d3, q4 / d4
        f = 0.0 + t0 + t1 + t2 + t3 + t4
        fp = 0.0 - r0 / (d0 * d0) - r1 / (d1 * d1) - r2 / (d2 * d2) - r3 / (d3 * d3) - r4 / (d4 * d4)
        if f > 0.0:
            left = x
        else:
            right = x
        step = x - f / fp
        # Converged where the step is below rounding and the terms cancel: a root. Beside a pole the step is tiny
        # too (f / fp is about the distance to the pole) but one term is all of f.
        if abs(step - x) <= 1e-15 * max(1.0, abs(x)) and abs(f) <= 1e-9 * (
            0.0 + abs(t0) + abs(t1) + abs(t2) + abs(t3) + abs(t4)
        ):
            x = step
            break
        # bisect where Newton did not halve |f| (it landed by a pole) or would leave the bracket
        newton = abs(f) <= before / 2.0 and left < step < right
        x = step if newton else (left + right) / 2.0
        before = abs(f)
    return [p0 / (1.0 + x * v0), p1 / (1.0 + x * v1), p2 / (1.0 + x * v2), p3 / (1.0 + x * v3), p4 / (1.0 + x * v4)], x


def mle_with_mean(phat: list[float], s: float) -> list[float]:
    """The distribution on ``SCORES`` of mean ``s`` most likely to give the observed distribution ``phat``."""
    return _tilt(phat, [a - s for a in SCORES])[0]


def mle_with_t(phat: list[float], t: float, reference: float = 0.5) -> list[float]:
    """The distribution on ``SCORES`` with ``(mu - reference) / sigma = t`` most likely to give ``phat``.

    The fixed point of ``p = tilt(phat, u(p))``, started from the uniform distribution (whose spread keeps the first
    ``u`` of both signs even when ``phat`` is nearly a point mass), each step damped (70 % of the way to the next
    iterate: the plain iteration can oscillate; damped, it converges within some fifty steps). At ``t = 0`` ``u`` does
    not depend on ``p``: the first tilt is the fixed point, returned at once.

    ``u`` depends on ``p`` through its mean and variance alone, so the fixed point is also one of the map from
    ``(mu, var)`` to the moments of its tilt. Once two iterates are within 0.03 of each other, a Newton step on that
    two-variable map (``_newton_step``) replaces the damped one for as long as each brings the iterates closer (after
    one that does not, the steps are damped to the end): some 12 tilts in all against 23, to the same fixed point.

    It stops when two iterates agree to 1e-12; or, once they have come within 1e-8, when five steps have not brought
    them nearer than they came, and returns the later iterate of the closest pair. Where a cell of ``phat`` is
    nearly empty (a count of 0 among tens of thousands) rounding alone moves the iterates by up to 1e-8, and the
    steps wander there instead of converging.
    """
    pdf = [1.0 / len(SCORES)] * len(SCORES)
    mu, var = _moments(pdf)
    x = 0.0  # the last tilt's root: the next one's Newton start (the iterates' u change less and less)
    last, newton = math.inf, True
    best, closest, since = math.inf, pdf, 0  # the nearest two iterates came, the second of them, steps since
    for _ in range(300):
        u = _offsets(mu, var, t, reference)
        if u is None:
            raise SprtError(f"no distribution of pair outcomes has the t-value {t:g}")
        nxt, x = _tilt(phat, u, x)
        if t == 0.0:  # H0 of most tests: every further step would give this same tilt
            return nxt
        change = max([abs(p - q) for p, q in zip(pdf, nxt, strict=True)])
        if change < 1e-12:
            return nxt
        best, closest, since = (change, nxt, 0) if change < best else (best, closest, since + 1)
        if best < 1e-8 and since == 5:  # as near as rounding lets the iterates come
            return closest
        newton = newton and change < last  # a Newton step that did not bring the iterates closer: damped from now on
        step = _newton_step(phat, t, reference, (mu, var), nxt, x) if newton and change < 0.03 else None
        last = change if step is not None else math.inf
        if step is None:
            pdf = [0.3 * p + 0.7 * q for p, q in zip(pdf, nxt, strict=True)]
            mu, var = _moments(pdf)
        else:
            pdf, (mu, var) = nxt, step
    raise SprtError(f"the distribution with t-value {t:g} was not found (no convergence)")


def _offsets(mu: float, var: float, t: float, reference: float) -> list[float] | None:
    """The ``u`` of ``mle_with_t``'s tilt for a distribution of mean ``mu`` and variance ``var``; None where it has
    one sign (no distribution on ``SCORES`` then has the t-value)."""
    twice = 2.0 * math.sqrt(var)
    a0, a1, a2, a3, a4 = SCORES  # written out, as in _tilt (the same operations: the same bits)
    u = [
        a0 - reference - t * (var + (a0 - mu) ** 2) / twice,
        a1 - reference - t * (var + (a1 - mu) ** 2) / twice,
        a2 - reference - t * (var + (a2 - mu) ** 2) / twice,
        a3 - reference - t * (var + (a3 - mu) ** 2) / twice,
        a4 - reference - t * (var + (a4 - mu) ** 2) / twice,
    ]
    return u if max(u) > 0.0 and min(u) < 0.0 else None


def _newton_step(
    phat: list[float], t: float, reference: float, at: tuple[float, float], tilted: list[float], x: float
) -> tuple[float, float] | None:
    """One Newton step towards the root of ``F(mu, var) - (mu, var)``, ``F`` the moments of the tilt at ``(mu, var)``
    (``tilted``, whose root was ``x``), its Jacobian by forward differences (two more tilts); None where the step
    cannot be taken (a tilt or the new point has no distribution, the Jacobian is singular, the variance would not
    be positive): the caller then takes a damped step."""
    mu, var = at
    f_mu, f_var = _moments(tilted)
    h_mu, h_var = 1e-7, 1e-7 * var
    moved = []
    for point in ((mu + h_mu, var), (mu, var + h_var)):
        u = _offsets(*point, t, reference)
        if u is None:
            return None
        moved.append(_moments(_tilt(phat, u, x)[0]))
    (a_mu, a_var), (b_mu, b_var) = moved
    j11, j12 = (a_mu - f_mu) / h_mu - 1.0, (b_mu - f_mu) / h_var
    j21, j22 = (a_var - f_var) / h_mu, (b_var - f_var) / h_var - 1.0
    det = j11 * j22 - j12 * j21
    if det == 0.0:
        return None
    r_mu, r_var = f_mu - mu, f_var - var
    new_mu, new_var = mu + (r_var * j12 - r_mu * j22) / det, var + (r_mu * j21 - r_var * j11) / det
    if not new_var > 0.0 or _offsets(new_mu, new_var, t, reference) is None:
        return None
    return new_mu, new_var


def llr_logistic(counts: Pentanomial, elo0: float, elo1: float, *, epsilon: float = EPSILON) -> float:
    """The generalised LLR of H1 (logistic Elo ``elo1``) against H0 (``elo0``) for these pair counts."""
    if counts.pairs == 0:
        return 0.0
    n, phat = _empirical(counts, epsilon)
    p0 = mle_with_mean(phat, logistic_score(elo0))
    p1 = mle_with_mean(phat, logistic_score(elo1))
    return n * _divergence(phat, p0, p1)


def llr_normalized(counts: Pentanomial, nelo0: float, nelo1: float, *, epsilon: float = EPSILON) -> float:
    """The generalised LLR of H1 (normalised Elo ``nelo1``) against H0 (``nelo0``) for these pair counts."""
    if counts.pairs == 0:
        return 0.0
    n, phat = _empirical(counts, epsilon)
    # a pair's fraction has sd sigma_game / sqrt(2), so its t-value is sqrt(2) times the per-game one
    p0 = mle_with_t(phat, math.sqrt(2.0) * nelo0 / NELO_PER_T)
    p1 = mle_with_t(phat, math.sqrt(2.0) * nelo1 / NELO_PER_T)
    return n * _divergence(phat, p0, p1)


def _divergence(phat: list[float], p0: list[float], p1: list[float]) -> float:
    return sum(p * math.log(b / a) for p, a, b in zip(phat, p0, p1, strict=True) if p > 0.0)


@dataclass(frozen=True, slots=True)
class Sprt:
    """A sequential test: H0 (NEW at most ``elo0`` stronger) against H1 (at least ``elo1``), with error rates."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05
    model: Model = "logistic"

    def __post_init__(self) -> None:
        _check_errors(self.alpha, self.beta)
        if not self.elo0 < self.elo1:
            raise SprtError(f"elo0 must be below elo1 (got {self.elo0} and {self.elo1})")
        if self.model not in ("logistic", "normalized"):
            raise SprtError(f"the Elo model is logistic or normalized, not {self.model!r}")
        if self.model == "normalized" and max(abs(self.elo0), abs(self.elo1)) > MAX_NELO:
            raise SprtError(f"normalised Elo hypotheses go from -{MAX_NELO:g} to {MAX_NELO:g}")

    @property
    def bounds(self) -> tuple[float, float]:
        """The LLR bounds (lower: accept H0, upper: accept H1)."""
        return bounds(self.alpha, self.beta)

    def llr(self, counts: Pentanomial) -> float:
        """The LLR of these pair counts under the test's model."""
        if self.model == "logistic":
            return llr_logistic(counts, self.elo0, self.elo1)
        return llr_normalized(counts, self.elo0, self.elo1)

    def verdict(self, llr: float) -> Verdict | None:
        """H1 or H0 when ``llr`` reaches a bound, else None (go on)."""
        lower, upper = self.bounds
        return "H1" if llr >= upper else "H0" if llr <= lower else None


@dataclass(frozen=True, slots=True)
class Estimate:
    """NEW's strength against BASE from the pairs: score, Elo both ways with 95 % intervals, and LOS."""

    pairs: int
    score: float  # expected score of one game, a draw counting half
    elo: float
    elo_low: float
    elo_high: float
    nelo: float
    nelo_margin: float  # the normalised Elo's interval is nelo +- nelo_margin
    los: float  # likelihood of superiority: the probability that NEW is the stronger

    def __str__(self) -> str:
        return (
            f"Elo {_elo(self.elo)} [{_elo(self.elo_low)}, {_elo(self.elo_high)}]"
            f"  nElo {_elo(self.nelo)} +- {self.nelo_margin:.1f}  LOS {100 * self.los:.1f}%"
        )


def _elo(value: float) -> str:
    return f"{value:+.1f}" if math.isfinite(value) else ("+inf" if value > 0 else "-inf")


def estimate(counts: Pentanomial, *, confidence: float = 0.95) -> Estimate:
    """The score, logistic and normalised Elo with intervals, and LOS, from the pair counts (not regularised).

    The interval of the score is ``mu +- z * sigma_pair / sqrt(pairs)`` (the pairs are independent; the two games of
    a pair need not be), mapped to logistic Elo; the normalised Elo's is ``z * 800 / ln 10 / sqrt(games)`` (the
    first-order width of a t-value's estimate). LOS is ``Phi((mu - 0.5) / (sigma_pair / sqrt(pairs)))``. When every
    pair was won (lost) twice, the interval is the exact one-sided bound of ``n`` pairs all won,
    ``((1 - c) / 2) ^ (1 / n)``, with an open other end.
    """
    n = counts.pairs
    if n == 0:
        return Estimate(0, 0.5, 0.0, -math.inf, math.inf, 0.0, math.inf, 0.5)
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    pdf = [c / n for c in counts.counts]
    mu, var = _moments(pdf)
    se = math.sqrt(var / n)
    sigma_game = math.sqrt(2.0 * var)
    if sigma_game > 0:
        nelo = (mu - 0.5) / sigma_game * NELO_PER_T
    else:  # every pair scored the same
        nelo = math.inf if mu > 0.5 else -math.inf if mu < 0.5 else 0.0
    low, high, los = score_interval(mu, se, n, confidence)  # se 0 and mu 0 or 1: every pair won (lost) twice
    return Estimate(
        pairs=n,
        score=mu,
        elo=logistic_elo(mu),
        elo_low=low,
        elo_high=high,
        nelo=nelo,
        nelo_margin=z * NELO_PER_T / math.sqrt(2 * n),
        los=los,
    )
