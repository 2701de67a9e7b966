"""Every benchmark still runs: each `bench/bench_*.py` in its smoke mode (tiny sizes,
no budget judged) must finish and print its one JSON line. The figures are not
looked at; `make bench` measures them.

Each runs as ``__main__`` in a process of its own, forked from one that has imported
what the scripts import (``smoke_host.py``): the imports are paid once, not once a
bench."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.process

BENCH = Path(__file__).resolve().parents[2] / "bench"
#: how long a bench's smoke run may take (seconds)
WAIT = 180


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    """The process the smoke runs are forked from, its imports done."""
    home = tmp_path_factory.mktemp("host")
    process = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("smoke_host.py")), str(BENCH)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=home,
        env=env(home),
    )
    yield process
    process.stdin.close()
    process.wait(WAIT)


def env(home: Path) -> dict:
    return {"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "HOME": str(home)}


def answer(process: subprocess.Popen, wait: float) -> int:
    """The next number the host answers, waiting up to ``wait`` seconds for it."""
    with selectors.DefaultSelector() as ready:
        ready.register(process.stdout, selectors.EVENT_READ)
        if not ready.select(wait):
            raise TimeoutError
    line = process.stdout.readline()
    if not line:
        pytest.fail(f"the smoke runs' host ended with {process.wait()}")
    return int(line)


def smoke_run(host: subprocess.Popen, script: Path, folder: Path) -> int:
    """``script --smoke`` run in ``folder`` (its output in ``stdout`` and ``stderr``
    there): its exit code."""
    asked = {"script": str(script), "folder": str(folder), "env": env(folder)}
    host.stdin.write(json.dumps(asked) + "\n")
    host.stdin.flush()
    pid = answer(host, WAIT)
    try:
        return answer(host, WAIT)
    except TimeoutError:
        os.kill(pid, signal.SIGKILL)
        answer(host, WAIT)
        pytest.fail(f"{script.name} --smoke took over {WAIT} s")


@pytest.mark.parametrize("script", sorted(BENCH.glob("bench_*.py")), ids=lambda p: p.stem)
def test_bench_runs_in_smoke_mode(host, script: Path, tmp_path: Path):
    code = smoke_run(host, script, tmp_path)
    assert code == 0, (tmp_path / "stderr").read_text()[-3000:]
    result = json.loads((tmp_path / "stdout").read_text().strip().splitlines()[-1])
    assert result["bench"] == script.stem.removeprefix("bench_")
    assert result.get("within_budget") in (None, False)  # a smoke run judges no budget
