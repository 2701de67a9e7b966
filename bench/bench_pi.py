"""The Pi budget: the whole service, `boardref serve --sim`, held to a Raspberry Pi's
memory and CPU, plays a 6-player Sternhalma game through its simulated board (pieces
lifted and put down on the virtual board, the simulated MCU scanning them, the real
link, referee and panel), as a hand does. Reports per game: peak resident memory,
the panel's answer time while it plays (p99: an event loop that stalls answers
late), board-link drops, and the service's CPU per move. Prints one JSON line.

The limits are set with `systemd-run --scope -p MemoryMax=... -p CPUQuota=...`
where systemd runs the machine; elsewhere (a container without systemd) the service
runs unlimited and the figures are compared with the limits instead ("limited":
false in the output).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
from smoke import SMOKE, sized

from boardref.harness import free_port, percentile
from boardref.panel.access import hash_pin
from engines import load_game

#: Hakenschlagen for five is not played here yet: its turns carried out use by use
#: on the virtual board end, now and then, in a board that matches no legal move
#: (the table judges the half-made turn meanwhile); bench_referee times its verdicts
GAMES = (("sternhalma", 6),)
#: moves played a game (a whole Sternhalma game for six is several hundred)
MOVES = sized(120, 1)
SEED = 21
PIN = "2121"
#: what a Pi 4 with a kiosk browser beside it leaves the service
MEMORY_MAX = "300M"
CPU_QUOTA = "100%"
BUDGET_RSS_MB = 150.0
BUDGET_ANSWER_MS_P99 = 50.0
BUDGET_LINK_DROPS = 0
SETTLE_MS = 150
PROBE_S = 0.05
WAIT = 30.0
TICKS = os.sysconf("SC_CLK_TCK")


def limited(command: list[str]) -> tuple[list[str], bool]:
    """``command`` under systemd-run's limits when systemd can run it here."""
    runner = shutil.which("systemd-run")
    if runner is not None:
        trial = [runner, "--scope", "--quiet", "-p", f"MemoryMax={MEMORY_MAX}", "true"]
        if subprocess.run(trial, capture_output=True).returncode == 0:
            limits = ["-p", f"MemoryMax={MEMORY_MAX}", "-p", f"CPUQuota={CPU_QUOTA}"]
            return [runner, "--scope", "--quiet", *limits, *command], True
    return command, False


def service_pid(root: int) -> int:
    """The Python process of the service: ``root`` itself, or its child under systemd-run."""
    children = Path(f"/proc/{root}/task/{root}/children")
    found = children.read_text().split() if children.exists() else []
    return int(found[0]) if found else root


def proc_status(pid: int, field: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


class Probe(threading.Thread):
    """Asks the panel for its health every ``PROBE_S`` and keeps the answer times."""

    def __init__(self, url: str):
        super().__init__(daemon=True)
        self.url, self.times, self.done = url, [], threading.Event()

    def run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=WAIT) as client:
            while not self.done.wait(PROBE_S):
                start = time.perf_counter()
                client.get("/api/health")
                self.times.append((time.perf_counter() - start) * 1000)


class Hands:
    """A player's hands on the virtual board, through the panel's simulator API."""

    def __init__(self, client: httpx.Client, game):
        self.client, self.game = client, game

    def state(self):
        record = self.client.get("/api/position").json()["record"]
        return self.game.from_json(record)

    def shown(self) -> dict:
        return self.client.get("/api/state").json()

    def lift(self, cell: str) -> None:
        self._act("/api/sim/lift", {"cell": cell})

    def take(self, token: str) -> None:
        self._act("/api/sim/lift", {"off": "supply", "token": token})

    def place(self, cell: str) -> None:
        self._act("/api/sim/place", {"cell": cell})

    def _act(self, path: str, body: dict) -> None:
        answer = self.client.post(path, json=body)
        if answer.status_code != 200:
            raise RuntimeError(f"{path} {body}: {answer.status_code} {answer.text}")

    def carry_out(self, state, move) -> None:
        """Move the pieces as the move says: a Hakenschlagen turn use by use, a
        Sternhalma piece from its start to its end."""
        uses = getattr(move, "uses", None)
        if uses is None:
            self.lift(move.path[0])
            self.place(move.path[-1])
            return
        cells = [c.id for c in self.game.board.cells]
        hare, fox = cells[state.hares[state.turn]], cells[state.fox]
        for use in uses:
            if use.kind == "fox":
                self.lift(fox)
                fox = use.to
            elif use.kind == "molehill":
                self.lift(use.source) if use.source is not None else self.take("molehill")
            else:
                self.lift(hare)
                hare = use.to
            self.place(use.to)

    def until_taken(self, plies: int, after) -> None:
        """Wait until the table has taken the move: confirm it when it waits for a
        confirm, choose it when several fit the board."""
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            shown = self.shown()
            if shown["plies"] > plies:
                return
            if shown["phase"] == "ambiguous":
                for text in shown["candidates"]:
                    if self._leads(text, after):
                        self.client.post("/api/choose", json={"move": text})
                        break
            elif shown["can_confirm"]:
                self.client.post("/api/confirm", json={})
            time.sleep(SETTLE_MS / 1000)
        raise TimeoutError(f"the table did not take the move: {shown['message']}")

    def _leads(self, text: str, after) -> bool:
        state = self.state()
        try:
            return self.game.apply(state, self.game.parse_move(state, text)) == after
        except Exception:  # another candidate's text
            return False


def play(name: str, players: int, folder: Path) -> dict:
    port = free_port()
    config = folder / f"{name}.toml"
    config.write_text(
        f'[game]\nname = "{name}"\nplayers = {players}\n'
        f'[store]\npath = "{folder / (name + ".db")}"\n'
        f"[sensors]\nsettle_ms = {SETTLE_MS}\n"
        f'[panel]\nport = {port}\nreferee_pin_hash = "{hash_pin(PIN)}"\n'
    )
    command, is_limited = limited(
        [sys.executable, "-m", "boardref", "serve", "--sim", "--config", str(config)]
    )
    env = {**os.environ, "XDG_STATE_HOME": str(folder / name)}
    service = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url, game, pick = f"http://127.0.0.1:{port}", load_game(name, players), random.Random(SEED)
    probe = Probe(url)
    try:
        client = httpx.Client(base_url=url, timeout=WAIT)
        deadline = time.monotonic() + WAIT
        while True:
            try:
                if client.get("/api/health").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if service.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the service did not start: {service.stderr.read()[-2000:]}")
            time.sleep(0.05)
        client.post("/api/referee/login", json={"pin": PIN}).raise_for_status()
        hands, pid = Hands(client, game), service_pid(service.pid)
        while hands.shown()["phase"] == "setup":
            time.sleep(0.05)
        probe.start()
        cpu, moves = cpu_seconds(pid), 0
        while moves < MOVES:
            state = hands.state()
            if game.outcome(state) is not None:
                break
            if game.chance(state) is not None:
                client.post("/api/draw", json={}).raise_for_status()
                continue
            move = pick.choice(game.legal_moves(state))
            after = game.apply(state, move)
            plies = hands.shown()["plies"]
            hands.carry_out(state, move)
            hands.until_taken(plies, after)
            moves += 1
        cpu = cpu_seconds(pid) - cpu
        probe.done.set()
        probe.join()
        drops = client.get("/api/diagnostics").json()["mcu"]
        peak = proc_status(pid, "VmHWM")
        client.close()
    finally:
        probe.done.set()
        service.send_signal(signal.SIGTERM)
        service.wait(WAIT)
    return {
        "moves": moves,
        "limited": is_limited,
        "rss_mb_peak": round(peak, 1),
        "panel_answer_ms_p50": round(percentile(probe.times, 0.5), 2),
        "panel_answer_ms_p99": round(percentile(probe.times, 0.99), 2),
        "link_drops": drops.get("reconnects", 0),
        "link_counters": drops,
        "cpu_ms_per_move": round(cpu / max(moves, 1) * 1000, 1),
    }


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        games = {f"{n}_{p}p": play(n, p, Path(scratch)) for n, p in GAMES}
    result = {
        "bench": "pi",
        "games": games,
        "memory_max": MEMORY_MAX,
        "cpu_quota": CPU_QUOTA,
        "budget_rss_mb": BUDGET_RSS_MB,
        "budget_panel_answer_ms_p99": BUDGET_ANSWER_MS_P99,
        "budget_link_drops": BUDGET_LINK_DROPS,
    }
    result["within_budget"] = not SMOKE and all(
        g["rss_mb_peak"] <= BUDGET_RSS_MB
        and g["panel_answer_ms_p99"] <= BUDGET_ANSWER_MS_P99
        and g["link_drops"] <= BUDGET_LINK_DROPS
        for g in games.values()
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
