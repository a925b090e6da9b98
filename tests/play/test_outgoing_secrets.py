"""What every bot is told on the wire, checked frame by frame against the engine's truth (docs/rules.md section 10).

Real referee, real bot processes (tests/bots/probe.py dumps every frame it receives). For each bot, the game is
replayed through the engine in step with the events it was told, so each frame is checked at the moment it speaks
of: no event, view or legal list may name a card that seat may not know then (another seat's unplayed card, the
kitty, the dealer's discard, the blind dealer's own cards before he names trump on the Benny). Every event must
also say exactly what happened, and every request must carry the seat's own legal actions and view.

Every variant and rule option is played, with views on and off, under both policies, and with a bot restarted in the
middle of a game; each match must show the situations it is there for (a declined exchange, a lone hand, the Benny,
a rubber of several games, ...), so that the check cannot pass by not looking.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from helpers import cards_in_json, hidden_from
from probing import match, probe, read_dump

from arena.engine.actions import Action, Discard, parse_action
from arena.engine.cards import make_deck
from arena.engine.game import Game
from arena.engine.hand import HandState, Phase
from arena.engine.options import make_rules
from arena.engine.view import seat_view, trick_json
from arena.play.matchspec import MatchSpec
from arena.play.referee import run_match

# A hang fails the test instead of stalling the suite (pytest-timeout).
pytestmark = pytest.mark.timeout(60)


def blind(hand: HandState, seat: int) -> bool:
    """Whether ``seat`` is the dealer who must name trump on the Benny without having seen his cards."""
    return hand.phase is Phase.NAME_TRUMP and seat == hand.dealer


def own_cards(hand: HandState, seat: int) -> list[str]:
    """The seat's cards as it may see them: sorted, none for the blind dealer."""
    return [] if blind(hand, seat) else [str(c) for c in sorted(hand.hands[seat])]


def secret(hand: HandState, seat: int) -> set[str]:
    """Every card ``seat`` may not know now."""
    hidden = hidden_from(hand, seat)
    if blind(hand, seat):
        hidden |= {str(c) for c in hand.hands[seat]}
    return hidden


def record_actions(record: dict[str, Any]) -> list[tuple[int, Action]]:
    """Every action of a recorded game in order, the unfinished hand of a forfeit included."""
    entries = [entry for hand in record["hands"] for entry in hand["actions"]]
    entries += record.get("forfeit", {}).get("actions", [])
    return [(e["seat"], parse_action({k: v for k, v in e.items() if k != "seat"})) for e in entries]


@dataclass
class Witness:
    """The engine replaying one game in step with what one seat is told."""

    game: Game
    seat: int
    actions: list[tuple[int, Action]]
    seen: set[str]
    done: int = 0
    tricks: int = 0
    hand: HandState = field(init=False)
    requests: list[tuple[str, int, bool]] = field(default_factory=list)  # (process, hand number, view sent)

    def __post_init__(self) -> None:
        self.hand = self.game.hand

    def check_cards(self, part: Any, what: str) -> None:
        """``part`` of a frame names no card the seat may not know at the moment it speaks of."""
        leaked = cards_in_json(part) & secret(self.hand, self.seat)
        assert not leaked, f"seat {self.seat} was told {sorted(leaked)} in {what}: {part}"

    def next_action(self) -> tuple[int, Action]:
        assert self.done < len(self.actions), "an event tells of an action that was never taken"
        seat, action = self.actions[self.done]
        self.done += 1
        self.hand = self.game.hand
        self.tricks = len(self.hand.tricks)
        self.game.apply(action, seat)
        return seat, action

    def event(self, event: dict[str, Any]) -> None:
        """Advance the engine by what ``event`` tells; check that it tells nothing secret, and exactly what happened."""
        kind = event["type"]
        expected: dict[str, Any]
        if kind == "hand_start":
            self.hand = hand = self.game.hand
            assert not hand.actions, "hand_start arrived after the hand began"
            expected = {
                "type": "hand_start",
                "hand_number": len(self.game.hands),
                "dealer": hand.dealer,
                "hand": own_cards(hand, self.seat),
                "upcard": str(hand.deal.upcard),
                "scores": list(self.game.scores()),
            }
            self.seen.add("benny" if blind(hand, self.seat) else "hand_start")
        elif kind == "action":
            seat, action = self.next_action()
            assert not isinstance(action, Discard), "a discard must be told as an exchange, not as an action"
            expected = {"type": "action", "seat": seat, "action": action.to_json()}
            self.seen.add(action.type + ("_alone" if getattr(action, "alone", False) else ""))
        elif kind == "exchange":
            seat, action = self.next_action()
            assert isinstance(action, Discard) and seat == self.hand.dealer, "an exchange told of another action"
            took, mine = action.card != self.hand.deal.upcard, seat == self.seat
            expected = {
                "type": "exchange",
                "seat": seat,
                "took_upcard": took,
                "discard": str(action.card) if mine else None,
            }
            self.seen.add(f"exchange {'took' if took else 'declined'} {'dealer' if mine else 'other'}")
        elif kind == "cards":
            assert self.seat == self.hand.dealer and self.hand.actions[-1][1].type == "name_trump"
            expected = {"type": "cards", "hand": own_cards(self.hand, self.seat)}
            self.seen.add("cards")
        elif kind == "trick":
            assert len(self.hand.tricks) == self.tricks + 1, "a trick told that was not completed by the last card"
            expected = {"type": "trick", **trick_json(self.hand.tricks[-1])}
            self.tricks += 1
            if len(event["cards"]) < self.hand.players:
                self.seen.add("short trick")
        elif kind == "hand_end":
            hand, result = self.hand, self.hand.result
            assert result is not None, "hand_end told before the hand was over"
            number = self.game.hands.index(hand)
            expected = {
                "type": "hand_end",
                "hand_number": number,
                "passed_out": result.passed_out,
                "maker": result.maker,
                "trump": None if result.trump is None else str(result.trump),
                "alone": result.alone,
                "defender_alone": result.defender_alone,
                "tricks_won": [sum(1 for t in result.tricks if t.winner == s) for s in range(hand.players)],
                "points": list(result.points),
                "scores": list(self.game.scores_after[number]),
            }
            self.seen.add("passed out" if result.passed_out else "hand_end")
        else:
            raise AssertionError(f"unknown event {event}")
        self.check_cards(event, f"an event of type {kind}")
        assert event == expected

    def request(self, message: dict[str, Any], proc: str, wants_view: bool) -> None:
        """A decision request: after its events, the seat is on turn; its legal list and view are its own."""
        for event in message["events"]:
            self.event(event)
        game, hand = self.game, self.game.hand
        self.hand = hand
        assert game.current_seat() == self.seat, f"seat {self.seat} asked while seat {game.current_seat()} is on turn"
        assert message["legal"] == [a.to_json() for a in game.legal_actions()]
        self.requests.append((proc, len(game.hands), "view" in message))
        if "view" in message:
            view = message["view"]
            assert view == seat_view(game, self.seat).to_json()
            assert view["hand"] == own_cards(hand, self.seat)
            mine = self.seat == hand.dealer and hand.discarded is not None
            assert view["discarded"] == (str(hand.discarded) if mine else None)
        else:
            assert not wants_view, "a request without the view, to a bot that asked for it"
            self.seen.add("no view")
        if hand.phase is Phase.BID2 and not any(a["type"] == "pass" for a in message["legal"]):
            self.seen.add("stuck dealer")
        if hand.out:
            self.seen.add("sitting out")
        self.check_cards({k: v for k, v in message.items() if k != "events"}, "a request")


def check_dump(
    spec: MatchSpec, records: list[dict[str, Any]], b: int, dump: Path, *, views: bool
) -> tuple[set[str], list[list[tuple[str, int, bool]]]]:
    """Check every frame bot ``b`` received; returns the situations it saw, and per game its requests as
    (process, hand number, whether the view came)."""
    rules = make_rules(spec.variant, spec.options)
    frames = read_dump(dump)
    assert frames, f"bot {b} received nothing"
    seen: set[str] = set()
    witness: Witness | None = None
    index = -1
    processes: set[str] = set()
    started: set[str] = set()  # the processes told this game's game_start
    requests: list[list[tuple[str, int, bool]]] = []
    for frame in frames:
        message, proc = frame["msg"], frame["proc"]
        processes.add(proc)
        kind = message["type"]
        if kind == "game_start":
            assert not cards_in_json(message), message
            if message["game"] != index:  # (a bot restarted mid-game is told the game_start again)
                assert witness is None or witness.done == len(witness.actions)
                index = message["game"]
                seat = spec.games[index].seating.index(b)
                record = records[index]
                game = Game(rules, record["seed"], record["players"])
                witness = Witness(game, seat, record_actions(record), seen)
                requests.append(witness.requests)
                started = set()
            assert message["seat"] == witness.seat and message["players"] == records[index]["players"]
            started.add(proc)
        elif kind == "act":
            assert witness is not None and proc in started, "a request to a process that was not told the game_start"
            witness.request(message, proc, views)
        elif kind == "events":
            assert witness is not None
            for event in message["events"]:
                witness.event(event)
        elif kind == "game_end":
            assert witness is not None and witness.done == len(witness.actions), "game_end before every action was told"
            record = records[index]
            assert message["final_scores"] == record["final_scores"] and message["winners"] == record["winners"]
            assert not cards_in_json(message), message
            if "rubber" in record and len(record["rubber"]["games"]) > 1:
                seen.add("rubber")
        else:  # welcome, violation, match_end: nothing about cards at all
            assert kind in ("welcome", "violation", "match_end"), message
            assert not cards_in_json(message), message
            if kind == "welcome":  # its match_id a random name: nothing of the match's deals or seats
                assert re.fullmatch(r"[0-9a-f]{12}", message["match_id"]) and message["match_id"] != spec.match_id
                assert message == {
                    "type": "welcome",
                    "protocol": 1,
                    "match_id": message["match_id"],
                    "name": spec.bots[b].name,
                }
            seen.add(kind)
    if len(processes) > 1:
        seen.add("restarted")
    assert index == len(spec.games) - 1, f"bot {b} was not told of every game"
    return seen, requests


@dataclass(frozen=True)
class Case:
    """A match to watch: its rules, its games, what its bots do, and the situations it must show."""

    variant: str
    options: dict[str, Any]
    games: list[tuple[int, list[int]]]  # (deal seed, seating)
    situations: set[str]
    passes: float = 0.6  # how readily the bots pass: bidding then often reaches round 2, the stuck dealer, a pass-out
    extra: dict[int, list[str]] = field(default_factory=dict)  # more probe arguments, by bot
    settings: dict[str, Any] = field(default_factory=dict)


EXCHANGES = {"exchange took dealer", "exchange took other", "exchange declined dealer", "exchange declined other"}
SUBSTITUTE = {"policy": "substitute"}
CASES = {
    "two-hand": Case(
        "two-hand",
        {},
        [(0, [0, 1]), (0, [1, 0])],
        EXCHANGES | {"call", "passed out", "no view"},
        extra={1: ["--no-view"]},
    ),
    "two-hand-mandatory-stick-rubber": Case(
        "two-hand",
        {"dealer_exchange": "mandatory", "stick_the_dealer": True, "rubber": True, "points_to_win": 4},
        [(0, [0, 1])],
        {"exchange took dealer", "exchange took other", "stuck dealer", "rubber"},
    ),
    "three-hand": Case(
        "three-hand",
        {},
        [(2, [0, 1, 2]), (2, [2, 0, 1])],
        EXCHANGES | {"call", "passed out", "no view"},
        passes=0.7,
        extra={0: ["--no-view"]},
    ),
    "three-hand-stick-mandatory": Case(
        "three-hand",
        {"stick_the_dealer": True, "dealer_exchange": "mandatory", "points_to_win": 6},
        [(0, [0, 1, 2])],
        {"exchange took other", "stuck dealer", "call"},
        passes=0.7,
    ),
    "four-hand": Case(
        "four-hand",
        {},
        [(1, [0, 1, 2, 3]), (1, [3, 0, 1, 2])],
        EXCHANGES | {"order_up_alone", "call_alone", "sitting out", "short trick", "passed out", "no view"},
        passes=0.7,
        extra={2: ["--no-view"]},
    ),
    "four-hand-defend-stick": Case(
        "four-hand",
        {"defend_alone": True, "stick_the_dealer": True},
        [(33, [0, 1, 2, 3])],
        {"defend_alone", "sitting out", "stuck dealer", "exchange declined other"},
    ),
    "four-hand-32": Case(
        "four-hand-32",
        {"defend_alone": True, "dealer_exchange": "mandatory"},
        [(9, [0, 1, 2, 3])],
        {"defend_alone", "call_alone", "exchange took other"},
    ),
    "british": Case(
        "british",
        {"defend_alone": True},
        [(13, [0, 1, 2, 3]), (13, [1, 2, 3, 0])],
        {"benny", "name_trump", "cards", "defend_alone", "exchange declined other", "no view"},
        extra={3: ["--no-view"]},
    ),
    "four-hand-rubber": Case(
        "four-hand",
        {"rubber": True, "points_to_win": 3},
        [(0, [0, 1, 2, 3])],
        {"rubber", "order_up_alone", "no view"},
        extra={1: ["--no-view"]},
    ),
    "four-hand-substitute-restart": Case(
        "four-hand",
        {"defend_alone": True},
        [(0, [0, 1, 2, 3]), (1, [1, 2, 3, 0])],
        {"restarted", "violation", "no view", "sitting out"},
        extra={1: ["--no-view", "--crash-at", "0:5", "--once", "{tmp}/crashed"], 3: ["--illegal-at", "1:4"]},
        settings=SUBSTITUTE,
    ),
    "three-hand-forfeit": Case(  # game 0 is forfeited in its first hand: game 1's first requests carry the view
        "three-hand",
        {},
        [(0, [0, 1, 2]), (0, [1, 2, 0])],
        {"violation", "no view"},
        extra={0: ["--no-view"], 1: ["--no-view"], 2: ["--illegal-at", "0:2"]},
    ),
}


Requests = list[list[tuple[str, int, bool]]]


def watch(tmp_path: Path, case: Case) -> tuple[set[str], dict[int, Requests]]:
    """Play the case's match with probes and check what each was told; returns the situations seen, and the requests
    of each bot that said ``view: false``."""
    players = len(case.games[0][1])
    dumps = [tmp_path / f"bot{b}.jsonl" for b in range(players)]
    bots = [
        probe(f"p{b}", "--dump", dumps[b], "--passes", case.passes, *(a.format(tmp=tmp_path) for a in extra))
        for b, extra in ((b, case.extra.get(b, [])) for b in range(players))
    ]
    spec = match(tmp_path, bots, case.games, variant=case.variant, options=case.options, **case.settings)
    records = run_match(spec)
    assert len(records) == len(case.games)
    seen: set[str] = set()
    viewless: dict[int, Requests] = {}
    for b in range(players):
        views = "--no-view" not in case.extra.get(b, [])
        situations, requests = check_dump(spec, records, b, dumps[b], views=views)
        seen |= situations
        if not views:
            viewless[b] = requests
    return seen, viewless


@pytest.fixture(scope="module")
def watched(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], tuple[set[str], dict[int, Requests]]]:
    """Each case's match, played and checked once per module."""
    return cache(lambda name: watch(tmp_path_factory.mktemp(name), CASES[name]))


@pytest.mark.parametrize("name", list(CASES))
def test_no_frame_tells_a_bot_a_card_it_may_not_know(
    watched: Callable[[str], tuple[set[str], dict[int, Requests]]], name: str
) -> None:
    seen, _ = watched(name)
    missing = CASES[name].situations - seen
    assert not missing, f"the match never showed {sorted(missing)}; pick other seeds"


def first_of_each_hand(requests: list[tuple[str, int, bool]]) -> list[bool]:
    """For each request of a game, whether it is its process's first request of that hand."""
    last: dict[str, int] = {}
    firsts = []
    for proc, hand, _ in requests:
        firsts.append(last.get(proc) != hand)
        last[proc] = hand
    return firsts


VIEWLESS = [name for name, case in CASES.items() if any("--no-view" in extra for extra in case.extra.values())]


@pytest.mark.parametrize("name", VIEWLESS)
def test_a_bot_that_said_view_false_gets_the_view_exactly_at_its_first_request_of_each_hand(
    watched: Callable[[str], tuple[set[str], dict[int, Requests]]], name: str
) -> None:
    """protocol.md sections 2 and 7: with ``view: false`` the view comes with the first request of each hand, and so
    with the first request of a process that replaced one that died in the middle of a hand."""
    _, viewless = watched(name)
    assert viewless
    for games in viewless.values():
        for requests in games:
            assert [sent for _, _, sent in requests] == first_of_each_hand(requests)


def test_the_checks_see_every_hidden_card_of_a_deal() -> None:
    """The truth the wire is checked against: before any action, a seat may know its five cards and the upcard only."""
    for variant in ("two-hand", "three-hand", "four-hand", "four-hand-32", "british"):
        game = Game(make_rules(variant), 0)
        hand = game.hand
        deck = {str(c) for c in make_deck(game.rules.options.deck)}
        for seat in range(game.rules.players):
            mine = own_cards(hand, seat)
            assert secret(hand, seat) == deck - set(mine) - {str(hand.deal.upcard)}
