"""What machine the benchmarks ran on, so that figures from different machines can be
told apart: its processor, cores and vector instructions (OpenCV and numpy pick
their code by them, so a camera's readings may differ in the last digits), and the
CPU time of one fixed pure-Python workload, like an engine's (tuples, dicts, sets,
small integers): the fastest round and the median. Two machines' budgets compare
through the fastest; a median well above it says the machine was busy beneath the
benches (a virtual machine whose cores share their physical core with another's
runs the same work up to twice as long, and counts it all as CPU time). The
workload must never change, or the figures of earlier runs stop meaning anything.

``make bench`` prints it first (``bench/run.py``); ``python bench/machine.py`` prints
it alone, as one JSON line.
"""

from __future__ import annotations

import json
import os
import platform
import random
import time
from pathlib import Path

from boardref.runtime.loop_lag import percentile

#: rounds of the workload
ROUNDS = 11
#: the vector instructions worth naming, as /proc/cpuinfo spells them
VECTOR = ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512_vnni", "asimd", "sve")


def workload() -> int:
    """The fixed workload: random walks over a small graph, positions kept as tuples
    in a dict and a set, as a game's search keeps them."""
    pick = random.Random(21)
    edges = {n: tuple((n * k + 7) % 997 for k in (3, 5, 11, 13)) for n in range(997)}
    seen: dict[tuple[int, int], int] = {}
    visited: set[int] = set()
    steps = 0
    for walk in range(200):
        here, turn = walk % 997, 0
        for _ in range(400):
            here = edges[here][pick.randrange(4)]
            turn = (turn + here) & 3
            key = (here, turn)
            seen[key] = seen.get(key, 0) + 1
            visited.add(here ^ turn)
            steps += 1
    return steps + len(seen) + len(visited)


def reference_cpu_ms() -> tuple[float, float]:
    """CPU milliseconds of ``workload``: the fastest of ``ROUNDS`` and their median."""
    rounds = []
    for _ in range(ROUNDS):
        start = time.process_time()
        workload()
        rounds.append((time.process_time() - start) * 1000)
    return round(min(rounds), 1), round(percentile(rounds, 0.5), 1)


def processor() -> tuple[str, list[str]]:
    """The processor's model name and the vector instructions it has (Linux's
    /proc/cpuinfo: its first processor's fields, as x86 and Arm name them)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        text = ""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    model = fields.get("model name") or fields.get("Model") or fields.get("Hardware")
    flags = set((fields.get("flags") or fields.get("Features") or "").split())
    return model or platform.processor() or platform.machine(), [
        name for name in VECTOR if name in flags
    ]


def machine() -> dict:
    """The bench's JSON line."""
    model, vector = processor()
    best, median = reference_cpu_ms()
    return {
        "bench": "machine",
        "processor": model,
        "cores": os.cpu_count(),
        "vector_instructions": vector,
        "python": platform.python_version(),
        "reference_cpu_ms_best": best,
        "reference_cpu_ms_median": median,
    }


if __name__ == "__main__":
    print(json.dumps(machine()))
