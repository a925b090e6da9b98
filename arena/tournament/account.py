"""A person-readable account of a game record (``euchre-arena/game/1``), for ``arena replay``; and what went wrong
with the bots of a set of records (violations by bot and kind, and where each bot's log says why).

Hands are numbered from 0, as in the record and the protocol (``hand_number``). Cards keep their record text (``TD``
is the ten of diamonds, ``JK`` the Benny); each seat's cards are grouped by suit, trump first once it is known.
"""

from __future__ import annotations

import glob
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import cast

from arena.engine.actions import NAP_NAMES
from arena.engine.cards import Card, Suit, card_power, effective_suit, trick_winner_index
from arena.engine.game import cut_for_dealer, hand_rng, new_hand
from arena.engine.options import Rules, make_rules
from arena.engine.record import FORMAT, ActionJSON, DealJSON, ForfeitJSON, GameRecord, HandResultJSON, deal_json
from arena.engine.view import PlayedCardJSON
from arena.errors import ArenaError, RecordError
from arena.text import printable

SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}

_SUIT_ORDER = (-1, Suit.S, Suit.H, Suit.C, Suit.D)  # the Benny, then alternating colours


class _Table:
    """Names and sides of the seats of one record, and how to write them."""

    def __init__(self, names: Sequence[str], rules: Rules | None = None) -> None:
        self.names = list(names)
        self.n = len(names)
        self.unique = len(set(names)) == self.n
        self.six_hand = rules is not None and rules.game == "six_hand" and rules.players == self.n
        self.rules = rules  # (six-hand's sides, read only where ``six_hand``; the game's name in the header)
        self.nap = rules is not None and rules.game == "nap"
        self.pairs = self.n == 4 and not self.nap  # four-hand's two pairs (four players of Nap play each alone)

    def partners(self, seat: int) -> set[int]:
        """The seats playing with ``seat`` for the whole game (none without fixed partnerships)."""
        if self.six_hand:
            assert self.rules is not None
            side = self.rules.side_of(seat)
            return {s for s in range(self.n) if s != seat and self.rules.side_of(s) == side}
        return {(seat + 2) % 4} if self.pairs else set()

    def who(self, seat: int) -> str:
        """``seat 1 (bob)``: for sentences."""
        return f"seat {seat} ({self.names[seat]})"

    def tag(self, seat: int) -> str:
        """The name alone, or ``bob(1)`` when two seats share a name: for tricks and tallies."""
        return self.names[seat] if self.unique else f"{self.names[seat]}({seat})"

    def side(self, seat: int) -> str:
        """The scoring side of a seat: ``alice & carol`` in four-hand, else the player."""
        if self.six_hand:
            return " & ".join(self.tag(s) for s in sorted({seat, *self.partners(seat)}))
        if not self.pairs:
            return self.tag(seat)
        return f"{self.tag(seat % 2)} & {self.tag(seat % 2 + 2)}"

    def sides(self, seats: Sequence[int]) -> list[str]:
        """Side labels of ``seats``, each side once, in seat order."""
        return list(dict.fromkeys(self.side(s) for s in seats))

    def scores(self, scores: Sequence[int]) -> str:
        """Per-seat scores written once per side."""
        seats = range(2) if self.pairs else range(self.n)
        if self.six_hand:
            assert self.rules is not None
            seats = range(self.rules.sides)
        return ", ".join(f"{self.side(s)} {scores[s]}" for s in seats)


def check_record(record: object) -> GameRecord:
    """``record`` if it is a game record at first sight (an object of this format); else RecordError."""
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise RecordError(f'not a game record (no "format": "{FORMAT}")')
    return cast(GameRecord, record)  # at first sight: its parts are checked as the account reads them


def describe(record: GameRecord) -> str:
    """The whole game in words: header, every hand (deal, bidding, tricks, result), and how it ended.

    RecordError if ``record`` is not a game record or lacks a part the account needs.
    """
    check_record(record)
    try:
        return _describe(record)
    except KeyError as exc:
        raise RecordError(f"malformed game record: no {exc.args[0]!r} where the account needs one") from None
    except (IndexError, TypeError, ValueError, AttributeError) as exc:
        raise RecordError(f"malformed game record ({type(exc).__name__}: {exc})") from None


def _describe(record: GameRecord) -> str:
    try:
        rules: Rules | None = make_rules(record["variant"], record["options"])
    except ArenaError:
        rules = None
    table = _Table(record["players"], rules)
    lines = _header(record, table)
    rubber_games = record["rubber"]["games"] if "rubber" in record else []
    ends = {g["last_hand"]: (i, g) for i, g in enumerate(rubber_games)}
    for index, hand in enumerate(record["hands"]):
        lines += ["", *_hand(table, index, hand["dealer"], hand["deal"], hand["actions"], hand["result"])]
        if index in ends:
            number, g = ends[index]
            lines.append(
                f"  -- end of game {number + 1} of the rubber, won by {' and '.join(table.sides(g['winners']))}"
            )
    forfeit = record.get("forfeit")
    if isinstance(forfeit, dict):
        lines += ["", *_unfinished(record, table, forfeit)]
    lines += ["", *_ending(record, table)]
    return "\n".join(lines) + "\n"


# The name a game's header gives it: its game, where that is not Euchre (call-partner and six-hand are Euchre)
FAMILY = {"hasenpfeffer": "Hasenpfeffer", "nap": "Napoleon"}


def _header(record: GameRecord, table: _Table) -> list[str]:
    variant, options = record["variant"], record["options"]
    try:
        defaults = make_rules(variant).options.to_json()
    except ArenaError:
        defaults = {}
    changed = [f"{k}={v}" for k, v in options.items() if defaults.get(k, object()) != v]
    family = FAMILY.get(table.rules.game, "Euchre") if table.rules is not None else "Euchre"
    lines = [
        f"{family}, {variant}, seed {record['seed']}; "
        + (f"options: {', '.join(changed)}" if changed else "default rules"),
        "Players: " + ", ".join(f"seat {s} {name}" for s, name in enumerate(table.names)),
    ]
    if table.pairs:
        lines.append(f"Partners: {table.side(0)} (seats 0+2) vs {table.side(1)} (seats 1+3)")
    elif table.six_hand and table.rules is not None:
        lines.append("Sides: " + " vs ".join(table.side(s) for s in range(table.rules.sides)))
    first = record["hands"][0]["dealer"] if record["hands"] else cut_for_dealer(table.n, record["seed"])
    lines.append(f"First dealer: {table.who(first)}")
    if "match_id" in record:
        lines.append(f"Match {record['match_id']}, game {record.get('game_index', '?')}")
    return lines


def sort_cards(cards: Sequence[str], trump: str | None = None) -> str:
    """Cards grouped by suit (trump first with its bowers and the Benny, when known), high to low, groups apart."""
    t = None if trump is None else Suit.parse(trump)
    groups: dict[int, list[Card]] = {}
    for c in map(Card.parse, cards):
        group = effective_suit(c, t) if t is not None else (-1 if c.suit is None else int(c.suit))
        groups.setdefault(group, []).append(c)
    order = sorted(groups, key=lambda g: (g != t and g != -1, _SUIT_ORDER.index(g)))
    parts = []
    for g in order:
        ranked = sorted(groups[g], key=lambda c: -(card_power(c, t, g) if t is not None else c.rank))
        parts.append(" ".join(str(c) for c in ranked))
    return "  ".join(parts)


def _suit(letter: str, alone: bool = False) -> str:
    return SUIT_NAMES[letter] + (" alone" if alone else "")


def _trump_and_out(
    actions: Sequence[ActionJSON], upcard: str | None, table: _Table | None = None
) -> tuple[str | None, set[int]]:
    """The trump suit made by the bidding (if any) and the seats sitting out, from the actions alone."""
    trump, out = None, set()
    for a in actions:
        if a["type"] in ("order_up", "call", "name_trump"):
            trump = upcard[1] if a["type"] == "order_up" and upcard and upcard != "JK" else a.get("suit")
            if a.get("alone") and table is not None and table.six_hand:
                out |= table.partners(a["seat"])
            elif a.get("alone"):
                out.add((a["seat"] + 2) % 4)
        elif a["type"] == "defend_alone":
            out.add((a["seat"] + 2) % 4)
    return trump, out


def _bidding(table: _Table, dealer: int, upcard: str | None, actions: Sequence[ActionJSON]) -> list[str]:
    """Every action before play, in order, as a sentence."""
    lines, passes, made, calling, given = [], 0, False, set(), False
    for a in actions:
        seat, kind = a["seat"], a["type"]
        who = ("dealer " if seat == dealer else "") + table.who(seat)
        if kind == "bid":  # Hasenpfeffer's auction and the high bidder's declaration
            lines.append(f"{who} bids {a.get('tricks')}")
            continue
        if kind == "nap_bid":
            lines.append(f"{who} bids {NAP_NAMES.get(str(a.get('contract')), a.get('contract'))}")
            continue
        if kind == "declare":
            lines.append(f"{who} takes the widow, names {_suit(str(a.get('suit')))} and puts away {a.get('discard')}")
            continue
        if a.get("alone") or kind == "defend_alone":
            calling.add(seat)  # Railroad: a lone player may be asked to call for best
        if kind == "pass" and seat in calling:
            lines.append(f"{who} does not call for his partner's best")
            calling.discard(seat)
        elif kind == "call_for_best":
            away = f", putting away {a['card']}" if "card" in a else ""
            away += f", putting away {' '.join(a['cards'])}" if "cards" in a else ""  # six-hand: one per partner
            named = f" from {table.who(a['partner'])}" if "partner" in a else ""
            lines.append(f"{who} calls for his partner's best{named}{away}")
            calling.discard(seat)
        elif kind == "call_partner":
            lines.append(f"{who} calls {' and '.join(a['cards'])}: its holder is his partner")
        elif kind == "go_alone":
            lines.append(f"{who} calls no partner and plays alone")
        elif kind == "give_best":
            lines.append(f"{who} passes {a['card']} to his partner")
            given = True
        elif kind == "discard" and given:
            lines.append(f"{who} puts away {a['card']}")
        elif kind == "pass" and made:
            lines.append(f"{who} declines to defend alone")
        elif kind == "pass":
            passes += 1
            lines.append(f"{who} passes")
            if passes == table.n and upcard is not None:
                lines.append(f"{upcard} is turned down")
        elif kind == "order_up" and upcard is not None:
            lines.append(f"{who} orders up {_suit(upcard[1], a['alone'])}")
        elif kind == "call":
            lines.append(f"{who} calls {_suit(a['suit'], a['alone'])}")
        elif kind == "name_trump":
            benny = " (Benny turned up)" if upcard is not None else ""
            lines.append(f"{who} names {_suit(a['suit'])}{benny}")
        elif kind == "discard" and a["card"] == upcard and upcard != "JK":
            lines.append(f"{who} declines the upcard (discards it)")
        elif kind == "discard":
            taken = "the Benny" if upcard == "JK" else "the upcard"
            lines.append(f"{who} takes {taken} and discards {a['card']}")
        elif kind == "defend_alone":
            lines.append(f"{who} defends alone")
        made = made or kind in ("order_up", "call", "name_trump")
    return lines


def _trick(
    table: _Table, number: int, plays: Sequence[PlayedCardJSON] | Sequence[ActionJSON], winner: int | None
) -> str:
    cards = ", ".join(f"{table.tag(p['seat'])}{' leads' if i == 0 else ''} {p['card']}" for i, p in enumerate(plays))
    end = "" if winner is None else f" -> {table.tag(winner)} wins"
    return f"  trick {number}: {cards}{end}"


def _hand(
    table: _Table,
    index: int,
    dealer: int,
    deal: DealJSON,
    actions: Sequence[ActionJSON],
    result: HandResultJSON | None,
) -> list[str]:
    upcard = deal["upcard"]
    trump, out = _trump_and_out(actions, upcard, table)
    if result is not None and result["trump"] is not None:
        trump = result["trump"]  # (a turned-up joker proposes the rules' joker_suit, in Railroad)
    lines = [f"Hand {index}, dealer {table.who(dealer)}" + ("" if result else " (not finished)")]
    for seat, cards in enumerate(deal["hands"]):
        notes = ", ".join(([] if seat != dealer else ["dealer"]) + ([] if seat not in out else ["sits out"]))
        notes = f" ({notes})" if notes else ""
        lines.append(f"  seat {seat} {table.names[seat]}{notes}: {sort_cards(cards, trump)}")
    if table.nap:  # the rest of the pack, set aside unseen
        lines.append(f"  not dealt: {' '.join(deal['kitty'])}")
    elif upcard is None:  # Hasenpfeffer
        lines.append(f"  widow {' '.join(deal['kitty'])}")
    else:
        lines.append(f"  upcard {upcard}; kitty {' '.join(deal['kitty']) or '-'}")
    lines += [f"  {s}" for s in _bidding(table, dealer, upcard, actions)]
    if out:
        no_exchange = " (no exchange)" if dealer in out and any(a["type"] == "order_up" for a in actions) else ""
        lines.append(f"  sitting out: {', '.join(table.who(s) for s in sorted(out))}{no_exchange}")
    if result is not None:
        for number, t in enumerate(result["tricks"], 1):
            lines.append(_trick(table, number, t["cards"], t["winner"]))
        return lines + _result(table, result, actions)
    plays = [a for a in actions if a["type"] == "play"]
    size = table.n - len(out)
    for number, start in enumerate(range(0, len(plays), size), 1):
        chunk = plays[start : start + size]
        winner = None
        if len(chunk) == size and trump is not None:
            winner = chunk[trick_winner_index([Card.parse(p["card"]) for p in chunk], Suit.parse(trump))]["seat"]
        lines.append(_trick(table, number, chunk, winner))
    return lines


def _result(table: _Table, result: HandResultJSON, actions: Sequence[ActionJSON] = ()) -> list[str]:
    scores = f"  scores: {table.scores(result['scores_after'])}"
    if result["passed_out"]:
        return [f"  passed out: everyone passed{'' if table.nap else ' twice'}, no score", scores]
    maker = result["maker"]
    assert maker is not None  # a hand not passed out has a maker
    if table.nap:  # the declarer alone against the others: his contract, made or lost, and what each seat paid
        contract = next(str(a.get("contract")) for a in reversed(actions) if a["type"] == "nap_bid")
        won = sum(1 for t in result["tricks"] if t["winner"] == maker)
        trump = SUIT_NAMES[result["trump"]] if result["trump"] else "no trump"
        made = result["points"][maker] > 0
        paid = ", ".join(f"{table.tag(s)} {p:+d}" for s, p in enumerate(result["points"]) if p)
        return [
            f"  result: declarer {table.who(maker)}, {NAP_NAMES.get(contract, contract)} ({trump}): took {won}"
            f" trick{_s(won)}, {'made' if made else 'lost'}; {paid}",
            scores,
        ]
    makers = {maker, (maker + 2) % 4} if table.pairs else {maker, *table.partners(maker)}
    partners = result.get("partners")  # call-partner Euchre: who held a called card
    if partners is not None:
        makers |= set(partners)
    won = sum(1 for t in result["tricks"] if t["winner"] in makers)
    outcome = "march" if won == 5 else "made" if won >= 3 else "euchred"
    how = " alone" if result["alone"] else ""
    if result["defender_alone"] is not None:
        how += f" against {table.who(result['defender_alone'])} defending alone"
    points = result["points"]
    gainers = [s for s in range(table.n) if points[s] > 0]
    gained = ", ".join(f"{table.side(s)} +{points[s]}" for s in _one_per_side(table, gainers))
    if partners is not None:
        how += f", partner{_s(len(partners))} " + (", ".join(map(table.who, partners)) if partners else "none")
    return [
        f"  result: maker {table.who(maker)}, {SUIT_NAMES[result['trump'] or '']}{how}: makers took {won}"
        f" trick{_s(won)}, {outcome}; {gained}",
        scores,
    ]


def _s(count: int) -> str:
    return "" if count == 1 else "s"


def _one_per_side(table: _Table, seats: Sequence[int]) -> list[int]:
    firsts: dict[str, int] = {}
    for s in seats:
        firsts.setdefault(table.side(s), s)
    return list(firsts.values())


def _unfinished(record: GameRecord, table: _Table, forfeit: ForfeitJSON) -> list[str]:
    index = forfeit.get("hand_number", len(record["hands"]))
    hands = record["hands"]
    dealer = (hands[-1]["dealer"] + 1) % table.n if hands else cut_for_dealer(table.n, record["seed"])
    try:
        rules = make_rules(record["variant"], record["options"])
        deal = deal_json(new_hand(rules, dealer, hand_rng(record["seed"], index)).deal)
    except (ArenaError, KeyError, TypeError, ValueError):
        return [f"Hand {index} (not finished; its deal cannot be rebuilt): {forfeit.get('actions', [])}"]
    lines = _hand(table, index, dealer, deal, forfeit.get("actions", []), None)
    return [*lines, f"  the game stops here: {table.who(forfeit['seat'])} forfeits"]


def _ending(record: GameRecord, table: _Table) -> list[str]:
    lines = [f"Final scores: {table.scores(record['final_scores'])}"]
    lines.append(f"Winners: {' and '.join(table.sides(record['winners'])) or 'none'}")
    rubber = record.get("rubber")
    if rubber:
        for i, g in enumerate(rubber["games"], 1):
            first, last, points = g["first_hand"], g["last_hand"], g["game_points"]
            span = f"hand {first}" if first == last else f"hands {first}-{last}"
            lines.append(
                f"Rubber game {i} ({span}): won by {' and '.join(table.sides(g['winners']))}"
                f" ({table.scores(g['final_scores'])}) for {points} game point{_s(points)}"
            )
        lines.append(
            f"Rubber: game points {table.scores(rubber['game_points'])}; points {table.scores(rubber['points'])}"
        )
    forfeit = record.get("forfeit")
    if isinstance(forfeit, dict):
        why = ": ".join(str(forfeit[k]) for k in ("kind", "detail") if forfeit.get(k))
        lines.append(
            f"Forfeit: {table.who(forfeit['seat'])} forfeited the game during hand {forfeit.get('hand_number', '?')}"
            + (f" ({why})" if why else "")
        )
    violations = record.get("violations") or []
    if violations:
        lines.append(f"Violations ({len(violations)}):")
        for v in violations:
            excerpt = f" [sent: {v['excerpt']}]" if v.get("excerpt") else ""
            lines.append(
                f"  hand {v.get('hand_number', '?')}, {table.who(v['seat'])}, at {v.get('at_seconds', '?')} s:"
                f" {v['kind']}: {v['detail']}{excerpt}"
            )
    timing = record.get("timing")
    if timing:
        each = ", ".join(
            f"{table.tag(s)} {t:.3f} s / {d} decision{_s(d)}"
            for s, (t, d) in enumerate(zip(timing["thinking"], timing["decisions"], strict=True))
        )
        lines.append(f"Time: {timing['seconds']:.3f} s in all; thinking: {each}")
    strikes = [f"{table.who(b['seat'])} {b['strikes']}" for b in record.get("bots", []) if b.get("strikes")]
    if strikes:
        lines.append(f"Strikes in the match so far: {', '.join(strikes)}")
    return lines


# ---- what went wrong with the bots ----

_ERROR_LINE = re.compile(r"error|exception|traceback|panic|fatal|abort|killed|segmentation fault", re.IGNORECASE)
_LOG_HEAD = 256 * 1024  # the start of a log is where its first error is


def find_log(log_dir: str | Path, match_id: str | None, name: str) -> Path | None:
    """The log of bot ``name`` in match ``match_id`` (``<log_dir>/<match_id>-bot<index>-<name>.log``), or None."""
    if not match_id:
        return None
    pattern = f"{glob.escape(str(log_dir))}/{glob.escape(match_id)}-bot*-{glob.escape(name)}.log"
    found = sorted(glob.glob(pattern), key=lambda p: (len(p), p))
    return Path(found[0]) if found else None


def bot_error(log: Path) -> str | None:
    """The first line of the bot's own error in its log (after the arena's ``[arena: ...]`` lines), made printable.

    A Python traceback gives its exception line; otherwise the first line that speaks of an error, or the bot's last
    line of output. None when the log cannot be read or holds no output of the bot's.
    """
    try:
        with open(log, "rb") as file:
            text = file.read(_LOG_HEAD).decode("utf-8", errors="replace")
    except OSError:
        return None
    lines = [line.rstrip() for line in text.splitlines() if line.strip() and not line.startswith("[arena:")]
    for index, line in enumerate(lines):
        if line.startswith("Traceback (most recent call last)"):
            exception = next((after for after in lines[index + 1 :] if not after[:1].isspace()), line)
            return printable(exception.strip(), 240)
        if _ERROR_LINE.search(line):
            return printable(line.strip(), 240)
    return printable(lines[-1].strip(), 240) if lines else None


class ViolationTally:
    """The violations and forfeits of a run's games by bot, added up game by game (nothing of a game is kept but a
    bot's first violation): what ``violation_summary`` prints."""

    def __init__(self) -> None:
        self.kinds: dict[str, Counter[str]] = {}
        self.games: Counter[str] = Counter()
        self.forfeits: Counter[str] = Counter()
        self.first: dict[str, tuple[str, str, str | None]] = {}

    def add(self, record: GameRecord) -> None:
        """Count one game's record."""
        players = record["players"]
        self.games.update(set(players))
        forfeit = record.get("forfeit")
        if isinstance(forfeit, dict) and 0 <= forfeit.get("seat", -1) < len(players):
            self.forfeits[players[forfeit["seat"]]] += 1
        for violation in record.get("violations") or []:
            seat = violation.get("seat", -1)
            name = players[seat] if 0 <= seat < len(players) else f"seat {seat}"
            self.kinds.setdefault(name, Counter())[violation.get("kind", "?")] += 1
            first = (violation.get("kind", "?"), violation.get("detail", ""), record.get("match_id"))
            self.first.setdefault(name, first)

    def summary(self, log_dir: str | Path) -> tuple[list[str], list[tuple[str, int]]]:
        """See ``violation_summary``."""
        kinds, games, forfeits = self.kinds, self.games, self.forfeits
        lines = []
        if kinds:
            lines.append("Violations by bot and kind:")
        for name, counts in sorted(kinds.items(), key=lambda item: (-sum(item[1].values()), item[0])):
            tally = ", ".join(
                f"{kind} {count}" for kind, count in sorted(counts.items(), key=lambda kc: (-kc[1], kc[0]))
            )
            lost = f"; forfeited {forfeits[name]} of its {_games(games[name])}" if forfeits[name] else ""
            kind, detail, match_id = self.first[name]
            lines += [f"  {name}: {tally}{lost}", f"    first: {kind}: {detail}"]
            log = find_log(log_dir, match_id, name)
            if log is not None:
                said = bot_error(log)
                lines.append(f"    log {log}" + (f": {said}" if said else " (no output from the bot)"))
        never = [(name, games[name]) for name in sorted(games) if forfeits[name] == games[name]]
        return lines, never


def violation_summary(records: Iterable[GameRecord], log_dir: str | Path) -> tuple[list[str], list[tuple[str, int]]]:
    """Lines that count the violations of ``records`` by bot and kind, each bot's first one and its log; and the
    bots that forfeited every game they played, with how many (empty lists when nothing went wrong)."""
    tally = ViolationTally()
    for record in records:
        tally.add(record)
    return tally.summary(log_dir)


def _games(count: int) -> str:
    return f"{count} game{_s(count)}"
