"""An offence ends the game at once (protocol.md section 11, forfeit policy): whatever the referee was doing.

A bot that sends a frame it was not asked for, while the other bot is being asked, loses the game when the frame is
read; the answer the other bot gives meanwhile is not applied. Real referee, real bots (tests/bots/probe.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from probing import match, probe

from arena.play.referee import run_match

# A hang fails the test instead of stalling the suite (pytest-timeout).
pytestmark = pytest.mark.timeout(60)


def test_a_frame_sent_unasked_while_another_bot_is_asked_ends_the_game_before_that_bots_answer(tmp_path: Path) -> None:
    signal = tmp_path / "unasked"
    bots = [probe("patient", "--hold", signal), probe("chatty", "--unasked-on-lead", signal)]
    spec = match(tmp_path, bots, [(0, [0, 1]), (0, [1, 0])], variant="two-hand")
    first, second = run_match(spec)
    assert [(v["seat"], v["kind"]) for v in first["violations"]] == [(1, "unsolicited")]
    assert first["forfeit"]["seat"] == 1 and first["forfeit"]["kind"] == "unsolicited"
    assert first["winners"] == [0]
    unfinished = first["forfeit"]["actions"]
    assert unfinished and unfinished[-1]["seat"] == 1 and unfinished[-1]["type"] == "play"  # chatty's lead, last
    assert second["violations"] == [] and "forfeit" not in second
