"""Moves the board cannot feel: legal moves that hall sensors read exactly as the
position itself (a Fang den Hut! hat put from a home that keeps others onto a field
where hats stand already). While the board shows the position and such a move is
legal, the table lists them for the mover to choose, or to rule out; until then the
turn stays open, so no draw is offered and no other seat plays.

A part of the referee that only finds them (its commands take and rule them
out). The moves are found in the position's index of successors, once
per index; it never builds an index itself (that is the worker thread's job), so a
snapshot costs a lookup, and it never takes a move the mover did not choose.
"""

from __future__ import annotations

from typing import Any

from boardref.referee.kinds import Phase, Sensor
from boardref.referee.match import Match
from engines import Move


class Unseen:
    """The moves the mover may have made without the board showing them."""

    def __init__(self, match: Match):
        self.match = match
        #: the index the unseen moves were last found in, and those moves by the
        #: position each leads to (one move per position)
        self._found: tuple[Any, dict[Any, Move]] = (None, {})
        #: the position whose unseen moves the mover ruled out, and at which step
        self.ruled_out: tuple[Any, int] = (None, -1)

    def unseen_moves(self) -> tuple[Move, ...]:
        """The legal moves whose reading is the position's own, while the board shows
        the position and the turn is open (no move read yet); () where the position's
        index is not built yet or the table reads no board."""
        return tuple(self._unseen().values())

    def asked_unseen(self) -> tuple[Move, ...]:
        """The unseen moves the table asks the mover about now: none once ruled out
        for this position, and of the computer's seat only the move it announced."""
        m = self.match
        if m.phase != Phase.MOVE or self.ruled_out == self.turn_mark():
            return ()
        found = self._unseen()
        if m.expected is not None:
            move, after = m.expected
            return (move,) if after in found else ()
        return tuple(found.values())

    def _unseen(self) -> dict[Any, Move]:
        """``unseen_moves`` by the position each leads to."""
        m = self.match
        if m.phase not in (Phase.MOVE, Phase.AMBIGUOUS) or m.tentative is not None:
            return {}
        if m.sensor == Sensor.PANEL or m.reading is None:
            return {}
        index = m.successors.get(m.positions[-1])
        if index is None or self.shown_key() != index.base:
            return {}
        kept, found = self._found
        if kept is not index:
            found = {state: move for move, state in index.get(index.base)}
            self._found = (index, found)
        return found

    def shown_key(self) -> tuple:
        """The board's reading as judged, in board order (with a camera, the legal
        outcome it was weighed as)."""
        m = self.match
        shown = m.reading if m.read_as is None else m.read_as
        return () if shown is None else m.key(shown)

    def turn_mark(self) -> tuple[Any, int]:
        """The turn as the mover rules its unseen moves out: its position and step."""
        return (self.match.positions[-1], len(self.match.steps))
