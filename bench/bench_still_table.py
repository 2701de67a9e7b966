"""What a table costs while nobody plays: the CPU of a real ``boardref serve``
process over a still spell, as a share of one core.

- a camera table (``serve --sim`` with the synthetic camera) over a board nobody
  touches, per game the camera reads: the service and, beside it, the renderer
  process that stands in for its camera (a real camera's pipeline is not the
  service's, but a capture rate that drops while still saves both); the simulated
  hall-sensor board of ``--sim`` runs in a thread of the service and counts in its
  figure, resting between its heartbeats while nothing changes (about 0.1 %);
- a hall-sensor table with its board attached: the simulated board
  (``python -m firmware_bridge.sim``) on a pseudo-terminal as a process of its own,
  the way the board's microcontroller is, and the service linked to it.

Each figure is the CPU time (user + system, from ``/proc``) over the spell divided
by its length, repeated ``REPEATS`` times; the worst is the figure. Prints one JSON
line. ``--smoke`` takes a short spell once per table.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import checkout  # noqa: F401  (the tests' helpers, below)
import httpx
from bench_pi import children_of, cpu_seconds
from smoke import sized

from boardref.outputs.panel.access import hash_pin
from tests.harness import free_port

CAMERA_GAMES = sized(("sternhalma", "fang_den_hut"), ("sternhalma",))
#: seconds of a still spell measured, and how many times
CAMERA_SPELL_S = sized(20.0, 2.0)
HALL_SPELL_S = sized(60.0, 2.0)
REPEATS = sized(3, 1)
#: seconds a table may take to start and its camera to learn the board
WAIT_S = 120.0
#: seconds after the camera first reads a still board before the spell starts
SETTLE_S = 5.0
PIN = "2468"
BUDGET_CAMERA_PCT, GOAL_CAMERA_PCT = 3.0, 1.0
BUDGET_HALL_PCT, GOAL_HALL_PCT = 0.3, 0.1


def spell_pct(pids: list[int], seconds: float) -> list[float]:
    """Per process, the share of a core it took over ``seconds`` of nothing happening."""
    before = [cpu_seconds(pid) for pid in pids]
    time.sleep(seconds)
    return [round(100 * (cpu_seconds(pid) - b) / seconds, 3) for pid, b in zip(pids, before)]


def serve(config: Path, folder: Path, sim: bool) -> subprocess.Popen:
    env = {**os.environ, "XDG_STATE_HOME": str(folder), "XDG_CONFIG_HOME": str(folder)}
    command = [sys.executable, "-m", "boardref", "serve", "--config", str(config)]
    with open(folder / "service.log", "wb") as log:
        return subprocess.Popen(
            command + (["--sim"] if sim else []), env=env, stdout=subprocess.DEVNULL, stderr=log
        )


def wait_for(client: httpx.Client, service: subprocess.Popen, folder: Path, camera: bool):
    """Until the table answers, and with a camera, until it reads a still board."""
    deadline, logged_in, still = time.monotonic() + WAIT_S, False, 0
    while still < 2:
        if service.poll() is not None or time.monotonic() > deadline:
            why = (folder / "service.log").read_bytes()[-1500:].decode(errors="replace")
            raise RuntimeError(f"the table never became ready: {why}")
        time.sleep(0.5)
        try:
            if not logged_in:
                client.get("/api/health").raise_for_status()
                client.post("/api/referee/login", json={"pin": PIN}).raise_for_status()
                logged_in = True
            if not camera:
                return
            status = client.get("/api/diagnostics").json()["camera"]
        except httpx.HTTPError:
            continue
        still = still + 1 if status == "still" else 0
    time.sleep(SETTLE_S)


def table(folder: Path, config_text: str, camera: bool, spell: float) -> list[list[float]]:
    """``REPEATS`` spells of a still table, each the service's share of a core and
    its children's (the camera's renderer)."""
    port = free_port()
    config = folder / "config.toml"
    config.write_text(
        config_text
        + f'[store]\npath = "{folder / "table.db"}"\n'
        + f'[panel]\nport = {port}\nreferee_pin_hash = "{hash_pin(PIN)}"\n'
    )
    service = serve(config, folder, sim=camera)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            wait_for(client, service, folder, camera)
        pids = [service.pid, *children_of(service.pid)]
        return [spell_pct(pids, spell) for _ in range(REPEATS)]
    finally:
        service.terminate()
        service.wait(30)


def camera_table(name: str, scratch: Path) -> dict:
    folder = scratch / f"camera_{name}"
    folder.mkdir()
    config = f'[game]\nname = "{name}"\n[camera]\nsource = "synthetic"\n'
    spells = table(folder, config, True, CAMERA_SPELL_S)
    service = [s[0] for s in spells]
    renderer = [sum(s[1:]) for s in spells]
    return {
        "service_pct": max(service),
        "service_pct_each": service,
        "renderer_pct_each": [round(r, 3) for r in renderer],
    }


def hall_table(scratch: Path) -> dict:
    folder = scratch / "hall"
    folder.mkdir()
    device = folder / "pico"
    board = subprocess.Popen(
        [sys.executable, "-m", "firmware_bridge.sim", "--path", str(device)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
    )
    try:
        board.stdout.readline()  # its device path: the board is there
        config = f'[game]\nname = "sternhalma"\n[sensors.hall]\ndevice = "{device}"\n'
        spells = table(folder, config, False, HALL_SPELL_S)
    finally:
        board.terminate()
        board.wait(30)
    service = [s[0] for s in spells]
    return {"service_pct": max(service), "service_pct_each": service}


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-still-") as scratch:
        cameras = {name: camera_table(name, Path(scratch)) for name in CAMERA_GAMES}
        hall = hall_table(Path(scratch))
    print(
        json.dumps(
            {
                "bench": "still_table",
                "camera_spell_s": CAMERA_SPELL_S,
                "hall_spell_s": HALL_SPELL_S,
                "camera": cameras,
                "budget_camera_pct": BUDGET_CAMERA_PCT,
                "goal_camera_pct": GOAL_CAMERA_PCT,
                "hall": hall,
                "budget_hall_pct": BUDGET_HALL_PCT,
                "goal_hall_pct": GOAL_HALL_PCT,
            }
        )
    )


if __name__ == "__main__":
    main()
