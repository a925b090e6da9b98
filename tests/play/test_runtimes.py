"""arena.play.runtimes: a .java's main class and its compiled jar, kept by content, and the command line that tells a
runtime its limits with the bot's own flags in their place."""

from __future__ import annotations

import re
import shutil
import zipfile
from pathlib import Path

import pytest

from arena.play import runtimes
from arena.play.matchspec import BotEntry, Limits, SpecError
from arena.play.runtimes import command_line, compiled_java, main_class, processor_count

JVM = ["/usr/bin/java", "-Xlog:disable", "-Xlog:all=warning:stderr", "-jar", "/bots/bot.jar"]


@pytest.mark.parametrize(
    ("source", "main"),
    [
        ("public class Bot { public static void main(String[] a) {} }", "Bot"),
        ("class Helper { class Inner {} }\npublic class Bot {}", "Helper"),  # the first top-level type, as java does
        (
            "package my.bots;\nimport x.y;\n/* class Fake {} */ // class Other\n"
            'final class Real { String s = "class No"; }',
            "my.bots.Real",
        ),
        ("record Point(int x) {}\nclass Bot {}", "Point"),
        ("// nothing declared here", None),
    ],
)
def test_the_main_class_is_the_first_top_level_type_outside_comments_and_strings(source: str, main: str | None) -> None:
    assert main_class(source) == main


def test_a_jvm_gets_its_heap_from_the_limit_before_the_bot_s_flags_and_its_processor_count_after_them() -> None:
    entry = BotEntry(name="b", argv=JVM, transport="stdio", args=["--depth", "3"], runtime_flags=["-Xmx200m"])
    argv = command_line(entry, Limits(memory_mb=512), [3])
    assert (
        argv
        == (
            "/usr/bin/java",
            "-XX:MaxRAM=512m",
            "-XX:MaxRAMPercentage=75",
            "-Xmx200m",  # after the arena's sizing: it wins
            "-XX:ActiveProcessorCount=1",  # after the bot's flags: kept
            *JVM[1:],
            "--depth",
            "3",
        )
    )


def test_node_gets_three_quarters_of_the_memory_limit_as_its_heap_unless_its_own_flag_says_otherwise() -> None:
    entry = BotEntry(name="b", argv=["/usr/bin/node", "/bots/bot.js"], runtime_flags=["--stack-size=2000"])
    assert command_line(entry, Limits(memory_mb=1024), None) == (
        "/usr/bin/node",
        "--max-old-space-size=768",
        "--stack-size=2000",
        "/bots/bot.js",
    )


def test_a_python_bot_gets_its_flags_and_arguments_and_an_executable_only_its_arguments() -> None:
    python = BotEntry(name="b", argv=["/venv/bin/python3", "/bots/b.py"], args=["-x"], runtime_flags=["-X", "-O"])
    assert command_line(python, Limits(), None) == ("/venv/bin/python3", "-X", "-O", "/bots/b.py", "-x")
    executable = BotEntry(name="b", argv=["/bots/engine"], args=["--level", "5"])
    assert command_line(executable, Limits(), [0]) == ("/bots/engine", "--level", "5")


def test_the_processor_count_is_the_match_s_cores_capped_by_the_cpu_quota() -> None:
    assert processor_count([0, 1], Limits()) == 2
    assert processor_count([0, 1], Limits(cpu_cores=1.5)) == 2
    assert processor_count([0, 1, 2, 3], Limits(cpu_cores=0.5)) == 1
    assert processor_count(None, Limits()) >= 1


@pytest.mark.parametrize("flag", ["Xmx1g", "-cp lib", " -Xmx1g", "-", ""])
def test_a_runtime_flag_must_be_an_option_in_one_word(flag: str) -> None:
    with pytest.raises(SpecError, match="runtime_flags"):
        BotEntry(name="b", argv=JVM, runtime_flags=[flag])


@pytest.mark.skipif(shutil.which("javac") is None, reason="no javac on PATH")
def test_a_java_source_is_compiled_once_per_content_into_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))
    source = tmp_path / "Bot.java"
    source.write_text("class First { public static void main(String[] a) {} }\nclass Bot {}\n")
    jar = compiled_java(source, "bot")
    assert jar.is_file() and jar.is_relative_to(tmp_path / "home" / "cache" / "java")
    with zipfile.ZipFile(jar) as archive:
        assert "Main-Class: First" in archive.read("META-INF/MANIFEST.MF").decode()
        assert {"First.class", "Bot.class"} <= set(archive.namelist())

    def no_compiler(*args: object, **kwargs: object) -> None:
        raise AssertionError("compiled again")

    monkeypatch.setattr(runtimes.subprocess, "run", no_compiler)
    assert compiled_java(source, "bot") == jar  # the same content: the jar already built
    source.write_text("class Bot { public static void main(String[] a) {} }\n")
    with pytest.raises(AssertionError, match="compiled again"):
        compiled_java(source, "bot")  # another content: compiled anew


@pytest.mark.parametrize(
    ("source", "public"),
    [
        ("class Helper {}\n@Deprecated public final class Bot { public static void main(String[] a) {} }", "Bot"),
        ("class Bot { public static void main(String[] a) {} }\nclass Other {}", None),
        ("/* public class Fake */ class A { public class Inner {} }", None),
    ],
)
def test_the_public_class_is_the_top_level_one_declared_public(source: str, public: str | None) -> None:
    assert runtimes.public_class(source) == public


@pytest.mark.skipif(shutil.which("javac") is None, reason="no javac on PATH")
def test_a_source_whose_file_is_not_named_after_its_public_class_compiles_as_the_source_launcher_runs_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A registered copy is named by its digest (``3f2a....java``): javac alone would refuse its public class."""
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))
    source = tmp_path / "3f2a9c.java"
    source.write_text("public class Bot { public static void main(String[] a) {} }\n")
    with zipfile.ZipFile(compiled_java(source, "bot")) as archive:
        assert "Main-Class: Bot" in archive.read("META-INF/MANIFEST.MF").decode()
    source.write_text('public class Bot { int x = "no"; }\n')
    with pytest.raises(runtimes.BotCompileError, match=re.escape(f"{source}:1: error: incompatible types")):
        compiled_java(source, "bot")
