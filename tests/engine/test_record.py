"""Game records (docs/rules.md section 11): what they hold, that they replay to themselves, and that tampering fails."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine.cards import make_deck
from arena.engine.game import Game
from arena.engine.hand import HandState
from arena.engine.options import make_rules
from arena.engine.playout import random_game
from arena.engine.record import FORMAT, game_record, hand_json, read_record, replay
from arena.errors import RecordError


def finished(variant: str, seed: int = 3, **options: Any) -> Game:
    """A finished random game."""
    return random_game(make_rules(variant, options), seed, random.Random(seed))


def through_json(data: dict[str, Any]) -> dict[str, Any]:
    """A JSON value as it comes back from text."""
    result: dict[str, Any] = json.loads(json.dumps(data))
    return result


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    """The record of a finished four-hand game with defending alone, as read back from JSON text."""
    return through_json(game_record(finished("four-hand", seed=5, defend_alone=True)))


# ---- round trip ----


@pytest.mark.parametrize(
    ("variant", "options"),
    [
        ("two-hand", {}),
        ("two-hand", {"rubber": True, "points_to_win": 3}),
        ("three-hand", {"stick_the_dealer": True}),
        ("four-hand", {"defend_alone": True}),
        ("four-hand", {"rubber": True, "points_to_win": 4, "dealer_exchange": "mandatory"}),
        ("four-hand-32", {}),
        ("british", {}),
    ],
)
def test_record_replays_to_itself_through_json_text(variant: str, options: dict[str, Any]) -> None:
    for seed in range(3):
        game = finished(variant, seed, **options)
        rec = through_json(game_record(game))
        again = replay(rec)
        assert game_record(again) == rec
        assert again.winners == game.winners and again.scores_after == game.scores_after


def test_record_holds_the_game_header_and_result(record: dict[str, Any]) -> None:
    assert record["format"] == FORMAT == "euchre-arena/game/1"
    assert record["variant"] == "four-hand" and record["seed"] == 5
    assert record["options"]["defend_alone"] is True and record["options"]["points_to_win"] == 10
    assert record["players"] == ["seat0", "seat1", "seat2", "seat3"]
    assert record["final_scores"] == record["hands"][-1]["result"]["scores_after"]
    assert max(record["final_scores"]) >= 10 and record["winners"] in ([0, 2], [1, 3])
    assert "rubber" not in record


def test_record_kitty_lists_the_undealt_cards_other_than_the_upcard() -> None:
    game = finished("british", 2)
    rec = game_record(game)
    deck = {str(c) for c in make_deck(25)}
    for hand, entry in zip(game.hands, rec["hands"], strict=True):
        deal = entry["deal"]
        dealt = {c for h in deal["hands"] for c in h}
        assert all(len(h) == 5 for h in deal["hands"])
        assert set(deal["kitty"]) == deck - dealt - {deal["upcard"]}
        assert len(deal["kitty"]) == 25 - 21
        assert deal["kitty"] == [str(c) for c in hand.deal.kitty]  # in the order they lie in the deck


def test_record_actions_carry_their_seat_in_order() -> None:
    game = finished("three-hand", 4)
    rec = game_record(game)
    for hand, entry in zip(game.hands, rec["hands"], strict=True):
        assert entry["actions"] == [{"seat": s, **a.to_json()} for s, a in hand.actions]
        assert entry["dealer"] == hand.dealer


def test_record_tricks_list_seat_and_card_in_play_order_and_lone_tricks_are_shorter() -> None:
    rules = make_rules("four-hand")
    game = Game(rules, 9)
    rng = random.Random(9)
    while not game.is_over():
        legal = game.legal_actions()
        lone = [a for a in legal if getattr(a, "alone", False)]
        game.apply(lone[0] if lone and rng.random() < 0.2 else rng.choice(legal))
    rec = game_record(game)
    sizes = set()
    for hand, entry in zip(game.hands, rec["hands"], strict=True):
        for trick, data in zip(hand.tricks, entry["result"]["tricks"], strict=True):
            assert data["cards"] == [{"seat": s, "card": str(c)} for s, c in trick.cards]
            assert data["leader"] == trick.cards[0][0] and data["winner"] == trick.winner
            sizes.add(len(data["cards"]))
            assert len(data["cards"]) == 4 - len(hand.out)
    assert sizes == {3, 4}


def test_rubber_record_lists_its_games_and_points() -> None:
    game = finished("two-hand", 1, rubber=True, points_to_win=3)
    rec = game_record(game)
    assert [g["winners"] for g in rec["rubber"]["games"]] == [list(g.winners) for g in game.games]
    assert rec["rubber"]["points"] == list(game.rubber_points())
    assert rec["rubber"]["game_points"] == list(game.rubber_game_points())
    assert rec["rubber"]["games"][-1]["last_hand"] == len(rec["hands"]) - 1


def test_unfinished_games_and_hands_have_no_record() -> None:
    game = Game(make_rules("two-hand"), 1)
    with pytest.raises(RecordError):
        game_record(game)
    with pytest.raises(RecordError):
        hand_json(game.hand, (0, 0))
    assert isinstance(game.hand, HandState)


# ---- tampering ----


def set_path(rec: dict[str, Any], path: tuple[Any, ...], value: Any) -> None:
    """Set a nested value of a record."""
    target: Any = rec
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value


def last_hand(rec: dict[str, Any]) -> dict[str, Any]:
    """The last hand of a record."""
    hand: dict[str, Any] = rec["hands"][-1]
    return hand


def first_played_hand(rec: dict[str, Any]) -> dict[str, Any]:
    """The first hand of a record that was not passed out."""
    return next(h for h in rec["hands"] if not h["result"]["passed_out"])


TAMPERS: dict[str, Callable[[dict[str, Any]], None]] = {
    "format": lambda r: set_path(r, ("format",), "euchre-arena/game/0"),
    "not a dict": lambda r: r.clear(),
    "seed": lambda r: set_path(r, ("seed",), r["seed"] + 1),
    "variant": lambda r: set_path(r, ("variant",), "two-hand"),
    "points to win": lambda r: set_path(r, ("options", "points_to_win"), r["options"]["points_to_win"] + 5),
    "deck": lambda r: set_path(r, ("options", "deck"), 32),
    "unknown option": lambda r: set_path(r, ("options", "jokers"), 2),
    "final score": lambda r: set_path(r, ("final_scores", 0), r["final_scores"][0] + 1),
    "winners": lambda r: set_path(r, ("winners",), [0, 1]),
    "points": lambda r: set_path(last_hand(r), ("result", "points", 0), 7),
    "scores after": lambda r: set_path(r["hands"][0], ("result", "scores_after", 1), 3),
    "maker": lambda r: set_path(first_played_hand(r), ("result", "maker"), None),
    "trick winner": lambda r: set_path(first_played_hand(r), ("result", "tricks", 0, "winner"), 9),
    "deal": lambda r: r["hands"][0]["deal"]["hands"][0].reverse(),
    "kitty": lambda r: r["hands"][0]["deal"]["kitty"].reverse(),
    "upcard": lambda r: set_path(r["hands"][0], ("deal", "upcard"), r["hands"][0]["deal"]["kitty"][0]),
    "dealer": lambda r: set_path(r["hands"][0], ("dealer",), (r["hands"][0]["dealer"] + 1) % 4),
    "action seat": lambda r: set_path(r["hands"][0], ("actions", 0, "seat"), (r["hands"][0]["dealer"] + 3) % 4),
    "action type": lambda r: set_path(
        r["hands"][0], ("actions", 0), {"seat": r["hands"][0]["actions"][0]["seat"], "type": "defend_alone"}
    ),
    "malformed action": lambda r: set_path(r["hands"][0], ("actions", 0, "type"), "shout"),
    "missing seat": lambda r: r["hands"][0]["actions"][0].pop("seat"),
    "action dropped": lambda r: r["hands"][0]["actions"].pop(),
    "action added": lambda r: r["hands"][0]["actions"].append(r["hands"][1]["actions"][0]),
    "last action dropped": lambda r: last_hand(r)["actions"].pop(),
    "hand dropped": lambda r: r["hands"].pop(),
    "hand added": lambda r: r["hands"].append(copy.deepcopy(r["hands"][0])),
    "hands missing": lambda r: r.pop("hands"),
    "hands not a list": lambda r: set_path(r, ("hands",), 5),
    "hand not an object": lambda r: set_path(r, ("hands", 0), [1, 2]),
}


@pytest.mark.parametrize("name", list(TAMPERS))
def test_tampered_record_raises_record_error(record: dict[str, Any], name: str) -> None:
    tampered = copy.deepcopy(record)
    TAMPERS[name](tampered)
    assert tampered != record
    with pytest.raises(RecordError):
        replay(tampered)


def test_a_record_that_is_not_an_object_raises_record_error() -> None:
    values: list[Any] = [None, [], "record", 5]
    for value in values:
        with pytest.raises(RecordError):
            replay(value)


def test_record_with_an_action_that_is_not_an_object_raises_record_error(record: dict[str, Any]) -> None:
    tampered = copy.deepcopy(record)
    tampered["hands"][0]["actions"][0] = "pass"
    with pytest.raises(RecordError):
        replay(tampered)


def test_record_with_the_wrong_number_of_players_raises_record_error(record: dict[str, Any]) -> None:
    tampered = copy.deepcopy(record)
    tampered["players"] = ["a", "b"]
    with pytest.raises(RecordError):
        replay(tampered)


def test_record_claiming_a_rubber_that_was_not_played_raises_record_error(record: dict[str, Any]) -> None:
    tampered = copy.deepcopy(record)
    tampered["rubber"] = {"games": [], "game_points": [3, 0, 3, 0], "points": [5, 0, 5, 0]}
    with pytest.raises(RecordError):
        replay(tampered)


def test_record_with_the_seed_as_text_raises_record_error(record: dict[str, Any]) -> None:
    tampered = copy.deepcopy(record)
    tampered["seed"] = str(tampered["seed"])
    with pytest.raises(RecordError):
        replay(tampered)


# ---- records written before the record had a type ----

OLD_RECORDS = ROOT / "tests" / "data" / "records-v1.jsonl"


def test_records_written_before_the_typed_record_are_still_read_by_every_reader(tmp_path: Path) -> None:
    """Six records written by `arena match --record` before GameRecord existed (two-, three-, four-hand with lone
    hands, a Benny rubber, a drawn game, a forfeit): they replay, read as accounts, rank, and round-trip through a
    store unchanged. The JSON format did not change; only its description did."""
    from arena.tournament.account import describe
    from arena.tournament.ranking import comparisons
    from arena.tournament.store import Store

    lines = OLD_RECORDS.read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert {r["variant"] for r in records} == {"two-hand", "three-hand", "four-hand", "british"}
    assert any("rubber" in r for r in records) and any("drawn" in r for r in records)
    assert any("forfeit" in r for r in records)
    with Store.open(tmp_path / "old.db") as store:
        for k, record in enumerate(records):
            replay(record)
            assert describe(record).startswith(f"Euchre, {record['variant']}, seed {record['seed']}")
            assert comparisons(record, f"c{k}")
            store.add_game(f"g{k}", "m", record)
        stored = [record for _, _, record in store.records()]
    assert stored == records


# ---- read_record: a record read from text is checked against the record's types ----


def _paths(value: Any, path: tuple[str | int, ...] = ()) -> list[tuple[tuple[str | int, ...], Any]]:
    """Every leaf of a JSON value with its path."""
    if isinstance(value, dict):
        return [leaf for key, item in value.items() for leaf in _paths(item, (*path, key))]
    if isinstance(value, list):
        return [leaf for index, item in enumerate(value) for leaf in _paths(item, (*path, index))]
    return [(path, value)]


@pytest.mark.parametrize("variant", ["two-hand", "three-hand", "four-hand", "british"])
def test_read_record_gives_back_what_game_record_wrote(variant: str) -> None:
    written = game_record(finished(variant, seed=9))
    assert read_record(json.dumps(written)) == through_json(dict(written))


@settings(max_examples=150, deadline=None)
@given(pick=st.integers(min_value=0), wrong=st.sampled_from([[], {}, "x", 1.5]))
def test_a_leaf_of_the_wrong_type_is_named_by_its_path(record: dict[str, Any], pick: int, wrong: Any) -> None:
    """Any field of a real record given a value of another JSON type (a list, an object, a string, a float) is
    refused, and the error names that field's path, as ``hands.0.result.points.1``."""
    leaves = [(path, value) for path, value in _paths(record) if path[0] != "options"]  # options: any value
    path, value = leaves[pick % len(leaves)]
    if type(value) is type(wrong) or (value is None) or (isinstance(value, int) and isinstance(wrong, float)):
        return  # the same type, a field that may be null, or a whole float where a number is: not a wrong value
    bad = copy.deepcopy(record)
    holder = bad
    for part in path[:-1]:
        holder = holder[part]
    holder[path[-1]] = wrong
    with pytest.raises(RecordError) as refused:
        read_record(json.dumps(bad))
    assert f"{'.'.join(map(str, path))}:" in str(refused.value)


def test_a_record_missing_a_part_names_it_and_text_that_is_not_json_says_so(record: dict[str, Any]) -> None:
    bad = copy.deepcopy(record)
    del bad["hands"][0]["deal"]["upcard"]
    with pytest.raises(RecordError, match=r"hands\.0\.deal\.upcard: Field required"):
        read_record(json.dumps(bad))
    with pytest.raises(RecordError, match="Invalid JSON"):
        read_record('{"format": ')
