"""The size a bench runs at: as measured, or tiny with ``--smoke``.

``--smoke`` runs every step of a bench on a handful of positions, games or frames,
so a bench that no longer runs fails the test suite (``tests/test_bench_smoke.py``);
its figures mean nothing and nobody compares them with a budget.
"""

from __future__ import annotations

import sys
from typing import TypeVar

T = TypeVar("T")

#: whether this run is the test suite's smoke run
SMOKE = "--smoke" in sys.argv[1:]


def sized(full: T, smoke: T) -> T:
    """``full`` for a measuring run, ``smoke`` for the smoke run."""
    return smoke if SMOKE else full
