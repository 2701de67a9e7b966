"""The service as a whole, started as systemd starts it: seconds from `boardref serve`
starting to its panel answering HTTP (budget 0.8 s, no camera; and the CPU it took
to get there, which a busy machine does not inflate) and to systemd's READY=1
(budget 3 s); its peak resident memory once refereeing; and the CPU it
spends doing nothing, a plain table (no simulator, no camera) left alone for a
minute (budget 0.3 % of a core), during which the other starts are timed (it
sits idle beside them). Prints one JSON line.

CPU is the service's own (user + system time from /proc), so other work on the
machine does not inflate it; start-up times are on the wall clock and do.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import checkout  # noqa: F401  (the tests' helpers, below)
from smoke import SMOKE, only_waiting, sized

from tests.harness import free_port

RUNS = sized(5, 1)
#: how long the plain table is left alone to measure its idle CPU
IDLE_S = sized(60.0, 1.0)
#: at most how long after READY=1 the service may take to settle (the first lookups
#: indexed): the idle measurement and the peak memory wait for it
SETTLE_S = sized(10.0, 2.0)
#: settled: no CPU used over this long
QUIET_S = 0.3
BUDGET_HTTP_S = 0.8
BUDGET_READY_S = 3.0
BUDGET_RSS_MB = 150.0
BUDGET_IDLE_CPU_PERCENT = 0.3
GOAL_HTTP_S = 0.4
GOAL_IDLE_CPU_PERCENT = 0.1
TICKS = os.sysconf("SC_CLK_TCK")


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident memory so far (VmHWM)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    """User and system CPU the process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def settle(pid: int) -> None:
    """Wait until the service has done its start-up work (the first lookups indexed):
    it used no CPU for QUIET_S, or SETTLE_S went by."""
    deadline = time.monotonic() + SETTLE_S
    used = cpu_seconds(pid)
    while time.monotonic() < deadline:
        time.sleep(QUIET_S)
        now = cpu_seconds(pid)
        if now == used:
            return
        used = now


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1) as reply:
            return reply.status == 200
    except OSError:
        return False


class Started:
    """One service started as systemd starts it, settled: its process, its notify
    socket, and the seconds it took to answer HTTP and to send READY=1."""

    def __init__(self, folder: Path, n: int, sim: bool):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        path = folder / f"notify-{n}.sock"
        self.sock.bind(str(path))
        self.sock.setblocking(False)
        port = free_port()
        env = {**os.environ, "NOTIFY_SOCKET": str(path), "XDG_STATE_HOME": str(folder / f"s{n}")}
        command = [sys.executable, "-m", "boardref", "serve", "--port", str(port)]
        if sim:
            command.append("--sim")
        else:
            config = folder / f"plain-{n}.toml"
            config.write_text(f'[store]\npath = "{folder / f"plain-{n}.db"}"\n')
            command += ["--config", str(config)]
        self.found: dict = {}
        self.service = subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            self._until_up(f"http://127.0.0.1:{port}/", command, time.perf_counter())
            settle(self.service.pid)
        except BaseException:
            self.stop()
            raise

    def _until_up(self, url: str, command: list[str], start: float) -> None:
        found, service = self.found, self.service
        while "http_s" not in found or "ready_s" not in found:
            if service.poll() is not None:
                raise RuntimeError(f"`{' '.join(command[1:])}` ended with {service.returncode}")
            if time.perf_counter() - start > 60:
                raise TimeoutError("the service was not ready within 60 s")
            if "http_s" not in found and answers(url):
                found["http_s"] = time.perf_counter() - start
                found["http_cpu_s"] = cpu_seconds(service.pid)
            try:
                if self.sock.recv(200) == b"READY=1":
                    found["ready_s"] = time.perf_counter() - start
            except BlockingIOError:
                time.sleep(0.005)

    @property
    def pid(self) -> int:
        return self.service.pid

    def stop(self) -> dict:
        """Its figures, with its peak memory, once it is told to stop."""
        if self.service.poll() is None:
            self.found["rss_mb_peak"] = peak_rss_mb(self.service.pid)
        self.service.send_signal(signal.SIGTERM)
        self.service.wait(30)
        self.sock.close()
        return self.found


def started(folder: Path, n: int, sim: bool) -> Started:
    """A service ``Started``, tried again on another port when the one picked was
    taken meanwhile (the machine is shared: another process may bind it first)."""
    for attempt in range(3):
        try:
            return Started(folder, n * 3 + attempt, sim)
        except RuntimeError:
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        # the first start of all reads the code from the disk: a simulated table's,
        # so that every plain table is timed on a warm page cache
        sim = [started(folder, 0, sim=True).stop()]
        # The first plain table is left alone for IDLE_S, and the other starts are
        # timed meanwhile: its idle CPU is its own CPU time, which they do not add to,
        # and it sits idle beside them, so it does not slow their starts.
        quiet = started(folder, RUNS, sim=False)
        try:
            used, since = cpu_seconds(quiet.pid), time.monotonic()
            sim += [started(folder, n, sim=True).stop() for n in range(1, RUNS)]
            plain = [started(folder, RUNS + n, sim=False).stop() for n in range(1, RUNS)]
            only_waiting()  # the rest of the minute: the next bench may run beside it
            time.sleep(max(0.0, since + IDLE_S - time.monotonic()))
            idle_s = time.monotonic() - since
            idle = (cpu_seconds(quiet.pid) - used) / idle_s * 100
        finally:
            first = quiet.stop()
        plain.insert(0, first)
    http = [r["http_s"] for r in plain]
    http_cpu = [r["http_cpu_s"] for r in plain]
    ready = [r["ready_s"] for r in sim + plain]
    rss = max(r["rss_mb_peak"] for r in sim + plain)
    result = {
        "bench": "service",
        "plain_http_s_median": round(median(http), 3),
        "plain_http_s_max": round(max(http), 3),
        "plain_http_cpu_s_median": round(median(http_cpu), 3),
        "budget_http_s": BUDGET_HTTP_S,
        "goal_http_s": GOAL_HTTP_S,
        "sim_http_s_median": round(median([r["http_s"] for r in sim]), 3),
        "ready_s_median": round(median(ready), 3),
        "ready_s_max": round(max(ready), 3),
        "budget_ready_s": BUDGET_READY_S,
        "rss_mb_peak_after_start": round(rss, 1),
        "budget_rss_mb": BUDGET_RSS_MB,
        "idle_cpu_percent": round(idle, 3),
        "idle_seconds": round(idle_s, 1),
        "budget_idle_cpu_percent": BUDGET_IDLE_CPU_PERCENT,
        "goal_idle_cpu_percent": GOAL_IDLE_CPU_PERCENT,
        "runs": RUNS,
    }
    result["within_budget"] = not SMOKE and (
        max(http) <= BUDGET_HTTP_S
        and max(ready) <= BUDGET_READY_S
        and rss <= BUDGET_RSS_MB
        and idle <= BUDGET_IDLE_CPU_PERCENT
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
