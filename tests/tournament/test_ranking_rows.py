"""The ranking table from game records (issue 13): W-D-L, three-hand first places, groups that never met, the progress
line's leader against the final table. The maths itself: test_ratings.py and test_ratings_coverage.py."""

from __future__ import annotations

import csv
import io
import json
import random
from pathlib import Path
from typing import Any

import pytest
from configs import tournament_config

from arena.play.matchspec import MatchSpec
from arena.tournament.progress import ProgressPrinter
from arena.tournament.ranking import format_ranking, ranking
from arena.tournament.ratings import Comparison, LiveFit, rank_table
from arena.tournament.run import Progress, _lead, resolve_entrants, run_tournament
from arena.tournament.store import Store

VARIANT_OF = {2: "two-hand", 3: "three-hand", 4: "four-hand"}


def game(players: list[str], winners: list[int], scores: list[int] | None = None, **extra: Any) -> dict[str, Any]:
    """A minimal record: two hands, each side scoring a point in one of them (of the rule book's variant for its
    table, unless ``extra`` says another)."""
    n = len(players)
    hands = []
    for h in range(2):
        points = [1 if s % 2 == h % 2 else 0 for s in range(n)]
        result = {"passed_out": False, "maker": h % n, "trump": "C", "alone": False, "defender_alone": None}
        result |= {"tricks": [], "points": points, "scores_after": points}
        deal = {"hands": [[] for _ in range(n)], "upcard": "9C", "kitty": []}
        hands.append({"dealer": h % n, "deal": deal, "actions": [], "result": result})
    return {
        "variant": VARIANT_OF.get(n, "nap"),
        "options": {} if n <= 4 else {"players": n},
        "players": players,
        "winners": winners,
        "final_scores": scores if scores is not None else [10 if s in winners else 5 for s in range(n)],
        "hands": hands,
        **extra,
    }


def table(records: list[dict[str, Any]], **kwargs: Any) -> dict[str, Any]:
    rows = ranking([(f"p/{i}/0", r) for i, r in enumerate(records)], **kwargs)
    return {row.bot: row for row in rows}


# --- W-D-L ---------------------------------------------------------------------------------------------------


def test_a_drawn_game_is_a_draw_not_a_loss() -> None:
    records = [game(["a", "b"], [0]), game(["a", "b"], [0]), game(["b", "a"], []), game(["a", "b"], [1])]
    rows = table(records)
    assert (rows["a"].wins, rows["a"].draws, rows["a"].losses) == (2, 1, 1)
    assert (rows["b"].wins, rows["b"].draws, rows["b"].losses) == (1, 1, 2)
    assert rows["a"].score == pytest.approx(2.5 / 4)
    text = format_ranking(list(rows.values()), "table")
    assert "W-D-L" in text and "2-1-1" in text and "1-1-2" in text


def test_violations_are_charged_to_the_offender() -> None:
    records = [
        game(["a", "b"], [0], violations=[{"seat": 1}]),
        game(["a", "b"], [0], violations=[{"seat": 1}]),
        game(["b", "a"], [1], violations=[{"seat": 1}]),
    ]
    rows = table(records)
    assert (rows["a"].violations, rows["b"].violations) == (1, 2)


def test_four_hand_partners_count_each_game_once() -> None:
    records = [game(["a", "b", "a", "b"], [0, 2]), game(["b", "a", "b", "a"], []), game(["a", "b", "a", "b"], [1, 3])]
    rows = table(records)
    assert (rows["a"].games, rows["a"].wins, rows["a"].draws, rows["a"].losses) == (3, 1, 1, 1)
    assert rows["a"].points_per_hand == pytest.approx(0.5)


@pytest.mark.parametrize("slam_first", [False, True])
def test_a_slam_counts_twice_whatever_came_before_it(slam_first: bool) -> None:
    """Railroad's slam is two results for the ratings, as is every slam, not only one like the first game seen with
    the same players and winners."""
    plain = game(["a", "b", "a", "b"], [0, 2], variant="railroad", options={"slam": True})
    slam = plain | {"slam": True}
    rows = table([slam, plain] if slam_first else [plain, slam])
    assert (rows["a"].games, rows["a"].wins, rows["a"].losses) == (2, 2, 0)  # the table counts games
    assert rows["a"].score == 1.0
    thrice = table([plain, plain, plain])  # three results a over b, as the slam and the plain game make
    assert rows["a"].elo == pytest.approx(thrice["a"].elo)
    assert rows["a"].elo != pytest.approx(table([plain, plain])["a"].elo)


def test_three_hand_counts_first_places_and_says_so() -> None:
    records = [
        game(["a", "b", "c"], [0], [10, 7, 3]),
        game(["c", "a", "b"], [0], [10, 9, 2]),
        game(["b", "c", "a"], [], [6, 6, 8]),  # drawn at the hand limit: a draw for all three, a leads on points
    ]
    rows = table(records)
    assert (rows["a"].wins, rows["a"].draws, rows["a"].losses) == (1, 1, 1)
    assert (rows["c"].wins, rows["c"].draws, rows["c"].losses) == (1, 1, 1)
    assert rows["a"].seats == 3
    header = next(csv.reader(io.StringIO(format_ranking(list(rows.values()), "csv"))))
    assert "1st-D-L" in header and "W-D-L" not in header
    assert rows["a"].score == pytest.approx(5 / 6)  # pairwise: b three times, c twice (the drawn game by score)


# --- groups ----------------------------------------------------------------------------------------------------


def two_groups() -> list[dict[str, Any]]:
    """a and b never meet c and d: a sweeps b, c and d split."""
    return [game(["a", "b"], [0]) for _ in range(8)] + [game(["c", "d"], [i % 2]) for i in range(8)]


def test_groups_that_never_met_are_shown_apart_with_an_unknown_los() -> None:
    rows = ranking([(f"x/{i}/0", r) for i, r in enumerate(two_groups())])
    assert [(r.rank, r.group, r.bot) for r in rows] == [(1, 1, "a"), (2, 1, "b"), (1, 2, "c"), (2, 2, "d")]
    assert rows[1].los_next is None and rows[0].los_next is not None
    text = format_ranking(rows, "table")
    lines = text.splitlines()
    assert "group" in lines[0]
    assert "unknown" in lines[3] and "unknown" not in lines[2] + lines[4] + lines[5]  # between b and c only
    assert "2 separate groups" in text and "never met" in text
    assert "2 separate groups" in format_ranking(rows, "markdown")
    parsed = list(csv.reader(io.StringIO(format_ranking(rows, "csv"))))
    assert parsed[0][:3] == ["rank", "group", "bot"] and len(parsed) == 5
    assert [row["group"] for row in json.loads(format_ranking(rows, "json"))] == [1, 1, 2, 2]


def test_one_group_has_no_group_column_and_no_note() -> None:
    rows = ranking([(f"x/{i}/0", r) for i, r in enumerate([*two_groups(), game(["b", "c"], [0])])])
    text = format_ranking(rows, "table")
    assert "group" not in text.splitlines()[0] and "separate" not in text and "unknown" not in text
    assert next(csv.reader(io.StringIO(format_ranking(rows, "csv"))))[:3] == ["rank", "bot", "Elo"]


# --- options and order -------------------------------------------------------------------------------------------


def test_the_former_bootstrap_option_still_switches_intervals_off() -> None:
    pairs = [(f"x/{i}/{i % 2}", r) for i, r in enumerate(game(["a", "b"], [i % 3 == 0]) for i in range(12))]
    assert all(r.plus_minus is None for r in ranking(pairs, bootstrap=0))
    assert all(r.plus_minus is None for r in ranking(pairs, intervals=False))
    with_intervals = ranking(pairs, bootstrap=50, seed=3)
    assert with_intervals == ranking(pairs) == ranking(list(reversed(pairs)))
    assert all(r.plus_minus is not None and r.plus_minus > 0 for r in with_intervals)


# --- the progress line's leader is the table's ---------------------------------------------------------------


class ScriptedExecutor:
    """Plays no bots: every game's winner is drawn from fixed strengths, seeded by the game's seed and seating."""

    strength = {"random": -1.0, "heuristic": 0.6, "search": 0.5}

    def run(self, spec: MatchSpec, on_game: Any) -> str | None:
        for index, planned in enumerate(spec.games):
            players = [spec.bots[slot].name for slot in planned.seating]
            rng = random.Random(f"{planned.seed}/{players}")
            gap = self.strength[players[0]] - self.strength[players[1]]
            won = 0 if rng.random() < 1.0 / (1.0 + 2.718281828 ** (-gap)) else 1
            on_game(
                {
                    "format": "euchre-arena/game/1",
                    "variant": spec.variant,
                    "options": {},
                    "seed": planned.seed,
                    **game(players, [won]),
                    "match_id": spec.match_id,
                    "game_index": index,
                }
            )
        return None

    def cancel(self) -> None:
        pass


def test_the_progress_leader_after_the_last_game_is_the_tables_top_row(tmp_path: Path) -> None:
    config = tournament_config(
        name="leader", entrants=["random", "heuristic", "search"], games_per_pairing=12, pin=False
    )
    seen: list[Progress] = []
    with Store.open(tmp_path / "t.db") as store:
        report = run_tournament(
            config,
            store,
            resolve_entrants(config.entrants),
            jobs=2,
            log_dir=str(tmp_path / "logs"),
            executor=ScriptedExecutor(),
            on_progress=lambda p: seen.append(Progress(p.done, p.total, p.started, p.leader, p.leader_elo, p.groups)),
        )
        rows = ranking((key, record) for _, key, record in store.records())
    assert report.done == report.total == 72 and len(seen) == 72
    assert (seen[-1].leader, seen[-1].leader_elo) == (rows[0].bot, rows[0].elo)
    assert all(p.leader is not None and p.groups == 1 for p in seen)
    line = io.StringIO()
    ProgressPrinter(line).update(seen[-1])
    assert f"leader {rows[0].bot} ({rows[0].elo:+.0f} Elo)" in line.getvalue()


def test_no_leader_is_named_while_the_bots_form_separate_groups() -> None:
    live = LiveFit()
    results = [Comparison(("a",), ("b",)), Comparison(("c",), ("d",)), Comparison(("d",), ("c",), draw=True)]
    for c in results:
        live.record(c)
    progress = Progress(done=3, total=10, started=0.0)
    assert _lead(progress, live) and (progress.leader, progress.groups) == (None, 2)
    results.append(Comparison(("b",), ("c",)))
    live.record(results[-1])
    assert _lead(progress, live) and progress.groups == 1
    top = rank_table(results)[0]
    assert (progress.leader, progress.leader_elo) == (top.name, top.elo) == ("a", top.elo)
    assert not _lead(progress, live)  # nothing new: nothing changed


def test_the_progress_line_names_no_leader_while_groups_are_apart() -> None:
    line = io.StringIO()
    ProgressPrinter(line).update(Progress(done=4, total=10, started=0.0, leader=None, groups=2))
    assert "no leader yet: 2 groups of bots have not met" in line.getvalue()
    assert "leader " not in line.getvalue().replace("no leader yet", "")


def test_nap_at_four_ranks_by_standing_each_for_himself_and_copies_never_meet() -> None:
    """Four players of Nap are four sides, not two partnerships: the table ranks by final standing, as three-hand
    does, and two copies of one bot at a table give no result between them."""
    records = [
        game(["a", "b", "c", "d"], [0], [30, 10, -20, -20], variant="nap"),
        game(["b", "c", "d", "a"], [1], [-5, 40, -5, -30], variant="nap"),
        game(["a", "a", "b", "b"], [2], [-10, -10, 25, -5], variant="nap"),
    ]
    rows = {r.bot: r for r in ranking((f"k{i}", r) for i, r in enumerate(records))}
    assert rows["a"].standing and (rows["a"].wins, rows["c"].wins, rows["b"].wins) == (1, 1, 1)
    assert rows["d"].wins == 0 and rows["d"].losses == 2
    assert "1st-D-L" in format_ranking(list(rows.values()), "text")
