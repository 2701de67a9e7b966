"""The size a bench runs at: quick by default, long with ``--full``, tiny with
``--smoke``.

``make bench`` runs every bench at its default size, quick where a bench has a
long form; ``--full`` runs that long form (more games, frames or moves, for figures
with narrower error bars). ``--smoke`` runs every step of a bench
on a handful of positions, games or frames, so a bench that no longer runs fails
the test suite (``tests/bench/test_benches_run.py``); its figures mean nothing and
nobody compares them with a budget.

A bench whose last part only waits (a process of its own left idle, its CPU time
measured) says so with ``only_waiting()``: ``make bench`` then starts the next bench
beside it.
"""

from __future__ import annotations

import sys
from typing import TypeVar

T = TypeVar("T")

#: whether this run is the test suite's smoke run
SMOKE = "--smoke" in sys.argv[1:]
#: whether this run is the long form (``--full``)
FULL = "--full" in sys.argv[1:]


def sized(full: T, smoke: T, quick: T | None = None) -> T:
    """``smoke`` for the smoke run; ``quick`` (when given) for a default run and
    ``full`` with ``--full``; ``full`` for a default run of a bench with no quick
    size."""
    if SMOKE:
        return smoke
    return quick if quick is not None and not FULL else full


#: the line a bench prints when from now on it only waits (``bench/run.py`` reads it)
ONLY_WAITING = "-- only waiting from here on"


def only_waiting() -> None:
    """Tell ``make bench`` that the rest of this bench only waits: the next may start."""
    print(ONLY_WAITING, flush=True)
