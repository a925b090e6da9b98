"""Which run a results file holds: the one place that ties a file to the settings that decide its games and to the
code of its entrants, for tournaments and SPRT tests alike.

A results file holds one tournament or one SPRT test. Its first run writes, in the file's metadata, the settings
(JSON, with the deals' seed: one no bot can guess is drawn for a new file and kept here) and a digest of each
entrant's program; every later run reads them back and is refused, naming what changed, where it would play other
games. What may change is each kind's business: a tournament may grow (arena.tournament.growth), an SPRT test may
not (arena.sprt.run).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from arena.errors import ArenaError
from arena.play.botproc import BotCommand, file_digest
from arena.tournament.store import Store

Settings = dict[str, object]
"""A run's settings as stored: JSON values by key."""


class BindingError(ArenaError):
    """A results file holds another run, or this run with settings or entrants it was not played with."""


@dataclass(frozen=True)
class Kind:
    """A kind of run a results file can hold, and where its settings and entrants are kept."""

    what: str  # as a message names it
    settings_key: str
    entrants_key: str
    resume: str  # the command that resumes one


TOURNAMENT = Kind("tournament", "config.settings", "entrants", "arena tournament run")
SPRT = Kind("SPRT test", "sprt.settings", "sprt.entrants", "arena sprt")

LEGACY_SEED = 1
"""The seed of the tournaments stored before a config without one drew its own (their settings name none)."""


def held(store: Store) -> Kind | None:
    """The kind of run ``store`` holds; None for a new file."""
    if store.get_meta(SPRT.settings_key) is not None:
        return SPRT
    if store.get_meta("config.fingerprint") is not None:  # every tournament, those before settings were stored too
        return TOURNAMENT
    return None


def claim(store: Store, kind: Kind) -> None:
    """Refuse ``store`` if it holds a run of another kind, naming it and how to resume it."""
    other = held(store)
    if other is not None and other is not kind:
        raise BindingError(
            f"{store.path}: this database holds the {other.what} {store.get_meta('config.name')!r}, not a "
            f"{kind.what}: resume it with {other.resume}, or pass --db to start the {kind.what} in another file"
        )


def stored_settings(store: Store, kind: Kind) -> Settings | None:
    """The settings ``store`` was played with as ``kind``; None before its first run (or, for a tournament, if it
    was written before settings were stored)."""
    text = store.get_meta(kind.settings_key)
    if text is None:
        return None
    settings = json.loads(text)
    if not isinstance(settings, dict):
        raise BindingError(f"{store.path}: the stored {kind.settings_key} is not a JSON object")
    return settings


def stored_seed(store: Store, kind: Kind) -> int | None:
    """The seed of the deals ``store`` was played with; None for a new file."""
    seed = (stored_settings(store, kind) or {}).get("seed")
    if isinstance(seed, int):
        return seed
    return LEGACY_SEED if held(store) is kind is TOURNAMENT else None


def entrant_digests(commands: dict[str, BotCommand]) -> dict[str, str]:
    """Each entrant's name and the digest of its program, in the given order; with ``+`` and a digest of its
    arguments and runtime flags when it has any (one program with two settings is two entrants)."""
    return {name: entrant_digest(command) for name, command in commands.items()}


def entrant_digest(command: BotCommand) -> str:
    """The digest of a bot's program (its source, for a compiled one), and of its arguments and runtime flags."""
    digest = file_digest(command.program)
    if command.args or command.runtime_flags:
        given = json.dumps({"args": list(command.args), "runtime_flags": list(command.runtime_flags)})
        digest += "+" + hashlib.sha256(given.encode()).hexdigest()[:8]
    return digest


def stored_entrants(store: Store, kind: Kind) -> dict[str, str] | None:
    """The entrants ``store`` was played with (name -> program digest); None before its first run.

    JSON now; ``name=digest;name=digest`` in tournaments stored by older versions.
    """
    text = store.get_meta(kind.entrants_key)
    if text is None:
        return None
    if text.startswith("{"):
        parsed: dict[str, str] = json.loads(text)
        return parsed
    return dict(part.rpartition("=")[::2] for part in text.split(";") if part)


def entrants_changed(known: dict[str, str], now: dict[str, str], kind: Kind) -> str | None:
    """What changed among the entrants ``known`` (stored) for ``now``: an entrant gone or another program now; None
    if each is still there and the same (entrants added are the caller's business)."""
    gone = [name for name in known if name not in now]
    edited = [name for name in known if name in now and now[name] != known[name]]
    if not gone and not edited:
        return None
    what = [f"{name!r} is another program now ({known[name]} -> {now[name]})" for name in edited]
    what += [f"{name!r} is no longer an entrant, but its games are stored" for name in gone]
    return (
        f"the entrants changed since this {kind.what} started: {'; '.join(what)}. A changed bot is a new "
        f"entrant: register it under another name, or pass --db to start another {kind.what}"
    )


def save(
    store: Store, kind: Kind, name: str, settings: Settings, digests: dict[str, str], fingerprint: str | None = None
) -> None:
    """Bind ``store`` to a run: its name, settings and entrants, and a fingerprint of the settings (the given one,
    else a digest of the settings)."""
    text = json.dumps(settings, sort_keys=True)
    store.set_meta("config.name", name)
    store.set_meta("config.fingerprint", fingerprint or hashlib.sha256(text.encode()).hexdigest()[:16])
    store.set_meta(kind.settings_key, text)
    store.set_meta(kind.entrants_key, json.dumps(digests))
