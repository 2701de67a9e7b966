"""What the referee tells the players when the board is not a legal move: a
lifted piece and where it may go, a capture still standing, an illegal or unreadable
board and how to put it back. A part of the referee; it decides nothing, and changes
only the words and highlights of the moment."""

from __future__ import annotations

from typing import Any

from boardref.referee.events import Event, Outbox
from boardref.referee.kinds import EventKind, projection
from boardref.referee.match import Match
from boardref.referee.refusals import Carried, refuse
from boardref.referee.verdicts import Reading, leaves_board, token_words
from engines.words import words


class Guidance:
    """The referee's words and highlights for a board that is not (yet) a move."""

    def __init__(self, match: Match, outbox: Outbox):
        self.match = match
        self.outbox = outbox

    def guide_back(self, reading: Reading) -> bool:
        """Guide the players to the expected position; True once the board matches."""
        m = self.match
        return self.show_differences(reading, m.current(), quiet=False)

    def show_differences(self, reading: Reading, state: Any, quiet: bool) -> bool:
        m = self.match
        expected = m.rules.sense(state, projection(m.sensor))
        differ = [c.id for c in m.rules.board.cells if reading.get(c.id) != expected[c.id]]
        v = m.view
        v.clear_problems()
        if not differ:
            return True
        first = differ[0]
        if expected[first] is None:
            v.remove = first
        else:
            v.place = first
        v.errors = frozenset(differ)
        if not quiet:
            if v.remove:
                v.say(
                    words(
                        "referee.differs_remove",
                        "The board differs from the game in {count, plural, one {# place} other "
                        "{# places}}: take the piece off {cell}",
                        count=len(differ),
                        cell=first,
                    )
                )
            else:
                v.say(
                    words(
                        "referee.differs_place",
                        "The board differs from the game in {count, plural, one {# place} other "
                        "{# places}}: put a piece ({token}) on {cell}",
                        count=len(differ),
                        cell=first,
                        token=token_words(expected[first]),
                    )
                )
            self.outbox.emit(Event(EventKind.OUT_OF_SYNC, {"cells": differ, "next": v.message}))
        return False

    def explain(self, reading: Reading) -> None:
        """No legal move fits: a lifted piece, or an illegal or unreadable board."""
        m = self.match
        base, current = m.positions[-1], m.current()
        expected = m.rules.sense(current, projection(m.sensor))
        cells = [c.id for c in m.rules.board.cells]
        vacated = [c for c in cells if expected[c] is not None and reading.get(c) is None]
        filled = [c for c in cells if expected[c] is None and reading.get(c) is not None]
        changed = [
            c
            for c in cells
            if None not in (expected[c], reading.get(c)) and expected[c] != reading.get(c)
        ]
        v = m.view
        v.clear_problems()
        if len(vacated) == 1 and not filled and not changed:
            v.lifted = vacated[0]
            v.destinations = self.destinations(reading)
            self.outbox.emit(
                Event(EventKind.LIFTED, {"cell": v.lifted, "destinations": sorted(v.destinations)})
            )
            return
        captured = self._captures_left(reading)
        if captured:
            v.remove = captured[0]
            v.say(words("referee.capture", "Take the captured piece off {cells}", cells=captured))
            self.outbox.emit(Event(EventKind.CAPTURE_PENDING, {"cells": captured}))
            return
        v.errors = frozenset(vacated + filled + changed)
        if len(vacated) == 1 and len(filled) == 1 and not changed:
            origin = vacated[0] if m.tentative is None else self._origin_in(base, reading)
            refusal = refuse(m, self.destinations, Carried(base, reading, origin, filled[0]))
            v.destinations, v.place = refusal.allowed, refusal.place
            v.say(words("referee.illegal", "Not allowed: {reason}", reason=refusal.said))
            self.outbox.emit(
                Event(EventKind.ILLEGAL, {"cells": sorted(v.errors), "reason": str(refusal.said)})
            )
        else:
            v.say(
                words(
                    "referee.unreadable",
                    "The board matches no legal move ({count, plural, one {# cell differs} other "
                    "{# cells differ}}); put the pieces back {lights, select, on {as the lights "
                    "show} other {as the board on the screen marks them}}{misread, select, named "
                    "{. Misread? The referee page can name the move made} other {}}",
                    count=len(v.errors),
                    # the table's own lights, else the drawing on its screen
                    lights=m.shown_by(),
                    # after a turn's draw a correction names the move under way
                    misread="named" if m.drawn_for() else "no",
                )
            )
            self.outbox.emit(Event(EventKind.UNREADABLE, {"cells": sorted(v.errors)}))

    def _captures_left(self, reading: Reading) -> list[str]:
        """The pieces still to take off when the board is a legal move whose captured
        pieces are still standing; [] when it is not."""
        m = self.match
        keys = m.key(reading)
        cells = m.rules.board.cells
        for state in m.wanted():
            index = m.successors_of(state)
            off_base = index.off_base(keys)
            least = 2 * len(off_base)
            for changes in index.readings(covering=off_base):
                # a capture left standing differs from the successor only on cells
                # the move changed (they held a piece before and it shows one now)
                if len(changes) < least:
                    continue
                moved = changes[0::2]
                if not off_base.issubset(moved):
                    continue
                extra = index.apart(keys, off_base, changes)
                shows = dict(zip(moved, changes[1::2]))
                left = extra and all(keys[i] is not None and shows[i] is None for i in extra)
                if left and leaves_board(index.base, moved, extra):
                    return [cells[i].id for i in extra]
        return []

    def _origin_in(self, base: Any, reading: Reading) -> str:
        m = self.match
        expected = m.rules.sense(base, projection(m.sensor))
        gone = [c for c, token in expected.items() if token is not None and reading.get(c) is None]
        return gone[0] if gone else ""

    def destinations(self, reading: Reading) -> frozenset[str]:
        """Cells where the lifted piece may go: successors one piece away from it."""
        m = self.match
        found = set()
        states = m.wanted()
        keys = m.key(reading)
        for state in states:
            index = m.successors_of(state)
            off_base = index.off_base(keys)
            # cells off the position that are empty now, and that show another piece
            empty = {i for i in off_base if keys[i] is None}
            other = {i for i in off_base if keys[i] is not None and index.base[i] is not None}
            least = 2 * len(other)
            for changes in index.readings(covering=other, now=keys):
                if len(changes) < least:
                    continue
                moved = changes[0::2]
                if not other.issubset(moved):
                    continue
                # the cells the successor fills that are empty now: one, the place
                # the lifted piece goes
                fills = empty.difference(moved)
                if len(fills) > 1:
                    continue
                shows = dict(zip(moved, changes[1::2]))
                fills = fills.union(i for i in moved if shows[i] is not None and keys[i] is None)
                if len(fills) != 1:
                    continue
                apart = index.apart(keys, off_base, changes)
                added = [i for i in apart if keys[i] is None]
                # cells where both show a piece, but not the same
                changed = any(
                    keys[i] is not None and shows.get(i, index.base[i]) is not None for i in apart
                )
                if len(added) == 1 and not changed:
                    found.add(m.rules.board.cells[added[0]].id)
        return frozenset(found)
