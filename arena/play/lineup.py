"""Building a match from the command line's bots, and summarizing its results."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable
from typing import Any, Literal

from tabulate import tabulate

from arena.engine.options import make_rules
from arena.engine.record import GameRecord
from arena.errors import ArenaError
from arena.play.botproc import BUNDLED, BotCommand, resolve_bot
from arena.play.matchspec import DEFAULT_HANDSHAKE_TIMEOUT, DEFAULT_MAX_HANDS, BotEntry, GameSpec, MatchSpec


def build_match(
    bots: list[str],
    *,
    variant: str,
    options: dict[str, Any],
    games: int,
    seed: int,
    time: str,
    max_decision: float,
    policy: Literal["forfeit", "substitute"],
    max_strikes: int,
    log_dir: str,
    max_hands: int = DEFAULT_MAX_HANDS,
    handshake_timeout: float = DEFAULT_HANDSHAKE_TIMEOUT,
    lookup: Callable[[str], BotCommand | None] | None = None,
) -> MatchSpec:
    """A match of ``games`` games: deal seeds ``seed, seed+1, ...``, each dealt once per distinct seating.

    ``n`` different bots play each deal in all ``n`` rotations of the seats. Two teams of copies in four-hand play
    each deal twice, the first team in seats 0 and 2, then the second: the other two rotations would only swap copies
    of one bot, and so repeat a game exactly. ``games`` counts games, not deals (an odd count ends on a half deal).
    A bot is a bundled name, else a name ``lookup`` knows (the registry's), else a path.
    """
    rules = make_rules(variant, options)
    n = rules.players
    commands = [resolve_bot(b) if b in BUNDLED or lookup is None else (lookup(b) or resolve_bot(b)) for b in bots]
    counts, seen = Counter(bots), Counter[str]()
    names = []
    for spec, command in zip(bots, commands, strict=True):
        seen[spec] += 1  # the same bot named twice: tell the copies apart
        names.append(f"{command.name}-{seen[spec]}" if counts[spec] > 1 else command.name)
    seatings = n
    if n == 4 and len(commands) == 2:  # two teams, each of two copies of one bot
        commands, names = commands * 2, names * 2
        seatings = 2  # one seat to the left: the teams change sides; two seats would only swap the copies
    elif len(commands) != n:
        raise ArenaError(f"{variant} needs {n} bots (or 2 teams in four-hand), got {len(bots)}")
    entries = [
        BotEntry(name=name, argv=list(c.argv), transport=c.transport) for name, c in zip(names, commands, strict=True)
    ]
    schedule = [
        GameSpec(seed=seed + k // seatings, seating=[(seat - k % seatings) % n for seat in range(n)])
        for k in range(games)
    ]
    return MatchSpec(
        match_id=uuid.uuid4().hex[:12],
        variant=variant,
        options=options,
        bots=entries,
        games=schedule,
        time=time,
        max_decision=max_decision,
        policy=policy,
        max_strikes=max_strikes,
        max_hands=max_hands,
        handshake_timeout=handshake_timeout,
        log_dir=log_dir,
    )


def summarize(records: list[GameRecord]) -> str:
    """A table per bot name: games, wins, points, violations."""
    rows: dict[str, list[float]] = {}
    for record in records:
        players = record["players"]
        counted: set[str] = set()
        for seat, name in enumerate(players):
            row = rows.setdefault(name, [0, 0, 0, 0])
            if name in counted:
                continue
            counted.add(name)
            row[0] += 1
            row[1] += 1 if seat in record["winners"] or name in {players[w] for w in record["winners"]} else 0
            row[2] += record["final_scores"][seat]
        for violation in record.get("violations", []):
            rows[players[violation["seat"]]][3] += 1
    table = [
        [name, int(g), int(w), f"{100 * w / g:.1f}" if g else "-", int(p), int(v)]
        for name, (g, w, p, v) in sorted(rows.items(), key=lambda kv: -kv[1][1])
    ]
    return tabulate(table, headers=["bot", "games", "wins", "win %", "points", "violations"])
