"""What the person sees: the seat's messages as lines of text, and at each decision the seat's view and its choices.

Everything shown comes from what the referee sends this seat (events, and the view of each request): nothing else
of the game is known here. Rendered with rich, in colour on a terminal and as plain text anywhere else. Names come
from bots and are untrusted: they go through ``printable`` and into ``Text`` (never into markup).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from arena.engine.actions import NAP_NAMES, Action, Discard, Play
from arena.engine.cards import Card, Suit, effective_suit
from arena.engine.hand import Phase
from arena.engine.scoring import nap_made
from arena.engine.view import SeatView
from arena.human.entry import SUIT_NAMES, describe
from arena.sdk.messages import ActionEvent, Event, Exchange, GameEnd, HandEnd, TrickEvent
from arena.sdk.table import Table
from arena.text import printable
from arena.tournament.account import sort_cards

RED = frozenset({Suit.D, Suit.H})
PROMPTS = {
    Phase.BID1: "Your bid",
    Phase.BID2: "Your bid",
    Phase.NAME_TRUMP: "Name trump",
    Phase.DISCARD: "Your discard",
    Phase.DEFEND: "Defend alone?",
    Phase.CALL_BEST: "Call for your partner's best?",
    Phase.GIVE_BEST: "Give your partner your best",
    Phase.BEST_DISCARD: "Your discard",
    Phase.BID: "Your bid",
    Phase.DECLARE: "Trump and the card you put away",
    Phase.PLAY: "Your play",
}


class Screen:
    """The person's terminal: one seat's game as it unfolds, written to a rich console."""

    def __init__(self, console: Console, seat: int) -> None:
        self.console = console
        self.seat = seat
        self.names: list[str] = []

    # ---- who is who ----

    def who(self, seat: int) -> str:
        """``you``, or the bot's name (made printable)."""
        return "you" if seat == self.seat else printable(self.names[seat], 40)

    def side(self, seat: int) -> str:
        """A scoring side: ``you & heuristic-2`` in four-hand, else the player."""
        if not self.pairs:
            return self.who(seat)
        first, second = seat % 2, seat % 2 + 2
        if self.seat in (first, second):
            return f"you & {self.who(second if self.seat == first else first)}"
        return f"{self.who(first)} & {self.who(second)}"

    def scores(self, scores: Sequence[int]) -> str:
        """Scores once per side: ``you 3, random 5``."""
        seats = range(2) if self.pairs else range(len(self.names))
        return ", ".join(f"{self.side(s)} {scores[s]}" for s in seats)

    # ---- messages ----

    def game_start(self, table: Table, *, seed: int, number: int, games: int) -> None:
        """The table: variant, rules that differ from the preset, seats, and how to get help."""
        self.names = list(table.players)
        rules = table.rules
        self.pairs = rules.partnerships and rules.players == 4  # four-hand's two pairs (not Nap's four players)
        of = f" {number} of {games}" if games > 1 else ""
        opts = rules.options
        if rules.game == "nap":  # so many deals, or a target score
            length = f"first to {opts.target_score}" if opts.target_score else f"{opts.deals_per_player} deals a seat"
        else:
            length = f"first to {opts.points_to_win}"
        self.console.print(Rule(f"Game{of}: {rules.variant}, {length}, seed {seed}"))
        seats = ", ".join(
            f"seat {s} {self.who(s)}" + (" (your partner)" if self.pairs and s == (self.seat + 2) % 4 else "")
            for s in range(len(self.names))
        )
        self.console.print(Text(f"Seats: {seats}"))
        options = rules.told_options()  # as game_start states them: the rule book's, the variant's, the game's own
        self.console.print(Text("Rules: " + ", ".join(f"{k}={v}" for k, v in options.items())))
        self.console.print(Text("Type ? at any prompt for help."))

    def event(self, event: Event, table: Table) -> None:
        """One event of the seat's messages, already folded into ``table``."""
        if event["type"] == "hand_start":
            dealer = event["dealer"]
            header = f"Hand {event['hand_number']}: {self.who(dealer)} deal{'' if dealer == self.seat else 's'}"
            upcard = "" if event["upcard"] is None else f", upcard {event['upcard']}"  # (Hasenpfeffer turns up none)
            self.console.print(Rule(Text(header + upcard)))
            self.console.print(self._cards_line("Your cards", event["hand"], None))
        elif event["type"] == "action":
            self._action(event, table)
        elif event["type"] == "cards":
            self.console.print(self._cards_line("Your cards", event["hand"], table.trump))
        elif event["type"] == "exchange":
            self._exchange(event, table)
        elif event["type"] == "trick":
            self._trick(event, table)
        elif event["type"] == "hand_end":
            self._hand_end(event, table)
        elif event["type"] == "partner_revealed":  # call-partner Euchre
            seat = event["seat"]
            self.console.print(Text(f"  {self.who(seat)} play{self._s(seat)} {event['card']}: the maker's partner"))
        else:
            self._contract_or_best(event)

    def _action(self, event: ActionEvent, table: Table) -> None:
        action = event["action"]
        kind, seat = action.get("type"), event["seat"]
        if kind == "play":
            if "trump" in action:  # Nap: the declarer's joker lead names trump
                named = SUIT_NAMES[Suit.parse(action["trump"])]
                self.console.print(Text(f"  {self.who(event['seat'])} lead{self._s(event['seat'])} JK, naming {named}"))
            return  # shown as the trick so far at the next decision, and as a whole when the trick is done
        who, upcard = self.who(seat), table.upcard
        alone = " alone" if action.get("alone") else ""
        s = "" if seat == self.seat else "s"
        if kind == "pass":
            text = f"{who} decline{s} to defend alone" if table.maker is not None else f"{who} pass{s and 'es'}"
        elif kind == "nap_bid":
            text = f"{who} bid{s} {NAP_NAMES.get(str(action.get('contract')), action.get('contract'))}"
        elif kind == "order_up":
            suit = "" if upcard is None else f" {SUIT_NAMES[table.rules.upcard_suit(upcard)]}"  # a joker's: joker_suit
            text = f"{who} order{s} up{suit}{alone}"
        elif kind == "call":
            text = f"{who} call{s} {SUIT_NAMES[Suit.parse(action['suit'])]}{alone}"
        elif kind == "name_trump":
            text = f"{who} name{s} {SUIT_NAMES[Suit.parse(action['suit'])]} as trump"
        elif kind == "bid":
            text = f"{who} bid{s} {action.get('tricks')}"
        elif kind == "call_partner":  # call-partner Euchre
            cards = " and ".join(action.get("cards", ()))
            mine = " (you hold it: you are the partner)" if table.is_partner else ""
            text = f"{who} call{s} {cards} as partner{mine}"
        elif kind == "go_alone":
            text = f"{who} call{s} no partner and play{s} alone"
        else:
            text = f"{who} defend{s} alone"
        self.console.print(Text(f"  {text}"))
        if kind == "pass" and not table.maker and len(table.bids) == len(self.names) and upcard is not None:
            self.console.print(Text(f"  {upcard} is turned down"))
        if (alone or kind == "defend_alone") and len(self.names) > 4:  # six-hand: the lone maker's partners
            for out in sorted(table.sitting_out):
                self.console.print(Text(f"  {self.who(out)} sit{'' if out == self.seat else 's'} out this hand"))
        elif alone or kind == "defend_alone":  # the partner of who goes (or defends) alone sits out
            out = (seat + 2) % 4
            self.console.print(Text(f"  {self.who(out)} sit{'' if out == self.seat else 's'} out this hand"))

    def _exchange(self, event: Exchange, table: Table) -> None:
        seat, upcard = event["seat"], table.upcard
        if seat == self.seat:
            took = f"take {upcard} and " if event["took_upcard"] else ""
            self.console.print(Text(f"  you {took}discard {event.get('discard')}"))
        elif event["took_upcard"]:
            self.console.print(Text(f"  {self.who(seat)} takes {upcard} and discards a card"))
        else:
            self.console.print(Text(f"  {self.who(seat)} leaves {upcard} (discards it)"))

    def _trick(self, event: TrickEvent, table: Table) -> None:
        cards = event["cards"]
        line = Text(f"  Trick {len(table.tricks)}: ")
        for i, played in enumerate(cards):
            line.append(
                f"{', ' if i else ''}{self.who(played['seat'])}{self._leads(played['seat']) if i == 0 else ''} "
            )
            line.append_text(self._card(Card.parse(played["card"]), table.trump))
        line.append(f" -> {self.who(event['winner'])} win{'' if event['winner'] == self.seat else 's'}")
        self.console.print(line)

    def _leads(self, seat: int) -> str:
        return " lead" if seat == self.seat else " leads"

    def _contract_or_best(self, event: Event) -> None:
        """Hasenpfeffer's auction's outcome, widow and declaration; Railroad's calls for best."""
        if event["type"] == "contract":
            seat = event["seat"]
            if seat is None:  # nobody bid: the hand's end says it is thrown in
                if event["widow_joker"]:
                    self.console.print(Text("  The joker is the widow"))
                return
            forced = " (forced: the joker's holder)" if event["forced"] else ""
            self.console.print(
                Text(f"  {self.who(seat)} win{self._s(seat)} the auction, {event['bid']} tricks{forced}")
            )
        elif event["type"] == "widow":
            self.console.print(Text(f"  you take the widow: {event['card']}"))
        elif event["type"] == "declare":
            seat = event["seat"]
            away = event["discard"] or "a card"
            suit = SUIT_NAMES[Suit.parse(event["suit"])]
            self.console.print(Text(f"  {self.who(seat)} name{self._s(seat)} {suit} as trump, putting away {away}"))
        elif event["type"] == "call_for_best":
            seat = event["seat"]
            if not event["called"]:
                self.console.print(Text(f"  {self.who(seat)} keep{self._s(seat)} the hand: no call for best"))
                return
            away = f", putting away {event['discard']}" if event["discard"] else ""
            partner = self.who(event["partner"] if "partner" in event else (seat + 2) % 4)
            self.console.print(Text(f"  {self.who(seat)} call{self._s(seat)} for {partner}'s best card{away}"))
        elif event["type"] == "give_best":
            seat, card = event["seat"], event["card"] or "a card"
            self.console.print(
                Text(f"  {self.who(seat)} pass{self._s(seat, 'es')} {card} to {self.who(event['receiver'])}")
            )
        elif event["type"] == "best_discard":
            seat = event["seat"]
            self.console.print(Text(f"  {self.who(seat)} put{self._s(seat)} away {event['card'] or 'a card'}"))

    def _s(self, seat: int, ending: str = "s") -> str:
        """A verb's ending: none for ``you``."""
        return "" if seat == self.seat else ending

    def _hand_end(self, event: HandEnd, table: Table) -> None:
        contract = table.contract  # Hasenpfeffer's bid (None in the other games)
        if event["passed_out"]:
            whys = {
                "hasenpfeffer": "Nobody bid: the hand is thrown in",
                "nap": "Everyone passed: the deal is thrown in",
            }
            why = whys.get(table.rules.game, "Everyone passed twice")
            self.console.print(Text(f"  {why}: no score this hand."))
        else:
            maker = event["maker"]
            assert maker is not None  # a hand that was played has a maker
            makers = {maker, (maker + 2) % 4} if self.pairs else {maker, *event.get("partners", ())}
            if table.rules.game == "six_hand":
                makers = {s for s in range(len(self.names)) if table.same_side(s, maker)}
            won = sum(event["tricks_won"][s] for s in makers)
            points = event["points"]
            gains = ", ".join(f"{self.side(s)} {points[s]:+d}" for s in self._one_per_side(points))
            tricks = f"{won} trick{'' if won == 1 else 's'}"
            trump = "no trump" if event["trump"] is None else SUIT_NAMES[Suit.parse(event["trump"])]
            if table.rules.game == "nap":  # the declarer's contract, made or lost
                bid = table.nap_contract() or "three"
                result = "made it" if nap_made(bid, won) else "lost"
                line = f"{self.who(maker)} declared {NAP_NAMES[bid]} ({trump}): {tricks}, {result}"
            else:
                if contract is not None:
                    outcome = f"bid {contract}, {'made it' if won >= contract else 'set'}"
                else:
                    outcome = "march" if won == 5 else "made it" if won >= 3 else "euchred"
                alone = " alone" if event["alone"] else ""
                line = f"{self.who(maker)} made {trump}{alone}: {tricks}, {outcome}"
            self.console.print(Text(f"  {line}; {gains}"))
        self.console.print(Text(f"  Scores: {self.scores(event['scores'])}", style="bold"))

    def _one_per_side(self, points: Sequence[int]) -> list[int]:
        seats = range(2) if self.pairs else range(len(self.names))
        return [s for s in seats if points[s]]  # (a Hasenpfeffer bid that was set loses points)

    def game_end(self, message: GameEnd) -> None:
        """How the game ended: final scores, who won (or a draw, or a forfeit)."""
        self.console.print(Rule("Game over"))
        self.console.print(Text(f"Final scores: {self.scores(message['final_scores'])}", style="bold"))
        winners = message["winners"]
        forfeit = message.get("forfeit")
        if forfeit:
            why = printable(f"{forfeit.get('kind')}: {forfeit.get('detail')}", 200)
            self.console.print(Text(f"{self.who(forfeit['seat'])} forfeited the game ({why})"))
        if not winners:
            self.console.print(Text("Drawn: the game was not decided within the hand limit."))
        elif self.seat in winners:
            self.console.print(Text("You win!", style="bold green"))
        else:
            self.console.print(Text(f"{self.side(winners[0])} win{'' if self.pairs else 's'}."))

    # ---- a decision ----

    def decision(self, view: SeatView, legal: Sequence[Action]) -> tuple[str, list[Action]]:
        """Show the seat's view and the numbered choices; returns the prompt to ask with and the choices in the
        order shown (cards in the order of the hand, as it is shown), which the numbers typed refer to."""
        trump = view.trump
        choices = in_hand_order(legal, view.hand, trump)
        self.console.print()
        status = Text(f"Hand {view.hand_number}, {self.who(view.dealer)} deal{'' if view.dealer == self.seat else 's'}")
        if view.upcard is not None:  # (Hasenpfeffer turns up none)
            status.append(", upcard ")
            status.append_text(self._card(view.upcard, trump))
        if trump is not None and view.maker is not None:
            alone = " alone" if view.alone else ""
            status.append(f"; trump {SUIT_NAMES[trump]} (made by {self.who(view.maker)}{alone})")
        status.append(f"; scores: {self.scores(view.scores)}")
        self.console.print(status)
        if view.phase is Phase.PLAY:
            won = ", ".join(
                f"{self.who(s)} {view.tricks_won[s]}" for s in range(view.players) if s not in view.sitting_out
            )
            line = Text(f"Trick {len(view.tricks) + 1} (tricks won: {won}): ")
            if not view.trick:
                line.append("you lead")
            for i, (seat, card) in enumerate(view.trick):
                line.append(f"{', ' if i else ''}{self.who(seat)}{' led' if i == 0 else ''} ")
                line.append_text(self._card(card, trump))
            self.console.print(line)
        self.console.print(self._cards_line("Your cards", [str(c) for c in view.hand], trump))
        listing = Text("Choices: ")
        for i, action in enumerate(choices, 1):
            listing.append(f"{'  ' if i > 1 else ''}{i}) ")
            if isinstance(action, Play | Discard):
                listing.append_text(self._card(action.card, trump))
            else:
                listing.append(describe(action, view.upcard))
        self.console.print(listing)
        return f"{PROMPTS.get(view.phase, 'Your choice')} (? for help): ", choices

    def help(self, lines: Sequence[str]) -> None:
        """Print the help of ``?``."""
        for line in lines:
            self.console.print(Text(line, style="cyan"))

    def problem(self, text: str) -> None:
        """One line saying why what was typed is not a choice."""
        self.console.print(Text(text, style="yellow"))

    def say(self, text: str) -> None:
        """A line of plain text."""
        self.console.print(Text(text))

    # ---- cards ----

    def _card(self, card: Card, trump: Suit | None) -> Text:
        style = "red" if card.suit in RED else ""
        if trump is not None and effective_suit(card, trump) == trump:
            style += " bold"
        return Text(str(card), style=style.strip())

    def _cards_line(self, label: str, cards: Sequence[str], trump: Suit | None) -> Text:
        line = Text(f"{label}: ", style="bold")
        if not cards:
            line.append("(not yet: the dealer names trump before seeing the hand)")
            return line
        for i, group in enumerate(sort_cards(cards, None if trump is None else str(trump)).split("  ")):
            line.append("   " if i else "")
            for j, text in enumerate(group.split()):
                line.append(" " if j else "")
                line.append_text(self._card(Card.parse(text), trump))
        return line


def in_hand_order(legal: Sequence[Action], hand: Sequence[Card], trump: Suit | None) -> list[Action]:
    """The legal actions as they are listed: cards in the order the hand is shown (grouped by suit, trump first, high
    to low), any card not in the hand (the upcard to discard) after them, other actions as the referee gave them."""
    shown = sort_cards([str(c) for c in hand], None if trump is None else str(trump)).split()
    place = {text: i for i, text in enumerate(shown)}
    return sorted(
        legal,
        key=lambda a: place.get(str(a.card), len(place)) if isinstance(a, Play | Discard) else -1,
    )
