"""The scoring table of docs/rules.md section 7, and rubber game points of section 8.3."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (a bot imports this table: it starts without the options' module)
    from arena.engine.options import RuleOptions, Rules


NAP_STAKES = {"one": (1, 1), "two": (2, 2), "three": (3, 3), "misere": (3, 3), "four": (4, 4), "nap": (10, 5)}
NAP_STAKES |= {"wellington": (20, 10), "bluecher": (30, 15)}
"""Nap's table (docs/rules.md section 15): per contract, what each opponent pays a declarer who makes it, and what
he pays each when he does not (Misere's loss is 6 under ``misere_stakes = "3/6"``)."""
NAP_TRICKS = {"one": 1, "two": 2, "three": 3, "misere": 0, "four": 4, "nap": 5, "wellington": 5, "bluecher": 5}
"""The tricks a Nap contract needs (Misere: none, and no more)."""


def nap_made(contract: str, taken: int) -> bool:
    """Whether a Nap declarer who took ``taken`` tricks made ``contract``."""
    return taken == 0 if contract == "misere" else taken >= NAP_TRICKS[contract]


def _same_side(players: int, seat: int, maker: int) -> bool:
    return seat == maker or (players == 4 and (seat - maker) % 2 == 0)


SAME_SIDE: dict[int, tuple[tuple[bool, ...], ...]] = {
    n: tuple(tuple(_same_side(n, seat, maker) for seat in range(n)) for maker in range(n)) for n in (2, 3, 4)
}  # SAME_SIDE[players][maker][seat]: whether ``seat`` scores with ``maker`` (himself, or his partner in four-hand)


def hand_points(
    players: int, maker: int, maker_tricks: int, *, alone: bool, defender_alone: bool, lone_euchred: int = 2
) -> tuple[int, ...]:
    """Points per seat for a played hand; partners in four-hand both show their side's points. ``lone_euchred``:
    what two defenders score for euchring a lone maker (Railroad's option; 2 in every other variant)."""
    makers_score = maker_tricks >= 3
    if not makers_score:
        gain = 4 if defender_alone else lone_euchred if alone else 2
    elif maker_tricks < 5:
        gain = 1
    elif players == 3:
        gain = 3
    elif players == 4 and alone:
        gain = 4
    else:
        gain = 2
    return tuple([gain if with_maker is makers_score else 0 for with_maker in SAME_SIDE[players][maker]])


def contract_points(options: RuleOptions, bid: int, taken: int) -> tuple[int, int]:
    """Hasenpfeffer's table (docs/rules.md section 14.4): the points of the bidding side and of the defenders when
    the bidding side took ``taken`` of the six tricks on a bid of ``bid``."""
    bidders = (taken if options.made_score == "tricks" else bid) if taken >= bid else -bid
    return bidders, (6 - taken if options.defenders_score_tricks else 0)


def call_partner_points(
    options: RuleOptions, players: int, makers: set[int], won: int, *, alone: bool
) -> tuple[int, ...]:
    """Call-partner Euchre's table (docs/rules.md section 16): each player's points when the maker's side
    ``makers`` (the maker and whoever held a called card) took ``won`` tricks; ``alone``: the maker called no card.
    A maker whose called card nobody held scores a march as alone under ``buried_call = "alone"``."""
    if won < 3:  # euchred: each defender +2
        return tuple([0 if s in makers else 2 for s in range(players)])
    if won < 5:
        gain = 1
    elif alone or (len(makers) == 1 and options.buried_call == "alone"):
        gain = options.lone_march_points or players
    else:
        gain = options.march_points
    return tuple([gain if s in makers else 0 for s in range(players)])


def six_hand_points(rules: Rules, maker: int, won: int, *, alone: bool) -> tuple[int, ...]:
    """Six-hand Euchre's table (docs/rules.md section 16): each seat's points, partners showing their side's,
    when the maker's side took ``won`` tricks; euchred, each defending side scores 2."""
    side = rules.side_of(maker)
    if won < 3:
        return tuple([0 if rules.side_of(s) == side else 2 for s in range(rules.players)])
    if won < 5:
        gain = 1
    elif alone:
        gain = rules.options.lone_march_points or (5 if rules.sides == 2 else 4)
    else:
        gain = 2
    return tuple([gain if rules.side_of(s) == side else 0 for s in range(rules.players)])


def rubber_game_points(loser_score: int) -> int:
    """Game points the winner of one game of a rubber earns, by the losing side's score in it."""
    if loser_score <= 0:
        return 3
    if loser_score <= 2:
        return 2
    return 1


RUBBER_BONUS = 2
