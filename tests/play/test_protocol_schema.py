"""The committed protocol.schema.json is exactly what the pydantic models generate."""

from __future__ import annotations

import json
from typing import get_args

from click.testing import CliRunner
from helpers import ROOT

from arena.cli import main
from arena.engine.actions import NAP_CONTRACTS
from arena.play.protocol import NapContractText, json_schema


def test_committed_schema_matches_the_models() -> None:
    committed = json.loads((ROOT / "protocol.schema.json").read_text())
    assert committed == json_schema(), (
        "protocol.schema.json drifted: run `arena protocol schema > protocol.schema.json`"
    )


def test_schema_command_prints_the_generated_schema() -> None:
    result = CliRunner().invoke(main, ["protocol", "schema"])
    assert result.exit_code == 0
    assert json.loads(result.output) == json_schema()


def test_the_wire_names_the_nap_contracts_of_the_engine_in_its_order() -> None:
    assert get_args(NapContractText) == NAP_CONTRACTS
