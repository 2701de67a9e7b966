"""Fleet speed on a mosquitto of our own (loopback): how many events per second one
table gets acknowledged by the broker, and the time from a move at a table to the
café dashboard's page holding it (p50/p99). Prints one JSON line.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import websockets  # noqa: E402
from smoke import sized  # noqa: E402
from stats import percentile  # noqa: E402

from boardref.config import load_config  # noqa: E402
from boardref.service import Service  # noqa: E402

EVENTS = sized(2000, 20)
LATENCY_SAMPLES = sized(100, 3)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port: int) -> None:
    for _ in range(300):
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port}")


def table(folder: Path, url: str, name: str) -> Service:
    config = load_config(
        **{
            "store.path": folder / f"{name}.db",
            "game.name": "catch_the_hare",
            "fleet.url": url,
            "fleet.table_id": name,
        }
    )
    service = Service(config)
    service.start(asyncio.new_event_loop())
    return service


def events_per_second(service: Service) -> float:
    """Queue EVENTS moves' worth of events and time until the outbox is empty."""
    referee = service.referee
    start = time.perf_counter()
    queued = 0
    while queued < EVENTS:
        if referee.phase == "over":
            referee.new_game("catch_the_hare")
        referee.play(str(referee.game.legal_moves(referee.positions[-1])[0]))
        queued += 1
    while service.store.size()["outbox"]:
        time.sleep(0.005)
    return EVENTS / (time.perf_counter() - start)


async def dashboard_latency(service: Service, dashboard_port: int) -> list[float]:
    referee = service.referee
    samples = []
    async with websockets.connect(f"ws://127.0.0.1:{dashboard_port}/ws", max_size=2**22) as ws:
        await ws.recv()
        for _ in range(LATENCY_SAMPLES):
            if referee.phase == "over":
                referee.new_game("catch_the_hare")
            target = referee.published.plies + 1
            sent = time.perf_counter()
            referee.play(str(referee.game.legal_moves(referee.positions[-1])[0]))
            while True:
                rows = json.loads(await ws.recv())
                row = next((r for r in rows if r["table"] == "bench"), None)
                if row and (row["state"] or {}).get("plies") == target:
                    break
            samples.append((time.perf_counter() - sent) * 1000)
    return samples


def main() -> None:
    mosquitto = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        port, dashboard_port = free_port(), free_port()
        (folder / "mosquitto.conf").write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\n")
        broker = subprocess.Popen(
            [mosquitto, "-c", str(folder / "mosquitto.conf")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        dashboard = None
        service = None
        try:
            wait_for_port(port)
            url = f"mqtt://127.0.0.1:{port}"
            dashboard = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "boardref",
                    "fleet",
                    "--mqtt",
                    url,
                    "--port",
                    str(dashboard_port),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            wait_for_port(dashboard_port)
            service = table(folder, url, "bench")
            while not service.reporter.connected:
                time.sleep(0.01)
            rate = events_per_second(service)
            latency = asyncio.run(dashboard_latency(service, dashboard_port))
        finally:
            if service is not None:
                service.close()
            for process in (dashboard, broker):
                if process is not None:
                    process.terminate()
                    process.wait(10)
    print(
        json.dumps(
            {
                "bench": "fleet",
                "events_per_s_one_table": round(rate),
                "events": EVENTS,
                "table_to_dashboard_ms_p50": round(percentile(latency, 0.5), 2),
                "table_to_dashboard_ms_p99": round(percentile(latency, 0.99), 2),
                "samples": len(latency),
                "note": "each event waits for the broker's PUBACK before the next leaves, in order",
            }
        )
    )


if __name__ == "__main__":
    main()
