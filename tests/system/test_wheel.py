"""The package as a user installs it: a wheel built from the checkout, in a fresh virtualenv, run from elsewhere.

The wheel must carry everything ``arena`` needs at run time, the bundled bots among them. The fresh venv takes the
dependencies from the test environment's site-packages (a ``.pth`` line: no network) and the arena from the wheel
alone, and runs in a folder outside the checkout.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest
from configs import write_config
from helpers import ROOT

from tools.bytecode import distributions

PIP = [sys.executable, "-m", "pip"]
pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def install_dependencies(site: Path) -> None:
    """Copy the files of the arena's dependencies (and theirs) from this environment into ``site``: installed for
    real inside the venv (a bot's sandbox shows it its own runtime only), without the network.

    With each module its bytecode, where this environment has it (tools/bytecode.py, in make's set-up), as pip's
    install would have compiled it: the distributions' lists of files leave it out, and the installed arena's first
    processes (the
    command and its fork servers, side by side) each compiled pydantic, click and zmq again, ~1.5 processor
    seconds. ``copy2`` keeps the source's time, which the bytecode was compiled against."""
    for dist in distributions(extras=frozenset({""})):
        for file in dist.files or []:
            source = Path(str(dist.locate_file(file)))
            target = site / file
            if source.is_file() and not str(file).startswith(".."):
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)
                compiled = Path(importlib.util.cache_from_source(str(source)))
                if source.suffix == ".py" and compiled.is_file():
                    (target.parent / "__pycache__").mkdir(exist_ok=True)
                    shutil.copy2(compiled, target.parent / "__pycache__" / compiled.name)


def source_copy(folder: Path) -> Path:
    """The checkout's files that git does not ignore (tracked or new), copied to ``folder``: the wheel is built from
    them alone. Built in the checkout, setuptools would take what a past build left in its ignored ``build/``
    folder, and a package dropped from the wheel's list would still ship (an ``exclude`` of ``arena.sdk*`` passed)."""
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        check=True,
    )
    for name in filter(None, listed.stdout.decode().split("\0")):
        source = ROOT / name
        if source.is_file():  # a file deleted but not yet staged is listed and gone
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, folder / name)
    return folder


def installer() -> list[str]:
    """uv, where ``make`` installed it (``.venv/uv``) or it is on the PATH; else nothing (pip does the work)."""
    beside = Path(sys.prefix, "uv", "bin", "uv")
    found = str(beside) if beside.is_file() else shutil.which("uv")
    return [found] if found else []


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the venv's bin folder, a working folder outside the checkout) with the wheel installed."""
    tmp = tmp_path_factory.mktemp("wheel")
    uv = installer()
    if uv:  # the same build backend (setuptools, from this environment), without pip's 2-6 s of its own imports
        build = [*uv, "build", "--wheel", "--no-build-isolation", "--python", sys.executable, "-o", str(tmp / "dist")]
    else:
        build = [*PIP, "wheel", "--no-deps", "--no-build-isolation", "-w", str(tmp / "dist")]
    built = subprocess.run([*build, str(source_copy(tmp / "source"))], capture_output=True, text=True, timeout=240)
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = (tmp / "dist").glob("euchre_arena-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert {f"arena/bots/{b}_bot.py" for b in ("random", "heuristic", "search")} <= set(names)
    env = tmp / "venv"
    venv.EnvBuilder(with_pip=False).create(env)
    site = next((env / "lib").glob("python3*/site-packages"))
    install_dependencies(site)
    python = env / "bin" / "python"
    pip = [*uv, "pip", "install", "--python", str(python)] if uv else [*PIP, "--python", str(python), "install"]
    install = [*pip, "--no-deps", "--no-index", str(wheel)]
    done = subprocess.run(install, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    elsewhere = tmp / "elsewhere"
    elsewhere.mkdir()
    where = subprocess.run(
        [str(python), "-c", "import arena; print(arena.__file__)"], capture_output=True, text=True, cwd=elsewhere
    )
    assert where.stdout.startswith(str(env)), where.stdout  # the wheel's arena, not the checkout's
    return env / "bin", elsewhere


def test_the_installed_arena_plays_a_match_of_bundled_bots_from_another_folder(installed: tuple[Path, Path]) -> None:
    bin_dir, elsewhere = installed
    args = ["match", "heuristic", "random", "--variant", "two-hand", "--games", "2", "--seed", "1"]
    result = subprocess.run([str(bin_dir / "arena"), *args], capture_output=True, text=True, cwd=elsewhere, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split()[-1] for line in lines[-2:]] == ["0", "0"], result.stdout  # no violation for either bot


def test_the_installed_arena_runs_a_tiny_tournament_and_ranks_it(installed: tuple[Path, Path]) -> None:
    bin_dir, elsewhere = installed
    # one game a pairing (duplicate off). The search bot is the installed one, by a script of the folder: at its
    # default budget it thinks ~1.3 s of processor time a game (unseeded, up to 4 s for a pairing's two), and it plays
    # two; a tenth of it (--samples, which a tournament's bundled name cannot pass) runs the same code, the wheel's
    # solver and sampling. The bundled names are resolved in the installed package by heuristic and random
    (elsewhere / "quick_search.py").write_text('from arena.bots.search_bot import main\n\nmain(["--samples", "0.1"])\n')
    config = write_config(
        elsewhere / "tiny.toml", name="tiny", entrants=["heuristic", "random", "quick_search.py"], games_per_pairing=1,
        games_per_match=1, duplicate=False, jobs=2, rating={"bootstrap": 20},
    )  # fmt: skip
    run = [str(bin_dir / "arena"), "tournament", "run", str(config), "--quiet"]
    result = subprocess.run(run, capture_output=True, text=True, cwd=elsewhere, timeout=200)
    assert result.returncode == 0, result.stderr
    assert "3/3 games" in result.stdout and "Elo" in result.stdout and "quick_search" in result.stdout
    assert "forfeit" not in result.stdout + result.stderr and "Violations" not in result.stdout + result.stderr
