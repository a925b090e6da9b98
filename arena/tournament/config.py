"""Tournament configs: TOML files in tournaments/, validated into one frozen model with errors that name the key.

Every key carries its description here; ``config_reference`` turns the models into the reference of every key
(``arena config keys``, docs/config.md), so the documentation cannot drift from what is accepted.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
import os
import secrets
import tomllib
import types
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    ValidationInfo,
    create_model,
    field_validator,
    model_validator,
)
from pydantic.fields import FieldInfo
from pydantic_core import ErrorDetails

from arena import JSONObject
from arena.engine.options import DEFAULT_VARIANT, OPTION_DEFAULTS, OPTION_NAMES, VARIANTS, make_rules
from arena.errors import ArenaError
from arena.play.clock import TimeControl
from arena.play.matchspec import (
    DEFAULT_HANDSHAKE_TIMEOUT,
    DEFAULT_MAX_DECISION,
    DEFAULT_MAX_HANDS,
    DEFAULT_MAX_STRIKES,
    DEFAULT_POLICY,
    DEFAULT_TIME,
    Limits,
    SpecError,
    exposable,
    runtime_options,
)
from arena.play.protocol import option_types


class ConfigError(ArenaError, ValueError):
    """A tournament config is missing, not TOML, or has an unknown key or a bad value."""


# create_model's field definitions, given as **kwargs beside its own keywords (__config__, __base__): mypy checks
# each value against all of those, which only Any matches.
def _option_fields() -> dict[str, Any]:
    types = option_types()
    return {name: (types[name], default) for name, default in OPTION_DEFAULTS.items()}


RuleOptionsModel: type[BaseModel] = create_model(
    "RuleOptionsModel", __config__=ConfigDict(frozen=True, extra="forbid", strict=True), **_option_fields()
)
"""The engine's RuleOptions (a plain dataclass) as a pydantic model: validated and documented like every other key."""


class _LimitsChecks(BaseModel):
    """What the mirror of Limits checks beyond each field's type and bounds."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _given(cls, value: object) -> object:
        return value.to_json() if isinstance(value, Limits) else value

    @field_validator(*Limits.ABSOLUTE, check_fields=False)  # the fields come with the mirror below
    @classmethod
    def _absolute(cls, paths: tuple[str, ...]) -> tuple[str, ...]:
        return exposable(paths)


def _limits_fields() -> dict[str, Any]:
    hints = get_type_hints(Limits)
    return {f.name: (hints[f.name], Field(default=f.default, **f.metadata)) for f in dataclasses.fields(Limits)}


LimitsModel: type[BaseModel] = create_model(
    "Limits", __base__=_LimitsChecks, __doc__=Limits.__doc__, **_limits_fields()
)
"""The match's Limits (a plain dataclass, read by the referee without pydantic) as a pydantic model: the config's
``[limits]`` table and ``--limit`` flags are validated, explained and documented like every other key. It also takes
a Limits itself (``TournamentConfig(limits=Limits(...))``)."""


def bot_limits(model: BaseModel) -> Limits:
    """The Limits of a validated ``[limits]`` table."""
    return Limits.from_json(model.model_dump(mode="json"))


class RatingSettings(BaseModel):
    """How the ranking table is computed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    k: float = Field(
        default=16.0, gt=0, description="Kept for old configs; unused (the progress line shows the table's own fit)"
    )
    bootstrap: int = Field(
        default=1000,
        ge=0,
        description="0: no interval in the ranking table; any other value: intervals (docs/ratings.md; no resampling)",
    )
    confidence: float = Field(
        default=0.95, gt=0, lt=1, description="Confidence level of the interval (the table's +/- column)"
    )


class EntrantSettings(BaseModel):
    """An entrant written as a table: a bot under a name of its own, with arguments for its program and flags for its
    runtime (one program with two settings is two entrants)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(
        min_length=1,
        max_length=64,
        description="The name it is rated under (a gauntlet's candidate names it so)",
    )
    bot: str = Field(
        min_length=1,
        description="The bot, written as a plain entrant is: a bundled or registered name, "
        "or a script path (`stdio:PATH` for the stdio transport)",
    )
    args: list[str] = Field(default_factory=list, description='Arguments for its program, e.g. ["--samples", "2"]')
    runtime_flags: list[str] = Field(
        default_factory=list,
        description='Options for its runtime (java, node, python), each one word, e.g. ["-Xmx512m"] or '
        '["--stack-size=4000"]: before the arena\'s own (protocol.md §2)',
    )

    @field_validator("runtime_flags")
    @classmethod
    def _one_word(cls, value: list[str]) -> list[str]:
        try:
            runtime_options(value)
        except SpecError as exc:
            raise ValueError(str(exc).removeprefix("runtime_flags: ")) from None
        return value


Entrant = str | EntrantSettings
# A string or a table, each checked as what it is (an error names the one problem, not why it is not the other).
_EntrantField = Annotated[
    Annotated[str, Tag("bot")] | Annotated[EntrantSettings, Tag("table")],
    Discriminator(lambda value: "bot" if isinstance(value, str) else "table"),
]


def entrant_key(entrant: Entrant) -> str:
    """How an entrant is named in a config (``candidate``): as written, or a table's ``name``."""
    return entrant if isinstance(entrant, str) else entrant.name


class ExecutorSettings(BaseModel):
    """Where the matches run: on this machine, or on a Dask cluster (README: Run on a cluster)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["local", "dask"] = Field(
        default="local",
        description="local: referee processes on this machine; dask: one task per match on the workers of a Dask "
        "scheduler (pip install 'euchre-arena[dask]'); --executor overrides it",
    )
    scheduler: str | None = Field(
        default=None,
        description="The Dask scheduler's address, e.g. tcp://10.0.0.5:8786 (--scheduler overrides it); unset: "
        "DASK_SCHEDULER_ADDRESS",
    )
    shared: tuple[str, ...] = Field(
        default=(),
        description="Folders the workers see at the same path (a shared filesystem): bots there are not shipped, "
        "only checked by hash on the worker",
    )
    connect_timeout: float = Field(default=10.0, gt=0, description="Seconds to wait for the Dask scheduler to answer")

    @field_validator("shared")
    @classmethod
    def _absolute(cls, paths: tuple[str, ...]) -> tuple[str, ...]:
        for path in paths:
            if not os.path.isabs(path):
                raise ValueError(f"{path!r} is not an absolute path")
        return paths


def secret_seed() -> int:
    """A seed of deals that no bot can guess (62 random bits): bots run the arena's own engine, so from a known seed
    they could deal every hand themselves."""
    return secrets.randbits(62)


FREE: set[str] = {"jobs", "pin", "rating", "trusted_bots", "executor", "drop_page_cache"}
"""Config keys that never change a game: they may differ from run to run (where matches run among them), and no
fingerprint or results file's settings hold them."""


class TournamentConfig(BaseModel):
    """A round-robin tournament: who plays, under which rules, how many games, with what clock and seed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, description="The tournament's name, in its tables and its results database")
    variant: str = Field(default=DEFAULT_VARIANT, description="The rules preset (docs/rules.md)")
    options: JSONObject = Field(
        default_factory=dict,
        description="Rule options that change the variant's preset, e.g. stick_the_dealer = true ([options] below)",
    )
    entrants: list[_EntrantField] = Field(
        min_length=2,
        description="The bots that play, each once: bundled names (random, heuristic, search), names registered "
        "with `arena submit`, or script paths (`stdio:PATH` for a bot that speaks JSON lines on stdin and stdout); "
        'or tables with arguments, `{ name = "search-2x", bot = "search", args = ["--samples", "2"] }` '
        "(Entrants with arguments, below)",
    )
    games_per_pairing: int = Field(
        default=10, ge=1, description="Deal sequences per pairing (each played in every rotation when duplicate)"
    )
    games_per_match: int = Field(
        default=8,
        ge=1,
        description="Games in one match, the unit of work a parallel slot takes (its bot processes may carry on to "
        "the slot's next match of new deals)",
    )
    time: str = Field(
        default=DEFAULT_TIME,
        description="Clock per bot and game, BANK+INC in seconds: a bank, and an increment added at each decision",
    )
    max_decision: float = Field(
        default=DEFAULT_MAX_DECISION,
        gt=0,
        description="Hard cap in seconds on any one decision, whatever is left in the bank",
    )
    handshake_timeout: float = Field(
        default=DEFAULT_HANDSHAKE_TIMEOUT,
        gt=0,
        description="Seconds a bot has from its start to its hello (protocol.md §3), not on its clock: raise it for "
        "a runtime that starts slowly on a loaded host",
    )
    seed: int | None = Field(
        default=None,
        description="Seed of the deal sequences: the same seed deals the same cards. Left out, each new results file "
        "draws a secret one and keeps it, and `arena tournament run` shows it once every game is played (a known seed "
        "tells a bot every card dealt: publish it once the tournament is closed)",
    )
    jobs: int | None = Field(default=None, ge=1, description="Matches played in parallel (--jobs overrides it)")
    pin: bool = Field(default=True, description="Each parallel match on a core of its own (arena.play.cpus)")
    duplicate: bool = Field(
        default=True,
        description="Play each deal in every rotation of the seats, so that every entrant holds every hand once; "
        "false: one rotation per deal, in turn",
    )
    deals: Literal["pairing", "shared"] = Field(
        default="pairing",
        description="pairing: each pairing plays deals of its own; shared: every pairing the same deals (results "
        "files of versions before December 2026; an entrant playing two pairings at once may then hold one deal in "
        "two seats, so not for strangers)",
    )
    partnership: Literal["self", "mixed"] = Field(
        default="mixed",
        description="Teams of four-hand and six-hand: mixed (every split of every four, or six, entrants into teams: "
        "at least as many entrants as seats), or self (copies of one bot as a team, which can show each other their "
        "hands on one host: for bots you trust, SECURITY.md); see Seating below",
    )
    format: Literal["round-robin", "gauntlet"] = Field(
        default="round-robin",
        description="round-robin: every pairing of the entrants; gauntlet: only the pairings that include the "
        "candidate (the ranking then adds a table of the candidate against each opponent)",
    )
    candidate: str | None = Field(
        default=None,
        validate_default=True,
        description='The entrant a gauntlet pits against the others, written as in entrants (format = "gauntlet")',
    )
    policy: Literal["forfeit", "substitute"] = Field(
        default=DEFAULT_POLICY,
        description="What a violation costs: the game (forfeit), or a strike and a move the referee plays instead "
        "(substitute)",
    )
    max_strikes: int = Field(
        default=DEFAULT_MAX_STRIKES, ge=1, description="Violations after which a bot forfeits the rest of its match"
    )
    max_hands: int = Field(
        default=DEFAULT_MAX_HANDS, ge=1, description="A game not decided after this many hands is drawn"
    )
    trusted_bots: bool = Field(
        default=False, description="Play even where the host cannot keep bots apart (SECURITY.md); not for strangers"
    )
    drop_page_cache: bool | None = Field(
        default=None,
        description="Between rounds, drop the host's page cache, dentries and inodes (Linux, as root, matches on this "
        "machine): a bot of one round could otherwise leave the next a note in which file pages or names are cached "
        "(SECURITY.md, fair play). Left out: done where it can be, for bots not declared trusted; true: required; "
        "false: never. Every process of the host then reads its files from disk again (about 0.6 s a round)",
    )
    rating: RatingSettings = Field(default=RatingSettings(), description="How the ranking table is computed")
    limits: LimitsModel = Field(default=LimitsModel(), description="What each bot process may use (SECURITY.md)")
    executor: ExecutorSettings = Field(
        default=ExecutorSettings(), description="Where the matches run (jobs: on a cluster, its worker threads x 2)"
    )

    @field_validator("time")
    @classmethod
    def _time_control(cls, value: str) -> str:
        TimeControl.parse(value)
        return value

    @field_validator("entrants")
    @classmethod
    def _distinct(cls, value: list[Entrant]) -> list[Entrant]:
        keys = [entrant_key(e) for e in value]
        twice = sorted({name for name in keys if keys.count(name) > 1})
        if twice:
            raise ValueError(f"each entrant may appear once ({', '.join(map(repr, twice))} more than once)")
        return value

    @field_validator("candidate")
    @classmethod
    def _candidate(cls, value: str | None, info: ValidationInfo) -> str | None:
        form, entrants = info.data.get("format"), info.data.get("entrants")
        entrants = None if entrants is None else [entrant_key(e) for e in entrants]
        if value is None:
            if form == "gauntlet":
                raise ValueError('a gauntlet needs a candidate: candidate = "NAME", one of the entrants')
            return value
        if form == "round-robin":
            raise ValueError(f'{value!r} is a candidate, but format is "round-robin": set format = "gauntlet"')
        if entrants is not None and value not in entrants:
            raise ValueError(f"{value!r} is not an entrant (entrants: {', '.join(map(repr, entrants))})")
        return value

    def fingerprint(self) -> str:
        """A hash of everything that decides which games are played and how (not jobs or rating settings)."""
        # settings added later are left out at their defaults, so that older tournaments keep their fingerprint
        # (deals: at "shared", what every results file before the setting played)
        added = (
            ("limits", LimitsModel()),
            ("max_hands", DEFAULT_MAX_HANDS),
            ("format", "round-robin"),
            ("candidate", None),
            ("deals", "shared"),
            ("handshake_timeout", DEFAULT_HANDSHAKE_TIMEOUT),
        )
        later = {key for key, default in added if getattr(self, key) == default}
        fixed = self.model_dump(exclude=FREE | later)
        return hashlib.sha256(json.dumps(fixed, sort_keys=True).encode()).hexdigest()[:16]

    def with_seed(self, played: object) -> TournamentConfig:
        """This config with its deals' seed settled: its own, else ``played`` (the one its results file was played
        with) when that is an integer, else a secret one (``secret_seed``)."""
        if self.seed is not None:
            return self
        return self.model_copy(update={"seed": played if isinstance(played, int) else secret_seed()})

    def entrant_keys(self) -> list[str]:
        """Each entrant as the config names it (``entrant_key``), in order."""
        return [entrant_key(e) for e in self.entrants]

    def job_count(self) -> int:
        """Parallel matches: the config's jobs, or one per core."""
        return self.jobs or os.cpu_count() or 1


TABLES: dict[str, type[BaseModel]] = {  # the config's sub-tables
    "rating": RatingSettings,
    "limits": LimitsModel,
    "executor": ExecutorSettings,
}


def load_config(path: str | Path) -> TournamentConfig:
    """Read and validate a tournament config; every problem becomes a ConfigError naming the file and the key."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8-sig"))  # a BOM (Notepad's UTF-8) read as none
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such tournament config") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    data.setdefault("name", path.stem)
    try:
        config = TournamentConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{path}: {'; '.join(explain(exc, TournamentConfig))}") from None
    problem = rules_problem(config.variant, config.options)
    if problem:
        raise ConfigError(f"{path}: {problem}")
    return config


_WORDS = {4: "four", 6: "six"}


def partnership_problem(config: TournamentConfig) -> str | None:
    """Why the teams of ``config`` cannot be made, or None: ``mixed`` (the default) needs as many entrants as seats
    in a game of teams (four-hand, six-hand).

    Asked of a config settled with its results file (``growth.settle_seed``): a file played with ``self`` before
    ``mixed`` was the default goes on with ``self`` where its config does not say."""
    rules = make_rules(config.variant, config.options)
    if config.partnership != "mixed" or not rules.partnerships or len(config.entrants) >= rules.players:
        return None
    return (
        f'partnership = "mixed" (the default) puts {_WORDS[rules.players]} different entrants at each table, and '
        f'there are {len(config.entrants)}: add entrants, or set partnership = "self" for bots you trust (two copies '
        "of one bot as partners can show each other their hands on one host: SECURITY.md)"
    )


# ---- errors in the project's words ----

_NEEDS = {
    "int_type": "must be an integer",
    "int_parsing": "must be an integer",
    "int_from_float": "must be a whole number",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
    "bool_type": "must be true or false",
    "bool_parsing": "must be true or false",
    "string_type": "must be a string (in quotes)",
    "list_type": "must be a list, [ ... ]",
    "tuple_type": "must be a list, [ ... ]",
    "dict_type": "must be a table",
    "model_type": "must be a table",
    "model_attributes_type": "must be a table",
    "string_too_short": "must not be empty",
    "finite_number": "must be a finite number",
}

_MAX_REPORTED = 5


def explain(exc: ValidationError, model: type[BaseModel], *, noun: str = "key") -> list[str]:
    """Each problem of a failed validation of ``model`` in one phrase that names its key (``rating.k``)."""
    problems = [_explain_one(error, model, noun) for error in exc.errors()]
    if len(problems) > _MAX_REPORTED:
        problems = [*problems[:_MAX_REPORTED], f"and {len(problems) - _MAX_REPORTED} more"]
    return problems


def _explain_one(error: ErrorDetails, model: type[BaseModel], noun: str) -> str:
    loc = tuple(str(part) for part in error["loc"])
    dotted = ".".join(loc) or "config"
    key = f"{dotted!r}" if noun == "key" else f"{noun} {dotted!r}"
    kind, ctx, value = error["type"], error.get("ctx") or {}, error.get("input")
    if kind == "extra_forbidden":
        return f"unknown {noun} {dotted!r}{_suggestion(model, loc)}"
    if kind == "missing":
        info = _field_at(model, loc)
        what = info.description if info is not None and info.description else ""
        return f"missing {noun} {dotted!r}" + (f": {what[:1].lower()}{what[1:]}" if what else "")
    if kind in ("value_error", "assertion_error"):  # the validator's own words, which say what they got
        reason = str(ctx.get("error", "")) or error["msg"].removeprefix("Value error, ")
        return f"bad value for {key}: {reason}"
    if kind == "greater_than_equal":
        reason = f"must be at least {_toml(ctx['ge'])}"
    elif kind == "greater_than":
        reason = f"must be more than {_toml(ctx['gt'])}"
    elif kind == "less_than_equal":
        reason = f"must be at most {_toml(ctx['le'])}"
    elif kind == "less_than":
        reason = f"must be less than {_toml(ctx['lt'])}"
    elif kind == "too_short":
        reason = f"needs at least {ctx['min_length']} entries"
    elif kind == "too_long":
        reason = f"takes at most {ctx['max_length']} entries"
    elif kind in ("literal_error", "enum"):
        reason = f"must be {ctx['expected']}"
    elif kind in _NEEDS:
        reason = _NEEDS[kind]
    else:
        reason = error["msg"].removeprefix("Value error, ")
    return f"bad value for {key}: {reason} (got {_toml(value)})"


def _field_at(model: type[BaseModel], loc: Sequence[str]) -> FieldInfo | None:
    """The field of ``model`` (or of its sub-tables) at ``loc``, or None."""
    info = None
    for part in loc:
        info = model.model_fields.get(part)
        if info is None:
            return None
        inner = info.annotation
        if isinstance(inner, type) and issubclass(inner, BaseModel):
            model = inner
    return info


def _suggestion(model: type[BaseModel], loc: Sequence[str]) -> str:
    """`` (did you mean 'games_per_pairing'?)`` for a key close to a known one, in its table or another."""
    *table, key = loc
    for part in table:  # down to the table the key is in
        inner = model.model_fields[part].annotation if part in model.model_fields else None
        if not (isinstance(inner, type) and issubclass(inner, BaseModel)):
            return ""
        model = inner
    close = difflib.get_close_matches(key, list(model.model_fields), n=1, cutoff=0.6)
    if close:
        return f" (did you mean {close[0]!r}?)"
    if not table:  # a key of a sub-table written at the top, where it does nothing
        for name, sub in TABLES.items():
            if key in sub.model_fields:
                return f" (it belongs in the [{name}] table)"
        if key in OPTION_NAMES:
            return " (a rule option: it belongs in the [options] table)"
    return " (every key: `arena config keys`, docs/config.md)"


def rules_problem(variant: str, options: Mapping[str, object]) -> str | None:
    """What is wrong with the variant and rule options, in the config's words, or None."""
    if variant not in VARIANTS:
        close = difflib.get_close_matches(variant, list(VARIANTS), n=1, cutoff=0.6)
        hint = f"did you mean {close[0]!r}? " if close else ""
        return f"unknown variant {variant!r} ({hint}known: {', '.join(VARIANTS)})"
    for key in options:
        if key not in OPTION_NAMES:
            close = difflib.get_close_matches(key, OPTION_NAMES, n=1, cutoff=0.6)
            hint = f"did you mean {close[0]!r}? " if close else ""
            return f"unknown rule option {key!r} in [options] ({hint}known: {', '.join(OPTION_NAMES)})"
    try:
        RuleOptionsModel.model_validate({**VARIANTS[variant].preset, **options})
    except ValidationError as exc:
        return "; ".join(explain(exc, RuleOptionsModel, noun="rule option"))
    try:
        make_rules(variant, options)
    except ArenaError as exc:
        return str(exc)
    return None


def _toml(value: object) -> str:
    """A value as it is written in TOML: ``"fast"``, ``true``, ``[1, 2]``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + "}"
    if value is None:
        return "nothing"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value)) if value != 0 else "0"
    return str(value)


# ---- the reference of every key, generated from the models ----

_EXAMPLE = """\
name = "club-night"                # default: the file's name
variant = "four-hand"
entrants = ["search", "heuristic", "random", "bots/my_bot.py"]
games_per_pairing = 10
time = "5+0.1"
# no seed: a secret one is drawn and kept (a known seed tells a bot every card; publish it after the games)

[options]
stick_the_dealer = true

[rating]
confidence = 0.95

[limits]
memory_mb = 2048
"""


_ENTRANTS = """\
An entrant of `entrants` may be a table instead of a string: a bot under a name of its own, with arguments for its
program and options for its runtime, as cutechess-cli's `arg=` gives an engine. One program with two settings is
two entrants; its arguments and runtime flags are part of what identifies its games (a results file refuses the
same name with other ones, as it refuses another program). Inline tables mix with strings:

```toml
entrants = [
  "heuristic",
  { name = "search-fast", bot = "search", args = ["--samples", "0.5"] },
  { name = "search-deep", bot = "search", args = ["--samples", "4"] },
  { name = "mine", bot = "stdio:bots/Mine.java", runtime_flags = ["-Xmx600m", "-Dmine.depth=3"] },
]
```

or every entrant a table of its own, `[[entrants]]` then `name = ...`, `bot = ...`. The arena adds its own flags
to a runtime (protocol.md §2): a bot's `runtime_flags` may change the heap it is given, not its processor count or
where a JVM's warnings go."""


def config_reference() -> str:
    """Markdown reference of every config key: its value, default and meaning, from the models' fields."""
    lines = [
        "# Tournament config keys",
        "",
        "<!-- Generated from the config models (arena/tournament/config.py, arena/play/matchspec.py's Limits) by",
        "     `arena config keys > docs/config.md`; tests/tournament/test_config_docs.py keeps this file identical to",
        "     it. -->",
        "",
        "A tournament is a TOML file (examples in `tournaments/`) run by `arena tournament run CONFIG`. Only",
        "`entrants` is required. A key that is not listed here is refused, with the nearest known key suggested.",
        "",
        "```toml",
        *_EXAMPLE.splitlines(),
        "```",
        "",
        "## Top-level keys",
        "",
        *_table(TournamentConfig, defaults={"name": "the file's name", "jobs": "one per core"}),
    ]
    for name, model in TABLES.items():
        doc = (model.__doc__ or "").strip().splitlines()[0]
        lines += ["", f"## `[{name}]`", "", doc, "", *_table(model)]
    lines += ["", "## Entrants with arguments", "", *_ENTRANTS.splitlines(), "", *_table(EntrantSettings)]
    lines += [
        "",
        "## `[options]`",
        "",
        "Rule options, each changing the preset of `variant`; their rules are in [the rule book](rules.md).",
        "",
        "| variant | players | preset |",
        "| --- | --- | --- |",
        *(
            f"| `{v.name}` | {_counts(v.player_counts, v.players)} | "
            + (", ".join(f"`{k} = {_toml(x)}`" for k, x in v.preset.items()) or "the defaults")
            + " |"
            for v in VARIANTS.values()
        ),
        "",
        "| option | value | default |",
        "| --- | --- | --- |",
        *(
            f"| `{key}` | {_value_kind(info)} | `{_toml(info.default)}` |"
            for key, info in RuleOptionsModel.model_fields.items()
        ),
        "",
        *_SEATING.splitlines(),
    ]
    return "\n".join(lines) + "\n"


def _counts(counts: tuple[int, ...], default: int) -> str:
    """A variant's numbers of players: ``4``, or ``2 to 7 (4 unless `players` says)``."""
    if len(counts) == 1:
        return str(default)
    return f"{counts[0]} to {counts[-1]} ({default} unless `players` says)"


_SEATING = """## Seating: who plays whom, in which seats, and how it is rated

A tournament meets its entrants in **pairings**, each a table of the variant's seats, and plays every deal of a
pairing in each of its **rotations** (with `duplicate = true`; without, one rotation a deal, in turn), so that every
entrant (or team) holds every seat's cards of a deal once.

- **Two seats** (two-hand, Nap for two): every pair of entrants; 2 rotations (the entrants change seats).
- **Each for himself, 3 to 7 seats** (three-hand, Nap, five-hand, call-ace, seven-hand): every set of as many
  different entrants as seats; with fewer entrants than seats, one table of copies in turn (two entrants at five
  seats: `a b a b a`). One rotation per seat: in rotation `r`, seat `s` holds the entrant of place `s - r`.
- **Teams, `partnership = "self"`** (four-hand, six-hand): every set of as many entrants as sides, each entrant's
  copies one side (`a b a b`, `a b a b a b`, or `a b c a b c` in six-hand's teams of two). The teams move one seat
  on a rotation: 2 rotations with two sides (they change sides), 3 with three.
- **Teams, `partnership = "mixed"`**: every set of as many different entrants as seats, split every way into teams
  (four-hand 3 ways, six-hand's teams of three 10, its teams of two 15); rotations as with `self`.

**Ratings.** A game of teams is one result, the winning side over each other side (a slam counts twice; a draw at
the hand limit, every pair of sides drawn). A game each for himself at three seats or more is ranked by its final
standing: every seat against every seat of another entrant, the higher final score winning and equal scores drawing
(a seat that forfeits finishes last; copies of one entrant at a table are never compared). The ranking table's
`W-D-L` column is then `1st-D-L` (first places, draws, other games), and the crosstable counts these pairwise
results, so a seven-seat game of seven entrants adds 21 of them.

**Fair play.** The rotations of a deal are played in rounds: a round starts only once every bot process of the round
before has ended, whatever the table's size (SECURITY.md, duplicate deals).

**Resources.** A match of `N` seats runs `N` bot processes, each under the `[limits]` above (memory, tasks, one
core); `jobs` counts matches, so seven-seat matches start seven bots a job. `arena doctor` says what one match of
each table size needs of this host.
"""


def _table(model: type[BaseModel], defaults: dict[str, str] | None = None) -> list[str]:
    rows = ["| key | value | default | meaning |", "| --- | --- | --- | --- |"]
    for key, info in model.model_fields.items():
        default = (defaults or {}).get(key) or _default(key, info)
        meaning = (info.description or "").replace("|", "\\|")
        rows.append(f"| `{key}` | {_value_kind(info, key)} | {default} | {meaning} |")
    return rows


def _default(key: str, info: FieldInfo) -> str:
    if info.is_required():
        return "required"
    value = info.get_default(call_default_factory=True)
    if isinstance(value, BaseModel):
        return f"the `[{key}]` defaults"
    if value is None:
        return "none"
    if value in ({}, (), []):
        return "empty"
    return f"`{_toml(value)}`"


def _value_kind(info: FieldInfo, key: str = "") -> str:
    kind = "one of " + ", ".join(f"`{v}`" for v in VARIANTS) if key == "variant" else _kind(info.annotation)
    limits = []
    for constraint in info.metadata:
        for attr, words in (("ge", "at least"), ("gt", "more than"), ("le", "at most"), ("lt", "less than")):
            bound = getattr(constraint, attr, None)
            if bound is not None:
                limits.append(f"{words} {bound}")
        length = getattr(constraint, "min_length", None)
        if length is not None:
            limits.append("not empty" if kind == "string" else f"at least {length}")
    return kind + (f", {', '.join(limits)}" if limits else "")


_KINDS: dict[object, str] = {str: "string", int: "integer", float: "number", bool: "`true` or `false`"}


def _kind(annotation: object) -> str:
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:  # a type with its tag or discriminator: the type
        return _kind(args[0])
    if origin is Literal:
        return "one of " + ", ".join(f"`{_toml(a)}`" for a in args)
    if origin in (Union, types.UnionType):
        return " or ".join(_kind(a) for a in args if a is not type(None))
    if origin in (list, tuple):
        return f"list of {_kind(args[0])}s"
    if origin is dict or annotation is dict:
        return "table"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "table"
    return _KINDS.get(annotation, str(annotation))
