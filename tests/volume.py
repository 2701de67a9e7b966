"""How many random games or generated examples a test runs: a few in the test suite,
enough to reach every rule event and error it checks, and the full volume when
``bench/bench_volume.py`` runs the same tests (``BOARDREF_TEST_VOLUME=full``)."""

from __future__ import annotations

import os

#: whether the tests run at their full volume (``bench/bench_volume.py`` sets it)
FULL = os.environ.get("BOARDREF_TEST_VOLUME") == "full"


def volume(suite: int, full: int) -> int:
    """``full`` when the tests run at their full volume, else ``suite``."""
    return full if FULL else suite
