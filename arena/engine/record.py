"""Game records (``euchre-arena/game/1``): a finished game as one JSON object, and its replay through the engine."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal, NotRequired

from typing_extensions import TypedDict  # pydantic reads the record's types (typing's, before 3.12, it cannot)

from arena.engine.actions import parse_action
from arena.engine.game import AnyHand, Game
from arena.engine.hand import Deal
from arena.engine.hasenpfeffer import HasenpfefferDeal
from arena.engine.nap import NapDeal
from arena.engine.options import OptionValue, Rules, make_rules
from arena.engine.view import ActionJSON as ActionJSON  # a record's actions are a view's bids
from arena.engine.view import TrickJSON, actions_json, trick_json
from arena.errors import ArenaError, RecordError

if TYPE_CHECKING:
    from pydantic import TypeAdapter

FORMAT = "euchre-arena/game/1"

# ---- the record's shape: the one definition every reader is checked against (mypy) ----
#
# The engine makes the game's part (``game_record``); the referee fills in the rest (``violations``, ``timing``,
# ``match_id``, ``game_index``, ``bots``, and why a forfeit happened). JSON keys and values are exactly the format's
# (``euchre-arena/game/1``): the types describe it, they do not change it.

ViolationKind = Literal[
    "handshake",  # bad or missing hello
    "crash",  # the process is gone, or has no accepted connection
    "memory",  # killed by the kernel at its memory limit
    "timeout",  # no valid answer within its allowance
    "oversized",  # a frame over the size limit
    "malformed",  # not UTF-8 JSON, multipart, a key twice
    "schema",  # valid JSON of the wrong shape
    "out_of_turn",  # an answer to another request, or hello again while asked
    "illegal",  # a well-formed action that is not legal now
    "unsolicited",  # frames while not asked
    "flood",  # too much traffic on its endpoint
    "disqualified",  # out of strikes earlier in the match
]
VIOLATION_KINDS: frozenset[str] = frozenset(ViolationKind.__args__)  # type: ignore[attr-defined]


class DealJSON(TypedDict):
    """Each seat's cards in seat order, the upcard (null in Hasenpfeffer), the kitty in deck order."""

    hands: list[list[str]]
    upcard: str | None
    kitty: list[str]


class HandResultJSON(TypedDict):
    """How a hand ended."""

    passed_out: bool
    maker: int | None
    trump: str | None
    alone: bool
    defender_alone: int | None  # the seat that defended alone
    tricks: list[TrickJSON]
    points: list[int]
    scores_after: list[int]
    partners: NotRequired[list[int]]  # call-partner Euchre: who held a called card (empty: none), in seat order


class HandJSON(TypedDict):
    """A finished hand: dealer, deal, actions in order, result."""

    dealer: int
    deal: DealJSON
    actions: list[ActionJSON]
    result: HandResultJSON


class DrawnJSON(TypedDict):
    """A game undecided after ``max_hands`` hands."""

    hand_number: int


class ForfeitJSON(TypedDict):
    """Who forfeited, in which hand after which actions; the referee adds why."""

    seat: int
    hand_number: int
    actions: list[ActionJSON]
    kind: NotRequired[str]
    detail: NotRequired[str]


class RubberGameJSON(TypedDict):
    """One game of a rubber."""

    first_hand: int
    last_hand: int
    final_scores: list[int]
    winners: list[int]
    game_points: int


class RubberJSON(TypedDict):
    """A rubber's games and points."""

    games: list[RubberGameJSON]
    game_points: list[int]
    points: list[int]


class ViolationJSON(TypedDict):
    """A recorded violation: whose, what, where in the game, when."""

    seat: int
    kind: str
    detail: str
    excerpt: str
    hand_number: int
    at_seconds: float
    wall_time: str


class TimingJSON(TypedDict):
    """Seconds the game took, each seat's thinking and decisions (and each decision's time), its clock left at the
    end, and (from a referee) bytes each way per seat."""

    seconds: float
    started_at: NotRequired[float]  # when the game began and ended, Unix time in seconds (not in older records)
    ended_at: NotRequired[float]
    thinking: list[float]
    decisions: list[int]
    decision_ms: NotRequired[list[list[float]]]  # each decision's milliseconds, per seat (not in older records)
    clock_left: NotRequired[list[float]]  # seconds left on each seat's clock at the end, when a clock ran
    bytes: NotRequired[list[list[int]]]


class BotJSON(TypedDict):
    """A seat's bot as the referee knew it: its name in the match, what its hello said, its strikes so far."""

    seat: int
    name: str
    hello: str | None
    version: str | None
    strikes: int


class GameRecord(TypedDict):
    """A finished game (or rubber): everything needed to replay, rank and show it."""

    format: str
    variant: str
    options: Mapping[str, object]  # as written, every option (RuleOptions.to_json); as read, whatever replay checks
    seed: int
    players: list[str]
    hands: list[HandJSON]
    final_scores: list[int]
    winners: list[int]
    drawn: NotRequired[DrawnJSON]
    forfeit: NotRequired[ForfeitJSON]
    rubber: NotRequired[RubberJSON]
    slam: NotRequired[bool]  # won while the losers had no point, under the rule option slam: it counts as two games
    violations: NotRequired[list[ViolationJSON]]  # the referee's, from here on
    timing: NotRequired[TimingJSON]
    match_id: NotRequired[str]
    game_index: NotRequired[int]
    bots: NotRequired[list[BotJSON]]


# What the referee adds beside the engine's record (see arena.play.runner and arena.play.referee).
REFEREE_FIELDS = frozenset({"violations", "timing", "match_id", "game_index", "bots"})


def read_record(text: str | bytes) -> GameRecord:
    """A record from its JSON text, checked against the types above (strictly: a number is not a string): one that
    is not a game record raises RecordError naming its first wrong field, as ``hands.0.result.points.1: ...``.
    Keys the types do not know are left out of what it returns (the text is not changed)."""
    try:
        return _record_reader().validate_json(text, strict=True)
    except ValueError as exc:  # pydantic's ValidationError (a ValueError): each error with where it is
        if not hasattr(exc, "errors"):
            raise RecordError(f"not a game record: {exc}") from None
        errors = exc.errors()
        first = errors[0]
        where = ".".join(str(part) for part in first["loc"]) or "the record"
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise RecordError(f"not a game record: {where}: {first['msg']}{more}") from None


@functools.cache
def _record_reader() -> TypeAdapter[GameRecord]:
    """pydantic's reader of GameRecord, built at its first use: the referee and the bots never load pydantic."""
    from pydantic import TypeAdapter

    return TypeAdapter(GameRecord)


def record_rules(record: GameRecord) -> Rules:
    """The rules a record was played under (its variant and options), resolved once per distinct set."""
    return _rules(record["variant"], tuple(sorted(record["options"].items())))


@functools.cache
def _rules(variant: str, options: tuple[tuple[str, OptionValue], ...]) -> Rules:
    return make_rules(variant, dict(options))


def deal_json(deal: Deal | HasenpfefferDeal | NapDeal) -> DealJSON:
    """A deal as JSON: each seat's cards in seat order, the upcard (none in Hasenpfeffer), the kitty in deck order
    (Hasenpfeffer's: the widow; Nap's: the cards nobody is dealt)."""
    return {
        "hands": [[str(c) for c in h] for h in deal.hands],
        "upcard": None if deal.upcard is None else str(deal.upcard),
        "kitty": [str(c) for c in deal.kitty],
    }


def hand_json(hand: AnyHand, scores_after: tuple[int, ...]) -> HandJSON:
    """A finished hand as JSON: dealer, deal, actions in order (each with its seat), result."""
    result = hand.result
    if result is None:
        raise RecordError("a hand is recorded only once it is over")
    record: HandJSON = {
        "dealer": hand.dealer,
        "deal": deal_json(hand.deal),
        "actions": actions_json(hand.actions),
        "result": {
            "passed_out": result.passed_out,
            "maker": result.maker,
            "trump": None if result.trump is None else str(result.trump),
            "alone": result.alone,
            "defender_alone": result.defender_alone,
            "tricks": [trick_json(t) for t in result.tricks],
            "points": list(result.points),
            "scores_after": list(scores_after),
        },
    }
    if result.partners is not None:
        record["result"]["partners"] = list(result.partners)
    return record


def game_record(game: Game) -> GameRecord:
    """The complete record of a finished game (or rubber), as the engine knows it (the referee adds its part)."""
    if not game.is_over():
        raise RecordError("a game is recorded only once it is over")
    record: GameRecord = {
        "format": FORMAT,
        "variant": game.rules.variant,
        "options": game.rules.told_options(),
        "seed": game.seed,
        "players": list(game.players),
        "hands": [hand_json(h, s) for h, s in zip(game.hands, game.scores_after, strict=True)],
        "final_scores": list(game.scores()),
        "winners": list(game.winners),
    }
    if game.drawn:
        record["drawn"] = {"hand_number": len(game.hands)}
    if game.slam:
        record["slam"] = True
    if game.forfeited_by is not None:
        record["forfeit"] = {
            "seat": game.forfeited_by,
            "hand_number": len(game.hands),
            "actions": actions_json(game.hand.actions),
        }
    if game.rules.options.rubber:
        record["rubber"] = {
            "games": [
                {
                    "first_hand": g.first_hand,
                    "last_hand": g.last_hand,
                    "final_scores": list(g.final_scores),
                    "winners": list(g.winners),
                    "game_points": g.game_points,
                }
                for g in game.games
            ],
            "game_points": list(game.rubber_game_points()),
            "points": list(game.rubber_points()),
        }
    return record


def replay(record: object) -> Game:
    """Replay a record's actions on the deals its seed gives; raise RecordError unless it reproduces the record
    (``record`` as read, unchecked: whatever is not a game record raises RecordError too)."""
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise RecordError(f"not a game record of format {FORMAT!r}")
    seed, players = record.get("seed"), record.get("players")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise RecordError(f"the record's seed must be an integer, got {seed!r}")
    try:
        rules = make_rules(record["variant"], record["options"])
        if not isinstance(players, list) or len(players) != rules.players:
            raise RecordError(f"a {rules.variant} record names {rules.players} players, got {players!r}")
        game = Game(rules, seed, players)
        for index, hand in enumerate(record["hands"]):
            if game.is_over():
                raise RecordError(f"the game was over before hand {index}")
            if deal_json(game.hand.deal) != hand["deal"] or game.hand.dealer != hand["dealer"]:
                raise RecordError(f"hand {index}: the deal does not match seed {record['seed']}")
            for step, entry in enumerate(hand["actions"]):
                if not isinstance(entry, dict):
                    raise RecordError(f"hand {index}: action {step} is not an object")
                data = {k: v for k, v in entry.items() if k != "seat"}
                game.apply(parse_action(data), entry["seat"])
                if step < len(hand["actions"]) - 1 and len(game.hands) > index:
                    raise RecordError(f"hand {index} ended before its action {step + 1}")
    except (KeyError, TypeError) as exc:
        raise RecordError(f"malformed game record: missing or bad field {exc}") from None
    except RecordError:
        raise
    except ArenaError as exc:
        raise RecordError(f"the record does not replay: {exc}") from None
    if isinstance(record.get("drawn"), dict) and not game.is_over():
        game.draw()
    forfeit = record.get("forfeit")
    if isinstance(forfeit, dict) and not game.is_over():
        try:
            for entry in forfeit["actions"]:
                game.apply(parse_action({k: v for k, v in entry.items() if k != "seat"}), entry["seat"])
            game.forfeit(forfeit["seat"])
        except (KeyError, TypeError, ArenaError) as exc:
            raise RecordError(f"the record's forfeit does not replay: {exc}") from None
    if not game.is_over():
        raise RecordError("the record ends before the game is over")
    produced = game_record(game)
    unknown = set(record) - set(produced) - REFEREE_FIELDS
    if unknown:
        raise RecordError(f"the record has field(s) the engine does not produce: {', '.join(sorted(unknown))}")
    for key, value in produced.items():
        if key == "forfeit":
            value = {**record["forfeit"], **produced["forfeit"]}  # the referee adds why
        if key == "options":  # the options built the rules replayed: stated fully or not, they are the game's
            continue
        if record.get(key) != value:
            raise RecordError(f"replay differs from the record in {key!r}")
    return game
