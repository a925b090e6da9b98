"""``arena sprt`` for real: bot processes, the referee, the store; verdicts, resuming after a kill, refusals."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
from pathlib import Path

import pytest
from configs import tournament_config, write_config
from helpers import ARENA, ROOT, arena_here, run_arena, wait_for_stored

from arena.sprt.run import PairBook, new_points, sprt_pairing
from arena.sprt.stats import Pentanomial, SprtError
from arena.tournament.binding import SPRT
from arena.tournament.schedule import deal_seed
from arena.tournament.store import Store


def stored(db: Path) -> list[tuple[int, str, str]]:
    """(id, game key, finished_at) of every stored game."""
    with Store.open(db, create=False) as store:
        return [(r.id, r.game_key, r.finished_at) for r in store.list_games()]


@pytest.fixture(scope="module")
def heuristic_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    db = tmp_path_factory.mktemp("sprt") / "h-vs-r.db"
    # elo1 100: H1 after 27 games (at 50, 48): a verdict all the same, at about half the games
    done = arena_here("sprt", "heuristic", "random", "--variant", "two-hand", "--elo1", "100", "--max-games", "200",
                      "--seed", "3", "--db", str(db))  # fmt: skip
    return db, done


def test_heuristic_against_random_accepts_h1_within_a_small_cap(
    heuristic_run: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    db, done = heuristic_run
    assert done.returncode == 0, done.stderr
    verdict = done.stdout.strip().splitlines()[-1]
    assert verdict.startswith("H1 accepted: heuristic is at least 100 logistic Elo stronger than random"), verdict
    assert "LLR +2.9" in verdict or "LLR +3." in verdict
    # the live lines on stderr: games, LLR and its bounds, the estimate, the pentanomial counts
    assert "[-2.94, +2.94]" in done.stderr and "pairs LL..WW [" in done.stderr and "Elo " in done.stderr
    keys = [key for _, key, _ in stored(db)]
    assert len(keys) == len(set(keys)) < 200


def test_the_test_is_ranked_like_a_tournament(heuristic_run: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    db, _ = heuristic_run
    table = arena_here("ranking", "--db", str(db))
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[2].split()[1] == "heuristic" and lines[3].split()[1] == "random"


def test_a_decided_test_is_not_played_again_and_its_settings_may_not_change(
    heuristic_run: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    db, first = heuristic_run
    before = stored(db)
    again = arena_here("sprt", "heuristic", "random", "--variant", "two-hand", "--elo1", "100", "--max-games", "400",
                       "--seed", "3", "--db", str(db), "--quiet")  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert again.stdout.split(" (LLR")[0] == first.stdout.splitlines()[-1].split(" (LLR")[0]
    assert stored(db) == before
    changed = arena_here("sprt", "heuristic", "random", "--variant", "two-hand", "--elo1", "40", "--seed", "3",
                         "--db", str(db))  # fmt: skip
    assert changed.returncode == 2
    assert "holds an SPRT with other settings (elo1 changed)" in changed.stderr
    assert stored(db) == before
    config = write_config(db.with_suffix(".toml"))
    tournament = arena_here("tournament", "run", str(config), "--db", str(db), "--quiet")
    assert tournament.returncode == 2
    assert "holds the SPRT test" in tournament.stderr and "resume it with arena sprt" in tournament.stderr
    assert stored(db) == before


@pytest.mark.slow
def test_random_against_random_does_not_accept_h1(tmp_path: Path) -> None:
    db = tmp_path / "r-vs-r.db"
    done = arena_here("sprt", "random", "random", "--variant", "two-hand", "--elo1", "50", "--max-games", "80",
                      "--seed", "5", "--db", str(db), "--quiet")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(("H0 accepted: random-new", "inconclusive at the cap")), done.stdout
    players = {tuple(r.players) for r in Store.open(db, create=False).list_games()}
    assert players == {("random-new", "random-base"), ("random-base", "random-new")}


@pytest.mark.slow
def test_a_test_resumes_after_ctrl_c_and_after_sigkill_and_stores_no_game_twice(tmp_path: Path) -> None:
    db = tmp_path / "resume.db"
    # elo1 100: H1 after 24 games (at 50, 47; at 20, a hundred), over twice the ten or fewer stored before the kills
    args = [*ARENA, "sprt", "heuristic", "random", "--variant", "two-hand", "--elo1", "100", "--max-games", "400",
            "--games-per-match", "2", "--jobs", "1", "--seed", "7", "--db", str(db)]  # fmt: skip
    # Ctrl-C (SIGINT) while it plays: the games so far are kept, and it says how to resume
    process = subprocess.Popen(args, cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert wait_for_stored(db, 4, process) >= 4 and process.poll() is None, "fewer than 4 games stored in time"
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "Run the same command to resume" in err
    after_int = stored(db)
    # SIGKILL, no chance to clean up: a pair may be half played
    process = subprocess.Popen(args, cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wanted = len(after_int) + 3
    assert wait_for_stored(db, wanted, process) >= wanted and process.poll() is None, f"fewer than {wanted} games"
    os.kill(process.pid, signal.SIGKILL)
    process.communicate(timeout=60)
    after_kill = stored(db)
    assert after_kill[: len(after_int)] == after_int
    done = arena_here(*args[len(ARENA) :])  # the resume to the verdict: a run like any other
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("H1 accepted"), done.stdout
    final = stored(db)
    assert final[: len(after_kill)] == after_kill  # nothing stored was played again or touched
    keys = [key for _, key, _ in final]
    assert len(keys) == len(set(keys))
    # every deal before the last one played has both its games: the half-played pair was completed
    deals = {}
    for key in keys:
        _, deal, rotation = key.rsplit("/", 2)
        deals.setdefault(int(deal), set()).add(rotation)
    assert all(deals.get(d) == {"0", "1"} for d in range(max(deals) - 1)), deals


def test_three_hand_is_refused_with_the_reason(tmp_path: Path) -> None:
    done = arena_here("sprt", "heuristic", "random", "--variant", "three-hand", "--db", str(tmp_path / "x.db"))
    assert done.returncode == 2
    assert "three-hand is not supported" in done.stderr and "pairs" in done.stderr


@pytest.mark.parametrize(
    ("variant", "options", "partnership", "reason"),
    [
        ("nap", {}, "self", "nap with 4 players is not supported: each for himself"),
        ("five-hand", {}, "self", "five-hand with 5 players is not supported"),
        ("six-hand-pairs", {}, "self", "three teams give a deal three seatings"),
        ("six-hand", {}, "mixed", 'six-hand with partnership = "mixed" is not supported'),
    ],
)
def test_tables_without_pairs_are_refused_naming_why(
    variant: str, options: dict[str, object], partnership: str, reason: str
) -> None:
    config = tournament_config(variant=variant, entrants=["new", "base"], partnership=partnership, options=options)
    with pytest.raises(SprtError, match=re.escape(reason)):
        sprt_pairing(config, "new", "base")


def test_two_hand_nap_and_six_hand_teams_of_copies_pair_new_against_base() -> None:
    nap = sprt_pairing(tournament_config(variant="nap", entrants=["n", "b"], options={"players": 2}), "n", "b")[0]
    assert nap.slots == ("n", "b") and len(nap.rotations) == 2
    six = tournament_config(variant="six-hand", entrants=["n", "b"], partnership="self")
    pairing, copies = sprt_pairing(six, "n", "b")
    assert pairing.slots == ("n", "b") * 3 and copies == {} and len(pairing.rotations) == 2
    sides = [{s % 2 for s, slot in enumerate(rotation) if pairing.slots[slot] == "n"} for rotation in pairing.rotations]
    assert sides == [{0}, {1}]  # NEW's team holds each side's cards once


def test_four_hand_pairs_put_new_on_both_sides_of_each_deal() -> None:
    for partnership, slots in (
        ("self", ("new", "base", "new", "base")),
        ("mixed", ("new", "base", "base-partner", "base")),
    ):
        config = tournament_config(variant="four-hand", entrants=["new", "base"], partnership=partnership)
        pairing, copies = sprt_pairing(config, "new", "base")
        assert pairing.slots == slots
        assert copies == ({"base-partner": "base"} if partnership == "mixed" else {})
        teams = []
        for seating in pairing.rotations:
            seats = [pairing.slots[slot] for slot in seating]
            teams.append({s % 2 for s, name in enumerate(seats) if name == "new"})
            if partnership == "mixed":  # NEW's partner is BASE's copy, the other side two BASE
                side = next(iter(teams[-1]))
                assert sorted(seats[side::2]) == ["base-partner", "new"] and seats[1 - side :: 2] == ["base", "base"]
        assert teams == [{0}, {1}]  # NEW's side holds the cards of each team once


def test_a_pair_scores_new_points_over_both_games() -> None:
    book = PairBook("new", 2)
    won = {"players": ["new", "base"], "winners": [0]}
    drawn = {"players": ["base", "new"], "winners": []}
    lost = {"players": ["base", "new"], "winners": [0]}
    assert new_points(won, "new") == 1.0 and new_points(drawn, "new") == 0.5 and new_points(lost, "new") == 0.0  # type: ignore[arg-type]
    assert book.add("new|base/0/0", won) is None  # type: ignore[arg-type]
    assert book.add("new|base/1/1", lost) is None  # type: ignore[arg-type]
    assert book.add("new|base/0/1", drawn) == 1.5  # type: ignore[arg-type]
    assert book.add("new|base/1/0", lost) == 0.0  # type: ignore[arg-type]
    assert Pentanomial().add(1.5).add(0.0).counts == (1, 0, 0, 1, 0)


@pytest.mark.slow
def test_a_mixed_four_hand_test_partners_new_with_a_copy_of_base(tmp_path: Path) -> None:
    db = tmp_path / "mixed.db"
    done = arena_here("sprt", "heuristic", "random", "--variant", "four-hand", "--partnership", "mixed",
                      "--elo1", "100", "--max-games", "8", "--games-per-match", "4",
                      "--db", str(db), "--quiet")  # fmt: skip
    assert done.returncode == 0, done.stderr
    games = Store.open(db, create=False).list_games()
    assert len(games) == 8
    for game in games:
        side = game.players.index("heuristic") % 2
        assert sorted(game.players[side::2]) == ["heuristic", "random-partner"]
        assert list(game.players[1 - side :: 2]) == ["random", "random"]
    assert {g.players.index("heuristic") % 2 for g in games} == {0, 1}  # NEW's side held both hands of the deals


def test_a_test_whose_matches_all_fail_stops_soon_and_says_it_stopped_short(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every referee fails (here: a TMPDIR too deep for the match's sockets). The test stops after a few matches in
    a row failed, not after all 2,500 of its cap, and says it stopped short (exit 1), not "inconclusive at the cap"
    (exit 0) as it did."""
    deep = tmp_path / ("d" * (110 - len(str(tmp_path))))
    deep.mkdir()
    monkeypatch.setenv("TMPDIR", str(deep))
    done = run_arena("sprt", "random", "random", "--variant", "two-hand", "--db", tmp_path / "t.db", "--quiet")
    assert done.returncode == 1, done.stderr[-2000:]
    lines = done.stderr.splitlines()
    failed = [line for line in lines if line.startswith("warning: match ")]
    assert 8 <= len(failed) <= 16, lines[-3:]  # give_up_after: 8, and those already running when it stopped
    assert "stopped after 8 matches in a row failed with no game stored between" in done.stderr
    assert lines[-1].startswith("Stopped short: 0 games stored") and "inconclusive" not in done.stdout


def test_a_test_without_a_seed_draws_a_secret_one_per_results_file_and_keeps_it_when_resumed(tmp_path: Path) -> None:
    """A known seed tells a bot every card: without --seed, two tests deal differently, and a resumed one deals on
    from the seed its results file keeps (a --seed that differs from it is a changed setting)."""

    def sprt(db: Path, *extra: str) -> subprocess.CompletedProcess[str]:
        return arena_here("sprt", "random", "random", "--variant", "two-hand", "--db", str(db), "--quiet", *extra)

    def seeds(db: Path) -> dict[str, int]:
        with Store.open(db, create=False) as store:
            return {key: record["seed"] for _, key, record in store.records()}

    first, second = tmp_path / "first.db", tmp_path / "second.db"
    for db in (first, second):
        assert sprt(db, "--max-games", "2").returncode == 0
    assert set(seeds(first).values()).isdisjoint(seeds(second).values())
    with Store.open(first, create=False) as store:
        drawn = json.loads(store.get_meta(SPRT.settings_key) or "{}")["seed"]
    assert sprt(first, "--max-games", "4").returncode == 0
    assert {key.split("/")[1]: seed for key, seed in seeds(first).items()} == {
        "0": deal_seed(drawn, 0),
        "1": deal_seed(drawn, 1),
    }
    refused = sprt(first, "--max-games", "6", "--seed", str(drawn + 1))
    assert refused.returncode == 2 and "(seed changed)" in refused.stderr, refused.stderr
