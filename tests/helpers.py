"""Shared helpers for the tests: deals from text, scripted actions, an independent model of the rules, a bot's
decision in a set deal, and the ``arena`` command run as a process of its own (the configs it runs: configs.py).

The rule model here (effective suit, trick winner, scoring table) is written from the rule book (docs/rules.md) on
card *text*, on purpose without the engine's tables, so that tests compare the engine with a second reading of the book.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import random
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

import orjson
import zmq
from hypothesis import strategies as st

from arena.engine.actions import (
    DEFEND_ALONE,
    GO_ALONE,
    PASS,
    Action,
    Call,
    CallForBest,
    CallPartner,
    Discard,
    GiveBest,
    NameTrump,
    OrderUp,
    Play,
    parse_action,
)
from arena.engine.cards import Card, Suit, make_deck
from arena.engine.game import Game
from arena.engine.hand import Deal, HandState
from arena.engine.options import Rules, make_rules
from arena.play import outgoing as messages
from arena.sdk import Bot

# For Hypothesis's text strategies: any character UTF-8 can encode, named by its categories (every one but the
# surrogates, Cs), as ``st.text()``'s default alphabet (``codec="utf-8"``), with the same draws. The default has
# Hypothesis try the codec on all 1,114,112 code points at its first draw in a checkout without a .hypothesis folder,
# as a fresh clone is: 2 to 3.4 s of processor time, measured, in each worker, before the first case.
UTF8 = st.characters(exclude_categories=["Cs"])

# ---- building deals and hands ----


def parse_cards(text: str) -> list[Card]:
    """Cards from space-separated text such as ``"9C TD JH QS KC"``."""
    return [Card.parse(t) for t in text.split()]


def make_deal(rules: Rules, hands: Iterable[str], upcard: str, kitty: str | None = None) -> Deal:
    """A Deal from card text, one string of five cards per seat; the kitty defaults to the rest in deck order."""
    hand_cards = tuple(tuple(parse_cards(h)) for h in hands)
    up = Card.parse(upcard)
    deck = make_deck(rules.options.deck)
    used = [c for h in hand_cards for c in h] + [up]
    rest = tuple(c for c in deck if c not in used) if kitty is None else tuple(parse_cards(kitty))
    everything = used + list(rest)
    assert sorted(everything) == sorted(deck), "a test deal must use every card of the deck exactly once"
    return Deal(hands=hand_cards, upcard=up, kitty=rest)


def make_hand(
    variant: str,
    hands: Iterable[str],
    upcard: str,
    *,
    dealer: int = 0,
    **options: Any,
) -> HandState:
    """A HandState of ``variant`` (with option overrides) on a deal written as text."""
    rules = make_rules(variant, options)
    return HandState(rules, dealer, make_deal(rules, hands, upcard))


def action(text: str) -> Action:
    """One action from short text: ``pass``, ``order``, ``order alone``, ``call H``, ``call H alone``,
    ``discard 9C``, ``defend``, ``name S``, ``best 9C`` or ``best``, ``give AH``, ``partner AS`` (call-partner's
    call; ``partner`` alone: no partner), ``play JH`` or just ``JH``."""
    words = text.split()
    verb, args = words[0], words[1:]
    alone = "alone" in args
    if verb == "pass":
        return PASS
    if verb == "defend":
        return DEFEND_ALONE
    if verb == "order":
        return OrderUp(alone)
    if verb == "call":
        return Call(Suit.parse(args[0]), alone)
    if verb == "name":
        return NameTrump(Suit.parse(args[0]))
    if verb == "discard":
        return Discard(Card.parse(args[0]))
    if verb == "play":
        return Play(Card.parse(args[0]))
    if verb == "best":  # a call for best, discarding a card first or (no card) after receiving one
        return CallForBest(Card.parse(args[0])) if args else CallForBest()
    if verb == "give":
        return GiveBest(Card.parse(args[0]))
    if verb == "partner":
        return CallPartner(tuple(Card.parse(a) for a in args)) if args else GO_ALONE
    return Play(Card.parse(verb))


def act(state: HandState | Game, script: str) -> None:
    """Apply a comma-separated script of ``SEAT ACTION`` steps, e.g. ``"1 pass, 2 order, 0 discard 9C"``.

    Each step names the seat that must be on turn, so a script also pins the order of play.
    """
    for step in script.split(","):
        seat_text, _, rest = step.strip().partition(" ")
        state.apply(action(rest), int(seat_text))


def legal_texts(state: HandState | Game) -> list[str]:
    """The legal actions as compact text (for readable assertions)."""
    out = []
    for a in state.legal_actions():
        data = a.to_json()
        out.append(" ".join(str(v) for k, v in data.items() if k != "alone" or v))
    return out


def legal_cards(state: HandState | Game) -> set[str]:
    """The cards of the legal play or discard actions."""
    return {str(a.card) for a in state.legal_actions() if isinstance(a, Play | Discard)}


def snapshot(obj: Any) -> dict[str, Any]:
    """A deep copy of an object's state (without memo caches), to compare before and after a refused action."""
    names = list(getattr(obj, "__dict__", {}))
    for cls in type(obj).__mro__:
        names.extend(getattr(cls, "__slots__", ()))
    return {name: _frozen(getattr(obj, name)) for name in names if name != "_legal" and hasattr(obj, name)}


def _frozen(value: Any) -> Any:
    if isinstance(value, HandState):
        return snapshot(value)
    if type(value) in (list, tuple):
        return type(value)(_frozen(v) for v in value)
    return copy.deepcopy(value)


# ---- an independent model of the rules, on card text ----

SAME_COLOUR = {"C": "S", "S": "C", "D": "H", "H": "D"}
PLAIN_ORDER = "789TJQKA"
TRUMP_ORDER = ["7", "8", "9", "T", "Q", "K", "A", "left", "right", "benny"]


def suit_of(card: str | Card, trump: str | Suit) -> str:
    """The suit a card belongs to for following and leading once trump is known (docs/rules.md section 2.4)."""
    text, t = str(card), str(trump)
    if text == "JK":
        return t
    if text[0] == "J" and text[1] == SAME_COLOUR[t]:
        return t
    return text[1]


def trump_strength(card: str | Card, trump: str | Suit) -> int:
    """Rank of a trump card, higher wins (Benny > right bower > left bower > A > K > Q > 10 > 9 > 8 > 7)."""
    text, t = str(card), str(trump)
    if text == "JK":
        return TRUMP_ORDER.index("benny")
    if text == "J" + t:
        return TRUMP_ORDER.index("right")
    if text == "J" + SAME_COLOUR[t]:
        return TRUMP_ORDER.index("left")
    assert text[1] == t
    return TRUMP_ORDER.index(text[0])


def trick_winner(played: list[tuple[int, str | Card]], trump: str | Suit) -> int:
    """The seat that wins a trick given ``(seat, card)`` pairs in play order."""
    trumps = [(trump_strength(c, trump), s) for s, c in played if suit_of(c, trump) == str(trump)]
    if trumps:
        return max(trumps)[1]
    led = suit_of(played[0][1], trump)
    return max((PLAIN_ORDER.index(str(c)[0]), s) for s, c in played if suit_of(c, trump) == led)[1]


# (players, maker alone, lone defender) -> points for (3 or 4 tricks, march, euchre), per docs/rules.md section 7.
SCORING_TABLE: dict[tuple[int, bool, bool], tuple[int, int, int]] = {
    (2, False, False): (1, 2, 2),
    (3, False, False): (1, 3, 2),
    (4, False, False): (1, 2, 2),
    (4, True, False): (1, 4, 2),
    (4, True, True): (1, 4, 4),
}


def same_side(players: int, a: int, b: int) -> bool:
    """Whether two seats score together in a hand (partners in four-hand; otherwise only a seat with itself)."""
    return a == b or (players == 4 and (a - b) % 2 == 0)


def expected_points(
    players: int, maker: int, maker_tricks: int, *, alone: bool, lone_defender: bool, lone_euchred: int = 2
) -> tuple[int, ...]:
    """Points per seat from the scoring table; in four-hand both partners show their side's points.
    ``lone_euchred``: Railroad's value of a lone maker euchred by two defenders."""
    made, march, euchre = SCORING_TABLE[(players, alone, lone_defender)]
    if alone and not lone_defender:
        euchre = lone_euchred
    if maker_tricks >= 3:
        gain = march if maker_tricks == 5 else made
        return tuple(gain if same_side(players, s, maker) else 0 for s in range(players))
    return tuple(0 if same_side(players, s, maker) else euchre for s in range(players))


# ---- driving hands and games ----

Policy = Callable[[HandState | Game, random.Random], Action]


def random_policy(state: HandState | Game, rng: random.Random) -> Action:
    """A uniformly random legal action."""
    return rng.choice(state.legal_actions())


def play_random(state: HandState, rng: random.Random) -> None:
    """Finish a hand with random legal actions."""
    while not state.is_over():
        state.apply(rng.choice(state.legal_actions()))


def finish_hand_where(
    game: Game, wanted: Callable[[HandState], bool], *, attempts: int = 3000, script: str = ""
) -> Game:
    """A copy of ``game`` whose current hand was played (after ``script``) with random legal actions so that
    ``wanted(hand)`` holds for the finished hand; the search is seeded, so the result is deterministic."""
    for attempt in range(attempts):
        trial = copy.deepcopy(game)
        if script:
            act(trial, script)
        rng = random.Random(attempt)
        hands_before = len(trial.hands)
        while len(trial.hands) == hands_before:
            trial.apply(rng.choice(trial.legal_actions()))
        if wanted(trial.hands[-1]):
            return trial
    raise AssertionError("no random playout of this hand produced the wanted outcome")


def maker_tricks(hand: HandState) -> int:
    """Tricks won by the maker's side of a finished hand (recounted from the tricks)."""
    assert hand.maker is not None
    return sum(1 for t in hand.tricks if same_side(hand.players, t.winner, hand.maker))


def game_where(
    rules: Rules,
    side_scores: list[int],
    wanted: Callable[[HandState], bool],
    *,
    seeds: Iterable[int] = range(50),
    attempts: int = 300,
) -> Game:
    """The first seeded game (after setting its side scores) whose current hand can be finished so that
    ``wanted(hand)`` holds; for outcomes that need a favourable deal, such as a march."""
    for seed in seeds:
        game = Game(rules, seed)
        game.side_scores = list(side_scores)
        try:
            return finish_hand_where(game, wanted, attempts=attempts)
        except AssertionError:
            continue
    raise AssertionError("no seed gave a deal on which the wanted outcome was found")


# ---- what a seat may not know (docs/rules.md section 10) ----


def hidden_from(hand: HandState, seat: int) -> set[str]:
    """Cards ``seat`` must not see now: other seats' unplayed cards (but a card it passed on a call for best), the
    kitty, other seats' discards (the dealer's, and for a call for best); the upcard is public, wherever it went."""
    hidden = {str(c) for s, cards in enumerate(hand.hands) if s != seat for c in cards}
    hidden |= {str(c) for c in hand.deal.kitty}
    if seat != hand.dealer and hand.discarded is not None:
        hidden.add(str(hand.discarded))
    hidden |= {str(c) for s, c in hand.best_discards if s != seat}  # Railroad: a discard for a call for best
    hidden -= {str(c) for giver, _, c in hand.passed if giver == seat}  # the giver knows the card he passed
    hidden.discard(str(hand.deal.upcard))
    return hidden


def cards_in_json(data: Any) -> set[str]:
    """Every string in a JSON value that is the text of a card.

    A walk with a stack, each string's verdict cached: the property tests read every view of every step this way,
    and a recursive union of sets per node took half of their time.
    """
    found: set[str] = set()
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, str) and _is_card(value):
            found.add(value)
    return found


def leaked_cards(data: Any, hidden: set[str]) -> set[str]:
    """The cards of ``hidden`` that a JSON value shows, as ``cards_in_json`` finds them in its JSON text.

    Fast where there are none, as in almost every view: a card's text is plain ASCII, so a string of the value that
    is a hidden card appears quoted in the text, and the walk runs only where one does.
    """
    text = orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS).decode()  # ~4x json.dumps (71,000 views a run)
    if not any(f'"{card}"' in text for card in hidden):
        return set()
    return cards_in_json(json.loads(text)) & hidden


@functools.cache
def _is_card(text: str) -> bool:
    try:
        Card.parse(text)
    except ValueError:
        return False
    return True


def bot_decision(
    make_bot: Callable[[], Bot],
    hands: list[str],
    upcard: str,
    script: str,
    *,
    dealer: int,
    variant: str | None = None,
    **options: Any,
) -> Action:
    """What the bot on turn decides after ``script`` (``"SEAT ACTION, ..."``) in a set deal, told it all as the
    referee's messages through the SDK (a bot from ``make_bot`` in every seat); ``variant`` by default the rule
    book's of the table's size."""
    rules = make_rules(variant or ("four-hand" if len(hands) == 4 else "two-hand"), options)
    game = Game(rules, 0)
    game.hand = make_hand(rules.variant, hands, upcard, dealer=dealer, **options)
    bots = [make_bot() for _ in hands]
    pending = [[event] for event in messages.hand_start_events(game)]
    clock = {"bank_ms": 5000, "increment_ms": 200, "max_decision_ms": 10000}
    for seat, bot in enumerate(bots):
        bot.handle(messages.game_start(game, 0, seat, clock))
    for step in filter(None, (s.strip() for s in script.split(","))):
        seat_text, _, text = step.partition(" ")
        seat, move, hand, tricks = int(seat_text), action(text), game.hand, len(game.hand.tricks)
        game.apply(move, seat)
        messages.add_action_events(pending, game, hand, 0, seat, move, tricks)
    turn = game.current_seat()
    assert turn is not None
    reply = bots[turn].handle(messages.act_request(game, turn, 1, pending[turn], 1000))
    assert reply is not None
    return parse_action(reply["action"])


# ---- the arena command, as a user runs it ----

ROOT = Path(__file__).resolve().parent.parent
ARENA = [sys.executable, "-m", "arena"]
RAW_RANDOM = ROOT / "tests" / "bots" / "raw_random.py"


def run_arena(*args: str | Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` in a process of its own, started in the checkout; its exit code and output (text), unchecked."""
    command = [*ARENA, *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=timeout, check=False)


def arena_here(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` run in this process (click's CliRunner), its exit code and output as ``run_arena`` gives them.

    For the runs whose process is not what is tested (a resume, a ranking, what a run decides, stores and says):
    the interpreter and the CLI's imports are paid once, and the referees' fork servers, started at the first run,
    serve the later ones (a process of its own pays ~0.4 processor seconds for its imports and ~0.45 for its fork
    servers, at every run). What is about a process (a kill, Ctrl-C, its exit, a fresh environment) runs ``arena``
    as a process of its own (``run_arena``)."""
    from click.testing import CliRunner

    from arena.cli import main

    result = CliRunner().invoke(main, [str(arg) for arg in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception  # a process of its own would have exited 1 with this traceback
    return subprocess.CompletedProcess(["arena", *map(str, args)], result.exit_code, result.stdout, result.stderr)


def stored_count(db: Path) -> int:
    """How many games a results database holds: 0 while the file or its table is not there yet. For tests that poll
    a run's progress every 20 ms: SQLite alone costs ~0.5 ms of processor time, where ``Store.open`` (its checks and
    pragmas) takes ~1.8 and reading every game ~20."""
    try:
        with closing(sqlite3.connect(f"{db.resolve().as_uri()}?mode=rw", uri=True)) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.DatabaseError:  # no file yet (mode=rw creates none), or a file whose schema is not written yet
        return 0


def wait_for_stored(db: Path, at_least: int, process: subprocess.Popen[Any], timeout: float = 120.0) -> int:
    """Poll ``db`` every 20 ms (``stored_count``) until it holds ``at_least`` games, ``process`` (the run writing
    it) has ended, or ``timeout`` seconds have passed; the count then. The caller says which of them is a failure."""
    deadline = time.monotonic() + timeout
    count = stored_count(db)
    while count < at_least and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
        count = stored_count(db)
    return count


def cases(count: int) -> int:
    """``count`` property-test cases under the default Hypothesis profile, scaled with the active one (conftest)."""
    from hypothesis import settings

    return max(1, count * settings.default.max_examples // 100)


def receive(socket: zmq.Socket[bytes], timeout_ms: int = 10_000) -> tuple[bytes, dict[str, Any]]:
    """One message from a ROUTER (the ``router`` fixture's): the peer's identity and the parsed JSON object."""
    assert socket.poll(timeout_ms), "no message from the bot"
    identity, frame = socket.recv_multipart()
    return identity, json.loads(frame)


def send(socket: zmq.Socket[bytes], identity: bytes, message: dict[str, Any]) -> None:
    """One JSON message to a peer of a ROUTER."""
    socket.send_multipart([identity, json.dumps(message).encode()])


@contextmanager
def bot_process(argv: list[str], env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    """A bot process with its stdout and stderr piped, killed and reaped on the way out if it is still running."""
    process = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def exited_cleanly(process: subprocess.Popen[bytes], timeout: float) -> str:
    """Wait for a bot told ``match_end`` to exit: code 0, nothing on stdout (its logs go to stderr). Its stderr."""
    out, err = process.communicate(timeout=timeout)
    assert process.returncode == 0, err.decode()
    assert out == b""  # logs go to stderr only
    return err.decode()


def open_to_others(path: Path) -> bool:
    """Whether a user with no rights of its own can reach ``path`` (every directory above it searchable by others)."""
    path = path.resolve()
    return all(os.stat(p).st_mode & 0o001 for p in [path, *path.parents] if p.is_dir()) and bool(
        os.stat(path).st_mode & 0o004
    )


SITE = next((Path(p) for p in sys.path if p.endswith("site-packages")), Path("/nonexistent"))


def checkout_open_to_others() -> bool:
    """Whether an unprivileged user can run this checkout's code with its packages (the tests that run the arena as
    ``nobody`` need it; a clone under a 0700 folder, as ``mktemp -d`` makes, cannot give it)."""
    return open_to_others(Path(__file__).resolve().parent.parent) and SITE.exists() and open_to_others(SITE)
