"""arena.play.lineup: a command-line bot with its name, runtime flags and arguments, and the match built from them."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.errors import ArenaError
from arena.play.lineup import BotWords, bot_words, build_match
from arena.play.matchspec import MatchSpec

RAW = str(Path(__file__).resolve().parent.parent / "bots" / "raw_random.py")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("search", BotWords("search")),
        ("search --samples 4", BotWords("search", args=("--samples", "4"))),
        (
            "name=deep flag=-Xmx600m flag=-Dk=v stdio:Bot.java --depth 3",
            BotWords("stdio:Bot.java", "deep", ("--depth", "3"), ("-Xmx600m", "-Dk=v")),
        ),
        ("'my bots/x.py' 'an arg'", BotWords("my bots/x.py", args=("an arg",))),
    ],
)
def test_a_command_line_bot_is_settings_then_the_bot_then_its_arguments(text: str, words: BotWords) -> None:
    assert bot_words(text) == words


def test_a_file_whose_name_has_spaces_or_a_name_the_registry_knows_is_a_bot_as_it_stands(tmp_path: Path) -> None:
    spaced = tmp_path / "my bot.py"
    spaced.write_text("")
    assert bot_words(str(spaced)) == BotWords(str(spaced))
    assert bot_words(f"stdio:{spaced}") == BotWords(f"stdio:{spaced}")
    assert bot_words("name=x y", known=lambda text: text == "name=x y") == BotWords("name=x y")


@pytest.mark.parametrize("text", ["name=deep", "name= search", "search 'unclosed"])
def test_a_command_line_bot_without_a_bot_or_with_broken_quotes_is_an_error_saying_the_syntax(text: str) -> None:
    with pytest.raises(ArenaError, match="name=NAME and flag=RUNTIME_FLAG"):
        bot_words(text)


def two_hand_match(bots: list[str]) -> MatchSpec:
    """The match ``arena match`` builds of ``bots`` as written on its command line (two-hand, two games)."""
    return build_match(
        bots,
        variant="two-hand",
        options={},
        games=2,
        seed=1,
        time="5+0.1",
        max_decision=10.0,
        policy="forfeit",
        max_strikes=3,
        log_dir="logs",
    )


def test_one_program_with_two_settings_is_two_entrants_each_with_its_arguments() -> None:
    spec = two_hand_match([f"{RAW} --fast", f"name=slow {RAW} --slow"])
    assert [(b.name, b.args) for b in spec.bots] == [("raw_random", ["--fast"]), ("slow", ["--slow"])]
    assert spec.bots[0].argv == spec.bots[1].argv


def test_two_settings_of_one_bot_without_names_are_told_apart() -> None:
    spec = two_hand_match(["search --samples 0.5", "search --samples 2"])
    assert [(b.name, b.args) for b in spec.bots] == [
        ("search-1", ["--samples", "0.5"]),
        ("search-2", ["--samples", "2"]),
    ]


def test_runtime_flags_for_a_bot_with_no_runtime_are_refused(tmp_path: Path) -> None:
    program = tmp_path / "engine"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    with pytest.raises(ArenaError, match=r"runtime flags are for a \.py, \.js, \.java or \.jar"):
        build_match(
            [f"flag=-Xmx1g {program}", "random"],
            variant="two-hand",
            options={},
            games=1,
            seed=1,
            time="5+0.1",
            max_decision=10.0,
            policy="forfeit",
            max_strikes=3,
            log_dir="logs",
        )
