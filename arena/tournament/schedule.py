"""Round-robin and gauntlet schedules: which entrants meet, in which seats, over which deals, grouped into matches.

Each pairing plays a deal sequence of its own (seeds derived from the tournament seed and the pairing; ``deals =
"shared"``, the results files of older versions: one sequence for every pairing). With ``duplicate`` on, each deal
is played once per rotation of the seats, so every entrant (or team) holds every seat's cards once.

Fair play: the games are played in rounds (``round_of``), one rotation of every deal a round, and a run starts a
round only once every bot process of the round before has ended. No process of an entrant, nor any process it could
pass a note to, holds a seat of a deal while another holds another seat of it (SECURITY.md, duplicate deals).
"""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass

from arena.engine.options import Rules, make_rules
from arena.errors import ArenaError
from arena.play.botproc import BotCommand
from arena.play.matchspec import GameSpec, MatchSpec
from arena.tournament.config import TournamentConfig, bot_limits, partnership_problem


@dataclass(frozen=True, slots=True)
class Pairing:
    """One meeting of entrants: a key, the processes it needs (by slot) and the seatings (slot per seat) it uses."""

    key: str
    slots: tuple[str, ...]
    rotations: tuple[tuple[int, ...], ...]


@dataclass(frozen=True, slots=True)
class PlannedGame:
    """One game of the tournament, identified by a key that stays the same across resumed runs."""

    key: str
    pairing: str
    deal: int
    seed: int
    seating: tuple[int, ...]


def deal_seed(tournament_seed: int, deal: int, pairing: str | None = None) -> int:
    """The seed of the ``deal``-th deal of ``pairing`` (None: the sequence every pairing shared, ``deals =
    "shared"``). A pairing's own deals keep an entrant that plays two pairings at once from holding one deal in two
    seats (its copies could tell each other the cards)."""
    scope = "" if pairing is None else f"/pairing/{pairing}"
    digest = hashlib.sha256(f"euchre-arena/tournament/{tournament_seed}{scope}/deal/{deal}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


def cyclic(players: int) -> tuple[tuple[int, ...], ...]:
    """Every rotation of a table: in rotation ``r`` seat ``s`` holds the slot of seat ``s - r``, so over the
    rotations of a deal each slot holds every seat's cards once."""
    return tuple(tuple((s - r) % players for s in range(players)) for r in range(players))


def pairings_for(names: list[str], rules: Rules, partnership: str) -> list[Pairing]:
    """Pairings of ``names`` for a table of ``rules.players`` seats (docs/config.md, "Seating").

    Two seats: each pair of entrants, both seatings. Each for himself at three seats or more (three-hand, Nap,
    call-partner): every set of as many entrants as seats, in every rotation; fewer entrants than seats fill the
    table with copies, in turn. Teams (four-hand, six-hand): ``self``, each set of as many entrants as sides, each
    entrant's copies one side; ``mixed``, every set of as many entrants as seats split every way into teams; the
    teams change seats by one place a rotation (every side's seats held by every team).
    """
    players = rules.players
    if players == 2:
        return [Pairing(f"{a}|{b}", (a, b), ((0, 1), (1, 0))) for a, b in itertools.combinations(names, 2)]
    if not rules.partnerships:
        if len(names) < players:  # copies, in turn, fill the table
            slots = tuple(names[s % len(names)] for s in range(players))
            return [Pairing("|".join(slots), slots, cyclic(players))]
        return [Pairing("|".join(group), group, cyclic(players)) for group in itertools.combinations(names, players)]
    if players != 4:
        return _team_pairings(names, rules, partnership)
    swap = (3, 0, 1, 2)  # everyone one seat to the left: the teams change sides
    if partnership == "self":
        return [Pairing(f"{a}|{b}", (a, b, a, b), ((0, 1, 2, 3), swap)) for a, b in itertools.combinations(names, 2)]
    result = []
    for four in itertools.combinations(names, 4):
        a, b, c, d = four
        for (p, q), (r, s) in (((a, b), (c, d)), ((a, c), (b, d)), ((a, d), (b, c))):
            result.append(Pairing(f"{p}+{q}|{r}+{s}", (p, r, q, s), ((0, 1, 2, 3), swap)))
    return result


def _team_pairings(names: list[str], rules: Rules, partnership: str) -> list[Pairing]:
    """Six-hand's teams: two of three (seats 0, 2, 4 against 1, 3, 5) or three of two (0 and 3, 1 and 4, 2 and 5)."""
    players, sides = rules.players, rules.sides
    size = players // sides
    rotations = cyclic(players)[: 2 if sides == 2 else sides]  # one place on: each team on the other sides' seats
    if partnership == "self":
        return [
            Pairing("|".join(group), tuple(group[rules.side_of(s)] for s in range(players)), rotations)
            for group in itertools.combinations(names, sides)
        ]
    result = []
    for group in itertools.combinations(names, players):
        for teams in _splits(group, size):
            slots = tuple(teams[rules.side_of(s)][s // sides] for s in range(players))
            result.append(Pairing("|".join("+".join(team) for team in teams), slots, rotations))
    return result


def _splits(group: tuple[str, ...], size: int) -> list[tuple[tuple[str, ...], ...]]:
    """Every way of splitting ``group`` into unordered teams of ``size`` (each team in the group's order, the
    teams ordered by their first member)."""
    if not group:
        return [()]
    first, rest = group[0], group[1:]
    return [
        ((first, *mates), *others)
        for mates in itertools.combinations(rest, size - 1)
        for others in _splits(tuple(n for n in rest if n not in mates), size)
    ]


def scheduled_pairings(config: TournamentConfig, names: list[str]) -> list[Pairing]:
    """The pairings a tournament plays: every one (round-robin), or those of the candidate (gauntlet).

    ``names`` are the entrants' resolved names, in the order of ``config.entrants`` (the candidate is found by its
    place there, as it may be written as a path).
    """
    rules = make_rules(config.variant, config.options)
    if (problem := partnership_problem(config)) is not None:
        raise ArenaError(problem)
    pairings = pairings_for(names, rules, config.partnership)
    if config.format != "gauntlet" or config.candidate is None:
        return pairings
    candidate = names[config.entrant_keys().index(config.candidate)]
    return [p for p in pairings if candidate in p.slots]


def pairing_of(game_key: str) -> str:
    """The pairing a game key names (a key is ``PAIRING/deal/rotation``, made in ``plan_games``)."""
    return game_key.split("/", 1)[0]


def round_of(game_key: str, duplicate: bool) -> int:
    """The round a game is played in: its rotation when deals are duplicated (a round holds one rotation of every
    deal), else 0 (each deal is played once)."""
    return int(game_key.rsplit("/", 1)[1]) if duplicate else 0


def plan_games(config: TournamentConfig, pairing: Pairing) -> list[PlannedGame]:
    """The games of one pairing: every deal in every rotation (duplicate), or one rotation per deal in turn."""
    if config.seed is None:
        raise ArenaError("the tournament's seed is not settled: run_tournament draws one or reads its results file's")
    games = []
    for deal in range(config.games_per_pairing):
        seed = deal_seed(config.seed, deal, pairing.key if config.deals == "pairing" else None)
        rotations = (
            enumerate(pairing.rotations)
            if config.duplicate
            else [(deal % len(pairing.rotations), pairing.rotations[deal % len(pairing.rotations)])]
        )
        for r, seating in rotations:
            games.append(PlannedGame(f"{pairing.key}/{deal}/{r}", pairing.key, deal, seed, seating))
    return games


def plan_matches(
    config: TournamentConfig,
    commands: dict[str, BotCommand],
    *,
    done: set[str],
    log_dir: str,
) -> list[tuple[MatchSpec, list[str]]]:
    """Matches still to play (skipping games in ``done``), each with the keys of its games in order.

    A match holds games of one pairing in one seat rotation, at most ``games_per_match`` of them. The rotations of a
    deal are never played by the same bot processes: a bot that remembered its cards in one rotation would otherwise
    meet them in an opponent's hand in the next (duplicate deals are only fair between fresh processes).
    """
    matches: list[tuple[MatchSpec, list[str]]] = []
    for pairing in scheduled_pairings(config, list(commands)):
        todo = [g for g in plan_games(config, pairing) if g.key not in done]
        matches += pairing_matches(config, commands, pairing, todo, log_dir=log_dir)
    return matches


def pairing_matches(
    config: TournamentConfig,
    commands: dict[str, BotCommand],
    pairing: Pairing,
    todo: list[PlannedGame],
    *,
    log_dir: str,
) -> list[tuple[MatchSpec, list[str]]]:
    """The matches that play ``todo`` (games of one pairing): one seat rotation each, ``games_per_match`` at most."""
    matches: list[tuple[MatchSpec, list[str]]] = []
    by_rotation: dict[tuple[int, ...], list[PlannedGame]] = {}
    for game in todo:
        by_rotation.setdefault(game.seating, []).append(game)
    for games in by_rotation.values():
        for start in range(0, len(games), config.games_per_match):
            chunk = games[start : start + config.games_per_match]
            keys = [g.key for g in chunk]
            matches.append((_spec(config, commands, pairing, chunk, match_name(keys), log_dir), keys))
    return matches


def match_name(keys: list[str]) -> str:
    """The id of the match that plays the games ``keys`` (consecutive deals of one pairing in one rotation):
    ``PAIRING_rROTATION_FIRST-LAST``, the pairing's ``|`` written ``-``."""
    pairing, first, rotation = keys[0].split("/")
    last = keys[-1].split("/")[1]
    return f"{pairing}/r{rotation}/{first}-{last}".replace("|", "-").replace("/", "_")


def _spec(
    config: TournamentConfig,
    commands: dict[str, BotCommand],
    pairing: Pairing,
    chunk: list[PlannedGame],
    match_id: str,
    log_dir: str,
) -> MatchSpec:
    return MatchSpec(
        match_id=match_id,
        variant=config.variant,
        options=config.options,
        bots=[commands[name].entry(name) for name in pairing.slots],
        games=[GameSpec(seed=g.seed, seating=list(g.seating)) for g in chunk],
        time=config.time,
        max_decision=config.max_decision,
        handshake_timeout=config.handshake_timeout,
        policy=config.policy,
        max_strikes=config.max_strikes,
        max_hands=config.max_hands,
        log_dir=log_dir,
        limits=bot_limits(config.limits),
        trusted_bots=config.trusted_bots,
    )
