"""The camera's observation against the readings the rules allow: which legal outcome
(or the unchanged position) the camera most likely saw.

Each cell's ranked readings give a probability per token; a candidate reading costs
the sum of ``-log p`` over its cells. The cheapest wins only when it explains the
observation (``FIT``) and beats the next different candidate clearly (``MARGIN``);
near ties go to the players to choose, and an observation no candidate explains is
passed on as seen, so the referee can say what is wrong. Hall presence, when fitted,
rules out every candidate it contradicts before the camera is weighed. It weighs
readings only; what they mean is the referee's business. numpy is imported where a
camera reading is weighed, so a table without a camera never loads it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

#: the probability given to a token the camera did not rank for a cell
FLOOR = 1e-6
#: the winner must be this many times likelier than the next different candidate
MARGIN = math.log(1e3)
#: a candidate costing this much more than the camera's own best guess explains
#: nothing: one cell read surely otherwise, and another in real doubt (p 1/4 or
#: more), may disagree with it. Not one read surely and another read at p 0.98: that
#: is a piece set down where no move reaches beside a legal step's empty destination
#: (13.8 + 3.9), nor a hare carried off its disk onto an empty cell, its origin read
#: as the bare disk at p 0.999 (6.9 + 13.8), which is no unchanged position
FIT = 1.1 * -math.log(FLOOR)
#: every cell read at least this sure and the reading is a candidate: no weighing needed
SURE = 0.98


@dataclass(frozen=True)
class Fused:
    """What the camera most likely saw: ``key`` (tokens in board order), and when
    several candidates fit about as well, their keys in ``ties`` (best first)."""

    key: tuple
    ties: tuple[tuple, ...] = ()


class Tokens:
    """Token names to small integers, one table per game, grown as tokens appear."""

    def __init__(self):
        self.ids: dict[str | None, int] = {None: 0}

    def id(self, token: str | None) -> int:
        return self.ids.setdefault(token, len(self.ids))

    def of(self, names) -> np.ndarray:
        """The ids of ``names`` (tokens), to turn ``token_rows``'s own ids into these."""
        import numpy as np

        return np.array([self.id(token) for token in names], dtype=np.int32)


@dataclass
class Candidates:
    """Readings to weigh, each a row of changes to the ``base`` reading, and perhaps
    one cell more, as token ids of their own (``names``): row ``cand[k]`` shows
    ``tok[k]`` on cell ``cell[k]``; candidate ``n`` reads as row ``row[n]`` and, where
    ``extra[n]`` is a cell (not -1), shows ``figure`` there too (a cell its row
    does not change). Tens of thousands of outcomes of a turn that differ only by
    where the fox stands take a few thousand rows and two arrays, instead of a row
    of every cell each. Pure, so it is built where the successors are indexed (a
    worker thread in the service), not in the verdict."""

    base: np.ndarray
    count: int
    cand: np.ndarray
    cell: np.ndarray
    tok: np.ndarray
    names: tuple
    row: np.ndarray
    extra: np.ndarray
    figure: int
    rows: int

    @classmethod
    def of(cls, base: tuple, changes: list[tuple]) -> Candidates:
        """``changes`` are flat tuples (cell index, token, ...) against ``base``."""
        import numpy as np

        names: dict[str | None, int] = {}
        lengths = np.fromiter(map(len, changes), dtype=np.int32, count=len(changes)) // 2
        size = int(lengths.sum())
        cells = np.fromiter(chain.from_iterable(c[0::2] for c in changes), np.int32, size)
        shows = np.fromiter(
            (names.setdefault(t, len(names)) for c in changes for t in c[1::2]), np.int32, size
        )
        return cls.spread(
            base,
            (lengths, cells, shows, tuple(names)),
            np.arange(len(changes), dtype=np.int32),
            np.full(len(changes), -1, dtype=np.int16),
            (),
        )

    @classmethod
    def spread(cls, base: tuple, rows: tuple, row, extra, figure: tuple) -> Candidates:
        """Candidate ``n`` reads as row ``row[n]`` of ``rows`` with ``figure`` (a
        one-token tuple, or none) added on cell ``extra[n]`` where that is not -1.
        ``rows`` are changes against ``base``, flat: ``(lengths, cells, shows,
        tokens)``, each row's count of changes, each change's cell and the id of its
        token in ``tokens``."""
        import numpy as np

        lengths, cells, shows, tokens = rows
        names: dict[str | None, int] = {}
        ids = [names.setdefault(token, len(names)) for token in base]
        shown = np.zeros(len(tokens), dtype=bool)
        shown[shows] = True
        # only the tokens the rows show: the game's token table grows with these
        own = [names.setdefault(t, len(names)) if s else 0 for t, s in zip(tokens, shown.tolist())]
        for token in figure:
            names.setdefault(token, len(names))
        return cls(
            np.array(ids, dtype=np.int32),
            len(row),
            np.repeat(np.arange(len(lengths), dtype=np.int32), lengths),
            cells.astype(np.int32),
            np.array(own, dtype=np.int32)[shows] if len(shows) else np.zeros(0, np.int32),
            tuple(names),
            row,
            extra,
            names[figure[0]] if figure else 0,
            len(lengths),
        )

    def costs(self, table: np.ndarray, ids: np.ndarray) -> np.ndarray:
        """Each candidate's cost: the sum over cells of ``table[cell, token]`` (``ids``
        maps this group's token ids to the table's columns)."""
        import numpy as np

        base = table[np.arange(len(self.base)), ids[self.base]]
        # a row costs its base, less the cells it changes, plus what they show
        delta = table[self.cell, ids[self.tok]] - base[self.cell]
        total = base.sum() + np.bincount(self.cand, delta, minlength=self.rows)[self.row]
        placed = np.flatnonzero(self.extra >= 0)
        if len(placed):
            cells = self.extra[placed]
            total[placed] += table[cells, ids[self.figure]] - base[cells]
        return total

    @property
    def nbytes(self) -> int:
        arrays = (self.base, self.cand, self.cell, self.tok, self.row, self.extra)
        return sum(part.nbytes for part in arrays)


def seen_key(observation, cells: list[str]) -> tuple:
    """The camera's own best guess, in board order."""
    return tuple(observation.tokens.get(cell) for cell in cells)


def surely_otherwise(observation, board) -> bool:
    """Whether the camera read some cell of ``board`` (cell -> token, as pairs or a
    dict) surely as something other than ``board`` has there."""
    pairs = board.items() if isinstance(board, dict) else board
    sure, tokens = observation.confidence, observation.tokens
    return any(sure.get(cell, 0.0) >= SURE and tokens.get(cell) != token for cell, token in pairs)


def is_sure(observation) -> bool:
    """Whether every cell was read sure enough to take the reading as it is, when
    it is a candidate."""
    return min(observation.confidence.values(), default=1.0) >= SURE


def costs(observation, cells: list[str], tokens: Tokens) -> np.ndarray:
    """``-log p`` per cell (rows) and token id (columns); unranked tokens get FLOOR."""
    import numpy as np

    for cell in cells:
        for token, _ in observation.ranked.get(cell, ()):
            tokens.id(token)
    table = np.full((len(cells), len(tokens.ids)), -math.log(FLOOR))
    for row, cell in enumerate(cells):
        ranked = observation.ranked.get(cell) or ((observation.tokens.get(cell), 1.0),)
        for token, p in ranked:
            table[row, tokens.ids[token]] = -math.log(max(p, FLOOR))
    return table


def fuse(observation, cells: list[str], groups: list[Candidates], tokens: Tokens, label, keep=None):
    """The candidate the camera most likely saw, or None when none explains the
    observation: ``groups`` of candidates, ``label(group, n)`` the reading of
    candidate ``n`` of a group (tokens in board order); ``keep``, per group, which
    candidates may be chosen at all (the hall sensors rule the others out)."""
    import numpy as np

    if not any(group.count for group in groups):
        return None
    # ids first: ``costs`` gives a column to every token known by then
    ids_of = [tokens.of(group.names) for group in groups]
    table = costs(observation, cells, tokens)
    totals = []
    for g, (group, ids) in enumerate(zip(groups, ids_of)):
        total = group.costs(table, ids)
        if keep is not None:
            total[~np.asarray(keep[g], dtype=bool)] = np.inf
        totals.append(total)
    total = np.concatenate(totals)
    starts = np.cumsum([0] + [group.count for group in groups])
    order = np.argsort(total, kind="stable")

    def reading(index) -> tuple:
        g = int(starts.searchsorted(index, side="right")) - 1
        return label(g, int(index - starts[g]))

    best = total[order[0]]
    if not best - table.min(axis=1).sum() <= FIT:  # inf: every candidate ruled out
        return None
    key, close = reading(order[0]), []
    for index in order[1:]:
        if total[index] - best >= MARGIN:
            break
        other = reading(index)
        if other != key:
            close.append(other)
    return Fused(key, (key, *close) if close else ())
