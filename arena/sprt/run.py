"""Runs an SPRT: NEW against BASE on duplicate deals, pair by pair, until the test decides or the cap is reached.

It is a tournament of one pairing with no fixed end, on the tournament machinery: the schedule's games and
matches (each deal in both seatings, each seating in its own bot processes), the executor, and the store, which
keeps every game under a key that stays the same across runs. Deals are handed out in order, a block of
``games_per_match`` deals at a time (one match per seating). A pair counts once both of its games are stored.

Resuming is the same command: the stored games are replayed in the order they were stored, the test is checked
after each completed pair exactly as the live run checked it, and play goes on with the games still missing, so
no game is played twice and an interrupted test ends as an unbroken one would.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from arena.engine.options import make_rules
from arena.engine.record import GameRecord
from arena.play.botproc import BotCommand
from arena.play.cpus import idlest
from arena.play.matchspec import MatchSpec
from arena.play.sandbox import require_isolation
from arena.sprt.stats import Estimate, Pentanomial, Sprt, SprtError, Verdict, estimate
from arena.tournament.binding import (
    SPRT,
    Settings,
    claim,
    entrant_digests,
    entrants_changed,
    held,
    save,
    stored_entrants,
    stored_seed,
    stored_settings,
)
from arena.tournament.config import FREE, TournamentConfig
from arena.tournament.executor import Executor, LocalExecutor
from arena.tournament.pool import GameFinished, MatchEnded, MatchPool, Shared, SlotFailed
from arena.tournament.ranking import cluster_of
from arena.tournament.run import give_up_after, in_rounds, record_failure
from arena.tournament.schedule import Pairing, PlannedGame, pairing_matches, pairings_for, plan_games
from arena.tournament.store import Store


def name_sides(new: BotCommand, base: BotCommand) -> tuple[BotCommand, BotCommand]:
    """NEW and BASE under names that tell them apart (``random-new`` and ``random-base`` when both are ``random``)."""
    if new.name != base.name:
        return new, base
    return dataclasses.replace(new, name=f"{new.name}-new"), dataclasses.replace(base, name=f"{base.name}-base")


def sprt_pairing(config: TournamentConfig, new: str, base: str) -> tuple[Pairing, dict[str, str]]:
    """The pairing NEW plays BASE in, and the extra process names it needs (name -> whose copy it is).

    Two-hand: the two bots, each deal in both seatings. Four-hand ``self``: a team of two NEW against two BASE, the
    teams changing sides. Four-hand ``mixed``: NEW partnered with a copy of BASE (``BASE-partner``) against two BASE,
    the teams changing sides, so that NEW's side holds each deal's both hands. Six-hand ``self``: teams of
    three NEW against three BASE, likewise. Refused: games each for himself at three seats or more (three-hand, Nap,
    call-partner), whose deals have as many seatings as seats and need other players beside NEW and BASE, so their
    results do not come in pairs; six-hand's three teams (three seatings a deal); six-hand ``mixed``.
    """
    rules = make_rules(config.variant, config.options)
    players = rules.players
    if players > 2 and not rules.partnerships:
        table = "three-hand" if config.variant == "three-hand" else f"{config.variant} with {players} players"
        raise SprtError(
            f"{table} is not supported: each for himself, a deal has {players} seatings, not two, and NEW against "
            "BASE needs other players, so its results do not come in the pairs the pentanomial model counts (use a "
            "gauntlet)"
        )
    if rules.sides != 2:
        raise SprtError(
            f"{config.variant} is not supported: three teams give a deal three seatings, not the two of a pair (use "
            "a gauntlet)"
        )
    if players == 6 and config.partnership == "mixed":
        raise SprtError(
            f'{config.variant} with partnership = "mixed" is not supported: set partnership = "self" (teams of '
            "copies, for bots you trust) or use a gauntlet"
        )
    if players == 4 and config.partnership == "mixed":
        partner = f"{base}-partner"
        swap = (3, 0, 1, 2)
        return Pairing(f"{new}+{partner}|{base}+{base}", (new, base, partner, base), ((0, 1, 2, 3), swap)), {
            partner: base
        }
    return pairings_for([new, base], rules, "self")[0], {}


def new_points(record: GameRecord, new: str) -> float:
    """NEW's score in one game: 1 if its side won, 0.5 if the game was drawn (the hand limit), else 0."""
    winners = record["winners"]
    if not winners:
        return 0.5
    return 1.0 if any(record["players"][seat] == new for seat in winners) else 0.0


@dataclass
class SprtState:
    """The test as it stands: pair counts, LLR, verdict, and what a display shows."""

    test: Sprt
    counts: Pentanomial = field(default_factory=Pentanomial)
    llr: float = 0.0
    verdict: Verdict | None = None
    games: int = 0  # games stored, whether or not their pair is complete
    started: float = field(default_factory=time.monotonic)
    played_now: int = 0
    errors: list[str] = field(default_factory=list)

    @property
    def estimate(self) -> Estimate:
        """NEW's Elo over BASE from the pairs so far."""
        return estimate(self.counts)


class PairBook:
    """Game results by deal; a pair is complete once every seating of its deal is in."""

    def __init__(self, new: str, seatings: int) -> None:
        self.new, self.seatings = new, seatings
        self._open: dict[str, list[float]] = {}

    def add(self, key: str, record: GameRecord) -> float | None:
        """Count one game; return the pair's points for NEW when this game completes its pair, else None."""
        deal = cluster_of(key)
        points = self._open.setdefault(deal, [])
        points.append(new_points(record, self.new))
        if len(points) < self.seatings:
            return None
        del self._open[deal]
        return sum(points)


@dataclass
class SprtRun:
    """Everything a run of the test needs besides the store."""

    config: TournamentConfig  # entrants [NEW, BASE]; games_per_pairing is the cap in pairs
    test: Sprt
    commands: dict[str, BotCommand]  # NEW, BASE (and BASE's partner copy in mixed four-hand)
    pairing: Pairing

    @property
    def new(self) -> str:
        """NEW's name in the records."""
        return self.config.entrant_keys()[0]

    def settings(self) -> Settings:
        """What decides the games and the test: a resumed run must have the same (the cap and jobs may change)."""
        free = FREE | {"name", "games_per_pairing", "deals"}
        games = self.config.model_dump(mode="json", exclude=free)
        return {**games, "test": dataclasses.asdict(self.test)}


def settle_seed(store: Store, run: SprtRun) -> SprtRun:
    """``run`` with its deals' seed: its own, else the one its results file was played with, else a secret one
    (a bot that knows the seed can deal every card itself), which ``bind`` keeps with the test's settings."""
    played = stored_seed(store, SPRT) if held(store) is SPRT else None
    # one pairing: its deals are the one sequence a test has always played (no other pairing to share them with)
    return dataclasses.replace(run, config=run.config.with_seed(played).model_copy(update={"deals": "shared"}))


def bind(store: Store, run: SprtRun) -> None:
    """Tie ``store`` to this test (arena.tournament.binding); refuse one that holds another test, or the same test
    with changed settings or bots: nothing of a test may change but its cap and jobs."""
    claim(store, SPRT)
    settings: Settings = json.loads(json.dumps(run.settings()))  # as stored: tuples are lists
    digests = entrant_digests(run.commands)
    before, known = stored_settings(store, SPRT), stored_entrants(store, SPRT)
    if before is None:
        save(store, SPRT, run.config.name, settings, digests)
        return
    if before != settings:
        raise SprtError(
            f"{store.path}: holds an SPRT with other settings ({', '.join(_changed(before, settings))} changed); run "
            "it with the same "
            "settings to resume (only --max-games and --jobs may change), or pass --db for a new test"
        )
    if known is not None and known != digests:
        raise SprtError(entrants_changed(known, digests, SPRT) or f"{store.path}: the bots changed since it started")


def _changed(before: Settings, now: Settings) -> list[str]:
    """The keys whose values differ; for a table that differs, its own keys (``elo1``, not ``test``)."""
    changed: list[str] = []
    for key in sorted(before.keys() | now.keys()):
        old, new = before.get(key), now.get(key)
        if isinstance(old, dict) and isinstance(new, dict):
            changed += _changed(old, new)
        elif old != new:
            changed.append(key)
    return changed


def replay(store: Store, run: SprtRun) -> tuple[SprtState, PairBook]:
    """The test's state from the stored games, checked after each completed pair in the order they were stored."""
    state = SprtState(run.test)
    book = PairBook(run.new, len(run.pairing.rotations))
    for _, key, record in store.records():
        _count(state, book, key, record)
    return state, book


def _count(state: SprtState, book: PairBook, key: str, record: GameRecord) -> bool:
    """Count one stored game; True if it completed a pair."""
    state.games += 1
    points = book.add(key, record)
    if points is None or state.verdict is not None:  # pairs after the verdict do not move it
        return points is not None
    state.counts = state.counts.add(points)
    state.llr = state.test.llr(state.counts)
    state.verdict = state.test.verdict(state.llr)
    return True


def _planned(run: SprtRun, done: set[str], log_dir: str, jobs: int) -> Iterator[list[tuple[MatchSpec, list[str]]]]:
    """The matches still to play, deals in order, by round: a batch of ``jobs`` blocks of ``games_per_match`` deals
    (a match a block) in its first seating, then the same deals in the next, and so on. A round is played only once
    every bot process of the round before has ended (``_play``): a deal's seatings never meet (SECURITY.md)."""
    games = plan_games(run.config, run.pairing)
    block = run.config.games_per_match
    by_deal: dict[int, list[PlannedGame]] = {}
    for game in games:
        by_deal.setdefault(game.deal, []).append(game)
    batch = block * jobs
    for start in range(0, run.config.games_per_pairing, batch):
        todo = [g for deal in range(start, start + batch) for g in by_deal.get(deal, []) if g.key not in done]
        matches = [
            match
            for first in range(start, start + batch, block)
            for match in pairing_matches(
                run.config,
                run.commands,
                run.pairing,
                [g for g in todo if first <= g.deal < first + block],
                log_dir=log_dir,
            )
        ]
        yield from in_rounds(matches, duplicate=True)


def run_sprt(
    run: SprtRun,
    store: Store,
    *,
    jobs: int,
    log_dir: str,
    executor: Executor | None = None,
    on_progress: Callable[[SprtState], None] | None = None,
) -> tuple[SprtState, bool]:
    """Play until the test decides or every deal up to the cap is played; return the state and whether interrupted.

    Ctrl-C (or SIGTERM) stops it cleanly: the games finished are kept and the same call resumes. One run of a test at
    a time (the store's run lock).
    """
    with store.exclusive_run():
        if executor is None or isinstance(executor, LocalExecutor):
            require_isolation(run.config.trusted_bots)
        run = settle_seed(store, run)
        bind(store, run)
        state, book = replay(store, run)
        if state.verdict is not None:
            return state, False
        return _play(run, store, state, book, jobs=jobs, log_dir=log_dir, executor=executor, on_progress=on_progress)


def _play(
    run: SprtRun,
    store: Store,
    state: SprtState,
    book: PairBook,
    *,
    jobs: int,
    log_dir: str,
    executor: Executor | None,
    on_progress: Callable[[SprtState], None] | None,
) -> tuple[SprtState, bool]:
    executor = executor or LocalExecutor()
    rounds = _planned(run, store.game_keys(), log_dir, jobs)
    warm = getattr(executor, "warm", None)
    if warm is not None:  # the referees start while the cores are chosen
        warm(jobs, log_dir)
    cores = idlest(jobs) if run.config.pin else []
    pool = MatchPool(executor, jobs, (Shared(matches) for matches in rounds), cores=cores)
    interrupted = False
    failed_in_a_row = 0  # matches that failed since the last stored game
    try:
        for event in pool.events():
            if isinstance(event, SlotFailed):
                state.errors.append(f"slot {event.place} failed, and no further round was played: {event.error}")
            elif isinstance(event, MatchEnded):
                if event.error and not pool.stopping:
                    state.errors.append(f"match {event.match_id}: {event.error}")
                    record_failure(store, event.match_id, event.error)
                    failed_in_a_row += 1
                    if failed_in_a_row >= give_up_after(jobs):  # nothing plays (a broken host, a bot that cannot
                        state.errors.append(  # start): not thousands of matches more, each failing the same way
                            f"stopped after {failed_in_a_row} matches in a row failed with no game stored between"
                        )
                        pool.cancel()
            else:
                failed_in_a_row = 0
                _store(store, state, book, event)
                if on_progress:
                    on_progress(state)
                if state.verdict is not None and not pool.stopping:
                    pool.cancel()  # the matches still running are cut short: the test has decided
    except KeyboardInterrupt:
        interrupted = True
        pool.cancel()
        for event in pool.events():  # the games that finished before the cancel (a second Ctrl-C is the caller's)
            if isinstance(event, GameFinished) and event.key not in store.game_keys():
                _store(store, state, book, event)
    pool.join()
    return state, interrupted


def _store(store: Store, state: SprtState, book: PairBook, game: GameFinished) -> None:
    store.add_game(game.key, game.match_id, game.record)
    state.played_now += 1
    _count(state, book, game.key, game.record)
