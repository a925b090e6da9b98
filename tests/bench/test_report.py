"""``arena bench report``: the build measured beside decoding every record, in fresh processes."""

from __future__ import annotations

import functools
import json

import pytest
from click.testing import CliRunner

from arena.bench import report as report_bench
from arena.cli import main


@pytest.mark.slow
def test_bench_report_prints_time_memory_and_size_per_size_beside_decode_all(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each size's store repeats a few real games played here, 24 by default (0.75 s of processor time a size, of the
    # test's ~3): two fill stores of 20 and 40 games as well, and what is checked is the figures, not the games.
    monkeypatch.setattr(report_bench, "synthetic_store", functools.partial(report_bench.synthetic_store, distinct=2))
    result = CliRunner().invoke(main, ["bench", "report", "--sizes", "40,20", "--variant", "two-hand", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    rows = figures["sizes"]
    assert [r["games"] for r in rows] == [20, 40]
    for r in rows:
        assert r["build_seconds"] > 0 and r["decode_all_seconds"] > 0
        assert r["build_seconds_per_1000"] == pytest.approx(1000 * r["build_seconds"] / r["games"])
        assert r["build_peak_mb"] >= figures["baseline_peak_mb"] > 0
        assert r["report_mb"] > 0
    assert figures["per_1000_ratio"] == pytest.approx(
        rows[1]["build_seconds_per_1000"] / rows[0]["build_seconds_per_1000"]
    )
    assert figures["peak_growth_mb"] == pytest.approx(rows[1]["build_peak_mb"] - rows[0]["build_peak_mb"])


def test_bench_report_refuses_sizes_that_are_not_numbers() -> None:
    result = CliRunner().invoke(main, ["bench", "report", "--sizes", "ten"])
    assert result.exit_code == 2
    assert "not a list of numbers" in result.output
