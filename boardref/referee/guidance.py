"""What the referee tells the players when the board is not a legal move: a
lifted piece and where it may go, a capture still standing, an illegal or unreadable
board and how to put it back. Part of ``Referee``; it decides nothing."""

from __future__ import annotations

from boardref.referee.refusals import refuse
from boardref.referee.successors import (
    projection,
)
from boardref.referee.verdicts import (
    MOVE,
    Event,
    Reading,
    leaves_board,
    token_words,
)
from engines.words import words


class Guidance:
    """The referee's words and highlights for a board that is not (yet) a move."""

    def _guide_back(self, reading: Reading) -> bool:
        """Guide the players to the expected position; True once the board matches."""
        return self._show_differences(reading, self.current(), quiet=False)

    def _show_differences(self, reading: Reading, state, quiet: bool) -> bool:
        expected = self.game.sense(state, projection(self.sensor))
        differ = [c.id for c in self.game.board.cells if reading.get(c.id) != expected[c.id]]
        v = self._view
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
            self._emit(Event("out_of_sync", {"cells": differ, "next": v.message}))
        return False

    def _explain(self, reading: Reading) -> None:
        """No legal move fits: a lifted piece, or an illegal or unreadable board."""
        base, current = self.positions[-1], self.current()
        expected = self.game.sense(current, projection(self.sensor))
        cells = [c.id for c in self.game.board.cells]
        vacated = [c for c in cells if expected[c] is not None and reading.get(c) is None]
        filled = [c for c in cells if expected[c] is None and reading.get(c) is not None]
        changed = [
            c
            for c in cells
            if None not in (expected[c], reading.get(c)) and expected[c] != reading.get(c)
        ]
        v = self._view
        v.clear_problems()
        if len(vacated) == 1 and not filled and not changed:
            v.lifted = vacated[0]
            v.destinations = self._destinations(reading)
            self._emit(Event("lifted", {"cell": v.lifted, "destinations": sorted(v.destinations)}))
            return
        captured = self._captures_left(reading)
        if captured:
            v.remove = captured[0]
            v.say(words("referee.capture", "Take the captured piece off {cells}", cells=captured))
            self._emit(Event("capture_pending", {"cells": captured}))
            return
        v.errors = frozenset(vacated + filled + changed)
        if len(vacated) == 1 and len(filled) == 1 and not changed:
            origin = vacated[0] if self.tentative is None else self._origin_in(base, reading)
            refusal = refuse(self, base, reading, origin, filled[0])
            v.destinations, v.place = refusal.allowed, refusal.place
            v.say(words("referee.illegal", "Not allowed: {reason}", reason=refusal.said))
            self._emit(Event("illegal", {"cells": sorted(v.errors), "reason": str(refusal.said)}))
        else:
            v.say(
                words(
                    "referee.unreadable",
                    "The board matches no legal move ({count, plural, one {# cell differs} other "
                    "{# cells differ}}); put the pieces back as the lights show",
                    count=len(v.errors),
                )
            )
            self._emit(Event("unreadable", {"cells": sorted(v.errors)}))

    def _captures_left(self, reading: Reading) -> list[str]:
        """The pieces still to take off when the board is a legal move whose captured
        pieces are still standing; [] when it is not."""
        keys = self._key(reading)
        cells = self.game.board.cells
        for state in [self.positions[-1]] + ([self.tentative[1]] if self.tentative else []):
            index = self._successors_of(state)
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

    def _origin_in(self, base, reading: Reading) -> str:
        expected = self.game.sense(base, projection(self.sensor))
        gone = [c for c, token in expected.items() if token is not None and reading.get(c) is None]
        return gone[0] if gone else ""

    def _destinations(self, reading: Reading) -> frozenset[str]:
        """Cells where the lifted piece may go: successors one piece away from it."""
        found = set()
        states = [self.positions[-1]] + ([self.tentative[1]] if self.tentative else [])
        keys = self._key(reading)
        for state in states:
            index = self._successors_of(state)
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
                    found.add(self.game.board.cells[added[0]].id)
        return frozenset(found)

    def _held_destinations(self) -> tuple[str | None, frozenset[str]]:
        """The origin ``hold`` names and where its legal moves end, or (None, ())."""
        if not self._held or self.phase != MOVE or self.tentative is not None:
            return None, frozenset()
        state, origin = self.positions[-1], self._held[0]
        if self._held_lit is None or self._held_lit[:2] != (state, origin):
            paths = (getattr(move, "path", ()) for move in self.game.legal_moves(state))
            ends = frozenset(path[-1] for path in paths if path[:1] == (origin,))
            self._held_lit = (state, origin, ends)
        return origin, self._held_lit[2]
