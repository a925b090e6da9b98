"""Bots' runtimes: a ``.java`` compiled once, outside any clock, and the command line a runtime starts with.

A ``.java`` bot is compiled by ``javac`` when it is resolved (before its match's first game), into a runnable jar in
the arena's cache (``$ARENA_HOME/cache/java``, else ``.arena/cache/java``), one per source content: its processes
then start as a ``.jar`` does, in a fraction of the time the source launcher takes to compile at every start.

A JVM or Node started for a bot is told the limits it runs under, which it cannot read itself (its sandbox has no
cgroup filesystem): the JVM sizes its heap from ``-XX:MaxRAM`` and ``-XX:MaxRAMPercentage`` and its thread pools
from ``-XX:ActiveProcessorCount``; Node's heap is ``--max-old-space-size``. The heap may grow to three quarters of
the memory limit (a JVM in a container takes a quarter, too little for a bot that holds 300 MiB under the default
1 GiB); the rest is the runtime's own (code, threads, buffers). A bot's own runtime flags (``runtime_flags``) come
after the arena's heap setting, so that they may change it, and before the flags the arena needs kept (the JVM's
processor count and its warnings on stderr, not on a stdio bot's channel).
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import shutil
import subprocess
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from arena.errors import ArenaError
from arena.play.matchspec import BotEntry, Limits
from arena.text import printable

Runtime = Literal["java", "node", "python"]
RUNTIMES: dict[str, Runtime] = {"java": "java", "node": "node", "nodejs": "node"}
COMPILE_TIMEOUT = 300.0  # seconds: javac on a large source, on a loaded host
_ERROR_LINES = 20  # of javac's output, in the error that says a bot does not compile


class BotCompileError(ArenaError):
    """A bot's source does not compile (javac's first lines of output say why)."""


def cache_folder() -> Path:
    """Where the arena keeps what it builds from bots: ``$ARENA_HOME/cache``, else ``.arena/cache`` (beside the
    registry of submitted bots)."""
    return Path(os.environ.get("ARENA_HOME", ".arena")) / "cache"


def compiled_java(source: Path, name: str) -> Path:
    """The runnable jar of the Java source ``source`` (bot ``name``), compiled once per content and compiler.

    The main class is the source launcher's: the first top-level class of the file. BotCompileError, naming the bot
    and quoting javac, when it does not compile."""
    javac = shutil.which("javac")
    if javac is None:
        raise BotCompileError(f"bot {name!r} ({source}) needs 'javac' (a JDK), which is not on PATH")
    text = source.read_bytes()
    key = hashlib.sha256(text + b"\0" + os.path.realpath(javac).encode()).hexdigest()[:20]
    folder = cache_folder().resolve() / "java" / key
    jar = folder / f"{source.stem}.jar"
    if jar.is_file():
        return jar
    folder.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(folder.parent, 0o755)  # bots run under uids of their own and read their jar here
    work = Path(tempfile.mkdtemp(prefix=".build-", dir=folder.parent))
    try:
        # javac wants a public class in a file of its name (the source launcher does not; nor does a registered copy,
        # named by its digest, keep the name): the source is compiled as a copy so named
        code = text.decode(errors="replace")
        copy = work / f"{public_class(code) or source.stem}.java"
        copy.write_bytes(text)
        classes = work / "classes"
        command = [javac, "-J-XX:TieredStopAtLevel=1", "-encoding", "UTF-8", "-d", str(classes), str(copy)]
        try:
            done = subprocess.run(command, capture_output=True, text=True, errors="replace", timeout=COMPILE_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise BotCompileError(f"bot {name!r} ({source}) did not compile within {COMPILE_TIMEOUT:.0f} s") from None
        if done.returncode != 0:
            said = (done.stderr or done.stdout).replace(str(copy), str(source)).splitlines()
            quoted = "\n".join(printable(line, 300) for line in said[:_ERROR_LINES])
            more = f"\n... ({len(said) - _ERROR_LINES} more lines)" if len(said) > _ERROR_LINES else ""
            raise BotCompileError(f"bot {name!r} ({source}) does not compile:\n{quoted}{more}")
        built = work / jar.name
        _write_jar(built, classes, main_class(code) or source.stem)
        os.chmod(built, 0o644)
        folder.mkdir(mode=0o755, exist_ok=True)
        os.replace(built, jar)  # atomic: referees compiling the same source at once each leave a whole jar
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return jar


def _write_jar(jar: Path, classes: Path, main: str) -> None:
    """A jar is a zip file with a manifest naming its main class (written here: the JDK's ``jar`` tool is another
    JVM to start)."""
    with zipfile.ZipFile(jar, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("META-INF/MANIFEST.MF", f"Manifest-Version: 1.0\r\nMain-Class: {main}\r\n\r\n")
        for compiled in sorted(classes.rglob("*.class")):
            archive.write(compiled, compiled.relative_to(classes).as_posix())


_NOISE = re.compile(r'//[^\n]*|/\*.*?\*/|"""[\s\S]*?"""|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.M)
_TYPE = re.compile(r"\b(?:class|interface|enum|record)\s+([A-Za-z_$][\w$]*)")


def main_class(source: str) -> str | None:
    """The first top-level type declared in a Java source (with its package), as the source launcher runs it; None
    if none is found."""
    code = _NOISE.sub(" ", source)
    package = _PACKAGE.search(code)
    for match in _top_level(code):
        return f"{package.group(1)}.{match.group(1)}" if package else match.group(1)
    return None


def public_class(source: str) -> str | None:
    """The public top-level type of a Java source (the one javac wants its file named after), or None."""
    code = _NOISE.sub(" ", source)
    for match in _top_level(code):
        if re.search(r"\bpublic\b[\w\s]*$", code[max(0, match.start() - 80) : match.start()]):
            return match.group(1)
    return None


def _top_level(code: str) -> Iterator[re.Match[str]]:
    """The type declarations of ``code`` (comments and strings blanked) outside every brace."""
    depth = 0
    position = 0
    for match in _TYPE.finditer(code):
        depth += code.count("{", position, match.start()) - code.count("}", position, match.start())
        position = match.start()
        if depth == 0:
            yield match


def runtime_of(argv: list[str] | tuple[str, ...]) -> Runtime | None:
    """The runtime a command starts (by its program's name), or None for an executable of its own."""
    if not argv:
        return None
    program = os.path.basename(argv[0])
    if program.startswith("python"):
        return "python"
    return RUNTIMES.get(program)


HEAP_SHARE = 75  # per cent of the memory limit a runtime's heap may grow to


def heap_mb(limits: Limits) -> int:
    """The heap a runtime may grow to under the memory limit (``HEAP_SHARE`` of it)."""
    return max(16, limits.memory_mb * HEAP_SHARE // 100)


def processor_count(cores: list[int] | None, limits: Limits) -> int:
    """The processors a bot may use: its match's cores (else every core this process may run on), no more than its
    CPU quota rounded up."""
    if cores:
        count = len(set(cores))
    elif hasattr(os, "sched_getaffinity"):
        count = len(os.sched_getaffinity(0))
    else:
        count = os.cpu_count() or 1
    if limits.cpu_cores is not None:
        count = min(count, max(1, math.ceil(limits.cpu_cores)))
    return max(1, count)


def command_line(entry: BotEntry, limits: Limits, cores: list[int] | None) -> tuple[str, ...]:
    """The argv that starts ``entry``'s process: its runtime with the arena's flags for ``limits`` and ``cores`` and
    the bot's own ``runtime_flags`` (see the module's docstring for their order), then its program and ``args``."""
    program, rest = entry.argv[0], entry.argv[1:]
    runtime, own = runtime_of(entry.argv), tuple(entry.runtime_flags)
    if runtime == "java":
        sized = (f"-XX:MaxRAM={limits.memory_mb}m", f"-XX:MaxRAMPercentage={HEAP_SHARE}")
        kept = (f"-XX:ActiveProcessorCount={processor_count(cores, limits)}",)
        return (program, *sized, *own, *kept, *rest, *entry.args)
    if runtime == "node":
        return (program, f"--max-old-space-size={heap_mb(limits)}", *own, *rest, *entry.args)
    return (program, *own, *rest, *entry.args)
