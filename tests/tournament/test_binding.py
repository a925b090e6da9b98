"""arena.tournament.binding: a results file tied to one run's settings and entrants, tournament or SPRT test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.tournament.binding import (
    LEGACY_SEED,
    SPRT,
    TOURNAMENT,
    BindingError,
    claim,
    entrants_changed,
    held,
    save,
    stored_entrants,
    stored_seed,
    stored_settings,
)
from arena.tournament.store import Store


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "results.db") as opened:
        yield opened


def test_a_new_file_holds_nothing_and_either_kind_may_claim_it(store: Store) -> None:
    assert held(store) is None
    claim(store, TOURNAMENT)
    claim(store, SPRT)
    assert stored_settings(store, TOURNAMENT) is None and stored_seed(store, SPRT) is None
    assert stored_entrants(store, SPRT) is None


@pytest.mark.parametrize(("first", "then"), [(TOURNAMENT, SPRT), (SPRT, TOURNAMENT)])
def test_a_file_of_one_kind_is_refused_to_the_other_naming_it_and_how_to_resume(first, then, store: Store) -> None:
    save(store, first, "weekly", {"seed": 7}, {"a": "0123"})
    assert held(store) is first
    claim(store, first)
    with pytest.raises(BindingError) as refused:
        claim(store, then)
    message = str(refused.value)
    assert f"holds the {first.what} 'weekly', not a {then.what}" in message and first.resume in message


def test_the_seed_and_settings_come_back_as_saved(store: Store) -> None:
    save(store, SPRT, "t", {"seed": 123456789, "test": {"elo1": 5.0}}, {"new": "aa", "base": "bb"})
    assert stored_seed(store, SPRT) == 123456789
    assert stored_settings(store, SPRT) == {"seed": 123456789, "test": {"elo1": 5.0}}
    assert stored_entrants(store, SPRT) == {"new": "aa", "base": "bb"}


def test_a_tournament_stored_before_settings_were_kept_was_dealt_from_the_legacy_seed(store: Store) -> None:
    store.set_meta("config.fingerprint", "0" * 16)
    store.set_meta("entrants", "alpha=0a1b;beta=2c3d")  # the older versions' form
    assert held(store) is TOURNAMENT
    assert stored_seed(store, TOURNAMENT) == LEGACY_SEED
    assert stored_entrants(store, TOURNAMENT) == {"alpha": "0a1b", "beta": "2c3d"}


def test_the_default_fingerprint_follows_the_settings(store: Store) -> None:
    save(store, SPRT, "t", {"seed": 1}, {})
    first = store.get_meta("config.fingerprint")
    save(store, SPRT, "t", {"seed": 2}, {})
    assert first != store.get_meta("config.fingerprint") and len(first or "") == 16


def test_entrants_changed_names_an_entrant_gone_or_edited_and_lets_one_be_added() -> None:
    known = {"alpha": "aa", "beta": "bb"}
    assert entrants_changed(known, {**known, "gamma": "cc"}, TOURNAMENT) is None
    edited = entrants_changed(known, {"alpha": "aa", "beta": "b2"}, TOURNAMENT)
    assert edited is not None and "'beta' is another program now (bb -> b2)" in edited
    gone = entrants_changed(known, {"alpha": "aa"}, SPRT)
    assert gone is not None and "'beta' is no longer an entrant" in gone and "this SPRT test started" in gone
