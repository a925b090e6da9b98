"""Runs a tournament: plans what is left to play, runs matches in parallel, stores every game as it ends.

Resuming is the same command: games already in the store are skipped, and the games left are played with the same
seeds and seats, so the final table is the one an unbroken run gives.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from arena.engine.record import GameRecord
from arena.errors import ArenaError
from arena.play import forkserver
from arena.play.botproc import BUNDLED, STDIO_PREFIX, BotCommand, resolve_bot
from arena.play.cpus import idlest
from arena.play.linux import drop_page_cache
from arena.play.matchspec import GameSpec, MatchSpec
from arena.play.sandbox import require_isolation
from arena.tournament.config import TournamentConfig, partnership_problem
from arena.tournament.executor import Executor, LocalExecutor, run_match, slot
from arena.tournament.gauntlet import remember_candidate
from arena.tournament.growth import bind, planned_keys, settle_seed
from arena.tournament.ranking import cluster_of, comparisons
from arena.tournament.ratings import LiveFit
from arena.tournament.schedule import match_name, pairing_of, plan_matches, round_of
from arena.tournament.store import Store

Planned = tuple[MatchSpec, list[str]]  # a match to play and the tournament keys of its games


@dataclass
class Progress:
    """What a progress display is told after every stored game."""

    done: int
    total: int
    started: float
    leader: str | None = None  # the ranking table's top row as it stands (the same fit), None while groups are apart
    leader_elo: float = 0.0
    groups: int = 0  # how many separate groups the bots form so far (no leader across groups)
    errors: list[str] = field(default_factory=list)

    def eta(self, played_now: int) -> float | None:
        """Seconds left at the pace of this run, or None before the first game of the run."""
        if played_now <= 0:
            return None
        pace = (time.monotonic() - self.started) / played_now
        return pace * (self.total - self.done)


@dataclass
class RunReport:
    """How a run ended."""

    played: int
    done: int
    total: int
    interrupted: bool
    errors: list[str]
    grown: list[str] = field(default_factory=list)  # how the tournament grew in this run (growth.bind)
    seed: int | None = None  # the seed its deals came from (growth.settle_seed): secret while games may be added


def resolve_entrants(
    entrants: list[str], lookup: Callable[[str], BotCommand | None] | None = None, *, folder: Path | None = None
) -> dict[str, BotCommand]:
    """Entrant names to commands: bundled names first, then registered bots (via ``lookup``), then script paths,
    a relative path taken from ``folder`` (the config's) when the file is there, else from the current folder."""
    commands: dict[str, BotCommand] = {}
    for entrant in entrants:
        command = (None if entrant in BUNDLED or lookup is None else lookup(entrant)) or resolve_bot(
            _from_folder(entrant, folder)
        )
        name = command.name
        if name in commands:
            raise ArenaError(f"two entrants are both called {name!r}; register one under another name")
        commands[name] = command
    return commands


def _from_folder(entrant: str, folder: Path | None) -> str:
    """A relative script path as seen from the config's folder, if the file is there (``stdio:`` kept)."""
    prefix = STDIO_PREFIX if entrant.startswith(STDIO_PREFIX) else ""
    path = Path(entrant.removeprefix(prefix))
    if folder is None or entrant in BUNDLED or path.is_absolute() or not (folder / path).is_file():
        return entrant
    return prefix + str(folder / path)


def total_games(config: TournamentConfig, names: list[str]) -> int:
    """How many games the whole tournament has."""
    return len(planned_keys(config, names))


def run_tournament(
    config: TournamentConfig,
    store: Store,
    commands: dict[str, BotCommand],
    *,
    jobs: int,
    log_dir: str,
    executor: Executor | None = None,
    on_progress: Callable[[Progress], None] | None = None,
) -> RunReport:
    """Play every game not yet in ``store``; stop cleanly on KeyboardInterrupt (the run can be resumed).

    One run of a tournament at a time: a second one is refused while the first holds the store's run lock.
    """
    with store.exclusive_run():
        return _run(config, store, commands, jobs=jobs, log_dir=log_dir, executor=executor, on_progress=on_progress)


def _run(
    config: TournamentConfig,
    store: Store,
    commands: dict[str, BotCommand],
    *,
    jobs: int,
    log_dir: str,
    executor: Executor | None,
    on_progress: Callable[[Progress], None] | None,
) -> RunReport:
    here = not getattr(executor, "remote", False)  # a cluster's executor: its workers check isolation and pin
    executor = executor or LocalExecutor()
    if isinstance(executor, LocalExecutor):  # the referees' fork servers import while the run is prepared
        forkserver.warm(forkserver.REFEREES)
    if here:  # matches run here: refuse now, not once a match
        require_isolation(config.trusted_bots)
    config = settle_seed(store, config)
    if (problem := partnership_problem(config)) is not None:  # before anything is written to a new results file
        raise ArenaError(f"{config.name}: {problem}")
    if config.drop_page_cache and not (here and os.geteuid() == 0 and os.path.exists("/proc/sys/vm/drop_caches")):
        raise ArenaError(
            "drop_page_cache = true needs the arena run as root on Linux with its matches on this machine (a "
            "cluster's workers would each drop their own: not done)"
        )
    grown = bind(store, config, commands)
    remember_candidate(store, config, commands)
    done = store.game_keys()
    matches = plan_matches(config, commands, done=done, log_dir=log_dir)
    rounds = in_rounds(matches, config.duplicate)
    width = max((sum(len(keys) for _, keys in planned) for planned in rounds), default=0)  # games: split cuts by them
    slots = min(jobs, width)
    warm = getattr(executor, "warm", None)
    if warm is not None and slots:  # the referees start while the stored games are read and cores chosen
        warm(slots, log_dir)
    progress = Progress(done=len(done), total=total_games(config, list(commands)), started=time.monotonic())
    live = LiveFit()  # the table's fit, so that the live leader is the table's
    for _, key, record in store.records():
        for c in comparisons(record, cluster_of(key)):
            live.record(c)
    results: queue.Queue[tuple[str, Any, Any]] = queue.Queue()
    stopping = threading.Event()  # nothing can be played: the slots take no more matches
    pairing = {spec.match_id: pairing_of(keys[0]) for spec, keys in matches}
    pairings = set(pairing.values())

    cores = idlest(slots) if config.pin and here else []

    def play(work: _Work, place: int) -> None:
        """One slot's part of a round: chains of the round's matches, in turn."""
        hint = getattr(executor, "upcoming", None)  # an executor that can prepare the slot's next match is told it

        def placed(spec: MatchSpec) -> MatchSpec:
            return spec.replace(cpus=[cores[place]]) if cores else spec

        chain = work.take()
        while chain is not None and not stopping.is_set():
            following = None
            while not stopping.is_set() and (planned := work.next(chain)) is not None:
                spec, keys = planned
                upcoming = work.peek(chain)
                if upcoming is None:  # the chain's last match: the slot takes its next chain now, to prepare it
                    following = work.take(steal=False)  # it steals only once it has nothing else to do
                    upcoming = work.peek(following) if following else None
                if hint is not None:  # (never a match of the next round: it is not in this round's work)
                    hint(placed(upcoming[0]) if upcoming is not None else None)
                spec = placed(spec)
                pairing[spec.match_id] = pairing_of(keys[0])  # (a match cut by split has an id of its own)
                error = run_match(executor, spec, _forward(results, spec.match_id, keys))
                results.put(("match", spec.match_id, error))
            chain = following if following is not None else work.take()  # its last match may have been taken

    works = (_Work(split(chains(planned), slots, config.games_per_match)) for planned in rounds)
    between = drop_page_cache if config.drop_page_cache else None
    threads = in_turns(executor, works, slots, play, stopping, results, between)
    ended = 0  # slots that said they are done: once all have, everything they played is stored
    played = 0
    failed: list[str] = []  # the pairings of the matches that failed since the last stored game
    interrupted = False
    led_at = -LEADER_EVERY
    try:
        while ended < len(threads):  # until the rounds are over and every game they played is stored
            try:
                kind, key, payload = results.get(timeout=0.2)
            except queue.Empty:
                continue
            if kind == SLOT_DONE:
                ended += 1
                continue
            if kind == SLOT_FAILED:
                progress.errors.append(f"slot {key} failed, and no further round was played: {payload}")
                continue
            if kind == "match":
                if payload:
                    progress.errors.append(f"match {key}: {payload}")
                    record_failure(store, key, payload)
                    failed.append(pairing.get(key, key))
                    if not stopping.is_set() and nothing_plays(failed, pairings, slots):
                        progress.errors.append(
                            f"stopped: {len(failed)} matches in a row failed, of every pairing, with no game stored"
                        )
                        stopping.set()
                continue
            failed.clear()
            match_id, record = payload
            store.add_game(key, match_id, record)
            played += 1
            progress.done += 1
            for c in comparisons(record, cluster_of(key)):
                live.record(c)
            if on_progress:
                if progress.done == progress.total or time.monotonic() - led_at >= LEADER_EVERY:
                    _lead(progress, live)
                    led_at = time.monotonic()
                on_progress(progress)
        if on_progress and played and _lead(progress, live):  # the last line shows the final table's leader
            on_progress(progress)
    except KeyboardInterrupt:
        interrupted = True
        stopping.set()  # no round starts after this one
        executor.cancel()
        # games that finished before the cancel are still stored
        while True:
            try:
                kind, key, payload = results.get(timeout=0.5)
            except queue.Empty:
                if not any(thread.is_alive() for thread in threads):
                    break
                continue
            if kind == "game" and key not in store.game_keys():
                store.add_game(key, payload[0], payload[1])
                played += 1
                progress.done += 1
    for thread in threads:
        thread.join(timeout=10)
    return RunReport(played, progress.done, progress.total, interrupted, progress.errors, grown, config.seed)


class _Work:
    """The matches left to play, in chains (``chains``) that a slot plays in turn. A slot with no chain left to
    start takes the last match of the longest chain another slot is playing (a fresh start: new bot processes), so
    that slots end about a match apart, not a chain apart; never a match its slot has named as its next (``peek``:
    its referee may be starting that match's bots)."""

    def __init__(self, grouped: list[list[Planned]]) -> None:
        self._waiting = deque(grouped)
        self._playing: list[list[Planned]] = []
        self._named: set[int] = set()  # id() of the matches peek named, each a slot's next
        self._lock = threading.Lock()

    def take(self, *, steal: bool = True) -> list[Planned] | None:
        """Matches for a slot to play in turn: a waiting chain, else (``steal``) a match from the end of one in play;
        None when there is none."""
        with self._lock:
            if self._waiting:
                chain = self._waiting.popleft()
                self._playing.append(chain)
                return chain
            if not steal:
                return None
            self._playing = [chain for chain in self._playing if chain]
            free = [chain for chain in self._playing if id(chain[-1]) not in self._named]
            if not free:
                return None
            return [max(free, key=len).pop()]

    def next(self, chain: list[Planned]) -> Planned | None:
        """The chain's next match, taken (None: none left in it)."""
        with self._lock:
            return chain.pop(0) if chain else None

    def peek(self, chain: list[Planned]) -> Planned | None:
        """The chain's next match, left in it and named as its slot's next: no other slot takes it."""
        with self._lock:
            if not chain:
                return None
            self._named.add(id(chain[0]))
            return chain[0]


R = TypeVar("R")
SLOT_DONE = "slot done"  # what a slot's thread says last (in_turns)
SLOT_FAILED = "slot failed"  # what a slot's thread says of a fault of ours that ended it, and the rounds with it


def in_turns(
    executor: Executor,
    rounds: Iterator[R],
    slots: int,
    play: Callable[[R, int], None],
    stopping: threading.Event,
    results: queue.Queue[tuple[str, Any, Any]],
    between: Callable[[], None] | None = None,
) -> list[threading.Thread]:
    """Start ``slots`` threads that play ``rounds`` together, one after another: each calls ``play(round, place)``,
    then has the executor end every bot process it ran (``rest``), then waits for the others; the next round is
    taken only once every slot has rested, so that no bot process of a round meets one of the next (SECURITY.md,
    fair play). A slot keeps its referee from round to round; ``stopping`` set, no further round is taken. Each
    thread puts ``(SLOT_DONE, place, None)`` on ``results`` as it ends, after everything it played, and a slot that a
    fault of ours ends says so first (``SLOT_FAILED``) and ends the others at the turn. ``between`` is called
    between two rounds, once every slot has rested."""
    if slots < 1:
        return []
    current: list[R | None] = [next(rounds, None)]

    def advance() -> None:
        following = None if stopping.is_set() else next(rounds, None)
        if following is not None and between is not None:
            between()
        current[0] = following

    turn = threading.Barrier(slots, action=advance)
    rest = getattr(executor, "rest", None)

    def run(place: int) -> None:
        with contextlib.ExitStack() as ending:
            ending.callback(results.put, (SLOT_DONE, place, None))
            ending.enter_context(slot(executor))
            while (now := current[0]) is not None:
                try:
                    play(now, place)
                    if rest is not None:
                        rest()
                except BaseException as exc:
                    turn.abort()  # the other slots stop at the turn instead of waiting for this one for ever
                    results.put((SLOT_FAILED, place, f"{type(exc).__name__}: {exc}"))
                    raise
                try:
                    turn.wait()
                except threading.BrokenBarrierError:
                    return

    threads = [threading.Thread(target=run, args=(place,), name=f"slot {place}", daemon=True) for place in range(slots)]
    for thread in threads:
        thread.start()
    return threads


def in_rounds(matches: list[Planned], duplicate: bool) -> list[list[Planned]]:
    """The matches by round (``schedule.round_of``: a match holds games of one rotation), rounds in order. A run
    plays a round only once every bot process of the round before has ended (SECURITY.md, duplicate deals)."""
    grouped: dict[int, list[Planned]] = {}
    for planned in matches:
        grouped.setdefault(round_of(planned[1][0], duplicate), []).append(planned)
    return [grouped[number] for number in sorted(grouped)]


def split(grouped: list[list[Planned]], slots: int, size: int) -> list[list[Planned]]:
    """``grouped`` with its longest chains cut in halves by their games (earlier deals, later deals; each half in
    matches of at most ``size`` games) until there is a chain for each of ``slots`` or no chain has two games. A
    round of one pairing is one chain: its slots then each carry their bot processes through half of it and end
    together, where whole matches (three of eight games between two slots, say) would leave one slot idle."""
    grouped = [list(chain) for chain in grouped]
    while grouped and len(grouped) < slots:
        longest = max(grouped, key=_games)
        if _games(longest) < 2:
            break
        grouped = [chain for chain in grouped if chain is not longest]
        games = [(game, key) for spec, keys in longest for game, key in zip(spec.games, keys, strict=True)]
        half = (len(games) + 1) // 2
        grouped += [_rechunk(longest[0][0], games[:half], size), _rechunk(longest[0][0], games[half:], size)]
    return sorted(grouped, key=_games, reverse=True)


def _games(chain: list[Planned]) -> int:
    return sum(len(keys) for _, keys in chain)


def _rechunk(template: MatchSpec, games: list[tuple[GameSpec, str]], size: int) -> list[Planned]:
    """``games`` (with their keys) as matches of at most ``size`` games, each like ``template`` but for them."""
    chain = []
    for start in range(0, len(games), size):
        part = games[start : start + size]
        keys = [key for _, key in part]
        chain.append((template.replace(match_id=match_name(keys), games=[game for game, _ in part]), keys))
    return chain


def chains(matches: list[Planned]) -> list[list[Planned]]:
    """The matches grouped into chains that one slot plays in turn, longest first: the matches of one pairing in one
    seat rotation (the same bots, every game seated alike). A referee kept for the slot can then carry its bot
    processes from one match of a chain to the next (new deals, the same seats), and slots rarely wait at the end."""
    grouped: dict[tuple[object, ...], list[Planned]] = {}
    for spec, keys in matches:
        chain = (tuple(bot.name for bot in spec.bots), tuple(spec.games[0].seating))
        grouped.setdefault(chain, []).append((spec, keys))
    return sorted(grouped.values(), key=len, reverse=True)


LEADER_EVERY = 0.25
"""Seconds between refits of the progress line's leader (a refit of many bots takes milliseconds)."""


def _lead(progress: Progress, live: LiveFit) -> bool:
    """Show the table's top row as it stands (none while the bots form separate groups); True if it changed."""
    top = live.leader()
    shown = (progress.leader, progress.leader_elo, progress.groups)
    progress.groups = top.groups if top else 0
    progress.leader = top.name if top and top.groups == 1 else None
    progress.leader_elo = top.elo if top and top.groups == 1 else 0.0
    return shown != (progress.leader, progress.leader_elo, progress.groups)


def give_up_after(jobs: int) -> int:
    """How many matches in a row may fail, no game stored between, before a run stops taking more: a few a slot."""
    return max(8, 4 * jobs)


def nothing_plays(failed: list[str], pairings: set[str], jobs: int) -> bool:
    """Whether a run should stop taking matches: ``failed`` (the pairings of the matches that failed in a row, no
    game stored between) is long and spans every pairing of the plan: a broken host, not one broken entrant, whose
    pairings fail while the others play on."""
    return len(failed) >= give_up_after(jobs) and set(failed) >= pairings


def record_failure(store: Store, match_id: str, what: str) -> None:
    """Keep a failed match's story in the results file (``failures`` meta: a JSON list), beside its finished games.

    Its unplayed games stay unplayed: running the tournament again retries them.
    """
    failures = json.loads(store.get_meta("failures") or "[]")
    failures.append({"match": match_id, "error": what, "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
    store.set_meta("failures", json.dumps(failures[-1000:]))


def failures(store: Store) -> list[dict[str, str]]:
    """The failed matches recorded in ``store`` (oldest first)."""
    found: list[dict[str, str]] = json.loads(store.get_meta("failures") or "[]")
    return found


def _forward(
    results: queue.Queue[tuple[str, Any, Any]], match_id: str, keys: list[str]
) -> Callable[[GameRecord], None]:
    """The on_game callback of one match: queue each game for the main thread under its tournament key."""

    def on_game(record: GameRecord) -> None:
        results.put(("game", keys[record["game_index"]], (match_id, record)))

    return on_game


def default_db(config_path: Path) -> Path:
    """The results database beside the config: ``tournaments/demo.toml`` -> ``tournaments/demo.db``."""
    return config_path.with_suffix(".db")
