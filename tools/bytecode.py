#!/usr/bin/env python3
"""Compile ahead what the arena's processes import: the package, the bundled bots, and every installed file of the
distributions the arena needs at run time (its dependencies and those of its ``dask`` extra, and theirs).

Where PYTHONDONTWRITEBYTECODE is set (as on our CI machines) a process compiles every module it imports that has no
bytecode yet, each time it starts; a bot, which runs under a uid of its own, could not write it anyway. The tools
that only some tests and the linters use (SciPy, NumPy, OpenSpiel, mypy, pip: more than half of the environment's
files) are left to the test run, which writes the bytecode of what it imports (``make pytest``). What every worker
of the test run imports at its start (pytest, its xdist and timeout plugins, Hypothesis, and theirs) is compiled
here too: the workers start at once, and in a fresh clone each compiled all of it again (~4 processor seconds).

    python tools/bytecode.py     # from the checkout, with the environment's python
"""

from __future__ import annotations

import compileall
import contextlib
import sys
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
EXTRAS = frozenset({"", "dask"})
TEST_START = ("pytest", "pytest-xdist", "pytest-timeout", "hypothesis")  # what each pytest worker imports at start


def distributions(project: str = "euchre-arena", extras: frozenset[str] = EXTRAS) -> list[metadata.Distribution]:
    """The installed distributions ``project`` needs at run time with its ``extras`` ("" the base), and theirs (with
    the extras each requirement names); one not installed here is left out. Also tests/system/test_wheel.py's list."""
    todo = [(Requirement(r), extras) for r in metadata.requires(project) or []]
    done: set[str] = set()
    found = []
    while todo:
        requirement, wanted = todo.pop()
        marker = requirement.marker
        if marker is not None and not any(marker.evaluate({"extra": extra}) for extra in wanted):
            continue
        name = canonicalize_name(requirement.name)
        if name in done:
            continue
        done.add(name)
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue  # an optional dependency not installed here
        found.append(dist)
        theirs = frozenset(requirement.extras) | {""}
        todo.extend((Requirement(r), theirs) for r in dist.requires or [])
    return found


def runtime_folders() -> set[Path]:
    """The top-level folders and modules of the distributions the arena needs at run time, and of those the test
    run's workers import at their start."""
    needed = distributions()
    for tool in TEST_START:
        with contextlib.suppress(metadata.PackageNotFoundError):  # a tool not installed: nothing of it to compile
            needed += [metadata.distribution(tool), *distributions(tool, frozenset({""}))]
    return {
        Path(str(dist.locate_file(file.parts[0])))
        for dist in needed
        for file in dist.files or []
        if file.suffix == ".py" and not str(file).startswith("..")
    }


def main() -> int:
    """Compile the arena, its bots and its run-time dependencies in one pool of every core; 0 when all compiled."""
    files: list[Path] = []
    for target in [ROOT / "arena", ROOT / "bots", *sorted(runtime_folders())]:
        files.extend(target.rglob("*.py") if target.is_dir() else [target])
    with ProcessPoolExecutor() as pool:
        compiled = list(pool.map(partial(compileall.compile_file, quiet=2), files, chunksize=64))
    return 0 if all(compiled) else 1


if __name__ == "__main__":
    sys.exit(main())
