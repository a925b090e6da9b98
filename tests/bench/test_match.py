"""``arena bench match``: the referee's peak memory by match length, in fresh processes, beside keeping records."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from arena.cli import main


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_bench_match_prints_the_peak_of_each_length_beside_a_match_that_keeps_its_records() -> None:
    result = CliRunner().invoke(main, ["bench", "match", "--sizes", "40,10", "--kept-up-to", "10", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    rows = figures["sizes"]
    assert [r["games"] for r in rows] == [10, 40]
    for r in rows:
        assert r["seconds"] > 0 and r["peak_mib"] > 0
    assert rows[0]["kept_peak_mib"] > 0 and rows[1]["kept_peak_mib"] is None  # kept up to 10 games only
    assert figures["peak_growth_mib"] == pytest.approx(rows[1]["peak_mib"] - rows[0]["peak_mib"])
    assert figures["kept_peak_growth_mib"] is None


def test_bench_match_refuses_sizes_that_are_not_numbers() -> None:
    result = CliRunner().invoke(main, ["bench", "match", "--sizes", "ten"])
    assert result.exit_code == 2
    assert "not a list of numbers" in result.output
