"""Which tournament a results file holds, and how that tournament may grow.

A results file is bound to the settings that decide its games (the config less what never changes a game: jobs,
pinning, the rating table) and to the code of its entrants. Run again with a config that differs, it is accepted
only if every stored game is still a game of the new config, played under the same rules by the same programs:
more deal sequences per pairing (``games_per_pairing`` raised) and more entrants grow it; any other change is
refused, naming the key that changed, and nothing stored is touched.
"""

from __future__ import annotations

import json
from typing import Any

from arena.engine.options import VARIANTS, RuleOptions
from arena.errors import ArenaError
from arena.play.botproc import BotCommand, file_digest
from arena.tournament.config import FREE, TournamentConfig
from arena.tournament.schedule import plan_games, scheduled_pairings
from arena.tournament.store import Store

GROWING = "games_per_pairing"
"""The one setting that may change (upwards): the tournament plays more deal sequences."""


class GrowthError(ArenaError):
    """The config (or an entrant's code) changed in a way the stored games cannot follow."""


def settings(config: TournamentConfig) -> dict[str, Any]:
    """What decides the games of ``config``, key by key (dotted keys for tables: ``options.points_to_win``)."""
    values = config.model_dump(mode="json", exclude=FREE | {"entrants"})
    preset = VARIANTS[config.variant].preset if config.variant in VARIANTS else {}
    values["options"] = RuleOptions.checked({**preset, **config.options}).to_json()
    return _flatten(values)


def entrant_digests(commands: dict[str, BotCommand]) -> dict[str, str]:
    """Each entrant's name and the digest of its program, in the config's order."""
    return {name: file_digest(command.argv[-1]) for name, command in commands.items()}


def planned_keys(config: TournamentConfig, names: list[str]) -> set[str]:
    """The keys of every game of the tournament ``config`` plays between ``names``."""
    keyed = config if config.seed is not None else config.model_copy(update={"seed": 0})  # keys need no seed
    return {g.key for p in scheduled_pairings(keyed, names) for g in plan_games(keyed, p)}


LEGACY_SEED = 1  # the default seed of the results files written before a config without one drew its own
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
    stored = json.loads(store.get_meta("config.settings") or "{}")
    played = stored.get("seed")
    if not isinstance(played, int) and store.get_meta("config.fingerprint") is not None:
        played = LEGACY_SEED
    if store.get_meta("config.fingerprint") is not None:
        # a config that does not say how to deal or how to form teams goes on as its results file has played
        kept = {key: stored.get(key, old) for key, old in LEGACY.items() if key not in config.model_fields_set}
        config = config.model_copy(update=kept)
    return config.with_seed(played)


def bind(store: Store, config: TournamentConfig, commands: dict[str, BotCommand]) -> list[str]:
    """Tie ``store`` to ``config`` and its entrants; return how the tournament grew (empty if it did not).

    Raises GrowthError, naming what changed, when the stored games are not games of this config played the same
    way; the store is then left as it was.
    """
    now, digests = settings(config), entrant_digests(commands)
    fingerprint = store.get_meta("config.fingerprint")
    if fingerprint is None:  # a new results file
        _save(store, config, now, digests)
        return []
    before = store.get_meta("config.settings")
    if before is None and store.get_meta("sprt.settings") is not None:
        raise GrowthError(
            f"{store.path}: this database holds the SPRT test {store.get_meta('config.name')!r}, not a tournament: "
            "resume it with arena sprt, or pass --db to start the tournament in another file"
        )
    known = _parse_entrants(store.get_meta("entrants"))
    if before is None:  # written before tournaments could grow: only the very same tournament may resume
        if fingerprint != config.fingerprint():
            raise GrowthError(
                f"{store.path}: this database belongs to tournament config {store.get_meta('config.name')!r} "
                f"(fingerprint {fingerprint[:12]}), not {config.name!r} (fingerprint {config.fingerprint()[:12]}); "
                "it was written by an older version that did not record the config key by key, so it can only be "
                "resumed unchanged; pass --db to use another database file"
            )
        if known is not None and known != digests:
            raise GrowthError(_entrants_changed(known, digests))
        _save(store, config, now, digests)  # from now on it may grow
        return []
    grown = _compare(store, config, json.loads(before), now)
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
        _save(store, config, now, digests)
    return grown


def _compare(store: Store, config: TournamentConfig, before: dict[str, Any], now: dict[str, Any]) -> list[str]:
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
    if any(name not in now or now[name] != digest for name, digest in known.items()):
        raise GrowthError(_entrants_changed(known, now))
    added = [name for name in now if name not in known]
    return [f"entrants + {', '.join(added)}"] if added else []


def _entrants_changed(known: dict[str, str], now: dict[str, str]) -> str:
    gone = [name for name in known if name not in now]
    edited = [name for name in known if name in now and now[name] != known[name]]
    what = [f"{name!r} is another program now ({known[name]} -> {now[name]})" for name in edited]
    what += [f"{name!r} is no longer an entrant, but its games are stored" for name in gone]
    return (
        f"the entrants changed since this tournament started: {'; '.join(what) or 'their code differs'}. "
        "A changed bot is a new entrant: register it under another name, or pass --db to start another tournament"
    )


def _save(store: Store, config: TournamentConfig, now: dict[str, Any], digests: dict[str, str]) -> None:
    store.set_meta("config.name", config.name)
    store.set_meta("config.fingerprint", config.fingerprint())
    store.set_meta("config.settings", json.dumps(now, sort_keys=True))
    store.set_meta("entrants", json.dumps(digests))


def _parse_entrants(text: str | None) -> dict[str, str] | None:
    """The stored entrants: JSON now, ``name=digest;name=digest`` in results files of older versions."""
    if text is None:
        return None
    if text.startswith("{"):
        parsed: dict[str, str] = json.loads(text)
        return parsed
    return dict(part.rpartition("=")[::2] for part in text.split(";") if part)


def _flatten(values: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in values.items():
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def _shown(value: Any) -> str:
    return "unset" if value is None else json.dumps(value)
