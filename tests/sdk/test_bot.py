"""The bot SDK: the table it keeps from events, its answers to requests, and its socket loop against a real ROUTER."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any

import pytest
import zmq
from helpers import ROOT, bot_process, exited_cleanly, receive, send

from arena import PROTOCOL_VERSION
from arena.bots.heuristic_bot import HeuristicBot
from arena.bots.random_bot import RandomBot
from arena.engine.actions import PASS, Action, parse_action
from arena.engine.cards import Card, Suit, cards, effective_suit
from arena.engine.game import Game
from arena.engine.options import make_rules
from arena.engine.phases import Phase
from arena.engine.view import SeatView, seat_view
from arena.errors import IllegalActionError
from arena.play import outgoing as messages
from arena.play.local import play_game
from arena.play.protocol import ActionReply, Hello, parse_bot_message
from arena.sdk import Bot, FunctionBot, Table, as_bot, parse_view, run, view_rng, view_seed
from arena.sdk.table import VIEW_FIELDS

TIME = {"bank_ms": 5000, "increment_ms": 100, "max_decision_ms": 10000}
Handler = Callable[[dict[str, Any]], dict[str, Any] | None]

CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("two-hand", {}),
    ("two-hand", {"stick_the_dealer": True, "dealer_exchange": "mandatory"}),
    ("three-hand", {"stick_the_dealer": True}),
    ("four-hand", {"defend_alone": True}),
    ("four-hand", {"dealer_exchange": "mandatory", "stick_the_dealer": True}),
    ("four-hand-32", {"defend_alone": True}),
    ("british", {"defend_alone": True, "stick_the_dealer": True}),
    ("railroad", {}),
    ("railroad", {"best_order": "receive_first"}),
    ("five-hand", {"deck": 29}),
    ("five-hand", {"players": 7, "called_cards": 2}),
    ("call-ace", {"players": 6}),
    ("six-hand", {"lone_call_for_best": "each"}),
    ("six-hand-pairs", {"lone_call_for_best": "one"}),
]


def game_start_message(variant: str = "four-hand", seat: int = 0, **options: Any) -> dict[str, Any]:
    """A game_start for ``seat`` of a fresh game."""
    return messages.game_start(Game(make_rules(variant, options), 1), 0, seat, TIME)


def hand_start(dealer: int, hand: str, upcard: str, scores: list[int] | None = None) -> dict[str, Any]:
    """A hand_start event."""
    return {
        "type": "hand_start",
        "hand_number": 0,
        "dealer": dealer,
        "hand": hand.split(),
        "upcard": upcard,
        "scores": scores or [0, 0, 0, 0],
    }


def act(seat: int, action: dict[str, Any]) -> dict[str, Any]:
    """A public action event."""
    return {"type": "action", "seat": seat, "action": action}


def play(seat: int, card: str) -> dict[str, Any]:
    """A card-played event."""
    return act(seat, {"type": "play", "card": card})


def table_after(events: list[dict[str, Any]], *, seat: int = 0, variant: str = "four-hand") -> Table:
    """The table of ``seat`` after the given events."""
    table = Table.from_game_start(game_start_message(variant, seat))
    for event in events:
        table.apply(event)
    return table


# ---- the table, from scripted events ----


def test_table_tracks_trump_maker_and_the_dealers_exchange() -> None:
    table = table_after(
        [
            hand_start(0, "9C TC JD QS AH", "JH"),
            act(1, {"type": "pass"}),
            act(2, {"type": "order_up", "alone": False}),
        ]
    )
    assert (table.trump, table.maker, table.alone) == (Suit.H, 2, False)
    assert table.hand == sorted(cards("9C TC JD QS AH JH"))  # the dealer picks the upcard up before discarding
    assert table.holds_upcard() == 0
    table.apply({"type": "exchange", "seat": 0, "took_upcard": True, "discard": "QS"})
    assert table.hand == sorted(cards("9C TC JD AH JH"))
    assert (table.discarded, table.upcard_taken) == (Card.parse("QS"), True)
    assert Card.parse("QS") not in table.outstanding()


def test_playing_the_left_bower_on_its_printed_suit_shows_a_void() -> None:
    table = table_after(
        [
            hand_start(3, "9C TC KC QS AS", "9H"),
            act(0, {"type": "order_up", "alone": False}),
            {"type": "exchange", "seat": 3, "took_upcard": True, "discard": None},
            play(0, "AD"),
            play(1, "JD"),  # hearts are trump: the jack of diamonds is the left bower, a trump
            play(2, "TD"),
            play(3, "9H"),
        ]
    )
    assert table.voids[1] == {Suit.D}
    assert table.voids[2] == set()
    assert table.voids[3] == {Suit.D}
    assert table.winning() == (1, Card.parse("JD"))
    assert table.holds_upcard() is None  # the dealer played it


def test_following_a_trump_lead_with_the_left_bower_is_following_suit() -> None:
    table = table_after(
        [
            hand_start(3, "9C TC KC QS AS", "9H"),
            act(0, {"type": "order_up", "alone": False}),
            {"type": "exchange", "seat": 3, "took_upcard": True, "discard": None},
            play(0, "AH"),
            play(1, "JD"),
            play(2, "9D"),
        ]
    )
    assert table.voids[1] == set()
    assert table.voids[2] == {Suit.H}


def test_a_lone_bid_puts_the_partner_out_and_a_sitting_out_dealer_takes_nothing() -> None:
    table = table_after([hand_start(3, "9C TC KC QS AS", "9H"), act(1, {"type": "order_up", "alone": True})])
    assert table.sitting_out == {3}
    assert table.upcard_taken is False
    assert table.active() == [0, 1, 2]
    assert Card.parse("9H") not in table.outstanding()


def test_a_trick_and_a_hand_end_update_tricks_and_scores() -> None:
    table = table_after(
        [
            hand_start(3, "9C TC KC QS AS", "9S"),
            act(0, {"type": "pass"}),
            act(1, {"type": "pass"}),
            act(2, {"type": "pass"}),
            act(3, {"type": "pass"}),
            act(0, {"type": "call", "suit": "C", "alone": False}),
            play(0, "AS"),
            play(1, "KS"),
            play(2, "JC"),
            play(3, "QS"),
            {
                "type": "trick",
                "leader": 0,
                "cards": [{"seat": s, "card": c} for s, c in enumerate(["AS", "KS", "JC", "QS"])],
                "winner": 2,
            },
        ]
    )
    assert table.upcard_taken is None and Card.parse("9S") not in table.outstanding()  # turned down
    assert table.trick == [] and table.tricks_won == [0, 0, 1, 0]
    assert table.played_cards() == set(cards("AS KS JC QS"))
    assert table.hand == sorted(cards("9C TC KC QS"))
    assert table.is_boss(Card.parse("JS"))  # the right bower is gone: the left is now the top trump
    table.apply(
        {
            "type": "hand_end",
            "hand_number": 0,
            "passed_out": False,
            "maker": 0,
            "trump": "C",
            "alone": False,
            "defender_alone": None,
            "tricks_won": [1, 1, 2, 1],
            "points": [1, 0, 1, 0],
            "scores": [1, 0, 1, 0],
        }
    )
    assert table.scores == [1, 0, 1, 0]
    assert len(table.results) == 1


def test_the_benny_dealer_names_trump_blind_then_gets_his_cards() -> None:
    named = [hand_start(0, "", "JK"), act(0, {"type": "name_trump", "suit": "S"})]
    dealer = table_after(named, variant="british")
    assert dealer.hand == [] and (dealer.trump, dealer.maker) == (Suit.S, 0)
    dealer.apply({"type": "cards", "hand": ["9C", "TD", "JS", "QH", "AH", "JK"]})
    dealer.apply({"type": "exchange", "seat": 0, "took_upcard": True, "discard": "9C"})
    assert dealer.hand == sorted(cards("TD JS QH AH JK")) and dealer.discarded == Card.parse("9C")
    other = table_after(
        [*named, {"type": "exchange", "seat": 0, "took_upcard": True, "discard": None}], seat=1, variant="british"
    )
    assert other.holds_upcard() == 0 and Card.parse("JK") in other.outstanding()


def test_three_hand_defenders_are_partners_only_once_trump_is_made() -> None:
    table = table_after([hand_start(2, "9C TC KC QS AS", "9H", [0, 0, 0])], variant="three-hand")
    assert table.partner() is None
    table.apply(act(1, {"type": "order_up", "alone": False}))
    assert table.partner() == 2 and table.same_side(0, 2) and not table.same_side(0, 1)


# ---- the table against the referee's view and the hidden truth, over whole games ----


def spying(bot: Bot, shadow: Game, failures: list[str]) -> Handler:
    """Wrap ``bot.handle``: at each decision compare its table with its view and with the real hands."""

    def handler(message: dict[str, Any]) -> dict[str, Any] | None:
        reply = bot.handle(message)
        if reply is None:
            return None
        table = bot.table
        assert table is not None
        view = parse_view(message["view"])
        wrong = table.mismatches(view)
        if wrong:
            failures.append(f"seat {table.seat} hand {table.hand_number}: table differs in {wrong}")
        hand = shadow.hand
        unseen = table.outstanding()
        for other in table.active():
            hidden = set(hand.hands[other]) - set(table.hand)
            if other != table.seat and not hidden <= unseen:
                failures.append(f"seat {table.seat}: {hidden - unseen} of seat {other} not outstanding")
        if hand.trump is not None:
            for other, suits in table.voids.items():
                if any(effective_suit(c, hand.trump) in suits for c in hand.hands[other]):
                    failures.append(f"seat {other} holds a card of a suit {suits} it showed out of")
        shadow.apply(parse_action(reply["action"]))
        return reply

    return handler


@pytest.mark.parametrize(("variant", "options"), CONFIGS)
def test_the_table_agrees_with_the_view_and_the_hidden_truth(variant: str, options: dict[str, Any]) -> None:
    failures: list[str] = []
    n = make_rules(variant, options).players
    for seed in range(3):
        shadow = Game(make_rules(variant, options), seed)
        bots = [RandomBot(strict=True) for _ in range(n)]
        record = play_game([spying(b, shadow, failures) for b in bots], variant, options, seed)
        assert record["violations"] == []
        assert all(b.table is not None and b.table.scores == record["final_scores"] for b in bots)
    assert failures == []


@pytest.mark.parametrize("restart_at", [2, 9, 23])
def test_a_bot_restarted_mid_game_rebuilds_its_table_from_the_view(restart_at: int) -> None:
    steady, restarted = HeuristicBot(strict=True), HeuristicBot(strict=True)
    start: dict[str, Any] = {}
    requests = 0
    compared = 0

    def seat0(message: dict[str, Any]) -> dict[str, Any] | None:
        nonlocal requests, compared
        if message["type"] == "game_start":
            start.update(message)
        elif message["type"] == "act":
            requests += 1
            if requests == restart_at:  # as the referee does: welcome, game_start again, then the act
                restarted.handle({"type": "welcome", "protocol": 1, "match_id": "m", "name": "heuristic"})
                restarted.handle(start)
        reply = steady.handle(message)
        if requests >= restart_at:
            again = restarted.handle(message)
            assert again == reply
            if message["type"] == "act":
                assert steady.table is not None and restarted.table is not None
                for key in ("hand", "bids", "trump", "tricks", "trick", "played", "voids", "scores", "sitting_out"):
                    assert getattr(restarted.table, key) == getattr(steady.table, key), key
                compared += 1
        return reply

    play_game([seat0, RandomBot().handle, HeuristicBot().handle, RandomBot().handle], "four-hand", {}, 8)
    assert compared > 0


# ---- handle(): answers and conversions ----


def first_request(variant: str = "four-hand", seed: int = 5) -> tuple[Game, int, list[dict[str, Any]]]:
    """A fresh game, the seat to act and the messages that seat gets up to its first request."""
    game = Game(make_rules(variant), seed)
    seat = game.current_seat()
    assert seat is not None
    events = messages.hand_start_events(game)[seat]
    start = messages.game_start(game, 0, seat, TIME)
    return game, seat, [start, messages.act_request(game, seat, 41, [events], 5000)]


def test_handle_answers_an_act_with_its_request_id_and_a_legal_action() -> None:
    game, _, (start, request) = first_request()
    bot = RandomBot()
    assert bot.handle({"type": "welcome", "protocol": 1, "match_id": "m", "name": "random"}) is None
    assert bot.handle(start) is None
    reply = bot.handle(request)
    assert reply is not None
    parsed = parse_bot_message(json.dumps(reply).encode())
    assert isinstance(parsed, ActionReply) and parsed.request_id == 41
    assert parse_action(reply["action"]) in game.legal_actions()
    assert bot.match_id == "m"


def test_act_gets_a_parsed_view_and_engine_actions() -> None:
    seen: list[tuple[SeatView, tuple[Action, ...]]] = []

    def first(view: SeatView, legal: tuple[Action, ...]) -> Action:
        seen.append((view, legal))
        return legal[-1]

    game, seat, (start, request) = first_request()
    bot = as_bot(first)
    bot.handle(start)
    reply = bot.handle(request)
    view, legal = seen[0]
    assert view.seat == seat and all(isinstance(c, Card) for c in view.hand) and len(view.hand) == 5
    assert legal == game.legal_actions()
    assert reply is not None and reply["action"] == legal[-1].to_json()


def test_a_view_parses_back_to_the_same_json() -> None:
    views: list[dict[str, Any]] = []

    def record(message: dict[str, Any]) -> dict[str, Any] | None:
        if message["type"] == "act":
            views.append(message["view"])
        return bot.handle(message)

    bot = RandomBot()
    play_game([record, *[RandomBot().handle for _ in range(3)]], "british", {"defend_alone": True}, 3)
    assert views and all(parse_view(v).to_json() == v for v in views)


def test_the_function_form_plays_a_whole_game() -> None:
    def lowest(view: SeatView, legal: tuple[Action, ...]) -> dict[str, Any]:
        return min(legal, key=lambda a: json.dumps(a.to_json(), sort_keys=True)).to_json()

    record = play_game([FunctionBot(lowest, strict=True).handle for _ in range(2)], "two-hand", {}, 9)
    assert record["violations"] == [] and record["winners"]


def test_an_illegal_answer_is_logged_and_sent_or_raised_in_strict_mode(caplog: pytest.LogCaptureFixture) -> None:
    _, _, (start, request) = first_request()
    illegal = {"type": "play", "card": "9C"}  # bidding has not even finished
    lenient = FunctionBot(lambda view, legal: illegal)
    lenient.handle(start)
    with caplog.at_level(logging.ERROR, logger="arena.sdk"):
        reply = lenient.handle(request)
    assert reply is not None and reply["action"] == illegal
    assert "not legal" in caplog.text
    strict = FunctionBot(lambda view, legal: illegal, strict=True)
    strict.handle(start)
    with pytest.raises(IllegalActionError):
        strict.handle(request)


def test_the_random_bot_replays_a_game_identically() -> None:
    def once() -> dict[str, Any]:
        record = play_game([RandomBot().handle for _ in range(4)], "four-hand", {}, 11)
        return {k: v for k, v in record.items() if k not in ("timing", "violations")}

    assert once() == once()


def test_view_rng_depends_on_the_view_only() -> None:
    game = Game(make_rules("four-hand"), 3)
    view = seat_view(game, 1).to_json()
    assert view_rng(view).random() == view_rng(dict(reversed(list(view.items())))).random()
    assert view_rng(view).random() == view_rng(parse_view(view)).random()
    assert view_rng(view).random() != view_rng(seat_view(game, 2).to_json()).random()
    game.apply(game.legal_actions()[0])
    assert view_rng(view).random() != view_rng(seat_view(game, 1).to_json()).random()


def test_pick_is_the_views_seed_and_spreads_evenly_over_the_options() -> None:
    counts = [0, 0, 0]
    for seed in range(600):
        game = Game(make_rules("four-hand"), seed)
        view = seat_view(game, game.current_seat() or 0)
        bot = Bot()
        bot._view = view  # as while answering a request
        chosen = bot.pick(("a", "b", "c"))
        assert chosen == bot.pick(("a", "b", "c")) == "abc"[view_seed(view) % 3]
        counts["abc".index(chosen)] += 1
    assert all(160 < c < 240 for c in counts), counts  # 200 each expected; this band is over 4 sigma wide


def test_view_seed_is_the_same_number_it_always_was() -> None:
    """The random bot's every choice is ``view_seed`` of its view: a changed hash would change every game it plays
    (and every record of it), so its value over whole games is pinned (three variants, every decision)."""
    seeds = []
    for variant in ("four-hand", "three-hand", "british"):
        game = Game(make_rules(variant, {"going_alone": True} if variant == "four-hand" else None), 11)
        while not game.is_over():
            seat = game.current_seat()
            assert seat is not None
            seeds.append(view_seed(seat_view(game, seat)))
            legal = game.legal_actions()
            game.apply(legal[len(seeds) % len(legal)])
    assert len(seeds) == 556
    assert hashlib.sha256(repr(seeds).encode()).hexdigest() == (
        "74deb2789fe334a0757850a6714499cf1b3c3f870aa3574807a4ebf95686350d"
    )


def test_mismatches_names_each_field_in_which_the_table_differs_from_the_view() -> None:
    game = Game(make_rules("four-hand"), 4)
    seat = game.current_seat()
    assert seat is not None
    view = seat_view(game, seat)
    table = Table.from_game_start(messages.game_start(game, 0, seat, TIME))
    assert "upcard" in table.mismatches(view)  # before its first hand: nothing agrees, nothing breaks
    table.apply(messages.hand_start_events(game)[seat])
    assert table.mismatches(view) == []
    assert table.view(view.phase) == view
    table.scores = [1, 0, 1, 0]
    table.hand = table.hand[1:]
    table.sitting_out = {2}
    assert table.mismatches(view) == ["hand", "sitting_out", "scores"]


def test_an_overridden_on_event_sees_every_event_a_bot_is_told() -> None:
    class Listening(RandomBot):
        def __init__(self) -> None:
            super().__init__()
            self.heard: list[dict[str, Any]] = []

        def on_event(self, event: dict[str, Any]) -> None:
            self.heard.append(event)

    told: list[dict[str, Any]] = []
    bot = Listening()

    def seat0(message: dict[str, Any]) -> dict[str, Any] | None:
        told.extend(message.get("events", []))
        return bot.handle(message)

    play_game([seat0, RandomBot().handle, RandomBot().handle, RandomBot().handle], "four-hand", {}, 2, views=False)
    assert told and bot.heard == told


def test_match_end_finishes_and_a_violation_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    bot = HeuristicBot()
    with caplog.at_level(logging.WARNING, logger="arena.sdk"):
        bot.handle({"type": "violation", "kind": "timeout", "detail": "too slow", "strikes": 1, "max_strikes": 3})
    assert "timeout" in caplog.text
    assert bot.handle({"type": "match_end", "reason": "done"}) is None and bot.finished


def test_an_answer_that_is_no_action_at_all_raises() -> None:
    _, _, (start, request) = first_request()
    bot = FunctionBot(lambda view, legal: None)  # type: ignore[arg-type,return-value]
    bot.handle(start)
    with pytest.raises(TypeError, match="must return one of the legal actions"):
        bot.handle(request)


def test_bot_subclass_must_override_act() -> None:
    _, _, (start, request) = first_request()
    bot = Bot()
    bot.handle(start)
    with pytest.raises(NotImplementedError):
        bot.handle(request)


# ---- run(): a real socket ----


def test_random_bot_process_plays_over_a_real_socket(router: tuple[str, zmq.Socket[bytes]]) -> None:
    endpoint, socket = router
    env = {**os.environ, "ARENA_ENDPOINT": endpoint, "ARENA_TOKEN": "s3cret"}
    with bot_process([sys.executable, str(ROOT / "arena" / "bots" / "random_bot.py")], env) as process:
        identity, hello = receive(socket)
        parsed = parse_bot_message(json.dumps(hello).encode())
        assert isinstance(parsed, Hello)
        assert (parsed.name, parsed.protocol, parsed.token) == ("random", PROTOCOL_VERSION, "s3cret")
        game, _, (start, request) = first_request("three-hand", 2)
        send(socket, identity, {"type": "welcome", "protocol": 1, "match_id": "m1", "name": "random"})
        send(socket, identity, start)
        send(socket, identity, request)
        _, reply = receive(socket)
        answer = parse_bot_message(json.dumps(reply).encode())
        assert isinstance(answer, ActionReply) and answer.request_id == 41
        assert parse_action(reply["action"]) in game.legal_actions()
        send(socket, identity, {"type": "match_end", "reason": "done"})
        exited_cleanly(process, 10)


def test_run_returns_when_the_referee_falls_silent(router: tuple[str, zmq.Socket[bytes]]) -> None:
    endpoint, socket = router
    done = threading.Event()

    def silent_match() -> None:
        run(lambda view, legal: PASS, name="quiet", endpoint=endpoint, token="t", idle_timeout=0.2)
        done.set()

    thread = threading.Thread(target=silent_match, daemon=True)
    thread.start()
    _, hello = receive(socket)
    assert hello["name"] == "quiet" and hello["token"] == "t"
    thread.join(timeout=10)
    assert done.is_set()


def test_the_same_bots_play_game_after_game_without_their_table_drifting(caplog: pytest.LogCaptureFixture) -> None:
    """As in a match: one Bot object per seat for many games (hand numbers start again at 0 each game)."""
    bots = [RandomBot() for _ in range(4)]
    views: list[tuple[SeatView, dict[str, Any]]] = []

    def recording(bot: Bot) -> Callable[[dict[str, Any]], dict[str, Any] | None]:
        def handler(message: dict[str, Any]) -> dict[str, Any] | None:
            reply = bot.handle(message)
            if message["type"] == "act" and bot._tricks is not None:
                views.append((parse_view(message["view"], bot._tricks), message["view"]))
            return reply

        return handler

    with caplog.at_level(logging.WARNING, logger="arena.sdk"):
        for seed in range(4):
            play_game([recording(b) for b in bots], "four-hand", {}, seed)
    assert not [r for r in caplog.records if "resynchronised" in r.getMessage()]
    assert all(view.to_json() == data for view, data in views)


@pytest.mark.parametrize(("variant", "options"), CONFIGS)
def test_the_view_a_bot_builds_from_its_table_equals_the_referees(variant: str, options: dict[str, Any]) -> None:
    """With ``want_view = False`` a request comes without the view; the SDK's own view must be the referee's."""
    n = make_rules(variant, options).players
    bots = [RandomBot() for _ in range(n)]
    compared = 0

    def twin(bot: Bot) -> Callable[[dict[str, Any]], dict[str, Any] | None]:
        def handler(message: dict[str, Any]) -> dict[str, Any] | None:
            nonlocal compared
            if message["type"] != "act":
                return bot.handle(message)
            reply = bot.handle({k: v for k, v in message.items() if k != "view"})
            assert bot._view == parse_view(message["view"])
            compared += 1
            return reply

        return handler

    for seed in range(2):
        record = play_game([twin(b) for b in bots], variant, options, seed)
        assert record["violations"] == []
    assert compared > 20


@pytest.mark.parametrize(("variant", "options"), CONFIGS)
def test_the_view_of_a_table_holds_each_of_its_facts_under_the_same_name(variant: str, options: dict[str, Any]) -> None:
    """``Table.view`` builds the SeatView as a plain tuple, field by field in SeatView's order: every field must
    hold the table's attribute of that name (as a tuple; the seats sitting out in order)."""
    bot = RandomBot()
    checked = 0

    def handler(message: dict[str, Any]) -> dict[str, Any] | None:
        nonlocal checked
        reply = bot.handle(message)
        table = bot.table
        if message["type"] == "act" and table is not None and table.live:
            view = table.view(Phase.PLAY)
            assert (view.players, view.phase, view.turn) == (table.n, Phase.PLAY, table.seat)
            for name in VIEW_FIELDS:
                value = getattr(table, name)
                if name == "sitting_out":
                    value = tuple(sorted(value))
                elif isinstance(value, list):
                    value = tuple(value)
                assert getattr(view, name) == value, name
                assert type(getattr(view, name)) is type(value), name
            checked += 1
        return reply

    n = make_rules(variant, options).players
    play_game([handler, *(RandomBot().handle for _ in range(n - 1))], variant, options, 6, views=False)
    assert checked > 5


def test_a_bot_that_wants_no_view_gets_one_at_each_hands_first_request() -> None:
    seen: list[tuple[int, bool]] = []
    bots = [RandomBot() for _ in range(2)]

    def watch(bot: Bot) -> Callable[[dict[str, Any]], dict[str, Any] | None]:
        def handler(message: dict[str, Any]) -> dict[str, Any] | None:
            if message["type"] == "act":
                hand = bot.table.hand_number if bot.table is not None else -1
                starts = [e["hand_number"] for e in message["events"] if e["type"] == "hand_start"]
                seen.append((starts[-1] if starts else hand, "view" in message))
            return bot.handle(message)

        return handler

    record = play_game([watch(b) for b in bots], "two-hand", {}, 5, views=False)
    assert record["violations"] == []
    firsts = {}
    for hand, with_view in seen:
        firsts.setdefault(hand, []).append(with_view)
    assert len(firsts) == len(record["hands"])
    assert all(views.count(True) >= 1 and not all(views) for views in firsts.values() if len(views) > 2)


def test_a_bot_process_imports_no_validation_library() -> None:
    """Bot start-up is on a tournament's critical path: the SDK and the bundled bots leave pydantic unimported."""
    code = (
        "import sys, arena.sdk, arena.bots.random_bot, arena.bots.heuristic_bot, arena.bots.search_bot\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'pydantic_core')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout
