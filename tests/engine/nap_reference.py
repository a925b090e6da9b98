"""An independent reference referee for Napoleon (Nap), written from the rule book of Nap alone (docs/rules.md
section 15 is its public form).

It exists to cross-check the arena's engine: it shares no code with `arena/` and was written without reading it.
It knows one deal at a time (`NapDeal`: bidding, play, the deal's points), the pack (`nap_pack`) and the end of a
game (`game_over`, `winner`).

Cards are text, rank then suit (`2C` ... `AS`), the joker `JK`. Actions are the wire-form dicts:

- `{"type": "pass"}`;
- `{"type": "nap_bid", "contract": C}`, C one of `CONTRACTS`;
- `{"type": "play", "card": "QH"}`, and `{"type": "play", "card": "JK", "trump": S}` when the declarer leads the
  joker to the first trick of a contract whose first lead fixes trump (then the plain joker play is not legal).

Every place where the rule book leaves room for more than one reading is marked with a comment starting
`# CHOICE:`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

RANKS = "23456789TJQKA"
SUITS = "CDHS"
JOKER = "JK"

# The bidding ladder, lowest first (section 4.3).
CONTRACTS: tuple[str, ...] = ("one", "two", "three", "misere", "four", "nap", "wellington", "bluecher")
_LEVEL: dict[str, int] = {name: level for level, name in enumerate(CONTRACTS)}

# Tricks the declarer must take at least (Misere: none at all, handled apart).
_TRICKS_NEEDED: dict[str, int] = {
    "one": 1,
    "two": 2,
    "three": 3,
    "misere": 0,
    "four": 4,
    "nap": 5,
    "wellington": 5,
    "bluecher": 5,
}

# Section 4.6: value per opponent when the declarer wins / loses (Misere's loss depends on misere_stakes).
_WIN_VALUE: dict[str, int] = {
    "one": 1,
    "two": 2,
    "three": 3,
    "misere": 3,
    "four": 4,
    "nap": 10,
    "wellington": 20,
    "bluecher": 30,
}
_LOSE_VALUE: dict[str, int] = {
    "one": 1,
    "two": 2,
    "three": 3,
    "misere": 3,
    "four": 4,
    "nap": 5,
    "wellington": 10,
    "bluecher": 15,
}

# Section 4.2.1: the lowest rank of the stripped pack by number of players (24, 28, 32, 32, 36 cards).
_STRIPPED_LOWEST: dict[int, str] = {2: "9", 3: "9", 4: "8", 5: "7", 6: "7", 7: "6"}

HAND_SIZE = 5
TRICKS_PER_DEAL = 5


@dataclass(frozen=True)
class NapOptions:
    """Nap's rule options (section 4.2), checked and with their defaults filled in."""

    deck: str = "52"
    joker: bool = False
    min_bid: int = 2
    misere: bool = True
    misere_trumps: bool = False
    misere_stakes: str = "3/3"
    wellington: bool = True
    bluecher: bool = True
    all_pass: str = "redeal"
    scoring: str = "settlement"
    deals_per_player: int = 3
    target_score: int = 0


def _flag(options: Mapping[str, object], key: str, default: bool) -> bool:
    """A true/false option."""
    value = options.get(key, default)
    if not isinstance(value, bool):
        raise ValueError(f"option {key} must be true or false, not {value!r}")
    return value


def _choice(options: Mapping[str, object], key: str, default: str, allowed: Sequence[str]) -> str:
    """An option taking one of a few words."""
    value = options.get(key, default)
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"option {key} must be one of {list(allowed)}, not {value!r}")
    return value


def _integer(options: Mapping[str, object], key: str, default: int, lowest: int) -> int:
    """An integer option of at least `lowest`."""
    value = options.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < lowest:
        raise ValueError(f"option {key} must be an integer of at least {lowest}, not {value!r}")
    return value


def parse_options(options: Mapping[str, object]) -> NapOptions:
    """Check Nap's options and fill in the defaults of section 4.2."""
    # CHOICE: keys that are not Nap options (for instance `players` or another game's options) are ignored, so the
    # reference can be handed the engine's whole option table.
    # CHOICE: the rule book's `deck` option (52 or "stripped", section 4.2) is accepted besides the options of the
    # brief; `deck = 52` may be written as the number or as the text "52".
    # CHOICE: `bluecher = true` with `wellington = false` is not refused here (the rule book says the arena refuses
    # it); it plays as `bluecher = false`, since Bluecher can only be bid over Wellington.
    # CHOICE: `target_score` null, absent or 0 all mean "no target".
    deck_value = options.get("deck", 52)
    if deck_value in (52, "52"):
        deck = "52"
    elif deck_value == "stripped":
        deck = "stripped"
    else:
        raise ValueError(f"option deck must be 52 or 'stripped', not {deck_value!r}")
    min_bid = options.get("min_bid", 2)
    if isinstance(min_bid, bool) or not isinstance(min_bid, int) or min_bid not in (2, 3):
        raise ValueError(f"option min_bid must be 2 or 3, not {min_bid!r}")
    target = options.get("target_score", 0)
    target_score = 0 if target is None else _integer(options, "target_score", 0, 0)
    return NapOptions(
        deck=deck,
        joker=_flag(options, "joker", False),
        min_bid=min_bid,
        misere=_flag(options, "misere", True),
        misere_trumps=_flag(options, "misere_trumps", False),
        misere_stakes=_choice(options, "misere_stakes", "3/3", ("3/3", "3/6")),
        wellington=_flag(options, "wellington", True),
        bluecher=_flag(options, "bluecher", True),
        all_pass=_choice(options, "all_pass", "redeal", ("redeal", "dealer_must_bid")),
        scoring=_choice(options, "scoring", "settlement", ("settlement", "bidder_only")),
        deals_per_player=_integer(options, "deals_per_player", 3, 1),
        target_score=target_score,
    )


def _check_players(players: int) -> None:
    """Nap is for 2 to 7 players (section 4.1)."""
    if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 7:
        raise ValueError(f"Nap is for 2 to 7 players, not {players!r}")


def nap_pack(players: int, options: Mapping[str, object]) -> list[str]:
    """The pack's cards in deck order (rank first, then suit C D H S; the joker last): sections 1.1 and 4.2.1.

    The full pack is 2 to ace; the stripped pack starts at 9 (2-3 players), 8 (4), 7 (5-6) or 6 (7). The joker
    option adds `JK` to whichever pack is used.
    """
    _check_players(players)
    opts = parse_options(options)
    lowest = "2" if opts.deck == "52" else _STRIPPED_LOWEST[players]
    cards = [rank + suit for rank in RANKS[RANKS.index(lowest) :] for suit in SUITS]
    if opts.joker:
        cards.append(JOKER)
    return cards


def _rank(card: str) -> int:
    """A plain card's strength: 2 lowest, ace highest (no bowers in Nap)."""
    return RANKS.index(card[0])


def _top_bid(opts: NapOptions) -> str:
    """The highest bid that exists under these options: bidding stops at once when it is made (section 4.3)."""
    if not opts.wellington:
        return "nap"
    if not opts.bluecher:
        return "wellington"
    return "bluecher"


class NapDeal:
    """One deal of Nap: one round of bidding, then five tricks, then the deal's points (sections 4.3 to 4.6)."""

    def __init__(
        self, players: int, options: Mapping[str, object], dealer: int, hands: Sequence[Sequence[str]]
    ) -> None:
        """Start a deal whose cards are already dealt: `hands[seat]` is that seat's five cards.

        Seats are numbered 0 to players-1 clockwise; the eldest (dealer + 1) bids first, the dealer last.
        """
        _check_players(players)
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < players:
            raise ValueError(f"dealer must be a seat of 0 to {players - 1}, not {dealer!r}")
        self._n = players
        self._opts = parse_options(options)
        self._dealer = dealer
        pack = set(nap_pack(players, options))
        if len(hands) != players:
            raise ValueError(f"{players} hands are needed, not {len(hands)}")
        seen: set[str] = set()
        self._hands: list[list[str]] = []
        for seat, hand in enumerate(hands):
            cards = [str(card) for card in hand]
            if len(cards) != HAND_SIZE:
                raise ValueError(f"seat {seat} must hold {HAND_SIZE} cards, not {len(cards)}")
            for card in cards:
                if card not in pack:
                    raise ValueError(f"{card!r} is not in this game's pack")
                if card in seen:
                    raise ValueError(f"{card!r} was dealt twice")
                seen.add(card)
            self._hands.append(cards)

        # Bidding: one turn each, eldest first, dealer last.
        self._bid_order = [(dealer + 1 + k) % players for k in range(players)]
        self._bid_turn = 0
        self._high: str | None = None
        self._high_seat: int | None = None
        self._phase = "bidding"  # then "play", then "over"
        self._passed_out = False
        self._declarer: int | None = None
        self._contract: str | None = None

        # Play.
        self._trump: str | None = None
        self._trick: list[tuple[int, str]] = []
        self._led_suit: str | None = None
        self._turn: int | None = self._bid_order[0]
        self._tricks_won = [0] * players
        self._trick_winners: list[int] = []

    # ---- what the deal shows ----

    def to_act(self) -> int | None:
        """The seat to act, None when the deal is over."""
        return None if self._phase == "over" else self._turn

    def over(self) -> bool:
        """Whether the deal is over: passed out, or all five tricks played."""
        return self._phase == "over"

    def passed_out(self) -> bool:
        """Whether everyone passed under `all_pass = "redeal"` (the deal scores nothing)."""
        return self._passed_out

    def declarer(self) -> int | None:
        """The declarer, once the bidding is over; None before and in a passed-out deal."""
        # CHOICE: while the bidding goes on, declarer() and contract() are None, not the highest bidder so far.
        return self._declarer

    def contract(self) -> str | None:
        """The declarer's contract, once the bidding is over; None before and in a passed-out deal."""
        return self._contract

    def trump(self) -> str | None:
        """The trump suit once the first lead fixed it; None before, and throughout a no-trump Misere."""
        return self._trump

    def tricks_won(self) -> list[int]:
        """The tricks each seat has won so far."""
        return list(self._tricks_won)

    def trick_winners(self) -> list[int]:
        """The winner of each finished trick, in order."""
        return list(self._trick_winners)

    def declarer_won(self) -> bool | None:
        """Whether the declarer made his contract; None unless the deal was played to its end.

        Misere is lost at the first trick the declarer wins (fine point 3), but all five tricks are still played;
        every other contract needs at least its number of tricks, extra tricks counting for nothing.
        """
        # CHOICE: the forced bid One is made with at least one trick ("win 1 trick" read as "at least one").
        if self._phase != "over" or self._declarer is None or self._contract is None:
            return None
        taken = self._tricks_won[self._declarer]
        if self._contract == "misere":
            return taken == 0
        return taken >= _TRICKS_NEEDED[self._contract]

    def points(self) -> list[int]:
        """Each seat's points for this deal (section 4.6); all 0 when passed out.

        Settlement: the declarer gains (or loses) value x (N - 1) and each opponent loses (or gains) value.
        Bidder only: the declarer gains the win value or loses the loss value; the opponents score nothing.
        """
        # CHOICE: asking for the points of a deal that is not over raises ValueError.
        if self._phase != "over":
            raise ValueError("the deal is not over")
        scores = [0] * self._n
        won = self.declarer_won()
        if won is None or self._declarer is None or self._contract is None:
            return scores
        if won:
            value = _WIN_VALUE[self._contract]
        elif self._contract == "misere" and self._opts.misere_stakes == "3/6":
            value = -6
        else:
            value = -_LOSE_VALUE[self._contract]
        if self._opts.scoring == "settlement":
            for seat in range(self._n):
                scores[seat] = value * (self._n - 1) if seat == self._declarer else -value
        else:
            scores[self._declarer] = value
        return scores

    # ---- actions ----

    def legal(self) -> list[dict[str, object]]:
        """The legal actions of the seat to act (empty when the deal is over)."""
        if self._phase == "bidding":
            return self._legal_bids()
        if self._phase == "play":
            return self._legal_plays()
        return []

    def apply(self, seat: int, action: Mapping[str, object]) -> None:
        """Play one action for `seat`; ValueError if the deal is over, it is not that seat's turn, or it is illegal."""
        # CHOICE: an action must equal one of `legal()` exactly: no extra keys, and a joker play carries "trump"
        # exactly when it is the declarer's first lead in a contract whose first lead fixes trump.
        if self._phase == "over":
            raise ValueError("the deal is over")
        if seat != self._turn:
            raise ValueError(f"it is seat {self._turn}'s turn, not seat {seat}'s")
        wanted = dict(action)
        if wanted not in self.legal():
            raise ValueError(f"illegal action for seat {seat}: {wanted!r}")
        if self._phase == "bidding":
            self._bid(seat, wanted)
        else:
            self._play(seat, wanted)

    # ---- bidding (section 4.3) ----

    def _biddable(self) -> list[str]:
        """The bids a player could normally make now: above the highest bid so far and allowed by the options."""
        high = -1 if self._high is None else _LEVEL[self._high]
        bids = []
        for name in CONTRACTS:
            if _LEVEL[name] <= high:
                continue
            if name == "one":
                allowed = False  # only the dealer's forced bid
            elif name == "two":
                allowed = self._opts.min_bid == 2
            elif name == "misere":
                allowed = self._opts.misere
            elif name == "wellington":
                allowed = self._opts.wellington and self._high == "nap"
            elif name == "bluecher":
                allowed = self._opts.wellington and self._opts.bluecher and self._high == "wellington"
            else:  # three, four, nap
                allowed = True
            if allowed:
                bids.append(name)
        return bids

    def _dealer_forced(self) -> bool:
        """Whether the dealer is on turn with everyone else passed under `all_pass = "dealer_must_bid"`."""
        return (
            self._opts.all_pass == "dealer_must_bid"
            and self._bid_order[self._bid_turn] == self._dealer
            and self._high is None
        )

    def _legal_bids(self) -> list[dict[str, object]]:
        """Pass or any higher bid; the forced dealer may not pass but may bid One or any bid he could normally make."""
        # CHOICE: the forced dealer's "any bid he could normally make" is every bid open with no bid made yet: Two
        # (if min_bid = 2), Three, Misere (if allowed), Four and Nap.
        actions: list[dict[str, object]] = [{"type": "nap_bid", "contract": name} for name in self._biddable()]
        if self._dealer_forced():
            actions.insert(0, {"type": "nap_bid", "contract": "one"})
        else:
            actions.insert(0, {"type": "pass"})
        return actions

    def _bid(self, seat: int, action: Mapping[str, object]) -> None:
        """Record a pass or a bid, and end the bidding when everyone spoke or the top bid was made."""
        if action["type"] == "nap_bid":
            contract = action["contract"]
            assert isinstance(contract, str)
            self._high = contract
            self._high_seat = seat
            if contract == _top_bid(self._opts):
                self._end_bidding()  # nobody after is asked
                return
        self._bid_turn += 1
        if self._bid_turn == self._n:
            self._end_bidding()
        else:
            self._turn = self._bid_order[self._bid_turn]

    def _end_bidding(self) -> None:
        """Name the declarer and let him lead, or pass the deal out when nobody bid."""
        if self._high is None or self._high_seat is None:
            self._passed_out = True
            self._phase = "over"
            self._turn = None
            return
        self._declarer = self._high_seat
        self._contract = self._high
        self._phase = "play"
        self._turn = self._declarer

    # ---- play (sections 4.4 and 4.5) ----

    def _first_lead_fixes_trump(self) -> bool:
        """Whether this contract takes its trump from the first card led: all but a no-trump Misere."""
        return self._contract != "misere" or self._opts.misere_trumps

    def _suit_of(self, card: str) -> str | None:
        """The suit a card belongs to once trump is known: the joker is a trump, or of no suit without trump."""
        if card == JOKER:
            return self._trump
        return card[1]

    def _legal_plays(self) -> list[dict[str, object]]:
        """The cards the player on turn may play.

        Leading: any card; the declarer leading the joker to the first trick of a contract whose first lead fixes
        trump names the trump suit with it (one action per suit). Following: a card of the suit led if he has one
        (the joker counts as a trump), else any card. A joker led in a no-trump Misere lets everyone play any card.
        """
        # CHOICE: in a no-trump Misere the joker, belonging to no suit, never follows suit: a player holding a card
        # of the suit led must play one of those, and may play the joker only when he has none of that suit.
        # CHOICE: in a trump contract a player who holds the suit led (not trump) may not play the joker, which is a
        # trump; he may when void in that suit.
        assert self._turn is not None
        hand = self._hands[self._turn]
        actions: list[dict[str, object]] = []
        if not self._trick:
            first_trick = not self._trick_winners
            for card in hand:
                if card == JOKER and first_trick and self._first_lead_fixes_trump():
                    actions.extend({"type": "play", "card": JOKER, "trump": suit} for suit in SUITS)
                else:
                    actions.append({"type": "play", "card": card})
            return actions
        playable = hand
        if self._led_suit is not None:
            following = [card for card in hand if self._suit_of(card) == self._led_suit]
            if following:
                playable = following
        return [{"type": "play", "card": card} for card in playable]

    def _play(self, seat: int, action: Mapping[str, object]) -> None:
        """Play a card; fix trump on the first lead; settle the trick when everyone has played to it."""
        card = action["card"]
        assert isinstance(card, str)
        if not self._trick:
            if not self._trick_winners and self._first_lead_fixes_trump():
                named = action.get("trump")
                self._trump = named if isinstance(named, str) else card[1]
            self._led_suit = self._suit_of(card)
        self._hands[seat].remove(card)
        self._trick.append((seat, card))
        if len(self._trick) < self._n:
            self._turn = (seat + 1) % self._n
            return
        winner = self._trick_winner()
        self._tricks_won[winner] += 1
        self._trick_winners.append(winner)
        self._trick = []
        self._led_suit = None
        if len(self._trick_winners) == TRICKS_PER_DEAL:
            self._phase = "over"
            self._turn = None
        else:
            self._turn = winner

    def _trick_winner(self) -> int:
        """The joker if played (the top trump, or in a no-trump Misere the card that wins any trick); else the
        highest trump; else the highest card of the suit led."""
        for seat, card in self._trick:
            if card == JOKER:
                return seat
        if self._trump is not None:
            trumps = [(seat, card) for seat, card in self._trick if card[1] == self._trump]
            if trumps:
                return max(trumps, key=lambda played: _rank(played[1]))[0]
        led = [(seat, card) for seat, card in self._trick if card[1] == self._led_suit]
        return max(led, key=lambda played: _rank(played[1]))[0]


# ---- the game (section 4.7) ----


def _top_alone(totals: Sequence[int]) -> bool:
    """Whether one player alone holds the highest total."""
    return list(totals).count(max(totals)) == 1


def game_over(players: int, options: Mapping[str, object], totals_after_each_deal: Sequence[Sequence[int]]) -> bool:
    """Whether the game has ended after the deals listed (the running totals after each deal, passed-out deals
    included).

    Default: after deals_per_player x N deals, or the first deal after those at whose end one player alone holds
    the top total. With a target score: after the first deal at whose end the top total is at least the target and
    one player alone holds it.
    """
    # CHOICE: with target_score set the number of deals does not end the game: the target replaces it ("alternative
    # end"), and the game goes on, however long, until the target is reached with the top total held alone.
    # CHOICE: the answer is True as soon as any prefix of the list ended the game (deals listed after the end do
    # not reopen it).
    _check_players(players)
    opts = parse_options(options)
    for deal, totals in enumerate(totals_after_each_deal, start=1):
        if len(totals) != players:
            raise ValueError(f"deal {deal} lists {len(totals)} totals for {players} players")
        if opts.target_score > 0:
            if max(totals) >= opts.target_score and _top_alone(totals):
                return True
        elif deal >= opts.deals_per_player * players and _top_alone(totals):
            return True
    return False


def winner(totals: Sequence[int]) -> int:
    """The seat alone at the top of the totals; ValueError when the top total is shared (the game is not over)."""
    if not totals:
        raise ValueError("no totals")
    if not _top_alone(totals):
        raise ValueError("the top total is shared")
    return list(totals).index(max(totals))
