"""Round-robin schedules: counts for every mode, duplicate seat rotation, stable game keys."""

from __future__ import annotations

import math
from collections import Counter

import pytest
from configs import tournament_config

from arena.engine.options import Rules, make_rules
from arena.play.botproc import BotCommand
from arena.tournament.config import TournamentConfig
from arena.tournament.schedule import deal_seed, pairing_of, pairings_for, plan_games, plan_matches

NAMES = ["a", "b", "c", "d", "e"]


def rules_for(players: int) -> Rules:
    """The rule book's variant of a table of ``players``."""
    return make_rules({2: "two-hand", 3: "three-hand", 4: "four-hand"}[players])


def config(variant: str, **extra: object) -> TournamentConfig:
    return tournament_config(**{"variant": variant, "entrants": NAMES, "games_per_pairing": 3, "seed": 1, **extra})


def all_games(cfg: TournamentConfig, players: int) -> list:
    return [g for p in pairings_for(NAMES, rules_for(players), cfg.partnership) for g in plan_games(cfg, p)]


@pytest.mark.parametrize(
    ("variant", "players", "partnership", "pairings", "rotations"),
    [
        ("two-hand", 2, "self", math.comb(5, 2), 2),
        ("three-hand", 3, "self", math.comb(5, 3), 3),
        ("four-hand", 4, "self", math.comb(5, 2), 2),
        ("four-hand", 4, "mixed", math.comb(5, 4) * 3, 2),
    ],
)
@pytest.mark.parametrize("duplicate", [True, False])
def test_schedule_counts_for_every_mode(
    variant: str, players: int, partnership: str, pairings: int, rotations: int, duplicate: bool
) -> None:
    cfg = config(variant, partnership=partnership, duplicate=duplicate)
    found = pairings_for(NAMES, rules_for(players), partnership)
    assert len(found) == pairings
    games = all_games(cfg, players)
    assert len(games) == pairings * 3 * (rotations if duplicate else 1)
    assert len({g.key for g in games}) == len(games), "game keys must be unique"


def test_every_pair_meets_once_in_two_hand() -> None:
    keys = {frozenset(p.slots) for p in pairings_for(NAMES, rules_for(2), "self")}
    assert len(keys) == 10 and all(len(k) == 2 for k in keys)


@pytest.mark.parametrize("players", [2, 3])
def test_duplicate_gives_every_entrant_every_seat_of_a_deal(players: int) -> None:
    cfg = config("two-hand" if players == 2 else "three-hand")
    for pairing in pairings_for(NAMES, rules_for(players), "self"):
        by_deal: dict[int, Counter[tuple[int, str]]] = {}
        for game in plan_games(cfg, pairing):
            seats = by_deal.setdefault(game.deal, Counter())
            for seat, slot in enumerate(game.seating):
                seats[seat, pairing.slots[slot]] += 1
        for seats in by_deal.values():
            assert all(count == 1 for count in seats.values())
            assert len(seats) == players * players


def test_four_hand_self_teams_are_copies_and_swap_sides() -> None:
    pairing = pairings_for(["a", "b"], rules_for(4), "self")[0]
    first, second = pairing.rotations
    names = [[pairing.slots[s] for s in rotation] for rotation in pairing.rotations]
    assert names[0] == ["a", "b", "a", "b"] and names[1] == ["b", "a", "b", "a"]
    assert sorted(first) == sorted(second) == [0, 1, 2, 3]


def test_mixed_partnerships_use_all_three_splits_of_four() -> None:
    splits = pairings_for(["a", "b", "c", "d"], rules_for(4), "mixed")
    teams = {frozenset({frozenset(p.slots[0::2]), frozenset(p.slots[1::2])}) for p in splits}
    assert len(teams) == 3
    partners = Counter(frozenset(p.slots[0::2]) for p in splits) + Counter(frozenset(p.slots[1::2]) for p in splits)
    assert len(partners) == 6 and set(partners.values()) == {1}


@pytest.mark.parametrize(("variant", "players"), [("two-hand", 2), ("three-hand", 3), ("four-hand", 4)])
def test_each_pairing_plays_deals_of_its_own_every_rotation_the_same(variant: str, players: int) -> None:
    """An entrant playing two pairings at once must not hold one deal in two seats: no two pairings share a deal
    (``deals = "shared"``, the older files', is one sequence for all); a deal's rotations share its seed."""
    cfg = config(variant)
    pairings = pairings_for(NAMES, rules_for(players), "self")
    seeds = [{g.seed for g in plan_games(cfg, p)} for p in pairings]
    assert all(len(s) == cfg.games_per_pairing for s in seeds)
    assert len(set().union(*seeds)) == cfg.games_per_pairing * len(pairings)
    for p in pairings:
        by_deal: dict[int, set[int]] = {}
        for g in plan_games(cfg, p):
            by_deal.setdefault(g.deal, set()).add(g.seed)
        assert all(len(s) == 1 for s in by_deal.values())
        assert [g.seed for g in plan_games(cfg, p)][:: len(p.rotations)] == [
            deal_seed(1, d, p.key) for d in range(cfg.games_per_pairing)
        ]
    shared = [{g.seed for g in plan_games(cfg.model_copy(update={"deals": "shared"}), p)} for p in pairings]
    assert all(s == {deal_seed(1, d) for d in range(cfg.games_per_pairing)} for s in shared)
    assert deal_seed(1, 0) != deal_seed(2, 0) and deal_seed(1, 0) != deal_seed(1, 0, pairings[0].key)


@pytest.mark.parametrize(("variant", "players"), [("two-hand", 2), ("three-hand", 3), ("four-hand", 4)])
def test_a_game_keys_pairing_is_the_pairing_it_was_planned_for(variant: str, players: int) -> None:
    cfg = config(variant, partnership="mixed") if players == 4 else config(variant)
    games = all_games(cfg, players)
    assert games and all(pairing_of(g.key) == g.pairing for g in games)


def test_matches_skip_done_games_and_never_let_one_process_see_two_rotations_of_a_deal() -> None:
    cfg = config("two-hand", games_per_match=5)
    commands = {n: BotCommand(n, ("true",)) for n in NAMES}
    matches = plan_matches(cfg, commands, done=set(), log_dir="logs")
    keys = [k for _, ks in matches for k in ks]
    assert len(keys) == len(set(keys)) == 10 * 3 * 2
    for spec, ks in matches:
        assert len(spec.games) == len(ks) <= 5
        deals = Counter(k.rsplit("/", 2)[1] for k in ks)
        assert set(deals.values()) == {1}, "a match holds one rotation of each of its deals"
        assert len({tuple(g.seating) for g in spec.games}) == 1
    done = set(keys[:7])
    rest = [k for _, ks in plan_matches(cfg, commands, done=done, log_dir="logs") for k in ks]
    assert sorted(rest) == sorted(set(keys) - done)


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_nap_seats_every_set_of_entrants_in_every_rotation_and_copies_when_too_few(players: int) -> None:
    """Each for himself: every set of as many entrants as seats, each holding every seat of a deal once over its
    rotations; fewer entrants than seats fill the table with copies in turn."""
    rules = make_rules("nap", {"players": players})
    names = list("abcdefgh")[: players + 1]
    pairings = pairings_for(names, rules, "mixed")
    assert len(pairings) == math.comb(players + 1, players)
    for pairing in pairings:
        assert len(set(pairing.slots)) == players and len(pairing.rotations) == players
        for seat in range(players):
            assert sorted(rotation[seat] for rotation in pairing.rotations) == list(range(players))
    (few,) = pairings_for(["a", "b"], rules, "mixed")
    assert few.slots == tuple("ab" * 4)[:players] and len(few.rotations) == players


@pytest.mark.parametrize(
    ("variant", "partnership", "entrants", "pairings", "rotations", "slots"),
    [
        ("six-hand", "self", 3, 3, 2, "abab ab"),
        ("six-hand-pairs", "self", 3, 1, 3, "abcabc"),
        ("six-hand", "mixed", 6, 10, 2, None),
        ("six-hand-pairs", "mixed", 6, 15, 3, None),
        ("five-hand", "mixed", 6, 6, 5, None),
    ],
)
def test_six_hand_teams_and_call_partner_tables_are_seated_as_docs_config_says(
    variant: str, partnership: str, entrants: int, pairings: int, rotations: int, slots: str | None
) -> None:
    """Teams of copies, or every split of six entrants into teams (10 into two of three, 15 into three of two),
    moving one seat a rotation; each team always on seats of one side."""
    rules = make_rules(variant)
    names = list("abcdef")[:entrants]
    found = pairings_for(names, rules, partnership)
    assert len(found) == pairings and {len(p.rotations) for p in found} == {rotations}
    if slots is not None:
        assert "".join(found[0].slots) == slots.replace(" ", "")[: rules.players]
    for pairing in found:
        for rotation in pairing.rotations:
            teams = {}
            for seat, slot in enumerate(rotation):
                teams.setdefault(rules.side_of(seat), set()).add(pairing.slots[slot])
            if rules.partnerships:  # each side's seats held by one team, never split
                assert sorted(map(len, teams.values())) == [len(teams[0])] * rules.sides
                assert len({frozenset(t) for t in teams.values()}) == rules.sides
