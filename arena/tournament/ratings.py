"""Ratings maths: a Bradley-Terry fit with Laplace intervals widened for correlated games, LOS, and groups.

docs/ratings.md explains the table for its readers; this is the reference for the maths.

Model. Player ``i`` has a strength ``theta_i`` in natural-log odds; a team's strength is the sum of its
members' strengths, and team W beats team L with probability ``sigmoid(sum(theta_W) - sum(theta_L))``.
Elo is the same number on the 400*log10 scale (``elo = theta * 400 / ln 10``), so Elo ratings add within
a team, and a 75 % expected score is a gap of 400*log10(3) = 190.85 Elo. A draw counts as half a win to
each side. Three-hand games enter as pairwise results by final standing (``standing_comparisons``). The
fit maximises the posterior of all comparisons at once, so the order of games does not matter.

Prior. Under pure maximum likelihood a player who wins (or loses) every game drifts to infinity, and
groups of players never linked by games float freely. So every player is credited ``prior_games``
virtual games (default 1), all drawn, against a virtual player rated 0 -- the device BayesElo uses. It
weighs as much as one real game, so it fades as games accumulate (a 300-100 record fits at 190.54 Elo
instead of 190.85), yet a 10-0 record gets a finite gap (about 580 Elo). The table is then shifted so
the mean rating of each group (below) is 0, or so that ``anchor=(name, elo)`` holds.

Intervals: Laplace, widened for clusters. The posterior is approximated by a normal distribution at its
maximum, with covariance ``H^-1``, the inverse of the negated Hessian of the log-posterior there (prior
included). A one-sided record (all wins) has a flat likelihood towards infinity; its curvature at the
maximum is small, so its interval is wide, as it should be -- not the zero width a resampling of identical
games gives. Games are independent in this model, but every comparison carries a ``cluster`` key (the
rotations of one duplicate deal, the pairwise results of one three-hand game) and games of a cluster may be
correlated. The score (gradient) of a cluster is ``u_c = sum_g x_g r_g`` (``x_g`` the game's +1/-1 design
row, ``r_g`` its residual, score minus fitted probability); under independence its variance is the
likelihood's share of ``H``. The within-cluster cross products ``C = sum_c (u_c u_c' - sum_g x_g x_g' r_g^2)``
have mean 0 for independent games and grow with positive correlation, so the covariance is the sandwich
``H^-1 (H + C) H^-1 = H^-1 + H^-1 C H^-1``. Every reported variance is of a contrast ``a`` (a rating against
its group's mean or the anchor, or the gap of two players): ``a' H^-1 a + max(0, w' C w)`` with
``w = H^-1 a``. Correlation can widen an interval, never narrow it below the Laplace one: a noisy ``C`` from
a few clusters, a single cluster of everything, or a duplicate format whose rotations cancel luck (negative
correlation) leaves the model-based width. Intervals are ``elo +- z * sd``.

LOS. The likelihood of superiority of a row over the next is ``Phi(d / sd)``: ``d`` their Elo gap and ``sd``
the standard deviation of the gap from the same covariance (its off-diagonal terms included), so identical
records give exactly 0.5.

Groups. Players linked by games, directly or through others (any two players in one game, partners or
opponents), form a group: the connected components of that graph. Nothing in the games says how two groups
compare (only the prior does), so each group is centred on its own mean, the table lists groups one after the
other, and there is no LOS between them.

Cost. Results are aggregated as they are added (``Tally``): counts per distinct matchup, and identical
clusters become one "kind" with a count. A Newton iteration costs O(distinct matchups), the covariance
O(players^3 + cluster kinds): a million games cost little more than adding them up, and the whole table of a
million stored records (``ranking.ranking``) takes 3-5 s of processor time, intervals included.

Why not choix. choix (Bradley-Terry / Plackett-Luce inference) only compares single items -- no teams
and no draws, and we need both -- and it requires numpy and scipy, which are not runtime dependencies
of the arena. The fit here is a damped Newton method in pure Python on a strictly concave log-posterior.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import mul, sub
from statistics import NormalDist

from arena.errors import ArenaError

ELO_PER_NAT = 400.0 / math.log(10.0)
"""Elo points per unit of natural-log odds."""

_MAX_ITERATIONS = 200
_TOLERANCE = 1e-10  # natural units; the quadratic last step leaves far less
_FLAT = 1e-12  # relative: a gain of the log-posterior this small next to it is all but nothing...
_NEAR = 1e-4  # ...for a step this short (natural units): the fit may end there

Side = tuple[str, ...]
Result = tuple[Side, Side, bool]
"""Winners, losers, drawn: a comparison without its cluster."""


class RatingsError(ArenaError, ValueError):
    """A comparison, an anchor or a ratings option is malformed."""


def expected_score(rating: float, opponent: float) -> float:
    """Expected score of a side rated ``rating`` against one rated ``opponent`` (400*log10 Elo scale)."""
    return _sigmoid((rating - opponent) / ELO_PER_NAT)


def elo_of_score(score: float) -> float:
    """The logistic Elo difference at which a side's expected score is ``score`` (infinite at 0 and 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return ELO_PER_NAT * math.log(score / (1.0 - score))


def score_interval(mean: float, se: float, units: int, confidence: float) -> tuple[float, float, float]:
    """The interval in logistic Elo of a mean score ``mean`` with standard error ``se`` over ``units`` independent
    units (deals, pairs), and the LOS (the probability that the side is the stronger): ``mean +- z * se`` mapped to
    Elo. A score of 0 or 1 with no spread gets the exact one-sided bound of ``units`` all won (Clopper-Pearson),
    ``((1 - c) / 2) ^ (1 / units)``, with an open other end."""
    if se > 0:
        z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
        return elo_of_score(mean - z * se), elo_of_score(mean + z * se), NormalDist().cdf((mean - 0.5) / se)
    los = 1.0 if mean > 0.5 else 0.0 if mean < 0.5 else 0.5
    if mean in (0.0, 1.0):
        bound = ((1 - confidence) / 2) ** (1 / units)
        return (elo_of_score(bound), math.inf, los) if mean == 1.0 else (-math.inf, elo_of_score(1 - bound), los)
    return elo_of_score(mean), elo_of_score(mean), los


def _sigmoid(x: float) -> float:
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _check_sides(winners: Side, losers: Side) -> None:
    if not winners or not losers:
        raise RatingsError(f"both sides of a comparison need players: {winners} vs {losers}")
    names = winners + losers
    if len(set(names)) != len(names):
        raise RatingsError(f"a player appears twice in a comparison: {winners} vs {losers}")


@dataclass(frozen=True)
class Comparison:
    """One result between two sides: ``winners`` beat ``losers``, or the two sides drew if ``draw``."""

    winners: tuple[str, ...]
    losers: tuple[str, ...]
    draw: bool = False
    cluster: str = ""

    def __post_init__(self) -> None:
        _check_sides(self.winners, self.losers)


def standing_results(scores: Mapping[str, float]) -> list[Result]:
    """Pairwise results from a final standing: higher score beats lower, equal scores draw."""
    order = sorted(scores, key=lambda name: (-scores[name], name))
    return [
        ((first,), (second,), scores[first] == scores[second])
        for i, first in enumerate(order)
        for second in order[i + 1 :]
    ]


def seat_standing_results(names: Sequence[str], scores: Sequence[float]) -> list[Result]:
    """Pairwise results from a final standing by seat: each seat against every later seat of another bot, the
    higher score winning and equal scores drawing (copies of one bot at a table do not play each other)."""
    order = sorted(range(len(names)), key=lambda s: (-scores[s], names[s], s))
    return [
        ((names[first],), (names[second],), scores[first] == scores[second])
        for i, first in enumerate(order)
        for second in order[i + 1 :]
        if names[first] != names[second]
    ]


def standing_comparisons(scores: Mapping[str, float], *, cluster: str = "") -> list[Comparison]:
    """Pairwise comparisons from a final standing: higher score beats lower, equal scores draw."""
    return [Comparison(w, lo, draw=d, cluster=cluster) for w, lo, d in standing_results(scores)]


class Tally:
    """Results aggregated as they are added: a count per matchup and outcome, and the results of each cluster.

    A matchup is an ordered pair of teams (sorted tuples of names), the "plus" team sorting first; a result is
    stored as a code ``3 * matchup + outcome``, the outcome 0 (plus team lost), 1 (drawn) or 2 (plus team won).
    ``clusters=False`` keeps only the counts (enough for the point fit).
    """

    def __init__(self, *, clusters: bool = True) -> None:
        self._codes: dict[Result, int] = {}
        self.keys: list[tuple[Side, Side]] = []
        self._slots: dict[tuple[Side, Side], int] = {}
        self.counts: list[int] = []
        self.clusters: dict[str, list[int]] | None = {} if clusters else None

    def add(self, winners: Side, losers: Side, draw: bool = False, cluster: str = "", count: int = 1) -> None:
        """Add one result (sides as tuples of names) to its cluster, or ``count`` alike (a tally without clusters
        takes millions at once)."""
        if count < 1:
            raise RatingsError(f"a count of results must be positive, not {count}")
        code = self._codes.get((winners, losers, draw))
        if code is None:
            code = self._code(winners, losers, draw)
        self.counts[code] += count
        if self.clusters is not None:
            members = self.clusters.get(cluster)
            if members is None:
                self.clusters[cluster] = [code] * count
            elif count == 1:
                members.append(code)
            else:
                members.extend([code] * count)

    def add_comparison(self, comparison: Comparison) -> None:
        """Add a ``Comparison``."""
        self.add(comparison.winners, comparison.losers, comparison.draw, comparison.cluster)

    def __len__(self) -> int:
        return sum(self.counts)

    def _code(self, winners: Side, losers: Side, draw: bool) -> int:
        _check_sides(winners, losers)
        first, second = tuple(sorted(winners)), tuple(sorted(losers))
        outcome = 1 if draw else 2
        if second < first:
            first, second, outcome = second, first, 2 - outcome
        slot = self._slots.get((first, second))
        if slot is None:
            slot = self._slots[first, second] = len(self.keys)
            self.keys.append((first, second))
            self.counts.extend((0, 0, 0))
        code = self._codes[winners, losers, draw] = 3 * slot + outcome
        return code


def _tally(comparisons: Iterable[Comparison], *, clusters: bool = True) -> Tally:
    tally = Tally(clusters=clusters)
    for c in comparisons:
        tally.add(c.winners, c.losers, c.draw, c.cluster)
    return tally


@dataclass(frozen=True)
class _Model:
    """A tally in canonical order (sorted names and matchups, so that the order of games changes nothing).

    ``outcomes`` holds each matchup's plus-team losses, draws and wins; ``games`` and ``scores`` its number of
    comparisons and the plus team's total score. ``slot_of`` maps the tally's matchup slots to matchups here. The
    index lists let the fit sum over matchups at C speed. ``group`` numbers each player's group (connected
    component) in order of first appearance.
    """

    players: tuple[str, ...]
    teams: tuple[tuple[int, ...], ...]
    matchups: tuple[tuple[int, int], ...]
    outcomes: tuple[tuple[int, int, int], ...]
    games: tuple[float, ...]
    scores: tuple[float, ...]
    slot_of: tuple[int, ...]
    group: tuple[int, ...]
    gradient_lists: tuple[tuple[list[int], list[int]], ...]
    hessian_lists: tuple[tuple[int, list[int], list[int]], ...]


def _build(tally: Tally) -> _Model:
    keys = tally.keys
    order = sorted((key, slot) for slot, key in enumerate(keys) if sum(tally.counts[3 * slot : 3 * slot + 3]))
    slot_of = [-1] * len(keys)
    for m, (_, slot) in enumerate(order):
        slot_of[slot] = m
    players = tuple(sorted({name for key, _ in order for side in key for name in side}))
    index = {name: i for i, name in enumerate(players)}
    team_names = sorted({side for key, _ in order for side in key})
    team_index = {team: t for t, team in enumerate(team_names)}
    k = len(players)
    plus_of: list[list[int]] = [[] for _ in range(k)]
    minus_of: list[list[int]] = [[] for _ in range(k)]
    same: dict[int, list[int]] = {}
    opposite: dict[int, list[int]] = {}
    parent = list(range(k))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for m, ((first, second), _) in enumerate(order):
        signed = [(index[n], 1) for n in first] + [(index[n], -1) for n in second]
        for i, sign in signed:
            (plus_of if sign > 0 else minus_of)[i].append(m)
            parent[root(i)] = root(signed[0][0])
            for j, other in signed:
                if i <= j:
                    (same if sign == other else opposite).setdefault(i * k + j, []).append(m)
    roots: dict[int, int] = {}
    group = tuple(roots.setdefault(root(i), len(roots)) for i in range(k))
    outcomes = tuple((tally.counts[3 * s], tally.counts[3 * s + 1], tally.counts[3 * s + 2]) for _, s in order)
    return _Model(
        players=players,
        teams=tuple(tuple(index[n] for n in team) for team in team_names),
        matchups=tuple((team_index[first], team_index[second]) for (first, second), _ in order),
        outcomes=outcomes,
        games=tuple(float(lost + drawn + won) for lost, drawn, won in outcomes),
        scores=tuple(won + 0.5 * drawn for _, drawn, won in outcomes),
        slot_of=tuple(slot_of),
        group=group,
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
    # The dot products as sums of ``map(mul, ...)`` over the rows' first j entries: the same products added in the
    # same order as a generator over m (the same bits), at C speed (with _solve and _Covariance.sd: a tenth less time
    # fitting and judging the coverage test's tournaments).
    low = [[0.0] * k for _ in range(k)]
    for i in range(k):
        row = low[i]
        for j in range(i + 1):
            total = hess[j * k + i] - sum(map(mul, row, low[j][:j]))
            row[j] = math.sqrt(max(total, 1e-300)) if i == j else total / low[j][j]
    return low


def _solve(low: Sequence[Sequence[float]], rhs: Sequence[float]) -> list[float]:
    k = len(rhs)
    y = [0.0] * k
    for i in range(k):
        y[i] = (rhs[i] - sum(map(mul, low[i][:i], y))) / low[i][i]
    columns = list(zip(*low, strict=True))  # the back substitution runs down the columns of ``low``: its rows here
    x = [0.0] * k
    for i in reversed(range(k)):
        x[i] = (y[i] - sum(map(mul, columns[i][i + 1 :], x[i + 1 :]))) / low[i][i]
    return x


def _newton(model: _Model, prior: float) -> tuple[list[float], list[float]]:
    """Maximise the log-posterior (damped Newton) from 0; return strengths and the negated Hessian there.

    The log-posterior is strictly concave, so a Newton step that lowers it is an overshoot and is halved. The fit
    ends when the step is below the tolerance; or when the step is short (below ``_NEAR``) and the gain it predicts
    (the Newton decrement, step . gradient, never negative but for rounding) is below ``_FLAT`` of the
    log-posterior. A pairing that one side never lost, played some thousands of times, leaves the posterior so
    flat along it that rounding alone moves the steps there by 1e-7, and they never reach the tolerance. The
    returned point adds the last step; near the optimum Newton's error is quadratic, so the result is far more
    accurate than the step itself (a hair above 1e-4 nat, 0.02 Elo, at worst). Always starting from 0 makes the
    live leader (``LiveFit``) and the table the same computation, bit for bit.
    """
    games, scores = model.games, model.scores
    base = [0.0] * len(model.players)
    best, grad, hess = _evaluate(model, games, scores, prior, base)
    step = _solve(_cholesky(len(base), hess), grad)
    for _ in range(_MAX_ITERATIONS):
        size = max(map(abs, step), default=0.0)
        gain = sum(s * g for s, g in zip(step, grad, strict=True))
        if size < _TOLERANCE or (size < _NEAR and 0.0 <= gain < _FLAT * max(1.0, abs(best))):
            theta = [b + s for b, s in zip(base, step, strict=True)]
            return theta, _evaluate(model, games, scores, prior, theta)[2]
        trial = [b + s for b, s in zip(base, step, strict=True)]
        value, trial_grad, trial_hess = _evaluate(model, games, scores, prior, trial)
        if value < best:
            step = [s / 2.0 for s in step]
            continue
        base, best, grad, hess = trial, value, trial_grad, trial_hess
        step = _solve(_cholesky(len(base), hess), grad)
    raise RatingsError("the rating fit did not converge")


def _reference(model: _Model, anchor: tuple[str, float] | None) -> list[list[int] | int]:
    """Per player, what its table rating is measured against: the anchor's index, or its group's members."""
    members: dict[int, list[int]] = {}
    for i, g in enumerate(model.group):
        members.setdefault(g, []).append(i)
    pinned = None if anchor is None else model.players.index(anchor[0])
    return [
        pinned if pinned is not None and model.group[pinned] == model.group[i] else members[model.group[i]]
        for i in range(len(model.players))
    ]


def _anchored(model: _Model, theta: Sequence[float], anchor: tuple[str, float] | None) -> list[float]:
    """Table Elo: each group centred on its mean, or the anchor's group shifted so that the anchor holds.

    With an anchor, the other groups (which the anchor's games say nothing about) are centred on its Elo.
    """
    elo = [ELO_PER_NAT * t for t in theta]
    level = 0.0 if anchor is None else anchor[1]
    result = []
    for i, reference in enumerate(_reference(model, anchor)):
        if isinstance(reference, int):
            result.append(elo[i] - elo[reference] + level)
        else:
            result.append(elo[i] - sum(elo[j] for j in reference) / len(reference) + level)
    return result


def _check(prior_games: float, anchor: tuple[str, float] | None, model: _Model) -> None:
    if not prior_games > 0.0:
        raise RatingsError(f"prior_games must be positive, not {prior_games}")
    if anchor is not None and anchor[0] not in model.players:
        raise RatingsError(f"anchor {anchor[0]!r} played no games")


class _Covariance:
    """The posterior covariance of contrasts: Laplace, widened by the within-cluster cross products (see above)."""

    def __init__(self, model: _Model, tally: Tally, theta: Sequence[float], hess: Sequence[float]) -> None:
        self.k = len(model.players)
        self.model = model
        self.low = _cholesky(self.k, hess)
        strength = [sum(theta[i] for i in members) for members in model.teams]
        p = [_sigmoid(strength[plus] - strength[minus]) for plus, minus in model.matchups]
        # sd() takes the matchups' teams and the cross products (m, n, value) as columns, to sum over them with
        # map() at C speed
        self._pluses = tuple(plus for plus, _ in model.matchups)
        self._minuses = tuple(minus for _, minus in model.matchups)
        self._columns: tuple[tuple[int, ...], tuple[int, ...], tuple[float, ...]] = ((), (), ())
        if tally.clusters is None:
            return
        cross: list[tuple[int, int, float]] = []
        moments: dict[tuple[int, int], list[float]] = {}
        kinds = Counter(map(tuple, map(sorted, tally.clusters.values())))
        for content, times in kinds.items():
            per: dict[int, list[float]] = {}
            for code in content:
                entry = per.setdefault(model.slot_of[code // 3], [0.0, 0.0])
                entry[0] += 1.0
                entry[1] += 0.5 * (code % 3)
            items = sorted(per.items())
            for a, (m, (g, s)) in enumerate(items):
                for n, (h, t) in items[a:]:
                    sums = moments.setdefault((m, n), [0.0, 0.0, 0.0, 0.0])
                    sums[0] += times * s * t
                    sums[1] += times * s * h
                    sums[2] += times * g * t
                    sums[3] += times * g * h
        for (m, n), (st, sh, gt, gh) in sorted(moments.items()):
            # the sum over clusters of (s_m - g_m p_m)(s_n - g_n p_n), the residuals of matchups m and n in a cluster
            value = st - p[n] * sh - p[m] * gt + p[m] * p[n] * gh
            if m == n:  # less each game's own square: what is left is the cross products of distinct games
                lost, drawn, won = model.outcomes[m]
                value -= won * (1.0 - p[m]) ** 2 + drawn * (0.5 - p[m]) ** 2 + lost * p[m] ** 2
            if value != 0.0:
                cross.append((m, n, value if m == n else 2.0 * value))
        if cross:
            firsts, seconds, values = zip(*cross, strict=True)
            self._columns = (firsts, seconds, values)

    def sd(self, contrast: Sequence[float]) -> float:
        """Standard deviation (Elo) of ``contrast . theta``."""
        w = _solve(self.low, contrast)
        laplace = sum(map(mul, contrast, w))  # (the lengths are the players')
        extra = 0.0
        firsts, seconds, values = self._columns
        if values:
            # the sums and products of a loop over the matchups and over the cross products, in the same order: the
            # same bits
            member = w.__getitem__
            team = [sum(map(member, members)) for members in self.model.teams]
            z = list(map(sub, map(team.__getitem__, self._pluses), map(team.__getitem__, self._minuses)))
            at = z.__getitem__
            extra = sum(map(mul, map(mul, values, map(at, firsts)), map(at, seconds)))  # value * z[m] * z[n]
        return ELO_PER_NAT * math.sqrt(max(laplace, 0.0) + max(extra, 0.0))


def _superiority(gap: float, sd: float) -> float:
    if sd > 0.0:
        return NormalDist().cdf(gap / sd)
    return 0.5 if gap == 0.0 else float(gap > 0.0)


class Fit:
    """The fit of a tally: table Elo, and the normal approximation of the posterior around it (module docstring)."""

    def __init__(self, tally: Tally, *, prior_games: float = 1.0, anchor: tuple[str, float] | None = None) -> None:
        self._tally = tally
        self._model = model = _build(tally)
        _check(prior_games, anchor, model)
        self._theta, self._hess = _newton(model, prior_games)
        self._index = {name: i for i, name in enumerate(model.players)}
        self._reference = _reference(model, anchor)
        self._covariance: _Covariance | None = None
        self.players = model.players
        """Every player, sorted by name."""
        self.elo = dict(zip(model.players, _anchored(model, self._theta, anchor), strict=True))
        """Table Elo: each group centred on its mean, or the anchor pinned."""

    @classmethod
    def of(
        cls, comparisons: Iterable[Comparison], *, prior_games: float = 1.0, anchor: tuple[str, float] | None = None
    ) -> Fit:
        """The fit of a list of comparisons."""
        return cls(_tally(comparisons), prior_games=prior_games, anchor=anchor)

    def _spread(self) -> _Covariance:
        if self._covariance is None:
            self._covariance = _Covariance(self._model, self._tally, self._theta, self._hess)
        return self._covariance

    def _player(self, name: str) -> int:
        if name not in self._index:
            raise RatingsError(f"{name!r} played no games")
        return self._index[name]

    def group(self, name: str) -> int:
        """The group (0, 1, ...: connected components of the players linked by games) of ``name``."""
        return self._model.group[self._player(name)]

    def sd(self, name: str) -> float:
        """Standard deviation (Elo) of a table rating: against its group's mean, or the anchor (0 for the anchor)."""
        player = self._player(name)
        reference = self._reference[player]
        contrast = [0.0] * len(self.players)
        if isinstance(reference, int):
            if reference == player:
                return 0.0
            contrast[reference] = -1.0
        else:
            for j in reference:
                contrast[j] = -1.0 / len(reference)
        contrast[player] += 1.0
        return self._spread().sd(contrast)

    def los(self, first: str, second: str) -> float | None:
        """Likelihood that ``first`` is stronger than ``second``; None if they never met, directly or through others."""
        i, j = self._player(first), self._player(second)
        if self._model.group[i] != self._model.group[j]:
            return None
        contrast = [0.0] * len(self.players)
        contrast[i], contrast[j] = 1.0, -1.0
        return _superiority(self.elo[first] - self.elo[second], self._spread().sd(contrast))

    def order(self) -> list[str]:
        """Players in table order: groups (largest first, then by their best Elo), best first within each."""
        return [self.players[i] for i in _order(self._model, [self.elo[name] for name in self.players])]

    def record(self) -> dict[str, tuple[int, int, int]]:
        """Each player's wins, losses and draws (comparisons, not games: a three-hand game is two per player)."""
        model = self._model
        record = [[0, 0, 0] for _ in model.players]
        for (plus, minus), (lost, drawn, won) in zip(model.matchups, model.outcomes, strict=True):
            for t, (w, lo) in ((plus, (won, lost)), (minus, (lost, won))):
                for i in model.teams[t]:
                    record[i][0] += w
                    record[i][1] += lo
                    record[i][2] += drawn
        return {name: (w, lo, d) for name, (w, lo, d) in zip(model.players, record, strict=True)}


def fit_elo(
    comparisons: Iterable[Comparison], *, prior_games: float = 1.0, anchor: tuple[str, float] | None = None
) -> dict[str, float]:
    """Bradley-Terry Elo of every player: each group with mean 0, or with ``anchor=(name, elo)`` pinned."""
    return Fit(_tally(comparisons, clusters=False), prior_games=prior_games, anchor=anchor).elo


def los(comparisons: Iterable[Comparison], first: str, second: str, *, prior_games: float = 1.0) -> float | None:
    """Likelihood that ``first`` is stronger than ``second``; None if they never met, directly or through others."""
    return Fit.of(comparisons, prior_games=prior_games).los(first, second)


@dataclass(frozen=True)
class RatingRow:
    """One line of the ranking table; ``low``/``high`` are None without intervals.

    ``group`` numbers the groups of players linked by games (1 when all are); ``los_next`` is None on the last row
    of a group: there is no next row, or the next row is in another group and cannot be compared.
    """

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
    group: int = 1

    @property
    def plus_minus(self) -> float | None:
        """Half the width of the interval, or None without one."""
        if self.low is None or self.high is None:
            return None
        return (self.high - self.low) / 2.0


def _order(model: _Model, elo: Sequence[float]) -> list[int]:
    """Players in table order: groups (largest first, then by their best Elo), best first within each."""
    members: dict[int, list[int]] = {}
    for i, g in enumerate(model.group):
        members.setdefault(g, []).append(i)
    within = {g: sorted(found, key=lambda i: (-elo[i], model.players[i])) for g, found in members.items()}
    groups = sorted(within.values(), key=lambda found: (-len(found), -elo[found[0]], model.players[found[0]]))
    return [i for found in groups for i in found]


def rank_table(
    comparisons: Iterable[Comparison],
    *,
    intervals: bool = True,
    confidence: float = 0.95,
    prior_games: float = 1.0,
    anchor: tuple[str, float] | None = None,
    bootstrap: int | None = None,
    seed: int | None = None,
) -> list[RatingRow]:
    """The ranking table, best first: fitted Elo, interval, record, and LOS over the next row (see ``tally_table``).

    ``bootstrap`` and ``seed`` remain for callers of the former bootstrap intervals: ``bootstrap=0`` still means no
    intervals, any other count means intervals, and the seed is not used (the intervals are computed, not drawn).
    """
    del seed
    return tally_table(
        _tally(comparisons),
        intervals=intervals and bootstrap != 0,
        confidence=confidence,
        prior_games=prior_games,
        anchor=anchor,
    )


def tally_table(
    tally: Tally,
    *,
    intervals: bool = True,
    confidence: float = 0.95,
    prior_games: float = 1.0,
    anchor: tuple[str, float] | None = None,
) -> list[RatingRow]:
    """The ranking table of a ``Tally``: groups in turn, best first within each; LOS only within a group."""
    if not 0.0 < confidence < 1.0:
        raise RatingsError(f"need 0 < confidence < 1, not {confidence}")
    fit = Fit(tally, prior_games=prior_games, anchor=anchor)
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    record = fit.record()
    order = fit.order()
    numbers: dict[int, int] = {}
    rows = []
    for rank, name in enumerate(order):
        elo = fit.elo[name]
        low: float | None = None
        high: float | None = None
        if intervals:
            half = z * fit.sd(name)
            low, high = elo - half, elo + half
        los_next = fit.los(name, order[rank + 1]) if rank + 1 < len(order) else None
        wins, losses, draws = record[name]
        games = wins + losses + draws
        rows.append(
            RatingRow(
                name=name,
                elo=elo,
                low=low,
                high=high,
                games=games,
                wins=wins,
                losses=losses,
                draws=draws,
                score=(wins + 0.5 * draws) / games,
                los_next=los_next,
                group=numbers.setdefault(fit.group(name), len(numbers) + 1),
            )
        )
    return rows


@dataclass(frozen=True)
class Leader:
    """The top row of the table as it stands: its player and Elo, and how many separate groups the players form."""

    name: str
    elo: float
    groups: int


class LiveFit:
    """The table's own fit, kept current result by result for a live leader board.

    ``leader`` refits (from scratch, the same computation as the table, so the two never disagree) only when results
    were added since the last call. A fit costs O(distinct matchups) per Newton iteration, not O(games).
    """

    def __init__(self, *, prior_games: float = 1.0) -> None:
        self.prior_games = prior_games
        self._tally = Tally(clusters=False)
        self._fitted: tuple[int, Leader | None] = (0, None)

    def record(self, comparison: Comparison) -> None:
        """Add one result (its cluster is not needed for the point fit)."""
        self._tally.add(comparison.winners, comparison.losers, comparison.draw)

    def leader(self) -> Leader | None:
        """The table's top row (see ``Leader``), or None before any result."""
        count = len(self._tally)
        if count and self._fitted[0] != count:
            model = _build(self._tally)
            theta, _ = _newton(model, self.prior_games)
            elo = _anchored(model, theta, None)
            top = _order(model, elo)[0]
            self._fitted = (count, Leader(model.players[top], elo[top], len(set(model.group))))
        return self._fitted[1]


class LiveElo:
    """Incremental Elo (team rating: the mean of its members'); not the table's fit, which ``LiveFit`` follows."""

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
