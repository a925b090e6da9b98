"""What a person types, read against the legal actions: a card (``JH``, ``9c``, ``10h``), a suit (``h``, ``hearts``),
a word (``pass``, ``order``, ``alone``, ``defend``) or a choice's number; and the help that ``?`` prints.

Anything else is a :class:`ChoiceError` whose message says, in one line, why it is not a choice now.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.engine.actions import (
    CALL_FOR_BEST_FIRST,
    NAP_NAMES,
    Action,
    Bid,
    Call,
    CallForBest,
    CallPartner,
    Declare,
    DefendAlone,
    Discard,
    GiveBest,
    GoAlone,
    JokerLead,
    NameTrump,
    NapBid,
    OrderUp,
    Pass,
    Play,
)
from arena.engine.cards import CARD_BY_TEXT, Card, Suit
from arena.errors import ArenaError
from arena.text import printable

SUIT_WORDS: dict[str, Suit] = {
    **{letter.lower(): suit for letter, suit in zip("CDHS", Suit, strict=True)},
    **{name: suit for name, suit in zip(("clubs", "diamonds", "hearts", "spades"), Suit, strict=True)},
    **{name: suit for name, suit in zip(("club", "diamond", "heart", "spade"), Suit, strict=True)},
    **{symbol: suit for symbol, suit in zip("♣♦♥♠", Suit, strict=True)},
}
SUIT_NAMES = {Suit.C: "clubs", Suit.D: "diamonds", Suit.H: "hearts", Suit.S: "spades"}
PASS_WORDS = frozenset({"pass", "p", "no", "decline"})
ORDER_WORDS = frozenset({"order", "up", "pick", "pickup", "take", "accept", "yes", "call"})
QUIT_WORDS = frozenset({"quit", "exit", "resign"})
HELP_WORDS = frozenset({"?", "help"})


class ChoiceError(ArenaError):
    """What the person typed is not one of the choices now; the message says why, in one line."""


def describe(action: Action, upcard: Card | None) -> str:
    """An action in words, as a choice is listed: ``pass``, ``order up hearts alone``, ``call spades``, ``JH``."""
    alone = " alone" if getattr(action, "alone", False) else ""
    if isinstance(action, Pass):
        return "pass"
    if isinstance(action, OrderUp):
        suit = None if upcard is None else upcard.suit
        return f"order up {SUIT_NAMES[suit]}{alone}" if suit is not None else f"order up{alone}"
    if isinstance(action, Call):
        return f"call {SUIT_NAMES[action.suit]}{alone}"
    if isinstance(action, NameTrump):
        return f"name {SUIT_NAMES[action.suit]}"
    if isinstance(action, DefendAlone):
        return "defend alone"
    if isinstance(action, Discard):
        return f"discard {action.card}"
    if isinstance(action, CallForBest):
        if action.cards:  # six-hand: a discard for each partner
            return f"call for best, putting away {' '.join(map(str, action.cards))}"
        partner = "" if action.partner is None else f" from seat {action.partner}"
        put_away = "" if action.card is None else f", putting away {action.card}"
        return f"call for best{partner}{put_away}"
    if isinstance(action, GiveBest):
        return f"give {action.card}"
    if isinstance(action, Bid):
        return f"bid {action.tricks}"
    if isinstance(action, Declare):
        return f"{SUIT_NAMES[action.suit]} trump, putting away {action.discard}"
    if isinstance(action, NapBid):
        return f"bid {NAP_NAMES[action.contract]}"
    if isinstance(action, JokerLead):
        return f"JK, naming {SUIT_NAMES[action.trump]} trump"
    if isinstance(action, CallPartner):
        return f"call {' '.join(map(str, action.cards))} as partner"
    if isinstance(action, GoAlone):
        return "go alone"
    return str(action.card)


def read_card(word: str) -> Card | None:
    """The card a typed word names (``jh``, ``JH``, ``10h``, ``jk``), or None."""
    text = word.upper().replace("10", "T")
    return CARD_BY_TEXT.get(text)


def parse_choice(text: str, legal: Sequence[Action], *, hand: Sequence[Card], upcard: Card | None) -> Action:
    """The legal action that ``text`` names; ChoiceError (one line) when it names none.

    ``hand`` is the seat's cards and ``upcard`` the hand's upcard, to say why a card or a suit is not a choice.
    """
    words = text.strip().lower().replace(",", " ").split()
    if not words:
        raise ChoiceError("type one of the choices (or its number); ? prints help")
    shown = printable(text.strip(), 40)
    if len(words) == 1 and words[0].isdigit():
        number = int(words[0])
        if 1 <= number <= len(legal):
            return legal[number - 1]
        if len(legal) == 1:
            raise ChoiceError(f"there is no choice {number}: the only choice is 1")
        raise ChoiceError(f"there is no choice {number}: type a number from 1 to {len(legal)}")
    alone = "alone" in words
    rest = [w for w in words if w not in ("alone", "go", "going", "play", "discard", "trump", "name", "with")]
    cards = [c for c in (read_card(w) for w in rest) if c is not None]
    if any(isinstance(a, CallPartner | GoAlone) for a in legal):  # call-partner: "as" ("as kh" for two), "alone"
        if alone:
            return _pick(GoAlone(), legal, "you may not go alone now", upcard)
        if cards:
            return _pick(CallPartner(tuple(sorted(cards))), legal, "you cannot call that", upcard)
    if cards:
        return _card_choice(cards[0], legal, hand, upcard)
    suits = [SUIT_WORDS[w] for w in rest if w in SUIT_WORDS]
    if suits:
        return _suit_choice(suits[0], alone, legal, upcard)
    if "bid" in words:  # Hasenpfeffer: "bid 3" (a lone number picks a choice)
        numbers = [int(w) for w in words if w.isdigit()]
        if not numbers:
            raise ChoiceError("say how many tricks: bid 3")
        return _pick(Bid(numbers[0]), legal, f"you cannot bid {numbers[0]} now", upcard)
    if any(isinstance(a, Declare) for a in legal):  # Hasenpfeffer: a suit and the card to put away, "h 9c"
        return _declare_choice(words, legal, upcard)
    if "best" in rest and CALL_FOR_BEST_FIRST in legal:  # a call with no card: the discard comes after
        return CALL_FOR_BEST_FIRST
    if any(w in PASS_WORDS for w in rest):
        return _pick(Pass(), legal, "you cannot pass now", upcard)
    if "defend" in rest:
        return _pick(DefendAlone(), legal, "there is no lone hand to defend against now", upcard)
    if any(w in ORDER_WORDS for w in rest) or (alone and not rest):
        if any(isinstance(a, Call) for a in legal):
            raise ChoiceError("say which suit you call, e.g. 's' or 'spades alone'")
        if any(isinstance(a, NameTrump) for a in legal):
            raise ChoiceError("say which suit you name as trump, e.g. 's' or 'spades'")
        if alone and any(isinstance(a, OrderUp) for a in legal) and OrderUp(True) not in legal:
            raise ChoiceError("going alone is not allowed in these rules: type 'order' or 'pass'")
        return _pick(OrderUp(alone), legal, "you cannot order up now", upcard)
    raise ChoiceError(f"{shown!r} is not a choice: type a card (JH), a suit (h), pass, order, alone, a number, or ?")


def _declare_choice(words: Sequence[str], legal: Sequence[Action], upcard: Card | None) -> Action:
    suits = [SUIT_WORDS[w] for w in words if w in SUIT_WORDS]
    cards = [c for c in (read_card(w) for w in words) if c is not None]
    if not suits or not cards:
        raise ChoiceError("name trump and the card you put away, e.g. 'h 9c'")
    return _pick(Declare(suits[0], cards[0]), legal, f"you do not hold {cards[0]}", upcard)


def _pick(action: Action, legal: Sequence[Action], why: str, upcard: Card | None) -> Action:
    if action in legal:
        return legal[legal.index(action)]  # the very object offered
    raise ChoiceError(f"{why}: {_listed(legal, upcard)}")


def _card_choice(card: Card, legal: Sequence[Action], hand: Sequence[Card], upcard: Card | None) -> Action:
    for action in (Play(card), Discard(card), CallForBest(card), GiveBest(card)):
        if action in legal:
            return legal[legal.index(action)]
    plays = [a.card for a in legal if isinstance(a, Play)]
    discards = [a.card for a in legal if isinstance(a, Discard | CallForBest | GiveBest) and a.card is not None]
    if not plays and not discards:
        raise ChoiceError(f"no card is asked for now: {_listed(legal, upcard)}")
    if card not in hand:
        return _raise(f"you do not hold {card}: your choices are {' '.join(str(c) for c in plays or discards)}")
    return _raise(f"you cannot play {card} now (you must follow suit): play {' or '.join(str(c) for c in plays)}")


def _suit_choice(suit: Suit, alone: bool, legal: Sequence[Action], upcard: Card | None) -> Action:
    for action in (Call(suit, alone), NameTrump(suit)):
        if action in legal:
            return legal[legal.index(action)]
    if any(isinstance(a, OrderUp) for a in legal):
        if upcard is not None and upcard.suit == suit:
            return _pick(OrderUp(alone), legal, "going alone is not allowed in these rules", upcard)
        raise ChoiceError(f"in the first round only the upcard's suit can be made trump: order up {upcard} or pass")
    if Call(suit, not alone) in legal:
        raise ChoiceError("going alone is not allowed in these rules: call the suit without 'alone'")
    if any(isinstance(a, Call) for a in legal):
        return _raise(f"you cannot call {SUIT_NAMES[suit]} (it was turned down): {_listed(legal, upcard)}")
    raise ChoiceError(f"no suit is asked for now: {_listed(legal, upcard)}")


def _raise(message: str) -> Action:
    raise ChoiceError(message)


def _listed(legal: Sequence[Action], upcard: Card | None) -> str:
    return "choose " + ", ".join(describe(a, upcard) for a in legal)


def help_text(legal: Sequence[Action], upcard: Card | None) -> list[str]:
    """What ``?`` prints: what is asked now, and how to answer anything."""
    kinds = {type(a) for a in legal}
    if Play in kinds:
        now = "Play a card to the trick: type it (JH, 9c, 10h) or its number. You must follow the suit led if you can."
    elif Discard in kinds:
        now = "You hold six cards: type the card to discard (or its number)."
    elif OrderUp in kinds:
        named = SUIT_NAMES[upcard.suit] if upcard and upcard.suit else "it"
        now = (
            f"First round of bidding: 'order' (or 'up') makes {named} trump and the dealer takes the upcard; "
            "'pass' passes."
        )
    elif Call in kinds:
        now = "Second round of bidding: name a trump suit (c, d, h, s or its name), or 'pass' if you may."
    elif NameTrump in kinds:
        now = "The Benny was turned up and you deal: name the trump suit (c, d, h or s)."
    elif Bid in kinds:
        now = "The auction: 'bid N' to bid N tricks (higher than the bids so far), or 'pass'."
    elif Declare in kinds:
        now = "You won the auction and took the widow: name trump and the card you put away, e.g. 'h 9c'."
    elif CallPartner in kinds or GoAlone in kinds:
        now = (
            "You made trump: call your partner's card (type it, e.g. 'as'; two cards where two are called), "
            "or 'alone' to play without a partner, where allowed."
        )
    elif CallForBest in kinds:
        now = (
            "You play alone: type a card to put it away and call for your partner's best card ('best' where you "
            "put a card away after receiving), or 'pass' to keep your hand."
        )
    elif GiveBest in kinds:
        now = "Your partner plays alone and calls for your best card: type the card you pass him."
    else:
        now = "An opponent goes alone: 'defend' to defend alone against him, 'pass' to let your partner play too."
    lines = [
        now,
        "Anywhere: a choice's number picks it; cards are rank then suit (9 T J Q K A, and JK the Benny), any case;",
        "add 'alone' to go alone (order alone, h alone); 'quit' or Ctrl-D leaves the game, as does Ctrl-C.",
        "Choices now: " + ", ".join(f"{i}) {describe(a, upcard)}" for i, a in enumerate(legal, 1)),
    ]
    if OrderUp in kinds or Call in kinds:
        lines.insert(1, "In four-hand, going alone means your partner sits out: 4 points for all five tricks.")
    return lines
