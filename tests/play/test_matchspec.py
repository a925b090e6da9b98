"""The match spec is read by hand (a referee process loads no validation library): strictly, every problem named by
its key, and the bot limits in agreement with the config's pydantic mirror of them."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from typing import Any

import pytest
from configs import match_spec
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from arena.play.matchspec import BotEntry, GameSpec, Limits, MatchSpec, SpecError
from arena.tournament.config import LimitsModel, bot_limits


def spec(**changes: Any) -> MatchSpec:
    return match_spec(["a", BotEntry(name="b", argv=["b"], transport="stdio")], [(1, [0, 1]), (2, [1, 0])], **changes)


def test_a_spec_goes_through_json_unchanged() -> None:
    original = spec(options={"deck": 32}, limits=Limits(memory_mb=512, readable=("/opt",)), cpus=[1], time="1+0")
    text = json.dumps(original.to_json())
    assert MatchSpec.from_json(json.loads(text)) == original
    assert MatchSpec.from_json(json.loads(text)).limits.readable == ("/opt",)  # a tuple again, as declared


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda d: d["games"][1].update(seed="2"), "spec.games[1].seed: must be an integer (got '2')"),
        (lambda d: d["games"][0].update(seating=[0, True]), "spec.games[0].seating[1]: must be an integer"),
        (lambda d: d["bots"][0].update(transport="pipe"), "spec.bots[0].transport: must be one of 'zmq', 'stdio'"),
        (lambda d: d["bots"][1].pop("argv"), "spec.bots[1]: 'argv' is missing"),
        (lambda d: d.update(colour="red"), "spec: unknown key 'colour'"),
        (lambda d: d["limits"].update(memory_mb=32), "spec.limits.memory_mb: must be at least 64 (got 32)"),
        (lambda d: d["limits"].update(cpu_cores=0), "spec.limits.cpu_cores: must be more than 0"),
        (lambda d: d["limits"].update(writable=["tmp"]), "spec.limits.writable: 'tmp' is not an absolute path"),
        (lambda d: d["limits"].update(writable=["/tmp"]), "spec.limits.writable: '/tmp' is one of the folders each"),
        (lambda d: d.update(max_decision=True), "spec.max_decision: must be a number (got True)"),
        (lambda d: d.update(games={}), "spec.games: must be a list (got dict)"),
        (lambda d: d.update(policy="lenient"), "spec.policy: must be one of 'forfeit', 'substitute'"),
        (lambda d: d.pop("match_id"), "spec: 'match_id' is missing"),
    ],
)
def test_a_bad_spec_is_refused_naming_the_key(change: Any, named: str) -> None:
    data = spec().to_json()
    change(data)
    with pytest.raises(SpecError) as refused:
        MatchSpec.from_json(data)
    assert str(refused.value).startswith(named), str(refused.value)


def test_a_spec_built_in_code_is_checked_as_one_read_from_json() -> None:
    with pytest.raises(SpecError, match=r"^games\[0\]\.seed: must be an integer"):
        spec().replace(games=[{"seed": 1.5, "seating": [0, 1]}])
    assert spec().replace(games=[{"seed": 3, "seating": [0, 1]}]).games == [GameSpec(seed=3, seating=[0, 1])]
    with pytest.raises(SpecError, match=r"^processes: must be at least 1"):
        Limits(processes=0)


def test_a_referee_given_a_bad_spec_says_so_in_one_line() -> None:
    data = spec().to_json()
    data["games"][0]["seed"] = None
    done = subprocess.run(
        [sys.executable, "-m", "arena.play.referee"], input=json.dumps(data), capture_output=True, text=True
    )
    assert done.returncode == 2
    assert done.stderr == "referee: bad match spec: spec.games[0].seed: must be an integer (got None)\n"


FIELD_VALUES = st.one_of(
    st.integers(-5, 9000),
    st.booleans(),
    st.none(),
    st.floats(-2, 4, allow_nan=False),
    st.sampled_from(["64", "", "/abs", "rel"]),
    st.lists(st.sampled_from(["/opt", "/tmp/x", "relative", ""]), max_size=2),
)


@given(st.dictionaries(st.sampled_from([f.name for f in dataclasses.fields(Limits)] + ["swap_mb"]), FIELD_VALUES))
def test_the_referee_reads_limits_as_the_config_validates_them(values: dict[str, Any]) -> None:
    """What the referee's reader takes, the config's pydantic mirror takes too, giving the same limits; the mirror
    may be more lenient (it reads "64" from a --limit flag as 64), never stricter."""
    try:
        read: Limits | None = Limits.from_json(values)
    except SpecError:
        read = None
    try:
        mirrored: Limits | None = bot_limits(LimitsModel.model_validate(values))
    except ValidationError:
        mirrored = None
    if read is not None:
        assert mirrored == read, values
    if mirrored is None:
        assert read is None, values


def test_the_mirror_has_every_limit_with_its_default_and_description() -> None:
    for field in dataclasses.fields(Limits):
        info = LimitsModel.model_fields[field.name]
        assert info.default == field.default and info.description == field.metadata["description"]
    assert list(LimitsModel.model_fields) == [f.name for f in dataclasses.fields(Limits)]
