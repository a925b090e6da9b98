"""The referee's own limits: a game that never ends (everyone passes forever) is drawn at max_hands."""

from __future__ import annotations

from arena.engine.game import Game
from arena.engine.options import make_rules
from arena.engine.record import game_record, replay
from arena.play.local import play_game
from arena.play.runner import Message
from arena.tournament.ranking import comparisons


def always_pass(message: Message) -> Message | None:
    if message["type"] != "act":
        return None
    choice = next((a for a in message["legal"] if a["type"] == "pass"), message["legal"][0])
    return {"type": "action", "request_id": message["request_id"], "action": choice}


def test_bots_that_always_pass_get_a_drawn_game_at_the_hand_limit() -> None:
    from arena.play.local import LocalSeats
    from arena.play.runner import play

    game = Game(make_rules("four-hand"), 3)
    outcome = play(game, LocalSeats([always_pass] * 4), game_index=0, time_control=None, max_hands=25)
    record = outcome.record
    assert record["drawn"] == {"hand_number": 25}
    assert record["winners"] == [] and len(record["hands"]) == 25
    assert all(h["result"]["passed_out"] for h in record["hands"])
    replayed = replay(record)
    assert replayed.drawn and game_record(replayed)["drawn"] == record["drawn"]
    (comparison,) = comparisons(record, "c")
    assert comparison.draw


def test_the_hand_limit_does_not_touch_normal_games() -> None:
    record = play_game([always_pass] * 2, "two-hand", {"stick_the_dealer": True}, seed=1)
    assert "drawn" not in record and record["winners"]
