"""The legal outcomes of one position, indexed by what a sensor would read after each.

An outcome is kept as the engine's ``SensedOutcomes`` give it: a row of the few
cells its reading changes (arrays of cells and token ids, written out as flat
tuples, cell index, token, cell index, token ..., only where one is looked at),
shared by every outcome that differs only by where one figure stands, and that
figure's cell. Its move and the position it leads to are written out only when a
reading matches it. A Hakenschlagen turn of 100,000 outcomes then takes a few
thousand rows and two arrays. Building an index is pure, so the service builds it
in a worker thread; the referee keeps a few, by their size in bytes. It never
touches a device or the event loop.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

from boardref.referee import fusion
from boardref.referee.kinds import Sensor, projection
from engines.sensed import NO_CELL, Rows, SensedOutcomes, without_change

#: more than any board's cells: an outcome's row and cell in one sortable number
CELLS = 256


class Successors:
    """The legal outcomes of one position by the changes they make to its reading
    (``base``). With camera and hall sensors (``both``) also what the hall sensors
    would feel after each.

    Outcomes are kept as the engine's ``SensedOutcomes``: shared rows of changes
    and, per outcome, its row and the one cell a figure adds to it. A reading is
    found through a table of rows by their changes: as a row itself, or as a row
    with one change (the figure's) taken out."""

    def __init__(self, sensor: Sensor, base: tuple, resolve: Callable[[int], tuple]):
        self.sensor = sensor
        #: the reading of the position itself
        self.base = base
        self.presence_base: tuple = ()
        #: with a camera: every outcome as a candidate reading, for the weighing
        self.candidates: fusion.Candidates | None = None
        self._resolve = resolve
        self._sensed = SensedOutcomes(Rows(0), (), array("i"), array("h"))
        #: changes -> the rows that read so (the first sensor's), and with camera and
        #: hall sensors, what the hall sensors feel -> the rows that feel so
        self._by_changes = RowsBy(Rows(0), 0)
        self._by_felt = RowsBy(Rows(0), 1)
        #: the outcomes sorted by ``row * CELLS + cell + 1`` (``_keys``), to find one
        self._keys: Any = None
        self._order: Any = None
        #: the rows' changed cells, flat, for ``readings`` (made when first asked)
        self._cells_of_rows: tuple | None = None
        self.outcomes = 0
        self.nbytes = 0

    def fill(self, rows) -> None:
        """Take the outcomes ``rows``: ``SensedOutcomes`` with ``resolve(n)`` for
        outcome ``n``, or ``(ref, changes)`` rows (``(ref, changes, felt)`` with
        camera and hall sensors) with ``resolve(ref)``; then build what the lookups
        and the weighing need."""
        import numpy as np

        if not isinstance(rows, SensedOutcomes):
            rows, refs = SensedOutcomes.listed(rows)
            self._resolve = _by_position(self._resolve, refs)
        self._sensed = sensed = rows
        self.outcomes = len(sensed)
        self._by_changes = RowsBy(sensed.rows, 0)
        self._by_felt = RowsBy(sensed.rows, 1)
        of_row = np.frombuffer(sensed.row, dtype=np.int32) if len(sensed) else np.zeros(0, np.int32)
        cell = np.frombuffer(sensed.cell, dtype=np.int16) if len(sensed) else np.zeros(0, np.int16)
        self._of_row, self._cell = of_row, cell
        # int32: a turn would need 8 million rows to pass it
        keys = of_row * np.int32(CELLS) + cell + np.int32(1)
        self._order = np.argsort(keys, kind="stable").astype(np.int32)
        self._keys = keys[self._order]
        self.nbytes = (
            sensed.rows.nbytes
            + self._by_changes.nbytes
            + self._by_felt.nbytes
            + sys.getsizeof(sensed.row)
            + sys.getsizeof(sensed.cell)
            + self._order.nbytes
            + self._keys.nbytes
        )
        if self.sensor in (Sensor.CAMERA, Sensor.BOTH):
            self.candidates = fusion.Candidates.spread(
                self.base, _flat(sensed.rows, 0)[1:], of_row, cell, sensed.tokens[:1]
            )
            # the candidates share the outcomes' rows and cells with the index
            self.nbytes += self.candidates.nbytes - of_row.nbytes - cell.nbytes

    # --- looking readings up ---------------------------------------------------------

    def changes(self, key: tuple) -> tuple:
        """``key`` (a full reading, tokens in board order) as its changes to ``base``."""
        return changes_between(key, self.base)

    def get(self, key: tuple) -> list[tuple[Any, Any]]:
        """Every ``(move, position)`` whose reading is ``key``; [] if none."""
        return self.outcomes_of(self.changes(key))

    def __contains__(self, key: tuple) -> bool:
        return bool(self._matches(self.changes(key)))

    def outcomes_of(self, changes: tuple) -> list[tuple[Any, Any]]:
        return [self._resolve(n) for n in self._matches(changes)]

    def _matches(self, changes: tuple, by: int = 0) -> list[int]:
        """The outcomes (in order) whose reading (the first sensor's, or with ``by``
        1 the hall sensors') is ``changes``."""
        table = self._by_felt if by else self._by_changes
        # the reading as a row itself, and as a row with the figure's change taken out
        readings, cells = [changes], [-1]
        if len(self._sensed.tokens) > by:
            token = self._sensed.tokens[by]
            for k in range(0, len(changes), 2):
                if changes[k + 1] == token:
                    readings.append(without_change(changes, k))
                    cells.append(changes[k])
        wanted = [
            r * CELLS + cell + 1 for rows, cell in zip(table.rows_of(readings), cells) for r in rows
        ]
        if not wanted:
            return []
        starts = self._keys.searchsorted(wanted)
        ends = self._keys.searchsorted(wanted, side="right")
        return sorted(int(n) for a, b in zip(starts, ends) for n in self._order[a:b])

    def sample(self) -> Any:
        """The move of one outcome (what kind of move the game makes), or None when
        there is none."""
        return self._resolve(0)[0] if self.outcomes else None

    def readings(
        self, covering: set[int] | frozenset[int] = frozenset(), now: tuple | None = None
    ) -> Iterator[tuple]:
        """The changes of every distinct reading (in the outcomes' order) that
        changes every cell of ``covering``, and given ``now`` (a whole reading),
        shows something on at most one cell where ``now`` shows nothing. Rows are
        looked at first: most outcomes are passed over with their row, unwritten."""
        import numpy as np

        sensed = self._sensed
        if not self.outcomes:
            return
        bare = set() if now is None else {i for i, token in enumerate(now) if token is None}
        shown = [i for i in bare if self.base[i] is not None]
        if self._cells_of_rows is None:
            self._cells_of_rows = _cells_of_rows(sensed.rows)
        of_row, at, showing = self._cells_of_rows
        rows = len(sensed.rows)

        def per_row(cells, weights=None) -> Any:
            """Per row: how many of its changed cells are among ``cells`` (or the sum
            of ``weights`` over them)."""
            hit = np.isin(at, list(cells))
            return np.bincount(of_row[hit], None if weights is None else weights[hit], rows)

        # per row: the one cell its outcomes must add the figure on (-1: any cell,
        # -2: none); and when that is any cell, a cell the figure may not go to, being
        # bare now, unless it is the row's one shown cell (-1: no such limit)
        missing = len(covering) - per_row(covering)
        missed = sum(covering) - per_row(covering, at)  # the cell, where one is missing
        # what a row shows on cells bare now: the position's pieces it leaves in place,
        # and pieces it puts there
        left = len(shown) - per_row(shown)
        puts = showing & np.isin(at, list(bare))
        fills = left + np.bincount(of_row[puts], None, rows)
        fill = np.where(left == 1, sum(shown) - per_row(shown, at), 0)
        fill = fill + np.bincount(of_row[puts], at[puts], rows)
        needs = np.where(missing == 0, NO_CELL, np.where(missing == 1, missed, -2)).astype(np.int16)
        needs[fills > 1] = -2
        only = np.where(fills == 1, fill, NO_CELL).astype(np.int16)
        cell = self._cell
        wanted, one = needs[self._of_row], only[self._of_row]
        mask = (wanted == NO_CELL) | (wanted == cell)
        if now is not None:
            on_bare = np.zeros(CELLS, dtype=bool)
            on_bare[list(bare)] = True
            # a figure on a bare cell shows one more there, past one with the row's
            on_bare[NO_CELL] = False
            mask &= ~(on_bare[cell] & (one != NO_CELL) & (one != cell))
        seen = set()
        for n in np.flatnonzero(mask).tolist():
            changes = sensed.reading(n, 0)
            if changes not in seen:
                seen.add(changes)
                yield changes

    def full(self, changes: tuple, base: tuple | None = None) -> tuple:
        """The whole reading ``changes`` stands for (against ``base``, the position's
        reading unless given)."""
        key = list(self.base if base is None else base)
        for n in range(0, len(changes), 2):
            key[changes[n]] = changes[n + 1]
        return tuple(key)

    def felt(self, changes: tuple) -> tuple | None:
        """What the hall sensors feel for the reading ``changes`` (camera and hall)."""
        found = self._matches(changes)
        if not found or not self.presence_base:
            return None
        return self.full(self._sensed.reading(found[0], 1), self.presence_base)

    def candidate(self, n: int) -> tuple:
        """The whole reading of ``candidates``'s ``n``-th."""
        return self.full(self._sensed.reading(n, 0))

    def agreeing(self, hall: tuple) -> Any:
        """Which of ``candidates`` the hall sensors feel as ``hall`` (a numpy array
        of booleans)."""
        import numpy as np

        felt = changes_between(hall, self.presence_base)
        found = np.zeros(self.outcomes, dtype=bool)
        found[self._matches(felt, by=1)] = True
        return found

    def off_base(self, reading: tuple) -> set[int]:
        """The cells where ``reading`` differs from the position."""
        return {i for i, (now, then) in enumerate(zip(reading, self.base)) if now != then}

    def apart(self, reading: tuple, off_base: set[int], changes: tuple) -> list[int]:
        """The cells where ``reading`` differs from the outcome read as ``changes``,
        given ``off_base``, the cells where it differs from ``base``."""
        moved = changes[0::2]
        differ = (i for i, token in zip(moved, changes[1::2]) if reading[i] != token)
        return sorted(off_base.difference(moved).union(differ))


def _flat(rows: Rows, sensor: int) -> tuple:
    """Sensor ``sensor``'s changes of ``rows`` as numpy arrays: each row's first
    change, its count and each change's cell and token id; and the tokens by id."""
    import numpy as np

    if sensor >= rows.sensors:  # no outcomes, or a sensor they were not read for
        return (np.zeros(0, np.int32),) * 2 + (np.zeros(0, np.int16), np.zeros(0, np.uint8), ())
    start = np.frombuffer(rows.start[sensor], dtype=np.int32)
    at, shows = rows.at[sensor], rows.shows[sensor]
    return (
        start[:-1],
        np.diff(start),
        np.frombuffer(at, dtype=np.int16) if len(at) else np.zeros(0, np.int16),
        np.frombuffer(shows, dtype=np.uint8) if len(shows) else np.zeros(0, np.uint8),
        tuple(rows.names),
    )


def _cells_of_rows(rows: Rows) -> tuple:
    """The first sensor's changes of ``rows``, flat: each change's row, its cell and
    whether it shows something there."""
    import numpy as np

    _, lengths, at, shows, names = _flat(rows, 0)
    showing = np.array([token is not None for token in names], dtype=bool)
    return np.repeat(np.arange(len(rows), dtype=np.int32), lengths), at, showing[shows]


class RowsBy:
    """Sensor ``sensor``'s changes -> the rows (in order) that read so: the rows'
    hashes of those changes (``_hash``, made from the flat arrays at once), sorted,
    with the rows in that order (two arrays). A dict of every reading to a tuple of
    its rows held a tuple and an int per row besides itself: for the biggest
    Hakenschlagen turns, 5-6 MB of small objects while the index was kept, whose
    room the interpreter kept after it was let go. Rows that read alike stay in
    order, however many; a hash two readings share is told apart by the rows'
    changes themselves."""

    def __init__(self, rows: Rows, sensor: int):
        import numpy as np

        self._rows, self._sensor = rows, sensor
        start, lengths, at, shows, _ = _flat(rows, sensor)
        place = np.arange(len(at)) - np.repeat(start, lengths)
        numbers = (at.astype(np.uint64) << np.uint64(8)) + shows + np.uint64(1)
        summed = np.zeros(len(at) + 1, np.uint64)
        np.cumsum(numbers * _weights()[place], out=summed[1:])
        hashes = summed[start + lengths] - summed[start]
        order = np.argsort(hashes, kind="stable").astype(np.int32)
        self._order, self._hashes = order, hashes[order]
        self.nbytes = self._order.nbytes + self._hashes.nbytes

    def __len__(self) -> int:
        return len(self._order)

    def rows_of(self, readings: list[tuple]) -> list[list[int]]:
        """For each of ``readings`` (a sensor's changes) the rows that read so, in
        order."""
        import numpy as np

        if not readings or not len(self._order):
            return [[] for _ in readings]
        wanted = np.array([_hash(reading, self._rows.ids) for reading in readings], np.uint64)
        starts = self._hashes.searchsorted(wanted).tolist()
        ends = self._hashes.searchsorted(wanted, side="right").tolist()
        rows, sensor, order = self._rows, self._sensor, self._order
        return [
            [r for r in order[a:b].tolist() if rows.reading(r, sensor) == reading] if a < b else []
            for reading, a, b in zip(readings, starts, ends)
        ]


@cache
def _weights() -> Any:
    """Per place in a reading (a change's), an odd multiplier (the golden ratio's
    Weyl sequence), so that readings of the same changes in another order differ."""
    import numpy as np

    places = np.arange(1, CELLS + 1, dtype=np.uint64)
    return (places * np.uint64(0x9E3779B97F4A7C15)) | np.uint64(1)


@cache
def _weights_listed() -> list[int]:
    return _weights().tolist()


def _hash(reading: tuple, ids: dict) -> int:
    """``RowsBy``'s hash of ``reading`` (flat changes), its tokens as ``ids``; 0 for
    a reading no row can show (a token without an id)."""
    total, weights = 0, _weights_listed()
    for place, k in enumerate(range(0, len(reading), 2)):
        token = ids.get(reading[k + 1], -1)
        if token < 0:
            return 0
        total += ((reading[k] << 8) + token + 1) * weights[place]
    return total & 0xFFFF_FFFF_FFFF_FFFF


def _by_position(resolve: Callable[[Any], tuple], refs: list) -> Callable[[int], tuple]:
    """``resolve`` for outcome ``n`` of ``refs``."""
    return lambda n: resolve(refs[n])


def changes_between(key: tuple, base: tuple) -> tuple:
    """Where reading ``key`` differs from ``base``: cell index, token, cell index ..."""
    return tuple(
        part for i, (now, then) in enumerate(zip(key, base)) if now != then for part in (i, now)
    )


def outcomes_read_as(
    game, state, sensor: Sensor, key: tuple, base: tuple | None = None
) -> list[tuple[Any, Any]]:
    """Every ``(move, position)`` from ``state`` that ``sensor`` reads as ``key``,
    matched one outcome at a time without indexing them: a reading judged before
    the idle indexing ran (a cold verdict) needs only its own matches. Hall sensors
    only; a camera's reading is weighed against the whole index. ``base``: what
    ``sensor`` reads of ``state`` itself, where the caller has it already."""
    if base is None:
        base = tuple(game.sense(state, sensor).values())
    wanted = changes_between(key, base)
    rows, resolve = game.sensed_successors(state, (sensor,))
    return [resolve(ref) for ref, changes in rows if changes == wanted]


def index_successors(game, state, sensor: Sensor) -> Successors:
    """Every legal outcome from ``state`` by what ``sensor`` would read after it.
    Pure: the service runs it in a worker thread and hands the result to
    ``Referee.adopt``."""
    seen = projection(sensor)
    sensors = (seen, Sensor.PRESENCE) if sensor == Sensor.BOTH else (seen,)
    rows, resolve = game.sensed_successors(state, sensors)
    found = Successors(sensor, tuple(game.sense(state, seen).values()), resolve)
    if sensor == Sensor.BOTH:
        found.presence_base = tuple(game.sense(state, Sensor.PRESENCE).values())
    found.fill(rows)
    return found
