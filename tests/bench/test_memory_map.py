"""`bench/memory_map.py`: a process's resident memory split per library into
file-backed and its own adds up to what the kernel counts resident."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import memory_map  # noqa: E402


def rollup_mb(field: str) -> float:
    for line in Path("/proc/self/smaps_rollup").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no {field} in smaps_rollup")


def test_the_split_adds_up_to_the_resident_memory_and_names_the_libraries():
    held = np.ones(4 << 20)  # 32 MB of this process's own, written
    rows = memory_map.by_library(os.getpid())
    whole = memory_map.totals(rows)
    assert abs(whole["file"] + whole["own"] - rollup_mb("Rss")) < 2.0
    assert whole["own"] >= held.nbytes / 2**20
    assert rows["numpy"]["file"] > 0, "numpy's code, mapped from site-packages"
    assert rows["[anon]"]["own"] >= held.nbytes / 2**20 - 1
    assert list(rows) == sorted(rows, key=lambda n: -(rows[n]["file"] + rows[n]["own"]))


def test_a_library_is_named_by_its_package_under_site_packages():
    assert memory_map.library("/x/lib/python3.11/site-packages/cv2/cv2.abi3.so") == "cv2"
    libs = "/x/site-packages/opencv_python_headless.libs/libavcodec-c4204469.so.62"
    assert memory_map.library(libs) == "opencv_python_headless.libs"
    assert memory_map.library("/usr/lib/x86_64-linux-gnu/libc.so.6") == (
        "/usr/lib/x86_64-linux-gnu/libc.so.6"
    )
    assert memory_map.library("") == "[anon]"
