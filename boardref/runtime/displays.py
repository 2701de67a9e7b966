"""The outputs of one service and the ``Display`` pushed to them.

Every change (a verdict, the board link, the virtual board) is made into one whole
``Display`` first and then handed to each output, so no output depends on another
having heard of it before. An output that fails is logged and the others are still
shown the table; nothing here ever changes the game.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable

from boardref.outputs.announcer import Announcer
from boardref.outputs.display import Display
from boardref.referee.snapshot import TableState

log = logging.getLogger("boardref")

#: something that shows the table: the panel's pages, the café's report
Output = Callable[[Display], None]


class Displays:
    """Builds the ``Display`` of each change with ``facts`` and shows it to every output."""

    def __init__(self, facts: Callable[[TableState], Display], state: TableState):
        self.facts = facts
        self.outputs: list[Output] = []
        #: what the table says aloud, heard from each new snapshot
        self.announcer = Announcer()
        #: the last display shown, rebuilt when the table's own facts change
        self.shown = facts(state)

    def show(self, state: TableState | None = None) -> Display:
        """Show ``state`` (the referee's new snapshot), or the last one again with the
        table's facts as they are now (the link went down, a piece was lifted)."""
        shown = self.facts(self.shown.state if state is None else state)
        if state is not None:
            self.announcer.hear(state, shown.game_id)
        self.shown = dataclasses.replace(shown, said=tuple(self.announcer.recent))
        for output in list(self.outputs):
            try:
                output(self.shown)
            except Exception:  # one output's fault must not hide the table from the others
                log.exception("an output failed to show the table")
        return self.shown
