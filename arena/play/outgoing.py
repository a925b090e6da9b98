"""Engine state to wire messages: the one place where the engine's types become what a seat is told.

The referee and the in-process driver both build every message with these functions, so a seat is told the same
thing however it is played. Only public facts and the seat's own cards go in (docs/rules.md section 10).
"""

from __future__ import annotations

from typing import Any, cast

from arena.engine.actions import PASS, Action, CallForBest, Declare, Discard, GiveBest, Play
from arena.engine.cards import CARD_TEXT
from arena.engine.game import AnyHand, Game
from arena.engine.hand import HandState
from arena.engine.hasenpfeffer import HasenpfefferHand
from arena.engine.phases import Phase
from arena.engine.view import (
    ActionJSON,
    TrickJSON,
    action_json,
    actions_json,
    auction_json,
    best_json,
    best_seen,
    bidding,
    partner_call_json,
    partner_call_seen,
    seat_view,
    trick_json,
    upcard_taken_seen,
)

Message = dict[str, Any]  # one JSON object to or from a bot, as orjson reads and writes it
BID = Phase.BID


def game_start(game: Game, game_index: int, seat: int, time: dict[str, int]) -> Message:
    """The game_start message for ``seat``."""
    return {
        "type": "game_start",
        "game": game_index,
        "seat": seat,
        "players": list(game.players),
        "variant": game.rules.variant,
        "options": game.rules.told_options(),
        "time": time,
    }


def hand_start_events(game: Game) -> list[Message]:
    """One hand_start event per seat: its own cards (none for a dealer who must name trump on the Benny)."""
    hand, scores = game.hand, list(game.scores())
    events = []
    for seat in range(game.rules.players):
        events.append(
            {
                "type": "hand_start",
                "hand_number": len(game.hands),
                "dealer": hand.dealer,
                "hand": [CARD_TEXT[c] for c in sorted(hand.hands[seat])] if hand.sees_own_cards(seat) else [],
                "upcard": None if hand.deal.upcard is None else str(hand.deal.upcard),
                "scores": scores,
            }
        )
    return events


def add_action_events(
    pending: list[list[Message]],
    game: Game,
    hand: AnyHand,
    hand_number: int,
    seat: int,
    action: Action,
    tricks_before: int,
) -> None:
    """Append to each seat's list in ``pending`` the events that follow ``seat`` taking ``action`` in ``hand``
    (already applied to ``game``): what each seat may learn of it, the trick it ends, the hand it ends."""
    if hand.best_steps and len(hand.actions) - 1 in hand.best_steps:
        _add_best_events(pending, hand, seat, action)
    elif isinstance(action, Discard):
        for s, events in enumerate(pending):
            events.append(
                {
                    "type": "exchange",
                    "seat": seat,
                    "took_upcard": _took_upcard(hand, s),
                    "discard": str(action.card) if s == seat else None,
                }
            )
    elif isinstance(action, Declare):  # Hasenpfeffer: trump is public, the card put away the bidder's alone
        for s, events in enumerate(pending):
            discard = str(action.discard) if s == seat else None
            events.append({"type": "declare", "seat": seat, "suit": str(action.suit), "discard": discard})
    else:
        event = {"type": "action", "seat": seat, "action": action_json(action)}
        for events in pending:
            events.append(event)
        if action.type == "name_trump" and hand.deal.upcard is not None:  # the Benny: now the dealer sees his cards
            pending[seat].append({"type": "cards", "hand": [str(c) for c in sorted(hand.hands[seat])]})
        if hand.rules.game == "call_partner" and type(action) is Play and action.card in cast(HandState, hand).called:
            revealed = {"type": "partner_revealed", "seat": seat, "card": str(action.card)}
            for events in pending:
                events.append(revealed)
    if isinstance(hand, HasenpfefferHand) and hand.auction_end == len(hand.actions) - 1 and hand.phase is not BID:
        _add_contract_events(pending, hand)
    if len(hand.tricks) > tricks_before:
        event = {"type": "trick", **trick_json(hand.tricks[-1])}
        for events in pending:
            events.append(event)
    if hand.is_over():
        event = hand_end_event(hand, hand_number, game.scores_after[hand_number])
        for events in pending:
            events.append(event)


def _took_upcard(hand: AnyHand, seat: int) -> bool | None:
    """Whether the dealer took the upcard, as ``seat`` may know it (in call-partner Euchre only the dealer)."""
    taken = upcard_taken_seen(hand, seat)
    return None if taken is None else bool(taken)


def _add_contract_events(pending: list[list[Message]], hand: HasenpfefferHand) -> None:
    """Hasenpfeffer's auction is over: its outcome to every seat (the forced bid and the widow-joker announced), and
    the widow to the bidder who takes it."""
    contract = {
        "type": "contract",
        "seat": hand.bidder,
        "bid": hand.bid,
        "forced": hand.forced is not None,
        "widow_joker": hand.widow_joker,
    }
    for events in pending:
        events.append(contract)
    if hand.widow_taken and hand.bidder is not None:
        pending[hand.bidder].append({"type": "widow", "card": str(hand.deal.widow)})


def _add_best_events(pending: list[list[Message]], hand: AnyHand, seat: int, action: Action) -> None:
    """The events of a step of a call for best: public that it happened, the card only to whom may know it."""
    if isinstance(action, GiveBest):
        receiver = hand.passed[-1][1]
        for s, events in enumerate(pending):
            shown = str(action.card) if s in (seat, receiver) else None
            events.append({"type": "give_best", "seat": seat, "receiver": receiver, "card": shown})
    elif isinstance(action, Discard):  # after receiving
        for s, events in enumerate(pending):
            events.append({"type": "best_discard", "seat": seat, "card": str(action.card) if s == seat else None})
    else:  # the call, or a pass: no call
        discarded = action.card if isinstance(action, CallForBest) else None
        for s, events in enumerate(pending):
            discard = str(discarded) if discarded is not None and s == seat else None
            event = {"type": "call_for_best", "seat": seat, "called": action is not PASS, "discard": discard}
            if isinstance(action, CallForBest) and action.partner is not None:  # six-hand: the partner named
                event["partner"] = action.partner
            if isinstance(action, CallForBest) and action.cards:  # six-hand: a discard for each partner
                event["discards"] = [str(c) for c in action.cards] if s == seat else None
            events.append(event)


def hand_end_event(hand: AnyHand, hand_number: int, scores: tuple[int, ...]) -> Message:
    """The public result of a finished hand."""
    result = hand.result
    assert result is not None
    event: Message = {
        "type": "hand_end",
        "hand_number": hand_number,
        "passed_out": result.passed_out,
        "maker": result.maker,
        "trump": None if result.trump is None else str(result.trump),
        "alone": result.alone,
        "defender_alone": result.defender_alone,
        "tricks_won": hand.tricks_won(),
        "points": list(result.points),
        "scores": list(scores),
    }
    if result.partners is not None:  # call-partner Euchre: who held a called card
        event["partners"] = list(result.partners)
    return event


class ViewCache:
    """Builds ``seat_view(game, seat).to_json()`` for the current hand incrementally (the referee's hot path).

    Bids and finished tricks only ever grow within a hand, so their JSON is made once and reused; a test checks that
    the result always equals the SeatView's own ``to_json``.
    """

    def __init__(self) -> None:
        self._hand: AnyHand | None = None
        self._seen_actions = 0
        self._bids: list[ActionJSON] = []
        self._tricks: list[TrickJSON] = []
        self._won: list[int] = []
        self._scores: tuple[int, ...] = ()
        self._calls_for_best = False

    def view(self, game: Game, seat: int) -> Message:
        """The wire form of ``seat``'s view of the game's current hand."""
        hand = game.hand
        if hand is not self._hand:
            self._hand, self._seen_actions, self._bids, self._tricks = hand, 0, [], []
            self._won = [0] * hand.players
            self._scores = game.scores()  # scores change only between hands
            self._calls_for_best = hand.rules.calls_for_best
        self._bids += actions_json(bidding(hand, self._seen_actions))
        self._seen_actions = len(hand.actions)
        for trick in hand.tricks[len(self._tricks) :]:
            self._tricks.append(trick_json(trick))
            self._won[trick.winner] += 1
        view: Message = {  # the fields of SeatView, in its order
            "seat": seat,
            "players": hand.players,
            "hand_number": len(game.hands),
            "dealer": hand.dealer,
            "phase": hand.phase.value,
            "turn": hand.current_seat(),
            "hand": [CARD_TEXT[c] for c in hand.hands[seat]] if hand.sees_own_cards(seat) else [],
            "upcard": None if hand.deal.upcard is None else CARD_TEXT[hand.deal.upcard],
            "upcard_taken": upcard_taken_seen(hand, seat),
            "discarded": CARD_TEXT[hand.discarded] if seat == hand.discarder and hand.discarded is not None else None,
            "bids": list(self._bids),
            "trump": None if hand.trump is None else hand.trump.name,
            "maker": hand.maker,
            "alone": hand.alone,
            "defender_alone": hand.defender_alone,
            "sitting_out": sorted(hand.out),
            "tricks": list(self._tricks),
            "trick": [{"seat": s, "card": CARD_TEXT[c]} for s, c in hand.trick],
            "tricks_won": list(self._won),
            "scores": list(self._scores),
        }
        if self._calls_for_best:  # Railroad's calls for best: only where the rules have them
            best = best_seen(hand, seat)
            assert best is not None
            view["best"] = best_json(best)
        auction = hand.auction_seen(seat)  # Hasenpfeffer's auction: only in that game
        if auction is not None:
            view["auction"] = auction_json(auction)
        call = partner_call_seen(hand, seat)  # call-partner Euchre's call: only in that game
        if call is not None:
            view["partner_call"] = partner_call_json(call)
        return view


def act_request(
    game: Game,
    seat: int,
    request_id: int,
    events: list[Message],
    time_left_ms: int,
    views: ViewCache | None = None,
    *,
    with_view: bool = True,
) -> Message:
    """The decision request for the seat to act: its pending events, its view, its legal actions, its clock.

    ``with_view=False`` leaves the view out, for a bot that keeps its own picture from the events.
    """
    request: Message = {
        "type": "act",
        "request_id": request_id,
        "events": events,
        "legal": [action_json(a) for a in game.legal_actions()],
        "time_left_ms": time_left_ms,
    }
    if with_view:
        request["view"] = views.view(game, seat) if views is not None else seat_view(game, seat).to_json()
    return request
