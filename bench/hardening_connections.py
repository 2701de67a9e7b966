"""Attack area "connections" of ``bench_hardening.py``: a `boardref serve --sim`
allowed 1024 open files (what a service started without the unit's LimitNOFILE gets)
under floods of idle connections, of requests whose headers never end and of
WebSockets that never read, all from one client; one client's connections beyond
its share; and requests claiming to be the table through forwarding headers. A flood
holds when ``/api/state`` still answers within 1 s (the best of three tries); a claim
holds when it is refused as the table. Prints each flood's size, the connections the
server kept open, and the slowest and best ``/api/state`` beside it.
"""

from __future__ import annotations

import json
import math
import resource
import socket

import checkout  # noqa: F401  (the tests' helpers, below)
import httpx
from smoke import sized
from tally import Tally

from boardref.outputs.panel.connections import limits
from tests.flood import TABLE_CLAIMS, closed, flood, state_seconds
from tests.harness import serve_sim

#: the flood sizes; the smoke run's are only enough to run every step
FLOOD = sized(1100, 60)
SOCKETS = sized(300, 20)
#: the panel's files, as an unconfigured service has them
FILES = 1024


def attack(scratch) -> Tally:
    tally = Tally("connections")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the floods' own sockets
    process, url = serve_sim(str(scratch), files=FILES)
    port = int(url.rsplit(":", 1)[1])
    try:
        floods = {
            f"{FLOOD} idle connections": {"idle": FLOOD},
            f"{FLOOD} requests whose headers never end": {"half_sent": FLOOD},
            f"{SOCKETS} WebSockets that never read": {"sockets": SOCKETS},
            f"{limits().per_client * 2} idle connections, twice a client's share": {
                "idle": limits().per_client * 2
            },
        }
        for what, kinds in floods.items():
            opened = flood(port, **kinds)
            seconds = state_seconds(url)
            kept = sum(not closed(connection) for connection in opened)
            held = min(seconds) < 1.0 and kept <= limits().per_client
            tally.check(held, f"{what}: /api/state {seconds} s, {kept} kept open")
            print(json.dumps({"flood": what, "kept_open": kept, **_figures(seconds)}))
            _close(opened)
        for claim in TABLE_CLAIMS:
            answer = httpx.post(f"{url}/api/takeback", json={}, headers=claim)
            tally.check(answer.status_code == 403, f"{claim} made the table: {answer.status_code}")
    finally:
        process.terminate()
        process.wait(30)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return tally


def _figures(seconds: list[float]) -> dict:
    """The slowest and best answer in ms; None: no answer within the patience."""
    slowest, best = (
        round(s * 1000, 1) if math.isfinite(s) else None for s in (max(seconds), min(seconds))
    )
    return {"state_slowest_ms": slowest, "state_best_ms": best}


def _close(opened: list[socket.socket]) -> None:
    for connection in opened:
        connection.close()
