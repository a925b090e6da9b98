"""The ``arena`` command line: one click group; library errors become clear messages here and only here."""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Literal, NoReturn

import click

from arena import __version__
from arena import options as shared
from arena.bench.command import bench
from arena.errors import ArenaError
from arena.human.command import play_command
from arena.play.matchspec import DEFAULT_TIME
from arena.report.command import report_command
from arena.signals import stop_like_ctrl_c
from arena.sprt.command import sprt_command
from arena.text import open_private, terminal_safe

if TYPE_CHECKING:  # the CLI imports its modules lazily: a command costs only what it uses
    from pathlib import Path

    from arena.engine.record import GameRecord
    from arena.play.botproc import BotCommand
    from arena.play.matchspec import Limits, MatchSpec
    from arena.tournament.config import TournamentConfig
    from arena.tournament.ranking import Row
    from arena.tournament.run import RunReport
    from arena.tournament.store import Store

CONTEXT = {"help_option_names": ["-h", "--help"]}  # inherited by every command


class ArenaGroup(click.Group):
    """A click group that turns ArenaError into a one-line message with exit code 2, and Ctrl-C into exit code 130.

    A closed pipe (``arena games ... | head -1``) ends the command quietly: click handles EPIPE.
    """

    def invoke(self, ctx: click.Context) -> object:
        """Run the command; report arena errors without a traceback."""
        try:
            return super().invoke(ctx)
        except ArenaError as exc:
            click.echo(f"Error: {exc}", err=True)
            ctx.exit(2)
        except KeyboardInterrupt:  # a command with more to say about it (tournament run, match) says it itself
            with stop_signals_ignored():
                click.echo("Interrupted.", err=True)
            ignore_stop_signals()
            ctx.exit(130)
        except OSError as exc:  # a path the user gave that cannot be read or written
            if exc.errno == errno.EPIPE:
                raise  # the reader went away: click exits without a word
            where = f": {exc.filename}" if exc.filename else ""
            click.echo(f"Error: {exc.strerror or exc}{where}", err=True)
            ctx.exit(2)


def ignore_stop_signals() -> None:
    """For the rest of a stopped command's process: Ctrl-C, SIGTERM and SIGHUP ignored (in the main thread; its
    message said, it only ends, and a signal more would make it die of that signal instead of exiting 130)."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, signal.SIG_IGN)


@contextmanager
def stop_signals_ignored() -> Iterator[None]:
    """While saying how a stopped command ended: a second (or third) Ctrl-C must not cut the message short."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    stopping = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    before = {signum: signal.signal(signum, signal.SIG_IGN) for signum in stopping}
    try:
        yield
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)


@click.group(cls=ArenaGroup, context_settings=CONTEXT)
@click.version_option(__version__, prog_name="arena", help="Print the version and exit.")
def main() -> None:
    """Euchre Arena: programs play Euchre against each other."""
    stop_like_ctrl_c()  # kill -TERM and a closed terminal stop a run as Ctrl-C does (and it resumes the same way)


main.add_command(report_command)
main.add_command(sprt_command)
main.add_command(play_command)
main.add_command(bench)


@main.command("match")
@click.argument("bots", nargs=-1, required=True)
@shared.variant
@shared.rule_options
@click.option("--games", type=click.IntRange(min=1), default=4, show_default=True, help="Number of games.")
@click.option(
    "--seed",
    type=int,
    help="Seed of the first deal sequence (default: a secret one, drawn: a bot that knows the seed can deal every "
    "card itself). Each game's line shows its seed.",
)
@shared.options(
    shared.time_control,
    shared.max_decision,
    shared.handshake_timeout,
    shared.policy,
    shared.max_strikes,
    shared.max_hands,
    shared.record,
)
@click.option(
    "--pin/--no-pin",
    default=True,
    show_default=True,
    help="Run the referee and its bots on one core, the idlest (faster; --no-pin for bots using several threads).",
)
@shared.options(shared.log_dir, shared.limits, shared.trusted_bots)
def match_command(
    bots: tuple[str, ...],
    variant: str,
    option_pairs: tuple[str, ...],
    games: int,
    seed: int | None,
    time_control: str,
    max_decision: float,
    handshake_timeout: float,
    policy: Literal["forfeit", "substitute"],
    max_strikes: int,
    max_hands: int,
    record_path: str | None,
    pin: bool,
    log_dir: str,
    limit_pairs: tuple[str, ...],
    trusted_bots: bool,
) -> None:
    """Play a match between BOTS, seats rotated over duplicate deals.

    BOTS are bundled names (random, heuristic, search), names registered with `arena submit`, or script paths
    (.py, .js, .java, .jar or an executable), prefixed stdio: for a bot that speaks JSON lines on stdin and stdout
    (protocol.md, 1b). A bot with settings is one quoted argument: name=NAME and flag=RUNTIME_FLAG words, the bot,
    its arguments ('search --samples 4', 'name=deep flag=-Xmx600m stdio:Bot.java --depth 3'; protocol.md, 2).
    Give one bot per seat, or two bots in four-hand to pit two teams of copies against each
    other. Each deal is played once per distinct seating: in
    every rotation of the seats, or, for two teams of copies in four-hand, twice (each team once in seats 0 and
    2). --games counts games, not deals.

    Prints a line per game and a table per bot; then, if any bot broke a rule, its violations by kind and the
    first line of its error from its log, and a warning for a bot that forfeited every game. Ctrl-C prints the
    table of the games played so far (exit code 130).
    """
    from arena.play.lineup import build_match
    from arena.tournament.config import secret_seed
    from arena.tournament.flags import checked_rules, parse_limits
    from arena.tournament.registry import Registry

    options = checked_rules(variant, option_pairs, time_control, max_decision)
    spec = build_match(
        list(bots),
        variant=variant,
        options=options,
        games=games,
        seed=seed if seed is not None else secret_seed(),
        time=time_control,
        max_decision=max_decision,
        policy=policy,
        max_strikes=max_strikes,
        max_hands=max_hands,
        handshake_timeout=handshake_timeout,
        log_dir=log_dir,
        lookup=Registry.default().lookup,  # registered names too (bundled names first)
    )
    spec = spec.replace(trusted_bots=trusted_bots, limits=parse_limits(limit_pairs))
    if pin:
        from arena.play.cpus import idlest

        spec = spec.replace(cpus=idlest(1) or None)
    _play_match(spec, record_path)


def _play_match(spec: MatchSpec, record_path: str | None) -> None:
    """``arena match``'s play: a line per game as it ends (and its record to ``record_path``), then the table and
    the violations; Ctrl-C keeps what was played and exits with 130."""
    from arena.play.lineup import MatchSummary
    from arena.play.referee import run_match
    from arena.tournament.account import ViolationTally

    sink = open_private(record_path) if record_path else None
    standings, violations = MatchSummary(), ViolationTally()  # summed as the games end: no record is kept
    logged: set[int] = set()  # bots whose log was pointed at

    def on_game(record: GameRecord) -> None:
        if sink is not None:  # kept first: a Ctrl-C while the line is printed leaves the game recorded
            sink.write(json.dumps(record, separators=(",", ":")) + "\n")
            sink.flush()
        standings.add(record)
        violations.add(record)
        click.echo(terminal_safe(game_line(record)))
        for line in log_lines(spec, record, logged):
            click.echo(terminal_safe(line))

    interrupted = False
    try:
        run_match(spec, on_game)
    except KeyboardInterrupt:  # the referee has ended every bot on the way out; the games so far are kept
        interrupted = True
    finally:
        if sink is not None:
            sink.close()
    with stop_signals_ignored() if interrupted else _nothing():
        if standings.games:
            click.echo(standings.table())
        lines, never = violations.summary(spec.log_dir)
        if lines:
            click.echo(terminal_safe("\n".join(["", *lines])))
        if interrupted:
            kept = f"; their records are in {record_path}" if record_path and standings.games else ""
            click.echo(f"Interrupted after {standings.games} of {len(spec.games)} games{kept}.", err=True)
    for name, count in never:
        click.echo(f"warning: {name} forfeited {_every(count)}: see its log above", err=True)
    if interrupted:
        raise SystemExit(130)


@contextmanager
def _nothing() -> Iterator[None]:
    yield


def _every(count: int) -> str:
    return "its only game" if count == 1 else f"all {count} of its games"


def game_line(record: GameRecord) -> str:
    """One line per finished game; a forfeit says who, the violation's kind and what the referee saw."""
    players, scores = record["players"], record["final_scores"]
    seats = "  ".join(f"{players[s]}:{scores[s]}" for s in range(len(players)))
    winners = ",".join(sorted({players[s] for s in record["winners"]}))
    extra = "  slam (two results in the ratings)" if record.get("slam") else ""
    if "forfeit" in record:
        f = record["forfeit"]
        why = ": ".join(str(part) for part in (f.get("kind"), f.get("detail")) if part)
        extra += f"  forfeit by seat {f['seat']} ({why or 'no reason recorded'})"
    return (
        f"game {record['game_index'] + 1:3}  seed {record['seed']}  {seats}  winner {winners}"
        f"  hands {len(record['hands'])}{extra}"
    )


def log_lines(spec: MatchSpec, record: GameRecord, logged: set[int]) -> list[str]:
    """Where the log is of each bot that broke a rule in this game, the first time it does in the match."""
    from pathlib import Path

    seating = spec.games[record.get("game_index", 0)].seating
    lines = []
    for violation in record.get("violations") or []:
        bot = seating[violation["seat"]]
        if bot not in logged:
            logged.add(bot)
            name = spec.bots[bot].name
            lines.append(
                f"  {name}: {violation['kind']}; its log: {Path(spec.log_dir) / f'{spec.match_id}-bot{bot}-{name}.log'}"
            )
    return lines


@main.group()
def protocol() -> None:
    """The wire protocol (see protocol.md)."""


@protocol.command("schema")
def protocol_schema() -> None:
    """Print the JSON Schema of every message, from the models.

    Generated from the pydantic models of arena.play.protocol; protocol.schema.json is this output.
    """
    from arena.play.protocol import json_schema

    click.echo(json.dumps(json_schema(), indent=2, sort_keys=True))


# ---- tournaments and results ----

FORMAT_OPTION = click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "csv", "json", "markdown"]),
    default="table",
    show_default=True,
    help="Output format.",
)
DB_OPTION = click.option(
    "--db", "db_path", type=click.Path(dir_okay=False), help="Results database (default: beside the config)."
)
SQLITE_HEADER = b"SQLite format 3\x00"
JSONL_SUFFIXES = (".jsonl", ".ndjson", ".json")


def _open_results(source: str | None, db_path: str | None) -> tuple[Store, TournamentConfig | None]:
    """The store and (when a config is given) the config behind a CONFIG-or-DB argument."""
    from pathlib import Path

    from arena.tournament.store import Store

    config = None
    if db_path is None:
        if source is None:
            raise click.UsageError("give a tournament CONFIG or a results DB (or --db)")
        path = Path(source)
        if path.suffix == ".toml":
            from arena.tournament.run import default_db

            config = _load_config(path)
            db_path = str(default_db(path))
        else:
            db_path = source
    elif source is not None and source.endswith(".toml"):
        config = _load_config(source)
    if not Path(db_path).exists():
        raise ArenaError(f"no results database at {db_path} (run the tournament first)")
    return Store.open(db_path, create=False), config


def _load_config(path: str | Path) -> TournamentConfig:
    """A tournament config, imported only by the commands given one (a database alone needs no validation models:
    ``arena ranking --db`` starts in half the time)."""
    from arena.tournament.config import load_config

    return load_config(path)


def _say_no_games(store: Store, fmt: str) -> bool:
    """For the table formats, say on stderr that ``store`` holds no game yet (instead of an empty table)."""
    if fmt in ("table", "markdown") and store.game_count() == 0:
        click.echo(f"no games stored yet in {store.path}", err=True)
        return True
    return False


@main.group()
def tournament() -> None:
    """Run round-robin tournaments from TOML configs.

    Every key of a config: arena config keys (docs/config.md). Examples: tournaments/.
    """


@tournament.command("run")
@click.argument("config_path", type=click.Path(dir_okay=False))
@DB_OPTION
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    help="Matches in parallel (default: config, else cores; on a Dask cluster, twice its worker threads).",
)
@click.option("--quiet", is_flag=True, help="No progress display.")
@click.option(
    "--stall-timeout",
    type=click.FloatRange(min=1),
    help="End a match that finishes no game for this many seconds (default: from its clock, at least 300).",
)
@click.option(
    "--executor",
    "executor_kind",
    type=click.Choice(["local", "dask"]),
    help="Where matches run: here, or on a Dask cluster (default: the config's [executor], else local).",
)
@click.option("--scheduler", help="The Dask scheduler's address, e.g. tcp://HOST:8786 (implies --executor dask).")
@FORMAT_OPTION
@click.option(
    "--report",
    "report_dir",
    type=click.Path(file_okay=False),
    help="Keep the HTML report (arena report) in this folder current while the run goes on: a live leaderboard.",
)
def tournament_run(
    config_path: str,
    db_path: str | None,
    jobs: int | None,
    quiet: bool,
    stall_timeout: float | None,
    executor_kind: str | None,
    scheduler: str | None,
    fmt: str,
    report_dir: str | None,
) -> None:
    """Run (or resume) a tournament and print its ranking table.

    The tournament is the one in CONFIG_PATH; its results go to a database beside it (or --db).

    Ctrl-C stops it cleanly (exit code 130): the games played are kept, and the same command resumes. A run
    whose matches could not all be played (a referee that failed: the warnings say why) exits with code 1 after
    the table of what was played; the same command plays the rest. Bots' logs go to DB-logs/ beside the results
    database. If any bot broke a rule, its violations by kind and the first
    line of its error from its log follow the table (on stderr), and a warning for a bot that forfeited every game.
    """
    from pathlib import Path

    if not scheduler and executor_kind in (None, "local"):  # matches here (unless the config says otherwise):
        from arena.play import forkserver

        # the referees' fork server imports the referee while this command imports and prepares the rest (its
        # first referee forks ~0.3 s in); where the run ends up elsewhere, it exits with this process unused
        forkserver.warm(forkserver.REFEREES)
    from arena.tournament.config import load_config
    from arena.tournament.run import default_db

    path = Path(config_path)
    config = load_config(path)
    db = Path(db_path) if db_path else default_db(path)
    commands = _config_entrants(config, path)
    log_dir = str(db.with_suffix("")) + "-logs"
    executor = (executor_kind or ("dask" if scheduler else config.executor.kind), scheduler, stall_timeout)
    played = _play_tournament(config, db, commands, log_dir, jobs, quiet, executor, report_dir)
    _tell_tournament(config, commands, db, log_dir, played, fmt, report_dir)


def _play_tournament(
    config: TournamentConfig,
    db: Path,
    commands: dict[str, BotCommand],
    log_dir: str,
    jobs: int | None,
    quiet: bool,
    executor_choice: tuple[str, str | None, float | None],
    report_dir: str | None,
) -> tuple[RunReport, list[tuple[str, GameRecord]], list[Row], str | None]:
    """``tournament run``'s run: what it played, every stored game by key, the table's rows, and why the live
    report stopped being written (None: it did not). Ctrl-C (or a run the pool stopped) ends the command here."""
    from arena.report.live import live_report
    from arena.tournament.executor import open_executor
    from arena.tournament.growth import settle_seed
    from arena.tournament.progress import ProgressPrinter
    from arena.tournament.ranking import ranking
    from arena.tournament.run import run_tournament, total_games
    from arena.tournament.store import Store

    kind, scheduler, stall_timeout = executor_choice
    printer = None if quiet else ProgressPrinter()
    where = config.executor
    running = open_executor(
        kind,
        scheduler=scheduler or where.scheduler,
        shared=where.shared,
        connect_timeout=where.connect_timeout,
        pin=config.pin,
        stall_timeout=stall_timeout,
    )
    with Store.open(db) as store, running as (executor, capacity):

        def close_printer() -> None:
            nonlocal printer
            if printer:
                printer.close()
                printer = None

        def stopped() -> NoReturn:
            with stop_signals_ignored():
                close_printer()
                total = total_games(settle_seed(store, config), list(commands))  # as its results file plays
                click.echo(
                    f"Interrupted: {store.game_count()}/{total} games stored in {db}. Run the same command to resume.",
                    err=True,
                )
            ignore_stop_signals()  # said: a Ctrl-C more while the process ends must not make it die of it
            raise SystemExit(130)

        try:
            with live_report(report_dir, db, config) as live:  # its last write when the run ends, however it ends
                report = run_tournament(
                    config,
                    store,
                    commands,
                    jobs=jobs or capacity or config.job_count(),
                    log_dir=log_dir,
                    executor=executor,
                    on_progress=printer.update if printer else None,
                )
            close_printer()
            for error in report.errors:
                click.echo(f"warning: {error}", err=True)
            if report.interrupted:
                stopped()
            records = [(key, record) for _, key, record in store.records()]
            rows = ranking(records, bootstrap=config.rating.bootstrap, confidence=config.rating.confidence)
        except KeyboardInterrupt:  # a second Ctrl-C while the first was stopping the run, or one after it
            stopped()
    return report, records, rows, None if live is None else live.error


def _tell_tournament(
    config: TournamentConfig,
    commands: dict[str, BotCommand],
    db: Path,
    log_dir: str,
    played: tuple[RunReport, list[tuple[str, GameRecord]], list[Row], str | None],
    fmt: str,
    report_dir: str | None,
) -> None:
    """``tournament run``'s last words: the run in one line, the table, the bots' violations; exit code 1 where
    games are left unplayed."""
    from pathlib import Path

    from arena.tournament.account import violation_summary
    from arena.tournament.gauntlet import candidate_name, gauntlet_section
    from arena.tournament.ranking import copies_partnered, format_ranking

    report, records, rows, live_error = played
    # a drawn seed, for the organiser to publish: it tells a bot every card of any game added to the file later
    drawn = (
        f", secret seed {report.seed} (publish it once no game will be added)"
        if report.done == report.total and config.seed is None
        else ""
    )
    click.echo(
        f"{config.name}: {report.done}/{report.total} games ({report.played} played now), results in {db}{drawn}"
    )
    if report_dir:
        if live_error:
            click.echo(f"warning: the report stopped being updated: {live_error}", err=True)
        click.echo(f"report: {(Path(report_dir) / 'index.html').resolve()}", err=True)
    if report.grown:
        click.echo(f"grown: {'; '.join(report.grown)}")
    partnered = sum(copies_partnered(record) for _, record in records)
    click.echo(
        format_ranking(rows, fmt, partnered=partnered)
        + gauntlet_section(records, candidate_name(config, commands), fmt)
    )
    lines, never = violation_summary((record for _, record in records), log_dir)
    if lines:
        click.echo(terminal_safe("\n".join(["", *lines])), err=True)
    for name, count in never:
        click.echo(f"warning: {name} forfeited {_every(count)}: see its log above", err=True)
    if report.done < report.total:  # matches failed (the warnings above say why): not a finished tournament
        click.echo(
            f"warning: {report.total - report.done} of {report.total} games were not played: run the same command"
            " to play them",
            err=True,
        )
        raise SystemExit(1)


RANKING_HELP = """Ranking table of a tournament: Elo, interval, LOS, results.

\b
Columns (Elo, its interval and LOS: docs/ratings.md):
  Elo          the rating, centred on the mean of the bots
  +/- (95%)    the interval around it
  LOS next     likelihood of superiority over the bot on the next row
  games        games the bot played
  W-D-L        wins, draws (undecided at max_hands) and losses; in
               three-hand 1st-D-L, a first place counting as a win
  score %      its pairwise results won, a draw counting half
  pts/hand     points its side scored per hand it played, hands where
               nobody or the other side scored included (1 for making
               trump, 2 for a march or a euchre, 4 for a lone march):
               how much it scores, where W-D-L counts only games
  violations   rule violations charged to it (arena games --bot NAME)
"""


@main.command("ranking", help=RANKING_HELP)
@click.argument("source", required=False)
@DB_OPTION
@FORMAT_OPTION
@click.option("--bootstrap", type=click.IntRange(min=0), help="0: no interval (default: the config's, else 1000).")
def ranking_command(source: str | None, db_path: str | None, fmt: str, bootstrap: int | None) -> None:
    from arena.tournament.gauntlet import CANDIDATE_META, gauntlet_section
    from arena.tournament.ranking import copies_partnered, format_ranking, ranking

    store, config = _open_results(source, db_path)
    settings = config.rating if config else None
    partnered = 0  # games whose teams were two copies of one bot

    def counted(records: Iterator[tuple[int, str, GameRecord]]) -> Iterator[tuple[str, GameRecord]]:
        nonlocal partnered
        for _, key, record in records:
            partnered += copies_partnered(record)
            yield key, record

    with store:
        if _say_no_games(store, fmt):
            return
        rows = ranking(  # records streamed from the store: a million of them need not fit in memory at once
            counted(store.records()),
            bootstrap=bootstrap if bootstrap is not None else settings.bootstrap if settings else 1000,
            confidence=settings.confidence if settings else 0.95,
        )
        duels = gauntlet_section(_records(store), store.get_meta(CANDIDATE_META), fmt)
        missing = _games_missing(source, config, store) if source and config else None
    click.echo(format_ranking(rows, fmt, partnered=partnered) + duels)
    if missing:
        stored, total = missing
        click.echo(
            f"warning: {total - stored} of the tournament's {total} games are not stored: the table is of the"
            f" {stored} played (arena tournament run {source} plays the rest)",
            err=True,
        )


def _games_missing(source: str, config: TournamentConfig, store: Store) -> tuple[int, int] | None:
    """(games stored, games in the tournament) when some are missing; None when none are, or its entrants cannot
    be found now (the table is then what was stored, as ever)."""

    from arena.tournament.growth import settle_seed
    from arena.tournament.run import total_games

    try:
        commands = _config_entrants(config, source)
    except ArenaError:
        return None
    try:
        total = total_games(settle_seed(store, config), list(commands))  # as its results file was played
    except ArenaError:
        return None
    stored = store.game_count()
    return (stored, total) if stored < total else None


def _config_entrants(config: TournamentConfig, path: str | Path) -> dict[str, BotCommand]:
    """The bots of the tournament config read from ``path``, as ``arena tournament run`` resolves them (registered
    names too; paths from the config's folder); an error naming the config (as given) when one cannot be found."""
    from pathlib import Path

    from arena.tournament.registry import Registry
    from arena.tournament.run import resolve_entrants

    try:
        return resolve_entrants(config.entrants, Registry.default().lookup, folder=Path(path).parent)
    except ArenaError as exc:
        raise ArenaError(f"{path}: entrants: {exc}") from None


@main.command("crosstable")
@click.argument("source", required=False)
@DB_OPTION
@FORMAT_OPTION
def crosstable_command(source: str | None, db_path: str | None, fmt: str) -> None:
    """Score of each bot against each other bot.

    Each cell is the row bot's pairwise results against the column bot over their games (a draw counts half).
    """
    from arena.tournament.gauntlet import CANDIDATE_META, gauntlet_section
    from arena.tournament.ranking import crosstable

    store, _ = _open_results(source, db_path)
    with store:
        if _say_no_games(store, fmt):
            return
        duels = gauntlet_section(_records(store), store.get_meta(CANDIDATE_META), fmt)
        click.echo(crosstable(((key, record) for _, key, record in store.records()), fmt) + duels)


def _records(store: Store) -> Iterator[tuple[str, GameRecord]]:
    """The stored games as (game_key, record), streamed."""
    return ((key, record) for _, key, record in store.records())


GAME_COLUMNS = ["id", "game", "players", "scores", "winners", "hands", "forfeit", "violations"]


@main.command("games")
@click.argument("source", required=False)
@DB_OPTION
@click.option("--bot", help="Only games this bot played.")
@click.option("--forfeits", is_flag=True, help="Only games lost by forfeit.")
@click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True, help="Show at most this many.")
@click.option(
    "--offset", type=click.IntRange(min=0), default=0, show_default=True, help="Skip this many first (next page)."
)
@FORMAT_OPTION
def games_command(
    source: str | None, db_path: str | None, bot: str | None, forfeits: bool, limit: int, offset: int, fmt: str
) -> None:
    """List stored games: players, scores, winners, forfeits.

    One row per game (its id and key, for arena replay), --limit at a time from --offset, in the order played.
    """
    from arena.tournament.tables import render

    store, _ = _open_results(source, db_path)
    with store:
        rows = store.list_games(bot=bot, forfeits=forfeits, limit=limit, offset=offset)
        whole = offset == 0 and len(rows) < limit  # else count the matching games
        matching = len(rows) if whole else store.count_games(bot=bot, forfeits=forfeits)
        stored = store.game_count()
    table = [
        {
            "id": r.id,
            "game": r.game_key,
            "players": " ".join(r.players),
            "scores": " ".join(str(s) for s in r.final_scores),
            "winners": ",".join(sorted({r.players[w] for w in r.winners})),
            "hands": r.hands,
            "forfeit": r.forfeit_kind or "",
            "violations": r.violations,
        }
        for r in rows
    ]
    if fmt == "json":
        click.echo(json.dumps(table, indent=2))
        return
    if fmt == "csv":
        click.echo(render(GAME_COLUMNS, [[row[c] for c in GAME_COLUMNS] for row in table], "csv"))
        return
    if not table:
        wanted = " and ".join(
            part for part in (f"--bot {bot}" if bot else "", "--forfeits" if forfeits else "") if part
        )
        if stored == 0:
            why = "no games stored yet"
        elif matching == 0:
            why = f"no game matches {wanted} ({stored} stored)"
        else:
            why = f"no games past --offset {offset}: {matching} {'match' if wanted else 'stored'}"
        click.echo(f"{why} in {store.path}", err=True)
        return
    terminal = render(GAME_COLUMNS, [[row[c] for c in GAME_COLUMNS] for row in table], fmt)
    click.echo(terminal_safe(terminal))
    if offset > 0 or len(table) < matching:
        more = f"; next page: --offset {offset + len(table)}" if offset + len(table) < matching else ""
        shown = f"{offset + 1}" if len(table) == 1 else f"{offset + 1}-{offset + len(table)}"
        click.echo(f"\n{len(table)} of {matching} games ({shown}){more}")


def _source_kind(text: str) -> str | None:
    """What a replay SOURCE is: ``config``, ``db`` or ``jsonl`` (by its suffix, or its first bytes), else None."""
    from pathlib import Path

    path = Path(text)
    if path.suffix == ".toml":
        return "config"
    if path.is_file():
        try:
            with open(path, "rb") as file:
                head = file.read(len(SQLITE_HEADER))
        except OSError:
            return None
        return "db" if head == SQLITE_HEADER else "jsonl"
    return "jsonl" if path.suffix in JSONL_SUFFIXES else None


def _jsonl_lines(path: Path) -> list[tuple[int, str]]:
    """The non-blank lines of a record file, each with its line number."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ArenaError(f"{path}: not a JSONL file of game records (not UTF-8 text)") from None
    return [(number, line) for number, line in enumerate(text.splitlines(), start=1) if line.strip()]


def _jsonl_record(path: Path, number: int, line: str) -> GameRecord:
    """The game record on one line of a record file; ArenaError naming the file and line if it is none."""
    from arena.engine.record import read_record
    from arena.errors import RecordError
    from arena.tournament.account import check_record

    try:
        check_record(json.loads(line))  # an object of this format at all, said plainly
        return read_record(line)  # and every field of it
    except json.JSONDecodeError as exc:
        raise ArenaError(f"{path} line {number}: not JSON ({exc.msg} at column {exc.colno})") from None
    except RecordError as exc:
        raise ArenaError(f"{path} line {number}: {exc}") from None


REPLAY_HELP = """Replay a game in words, from a tournament or a JSONL file.

\b
GAME is an id or key from arena games, or the number of a game in a record
file (arena match --record), counted from 1:
  arena replay 17 tournaments/four-hand.toml   game 17 of a tournament
  arena replay 17 tournaments/four-hand.db     the same, from its results
  arena replay games.jsonl                     every game of the file
  arena replay 3 games.jsonl                   the file's third game
"""


@main.command("replay", help=REPLAY_HELP)
@click.argument("game")
@click.argument("source", required=False)
@DB_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print the game record (JSON) instead of the account.")
def replay_command(game: str, source: str | None, db_path: str | None, as_json: bool) -> None:
    from pathlib import Path

    from arena.tournament.account import describe

    def show(record: GameRecord) -> None:
        click.echo(json.dumps(record, indent=2) if as_json else terminal_safe(describe(record)), nl=as_json)

    if source is None and db_path is None:
        kind = _source_kind(game)
        if kind in ("config", "db"):
            raise ArenaError(f"give the game to replay: arena replay GAME {game} (ids and keys: arena games {game})")
        if kind == "jsonl":  # every game of the file
            path = Path(game)
            lines = _jsonl_lines(path)
            if not lines:
                raise ArenaError(f"{path} holds no game record")
            records = [_jsonl_record(path, number, line) for number, line in lines]
            for index, ((number, _), record) in enumerate(zip(lines, records, strict=True), start=1):
                if as_json:
                    click.echo(json.dumps(record, separators=(",", ":")))
                    continue
                if len(records) > 1:
                    if index > 1:
                        click.echo()
                    click.echo(f"=== game {index} of {len(records)} ({path} line {number})")
                show(record)
            return
    elif db_path is None and source is not None and _source_kind(source) == "jsonl":
        path = Path(source)
        lines = _jsonl_lines(path)
        if not lines:
            raise ArenaError(f"{path} holds no game record")
        if not game.isdigit() or not 1 <= int(game) <= len(lines):
            raise ArenaError(f"{path} holds games 1 to {len(lines)}: no game {game!r}")
        show(_jsonl_record(path, *lines[int(game) - 1]))
        return
    store, _ = _open_results(source, db_path)
    with store:
        _, _, record = store.game(int(game) if game.isdigit() else game)
    show(record)


@main.group("config")
def config_group() -> None:
    """Tournament configs: every key, and checking one.

    A config is a TOML file (tournaments/ has examples); arena config keys prints every key it may hold.
    """


@config_group.command("keys")
def config_keys() -> None:
    """Print every config key: its value, default and meaning.

    Generated from the config model, so it is always what the arena accepts; docs/config.md is this output.
    """
    from arena.tournament.config import config_reference

    click.echo(config_reference(), nl=False)


@config_group.command("check")
@click.argument("config_path", type=click.Path(dir_okay=False))
def config_check(config_path: str) -> None:
    """Check a config without playing, and say what it would play.

    Reads CONFIG_PATH and checks its keys, values, rules and entrants as arena tournament run would.
    """

    from arena.tournament.config import ConfigError, load_config, partnership_problem
    from arena.tournament.run import total_games

    config = load_config(config_path)
    if (problem := partnership_problem(config)) is not None:  # as a new results file would be: see growth
        raise ConfigError(f"{config_path}: {problem}")
    commands = _config_entrants(config, config_path)
    click.echo(
        f"{config_path}: {config.name}, {config.variant}, {len(commands)} entrants, "
        f"{total_games(config, list(commands))} games"
    )


@main.command("submit")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--name", help="Name to register the bot under (default: the file's name).")
@click.option("--time", "time_control", default=DEFAULT_TIME, show_default=True, help="Time control of the smoke game.")
def submit_command(path: str, name: str | None, time_control: str) -> None:
    """Validate a bot script and register it with a version.

    The bot must shake hands and play seeded smoke games against random without a violation.
    """
    from arena.tournament.registry import Registry

    row, added, validation = Registry.default().submit(path, name=name, time=time_control)
    if row is None:
        click.echo(f"Rejected {path}: it failed validation; nothing was registered.", err=True)
        for problem in validation.problems:
            click.echo(f"  - {problem}", err=True)
        raise SystemExit(1)
    state = "registered" if added else "already registered"
    click.echo(f"{row.name} version {row.version} {state} ({validation.games} smoke games clean)")


@main.command("doctor")
def doctor_command() -> None:
    """What this host gives a bot: its confinement, line by line.

    Which confinement of SECURITY.md this host gives a bot (users, namespaces, cgroups), one line each.
    """
    from arena.play import cgroups, forkserver
    from arena.play.matchspec import Limits
    from arena.play.sandbox import capabilities

    limits = Limits()
    for line in capabilities().describe():
        click.echo(line)
    click.echo(cgroups.describe(limits.memory_mb * 1024 * 1024, limits.processes, limits.cpu_cores))
    click.echo(descriptors_line(limits))
    click.echo(seats_line(limits))
    click.echo(forkserver.describe())


def seats_line(limits: Limits) -> str:
    """What a match of two, four and seven seats may ask of this host at ``limits``: one bot process tree a seat,
    each capped at its memory and tasks, all on one core (a bot thinks only while it is asked), and how many such
    matches fit this host's memory at their caps."""
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (1024 * 1024)
    cores = len(os.sched_getaffinity(0))
    tables = ", ".join(
        f"{n} seats {n * limits.memory_mb} MiB and {n * limits.processes} tasks"
        f" ({memory // (n * limits.memory_mb)} such matches fit at their caps)"
        for n in (2, 4, 7)
    )
    return f"a match at most: {tables}; each on one core; this host: {memory} MiB, {cores} cores (jobs: one per core)"


def descriptors_line(limits: Limits) -> str:
    """The open files a bot process gets at ``limits`` here: the referee holds each bot's connections, and fits
    ``open_files`` to the descriptors it may have (arena.play.referee.fitted_limits; SECURITY.md)."""
    from arena.play.matchspec import BotEntry, MatchSpec
    from arena.play.referee import fitted_limits

    def files(bots: int, referees: int) -> int:
        entrants = [BotEntry(name=f"b{k}", argv=["bot"]) for k in range(bots)]
        spec = MatchSpec(match_id="doctor", variant="two-hand", bots=entrants, games=[], limits=limits)
        return fitted_limits(spec, referees).open_files

    return (
        f"open files a bot process: {files(2, 1)} in a match of two bots, {files(4, 1)} of four, {files(7, 1)} of"
        f" seven; in a tournament {files(2, 2)}, {files(4, 2)} and {files(7, 2)} (of {limits.open_files}: what the"
        " referee can hold of their connections)"
    )


@main.command("bots")
def bots_command() -> None:
    """List the bundled and the registered bots, with versions."""
    from tabulate import tabulate

    from arena.play.botproc import BUNDLED, BUNDLED_DIR
    from arena.tournament.registry import Registry

    rows = [
        [b, "bundled", "", str(BUNDLED_DIR / f"{b}_bot.py")] for b in BUNDLED if (BUNDLED_DIR / f"{b}_bot.py").is_file()
    ]
    for bot in Registry.default().bots():
        rows.append([bot.name, bot.version + (" (latest)" if bot.latest else ""), bot.registered_at, bot.path])
    click.echo(tabulate(rows, headers=["bot", "version", "registered", "path"]))
