"""docs/config.md is exactly what the config models generate, and every key a config may hold is described there."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import ROOT
from pydantic import BaseModel

from arena.engine.options import OPTION_NAMES, VARIANTS
from arena.tournament.config import LimitsModel, RatingSettings, TournamentConfig, config_reference, load_config

DOCS = ROOT / "docs" / "config.md"


def test_committed_config_docs_match_the_models() -> None:
    assert DOCS.read_text() == config_reference(), "docs/config.md drifted: run `arena config keys > docs/config.md`"


@pytest.mark.parametrize("model", [TournamentConfig, RatingSettings, LimitsModel], ids=lambda m: m.__name__)
def test_every_key_has_a_description_and_a_row(model: type[BaseModel]) -> None:
    rows = [line for line in config_reference().splitlines() if line.startswith("| `")]
    for key, info in model.model_fields.items():
        assert info.description and info.description.strip(), f"{model.__name__}.{key} has no description"
        assert any(row.startswith(f"| `{key}` |") and info.description in row for row in rows), key


def test_every_variant_and_rule_option_is_listed() -> None:
    text = config_reference()
    for name in [*VARIANTS, *OPTION_NAMES]:
        assert f"| `{name}` |" in text


def test_the_example_in_the_reference_is_a_valid_config(tmp_path: Path) -> None:
    example = config_reference().split("```toml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "example.toml"
    path.write_text(example)
    config = load_config(path)  # entrants are resolved only when the tournament runs
    assert config.name == "club-night" and config.options == {"stick_the_dealer": True}
