"""The referee's own limits: a game that never ends (everyone passes forever) is drawn at max_hands."""

from __future__ import annotations

import math
import resource

import pytest
from configs import match_spec

from arena.engine.game import Game
from arena.engine.options import make_rules
from arena.engine.record import game_record, replay
from arena.play import linux, referee
from arena.play.local import play_game
from arena.play.matchspec import MIN_OPEN_FILES, BotEntry
from arena.play.runner import Message
from arena.tournament.ranking import comparisons

INF = resource.RLIM_INFINITY


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


@pytest.mark.parametrize(
    ("bots", "referees", "have", "open_files"),
    [
        (2, 1, 1_048_576, 256),
        (2, 1, math.inf, 256),  # unlimited
        (2, 1, 20_000, 148),
        (4, 1, 20_000, 74),
        (2, 2, 20_000, 74),  # a serving referee: the match playing and the next one's
        (4, 1, 8_192, 28),
        (4, 1, 1_024, 16),
    ],
)
def test_bots_descriptors_are_fitted_to_what_the_referee_may_hold(
    monkeypatch: pytest.MonkeyPatch, bots: int, referees: int, have: float, open_files: int
) -> None:
    """Every process of every bot of every match the process holds, at its open_files, fits beside the referee's
    own headroom (floor: 16)."""
    asked: list[int] = []
    monkeypatch.setattr(referee, "raise_open_files", lambda needed: asked.append(needed) or have)
    entrants = [BotEntry(name=f"b{k}", argv=["x"]) for k in range(bots)]
    spec = match_spec(entrants)
    limits = referee.fitted_limits(spec, referees)
    assert asked == [referees * bots * 64 * 256 + referee.DESCRIPTOR_HEADROOM]
    assert limits.open_files == open_files
    assert limits.replace(open_files=256) == spec.limits  # nothing else changes
    fits = referees * bots * limits.processes * limits.open_files + referee.DESCRIPTOR_HEADROOM <= have
    assert fits or open_files == MIN_OPEN_FILES


def test_stdio_bots_open_no_connection_and_keep_their_descriptors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(referee, "raise_open_files", lambda needed: 2_048)
    entrants = [BotEntry(name="a", argv=["x"], transport="stdio"), BotEntry(name="b", argv=["x"])]
    spec = match_spec(entrants)
    assert referee.fitted_limits(spec).open_files == (2_048 - referee.DESCRIPTOR_HEADROOM) // 64  # b's alone
    both = [entrants[0], BotEntry(name="c", argv=["x"], transport="stdio")]
    assert referee.fitted_limits(spec.replace(bots=both)) == spec.limits


@pytest.mark.parametrize(
    ("soft", "hard", "may_raise_hard", "needed", "got"),
    [
        (1_024, INF, False, 50_000, 50_000),  # an unlimited hard limit stays unlimited
        (INF, INF, False, 50_000, math.inf),  # nothing to raise
        (1_024, 4_096, False, 50_000, 4_096),  # as far as the hard limit
        (1_024, 4_096, True, 50_000, 50_000),  # past it (CAP_SYS_RESOURCE)
        (60_000, 60_000, False, 50_000, 60_000),  # never lowered
    ],
)
def test_the_descriptor_limit_is_raised_as_far_as_it_may_and_never_lowered(
    monkeypatch: pytest.MonkeyPatch, soft: int, hard: int, may_raise_hard: bool, needed: int, got: float
) -> None:
    limit = [soft, hard]

    def setrlimit(_: int, wanted: tuple[int, int]) -> None:
        if wanted[1] != INF and (limit[1] == INF or wanted[1] > limit[1]) and not may_raise_hard:
            raise ValueError("not allowed to raise maximum limit")
        limit[:] = wanted

    monkeypatch.setattr(linux.resource, "getrlimit", lambda _: tuple(limit))
    monkeypatch.setattr(linux.resource, "setrlimit", setrlimit)
    assert linux.raise_open_files(needed) == got
    assert limit[1] == hard or may_raise_hard
