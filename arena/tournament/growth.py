"""Which tournament a results file holds, and how that tournament may grow.

A results file is bound to the settings that decide its games (the config less what never changes a game: jobs,
pinning, the rating table) and to the code of its entrants. Run again with a config that differs, it is accepted
only if every stored game is still a game of the new config, played under the same rules by the same programs:
more deal sequences per pairing (``games_per_pairing`` raised) and more entrants grow it; any other change is
refused, naming the key that changed, and nothing stored is touched.
"""

from __future__ import annotations

import json

from arena.engine.options import VARIANTS, RuleOptions
from arena.play.botproc import BotCommand
from arena.tournament.binding import (
    TOURNAMENT,
    BindingError,
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
from arena.tournament.schedule import plan_games, scheduled_pairings
from arena.tournament.store import Store

GROWING = "games_per_pairing"
"""The one setting that may change (upwards): the tournament plays more deal sequences."""


class GrowthError(BindingError):
    """The config (or an entrant's code) changed in a way the stored games cannot follow."""


def settings(config: TournamentConfig) -> Settings:
    """What decides the games of ``config``, key by key (dotted keys for tables: ``options.points_to_win``)."""
    values = config.model_dump(mode="json", exclude=FREE | {"entrants"})
    preset = VARIANTS[config.variant].preset if config.variant in VARIANTS else {}
    values["options"] = RuleOptions.checked({**preset, **config.options}).to_json()
    return _flatten(values)


def planned_keys(config: TournamentConfig, names: list[str]) -> set[str]:
    """The keys of every game of the tournament ``config`` plays between ``names``."""
    keyed = config if config.seed is not None else config.model_copy(update={"seed": 0})  # keys need no seed
    return {g.key for p in scheduled_pairings(keyed, names) for g in plan_games(keyed, p)}


LEGACY = {"deals": "shared", "partnership": "self"}
"""Settings that results files played before their default changed or before they existed, with the value of those
days: a config that does not name one goes on with its results file's value, and a file that does not name one was
played with this value (not today's default)."""


def settle_seed(store: Store, config: TournamentConfig) -> TournamentConfig:
    """``config`` with its deals' seed: its own, else the one its results file was played with, else a secret one.

    Bots run the arena's own engine: from a known seed they can deal every hand themselves. So a config without a
    seed draws one that no bot can guess for a new results file; ``bind`` keeps it there with the other settings,
    and every resume reads it back. Nothing is written here.
    """
    if held(store) is TOURNAMENT:
        # a config that does not say how to deal or how to form teams goes on as its results file has played
        stored = stored_settings(store, TOURNAMENT) or {}
        kept = {key: stored.get(key, old) for key, old in LEGACY.items() if key not in config.model_fields_set}
        config = config.model_copy(update=kept)
    return config.with_seed(stored_seed(store, TOURNAMENT))


def bind(store: Store, config: TournamentConfig, commands: dict[str, BotCommand]) -> list[str]:
    """Tie ``store`` to ``config`` and its entrants (arena.tournament.binding); return how the tournament grew
    (empty if it did not).

    Raises GrowthError, naming what changed, when the stored games are not games of this config played the same
    way; the store is then left as it was.
    """
    now, digests = settings(config), entrant_digests(commands)
    claim(store, TOURNAMENT)
    fingerprint = store.get_meta("config.fingerprint")
    if fingerprint is None:  # a new results file
        save(store, TOURNAMENT, config.name, now, digests, config.fingerprint())
        return []
    before = stored_settings(store, TOURNAMENT)
    known = stored_entrants(store, TOURNAMENT)
    if before is None:  # written before tournaments could grow: only the very same tournament may resume
        if fingerprint != config.fingerprint():
            raise GrowthError(
                f"{store.path}: this database belongs to tournament config {store.get_meta('config.name')!r} "
                f"(fingerprint {fingerprint[:12]}), not {config.name!r} (fingerprint {config.fingerprint()[:12]}); "
                "it was written by an older version that did not record the config key by key, so it can only be "
                "resumed unchanged; pass --db to use another database file"
            )
        if known is not None and known != digests:
            raise GrowthError(
                entrants_changed(known, digests, TOURNAMENT)
                or f"{store.path}: entrants were added, and this database was written by an older version: it can "
                "only be resumed unchanged; pass --db to start another tournament"
            )
        save(store, TOURNAMENT, config.name, now, digests, config.fingerprint())  # from now on it may grow
        return []
    grown = _compare(store, config, before, now)
    if known is not None:
        grown += _compare_entrants(known, digests)
        stray = sorted(store.game_keys() - planned_keys(config, list(commands)))
        if stray:
            raise GrowthError(
                f"{store.path}: {len(stray)} stored games are not games of this config (e.g. {stray[0]!r}): "
                "did the order of the entrants change? Keep the old entrants in their order and add new ones; "
                "or pass --db to start another tournament"
            )
    if grown or fingerprint != config.fingerprint() or known != digests:
        save(store, TOURNAMENT, config.name, now, digests, config.fingerprint())
    return grown


def _compare(store: Store, config: TournamentConfig, before: Settings, now: Settings) -> list[str]:
    """How the settings grew; a GrowthError naming every other key that changed."""
    defaults = {**settings(TournamentConfig(name=config.name, entrants=["a", "b"])), **LEGACY}
    changed = []
    for key in sorted(before.keys() | now.keys()):
        old, new = before.get(key, defaults.get(key)), now.get(key, defaults.get(key))
        if old != new:
            changed.append((key, old, new))
    grown = []
    refused: dict[str, str] = {}
    for key, old, new in changed:
        if key == GROWING and isinstance(old, int) and isinstance(new, int) and new > old:
            grown.append(f"{key} {old} -> {new}")
        else:
            refused[key] = f"{key!r} was {_shown(old)}, now {_shown(new)}"
    if refused:
        name = store.get_meta("config.name")
        rule = (
            f"{GROWING!r} may not go down: games stored beyond it would stay in the table"
            if GROWING in refused
            else "only games_per_pairing (upwards) and the entrants (added) may change"
        )
        raise GrowthError(
            f"{store.path}: this database belongs to tournament config {name!r}, and the config changed since its "
            f"games were played: {'; '.join(refused.values())}. {rule[:1].upper()}{rule[1:]}; pass --db to start "
            "another tournament"
        )
    return grown


def _compare_entrants(known: dict[str, str], now: dict[str, str]) -> list[str]:
    """The entrants added; a GrowthError if one left or is another program now."""
    problem = entrants_changed(known, now, TOURNAMENT)
    if problem is not None:
        raise GrowthError(problem)
    added = [name for name in now if name not in known]
    return [f"entrants + {', '.join(added)}"] if added else []


def _flatten(values: Settings, prefix: str = "") -> Settings:
    flat: Settings = {}
    for key, value in values.items():
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def _shown(value: object) -> str:
    return "unset" if value is None else json.dumps(value)
