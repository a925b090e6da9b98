"""Do the table's intervals and LOS mean what they say? Seeded simulations of whole tournaments (issue 13).

Each simulated tournament draws a field of true ratings (normal, standard deviation ``SPREAD`` Elo), plays it as the
arena schedules it -- pairings in turn, every deal in both rotations (a cluster of two games), 1 % of games drawn --
with outcomes from the Bradley-Terry team model itself, and fits it. An interval "covers" when it holds the true
rating measured the way the table measures it (against the mean of the player's group). A LOS "is right" when the
player it favours is truly the stronger. The acceptance bands of issue 13: 92-98 % coverage of the 95 % interval for
1-vs-1 and 2-vs-2 tournaments of 50 and 1,000 games; at least 90 % for players with a perfect record; a LOS of 95 %
right 93-97 % of the time. About ten seconds of one core; every scenario is computed once per process.

The figures depend on the field: the prior (one virtual draw against a 0-rated player, sd about 550 Elo) is far
wider than a real field, so thin tournaments get intervals a little wider than needed (coverage 96-99 %), and a
field much narrower than ``SPREAD`` makes a thin table's LOS somewhat overconfident. docs/ratings.md has the numbers.
"""

from __future__ import annotations

import functools
import itertools
import random
from dataclasses import dataclass, field
from statistics import NormalDist

import pytest

from arena.tournament.ratings import Fit, Tally, expected_score

SPREAD = 200.0  # standard deviation of the true Elo of a field
DRAWS = 0.01  # share of games drawn (at the hand limit), where the model allows it
Z95 = NormalDist().inv_cdf(0.975)


def tournament(
    rng: random.Random,
    truth: dict[str, float],
    *,
    team_size: int,
    games: int,
    correlation: float = 0.0,
    apart: bool = False,
) -> Tally:
    """``games`` games of a round robin in shuffled pairing order, each deal played in both rotations.

    1-vs-1 pairs every two entrants; 2-vs-2 splits every four entrants into two teams all three ways (mixed
    partnerships: a team's strength is the sum of its members'). With ``correlation``, the second rotation of a deal
    repeats the first one's result with that probability (else it is drawn afresh): the two games of a deal are
    correlated, yet each alone still follows the model, so the true ratings stay the model's. ``apart`` files every
    game as a cluster of its own, as if the games were independent.
    """
    names = sorted(truth)
    if team_size == 1:
        pairings = [((a,), (b,)) for a, b in itertools.combinations(names, 2)]
    else:
        pairings = [
            (team, tuple(n for n in four if n not in team))
            for four in itertools.combinations(names, 4)
            for team in ((four[0], partner) for partner in four[1:])
        ]
    rng.shuffle(pairings)
    # Per pairing, what each outcome files (winners, losers, drawn) and where a uniform draw splits them, worked out
    # once: the loop below runs for each of 1.7 million games (measured, a third less time; the same draws).
    table = []
    for plus, minus in pairings:
        p = expected_score(sum(truth[n] for n in plus), sum(truth[n] for n in minus))
        drawn = min(DRAWS, 2 * p, 2 * (1 - p))  # a draw is half a win each: the expected score stays p
        table.append((drawn, p + drawn / 2, ((plus, minus, True), (plus, minus, False), (minus, plus, False))))
    played = Tally()
    add, draw = played.add, rng.random
    for deal in range(games // 2):
        drawn, split, outcomes = table[deal % len(table)]  # below drawn a draw, below split a plus win
        u = draw()
        first = outcomes[0 if u < drawn else 1 if u < split else 2]
        if draw() < correlation:
            second = first
        else:
            u = draw()
            second = outcomes[0 if u < drawn else 1 if u < split else 2]
        if apart:
            add(*first, f"{deal}/0")
            add(*second, f"{deal}/1")
        else:
            cluster = str(deal)
            add(*first, cluster)
            add(*second, cluster)
    return played


@dataclass
class Measured:
    """What the simulations of one scenario found."""

    intervals: int = 0
    covered: int = 0
    perfect: int = 0  # players who won every game, or lost every game
    perfect_covered: int = 0
    width: float = 0.0  # mean half-width of the intervals, Elo
    los: list[tuple[float, bool]] = field(default_factory=list)  # stated LOS (>= 0.5) of every pair, and if right

    @property
    def coverage(self) -> float:
        return self.covered / self.intervals

    @property
    def perfect_coverage(self) -> float:
        return self.perfect_covered / self.perfect

    def los_right(self, low: float, high: float) -> tuple[float, int]:
        """How often a LOS stated in [low, high] was right, and of how many pairs."""
        found = [right for stated, right in self.los if low <= stated <= high]
        return sum(found) / max(len(found), 1), len(found)


def judge(fit: Fit, truth: dict[str, float], into: Measured, *, pairs: bool = True) -> None:
    """Score one fitted tournament: every interval, every perfect record, and (``pairs``) the LOS of every pair
    within a group."""
    record = fit.record()
    groups: dict[int, list[str]] = {}
    for name in fit.players:
        groups.setdefault(fit.group(name), []).append(name)
    for members in groups.values():
        mean = sum(truth[n] for n in members) / len(members)
        for name in members:
            half = Z95 * fit.sd(name)
            hit = abs(truth[name] - mean - fit.elo[name]) <= half
            into.intervals += 1
            into.covered += hit
            into.width += half
            wins, losses, draws = record[name]
            if not draws and not (wins and losses):
                into.perfect += 1
                into.perfect_covered += hit
        for a, b in itertools.combinations(members, 2) if pairs else ():
            stated = fit.los(a, b)
            assert stated is not None
            right = truth[a] > truth[b]
            into.los.append((stated, right) if stated >= 0.5 else (1.0 - stated, not right))


@functools.cache
def measure(
    team_size: int, games: int, sims: int, *, entrants: int = 6, correlation: float = 0.0, apart: bool = False
) -> Measured:
    """Simulate ``sims`` tournaments of one scenario (``apart``: each game fitted as its own cluster)."""
    rng = random.Random(f"{team_size}/{games}/{sims}/{entrants}/{correlation}")
    measured = Measured()
    for _ in range(sims):
        truth = {f"bot{i}": rng.gauss(0.0, SPREAD) for i in range(entrants)}
        played = tournament(rng, truth, team_size=team_size, games=games, correlation=correlation, apart=apart)
        judge(Fit(played), truth, measured, pairs=games <= LOS_GAMES)
    measured.width /= measured.intervals
    return measured


# The LOS test pools the scenarios of at most LOS_GAMES games: the others leave out the LOS of their fifteen pairs
# (measured, a third of the time judging a tournament of 1,000 games, for nothing).
LOS_GAMES = 50

SCENARIOS = {  # name: team size, games, simulated tournaments
    "1-vs-1, 50 games": (1, 50, 1000),
    "1-vs-1, 1000 games": (1, 1000, 400),
    "2-vs-2, 50 games": (2, 50, 1000),
    "2-vs-2, 1000 games": (2, 1000, 400),
}
THIN = (1, 20, 800)  # the case: 20 games of 1-vs-1 among 8 bots, five games each, many perfect records


QUICK = "1-vs-1, 50 games"  # make check's case; the others are slow


@pytest.mark.parametrize("scenario", [pytest.param(s, marks=[] if s == QUICK else pytest.mark.slow) for s in SCENARIOS])
def test_the_95_percent_interval_covers_the_true_rating_92_to_98_percent_of_the_time(scenario: str) -> None:
    measured = measure(*SCENARIOS[scenario])
    assert measured.intervals >= 2400
    assert 0.92 <= measured.coverage <= 0.98, (scenario, measured.coverage)


def test_players_with_a_perfect_record_are_covered_at_least_90_percent_of_the_time() -> None:
    measured = measure(*THIN, entrants=8)
    assert measured.perfect >= 1000  # plenty of all-win and all-loss records
    assert measured.perfect_coverage >= 0.90, measured.perfect_coverage
    assert measured.coverage >= 0.92  # the whole thin table too (it is wider than needed, not narrower)


def test_a_los_of_95_percent_is_right_93_to_97_percent_of_the_time() -> None:
    pooled = Measured()
    for team_size, games, sims in (SCENARIOS["1-vs-1, 50 games"], SCENARIOS["2-vs-2, 50 games"]):
        pooled.los += measure(team_size, games, sims).los
    pooled.los += measure(*THIN, entrants=8).los
    right, pairs = pooled.los_right(0.93, 0.97)
    assert pairs >= 3000
    assert 0.93 <= right <= 0.97, (right, pairs)
    right, pairs = pooled.los_right(0.7, 0.8)  # and not only at 95 %
    assert 0.70 <= right <= 0.80, (right, pairs)


@pytest.mark.slow
def test_correlated_rotations_of_a_deal_widen_the_interval_and_keep_its_coverage() -> None:
    """Both rotations of a deal go the same way 60 % more often than chance: as a cluster they widen the interval
    enough to keep its coverage; fitted as independent games they would not."""
    clustered = measure(1, 1000, 400, correlation=0.6)
    independent = measure(1, 1000, 400, correlation=0.6, apart=True)
    assert 0.92 <= clustered.coverage <= 0.98, clustered.coverage
    assert clustered.width > 1.15 * independent.width  # sqrt(1 + 0.6) = 1.26 in theory
    assert independent.coverage < clustered.coverage - 0.02
