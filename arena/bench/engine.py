"""Random-playout speed of the rules engine for every variant, beside OpenSpiel's euchre driven from Python."""

from __future__ import annotations

import random
import time
from typing import Any

from arena.engine.options import VARIANTS, make_rules
from arena.engine.playout import random_hand


def engine_hands_per_second(variant: str, seconds: float, seed: int = 0) -> float:
    """Random playout hands per second of our engine for one variant."""
    rules = make_rules(variant)
    rng = random.Random(seed)
    count, start = 0, time.perf_counter()
    while True:
        for _ in range(50):
            random_hand(rules, rng, count % rules.players)
            count += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return count / elapsed


def pyspiel_hands_per_second(seconds: float, seed: int = 0) -> float | None:
    """Random playout hands per second of pyspiel's euchre through its Python API, or None without open_spiel."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("euchre", {"stick_the_dealer": True, "allow_lone_defender": False})
    rng = random.Random(seed)
    count, start = 0, time.perf_counter()
    while True:
        for _ in range(50):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(rng.choice(state.chance_outcomes())[0])
                else:
                    state.apply_action(rng.choice(state.legal_actions()))
            count += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return count / elapsed


def run(seconds: float) -> dict[str, Any]:
    """Measure every variant and pyspiel (four-hand, interleaved rounds so machine noise hits both alike)."""
    ours: dict[str, float] = {v: engine_hands_per_second(v, seconds) for v in VARIANTS}
    rounds = 3
    mine, theirs = [], []
    for _ in range(rounds):
        mine.append(engine_hands_per_second("four-hand", seconds / rounds))
        spiel = pyspiel_hands_per_second(seconds / rounds)
        if spiel is not None:
            theirs.append(spiel)
    four = sum(mine) / rounds
    ours["four-hand"] = four
    result: dict[str, Any] = {"hands_per_second": ours, "pyspiel_four_hand": None, "ratio": None}
    if theirs:
        spiel_rate = sum(theirs) / len(theirs)
        result["pyspiel_four_hand"] = spiel_rate
        result["ratio"] = four / spiel_rate
    return result
