"""What the person reads: whole games of every variant played in-process, the person's seat watched through the
Screen as the terminal shows it; every bid, call for best and contract in the record is told in words, nothing
shows a missing value, and each hand's end says how the hand was scored."""

from __future__ import annotations

import re

import pytest
from rich.console import Console

from arena.bots.heuristic_bot import HeuristicBot
from arena.engine.options import make_rules
from arena.engine.record import GameRecord
from arena.human.screen import Screen
from arena.play.local import play_game
from arena.sdk.messages import Event, GameEnd
from arena.sdk.table import Table


class Watched(HeuristicBot):
    """The heuristic bot in the person's seat, its messages shown on ``screen`` as the person's would be."""

    def __init__(self, screen: Screen) -> None:
        super().__init__()
        self.screen = screen

    def on_game_start(self, table: Table) -> None:
        self.screen.game_start(table, seed=0, number=1, games=1)

    def on_event(self, event: Event) -> None:
        assert self.table is not None
        self.screen.event(event, self.table)

    def on_game_end(self, message: GameEnd) -> None:
        self.screen.game_end(message)


def watch(variant: str, options: dict[str, object], seed: int) -> tuple[str, GameRecord]:
    """One game, seat 0 watched: the screen's text and the game's record."""
    console = Console(width=200, record=True, color_system=None, file=open("/dev/null", "w"))  # noqa: SIM115
    players = make_rules(variant, options).players
    bots = [Watched(Screen(console, 0)), *(HeuristicBot() for _ in range(players - 1))]
    record = play_game([b.handle for b in bots], variant, options, seed=seed)
    console.file.close()
    return console.export_text(), record


def hands_shown(text: str) -> list[str]:
    """The screen's text, a piece per hand (from its header to the scores after it)."""
    return re.split(r"\n─+ Hand \d+", text)[1:]


@pytest.mark.parametrize(
    ("variant", "options"),
    [
        ("hasenpfeffer", {}),
        ("hasenpfeffer", {"widow": "unused", "defenders_score_tricks": True}),
        ("hasenpfeffer-single", {"all_pass": "redeal"}),
        ("railroad", {}),
        ("railroad", {"best_order": "receive_first"}),
        ("four-hand", {"defend_alone": True}),
        ("three-hand", {}),
        ("five-hand", {}),
        ("call-ace", {"players": 6}),
        ("seven-hand", {"called_cards": 2}),
        ("six-hand", {"lone_call_for_best": "each"}),
        ("six-hand-pairs", {"lone_call_for_best": "one"}),
        ("nap", {"deals_per_player": 1}),
        ("nap", {"players": 7, "joker": True, "misere_trumps": True, "deals_per_player": 1}),
        ("nap", {"players": 2, "all_pass": "dealer_must_bid", "scoring": "bidder_only", "deals_per_player": 2}),
    ],
)
@pytest.mark.parametrize("seed", [1, 2])
def test_every_bid_and_call_of_the_record_is_told_in_words(variant: str, options: dict[str, object], seed: int) -> None:
    text, record = watch(variant, options, seed)
    assert "None" not in text
    shown = hands_shown(text)
    assert len(shown) == len(record["hands"])
    for hand, words in zip(record["hands"], shown, strict=True):
        actions = hand["actions"]
        bids = [a for a in actions if a["type"] == "bid"]
        assert len(re.findall(r" bids? \d\n", words)) == len(bids)
        assert len(re.findall(r"(?<!to) defends? alone\n", words)) == sum(a["type"] == "defend_alone" for a in actions)
        calls = [a for a in actions if a["type"] == "call_for_best"]
        assert len(re.findall(r" for \S+ best card", words)) == len(calls)
        assert len(re.findall(r" (pass|passes) (\w\w|a card) to ", words)) == sum(
            a["type"] == "give_best" for a in actions
        )
        calls_made = sum(a["type"] == "call_partner" for a in actions)  # call-partner Euchre
        assert len(re.findall(r" as partner", words)) == calls_made
        assert len(re.findall(r" plays? alone\n", words)) == sum(a["type"] == "go_alone" for a in actions)
        result = hand["result"]
        if result is None or result["passed_out"]:
            continue
        nap_bids = [a["contract"] for a in actions if a["type"] == "nap_bid"]  # Nap: every bid by its name
        assert len(re.findall(r" bids? (One|Two|Three|Misère|Four|Nap|Wellington|Blücher)\n", words)) == len(nap_bids)
        if record["variant"] == "nap":  # the declarer's contract, made or lost, and the trump (or none)
            assert re.search(r"declared (One|Two|Three|Misère|Four|Nap|Wellington|Blücher) \(\w+( trump)?\): ", words)
            assert re.search(r"\d tricks?, (made it|lost);", words)
            assert (" leads JK, naming" in words or " lead JK, naming" in words) == any(
                "trump" in a for a in actions if a["type"] == "play"
            )
        elif bids:  # Hasenpfeffer: the contract won, and the hand scored by it
            high = max(a["tricks"] for a in bids)
            assert f"the auction, {high} tricks" in words or "(forced" in words
            assert re.search(r"bid \d, (made it|set)", words)
        else:
            assert re.search(r"(march|made it|euchred);", words)
        assert " +" in words or " -" in words  # the points the hand scored


def test_a_set_bid_is_told_as_the_points_it_lost() -> None:
    """A Hasenpfeffer hand whose bid was set shows the bidders' loss (a negative score), not an empty gain."""
    for seed in range(1, 40):
        text, record = watch("hasenpfeffer", {}, seed)
        lost = [h for h in record["hands"] if h["result"] and min(h["result"]["points"]) < 0]
        if lost:
            assert re.search(r", set; \S.* -\d", text)
            return
    pytest.fail("no game of 40 had a bid set")
