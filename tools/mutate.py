#!/usr/bin/env python3
"""Mutation testing over hand-written mutants: does the test suite catch the bugs that matter?

Each mutant in ``tools/mutants.toml`` is one small, realistic bug: a piece of text in one file of the package and
what it becomes. For each mutant, in turn, this script plants it in a temporary copy of the repository (never in the
working tree), runs the tests of the mutant's group there with a time limit, and puts the file back. A mutant is
*killed* when the tests fail (or time out), *survives* when they pass, and is *stale* when its text is no longer in
the file exactly once (the code moved on: update the mutant), and *invalid* when the mutated file does not compile.
The score is killed / (killed + survived).

    python tools/mutate.py                      # every mutant, the tests as they are
    python tools/mutate.py --old-tests          # the same without the tests listed as new (the score before them)
    python tools/mutate.py --group clock --only issue3-no-cap-per-decision --keep
    python tools/mutate.py --check              # only check that every mutant still applies (no tests run)

Options: ``--source head`` copies the last commit (``git archive HEAD``, or ``--rev REV``) with the untracked files
under tests/ and tools/ laid over it, instead of the working tree as it is; ``--json FILE`` writes every result;
``--timeout S`` overrides the per-mutant limit (by default three times the group's unmutated run, at least 120 s).
The copy is made readable to other users (the sandbox runs bots under uids of their own when root) and its package
is found through a PYTHONPATH directory that holds only a link to it, so that the repository itself is not exposed
to bots. The example ids above are from tools/mutants.toml; ``--list`` shows them all.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = Path(__file__).resolve().parent / "mutants.toml"
IGNORED = {".git", ".venv", ".hypothesis", ".mypy_cache", ".ruff_cache", ".pytest_cache", "__pycache__", ".arena"}
IGNORED_SUFFIXES = (".db", ".db-wal", ".db-shm", ".pyc")


@dataclass
class Mutant:
    """One planted bug."""

    id: str
    group: str
    file: str
    find: str
    replace: str
    why: str
    equivalent: str = ""  # why the mutant cannot change behaviour (then it is listed, not run)


@dataclass
class Group:
    """The modules a group of mutants lives in and the tests that should catch them."""

    name: str
    tests: list[str]
    timeout: float | None = None
    deselect: list[str] = field(default_factory=list)  # test ids known to fail without any mutant


@dataclass
class Result:
    """What became of one mutant."""

    id: str
    group: str
    outcome: str  # killed, survived, timeout, stale, invalid (does not compile), equivalent
    seconds: float = 0.0
    detail: str = ""
    tests: list[str] = field(default_factory=list)


def load(path: Path) -> tuple[dict[str, Group], list[Mutant], set[str]]:
    """The groups, mutants and new test files of a mutants file."""
    data = tomllib.loads(path.read_text())
    groups = {
        name: Group(name, list(g["tests"]), g.get("timeout"), list(g.get("deselect", [])))
        for name, g in data["groups"].items()
    }
    mutants = [Mutant(**m) for m in data["mutant"]]
    seen: set[str] = set()
    for m in mutants:
        if m.id in seen:
            raise SystemExit(f"mutant id {m.id!r} is used twice")
        seen.add(m.id)
        if m.group not in groups:
            raise SystemExit(f"mutant {m.id!r}: unknown group {m.group!r}")
    return groups, mutants, set(data.get("new_tests", []))


def copy_worktree(target: Path) -> None:
    """The working tree as it is (without caches, virtualenvs and databases)."""

    def ignore(folder: str, names: list[str]) -> set[str]:
        return {n for n in names if n in IGNORED or n.endswith(IGNORED_SUFFIXES) or n.endswith("-logs")}

    shutil.copytree(ROOT, target, ignore=ignore, symlinks=True)


def copy_commit(target: Path, rev: str) -> None:
    """A commit, with the untracked files under tests/ and tools/ laid over it (new tests not yet committed)."""
    target.mkdir()
    archive = subprocess.run(["git", "archive", rev], cwd=ROOT, capture_output=True, check=True).stdout
    with tempfile.TemporaryFile() as buffer:
        buffer.write(archive)
        buffer.seek(0)
        with tarfile.open(fileobj=buffer) as tar:
            tar.extractall(target, filter="data")
    untracked = subprocess.run(
        ["git", "ls-files", "--others", "--exclude-standard", "--", "tests", "tools"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    for name in untracked:
        destination = target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, destination)


def open_up(folder: Path) -> None:
    """Let other users read the copy (bots run under uids of their own when the tests run as root)."""
    for root, _, files in os.walk(folder):
        os.chmod(root, 0o755)
        for name in files:
            path = os.path.join(root, name)
            if not os.path.islink(path):
                os.chmod(path, os.stat(path).st_mode | 0o444)


def run_tests(copy: Path, site: Path, tests: list[str], timeout: float) -> tuple[str, float, str]:
    """Run pytest on ``tests`` in the copy: ("passed" | "failed" | "timeout", seconds, last lines of output)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    env.update({"PYTHONPATH": str(site), "PYTHONDONTWRITEBYTECODE": "1"})
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "--no-header", *tests]
    start = time.monotonic()
    process = subprocess.Popen(
        command, cwd=copy, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True
    )
    try:
        out, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, 9)
        process.communicate()
        return "timeout", time.monotonic() - start, ""
    tail = "\n".join(out.decode(errors="replace").strip().splitlines()[-3:])
    return ("passed" if process.returncode == 0 else "failed"), time.monotonic() - start, tail


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mutants", type=Path, default=MUTANTS, help="the mutants file (default tools/mutants.toml)")
    parser.add_argument("--source", choices=("worktree", "head"), default="worktree", help="what to copy")
    parser.add_argument("--rev", default="HEAD", help="with --source head: the commit to copy (default HEAD)")
    parser.add_argument("--old-tests", action="store_true", help="leave out the test files listed as new")
    parser.add_argument("--group", action="append", default=[], help="only these groups (repeatable)")
    parser.add_argument("--only", action="append", default=[], help="only these mutant ids (repeatable)")
    parser.add_argument("--start-at", metavar="ID", help="skip the mutants listed before this one (to resume a run)")
    parser.add_argument("--timeout", type=float, help="seconds per mutant (default: 3x the unmutated run, >= 120)")
    parser.add_argument("--check", action="store_true", help="only check that every mutant applies; run no tests")
    parser.add_argument("--no-baseline", action="store_true", help="skip the unmutated run of each group")
    parser.add_argument("--json", type=Path, help="write every result to this file")
    parser.add_argument("--keep", action="store_true", help="keep the temporary copy (its path is printed)")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    args = parser.parse_args()

    groups, mutants, new_tests = load(args.mutants)
    chosen = [m for m in mutants if (not args.group or m.group in args.group) and (not args.only or m.id in args.only)]
    if args.start_at:
        ids = [m.id for m in chosen]
        if args.start_at not in ids:
            raise SystemExit(f"no mutant {args.start_at!r} among those chosen")
        chosen = chosen[ids.index(args.start_at) :]
    if args.list:
        for m in chosen:
            print(f"{m.id:40} {m.group:10} {m.file:22} {m.why}")
        return 0
    if not chosen:
        raise SystemExit("no mutant matches")

    work = Path(tempfile.mkdtemp(prefix="arena-mutate-"))
    copy, site = work / "repo", work / "site"
    try:
        if args.source == "head":
            copy_commit(copy, args.rev)
        else:
            copy_worktree(copy)
        site.mkdir()
        (site / "arena").symlink_to(copy / "arena")
        open_up(work)
        what = f"commit {args.rev}" if args.source == "head" else "working tree"
        print(f"copy of the {what} in {copy}", flush=True)

        def tests_of(group: Group) -> list[str]:
            tests = [t for t in group.tests if not (args.old_tests and t in new_tests)]
            deselected = [a for d in group.deselect if (copy / d.split("::")[0]).exists() for a in ("--deselect", d)]
            return [t for t in tests if (copy / t).exists()] + deselected

        results: list[Result] = []
        baseline: dict[str, float] = {}
        if not args.check and not args.no_baseline:
            for name in sorted({m.group for m in chosen if not m.equivalent}):
                state, seconds, tail = run_tests(copy, site, tests_of(groups[name]), timeout=1800)
                print(f"unmutated {name}: {state} in {seconds:.0f} s", flush=True)
                if state != "passed":
                    print(tail)
                    raise SystemExit(f"the tests of group {name} fail without any mutant; fix that first")
                baseline[name] = seconds
        for m in chosen:
            group = groups[m.group]
            if m.equivalent:
                results.append(Result(m.id, m.group, "equivalent", detail=m.equivalent))
                continue
            path = copy / m.file
            original = path.read_text() if path.exists() else ""
            if original.count(m.find) != 1:
                found = original.count(m.find)
                results.append(Result(m.id, m.group, "stale", detail=f"its text occurs {found} times in {m.file}"))
                print(f"{m.id:42} stale ({found} occurrences)", flush=True)
                continue
            mutated = original.replace(m.find, m.replace)
            try:
                if m.file.endswith(".py"):  # a mutant of the report's JavaScript is checked by its tests alone
                    compile(mutated, m.file, "exec")
            except SyntaxError as exc:
                results.append(Result(m.id, m.group, "invalid", detail=f"does not compile: {exc}"))
                print(f"{m.id:42} invalid (does not compile)", flush=True)
                continue
            if args.check:
                continue
            limit = args.timeout or group.timeout or max(120.0, 3 * baseline.get(m.group, 60.0))
            tests = tests_of(group)
            path.write_text(mutated)
            try:
                state, seconds, tail = run_tests(copy, site, tests, limit)
            finally:
                path.write_text(original)
            outcome = {"failed": "killed", "passed": "survived", "timeout": "timeout"}[state]
            results.append(Result(m.id, m.group, outcome, round(seconds, 1), tail if state == "failed" else "", tests))
            print(f"{m.id:42} {outcome:9} {seconds:6.1f} s", flush=True)
        if args.check:
            broken = [r for r in results if r.outcome in ("stale", "invalid")]
            print(f"{len(chosen) - len(broken)} of {len(chosen)} mutants apply")
            return 1 if broken else 0
        report(results, args.old_tests)
        if args.json:
            args.json.write_text(json.dumps([r.__dict__ for r in results], indent=2) + "\n")
        return 0
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def report(results: list[Result], old_tests: bool) -> None:
    """The score per group and in all, and the mutants that survived."""
    print()
    print(f"{'group':12} {'killed':>6} {'survived':>8} {'score':>7}   (stale, invalid, equivalent)")
    groups = sorted({r.group for r in results})
    for name in [*groups, "all"]:
        rs = [r for r in results if name in ("all", r.group)]
        killed = sum(r.outcome in ("killed", "timeout") for r in rs)
        survived = sum(r.outcome == "survived" for r in rs)
        other = tuple(sum(r.outcome == kind for r in rs) for kind in ("stale", "invalid", "equivalent"))
        score = f"{100 * killed / (killed + survived):.1f}%" if killed + survived else "-"
        print(f"{name:12} {killed:6} {survived:8} {score:>7}   {other}")
    survivors = [r for r in results if r.outcome == "survived"]
    if survivors:
        print("\nsurvived" + (" (old tests only)" if old_tests else "") + ":")
        for r in survivors:
            print(f"  {r.id} ({r.group})")


if __name__ == "__main__":
    sys.exit(main())
