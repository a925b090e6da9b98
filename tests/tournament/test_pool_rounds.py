"""Fair play under duplicate deals: a deal's rotations never meet (SECURITY.md, duplicate deals).

Two copies of one entrant that play two rotations of a deal at the same time hold, between them, the cards of two
seats: any channel between them (a lock table, a futex, the processor) tells each its opponent's hand. So a run plays
its games in rounds, one rotation of every deal a round, and starts a round only once every bot process of the round
before has ended. Checked from outside, with entrants that write down what they see and how long they live
(tests/bots/witness.py), in two-, three- and four-hand tournaments with two and four jobs, and from the stored
records' times.
"""

from __future__ import annotations

import json
import os
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from configs import tournament_config, write_config
from helpers import arena_here
from probing import BOTS
from sandboxing import open_to_bots

from arena.tournament.store import Store

CONFIG = dict(
    name="rounds", games_per_pairing=3, games_per_match=1, time="30+2", seed=5, partnership="self", trusted_bots=True
)

ENTRANTS = {  # witnesses (copies of one script under other names) and a bundled bot: several pairings each
    "two-hand": ["witness_a", "witness_b", "random"],
    "three-hand": ["witness_a", "witness_b", "random", "heuristic"],
    "four-hand": ["witness_a", "witness_b", "random"],
}


def play(tmp_path: Path, variant: str, jobs: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Run the tournament; its stored games by key, and each witness process's account (what it saw, its life)."""
    out = tmp_path / "out"
    open_to_bots(out)
    for name in ("witness_a", "witness_b"):
        (tmp_path / f"{name}.py").write_text(f"# out: {out}\n" + (BOTS / "witness.py").read_text())
    entrants = [tmp_path / f"{name}.py" if name.startswith("witness") else name for name in ENTRANTS[variant]]
    config = write_config(
        tmp_path / "rounds.toml", variant=variant, entrants=entrants, jobs=jobs, limits={"writable": [out]}, **CONFIG
    )
    db = tmp_path / "rounds.db"
    result = arena_here("tournament", "run", config, "--db", db, "--quiet")
    assert result.returncode == 0, result.stdout + result.stderr
    with Store.open(db, create=False) as store:
        games = {key: record for _, key, record in store.records()}
    processes = []
    for log in out.glob("*.jsonl"):
        lines = [json.loads(line) for line in log.read_text().splitlines()]
        alive = log.with_suffix(".alive")  # (empty when the process ended between creating and writing it)
        seen_alive = alive.read_text() if alive.exists() else ""
        last = float(seen_alive) if seen_alive else lines[-1].get("t", lines[0]["start"])
        processes.append({"start": lines[0]["start"], "end": max(last, lines[-1].get("t", 0.0)), "seen": lines[1:]})
    return games, processes


def where_seen(games: dict[str, Any]) -> dict[tuple[frozenset[str], str, int], list[tuple[str, str]]]:
    """Each seat's dealt hand (its cards, the upcard, the seat) -> the games (key, player) that dealt it."""
    found: dict[tuple[frozenset[str], str, int], list[tuple[str, str]]] = defaultdict(list)
    for key, record in games.items():
        for hand in record["hands"]:
            deal = hand["deal"]
            for seat, cards in enumerate(deal["hands"]):
                found[(frozenset(cards), deal["upcard"], seat)].append((key, record["players"][seat]))
    return found


@pytest.mark.slow
@pytest.mark.timeout(240)
@pytest.mark.parametrize("jobs", [2, 4])
@pytest.mark.parametrize("variant", ["two-hand", "three-hand", "four-hand"])
def test_no_process_of_a_round_meets_a_process_of_the_next(tmp_path: Path, variant: str, jobs: int) -> None:
    games, processes = play(tmp_path, variant, jobs)
    rounds = 3 if variant == "three-hand" else 2
    assert games and all(int(key.rsplit("/", 1)[1]) < rounds for key in games)
    dealt = where_seen(games)
    lives: dict[int, list[tuple[float, float]]] = defaultdict(list)  # round -> witness processes' lives
    held: dict[tuple[str, int], list[tuple[int, str, float, float]]] = defaultdict(list)  # (entrant, deal) -> seats
    for process in processes:
        rounds_seen = set()
        for line in process["seen"]:
            cards = set(line["cards"]) - ({line["upcard"]} if len(line["cards"]) > 5 else set())
            found = [k for k, p in dealt[(frozenset(cards), line["upcard"], line["seat"])] if p == line["name"]]
            assert found, line
            (seed,) = {games[key]["seed"] for key in found}
            rounds_seen |= {int(key.rsplit("/", 1)[1]) for key in found}
            held[(line["name"], seed)].append((line["seat"], found[0], process["start"], process["end"]))
        if rounds_seen:
            assert len(rounds_seen) == 1, "one process played two rounds"
            lives[rounds_seen.pop()].append((process["start"], process["end"]))
    assert set(lives) == set(range(rounds)), "every round had witnesses"
    for (player, seed), seen in held.items():  # the property: one deal, one entrant, one seat at a time
        for seat, key, start, end in seen:
            for seat2, key2, start2, end2 in seen:  # (partners in one game: the next check's business)
                assert seat == seat2 or key == key2 or end < start2 or end2 < start, (player, seed, key, key2)
    for number in range(1, rounds):  # and the round's: every process of a round ended before the next began
        assert max(end for _, end in lives[number - 1]) < min(start for start, _ in lives[number])
    by_round: dict[int, list[tuple[float, float]]] = defaultdict(list)  # the stored records' times say the same
    for key, record in games.items():
        by_round[int(key.rsplit("/", 1)[1])].append((record["timing"]["started_at"], record["timing"]["ended_at"]))
    for number in range(1, rounds):
        assert max(end for _, end in by_round[number - 1]) <= min(start for start, _ in by_round[number])


@pytest.mark.slow
@pytest.mark.timeout(240)
@pytest.mark.parametrize("variant", ["two-hand", "four-hand"])
def test_an_sprt_plays_a_deals_second_seating_only_after_its_first_has_ended(tmp_path: Path, variant: str) -> None:
    """From the stored records' times: a deal's two games never overlap, and a batch's second round starts after its
    first has ended (an SPRT plays rounds of ``jobs`` matches, as the tournament does)."""
    db = tmp_path / "sprt.db"
    result = arena_here(
        "sprt", "random", "random", "--variant", variant, "--max-games", "16", "--games-per-match", "1",
        "--jobs", "4", "--seed", "3", "--time", "30+2", "--elo0", "-200", "--elo1", "200", "--alpha", "0.001",
        "--beta", "0.001", "--db", db, "--quiet",
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    with Store.open(db, create=False) as store:
        games = {key: record["timing"] for _, key, record in store.records()}
    assert len(games) == 16
    times: dict[str, dict[int, tuple[float, float]]] = defaultdict(dict)
    for key, timing in games.items():
        deal, rotation = key.rsplit("/", 1)
        times[deal][int(rotation)] = (timing["started_at"], timing["ended_at"])
    for deal, (first, second) in ((d, (t[0], t[1])) for d, t in times.items()):
        assert first[1] <= second[0], deal
    first_round_ends = max(t[0][1] for t in times.values())  # 8 deals, 4 jobs: two batches
    assert sum(t[1][0] >= first_round_ends for t in times.values()) >= 4


@pytest.mark.skipif(os.geteuid() != 0, reason="dropping the page cache needs root")
@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("variant", "entrants", "rounds", "setting", "trusted", "drops"),
    [
        ("two-hand", 2, 2, None, False, 1),  # the default, as root, for strangers
        ("three-hand", 3, 3, True, False, 2),
        ("two-hand", 2, 2, None, True, 0),  # bots declared trusted: not by default
        ("two-hand", 2, 2, False, False, 0),
    ],
)
def test_drop_page_cache_drops_it_between_every_two_rounds_once_their_bots_are_gone(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    variant: str,
    entrants: int,
    rounds: int,
    setting: bool | None,
    trusted: bool,
    drops: int,
) -> None:
    """The kernel's caches of files and names outlive the processes of a round: they are dropped between rounds (by
    default as root, for bots not declared trusted), when no bot process of the round before lives (every slot has
    rested) and none of the next has started."""
    from arena.play import linux
    from arena.tournament import run as run_module

    dropped_at: list[float] = []

    def drop() -> None:
        linux.drop_page_cache()  # the real one: as root it must not fail
        dropped_at.append(time.time())

    monkeypatch.setattr(run_module, "drop_page_cache", drop)
    names = ["random", "heuristic", "search"][:entrants]
    config = tournament_config(
        name="drops", variant=variant, entrants=names, games_per_pairing=2, games_per_match=1, seed=3, jobs=2,
        time="30+2", drop_page_cache=setting, trusted_bots=trusted,
    )  # fmt: skip
    with Store.open(tmp_path / "drops.db") as store:
        report = run_module.run_tournament(
            config, store, run_module.resolve_entrants(names), jobs=2, log_dir=str(tmp_path / "logs")
        )
        games = {key: record["timing"] for _, key, record in store.records()}
    assert report.errors == [] and len(games) == 2 * rounds
    assert len(dropped_at) == drops
    for number, dropped in enumerate(dropped_at, start=1):  # after every game of one round, before any of the next
        assert max(t["ended_at"] for k, t in games.items() if k.endswith(f"/{number - 1}")) <= dropped
        assert min(t["started_at"] for k, t in games.items() if k.endswith(f"/{number}")) >= dropped
