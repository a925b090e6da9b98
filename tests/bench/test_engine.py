"""``arena bench engine``: every variant's playout rate, and four-hand beside pyspiel playing the same game."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from arena.bench.engine import OPENSPIEL_RULES, PYSPIEL_PARAMS, ROUNDS
from arena.cli import main
from arena.engine.options import VARIANTS, make_rules

pyspiel = pytest.importorskip("pyspiel")


def test_four_hand_beside_pyspiel_plays_the_game_the_openspiel_crosscheck_proves_the_same() -> None:
    from tests.engine.test_hand_openspiel import GAME, RULES

    assert make_rules("four-hand", OPENSPIEL_RULES) == RULES
    assert pyspiel.load_game("euchre", PYSPIEL_PARAMS) == GAME


def test_bench_engine_prints_every_variant_and_the_median_round_beside_pyspiel_as_json() -> None:
    result = CliRunner().invoke(main, ["bench", "engine", "--seconds", "0.1", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    rates = figures["hands_per_second"]
    assert set(rates) == set(VARIANTS) and all(rate > 0 for rate in rates.values())
    assert len(figures["round_ratios"]) == ROUNDS
    assert round(figures["ratio"], 3) == sorted(figures["round_ratios"])[ROUNDS // 2]
    assert figures["ratio"] == pytest.approx(rates["four-hand"] / figures["pyspiel_four_hand"])
    assert "load_average" in figures
