"""The rules engine: cards, rule options, actions, a hand and a game, scoring, what a seat may know, game
records. Pure and synchronous: no I/O, no logging, no global randomness.
"""
