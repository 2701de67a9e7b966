"""The Pi budget bench's limits (``bench/confine.py``): a process over its memory
limit is stopped, one within it runs, and the way used is said."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from confine import CGROUPS, confine  # noqa: E402

pytestmark = pytest.mark.process

#: a process that takes 200 MB and says where it may run
GREEDY = "import os; b = bytearray(200 << 20); print(sorted(os.sched_getaffinity(0)))"


#: a process that keeps two cores busy until it has had a tenth of a second of CPU
#: time (however busy the machine, and however long that takes under its quota)
TWO_BUSY_THREADS = (
    "import hashlib, threading, time\n"
    "def spin():\n"
    "    while time.process_time() < 0.1:\n"
    "        hashlib.sha256(bytes(1 << 20)).digest()\n"
    "threads = [threading.Thread(target=spin) for _ in range(2)]\n"
    "[t.start() for t in threads]; [t.join() for t in threads]\n"
)


#: the cgroup way writes a memory and a cpu group of its own
NEEDS_CGROUPS = pytest.mark.skipif(
    os.geteuid() != 0 or not any((CGROUPS / p).exists() for p in ("memory", "cgroup.controllers")),
    reason="cgroups need root and the memory and cpu controllers",
)


def _run(way: str, code: str, cpu_quota: int = 100, period_us: int = 100_000):
    held = confine([sys.executable, "-c", code], "100M", cpu_quota, way, period_us)
    try:
        done = subprocess.run(held.command, preexec_fn=held.preexec, capture_output=True)
        return done, held.figures()
    finally:
        held.close()


def _run_in_cgroup(code: str, cpu_quota: int = 100, period_us: int = 100_000):
    """``_run`` in a cgroup of its own; skipped where none can be written."""
    done, held = _run("cgroup", code, cpu_quota, period_us)
    if held["how"] == "none":
        pytest.skip(f"no cgroup can be written here: {held['notes']}")
    return done, held


def test_an_address_space_limit_stops_a_process_over_it_and_it_keeps_to_one_core():
    done, held = _run("rlimit", GREEDY)
    assert done.returncode != 0 and b"MemoryError" in done.stderr
    assert held["how"] == "rlimit" and "RLIMIT_AS=100M (address space)" in held["applied"]
    within, _ = _run("rlimit", GREEDY.replace("200 << 20", "1 << 20"))
    assert within.returncode == 0 and len(json.loads(within.stdout)) == 1


@NEEDS_CGROUPS
def test_a_cgroup_stops_a_process_over_its_memory_and_counts_the_kill():
    done, held = _run_in_cgroup(GREEDY)
    assert done.returncode == -9 and held["oom_kills"] == 1
    name = f"boardref-bench-{os.getpid()}"
    left = [p for p in (CGROUPS / "memory" / name, CGROUPS / "cpu" / name, CGROUPS / name)]
    assert not any(p.exists() for p in left), "the group is removed"


@NEEDS_CGROUPS
def test_a_group_that_uses_up_its_cpu_quota_is_counted_each_period_it_stood_still():
    # hashing a large buffer lets go of the interpreter: two threads want two cores,
    # forty times a quota of 5 % of one, which even a machine busy with other work
    # gives them, so the group stands still in most periods
    done, held = _run_in_cgroup(TWO_BUSY_THREADS, cpu_quota=5)
    assert done.returncode == 0, done.stderr
    assert held.get("cpu_periods", 0) >= 3 and held["cpu_periods_throttled"] >= 2, held


@NEEDS_CGROUPS
def test_a_short_period_holds_the_group_in_many_short_slices():
    # the Pi bench's quarter of a core in 10 ms periods: a tenth of a second of work
    # wanting two cores stands still in dozens of them
    done, held = _run_in_cgroup(TWO_BUSY_THREADS, cpu_quota=25, period_us=10_000)
    assert done.returncode == 0, done.stderr
    assert any("2500" in limit and "10000" in limit for limit in held["applied"]), held
    assert held["cpu_periods_throttled"] >= 20, held


@pytest.mark.skipif(Path("/run/systemd/system").exists(), reason="systemd runs this machine")
def test_a_way_that_is_not_there_is_said_and_the_process_runs_unlimited():
    held = confine(["true"], "100M", 100, "systemd")
    assert held.how == "none" and held.applied == []
    assert any("systemd-run" in note for note in held.notes), held.notes
    assert "no limit could be set: the process runs unlimited" in held.notes
