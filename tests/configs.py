"""Tournament configs and match specs for the tests, built one way: the tests' defaults, and what a test changes.

A tournament config starts from ``TOURNAMENT`` (two-hand, the cheapest games to play, the bundled heuristic bot
against the bundled random one); a test gives every other key it needs as a keyword argument, and a key it does not
give is the arena's default. ``tournament_toml`` writes the config as a user would (``write_config`` into a file),
``tournament_config`` makes the object the arena reads it into. A match spec (``match_spec``) is a two-hand match
with id ``m`` and no games unless the test says otherwise, the arena's defaults for the rest; given the test's
``tmp_path`` it has an id of its own and its logs there.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from arena.play.matchspec import BotEntry, GameSpec, MatchSpec
from arena.tournament.config import TournamentConfig

TOURNAMENT: dict[str, Any] = {"variant": "two-hand", "entrants": ["heuristic", "random"]}
"""The keys every test config has unless the test gives them (``None`` leaves a key out: the arena's default)."""


def _toml(value: Any) -> str:
    """A value as TOML writes it: strings quoted (paths too), lists bracketed, booleans in lower case."""
    if isinstance(value, Path):
        value = str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a TOML basic string: JSON's escapes are TOML's
    if isinstance(value, list | tuple):
        return "[" + ", ".join(map(_toml, value)) + "]"
    raise TypeError(f"no TOML for {value!r}")


def _settings(keys: dict[str, Any], base: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in (base | keys).items() if value is not None}


def tournament_toml(**keys: Any) -> str:
    """A tournament config file's text: ``TOURNAMENT`` with ``keys`` over it, in that order. A dict is a table
    (``rating={"bootstrap": 0}`` is ``[rating]``), written after the plain keys; a key given ``None`` is left out."""
    settings = _settings(keys, TOURNAMENT)
    lines = [f"{key} = {_toml(value)}" for key, value in settings.items() if not isinstance(value, dict)]
    for table, values in settings.items():
        if isinstance(values, dict):
            lines += ["", f"[{table}]", *(f"{key} = {_toml(value)}" for key, value in values.items())]
    return "\n".join(lines) + "\n"


def write_config(path: Path, **keys: Any) -> Path:
    """The config ``tournament_toml(**keys)`` written at ``path`` (a config without a name is named by its file)."""
    path.write_text(tournament_toml(**keys))
    return path


def tournament_config(**keys: Any) -> TournamentConfig:
    """The config ``tournament_toml(**keys)`` as the arena reads it, named ``t`` unless ``keys`` name it."""
    return TournamentConfig.model_validate(_settings(keys, {"name": "t", **TOURNAMENT}))


def games_per_seating(seatings: Iterable[list[int]]) -> list[tuple[int, list[int]]]:
    """One game per seating, dealt from seeds 0, 1, ... in turn (the ``games`` of ``match_spec``)."""
    return list(enumerate(seatings))


def match_spec(
    bots: Sequence[BotEntry | str],
    games: Iterable[GameSpec | tuple[int, list[int]]] = (),
    *,
    tmp_path: Path | None = None,
    **fields: Any,
) -> MatchSpec:
    """A match of ``bots`` (a name stands for a bot of that name whose program is the name) and ``games`` ((seed,
    seating) pairs), two-hand, its id ``m``, with ``fields`` over those (``variant``, ``time``, ``limits``...).

    With ``tmp_path``: an id of its own at each call instead (the specs of one test share no log files), and the
    match's logs in ``tmp_path/logs``."""
    defaults: dict[str, Any] = {"match_id": "m", "variant": "two-hand"}
    if tmp_path is not None:
        defaults |= {"match_id": f"m{time.monotonic_ns()}", "log_dir": str(tmp_path / "logs")}
    return MatchSpec(
        bots=[BotEntry(name=bot, argv=[bot]) if isinstance(bot, str) else bot for bot in bots],
        games=[game if isinstance(game, GameSpec) else GameSpec(seed=game[0], seating=game[1]) for game in games],
        **(defaults | fields),
    )


@contextlib.contextmanager
def rerun_cluster(tmp_path: Path) -> Iterator[tuple[MatchSpec, Any, Any]]:
    """The set-up of the Dask executor's re-run tests: a four-game two-hand match ``m1`` of random bots (deals 10 to
    13), a one-worker ``LocalCluster`` in this process with its scratch files under ``tmp_path``, and a client of
    it: ``(spec, cluster, client)``."""
    import dask
    import distributed

    from arena.play.botproc import resolve_bot

    bot = resolve_bot("random")
    bots = [BotEntry(name="a", argv=list(bot.argv)), BotEntry(name="b", argv=list(bot.argv))]
    spec = match_spec(
        bots, [(seed, [0, 1]) for seed in (10, 11, 12, 13)], match_id="m1", log_dir=str(tmp_path / "logs")
    )
    with (
        dask.config.set({"temporary-directory": str(tmp_path / "dask")}),  # the scheduler's scratch files
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None,
            local_directory=str(tmp_path / "dask"),
            scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
        ) as local_cluster,
        distributed.Client(local_cluster) as client,
    ):  # fmt: skip
        yield spec, local_cluster, client
