"""Random-playout speed of the rules engine for every variant, beside OpenSpiel's euchre driven from Python.

Both sides are timed by the CPU time of this process (``time.process_time``), not the wall clock: both are single
threaded, so on a quiet machine the two are the same, and on a shared one the time the scheduler gives to other
processes is counted against neither side.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Mapping
from typing import TypedDict

from arena.engine.options import VARIANTS, OptionValue, make_rules
from arena.engine.playout import random_hand

# pyspiel's euchre as the bench loads it (OpenSpiel's defaults), and our options for the same game (docs/openspiel.md):
# four-hand measured beside pyspiel plays under these.
PYSPIEL_PARAMS: dict[str, bool] = {"stick_the_dealer": True, "allow_lone_defender": False}
OPENSPIEL_RULES: dict[str, OptionValue] = {"stick_the_dealer": True, "dealer_exchange": "mandatory"}
ROUNDS = 9  # rounds of four-hand beside pyspiel; odd, so that one round is the median


def engine_hands_per_second(
    variant: str, seconds: float, seed: int = 0, *, overrides: Mapping[str, OptionValue] | None = None
) -> float:
    """Random playout hands per second of our engine for one variant (with rule option ``overrides``)."""
    rules = make_rules(variant, overrides)
    rng = random.Random(seed)
    count, start = 0, time.process_time()
    while True:
        for _ in range(50):
            random_hand(rules, rng, count % rules.players)
            count += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return count / elapsed


def pyspiel_hands_per_second(seconds: float, seed: int = 0) -> float | None:
    """Random playout hands per second of pyspiel's euchre through its Python API, or None without open_spiel."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("euchre", PYSPIEL_PARAMS)
    rng = random.Random(seed)
    count, start = 0, time.process_time()
    while True:
        for _ in range(50):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(rng.choice(state.chance_outcomes())[0])
                else:
                    state.apply_action(rng.choice(state.legal_actions()))
            count += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return count / elapsed


class EngineBench(TypedDict):
    """What ``arena bench engine --json`` prints: each variant's hands per second (four-hand's under pyspiel's
    rules, once pyspiel was measured), pyspiel's, their ratio, each round's, and the load average before the run."""

    hands_per_second: dict[str, float]
    pyspiel_four_hand: float | None
    ratio: float | None
    round_ratios: list[float]
    load_average: float | None


def run(seconds: float) -> EngineBench:
    """Measure every variant, then four-hand under pyspiel's rules beside pyspiel, in ``ROUNDS`` rounds that each time
    both sides back to back (so that a change in the machine's load hits both alike); the median round is reported,
    with every round's ratio and the load average (the 1-minute figure before the run)."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    ours: dict[str, float] = {v: engine_hands_per_second(v, seconds) for v in VARIANTS}
    result: EngineBench = {
        "hands_per_second": ours,
        "pyspiel_four_hand": None,
        "ratio": None,
        "round_ratios": [],
        "load_average": load,
    }
    pairs: list[tuple[float, float]] = []
    for _ in range(ROUNDS):
        mine = engine_hands_per_second("four-hand", seconds / 5, overrides=OPENSPIEL_RULES)
        spiel = pyspiel_hands_per_second(seconds / 5)
        if spiel is None:
            return result
        pairs.append((mine, spiel))
    result["round_ratios"] = [round(m / s, 3) for m, s in pairs]  # in the order measured
    mine, spiel = sorted(pairs, key=lambda pair: pair[0] / pair[1])[len(pairs) // 2]
    ours["four-hand"] = mine
    result["pyspiel_four_hand"] = spiel
    result["ratio"] = mine / spiel
    return result
