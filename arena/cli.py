"""The ``arena`` command line: one click group; library errors become clear messages here and only here."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

from arena import __version__
from arena.errors import ArenaError
from arena.signals import stop_like_ctrl_c
from arena.text import open_private, terminal_safe

if TYPE_CHECKING:  # the CLI imports its modules lazily: a command costs only what it uses
    from arena.engine.record import GameRecord


class ArenaGroup(click.Group):
    """A click group that turns ArenaError into a one-line message with exit code 2."""

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; report arena errors without a traceback."""
        try:
            return super().invoke(ctx)
        except ArenaError as exc:
            click.echo(f"Error: {exc}", err=True)
            ctx.exit(2)
        except OSError as exc:  # a path the user gave that cannot be read or written
            where = f": {exc.filename}" if exc.filename else ""
            click.echo(f"Error: {exc.strerror or exc}{where}", err=True)
            ctx.exit(2)


@click.group(cls=ArenaGroup)
@click.version_option(__version__, prog_name="arena")
def main() -> None:
    """Euchre Arena: programs play Euchre against each other."""
    stop_like_ctrl_c()  # kill -TERM and a closed terminal stop a run as Ctrl-C does (and it resumes the same way)


@main.group()
def bench() -> None:
    """Benchmarks measured side by side with a reference, in one run."""


@bench.command("engine")
@click.option("--seconds", type=click.FloatRange(min=0.1), default=3.0, show_default=True, help="Time per measurement.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")
def bench_engine(seconds: float, as_json: bool) -> None:
    """Random-playout hands/s of every variant, and pyspiel's euchre beside four-hand."""
    from arena.bench.engine import run

    result = run(seconds)
    if as_json:
        click.echo(json.dumps(result))
        return
    for variant, rate in result["hands_per_second"].items():
        click.echo(f"{variant:14} {rate:10.0f} hands/s")
    if result["ratio"] is None:
        click.echo("pyspiel        not installed (pip install open-spiel to compare)")
    else:
        click.echo(f"{'pyspiel':14} {result['pyspiel_four_hand']:10.0f} hands/s (four-hand, via Python API)")
        click.echo(f"ratio four-hand / pyspiel = {result['ratio']:.2f}")


@bench.command("protocol")
@click.option("--seconds", type=click.FloatRange(min=0.1), default=2.0, show_default=True, help="Ping-pong time.")
@click.option("--games", type=click.IntRange(min=2), default=20, show_default=True, help="Games of random bots.")
@click.option("--variant", default="four-hand", show_default=True, help="Variant of the match.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def bench_protocol(seconds: float, games: int, variant: str, as_json: bool) -> None:
    """Decisions/s through referee and random bots, beside raw pyzmq ping-pong of same-size messages."""
    from arena.bench.protocol import run

    result = run(seconds, games=games, variant=variant)
    if as_json:
        click.echo(json.dumps(result))
        return
    click.echo(f"message sizes: request {result['request_bytes']} B, reply {result['reply_bytes']} B")
    where = "one core, as matches run" if result["cpus"] else "placed by the OS: this system cannot pin"
    click.echo(f"arena   {result['arena_decisions_per_second']:10.0f} decisions/s ({variant}, random bots, {where})")
    click.echo(f"pyzmq   {result['pyzmq_round_trips_per_second']:10.0f} round trips/s (ping-pong, same sizes)")
    click.echo(f"ratio   {result['ratio']:.2f}  (median of rounds {result['round_ratios']})")
    click.echo(
        f"unpinned {result['arena_unpinned_decisions_per_second']:9.0f} decisions/s with the match spread by the OS: "
        f"ratio {result['ratio_unpinned']:.2f}"
    )
    click.echo(
        f"per game {result['seconds_per_game'] * 1000:.1f} ms, match setup (spawn + handshake) "
        f"{result['match_setup_seconds'] * 1000:.0f} ms"
    )
    stdio = result["stdio"]
    click.echo(f"stdio transport: request {stdio['request_bytes']} B, reply {stdio['reply_bytes']} B")
    click.echo(f"arena   {stdio['arena_decisions_per_second']:10.0f} decisions/s (the same bots on stdin/stdout)")
    click.echo(f"pipes   {stdio['pipe_round_trips_per_second']:10.0f} round trips/s (line ping-pong, same sizes)")
    click.echo(f"ratio   {stdio['ratio']:.2f}  (median of rounds {stdio['round_ratios']})")
    load = result["load_average"]
    if load is not None and load > 0.5:
        click.echo(f"warning: load average {load:.2f} before the run; the ratio is only meaningful on a quiet machine")


@bench.command("tournament")
@click.option("--games", type=click.IntRange(min=8), default=48, show_default=True, help="Games per run.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def bench_tournament(games: int, as_json: bool) -> None:
    """The same small tournament with jobs 1 and jobs 2 in one run: games/s and the ratio."""
    from arena.bench.tournament import run

    result = run(games)
    if as_json:
        click.echo(json.dumps(result))
        return
    click.echo(f"jobs 1  {result['jobs1_games_per_second']:8.2f} games/s")
    click.echo(f"jobs 2  {result['jobs2_games_per_second']:8.2f} games/s")
    click.echo(f"ratio   {result['ratio']:.2f}  ({result['games']} games per run)")


def parse_options(pairs: tuple[str, ...]) -> dict[str, Any]:
    """``KEY=VALUE`` flags into typed rule option overrides."""
    from arena.engine.options import parse_option_value

    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise click.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint="--option")
        options[key.strip()] = parse_option_value(key.strip(), value)
    return options


def parse_limits(pairs: tuple[str, ...]) -> Any:
    """``KEY=VALUE`` flags into the match's ``Limits`` (the keys of a config's ``[limits]`` table)."""
    from pydantic import ValidationError

    from arena.play.matchspec import Limits

    fields: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep:
            raise click.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint="--limit")
        if key not in Limits.model_fields:
            known = ", ".join(Limits.model_fields)
            raise click.BadParameter(f"no limit {key!r} (known: {known})", param_hint="--limit")
        listed = key in ("readable", "writable")
        fields[key] = [*fields.get(key, []), value] if listed else (None if value.lower() == "none" else value)
    try:
        return Limits.model_validate(fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise click.BadParameter(f"{where}: {first['msg']}", param_hint="--limit") from None


@main.command("match")
@click.argument("bots", nargs=-1, required=True)
@click.option("--variant", default="four-hand", show_default=True, help="two-hand, three-hand, four-hand, ...")
@click.option("--option", "option_pairs", multiple=True, metavar="KEY=VALUE", help="Override a rule option.")
@click.option("--games", type=click.IntRange(min=1), default=4, show_default=True, help="Number of games.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the first deal sequence.")
@click.option("--time", "time_control", default="5+0.1", show_default=True, help="BANK+INC seconds per game.")
@click.option(
    "--max-decision",
    type=click.FloatRange(min=0.01),
    default=10.0,
    show_default=True,
    help="Hard cap in seconds on any one decision.",
)
@click.option(
    "--policy",
    type=click.Choice(["forfeit", "substitute"]),
    default="forfeit",
    show_default=True,
    help="What a violation costs: the game, or a strike and a move played by the referee.",
)
@click.option(
    "--max-strikes",
    type=click.IntRange(min=1),
    default=3,
    show_default=True,
    help="Violations after which a bot forfeits the rest of the match.",
)
@click.option(
    "--max-hands",
    type=click.IntRange(min=1),
    default=1000,
    show_default=True,
    help="Hands after which an undecided game is drawn.",
)
@click.option("--record", "record_path", type=click.Path(dir_okay=False), help="Append game records (JSONL).")
@click.option(
    "--pin/--no-pin",
    default=True,
    show_default=True,
    help="Run the referee and its bots on one core, the idlest (faster; --no-pin for bots using several threads).",
)
@click.option(
    "--log-dir",
    type=click.Path(file_okay=False),
    default="logs",
    show_default=True,
    help="Where each bot's output goes.",
)
@click.option(
    "--limit",
    "limit_pairs",
    multiple=True,
    metavar="KEY=VALUE",
    help="What each bot may use, e.g. memory_mb=2048, processes=128, cpu_cores=1 (SECURITY.md: Limits).",
)
@click.option(
    "--trusted-bots",
    is_flag=True,
    help="Play even where this host cannot keep bots apart (not root, no user namespaces): for bots you trust.",
)
def match_command(
    bots: tuple[str, ...],
    variant: str,
    option_pairs: tuple[str, ...],
    games: int,
    seed: int,
    time_control: str,
    max_decision: float,
    policy: str,
    max_strikes: int,
    max_hands: int,
    record_path: str | None,
    pin: bool,
    log_dir: str,
    limit_pairs: tuple[str, ...],
    trusted_bots: bool,
) -> None:
    """Play a match between BOTS (bundled names or script paths), seats rotated over duplicate deals.

    Give one bot per seat, or two bots in four-hand to pit two teams of copies against each other. Each deal is
    played once per distinct seating: in every rotation of the seats, or, for two teams of copies in four-hand,
    twice (each team once in seats 0 and 2). --games counts games, not deals.
    """
    from arena.play.clock import TimeControl
    from arena.play.lineup import build_match, summarize

    options = parse_options(option_pairs)
    TimeControl.parse(time_control, max_decision=max_decision)
    spec = build_match(
        list(bots),
        variant=variant,
        options=options,
        games=games,
        seed=seed,
        time=time_control,
        max_decision=max_decision,
        policy=policy,
        max_strikes=max_strikes,
        max_hands=max_hands,
        log_dir=log_dir,
    )
    spec = spec.model_copy(update={"trusted_bots": trusted_bots, "limits": parse_limits(limit_pairs)})
    if pin:
        from arena.play.cpus import idlest

        spec = spec.model_copy(update={"cpus": idlest(1) or None})
    from arena.play.referee import run_match

    sink = open_private(record_path) if record_path else None
    results: list[GameRecord] = []

    def on_game(record: GameRecord) -> None:
        results.append(record)
        click.echo(terminal_safe(game_line(record)))
        if sink is not None:
            sink.write(json.dumps(record, separators=(",", ":")) + "\n")
            sink.flush()

    try:
        run_match(spec, on_game)
    finally:
        if sink is not None:
            sink.close()
    click.echo(summarize(results))


def game_line(record: GameRecord) -> str:
    """One line per finished game."""
    players, scores = record["players"], record["final_scores"]
    seats = "  ".join(f"{players[s]}:{scores[s]}" for s in range(len(players)))
    winners = ",".join(sorted({players[s] for s in record["winners"]}))
    extra = ""
    if "forfeit" in record:
        f = record["forfeit"]
        extra = f"  forfeit by seat {f['seat']} ({f['kind']})"
    return (
        f"game {record['game_index'] + 1:3}  seed {record['seed']}  {seats}  winner {winners}"
        f"  hands {len(record['hands'])}{extra}"
    )


@main.group()
def protocol() -> None:
    """The wire protocol (see protocol.md)."""


@protocol.command("schema")
def protocol_schema() -> None:
    """Print the JSON Schema of every message, generated from the pydantic models."""
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


def _open_results(source: str | None, db_path: str | None) -> tuple[Any, Any]:
    """The store and (when a config is given) the config behind a CONFIG-or-DB argument."""
    from pathlib import Path

    from arena.tournament.config import load_config
    from arena.tournament.run import default_db
    from arena.tournament.store import Store

    config = None
    if db_path is None:
        if source is None:
            raise click.UsageError("give a tournament CONFIG or a results DB (or --db)")
        path = Path(source)
        if path.suffix == ".toml":
            config = load_config(path)
            db_path = str(default_db(path))
        else:
            db_path = source
    elif source is not None and source.endswith(".toml"):
        config = load_config(source)
    if not Path(db_path).exists():
        raise ArenaError(f"no results database at {db_path} (run the tournament first)")
    return Store.open(db_path, create=False), config


@main.group()
def tournament() -> None:
    """Run round-robin tournaments from TOML configs in tournaments/."""


@tournament.command("run")
@click.argument("config_path", type=click.Path(dir_okay=False))
@DB_OPTION
@click.option("--jobs", type=click.IntRange(min=1), help="Matches in parallel (default: config, else cores).")
@click.option("--quiet", is_flag=True, help="No progress display.")
@click.option(
    "--stall-timeout",
    type=click.FloatRange(min=1),
    help="End a match that finishes no game for this many seconds (default: from its clock, at least 300).",
)
@FORMAT_OPTION
def tournament_run(
    config_path: str, db_path: str | None, jobs: int | None, quiet: bool, stall_timeout: float | None, fmt: str
) -> None:
    """Run (or resume) the tournament in CONFIG_PATH and print its ranking table."""
    from pathlib import Path

    from arena.tournament.config import load_config
    from arena.tournament.executor import LocalExecutor
    from arena.tournament.progress import ProgressPrinter
    from arena.tournament.ranking import format_ranking, ranking
    from arena.tournament.registry import Registry
    from arena.tournament.run import default_db, resolve_entrants, run_tournament
    from arena.tournament.store import Store

    path = Path(config_path)
    config = load_config(path)
    db = Path(db_path) if db_path else default_db(path)
    commands = resolve_entrants(config.entrants, Registry.default().lookup)
    log_dir = str(db.with_suffix("")) + "-logs"
    printer = None if quiet else ProgressPrinter()
    with Store.open(db) as store:
        report = run_tournament(
            config,
            store,
            commands,
            jobs=jobs or config.job_count(),
            log_dir=log_dir,
            executor=LocalExecutor(stall_timeout=stall_timeout),
            on_progress=printer.update if printer else None,
        )
        if printer:
            printer.close()
        for error in report.errors:
            click.echo(f"warning: {error}", err=True)
        if report.interrupted:
            click.echo(
                f"Interrupted: {report.done}/{report.total} games stored in {db}. Run the same command to resume.",
                err=True,
            )
            raise SystemExit(130)
        rows = ranking(
            ((key, record) for _, key, record in store.records()),
            bootstrap=config.rating.bootstrap,
            seed=config.seed,
            confidence=config.rating.confidence,
        )
    click.echo(f"{config.name}: {report.done}/{report.total} games ({report.played} played now), results in {db}")
    click.echo(format_ranking(rows, fmt))


@main.command("ranking")
@click.argument("source", required=False)
@DB_OPTION
@FORMAT_OPTION
@click.option("--bootstrap", type=click.IntRange(min=0), help="Bootstrap resamples (default: config, else 1000).")
def ranking_command(source: str | None, db_path: str | None, fmt: str, bootstrap: int | None) -> None:
    """Ranking table of a tournament: Bradley-Terry Elo with 95 % bootstrap interval and LOS."""
    from arena.tournament.ranking import format_ranking, ranking

    store, config = _open_results(source, db_path)
    with store:
        records = [(key, record) for _, key, record in store.records()]
    settings = config.rating if config else None
    rows = ranking(
        records,
        bootstrap=bootstrap if bootstrap is not None else settings.bootstrap if settings else 1000,
        seed=config.seed if config else 0,
        confidence=settings.confidence if settings else 0.95,
    )
    click.echo(format_ranking(rows, fmt))


@main.command("crosstable")
@click.argument("source", required=False)
@DB_OPTION
@FORMAT_OPTION
def crosstable_command(source: str | None, db_path: str | None, fmt: str) -> None:
    """Score of each bot against each other bot (pairwise results / games)."""
    from arena.tournament.ranking import crosstable

    store, _ = _open_results(source, db_path)
    with store:
        click.echo(crosstable(((key, record) for _, key, record in store.records()), fmt))


@main.command("games")
@click.argument("source", required=False)
@DB_OPTION
@click.option("--bot", help="Only games this bot played.")
@click.option("--forfeits", is_flag=True, help="Only games lost by forfeit.")
@click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True)
@click.option("--offset", type=click.IntRange(min=0), default=0)
@FORMAT_OPTION
def games_command(
    source: str | None, db_path: str | None, bot: str | None, forfeits: bool, limit: int, offset: int, fmt: str
) -> None:
    """List stored games (id, key, players, scores, winners, forfeits)."""
    from tabulate import tabulate

    store, _ = _open_results(source, db_path)
    with store:
        rows = store.list_games(bot=bot, forfeits=forfeits, limit=limit, offset=offset)
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
    elif fmt == "csv":
        import csv
        import sys

        writer = csv.DictWriter(sys.stdout, fieldnames=list(table[0]) if table else ["id"])
        writer.writeheader()
        writer.writerows(table)
    else:
        click.echo(tabulate(table, headers="keys", tablefmt="github" if fmt == "markdown" else "simple"))


@main.command("replay")
@click.argument("game")
@click.argument("source", required=False)
@DB_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print the game record instead of the account.")
def replay_command(game: str, source: str | None, db_path: str | None, as_json: bool) -> None:
    """A person-readable account of GAME (an id or key from `arena games`, or a JSONL record file)."""
    from pathlib import Path

    from arena.tournament.account import describe

    record: GameRecord
    if source is None and db_path is None and Path(game).is_file():
        lines = [line for line in Path(game).read_text().splitlines() if line.strip()]
        if not lines:
            raise ArenaError(f"{game} holds no game record")
        record = json.loads(lines[0])
    else:
        store, _ = _open_results(source, db_path)
        with store:
            _, _, record = store.game(int(game) if game.isdigit() else game)
    click.echo(json.dumps(record, indent=2) if as_json else terminal_safe(describe(record)))


@main.command("submit")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--name", help="Name to register the bot under (default: the file's name).")
@click.option("--time", "time_control", default="5+0.1", show_default=True, help="Time control of the smoke game.")
def submit_command(path: str, name: str | None, time_control: str) -> None:
    """Validate a bot script (handshake, a seeded smoke game against random) and register it with a version."""
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
    """What this host gives a bot: its confinement, one line each (SECURITY.md)."""
    from arena.play import cgroups
    from arena.play.matchspec import Limits
    from arena.play.sandbox import capabilities

    limits = Limits()
    for line in capabilities().describe():
        click.echo(line)
    click.echo(cgroups.describe(limits.memory_mb * 1024 * 1024, limits.processes, limits.cpu_cores))


@main.command("bots")
def bots_command() -> None:
    """List the bundled bots and the registered bots with their versions."""
    from tabulate import tabulate

    from arena.play.botproc import BUNDLED, BUNDLED_DIR
    from arena.tournament.registry import Registry

    rows = [
        [b, "bundled", "", str(BUNDLED_DIR / f"{b}_bot.py")] for b in BUNDLED if (BUNDLED_DIR / f"{b}_bot.py").is_file()
    ]
    for bot in Registry.default().bots():
        rows.append([bot.name, bot.version + (" (latest)" if bot.latest else ""), bot.registered_at, bot.path])
    click.echo(tabulate(rows, headers=["bot", "version", "registered", "path"]))
