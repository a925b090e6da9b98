"""``arena play``: a person against bots, driven for real in a terminal (tmux: send-keys, capture-pane) against real
bot processes; the screen shows the seat's deal and the record's final scores, the record names the seat ``human``
and replays (every move legal, no violation); bad input, ``?`` and numbers are answered at the prompt; Ctrl-C and
Ctrl-D end the game with a line that says so. And what a typed line means, without a terminal."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from helpers import ROOT

from arena.cli import main
from arena.engine.actions import PASS, Action, Call, Discard, NameTrump, OrderUp, Play
from arena.engine.cards import Card, Suit, make_deck
from arena.engine.record import replay
from arena.human.entry import ChoiceError, parse_choice

PROMPT = "(? for help): "
WAIT = 60.0  # a guard against a hang, not a measurement: a healthy step takes a fraction of a second

needs_tmux = pytest.mark.skipif(
    shutil.which("tmux") is None,
    reason="tmux is missing and this user cannot install it (make installs it as root: apt-get install -y tmux)",
)


class Pane:
    """One tmux session on a private socket, running a command in a 120x50 terminal."""

    def __init__(self, folder: Path) -> None:
        self.socket = str(folder / "tmux.sock")
        config = folder / "tmux.conf"
        config.write_text("set -g history-limit 100000\n")
        self.config = str(config)
        self.output = folder / "pane.out"

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-S", self.socket, "-f", self.config, *args], capture_output=True, text=True, check=True
        )
        return done.stdout

    def start(self, argv: list[str]) -> None:
        # COLUMNS and LINES (pytest's environment has them) would override the terminal's own size
        command = f'unset COLUMNS LINES; cd {shlex.quote(str(ROOT))} && {shlex.join(argv)}; echo "[exit $?]"; sleep 600'
        self.tmux("new-session", "-d", "-x", "120", "-y", "50", "-s", "play", command)
        # a copy of all the pane's output (tmux writes it there once it has drawn it): ``wait`` looks at the screen
        # again only when more has come
        self.tmux("pipe-pane", "-t", "play", f"cat > {shlex.quote(str(self.output))}")

    def text(self) -> str:
        """The whole pane, its history included, wrapped lines joined."""
        return self.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "play")

    def send(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "play", *keys)

    def type(self, line: str) -> None:
        self.tmux("send-keys", "-t", "play", "-l", line, ";", "send-keys", "-t", "play", "Enter")

    def wait(self, ready: Callable[[str], bool]) -> str:
        """The screen once ``ready`` says yes, read again whenever the pane's output has grown: each read is a tmux
        client and a capture of the whole history, which, every 20 ms while bots think and processes start, cost a
        test a third of a processor second and more (a loaded machine's waits are longer)."""
        deadline = time.monotonic() + WAIT
        while True:
            seen = self.output.stat().st_size if self.output.exists() else -1
            text = self.text()
            if ready(text):
                return text
            while (self.output.stat().st_size if self.output.exists() else -1) == seen:
                if time.monotonic() > deadline:
                    raise AssertionError(f"the screen did not get there; it shows:\n{text[-3000:]}")
                time.sleep(0.01)

    def next_prompt(self, seen: int) -> str:
        """Wait for a prompt after the ``seen`` first ones, or for the command to end."""
        return self.wait(lambda t: t.count(PROMPT) > seen or "[exit " in t)


@pytest.fixture
def pane(tmp_path: Path) -> Iterator[Pane]:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is missing and this user cannot install it (make installs it as root)")
    pane = Pane(tmp_path)
    yield pane
    subprocess.run(["tmux", "-S", pane.socket, "kill-server"], capture_output=True)


def arena_play(tmp_path: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "arena", "play", "--log-dir", str(tmp_path / "logs"), *args]


def first_choice(screen: str) -> str:
    """The first of the choices listed last, as it is shown (``JH``, ``pass``, ``order up hearts``)."""
    listing = [line for line in screen.splitlines() if line.startswith("Choices: ")][-1]
    first = re.match(r"Choices: 1\) (.+?)(?:  2\)|$)", listing)
    assert first, listing
    return first.group(1).strip()


def hands_shown(screen: str) -> dict[int, set[str]]:
    """The cards shown at the start of each hand, by hand number."""
    shown: dict[int, set[str]] = {}
    lines = screen.splitlines()
    for i, line in enumerate(lines):
        header = re.search(r"Hand (\d+): ", line)  # the hand's header (a decision's status line says "Hand 0, ")
        if header and lines[i + 1].startswith("Your cards: "):
            shown[int(header.group(1))] = set(lines[i + 1].removeprefix("Your cards: ").split())
    return shown


def play_to_the_end(pane: Pane, *, bad_card: bool = False) -> str:
    """Response every prompt with its first choice (typed as shown) until the command ends; returns the screen.

    With ``bad_card``, the first time a card is to be played a card not in the hand is typed first, and refused."""
    seen = 0
    while True:
        screen = pane.next_prompt(seen)
        if "[exit " in screen:
            return screen
        seen = screen.count(PROMPT)
        choice = first_choice(screen)
        if bad_card and "Your play" in [line for line in screen.splitlines() if PROMPT in line][-1]:
            bad_card = False
            held = screen.split("Your cards: ")[-1].splitlines()[0].split()
            other = next(str(c) for c in make_deck(24) if str(c) not in held)
            pane.type(other.lower())
            screen = pane.next_prompt(seen)
            assert f"you do not hold {other}: your choices are " in screen, screen[-500:]
            seen = screen.count(PROMPT)
        pane.type(choice)


def check_record(record: dict[str, Any], seat: int, screen: str) -> None:
    assert record["players"][seat] == "human"
    assert record["bots"][seat] == {"seat": seat, "name": "human", "hello": None, "version": None, "strikes": 0}
    assert record["violations"] == []
    replay(record)  # every move was legal and the record is whole
    shown = hands_shown(screen)
    assert shown.keys() == set(range(len(record["hands"])))
    for number, hand in enumerate(record["hands"]):
        assert shown[number] == set(hand["deal"]["hands"][seat]), number


@pytest.mark.slow
@needs_tmux
def test_a_whole_two_hand_game_played_at_the_terminal_is_the_record(pane: Pane, tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    pane.start(
        arena_play(tmp_path, "--variant", "two-hand", "--seat", "1", "random", "--seed", "11", "--record", str(out))
    )
    screen = play_to_the_end(pane, bad_card=True)
    assert "[exit 0]" in screen and "Traceback" not in screen and "you do not hold" in screen
    (record,) = [json.loads(line) for line in out.read_text().splitlines()]
    check_record(record, 1, screen)
    assert max(record["final_scores"]) >= 10  # played to its end
    final = re.search(r"Final scores: random (\d+), you (\d+)", screen)
    assert final and [int(final.group(1)), int(final.group(2))] == record["final_scores"]


@needs_tmux
def test_one_four_hand_hand_against_copies_of_a_bot(pane: Pane, tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    args = ["--variant", "four-hand", "--seat", "2", "random", "--seed", "4", "--max-hands", "1", "--record", str(out)]
    pane.start(arena_play(tmp_path, *args))
    screen = play_to_the_end(pane)
    assert "[exit 0]" in screen and "Traceback" not in screen
    (record,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(record["hands"]) == 1 and record["players"] == ["random-1", "random-2", "human", "random-3"]
    check_record(record, 2, screen)
    final = re.search(r"Final scores: you & random-1 (\d+), random-2 & random-3 (\d+)", screen)
    assert final and [int(final.group(1)), int(final.group(2))] == record["final_scores"][:2]


@needs_tmux
def test_bad_input_and_help_get_a_line_and_the_prompt_again_and_ctrl_c_ends_cleanly(pane: Pane, tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    pane.start(arena_play(tmp_path, "--variant", "two-hand", "random", "--seed", "2", "--record", str(out)))
    screen = pane.next_prompt(0)
    pane.type("ZZ")
    screen = pane.next_prompt(1)
    assert "'ZZ' is not a choice: type a card (JH), a suit (h), pass, order, alone, a number, or ?" in screen
    pane.type("?")
    screen = pane.next_prompt(2)
    assert "Anywhere: a choice's number picks it" in screen and "Choices now: 1) " in screen
    pane.type("9")
    screen = pane.next_prompt(3)
    assert "there is no choice 9: type a number from 1 to" in screen
    pane.type("1")
    screen = pane.next_prompt(4)
    assert screen.count(PROMPT) == 5 or "[exit " in screen  # the number was taken: a new decision (or the end)
    pane.send("C-c")
    screen = pane.wait(lambda t: "[exit " in t)
    assert "Game ended by you (Ctrl-C): this game is not recorded." in screen and "[exit 130]" in screen
    assert "Traceback" not in screen and not out.exists()


@needs_tmux
def test_ctrl_d_leaves_the_table_with_a_line_that_says_so(pane: Pane, tmp_path: Path) -> None:
    pane.start(arena_play(tmp_path, "--variant", "three-hand", "random", "--seed", "1"))
    pane.next_prompt(0)
    pane.send("C-d")
    screen = pane.wait(lambda t: "[exit " in t)
    assert "Game ended by you (Ctrl-D): this game is not recorded." in screen and "[exit 0]" in screen
    assert "Traceback" not in screen


def test_a_table_without_a_seed_deals_from_a_secret_one(tmp_path: Path) -> None:
    # A script bot runs the arena's own engine: from a seed of 20 bits it could deal the game itself, and know the
    # person's hand from its own (the old default: random.randrange(1_000_000)). Both tables in this process (the
    # seed is drawn at each run, not at import): a process of its own paid ~0.6 processor seconds a table for its
    # imports and its bots' fork server.
    seeds = []
    for _ in range(2):
        args = ["play", "--log-dir", str(tmp_path / "logs"), "--variant", "two-hand", "random"]
        done = CliRunner().invoke(main, args, input="quit\n")
        shown = re.search(r"first to 10, seed (\d+)", done.output)
        assert done.exit_code == 0 and shown, done.output
        seeds.append(int(shown.group(1)))
    assert seeds[0] != seeds[1] and min(seeds) >= 2**32, seeds


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--variant", "two-hand", "--seat", "2", "random"], "two-hand has seats 0 to 1: there is no seat 2"),
        (["--variant", "four-hand", "random", "heuristic"], "four-hand needs 3 bots beside you (one per other seat)"),
        (
            ["--variant", "two-hand", "-o", "going_alone=true", "random"],
            "'going_alone' exists only at tables of four or more",
        ),
    ],
)
def test_a_table_that_cannot_be_set_is_one_line_and_exit_code_2(args: list[str], message: str) -> None:
    result = CliRunner().invoke(main, ["play", *args])
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output


# ---- what a typed line means (no terminal needed) ----

HAND = tuple(Card.parse(c) for c in ("JH", "9H", "AS", "TC", "QD"))
UPCARD = Card.parse("KH")


def test_cards_are_read_in_any_case_and_ten_as_10() -> None:
    legal: list[Action] = [Play(Card.parse("9H")), Play(Card.parse("JH")), Play(Card.parse("TC"))]
    assert parse_choice("jh", legal, hand=HAND, upcard=UPCARD) == Play(Card.parse("JH"))
    assert parse_choice(" 9H ", legal, hand=HAND, upcard=UPCARD) == Play(Card.parse("9H"))
    assert parse_choice("10c", legal, hand=HAND, upcard=UPCARD) == Play(Card.parse("TC"))
    assert parse_choice("3", legal, hand=HAND, upcard=UPCARD) == Play(Card.parse("TC"))
    with pytest.raises(ChoiceError, match=r"you cannot play AS now \(you must follow suit\): play 9H or JH or TC"):
        parse_choice("as", legal, hand=HAND, upcard=UPCARD)
    with pytest.raises(ChoiceError, match="you do not hold KS"):
        parse_choice("KS", legal, hand=HAND, upcard=UPCARD)
    with pytest.raises(ChoiceError, match="there is no choice 4: type a number from 1 to 3"):
        parse_choice("4", legal, hand=HAND, upcard=UPCARD)


def test_bids_are_read_from_words_and_suits() -> None:
    first: list[Action] = [PASS, OrderUp(False), OrderUp(True)]
    assert parse_choice("pass", first, hand=HAND, upcard=UPCARD) is PASS
    assert parse_choice("order", first, hand=HAND, upcard=UPCARD) == OrderUp(False)
    assert parse_choice("alone", first, hand=HAND, upcard=UPCARD) == OrderUp(True)
    assert parse_choice("order up hearts alone", first, hand=HAND, upcard=UPCARD) == OrderUp(True)
    with pytest.raises(ChoiceError, match="only the upcard's suit can be made trump: order up KH or pass"):
        parse_choice("spades", first, hand=HAND, upcard=UPCARD)
    second: list[Action] = [Call(Suit.C), Call(Suit.D), Call(Suit.S)]  # stick the dealer: no pass, hearts turned down
    assert parse_choice("S", second, hand=HAND, upcard=UPCARD) == Call(Suit.S)
    assert parse_choice("♣", second, hand=HAND, upcard=UPCARD) == Call(Suit.C)
    with pytest.raises(ChoiceError, match="you cannot pass now: choose call clubs, call diamonds, call spades"):
        parse_choice("pass", second, hand=HAND, upcard=UPCARD)
    with pytest.raises(ChoiceError, match="going alone is not allowed"):
        parse_choice("s alone", second, hand=HAND, upcard=UPCARD)
    with pytest.raises(ChoiceError, match=r"you cannot call hearts \(it was turned down\)"):
        parse_choice("h", second, hand=HAND, upcard=UPCARD)
    assert parse_choice("name d", [NameTrump(Suit.D)], hand=HAND, upcard=UPCARD) == NameTrump(Suit.D)
    discards: list[Action] = [Discard(c) for c in (*HAND, UPCARD)]
    assert parse_choice("qd", discards, hand=HAND, upcard=UPCARD) == Discard(Card.parse("QD"))
    with pytest.raises(ChoiceError, match="no card is asked for now"):
        parse_choice("JH", first, hand=HAND, upcard=UPCARD)


@needs_tmux
@pytest.mark.parametrize(
    ("variant", "options"),
    [("hasenpfeffer", []), ("hasenpfeffer", ["-o", "widow=unused"]), ("railroad", ["-o", "best_order=receive_first"])],
)
def test_a_person_plays_the_new_games_hands(pane: Pane, tmp_path: Path, variant: str, options: list[str]) -> None:
    """Railroad's calls for best, Hasenpfeffer's bids and declarations typed as the choices show them."""
    out = tmp_path / "games.jsonl"
    args = ["--variant", variant, *options, "--seat", "0", "random", "--seed", "5", "--max-hands", "3"]
    pane.start(arena_play(tmp_path, *args, "--record", str(out)))
    screen = play_to_the_end(pane)
    assert "[exit 0]" in screen and "Traceback" not in screen
    (record,) = [json.loads(line) for line in out.read_text().splitlines()]
    check_record(record, 0, screen)
    kinds = {a["type"] for h in record["hands"] for a in h["actions"] if a["seat"] == 0}
    assert kinds & ({"bid", "pass"} if variant == "hasenpfeffer" else {"order_up", "pass", "call"})
