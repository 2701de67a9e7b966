"""Puts this checkout's root on the import path, so that a bench run as a script
(``python bench/bench_fleet.py``) can use the tests' helpers (``tests/harness.py``:
free ports, a simulated table, Chromium, the café broker). Import it before them."""

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:
    sys.path.insert(1, ROOT)
