"""The legal outcomes of one position, indexed by what a sensor would read after each.

An outcome is kept as the few cells its reading changes (a flat tuple: cell index,
token, cell index, token ...) and the engine's reference to it; its move and the
position it leads to are written out only when a reading matches it. A Hakenschlagen
turn of 90,000 outcomes then takes a few megabytes, not hundreds. Building an index
is pure, so the service builds it in a worker thread; the referee keeps a few, by
their size in bytes. It never touches a device or the event loop.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Any

from boardref import fusion

#: the table sensors whose readings the camera makes (what ``index_successors`` is told)
CAMERA, BOTH = "camera", "both"


def projection(sensor: str) -> str:
    """The kind of reading ``game.sense`` gives for a table's sensor: a table with a
    camera reads what the camera sees, hall sensors or not."""
    return CAMERA if sensor == BOTH else sensor


class Successors:
    """The legal outcomes of one position by the changes they make to its reading
    (``base``). With camera and hall sensors (``both``) also what the hall sensors
    would feel after each."""

    def __init__(self, sensor: str, base: tuple, resolve: Callable[[Any], tuple] | None):
        self.sensor = sensor
        #: the reading of the position itself
        self.base = base
        #: changes -> the reference of the one outcome that reads so, or a list of them
        self._refs: dict[tuple, Any] = {}
        #: with camera and hall sensors: the changes hall sensors feel, by camera changes
        self._felt: dict[tuple, tuple] = {}
        self.presence_base: tuple = ()
        #: with a camera: the outcomes as sparse rows of token ids, for the weighing
        self.candidates: fusion.Candidates | None = None
        self._resolve = resolve
        #: the changes of each of ``candidates`` in their order
        self._order: list[tuple] = []
        self.outcomes = 0
        self.nbytes = 0

    def fill(self, rows) -> None:
        """Take every ``(ref, changes)`` of ``rows`` (``(ref, changes, felt)`` with
        camera and hall sensors), then build what the weighing needs."""
        refs, felts = self._refs, self._felt
        have_of = refs.get
        outcomes = 0
        for row in rows:
            changes = row[1]
            have = have_of(changes)
            if have is None:
                refs[changes] = row[0]
            elif type(have) is list:
                have.append(row[0])
            else:
                refs[changes] = [have, row[0]]
            if len(row) > 2:
                felts[changes] = row[2]
            outcomes += 1
        self.outcomes = outcomes
        lists = sum(type(ref) is list for ref in refs.values())
        self.nbytes = (
            sum(map(sys.getsizeof, refs))
            + sum(map(sys.getsizeof, felts.values()))
            + sys.getsizeof(refs)
            + sys.getsizeof(felts)
            + 88 * lists
            + 32 * outcomes  # the references
        )
        if self.sensor in (CAMERA, BOTH):
            self._order = list(refs)
            self.candidates = fusion.Candidates.of(self.base, self._order)
            self.nbytes += self.candidates.nbytes + sys.getsizeof(self._order)

    # --- looking readings up ---------------------------------------------------------

    def changes(self, key: tuple) -> tuple:
        """``key`` (a full reading, tokens in board order) as its changes to ``base``."""
        return changes_between(key, self.base)

    def get(self, key: tuple) -> list[tuple[Any, Any]]:
        """Every ``(move, position)`` whose reading is ``key``; [] if none."""
        return self.outcomes_of(self.changes(key))

    def __contains__(self, key: tuple) -> bool:
        return self.changes(key) in self._refs

    def outcomes_of(self, changes: tuple) -> list[tuple[Any, Any]]:
        refs = self._refs.get(changes)
        if refs is None:
            return []
        return [self._resolve(ref) for ref in (refs if type(refs) is list else [refs])]

    def sample(self) -> Any:
        """The move of one outcome (what kind of move the game makes), or None when
        there is none."""
        for refs in self._refs.values():
            return self._resolve(refs[0] if type(refs) is list else refs)[0]
        return None

    def readings(self) -> Iterator[tuple]:
        """The changes of every distinct reading."""
        return iter(self._refs)

    def full(self, changes: tuple) -> tuple:
        """The whole reading ``changes`` stands for."""
        key = list(self.base)
        for n in range(0, len(changes), 2):
            key[changes[n]] = changes[n + 1]
        return tuple(key)

    def felt(self, changes: tuple) -> tuple | None:
        """What the hall sensors feel for the reading ``changes`` (camera and hall)."""
        felt = self._felt.get(changes)
        if felt is None:
            return None
        key = list(self.presence_base)
        for n in range(0, len(felt), 2):
            key[felt[n]] = felt[n + 1]
        return tuple(key)

    def candidate(self, n: int) -> tuple:
        """The whole reading of ``candidates``'s ``n``-th."""
        return self.full(self._order[n])

    def agreeing(self, hall: tuple) -> list[bool]:
        """Which of ``candidates`` the hall sensors feel as ``hall``."""
        felt = changes_between(hall, self.presence_base)
        return [self._felt.get(changes) == felt for changes in self._order]

    def off_base(self, reading: tuple) -> set[int]:
        """The cells where ``reading`` differs from the position."""
        return {i for i, (now, then) in enumerate(zip(reading, self.base)) if now != then}

    def apart(self, reading: tuple, off_base: set[int], changes: tuple) -> list[int]:
        """The cells where ``reading`` differs from the outcome read as ``changes``,
        given ``off_base``, the cells where it differs from ``base``."""
        moved = changes[0::2]
        differ = (i for i, token in zip(moved, changes[1::2]) if reading[i] != token)
        return sorted(off_base.difference(moved).union(differ))


def changes_between(key: tuple, base: tuple) -> tuple:
    """Where reading ``key`` differs from ``base``: cell index, token, cell index ..."""
    return tuple(
        part for i, (now, then) in enumerate(zip(key, base)) if now != then for part in (i, now)
    )


def outcomes_read_as(game, state, sensor: str, key: tuple) -> list[tuple[Any, Any]]:
    """Every ``(move, position)`` from ``state`` that ``sensor`` reads as ``key``,
    matched one outcome at a time without indexing them: a reading judged before
    the idle indexing ran (a cold verdict) needs only its own matches. Hall sensors
    only; a camera's reading is weighed against the whole index."""
    base = tuple(game.sense(state, sensor).values())
    wanted = changes_between(key, base)
    rows, resolve = game.sensed_successors(state, (sensor,))
    return [resolve(ref) for ref, changes in rows if changes == wanted]


def index_successors(game, state, sensor: str) -> Successors:
    """Every legal outcome from ``state`` by what ``sensor`` would read after it.
    Pure: the service runs it in a worker thread and hands the result to
    ``Referee.adopt``."""
    seen = projection(sensor)
    sensors = (seen, "presence") if sensor == BOTH else (seen,)
    rows, resolve = game.sensed_successors(state, sensors)
    found = Successors(sensor, tuple(game.sense(state, seen).values()), resolve)
    if sensor == BOTH:
        found.presence_base = tuple(game.sense(state, "presence").values())
    found.fill(rows)
    return found
