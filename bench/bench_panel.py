"""Panel speed: with 100 WebSocket clients on a `boardref serve --sim`, the time from
a command to every page holding the new state (fan-out), and from a piece put down
on the virtual board to the pages showing the verdict (settle time included). Prints
one JSON line. The clients come from 100 loopback addresses (127.0.1.x), as a
café's phones come from addresses of their own.

The fan-out figure is measured from the moment the command is sent, so it includes
the command itself; each new game is one state change pushed to every client.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import tempfile
import time

import checkout  # noqa: F401  (the tests' helpers, below)
import httpx
import websockets
from smoke import SMOKE, sized

from boardref.runtime.loop_lag import percentile
from tests.harness import serve_sim

CLIENTS = sized(100, 3)
CHANGES = sized(40, 2)
#: pieces put down on the virtual board and taken back
PIECES_DOWN = sized(5, 1)
BUDGET_FANOUT_P99_MS = 100.0


async def until(socket_, predicate) -> float:
    """When a state the predicate accepts arrives; it sees the raw text, so that this
    client's own parsing does not count against the server."""
    while True:
        text = await socket_.recv()
        if predicate(text):
            return time.perf_counter()


async def measure(url: str) -> dict:
    ws_url = url.replace("http", "ws") + "/ws"
    # each client from an address of its own, as phones and kiosks come: the panel
    # keeps only a few WebSockets open per address (connections.toml)
    sockets = [
        await websockets.connect(ws_url, max_size=2**22, local_addr=(f"127.0.1.{n + 1}", 0))
        for n in range(CLIENTS)
    ]
    for s in sockets:
        await s.recv()  # the first state
    fanout: list[float] = []
    async with httpx.AsyncClient(base_url=url) as http:
        for n in range(CHANGES):
            players = 2 + n % 2
            marker = f'"players":{players},'
            waits = [
                asyncio.create_task(until(s, lambda text, m=marker: m in text)) for s in sockets
            ]
            sent = time.perf_counter()
            await http.post("/api/game", json={"game": "sternhalma", "players": players})
            arrived = await asyncio.gather(*waits)
            fanout += [(t - sent) * 1000 for t in arrived]
            await asyncio.sleep(0.05)
        # a piece put down on the virtual board: scan, settle, verdict, push
        verdict: list[float] = []
        watched = sockets[:10]
        await http.post("/api/game", json={"game": "sternhalma", "players": 2})
        await asyncio.gather(*(until(s, _playing(2)) for s in watched))
        for origin, destination in (("l4", "k5"), ("k5", "l4")) * PIECES_DOWN:
            await http.post("/api/sim/lift", json={"cell": origin})
            # Until the lift is judged, reading every state before it: the piece put
            # back (k5 to l4, after a takeback) leaves the board as the takeback's
            # state shows it, which would otherwise end the wait below at once.
            await asyncio.gather(*(until(s, _lifted) for s in watched))
            waits = [asyncio.create_task(until(s, _shows_move(destination))) for s in watched]
            sent = time.perf_counter()
            await http.post("/api/sim/place", json={"cell": destination})
            arrived = await asyncio.gather(*waits)
            verdict += [(t - sent) * 1000 for t in arrived]
            await http.post("/api/takeback", json={})
    await asyncio.gather(*(leave(s) for s in sockets))
    return {
        "clients": CLIENTS,
        "changes": CHANGES,
        "fanout_ms_p50": round(percentile(fanout, 0.5), 2),
        "fanout_ms_p99": round(percentile(fanout, 0.99), 2),
        "budget_fanout_ms_p99": BUDGET_FANOUT_P99_MS,
        "within_budget": not SMOKE and percentile(fanout, 0.99) <= BUDGET_FANOUT_P99_MS,
        "piece_down_to_pages_ms_p50": round(percentile(verdict, 0.5), 1),
        "piece_down_to_pages_ms_p99": round(percentile(verdict, 0.99), 1),
        "settle_ms": 300,
    }


async def leave(socket_) -> None:
    """Close a client, reading first the states still on their way to it: a client
    that stopped reading (the 90 not watched for verdicts) holds up its closing
    handshake until the close times out, 10 s."""
    with contextlib.suppress(TimeoutError):
        while True:
            await asyncio.wait_for(socket_.recv(), 0.1)
    await socket_.close()


def _playing(players: int):
    def playing(text: str) -> bool:
        state = json.loads(text)
        return state.get("players") == players and state.get("phase") == "move"

    return playing


def _lifted(text: str) -> bool:
    return json.loads(text)["lifted"] is not None


def _shows_move(destination: str):
    def shows(text: str) -> bool:
        state = json.loads(text)
        return bool(state["position"].get(destination)) and state["lifted"] is None

    return shows


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        service, url = serve_sim(scratch)
        try:
            result = asyncio.run(measure(url))
        finally:
            service.terminate()
            service.wait(10)
    print(json.dumps({"bench": "panel", **result}))


if __name__ == "__main__":
    main()
