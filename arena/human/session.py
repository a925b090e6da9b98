"""Games between a person and bots: the bots are seated as in a match, the person's seat is played in this process.

The referee runs the bots (one per other seat) as processes with their clocks, limits and violations, exactly as in
``arena match``; :class:`~arena.human.seats.SplitSeats` puts the person's seat beside them. Each finished game's
record is a complete game record, the person's seat named ``human``.
"""

from __future__ import annotations

import contextlib
import uuid
from collections import Counter
from collections.abc import Callable, Mapping, Sequence

from arena.engine.game import Game
from arena.engine.options import make_rules
from arena.engine.record import BotJSON, GameRecord
from arena.errors import ArenaError
from arena.human.player import HUMAN
from arena.human.seats import SplitSeats
from arena.play.botproc import BotCommand
from arena.play.lineup import bot_words, resolve_words
from arena.play.local import Handler, LocalSeats
from arena.play.matchspec import BotEntry, MatchSpec
from arena.play.referee import Referee
from arena.play.runner import play
from arena.text import printable


def bot_entries(
    bots: Sequence[str],
    *,
    variant: str,
    options: Mapping[str, object],
    seat: int,
    lookup: Callable[[str], BotCommand | None] | None = None,
) -> list[BotEntry]:
    """The bots of the seats other than ``seat``, in seat order: one bot per seat, or one bot copied into each.

    A bot is a bundled name, else a name ``lookup`` knows (the registry's), else a path; copies get ``-1``, ``-2``...
    """
    players = make_rules(variant, dict(options)).players
    if not 0 <= seat < players:
        raise ArenaError(f"{variant} has seats 0 to {players - 1}: there is no seat {seat}")
    if len(bots) == 1:
        bots = list(bots) * (players - 1)
    elif len(bots) != players - 1:
        raise ArenaError(f"{variant} needs {players - 1} bots beside you (one per other seat), or one for all of them")
    known = (lambda text: lookup(text) is not None) if lookup is not None else (lambda _: False)
    commands = [resolve_words(bot_words(b, known=known), lookup) for b in bots]
    counts, seen = Counter(c.name for c in commands), Counter[str]()
    entries = []
    for command in commands:
        seen[command.name] += 1
        name = f"{command.name}-{seen[command.name]}" if counts[command.name] > 1 else command.name
        name = f"{name}-bot" if name == HUMAN else name  # the person's seat alone is named human
        entries.append(command.entry(name))
    return entries


def human_match(entries: list[BotEntry], **fields: object) -> MatchSpec:
    """The referee's part of the games: its bots (the seats other than the person's), clock, policy and limits.

    Its list of games stays empty: the games are played by :func:`play_games`, which seats the person too.
    """
    return MatchSpec.from_json({"match_id": uuid.uuid4().hex[:12], "bots": entries, "games": [], **fields})


def play_games(
    spec: MatchSpec,
    person: Handler,
    *,
    seat: int,
    seed: int,
    games: int,
    on_game: Callable[[GameRecord], None],
) -> list[GameRecord]:
    """Play ``games`` games (deal seeds ``seed, seed+1, ...``) with ``person`` in ``seat`` and the spec's bots in the
    other seats in order; each record goes to ``on_game`` as soon as its game ends.

    ``person`` takes the seat's messages and returns the reply to each request (an SDK bot's ``handle``).
    """
    rules = make_rules(spec.variant, spec.options)
    others = [s for s in range(rules.players) if s != seat]
    names = [HUMAN if s == seat else spec.bots[others.index(s)].name for s in range(rules.players)]
    local = LocalSeats([person])
    records: list[GameRecord] = []
    with contextlib.closing(Referee(spec)) as referee:
        failures = referee.start()
        seating = list(range(len(others)))
        for index in range(games):
            failures += referee.begin_game(seating, relaunch=index > 0)
            for b, violation in failures:
                referee.report(b, violation)
            failures = []
            traffic = [(e.bytes_out, e.bytes_in) for e in referee.endpoints]
            outcome = play(
                Game(rules, seed + index, names),
                SplitSeats(seat, rules.players, local, referee),
                game_index=index,
                time_control=referee.time_control,
                policy=spec.policy,
                request_ids=referee.request_ids,
                max_hands=spec.max_hands,
            )
            record = outcome.record
            sent = [
                [e.bytes_out - out, e.bytes_in - into]
                for e, (out, into) in zip(referee.endpoints, traffic, strict=True)
            ]
            record["timing"]["bytes"] = [[0, 0] if s == seat else sent[others.index(s)] for s in range(rules.players)]
            record["match_id"] = spec.match_id
            record["game_index"] = index
            record["bots"] = [_bot_json(referee, local, s, others) for s in range(rules.players)]
            records.append(record)
            on_game(record)
    return records


def _bot_json(referee: Referee, local: LocalSeats, seat: int, others: list[int]) -> BotJSON:
    if seat not in others:
        return {"seat": seat, "name": HUMAN, "hello": None, "version": None, "strikes": local.strikes[0]}
    b = others.index(seat)
    hello = referee.hello[b]
    return {
        "seat": seat,
        "name": referee.spec.bots[b].name,
        "hello": None if hello is None else printable(hello.name),
        "version": None if hello is None or hello.version is None else printable(hello.version),
        "strikes": referee.strikes[b],
    }
