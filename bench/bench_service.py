"""The service as a whole: seconds from `boardref serve --sim` starting to systemd's
READY=1 (budget 3 s), and its resident memory once refereeing (budget 200 MB).
Prints one JSON line."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from boardref.harness import free_port

RUNS = 5
BUDGET_READY_S = 3.0
BUDGET_RSS_MB = 200.0


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def one_run(folder: Path, n: int) -> tuple[float, float]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    path = folder / f"notify-{n}.sock"
    sock.bind(str(path))
    sock.settimeout(30)
    env = {**os.environ, "NOTIFY_SOCKET": str(path), "XDG_STATE_HOME": str(folder / f"s{n}")}
    start = time.perf_counter()
    service = subprocess.Popen(
        [sys.executable, "-m", "boardref", "serve", "--sim", "--port", str(free_port())],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while sock.recv(200) != b"READY=1":
            pass
        ready = time.perf_counter() - start
        time.sleep(2.0)  # refereeing: the link is up, the first lookups are indexed
        memory = rss_mb(service.pid)
    finally:
        service.send_signal(signal.SIGTERM)
        service.wait(30)
        sock.close()
    return ready, memory


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        runs = [one_run(Path(scratch), n) for n in range(RUNS)]
    ready = sorted(r for r, _ in runs)
    memory = max(m for _, m in runs)
    print(
        json.dumps(
            {
                "bench": "service",
                "ready_s_median": round(ready[len(ready) // 2], 3),
                "ready_s_max": round(ready[-1], 3),
                "rss_mb_max": round(memory, 1),
                "budget_ready_s": BUDGET_READY_S,
                "budget_rss_mb": BUDGET_RSS_MB,
                "within_budget": ready[-1] <= BUDGET_READY_S and memory <= BUDGET_RSS_MB,
                "runs": RUNS,
            }
        )
    )


if __name__ == "__main__":
    main()
