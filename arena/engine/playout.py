"""Random legal playouts: the engine's own driver for tests and benchmarks."""

from __future__ import annotations

import random

from arena.engine.game import AnyHand, Game, new_hand
from arena.engine.options import Rules


def random_hand(rules: Rules, rng: random.Random, dealer: int = 0) -> AnyHand:
    """Deal one hand from ``rng`` and play it to the end with uniformly random legal actions."""
    hand = new_hand(rules, dealer, rng)
    while not hand.is_over():
        hand.apply(rng.choice(hand.legal_actions()))
    return hand


def random_game(rules: Rules, seed: int, rng: random.Random) -> Game:
    """Play a whole game seeded ``seed`` with random legal actions drawn from ``rng``."""
    game = Game(rules, seed)
    while not game.is_over():
        game.apply(rng.choice(game.legal_actions()))
    return game
