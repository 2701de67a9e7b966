"""`make bench`'s description of the machine (``bench/machine.py``): the fixed
workload stays the same work, and the line names the processor and its times."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from machine import machine, workload  # noqa: E402

#: what the workload returns: a change to it makes every earlier figure meaningless
WORKLOAD_RESULT = 84988


def test_the_reference_workload_is_the_same_work_as_it_always_was():
    assert workload() == WORKLOAD_RESULT


@pytest.mark.slow
def test_the_machine_line_names_the_processor_and_the_fastest_and_median_round():
    line = machine()
    assert line["bench"] == "machine" and line["processor"] and line["cores"] >= 1
    assert 0 < line["reference_cpu_ms_best"] <= line["reference_cpu_ms_median"]
