"""Ratings maths: live incremental Elo, and a Bradley-Terry fit with cluster-bootstrap intervals and LOS.

Model. Player ``i`` has a strength ``theta_i`` in natural-log odds; a team's strength is the sum of its
members' strengths, and team W beats team L with probability ``sigmoid(sum(theta_W) - sum(theta_L))``.
Elo is the same number on the 400*log10 scale (``elo = theta * 400 / ln 10``), so Elo ratings add within
a team, and a 75 % expected score is a gap of 400*log10(3) = 190.85 Elo. A draw counts as half a win to
each side. Three-hand games enter as pairwise results by final standing (``standing_comparisons``). The
fit maximises the likelihood of all comparisons at once, so the order of games does not matter (unlike
``LiveElo``, which only serves a live leader board during a run).

Prior. Under pure maximum likelihood a player who wins (or loses) every game drifts to infinity, and
groups of players never linked by games float freely. So every player is credited ``prior_games``
virtual games (default 1), all drawn, against a virtual player rated 0 -- the device BayesElo uses. It
weighs as much as one real game, so it fades as games accumulate (a 300-100 record fits at 190.54 Elo
instead of 190.85), yet a 10-0 record gets a finite gap (about 580 Elo). The table is then shifted so
the mean rating is 0, or so that ``anchor=(name, elo)`` holds.

Intervals and LOS. Every comparison carries a ``cluster`` key (a duplicate pair, a match, a three-hand
game: results that are not independent). The bootstrap resamples whole clusters with replacement from a
seeded ``random.Random``, refits each resample, and reports the percentile interval. When every resample is
the same (one side won every cluster), the bootstrap shows no spread, which is not certainty: the interval
then comes from the normal approximation of the posterior (the Fisher information, prior included). The likelihood of
superiority of a row over the next is ``Phi(d / sd)``: ``d`` is their fitted Elo gap and ``sd`` the
bootstrap standard deviation of that gap (without a bootstrap, the normal approximation from the Fisher
information), so identical records give exactly 0.5.

Why not choix. choix (Bradley-Terry / Plackett-Luce inference) only compares single items -- no teams
and no draws, and we need both -- and it requires numpy and scipy, which are not runtime dependencies
of the arena. The fit here is a damped Newton method in pure Python on a strictly concave log-posterior.
Identical comparisons are first aggregated into counts (and identical clusters into kinds), so a Newton
iteration costs O(distinct matchups). 1000 bootstrap refits, warm-started at the point estimate, take
about 1 s for 3000 three-hand games of ten players and about 3 s for 3000 mixed-partnership games of ten
players (all 630 distinct pairings of teams), on one idle core.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import mul
from statistics import NormalDist

from arena.errors import ArenaError

ELO_PER_NAT = 400.0 / math.log(10.0)
"""Elo points per unit of natural-log odds."""

_MAX_ITERATIONS = 200
_POINT_TOLERANCE = 1e-10
_BOOTSTRAP_TOLERANCE = 1e-2  # natural units; the quadratic last step leaves ~0.01 Elo of error


class RatingsError(ArenaError, ValueError):
    """A comparison, an anchor or a ratings option is malformed."""


def expected_score(rating: float, opponent: float) -> float:
    """Expected score of a side rated ``rating`` against one rated ``opponent`` (400*log10 Elo scale)."""
    return _sigmoid((rating - opponent) / ELO_PER_NAT)


def _sigmoid(x: float) -> float:
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


@dataclass(frozen=True)
class Comparison:
    """One result between two sides: ``winners`` beat ``losers``, or the two sides drew if ``draw``."""

    winners: tuple[str, ...]
    losers: tuple[str, ...]
    draw: bool = False
    cluster: str = ""

    def __post_init__(self) -> None:
        if not self.winners or not self.losers:
            raise RatingsError(f"both sides of a comparison need players: {self.winners} vs {self.losers}")
        names = self.winners + self.losers
        if len(set(names)) != len(names):
            raise RatingsError(f"a player appears twice in a comparison: {self.winners} vs {self.losers}")


def standing_comparisons(scores: Mapping[str, float], *, cluster: str = "") -> list[Comparison]:
    """Pairwise comparisons from a final standing: higher score beats lower, equal scores draw."""
    order = sorted(scores, key=lambda name: (-scores[name], name))
    result = []
    for i, first in enumerate(order):
        for second in order[i + 1 :]:
            tied = scores[first] == scores[second]
            result.append(Comparison((first,), (second,), draw=tied, cluster=cluster))
    return result


class LiveElo:
    """Incremental Elo for a live leader board; team rating is the mean of its members' ratings."""

    def __init__(self, *, k: float = 16.0, initial: float = 0.0) -> None:
        self.k = k
        self.initial = initial
        self._ratings: dict[str, float] = {}

    def rating(self, name: str) -> float:
        """The current rating of ``name`` (the initial rating if unseen)."""
        return self._ratings.get(name, self.initial)

    def update(self, winners: Iterable[str], losers: Iterable[str], *, draw: bool = False) -> float:
        """Record one result and return the change applied to each winner (losers get its negative)."""
        win, lose = tuple(winners), tuple(losers)
        if not win or not lose or set(win) & set(lose):
            raise RatingsError(f"a result needs two disjoint sides of players: {win} vs {lose}")
        mean_win = sum(self.rating(n) for n in win) / len(win)
        mean_lose = sum(self.rating(n) for n in lose) / len(lose)
        delta = self.k * ((0.5 if draw else 1.0) - expected_score(mean_win, mean_lose))
        for name in win:
            self._ratings[name] = self.rating(name) + delta
        for name in lose:
            self._ratings[name] = self.rating(name) - delta
        return delta

    def record(self, comparison: Comparison) -> float:
        """Apply a ``Comparison`` (its cluster is ignored); same return value as ``update``."""
        return self.update(comparison.winners, comparison.losers, draw=comparison.draw)

    def ratings(self) -> dict[str, float]:
        """A copy of every rating seen so far."""
        return dict(self._ratings)

    def leader(self) -> str | None:
        """The highest-rated player (ties broken by name), or None before any result."""
        if not self._ratings:
            return None
        return min(self._ratings, key=lambda name: (-self._ratings[name], name))


@dataclass(frozen=True)
class RatingRow:
    """One line of the ranking table; ``low``/``high`` are None when no bootstrap was run."""

    name: str
    elo: float
    low: float | None
    high: float | None
    games: int
    wins: int
    losses: int
    draws: int
    score: float
    los_next: float | None

    @property
    def plus_minus(self) -> float | None:
        """Half the width of the interval, or None without one."""
        if self.low is None or self.high is None:
            return None
        return (self.high - self.low) / 2.0


@dataclass(frozen=True)
class _Model:
    """Comparisons aggregated for fitting: distinct teams, distinct matchups between them, and clusters.

    A matchup pairs two teams, oriented so the "plus" team sorts first; ``games`` and ``scores`` hold its number of
    comparisons and the plus team's total score. Clusters with identical content are one "kind":
    ``cluster_kinds`` gives each cluster's kind, ``in_clusters`` splits each matchup by kind (kind indices,
    games, scores). The index lists let the fit and the bootstrap sum over matchups at C speed.
    """

    players: tuple[str, ...]
    teams: tuple[tuple[int, ...], ...]
    matchups: tuple[tuple[int, int], ...]
    games: tuple[float, ...]
    scores: tuple[float, ...]
    cluster_kinds: tuple[int, ...]
    kind_count: int
    in_clusters: tuple[tuple[list[int], list[float], list[float]], ...]
    gradient_lists: tuple[tuple[list[int], list[int]], ...]
    hessian_lists: tuple[tuple[int, list[int], list[int]], ...]


def _build(comparisons: Iterable[Comparison]) -> _Model:
    tallies: dict[tuple[tuple[str, ...], tuple[str, ...]], list[float]] = {}
    per_cluster: dict[str, list[tuple[tuple[tuple[str, ...], tuple[str, ...]], float]]] = {}
    for c in comparisons:
        first, second = tuple(sorted(c.winners)), tuple(sorted(c.losers))
        score = 0.5 if c.draw else 1.0
        if second < first:
            first, second, score = second, first, 1.0 - score
        tally = tallies.setdefault((first, second), [0.0, 0.0])
        tally[0] += 1.0
        tally[1] += score
        per_cluster.setdefault(c.cluster, []).append(((first, second), score))
    keys = sorted(tallies)
    players = tuple(sorted({name for key in keys for side in key for name in side}))
    index = {name: i for i, name in enumerate(players)}
    team_names = sorted({side for key in keys for side in key})
    team_index = {team: t for t, team in enumerate(team_names)}
    matchups = tuple((team_index[first], team_index[second]) for first, second in keys)
    k = len(players)
    plus_of: list[list[int]] = [[] for _ in range(k)]
    minus_of: list[list[int]] = [[] for _ in range(k)]
    same: dict[int, list[int]] = {}
    opposite: dict[int, list[int]] = {}
    for m, (first, second) in enumerate(keys):
        signed = [(index[n], 1) for n in first] + [(index[n], -1) for n in second]
        for i, sign in signed:
            (plus_of if sign > 0 else minus_of)[i].append(m)
            for j, other in signed:
                if i <= j:
                    (same if sign == other else opposite).setdefault(i * k + j, []).append(m)
    slot = {key: m for m, key in enumerate(keys)}
    kinds: dict[tuple[tuple[int, float, float], ...], int] = {}  # identical clusters are resampled as one kind
    kind_of = []
    in_clusters: list[tuple[list[int], list[float], list[float]]] = [([], [], []) for _ in keys]
    for name in sorted(per_cluster):
        merged: dict[int, list[float]] = {}
        for key, score in per_cluster[name]:
            entry = merged.setdefault(slot[key], [0.0, 0.0])
            entry[0] += 1.0
            entry[1] += score
        content = tuple((m, g, s) for m, (g, s) in sorted(merged.items()))
        if content not in kinds:
            kinds[content] = len(kinds)
            for m, g, s in content:
                in_clusters[m][0].append(kinds[content])
                in_clusters[m][1].append(g)
                in_clusters[m][2].append(s)
        kind_of.append(kinds[content])
    return _Model(
        players=players,
        teams=tuple(tuple(index[n] for n in team) for team in team_names),
        matchups=matchups,
        games=tuple(tallies[key][0] for key in keys),
        scores=tuple(tallies[key][1] for key in keys),
        cluster_kinds=tuple(kind_of),
        kind_count=len(kinds),
        in_clusters=tuple(in_clusters),
        gradient_lists=tuple(zip(plus_of, minus_of, strict=True)),
        hessian_lists=tuple(
            (flat, same.get(flat, []), opposite.get(flat, [])) for flat in sorted(set(same) | set(opposite))
        ),
    )


def _evaluate(
    model: _Model, games: Sequence[float], scores: Sequence[float], prior: float, theta: Sequence[float]
) -> tuple[float, list[float], list[float]]:
    """Log-posterior, its gradient, and the upper triangle of its negated Hessian (flat, k*k)."""
    k = len(theta)
    loglik = 0.0
    grad = [0.0] * k
    hess = [0.0] * (k * k)
    for i, t in enumerate(theta):  # the prior: half a virtual win and half a loss against a 0-rated player
        e = math.exp(-abs(t))
        p = 1.0 / (1.0 + e) if t >= 0.0 else e / (1.0 + e)
        loglik -= prior * (math.log1p(e) + 0.5 * abs(t))
        grad[i] = prior * (0.5 - p)
        hess[i * k + i] = prior * p * (1.0 - p)
    strength = [sum(theta[i] for i in members) for members in model.teams]
    residuals: list[float] = []
    weights: list[float] = []
    exp, log1p = math.exp, math.log1p
    for (plus, minus), g, s in zip(model.matchups, games, scores, strict=True):
        x = strength[plus] - strength[minus]
        # with e = exp(-|x|): log p = -log1p(e) - max(-x, 0) and log(1 - p) = -log1p(e) - max(x, 0)
        if x >= 0.0:
            e = exp(-x)
            p = 1.0 / (1.0 + e)
            loglik -= g * log1p(e) + (g - s) * x
        else:
            e = exp(x)
            p = e / (1.0 + e)
            loglik -= g * log1p(e) - s * x
        residuals.append(s - g * p)
        weights.append(g * p * (1.0 - p))
    residual, weight = residuals.__getitem__, weights.__getitem__
    for i, (plus_list, minus_list) in enumerate(model.gradient_lists):
        grad[i] += sum(map(residual, plus_list)) - sum(map(residual, minus_list))
    for flat, same, opposite in model.hessian_lists:
        hess[flat] += sum(map(weight, same)) - sum(map(weight, opposite))
    return loglik, grad, hess


def _cholesky(k: int, hess: Sequence[float]) -> list[list[float]]:
    low = [[0.0] * k for _ in range(k)]
    for i in range(k):
        for j in range(i + 1):
            total = hess[j * k + i] - sum(low[i][m] * low[j][m] for m in range(j))
            low[i][j] = math.sqrt(max(total, 1e-300)) if i == j else total / low[j][j]
    return low


def _solve(low: Sequence[Sequence[float]], rhs: Sequence[float]) -> list[float]:
    k = len(rhs)
    y = [0.0] * k
    for i in range(k):
        y[i] = (rhs[i] - sum(low[i][m] * y[m] for m in range(i))) / low[i][i]
    x = [0.0] * k
    for i in reversed(range(k)):
        x[i] = (y[i] - sum(low[m][i] * x[m] for m in range(i + 1, k))) / low[i][i]
    return x


def _newton(
    model: _Model,
    games: Sequence[float],
    scores: Sequence[float],
    prior: float,
    *,
    start: Sequence[float] | None = None,
    tolerance: float,
) -> tuple[list[float], list[float]]:
    """Maximise the log-posterior (damped Newton); return strengths and the negated Hessian there.

    The log-posterior is strictly concave, so a Newton step that lowers it is an overshoot and is halved. The
    returned point adds the last step, which is below ``tolerance``; near the optimum Newton's error is quadratic,
    so the result is far more accurate than ``tolerance`` itself.
    """
    base = list(start) if start is not None else [0.0] * len(model.players)
    best, grad, hess = _evaluate(model, games, scores, prior, base)
    step = _solve(_cholesky(len(base), hess), grad)
    for _ in range(_MAX_ITERATIONS):
        if max(map(abs, step), default=0.0) < tolerance:
            return [b + s for b, s in zip(base, step, strict=True)], hess
        trial = [b + s for b, s in zip(base, step, strict=True)]
        value, trial_grad, trial_hess = _evaluate(model, games, scores, prior, trial)
        if value < best:
            step = [s / 2.0 for s in step]
            continue
        base, best, hess = trial, value, trial_hess
        step = _solve(_cholesky(len(base), hess), trial_grad)
    raise RatingsError("the rating fit did not converge")


def _anchored(model: _Model, theta: Sequence[float], anchor: tuple[str, float] | None) -> list[float]:
    elo = [ELO_PER_NAT * t for t in theta]
    if anchor is not None:
        shift = elo[model.players.index(anchor[0])] - anchor[1]
        return [e - shift for e in elo]
    mean = sum(elo) / len(elo) if elo else 0.0
    return [e - mean for e in elo]


def _check(prior_games: float, anchor: tuple[str, float] | None, model: _Model) -> None:
    if not prior_games > 0.0:
        raise RatingsError(f"prior_games must be positive, not {prior_games}")
    if anchor is not None and anchor[0] not in model.players:
        raise RatingsError(f"anchor {anchor[0]!r} played no games")


def fit_elo(
    comparisons: Iterable[Comparison], *, prior_games: float = 1.0, anchor: tuple[str, float] | None = None
) -> dict[str, float]:
    """Bradley-Terry Elo of every player, mean 0 or with ``anchor=(name, elo)`` pinned."""
    model = _build(comparisons)
    _check(prior_games, anchor, model)
    theta, _ = _newton(model, model.games, model.scores, prior_games, tolerance=_POINT_TOLERANCE)
    return dict(zip(model.players, _anchored(model, theta, anchor), strict=True))


def _normal_cdf(z: float) -> float:
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def _fisher_sd(k: int, hess: Sequence[float], first: int, second: int) -> float:
    """Standard deviation (Elo) of the gap between two players from the inverse Fisher information."""
    contrast = [0.0] * k
    contrast[first], contrast[second] = 1.0, -1.0
    spread = _solve(_cholesky(k, hess), contrast)
    return ELO_PER_NAT * math.sqrt(max(spread[first] - spread[second], 0.0))


def _laplace_sd(k: int, hess: Sequence[float], player: int, reference: int | None) -> float:
    """Standard deviation (Elo) of a table rating (against the mean or an anchor) from the Fisher information."""
    contrast = [-1.0 / k] * k if reference is None else [0.0] * k
    contrast[player] += 1.0
    if reference is not None:
        contrast[reference] -= 1.0
    spread = _solve(_cholesky(k, hess), contrast)
    return ELO_PER_NAT * math.sqrt(max(sum(c * v for c, v in zip(contrast, spread, strict=True)), 0.0))


def _superiority(gap: float, sd: float) -> float:
    if sd > 0.0:
        return _normal_cdf(gap / sd)
    return 0.5 if gap == 0.0 else float(gap > 0.0)


def los(comparisons: Iterable[Comparison], first: str, second: str, *, prior_games: float = 1.0) -> float:
    """Likelihood that ``first`` is stronger than ``second`` (normal approximation at the fit)."""
    model = _build(comparisons)
    _check(prior_games, None, model)
    for name in (first, second):
        if name not in model.players:
            raise RatingsError(f"{name!r} played no games")
    k = len(model.players)
    theta, hess = _newton(model, model.games, model.scores, prior_games, tolerance=_POINT_TOLERANCE)
    i, j = model.players.index(first), model.players.index(second)
    return _superiority(ELO_PER_NAT * (theta[i] - theta[j]), _fisher_sd(k, hess, i, j))


def _bootstrap(
    model: _Model,
    theta: Sequence[float],
    prior: float,
    anchor: tuple[str, float] | None,
    *,
    rounds: int,
    seed: int,
) -> list[list[float]]:
    """Anchored Elo of every player for each cluster resample."""
    rng = random.Random(seed)
    kinds = model.kind_count
    samples = []
    for _ in range(rounds):
        drawn = Counter(rng.choices(model.cluster_kinds, k=len(model.cluster_kinds)))
        times = [drawn.get(kind, 0) for kind in range(kinds)].__getitem__
        games = [sum(map(mul, map(times, ks), gs)) for ks, gs, _ in model.in_clusters]
        scores = [sum(map(mul, map(times, ks), ss)) for ks, _, ss in model.in_clusters]
        fitted, _ = _newton(model, games, scores, prior, start=theta, tolerance=_BOOTSTRAP_TOLERANCE)
        samples.append(_anchored(model, fitted, anchor))
    return samples


def _quantile(ordered: Sequence[float], q: float) -> float:
    position = q * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (position - below) * (ordered[above] - ordered[below])


def rank_table(
    comparisons: Iterable[Comparison],
    *,
    bootstrap: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    prior_games: float = 1.0,
    anchor: tuple[str, float] | None = None,
) -> list[RatingRow]:
    """The ranking table, best first: fitted Elo, bootstrap interval, record, and LOS over the next row."""
    comparisons = list(comparisons)
    model = _build(comparisons)
    _check(prior_games, anchor, model)
    if bootstrap < 0 or not 0.0 < confidence < 1.0:
        raise RatingsError(f"need bootstrap >= 0 and 0 < confidence < 1, not {bootstrap} and {confidence}")
    k = len(model.players)
    theta, hess = _newton(model, model.games, model.scores, prior_games, tolerance=_POINT_TOLERANCE)
    elo = _anchored(model, theta, anchor)
    samples = _bootstrap(model, theta, prior_games, anchor, rounds=bootstrap, seed=seed) if bootstrap else []
    record = {name: [0, 0, 0] for name in model.players}
    for c in comparisons:
        for name in c.winners + c.losers:
            record[name][2 if c.draw else 0 if name in c.winners else 1] += 1
    order = sorted(range(k), key=lambda i: (-elo[i], model.players[i]))
    tail = (1.0 - confidence) / 2.0
    rows = []
    for rank, i in enumerate(order):
        low: float | None = None
        high: float | None = None
        los_next: float | None = None
        if samples:
            ordered = sorted(sample[i] for sample in samples)
            low, high = _quantile(ordered, tail), _quantile(ordered, 1.0 - tail)
            reference = None if anchor is None else model.players.index(anchor[0])
            if high - low < 1e-6 and reference != i:
                # Every resample is the same (e.g. one side won every cluster): the bootstrap shows no spread,
                # which is not certainty. Fall back to the normal approximation of the posterior (prior included).
                half = NormalDist().inv_cdf(1.0 - tail) * _laplace_sd(k, hess, i, reference)
                low, high = elo[i] - half, elo[i] + half
        if rank + 1 < k:
            j = order[rank + 1]
            gaps = [sample[i] - sample[j] for sample in samples]
            sd = _stdev(gaps) if len(gaps) > 1 else 0.0
            los_next = _superiority(elo[i] - elo[j], sd if sd > 1e-6 else _fisher_sd(k, hess, i, j))
        wins, losses, draws = record[model.players[i]]
        games = wins + losses + draws
        rows.append(
            RatingRow(
                name=model.players[i],
                elo=elo[i],
                low=low,
                high=high,
                games=games,
                wins=wins,
                losses=losses,
                draws=draws,
                score=(wins + 0.5 * draws) / games,
                los_next=los_next,
            )
        )
    return rows


def _stdev(values: Sequence[float]) -> float:
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
