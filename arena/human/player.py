"""The person's seat as an SDK bot: it gets the seat's messages like any bot, and its decisions come from the keyboard.

Being a :class:`~arena.sdk.Bot`, it is told exactly what a bot in its seat is told (events, the seat's view, the legal
actions) and answers through the same checks; the screen is drawn from those messages alone.
"""

from __future__ import annotations

from collections.abc import Callable

from arena.engine.actions import Action
from arena.engine.view import SeatView
from arena.errors import ArenaError
from arena.human.entry import HELP_WORDS, QUIT_WORDS, ChoiceError, help_text, parse_choice
from arena.human.screen import Screen
from arena.sdk.bot import Bot
from arena.sdk.messages import Event, GameEnd
from arena.sdk.table import Table

HUMAN = "human"  # the person's seat's name in the game record


class LeftTheTable(ArenaError):
    """The person ended the game from the keyboard (Ctrl-D or ``quit``)."""


class TerminalPlayer(Bot):
    """A bot whose ``act`` asks the person at the terminal, re-asking until what is typed is one of the choices."""

    name = HUMAN

    def __init__(self, screen: Screen, read: Callable[[str], str], *, seed: int = 0, games: int = 1) -> None:
        super().__init__(strict=True)
        self.screen = screen
        self.read = read
        self.seed = seed
        self.games = games

    def on_game_start(self, table: Table) -> None:
        """Show the table."""
        self.screen.game_start(table, seed=self.seed + table.game, number=table.game + 1, games=self.games)

    def on_event(self, event: Event) -> None:
        """Show what happened."""
        assert self.table is not None
        self.screen.event(event, self.table)

    def on_game_end(self, message: GameEnd) -> None:
        """Show how the game ended."""
        self.screen.game_end(message)

    def act(self, view: SeatView, legal: tuple[Action, ...]) -> Action:
        """Show the view and the choices; read until the person names one (a lone choice is still asked)."""
        prompt, choices = self.screen.decision(view, legal)
        while True:
            try:
                typed = self.read(prompt)
            except EOFError:
                raise LeftTheTable("Ctrl-D") from None
            word = typed.strip().lower()
            if word in HELP_WORDS:
                self.screen.help(help_text(choices, view.upcard))
                continue
            if word in QUIT_WORDS:
                raise LeftTheTable(word)
            try:
                return parse_choice(typed, choices, hand=view.hand, upcard=view.upcard)
            except ChoiceError as exc:
                self.screen.problem(str(exc))
