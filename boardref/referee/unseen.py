"""Moves the board cannot feel: legal moves that hall sensors read exactly as the
position itself (a Fang den Hut! hat put from a home that keeps others onto a field
where hats stand already). While the board shows the position and such a move is
legal, the table lists them for the mover to choose, or to rule out; until then the
turn stays open, so no draw is offered and no other seat plays.

Part of ``Referee``. The moves are found in the position's index of successors, once
per index; it never builds an index itself (that is the worker thread's job), so a
snapshot costs a lookup, and it never takes a move the mover did not choose.
"""

from __future__ import annotations

from typing import Any

from boardref.referee.verdicts import AMBIGUOUS, MOVE, PANEL, Event, RefereeError
from engines.words import words


class Unseen:
    """The moves the mover may have made without the board showing them."""

    #: the index the unseen moves were last found in, and those moves by the position
    #: each leads to (one move per position)
    _unseen_found: tuple[Any, dict] = (None, {})
    #: the position whose unseen moves the mover ruled out, and at which step of the game
    _ruled_out: tuple[Any, int] = (None, -1)

    def unseen_moves(self) -> tuple:
        """The legal moves whose reading is the position's own, while the board shows
        the position and the turn is open (no move read yet); () where the position's
        index is not built yet or the table reads no board."""
        return tuple(self._unseen().values())

    def asked_unseen(self) -> tuple:
        """The unseen moves the table asks the mover about now: none once ruled out
        for this position, and of the computer's seat only the move it announced."""
        if self.phase != MOVE or self._ruled_out == self._turn_mark():
            return ()
        found = self._unseen()
        if self.expected is not None:
            move, after = self.expected
            return (move,) if after in found else ()
        return tuple(found.values())

    def _unseen(self) -> dict:
        """``unseen_moves`` by the position each leads to."""
        if self.phase not in (MOVE, AMBIGUOUS) or self.tentative is not None:
            return {}
        if self.sensor == PANEL or self.reading is None:
            return {}
        index = self._successors.get(self.positions[-1])
        if index is None or self.shown_key() != index.base:
            return {}
        kept, found = self._unseen_found
        if kept is not index:
            found = {state: move for move, state in index.get(index.base)}
            self._unseen_found = (index, found)
        return found

    def shown_key(self) -> tuple:
        """The board's reading as judged, in board order (with a camera, the legal
        outcome it was weighed as)."""
        return self._key(self.reading if self.read_as is None else self.read_as)

    def take_unseen(self, move_text: str) -> bool:
        """The mover names the unseen move they made; False when ``move_text`` is
        not one the table asks about (the caller then refuses it)."""
        offered = {str(move): move for move in self.asked_unseen()}
        if move_text not in offered:
            return False
        self._accept_move(offered[move_text], mark="chosen")
        return True

    def rule_out(self) -> None:
        """The mover made none of the unseen moves: the table stops asking for this
        position (a confirm offers them again), and play goes on from the board."""
        self._require_game()
        if not self.asked_unseen() and not (self.phase == AMBIGUOUS and self.unseen_moves()):
            raise RefereeError(
                words("referee.no_unseen", "No move the board cannot feel is waiting: play on")
            )
        self._ruled_out = self._turn_mark()
        self.phase = MOVE
        self._view.candidates = ()
        self._view.clear_problems()
        self._emit(Event("ruled_out", {}))
        self._publish()

    def _turn_mark(self) -> tuple[Any, int]:
        return (self.positions[-1], len(self.steps))
