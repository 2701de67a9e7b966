"""What a hostile LAN client costs a running table (`boardref serve --sim`), and
whether it gets through.

First the costs: the time and the service's CPU to answer an 11.6 MB JSON object of
many keys, and the size of that answer; and, while PIN guesses with rotating
X-Forwarded-For headers arrive, how many are refused and the slowest /api/health
answer. Then every attack area (``bench/hardening_<area>.py``, see ``tally.py``):
tried / held / failed per area, and what got through. Prints one JSON line per part
with the machine's load average beside the costs (they are only comparable on one
machine, side by side); exits 1 when any attack got through.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import checkout  # noqa: F401  (the tests' helpers, below)
import httpx
from smoke import sized
from tally import Tally

from tests.harness import serve_sim

#: the body's size, 11.6 MB, and the keys it is cut from; the smoke run's body is
#: still far over the panel's limit
BODY_BYTES = sized(11_600_000, 64_000)
BODY_KEYS = sized(1_000_000, 6_000)
#: PIN guesses sent; the smoke run's are still enough to be refused (429)
GUESSES = sized(40, 8)


def cpu_seconds(pid: int) -> float:
    """The user and system CPU time of a process so far (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def huge_object() -> bytes:
    many = b"{" + b", ".join(b'"k%d": 0' % n for n in range(BODY_KEYS)) + b"}"
    return many[:BODY_BYTES].rsplit(b",", 1)[0] + b"}"


def measure(url: str, pid: int) -> dict:
    body = huge_object()
    cpu, started = cpu_seconds(pid), time.perf_counter()
    try:
        answer = httpx.post(
            f"{url}/api/takeback",
            content=body,
            headers={"content-type": "application/json"},
            timeout=300,
        )
        status, size = answer.status_code, len(answer.content)
    except httpx.HTTPError as exc:  # the server answered and closed while we sent
        status, size = type(exc).__name__, 0
    huge = {
        "status": status,
        "answer_bytes": size,
        "ms": round((time.perf_counter() - started) * 1000, 1),
        "service_cpu_ms": round((cpu_seconds(pid) - cpu) * 1000, 1),
    }
    slowest, stop = [0.0], threading.Event()

    def watch_health() -> None:
        with httpx.Client(base_url=url, timeout=30) as client:
            while not stop.is_set():
                before = time.perf_counter()
                client.get("/api/health")
                slowest[0] = max(slowest[0], time.perf_counter() - before)
                time.sleep(0.01)

    watcher = threading.Thread(target=watch_health)
    watcher.start()
    answers: dict[str, int] = {}
    with httpx.Client(base_url=url, timeout=30) as client:
        for n in range(GUESSES):
            code = client.post(
                "/api/referee/login",
                json={"pin": f"{n:04d}"},
                headers={"X-Forwarded-For": f"10.9.{n // 250}.{n % 250}"},
            ).status_code
            answers[str(code)] = answers.get(str(code), 0) + 1
    stop.set()
    watcher.join()
    return {
        "huge_body": huge,
        "pin_guesses": answers,
        "health_max_ms_during_guesses": round(slowest[0] * 1000, 1),
    }


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="boardref-bench-hardening-") as scratch:
        service, url = serve_sim(scratch)
        try:
            result = measure(url, service.pid)
        finally:
            service.terminate()
            try:
                service.wait(30)
            except subprocess.TimeoutExpired:  # still busy with the body: stop it
                service.kill()
                service.wait(30)
    result["load_average"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps({"bench": "hardening", **result}), flush=True)
    tallies = attack_areas()
    print(f"{'area':<14} {'tried':>6} {'held':>6} {'failed':>6}")
    for tally in tallies:
        print(f"{tally.area:<14} {tally.tried:>6} {tally.held:>6} {tally.failed:>6}")
    areas = {tally.area: tally.to_json() for tally in tallies}
    print(json.dumps({"bench": "hardening", "areas": areas}), flush=True)
    if any(tally.failed for tally in tallies):
        sys.exit(1)


def attack_areas() -> list[Tally]:
    """Every ``hardening_<area>.py`` beside this file, each run in a scratch folder of
    its own, in name order."""
    tallies = []
    for module in sorted(Path(__file__).parent.glob("hardening_*.py")):
        area = importlib.import_module(module.stem)
        with tempfile.TemporaryDirectory(prefix=f"boardref-{module.stem}-") as scratch:
            tallies.append(area.attack(Path(scratch)))
    return tallies


if __name__ == "__main__":
    main()
