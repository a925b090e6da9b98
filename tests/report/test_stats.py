"""The report's per-bot statistics (arena/report/stats.py) against figures recomputed here from the records.

The records are real: the six of tests/data (every variant, lone hands, violations, a forfeit) and the games of a
small tournament run through the referee (each decision's time, the clocks at the end). The expected figures are
computed below straight from the record format (protocol.md §12), without the report's code.
"""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from configs import write_config
from helpers import RAW_RANDOM, ROOT, arena_here

from arena.report import history as history_module
from arena.report import stats as stats_module
from arena.report.build import build_report
from arena.report.stats import BotStats
from arena.tournament.ranking import ranking
from arena.tournament.store import Store

RECORDS = ROOT / "tests" / "data" / "records-v1.jsonl"

TOURNAMENT = dict(
    name="stats-test",
    variant="four-hand",
    partnership="self",
    entrants=["heuristic", "random", RAW_RANDOM],
    games_per_pairing=1,
    games_per_match=2,
    time="5+0.1",
    seed=5,
    jobs=2,
)


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """The records of tests/data and of a small tournament played with the referee here."""
    config = write_config(tmp_path_factory.mktemp("stats") / "stats-test.toml", **TOURNAMENT)
    result = arena_here("tournament", "run", config, "--quiet")  # the records are tested, not the CLI's process
    assert result.returncode == 0, result.stderr
    with Store.open(config.with_suffix(".db"), create=False) as store:
        played = [record for _, _, record in store.records()]
    assert all("decision_ms" in r["timing"] and "clock_left" in r["timing"] for r in played)
    return [json.loads(line) for line in RECORDS.read_text().splitlines() if line.strip()] + played


def expected(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each bot's figures, recomputed from the records hand by hand and decision by decision."""
    figures: dict[str, dict[str, Any]] = defaultdict(
        lambda: {
            "games": 0,
            "bids": 0,
            "made": 0,
            "euchred": 0,
            "alone": 0,
            "aloneMade": 0,
            "maker": [],
            "defender": [],
            "decisions": 0,
            "thinking": 0.0,
            "times": [],
            "left": [],
            "violations": Counter(),
        }
    )
    for record in records:
        players = record["players"]
        for name in set(players):
            figures[name]["games"] += 1
        for hand in record["hands"]:
            result = hand["result"]
            maker = result["maker"]
            if result["passed_out"]:
                assert maker is None
                continue
            makers = {maker, (maker + 2) % 4} if len(players) == 4 else {maker}
            for seat, name in enumerate(players):
                f = figures[name]
                if seat == maker:
                    f["bids"] += 1
                    f["maker"].append(result["points"][seat])
                    side_scored = result["points"][seat] > 0
                    f["made" if side_scored else "euchred"] += 1
                    if result["alone"]:
                        f["alone"] += 1
                        f["aloneMade"] += side_scored
                elif seat not in makers:
                    f["defender"].append(result["points"][seat])
        timing = record["timing"]
        for seat, name in enumerate(players):
            f = figures[name]
            f["decisions"] += timing["decisions"][seat]
            f["thinking"] += timing["thinking"][seat]
            f["times"] += timing.get("decision_ms", [[]] * len(players))[seat]
            if "clock_left" in timing:
                f["left"].append(timing["clock_left"][seat])
        for v in record["violations"]:
            figures[players[v["seat"]]]["violations"][v["kind"]] += 1
    out = {}
    for name, f in figures.items():
        times = sorted(f["times"])
        out[name] = {
            "games": f["games"],
            "bids": f["bids"],
            "made": f["made"],
            "euchred": f["euchred"],
            "alone": f["alone"],
            "aloneMade": f["aloneMade"],
            "makerPoints": sum(f["maker"]) / len(f["maker"]) if f["maker"] else None,
            "defenderPoints": sum(f["defender"]) / len(f["defender"]) if f["defender"] else None,
            "decisions": f["decisions"],
            "msPerDecision": 1000 * f["thinking"] / f["decisions"] if f["decisions"] else 0.0,
            "p99Ms": times[math.ceil(0.99 * len(times)) - 1] if times else None,
            "maxMs": times[-1] if times else None,
            "meanLeft": sum(f["left"]) / len(f["left"]) if f["left"] else None,
            "minLeft": min(f["left"]) if f["left"] else None,
            "violations": dict(f["violations"]),
        }
    return out


class Shown(HTMLParser):
    """The statistics tables of an index page: {bot: {stat: value}} from the cells' data attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.bots: dict[str, dict[str, Any]] = defaultdict(dict)
        self.bot: str | None = None
        self.kind: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "tr":
            self.bot = a.get("data-bot")
        elif tag == "td" and self.bot is not None and a.get("data-stat") and a.get("data-stat") != "violations":
            value = a.get("data-value") or ""
            self.bots[self.bot][str(a["data-stat"])] = None if value == "" else float(value)
        elif tag == "td" and self.bot is not None and a.get("data-kind"):
            self.kind = a["data-kind"]

    def handle_data(self, data: str) -> None:
        if self.kind is not None and self.bot is not None:
            if data.strip() and int(data):  # time-outs show 0, other kinds nothing
                self.bots[self.bot].setdefault("violations", {})[self.kind] = int(data)
            self.kind = None

    def handle_endtag(self, tag: str) -> None:
        if tag == "td":
            self.kind = None


@pytest.mark.slow
def test_bot_statistics_match_figures_recomputed_from_the_records(
    records: list[dict[str, Any]], tmp_path: Path
) -> None:
    source = tmp_path / "games.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records))
    built = build_report(source, tmp_path / "r")
    want = expected(records)
    parser = Shown()
    parser.feed(built.index.read_text())
    shown = {name: {**figures, "violations": figures.get("violations", {})} for name, figures in parser.bots.items()}
    assert set(shown) == set(want)
    for name, figures in want.items():
        for stat, value in figures.items():
            if stat == "violations":
                assert shown[name]["violations"] == {k: n for k, n in value.items() if n}, name
            elif value is None:
                assert shown[name][stat] is None, (name, stat)
            else:
                assert shown[name][stat] == pytest.approx(value, rel=1e-9), (name, stat)
    # the figures are not all trivial: lone hands, euchres, clocks and violations occur in these records
    assert sum(f["alone"] for f in want.values()) > 0
    assert sum(f["euchred"] for f in want.values()) > 0
    assert all(f["minLeft"] is not None for n, f in want.items() if n == "raw")
    assert sum(sum(f["violations"].values()) for f in want.values()) > 0


def test_the_p99_is_the_nearest_rank_and_stays_within_half_a_percent_once_coarsened(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    times = [round(0.01 * i + (i % 7) * 1.37, 2) for i in range(1, 3001)]
    exact = sorted(times)[math.ceil(0.99 * len(times)) - 1]
    bot = BotStats("b")
    for start in range(0, len(times), 40):  # one game's seat at a time
        bot.add_times(times[start : start + 40])
    assert bot.p99_ms == exact
    assert bot.slowest == max(times)
    monkeypatch.setattr(stats_module, "DISTINCT_TIMES", 100)
    coarse = BotStats("b")
    for start in range(0, len(times), 40):
        coarse.add_times(times[start : start + 40])
    assert len(coarse.times) < len(set(times))
    assert coarse.p99_ms == pytest.approx(exact, rel=0.005)
    assert coarse.slowest == max(times)
    assert coarse.timed == len(times)


def index_data(index: Path) -> dict[str, Any]:
    """The data the index page's charts are drawn from."""
    html = index.read_text()
    start = html.index('<script id="report-data" type="application/json">') + len(
        '<script id="report-data" type="application/json">'
    )
    found: dict[str, Any] = json.loads(html[start : html.index("</script>", start)])
    return found


def test_the_rating_history_is_the_ranking_after_so_many_games(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(history_module, "POINTS", 4)  # the points are thinned out and the step doubles
    records = [json.loads(line) for line in RECORDS.read_text().splitlines() if line.strip()]
    source = tmp_path / "games.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records))
    built = build_report(source, tmp_path / "r")
    history = index_data(built.index)["history"]
    games = history["games"]
    assert games[-1] == len(records)
    assert 2 <= len(games) <= 5 and games == sorted(set(games))
    step = games[1] - games[0]
    assert step > 1 and all(n % step == 0 for n in games[:-1])
    for k, n in enumerate(games):
        then = {r.bot: r.elo for r in ranking([("", r) for r in records[:n]], intervals=False)}  # type: ignore[misc]
        assert {bot: elo[k] for bot, elo in history["elo"].items() if elo[k] is not None} == pytest.approx(then)


@pytest.mark.slow
def test_the_referee_records_each_decision_time_and_the_clock_left(records: list[dict[str, Any]]) -> None:
    played = [r for r in records if "match_id" in r and r["variant"] == "four-hand" and "clock_left" in r["timing"]]
    assert len(played) == 6  # three pairings, one deal each, in both seatings
    for record in played:
        timing = record["timing"]
        for seat in range(4):
            each, decisions = timing["decision_ms"][seat], timing["decisions"][seat]
            assert len(each) == decisions > 0
            assert sum(each) / 1000 == pytest.approx(timing["thinking"][seat], abs=1e-4 + 1e-5 * decisions)
            # a bank of 5 s, 0.1 s more per decision, less what the decisions took (these bots never run it dry)
            assert timing["clock_left"][seat] == pytest.approx(5 + 0.1 * decisions - sum(each) / 1000, abs=1e-3)


def test_raw_records_are_the_stored_text_from_an_id_on(tmp_path: Path) -> None:
    lines = [line for line in RECORDS.read_text().splitlines() if line.strip()]
    with Store.open(tmp_path / "raw.db") as store:
        ids = [store.add_game(f"k{i}", f"m{i}", json.loads(line)) for i, line in enumerate(lines)]
        assert [(i, k) for i, k, _ in store.raw_records(batch=4)] == [(i, f"k{n}") for n, i in enumerate(ids)]
        later = list(store.raw_records(after=ids[2], batch=2))
        assert [i for i, _, _ in later] == ids[3:]
        assert [json.loads(text) for _, _, text in later] == [json.loads(line) for line in lines[3:]]
