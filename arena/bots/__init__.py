"""The bundled bots (``random``, ``heuristic``, ``search``): SDK bots, each a script the referee runs as a process.

They live inside the package so that an installed arena (a wheel) carries them; ``arena.play.botproc.resolve_bot``
finds them by name. Each module is also importable (``from arena.bots.heuristic_bot import HeuristicBot``) for
tests and for bots built on them.
"""
