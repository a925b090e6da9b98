"""The ``[executor]`` table of a tournament config, and the dask executor asked for where Dask is not installed:
what needs no Dask (test_dask_executor.py, which tests the executor on real clusters, skips where Dask is missing)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from configs import write_config
from helpers import ROOT

from arena.tournament.config import TournamentConfig, load_config

CONFIG = dict(name="executor-test", games_per_pairing=2, seed=5)


def test_the_executor_table_is_read_and_left_out_of_the_fingerprint(tmp_path: Path) -> None:
    path = write_config(tmp_path / "executor-test.toml", **CONFIG)
    plain = load_config(path)
    path.write_text(path.read_text() + '\n[executor]\nkind = "dask"\nscheduler = "tcp://10.0.0.5:8786"\n')
    config = load_config(path)
    assert (config.executor.kind, config.executor.scheduler) == ("dask", "tcp://10.0.0.5:8786")
    assert plain.executor.kind == "local"
    assert config.fingerprint() == plain.fingerprint()  # where matches run does not change the tournament
    assert TournamentConfig.model_fields["executor"].description


def test_the_dask_executor_without_dask_installed_says_how_to_get_it(tmp_path: Path) -> None:
    path = write_config(tmp_path / "executor-test.toml", **CONFIG)
    hide = "import sys; sys.modules['distributed'] = None; from arena.cli import main; main()"
    done = subprocess.run(
        [sys.executable, "-c", hide, "tournament", "run", str(path), "--scheduler", "tcp://127.0.0.1:1", "--quiet"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == "Error: the dask executor needs Dask: pip install 'euchre-arena[dask]'"
