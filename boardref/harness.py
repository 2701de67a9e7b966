"""Helpers the simulator, the tests and the benchmarks share.

Percentiles are taken over every sample as measured: no outlier is dropped, so a
busy machine shows in p99.
"""

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, nearest rank.

    >>> percentile([5.0, 1.0, 3.0, 2.0, 4.0], 0.5)
    3.0
    >>> percentile([1.0, 2.0], 0.99)
    2.0
    """
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def serve_sim(state_dir: str, wait: float = 60.0) -> tuple[subprocess.Popen, str]:
    """`boardref serve --sim` on a free port, its event log under ``state_dir``, once
    its panel answers: the process and the panel's address. The code run is the one
    on ``sys.path`` (set PYTHONPATH to measure another tree)."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "boardref", "serve", "--sim", "--port", str(port)],
        env={**os.environ, "XDG_STATE_HOME": state_dir},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/api/health", timeout=1):
                return process, url
        except (urllib.error.URLError, OSError):
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"boardref serve --sim did not answer within {wait:.0f} s")
