"""The committed protocol.schema.json is exactly what the pydantic models generate."""

from __future__ import annotations

import json

from click.testing import CliRunner
from helpers import ROOT

from arena.cli import main
from arena.play.protocol import json_schema


def test_committed_schema_matches_the_models() -> None:
    committed = json.loads((ROOT / "protocol.schema.json").read_text())
    assert committed == json_schema(), (
        "protocol.schema.json drifted: run `arena protocol schema > protocol.schema.json`"
    )


def test_schema_command_prints_the_generated_schema() -> None:
    result = CliRunner().invoke(main, ["protocol", "schema"])
    assert result.exit_code == 0
    assert json.loads(result.output) == json_schema()
