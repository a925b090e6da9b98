"""Runs a tournament: plans what is left to play, runs matches in parallel, stores every game as it ends.

Resuming is the same command: games already in the store are skipped, and the games left are played with the same
seeds and seats, so the final table is the one an unbroken run gives.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arena.errors import ArenaError
from arena.play import forkserver
from arena.play.botproc import BUNDLED, BUNDLED_DIR, STDIO_PREFIX, BotCommand, resolve_bot
from arena.play.cpus import idlest
from arena.play.linux import drop_page_cache
from arena.play.matchspec import GameSpec, MatchSpec
from arena.play.referee import Referee, VariantRefused
from arena.play.sandbox import require_isolation
from arena.tournament.config import Entrant, TournamentConfig, bot_limits, partnership_problem
from arena.tournament.executor import Executor, LocalExecutor
from arena.tournament.gauntlet import remember_candidate
from arena.tournament.growth import bind, planned_keys, settle_seed
from arena.tournament.pool import Chains, GameFinished, MatchEnded, MatchPool, Planned, SlotFailed
from arena.tournament.ranking import cluster_of, comparisons
from arena.tournament.ratings import LiveFit
from arena.tournament.schedule import match_name, pairing_of, plan_matches, round_of
from arena.tournament.store import Store


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
    entrants: Sequence[Entrant], lookup: Callable[[str], BotCommand | None] | None = None, *, folder: Path | None = None
) -> dict[str, BotCommand]:
    """Entrants to commands: bundled names first, then registered bots (via ``lookup``), then script paths, a
    relative path taken from ``folder`` (the config's) when the file is there, else from the current folder. An
    entrant table's bot is found so, then named and given its arguments and runtime flags."""
    commands: dict[str, BotCommand] = {}
    for entrant in entrants:
        bot = entrant if isinstance(entrant, str) else entrant.bot
        command = (None if bot in BUNDLED or lookup is None else lookup(bot)) or resolve_bot(_from_folder(bot, folder))
        if not isinstance(entrant, str):
            command = command.given(args=tuple(entrant.args), runtime_flags=tuple(entrant.runtime_flags))
            command = dataclasses.replace(command, name=entrant.name)
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
        refuse_unplayed_variant(config, commands)
    config = _settled(store, config, here=here)
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
    pairings = {pairing_of(keys[0]) for _, keys in matches}
    cores = idlest(slots) if config.pin and here else []
    rounds_of_chains = (Chains(split(chains(planned), slots, config.games_per_match)) for planned in rounds)
    between = drop_page_cache if config.drop_page_cache else None  # (settled: a bool)
    pool = MatchPool(executor, slots, rounds_of_chains, cores=cores, between=between)
    played, interrupted = _store_games(pool, store, progress, live, pairings, on_progress)
    return RunReport(played, progress.done, progress.total, interrupted, progress.errors, grown, config.seed)


def refuse_unplayed_variant(config: TournamentConfig, commands: dict[str, BotCommand]) -> None:
    """Before any game: start every entrant that is not a bundled bot once and read its hello; VariantRefused names
    each one that says it does not play the tournament's variant (and what it plays)."""
    asked = [
        command.entry(name) for name, command in commands.items() if BUNDLED_DIR not in Path(command.program).parents
    ]
    if not asked:
        return
    try:
        with tempfile.TemporaryDirectory(prefix="arena-hellos-") as logs:  # the matches keep the bots' logs
            spec = MatchSpec(
                match_id="hellos",
                variant=config.variant,
                bots=asked,
                games=[],  # hands shaken, no game
                log_dir=logs,
                handshake_timeout=config.handshake_timeout,
                limits=bot_limits(config.limits),
                trusted_bots=config.trusted_bots,
            )
            with contextlib.closing(Referee(spec)) as referee:
                referee.start()  # a bot that fails its handshake here is the matches' business, as is a host's problem
    except VariantRefused:
        raise
    except ArenaError:
        return


def _settled(store: Store, config: TournamentConfig, *, here: bool) -> TournamentConfig:
    """``config`` as its results file plays it (``growth.settle_seed``), or an error for what cannot be played: all
    before anything is written to a new results file."""
    config = settle_seed(store, config)
    if (problem := partnership_problem(config)) is not None:
        raise ArenaError(f"{config.name}: {problem}")
    can_drop = here and os.geteuid() == 0 and os.path.exists("/proc/sys/vm/drop_caches")
    if config.drop_page_cache and not can_drop:
        raise ArenaError(
            "drop_page_cache = true needs the arena run as root on Linux with its matches on this machine (a "
            "cluster's workers would each drop their own: not done)"
        )
    if config.drop_page_cache is None:  # where it can be, for strangers: see SECURITY.md, fair play
        config = config.model_copy(update={"drop_page_cache": can_drop and not config.trusted_bots})
    return config


def _store_games(
    pool: MatchPool,
    store: Store,
    progress: Progress,
    live: LiveFit,
    pairings: set[str],
    on_progress: Callable[[Progress], None] | None,
) -> tuple[int, bool]:
    """Store every game the pool plays as it ends, keep ``progress`` and the live fit, stop the pool when every
    pairing keeps failing; on Ctrl-C cancel it and store what had finished. The games played, and whether stopped
    by Ctrl-C."""
    played = 0
    failed: list[str] = []  # the pairings of the matches that failed since the last stored game
    led_at = -LEADER_EVERY
    try:
        for event in pool.events():  # until the rounds are over and every game they played is stored
            if isinstance(event, SlotFailed):
                progress.errors.append(f"slot {event.place} failed, and no further round was played: {event.error}")
            elif isinstance(event, MatchEnded):
                if event.error:
                    progress.errors.append(f"match {event.match_id}: {event.error}")
                    record_failure(store, event.match_id, event.error)
                    failed.append(pairing_of(event.keys[0]))
                    if not pool.stopping and nothing_plays(failed, pairings, pool.slots):
                        progress.errors.append(
                            f"stopped: {len(failed)} matches in a row failed, of every pairing, with no game stored"
                        )
                        pool.stop()
            else:
                failed.clear()
                store.add_game(event.key, event.match_id, event.record)
                played += 1
                progress.done += 1
                for c in comparisons(event.record, cluster_of(event.key)):
                    live.record(c)
                if on_progress:
                    if progress.done == progress.total or time.monotonic() - led_at >= LEADER_EVERY:
                        _lead(progress, live)
                        led_at = time.monotonic()
                    on_progress(progress)
        if on_progress and played and _lead(progress, live):  # the last line shows the final table's leader
            on_progress(progress)
    except KeyboardInterrupt:
        pool.cancel()  # no match nor round after this one; games that finished before the cancel are still stored
        for event in pool.events():
            if isinstance(event, GameFinished) and event.key not in store.game_keys():
                store.add_game(event.key, event.match_id, event.record)
                played += 1
                progress.done += 1
        pool.join()
        return played, True
    pool.join()
    return played, False


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
        games = _chain_games(longest)
        half = (len(games) + 1) // 2
        grouped += [_rechunk(longest[0][0], games[:half], size), _rechunk(longest[0][0], games[half:], size)]
    if slots > 1:  # chains end in short matches, for the slots that end first to take (see ``_tapered``)
        grouped = [_rechunk(chain[0][0], _chain_games(chain), size, tapered=True) for chain in grouped]
    return sorted(grouped, key=_games, reverse=True)


def _chain_games(chain: list[Planned]) -> list[tuple[GameSpec, str]]:
    return [(game, key) for spec, keys in chain for game, key in zip(spec.games, keys, strict=True)]


def _games(chain: list[Planned]) -> int:
    return sum(len(keys) for _, keys in chain)


def _rechunk(
    template: MatchSpec, games: list[tuple[GameSpec, str]], size: int, *, tapered: bool = False
) -> list[Planned]:
    """``games`` (with their keys) as matches of at most ``size`` games, each like ``template`` but for them;
    ``tapered``: in the sizes ``_tapered`` gives."""
    chain = []
    start = 0
    for length in _tapered(len(games), size) if tapered else [size] * -(-len(games) // size):
        part = games[start : start + length]
        start += length
        keys = [key for _, key in part]
        chain.append((template.replace(match_id=match_name(keys), games=[game for game, _ in part]), keys))
    return chain


def _tapered(games: int, size: int) -> list[int]:
    """Match sizes for a chain of ``games``: ``size`` while more than ``size`` are left, then halves of what is left
    down to one game (8 left: 4, 2, 1, 1). A round ends when its last slot does, so the matches other slots take
    from a chain's end (``pool.Chains``) must be short; within a chain the bots carry on from match to match, so
    the extra matches cost little."""
    sizes = []
    while games > size:
        sizes.append(size)
        games -= size
    while games > 1:
        sizes.append(-(-games // 2))
        games -= sizes[-1]
    return sizes + [1] * games


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


def default_db(config_path: Path) -> Path:
    """The results database beside the config: ``tournaments/demo.toml`` -> ``tournaments/demo.db``."""
    return config_path.with_suffix(".db")
