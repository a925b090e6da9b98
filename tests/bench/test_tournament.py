"""``arena bench tournament``: its figures are measured, not made up, and agree with one another."""

from __future__ import annotations

import functools
import json
import os

import pytest
from click.testing import CliRunner

from arena.bench import tournament
from arena.cli import main


@pytest.mark.slow
def test_bench_tournament_prints_rates_their_ratio_the_share_of_play_the_hosts_ceiling_and_a_matchs_cost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The host's scaling is still measured (two spawned processes, their loops timed alone and side by side), on
    # loops of 300,000 steps (~30 ms each here) instead of the command's 3,000,000: nothing bounds it here but > 0,
    # and the four long loops (~0.3 s each) were ~1.2 of the test's ~6.5 processor seconds.
    monkeypatch.setattr(tournament, "host_scaling", functools.partial(tournament.host_scaling, 300_000))
    result = CliRunner().invoke(main, ["bench", "tournament", "--games", "8", "--rounds", "1", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    assert figures["games"] == 8
    one, two, play = (
        figures[k] for k in ("jobs1_games_per_second", "jobs2_games_per_second", "play_only_games_per_second")
    )
    assert one > 0 and two > 0 and play > 0
    assert figures["ratio"] == pytest.approx(two / one)
    assert figures["efficiency"] == pytest.approx(one / play)
    assert 0 < figures["efficiency"] < 1  # play alone is always faster than play with set-up
    assert figures["host_scaling"] > 0  # measured in the same run (no bound: it is wall-clock on a shared host)
    assert figures["rounds"] == [{"ratio": pytest.approx(two / one), "host_scaling": figures["host_scaling"]}]
    # the first stored game comes within the run (8 games at the run's rate take the whole run), and the ratio
    # the starts leave (the rest split evenly) is worked out from the same run's figures
    first = {jobs: figures[f"first_game_ms_jobs{jobs}"] / 1000 for jobs in (1, 2)}
    for jobs, rate in ((1, one), (2, two)):
        assert 0 < first[jobs] < 8 / rate
    assert figures["even_split"] == pytest.approx(8 / one / (first[2] + (8 / one - first[1]) / 2))
    # between the first and the last stored game: seven games in less than the whole run, so faster than its rate
    # of 8 over the run would be if it had no start; the ratio is the two steady rates'
    for jobs, rate in ((1, one), (2, two)):
        steady = figures[f"steady_jobs{jobs}_games_per_second"]
        assert steady > 7 / (8 / rate - first[jobs])
    assert figures["steady_ratio"] == pytest.approx(
        figures["steady_jobs2_games_per_second"] / figures["steady_jobs1_games_per_second"]
    )
    # the machine's busy cores: at least the run's own work (a core's worth at most per slot and core, and some
    # for the coordinator and the bots' start; another process of the host may add to it), never more than it has
    cores = os.cpu_count() or 1
    for jobs in (1, 2):
        assert 0.3 < figures[f"busy_cores_jobs{jobs}"] <= cores * 1.05  # tick accounting is coarse on some
    # a match's processor time counts the bots either way (a match of two Python bots takes well over 20 ms);
    # which way is cheaper is the benchmark's to show, not a test's
    for way in ("forked", "exec"):
        assert figures[f"match_cpu_ms_{way}"] > 20 and figures[f"match_wall_ms_{way}"] > 0


def test_bench_tournament_wants_two_different_bots() -> None:
    result = CliRunner().invoke(main, ["bench", "tournament", "--entrant", "random", "--entrant", "random"])
    assert result.exit_code == 2 and "--entrant" in result.output and "two different bots" in result.output
