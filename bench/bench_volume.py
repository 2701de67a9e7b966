"""The test suite's random tests at their full volume: many random games of every
engine, many generated inputs to the engines, the panel and the bridge's framing, and
many runs of ``boardref simulate`` killed at a random moment.
Prints one JSON line: the tests run, the ones that failed, and their CPU time.

The suite runs each of these tests on a few games or examples, enough to reach every
event and error it checks (``tests/volume.py``); this bench runs the very same tests
with ``BOARDREF_TEST_VOLUME=full``, many more games and examples, for the confidence
that only volume gives. ``--smoke`` runs one of them.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from smoke import SMOKE, sized

ROOT = Path(__file__).resolve().parents[1]
#: the tests whose volume ``tests/volume.py`` sizes, in two lanes of about equal CPU
#: that run side by side (a pytest each): nothing here is timed, so they may share the
#: machine's two cores
LANES = sized(
    (
        [
            "tests/engines/test_random_games.py",
            "tests/engines/test_records.py",
            "tests/boardref/runtime/test_service.py::test_sigkill_at_any_moment_never_loses_the_game",
        ],
        [
            "tests/engines/test_bad_input.py",
            "tests/boardref/outputs/panel/test_openapi.py",
            "tests/boardref/outputs/panel/test_fuzz_panel.py",
            "tests/firmware_bridge/test_bridge_protocol.py",
            "tests/boardref/referee/test_no_dead_ends.py",
        ],
    ),
    (
        [
            "tests/engines/test_random_games.py::"
            "test_random_games_keep_every_invariant[catch_the_hare-default]"
        ],
    ),
)


def run_lanes(scratch: Path) -> tuple[list[ET.Element], list[str]]:
    """Every lane's pytest at the full volume, side by side: the test cases of their
    reports, and the lanes that ended with an error, each with its exit code."""
    reports = [scratch / f"lane-{n}.xml" for n in range(len(LANES))]
    lanes = [
        subprocess.Popen(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
            + [f"--junitxml={report}", *tests],
            cwd=ROOT,
            env={**os.environ, "BOARDREF_TEST_VOLUME": "full"},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for report, tests in zip(reports, LANES)
    ]
    cases, broken = [], []
    for n, (lane, report) in enumerate(zip(lanes, reports)):
        output, _ = lane.communicate()
        print(output[-3000:], file=sys.stderr)
        if lane.returncode:
            broken.append(f"lane {n}: pytest ended with {lane.returncode}")
        if report.exists():  # pytest writes none when it cannot start
            cases += ET.parse(report).getroot().iter("testcase")
    return cases, broken


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="boardref-bench-volume-") as scratch:
        started = time.perf_counter()
        cases, broken = run_lanes(Path(scratch))
        wall = time.perf_counter() - started
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    failed = broken + [
        f"{case.get('classname')}::{case.get('name')}"
        for case in cases
        if case.find("failure") is not None or case.find("error") is not None
    ]
    print(
        json.dumps(
            {
                "bench": "volume",
                "tests": len(cases),
                "failed": failed or None,
                "lanes": len(LANES),
                "cpu_s": round(used.ru_utime + used.ru_stime, 1),
                "wall_s": round(wall, 1),
                "within_budget": not SMOKE and not failed,
            }
        )
    )


if __name__ == "__main__":
    main()
