"""Building a match from the command line's bots, and summarizing its results."""

from __future__ import annotations

import dataclasses
import shlex
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from tabulate import tabulate

from arena.engine.options import make_rules
from arena.engine.record import GameRecord
from arena.errors import ArenaError
from arena.play.botproc import BUNDLED, STDIO_PREFIX, BotCommand, resolve_bot
from arena.play.matchspec import DEFAULT_HANDSHAKE_TIMEOUT, DEFAULT_MAX_HANDS, GameSpec, MatchSpec

ENTRANT_HELP = (
    "A bot with settings is one shell-quoted argument: name=NAME and flag=RUNTIME_FLAG words first, then the bot, "
    "then its arguments, e.g. 'search --samples 4' or 'name=deep flag=-Xmx600m stdio:Bot.java --depth 3'"
)
_SETTINGS = ("name=", "flag=")


@dataclass(frozen=True, slots=True)
class BotWords:
    """A bot as the command line gives it: its name if given, the bot, its arguments and its runtime flags."""

    bot: str
    name: str | None = None
    args: tuple[str, ...] = ()
    runtime_flags: tuple[str, ...] = ()


def bot_words(text: str, *, known: Callable[[str], bool] = lambda _: False) -> BotWords:
    """A command-line bot: ``[name=NAME] [flag=FLAG]... BOT [ARG]...`` in shell words (``'search --samples 4'``);
    a text that is a bot as it stands (a file, a bundled name, one ``known`` names) is that bot alone, spaces and
    all. ArenaError for a text with no bot in it, or that shell words cannot split."""
    bare = text.removeprefix(STDIO_PREFIX)
    if text in BUNDLED or Path(bare).is_file() or known(text) or not text.strip():
        return BotWords(text)
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise ArenaError(f"bot {text!r}: {exc} ({ENTRANT_HELP})") from None
    name, flags = None, []
    while words and words[0].startswith(_SETTINGS):
        key, _, value = words.pop(0).partition("=")
        if not value:
            raise ArenaError(f"bot {text!r}: {key}= needs a value ({ENTRANT_HELP})")
        if key == "name":
            name = value
        else:
            flags.append(value)
    if not words:
        raise ArenaError(f"bot {text!r}: no bot after its settings ({ENTRANT_HELP})")
    return BotWords(words[0], name, tuple(words[1:]), tuple(flags))


def resolve_words(words: BotWords, lookup: Callable[[str], BotCommand | None] | None = None) -> BotCommand:
    """The command of a command-line bot: bundled name, else a name ``lookup`` knows, else a path; named and given
    its arguments and runtime flags."""
    spec = words.bot
    command = resolve_bot(spec) if spec in BUNDLED or lookup is None else (lookup(spec) or resolve_bot(spec))
    if words.args or words.runtime_flags:
        command = command.given(args=words.args, runtime_flags=words.runtime_flags)
    return command if words.name is None else dataclasses.replace(command, name=words.name)


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
    A bot is a bundled name, else a name ``lookup`` knows (the registry's), else a path, with its settings
    (``bot_words``).
    """
    rules = make_rules(variant, options)
    n = rules.players
    known = (lambda text: lookup(text) is not None) if lookup is not None else (lambda _: False)
    commands = [resolve_words(bot_words(b, known=known), lookup) for b in bots]
    counts, seen = Counter(c.name for c in commands), Counter[str]()
    names = []
    for command in commands:
        seen[command.name] += 1  # two bots of one name (copies, or one program with two settings): told apart
        names.append(f"{command.name}-{seen[command.name]}" if counts[command.name] > 1 else command.name)
    seatings = n
    if n == 4 and len(commands) == 2:  # two teams, each of two copies of one bot
        commands, names = commands * 2, names * 2
        seatings = 2  # one seat to the left: the teams change sides; two seats would only swap the copies
    elif len(commands) != n:
        raise ArenaError(f"{variant} needs {n} bots (or 2 teams in four-hand), got {len(bots)}")
    entries = [c.entry(name) for name, c in zip(names, commands, strict=True)]
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


class MatchSummary:
    """Each bot name's games, wins, points and violations, added up game by game: nothing of a game is kept, so a
    match of any length is summed in the same memory."""

    def __init__(self) -> None:
        self.rows: dict[str, list[float]] = {}
        self.games = 0

    def add(self, record: GameRecord) -> None:
        """Count one game's record."""
        self.games += 1
        players = record["players"]
        counted: set[str] = set()
        for seat, name in enumerate(players):
            row = self.rows.setdefault(name, [0, 0, 0, 0])
            if name in counted:
                continue
            counted.add(name)
            row[0] += 1
            row[1] += 1 if seat in record["winners"] or name in {players[w] for w in record["winners"]} else 0
            row[2] += record["final_scores"][seat]
        for violation in record.get("violations", []):
            self.rows[players[violation["seat"]]][3] += 1

    def table(self) -> str:
        """A table per bot name: games, wins, points, violations."""
        table = [
            [name, int(g), int(w), f"{100 * w / g:.1f}" if g else "-", int(p), int(v)]
            for name, (g, w, p, v) in sorted(self.rows.items(), key=lambda kv: -kv[1][1])
        ]
        return tabulate(table, headers=["bot", "games", "wins", "win %", "points", "violations"])
