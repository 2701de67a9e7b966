"""The camera's observation against the readings the rules allow: which legal outcome
(or the unchanged position) the camera most likely saw.

Each cell's ranked readings give a probability per token; a candidate reading costs
the sum of ``-log p`` over its cells. The cheapest wins only when it explains the
observation (``FIT``) and beats the next different candidate clearly (``MARGIN``);
near ties go to the players to choose, and an observation no candidate explains is
passed on as seen, so the referee can say what is wrong. Hall presence, when fitted,
rules out every candidate it contradicts before the camera is weighed. It weighs
readings only; what they mean is the referee's business.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: the probability given to a token the camera did not rank for a cell
FLOOR = 1e-6
#: the winner must be this many times likelier than the next different candidate
MARGIN = math.log(1e3)
#: a candidate costing this much more than the camera's own best guess explains
#: nothing: one cell read surely otherwise, and another in more than a little doubt,
#: may disagree with it (at 1.5 a hare carried off its disk onto an empty cell was taken
#: for the unchanged position: its origin, read as the bare disk at p 0.999, cost 6.9,
#: the cell it stood on, read surely, 13.8)
FIT = 1.25 * -math.log(FLOOR)
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
        return np.array([self.id(token) for token in names], dtype=np.int32)


def token_rows(keys, cells: int) -> tuple[np.ndarray, tuple]:
    """Candidate keys (each a tuple of ``cells`` tokens) as rows of token ids, and the
    tokens those ids stand for, in id order. Pure, so it runs where the successors
    are indexed (a worker thread in the service), not in the verdict."""
    names: dict[str | None, int] = {}
    rows = np.zeros((len(keys), cells), dtype=np.int32)
    for n, key in enumerate(keys):
        rows[n] = [names.setdefault(token, len(names)) for token in key]
    return rows, tuple(names)


def seen_key(observation, cells: list[str]) -> tuple:
    """The camera's own best guess, in board order."""
    return tuple(observation.tokens.get(cell) for cell in cells)


def is_sure(observation) -> bool:
    """Whether every cell was read sure enough to take the reading as it is, when
    it is a candidate."""
    return min(observation.confidence.values(), default=1.0) >= SURE


def costs(observation, cells: list[str], tokens: Tokens) -> np.ndarray:
    """``-log p`` per cell (rows) and token id (columns); unranked tokens get FLOOR."""
    for cell in cells:
        for token, _ in observation.ranked.get(cell, ()):
            tokens.id(token)
    table = np.full((len(cells), len(tokens.ids)), -math.log(FLOOR))
    for row, cell in enumerate(cells):
        ranked = observation.ranked.get(cell) or ((observation.tokens.get(cell), 1.0),)
        for token, p in ranked:
            table[row, tokens.ids[token]] = -math.log(max(p, FLOOR))
    return table


def fuse(observation, cells: list[str], keys: list[tuple], rows: np.ndarray, tokens: Tokens):
    """The candidate (one of ``keys``, whose token ids are ``rows``) the camera most
    likely saw, or None when none explains the observation. ``tokens`` must be the
    table ``rows`` were made with."""
    if not keys:
        return None
    # ``costs`` only adds tokens, so every id in ``rows`` has its column
    table = costs(observation, cells, tokens)
    total = table[np.arange(len(cells)), rows].sum(axis=1)
    order = np.argsort(total, kind="stable")
    best = total[order[0]]
    if best - table.min(axis=1).sum() > FIT:
        return None
    close = []
    for index in order[1:]:
        if total[index] - best >= MARGIN:
            break
        if keys[index] != keys[order[0]]:
            close.append(keys[index])
    key = keys[order[0]]
    return Fused(key, (key, *close) if close else ())
