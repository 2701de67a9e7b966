"""The table page's own cost a state, apart from the service and the hands: a
5-player Hakenschlagen game is played on a hall-sensor table as ``bench_pi.py``
plays it (no kiosk, no limits) and every state its pages are pushed is kept; then
the kiosk browser (``kiosk_browser.py``: Chromium with the kiosk unit's flags, at
the table screen's size) opens the table page at the kiosk's address
(``boardref.runtime.kiosk.KIOSK_PAGE``, as the unit opens it: the page keeps still)
and is sent those states again, one every ``SPACING_S``, over a real WebSocket, the
page, its board and everything else it asks for answered by a ``boardref serve
--sim`` of the same game. Its CPU per state is measured (every process of the
browser), split by where it goes: the renderer's main thread (the page's JavaScript,
style, layout and paint), its raster workers, its compositor, the display compositor
(the GPU process's, drawing the screen in software here) and the browser process.

Beside it, the same states to a bare page that only reads each and changes one word
(``BARE``): what Chromium spends on a state whatever the page does with it, the
floor under the table page's figure; and the table page sent one state from the
middle of the game again and again (``unchanged``): what taking a state costs the
page when nothing in it is new and nothing is drawn. Each a state, and a move at the
states a move the game was pushed (``states_per_move``; the hands move fast, so a few
states a move that people would make apart come together here as on ``bench_pi``'s
table). The states of a move are counted by what changed in each (``what_changed``:
the phase it went to, else pieces moved, else something else), and the CPU a state
the budget leaves at that many states a move is printed beside the bare page's.
Prints a line per page for people, then one JSON line.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import bench_pi
import checkout  # noqa: F401  (the checkout's root on the path)
import httpx
import pi_hands
import uvicorn
from kiosk_browser import TICKS, Kiosk, tree
from smoke import sized
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket

from boardref.runtime.kiosk import KIOSK_PAGE
from tests.harness import answers, free_port, until

GAME, PLAYERS = "hakenschlagen", 5
#: the time between two states sent: more than the panel's least spacing between two
#: states to one page (``hub.SPACING_S``), so each state is drawn on its own
SPACING_S = 0.25
#: the states sent again (the smoke run: a few, to see it run)
STATES = sized(None, 6)
#: a page that takes each state and shows one word of it: Chromium's own part
BARE = """<!doctype html><html><body style="background:#111;color:#eee;font:20px sans-serif">
<p id="seq">-</p><script>
new WebSocket(`ws://${location.host}/ws`).onmessage = (message) => {
  document.getElementById("seq").textContent = JSON.parse(message.data).seq;
};
</script></body></html>"""
#: where a thread's CPU goes, by its process's kind and its name
PLACES = (
    ("renderer", "chromium", "renderer main thread"),
    ("renderer", "ThreadPoolForeg", "renderer raster workers"),
    ("renderer", "Compositor", "renderer compositor"),
    ("gpu-process", "VizCompositorTh", "display compositor"),
)


def recorded(scratch: Path) -> tuple[list[str], int]:
    """The states a hall table's Hakenschlagen game pushed its pages, and its moves."""
    pi_hands.Watch.record = scratch / "states.jsonl"
    try:
        found = bench_pi.play(GAME, PLAYERS, False, scratch, "none", False)
    finally:
        pi_hands.Watch.record = None
    if found.get("stuck") or found.get("died"):
        raise RuntimeError(
            f"the recorded game did not end: {found.get('stuck') or found.get('died')}"
        )
    return (scratch / "states.jsonl").read_text().splitlines(), found["moves"]


def what_changed(before: dict, after: dict) -> str:
    """What a state pushed after ``before`` brought: the phase it went to, else
    pieces moved, else something else (a word, a button, the moves asked about)."""
    if after.get("phase") != before.get("phase"):
        return f"phase {after.get('phase')}"
    return "pieces" if after.get("position") != before.get("position") else "other"


def thread_cpu_ms(root: int) -> Counter:
    """CPU ms of every thread of the browser under ``root``, by (process kind, name)."""
    found: Counter = Counter()
    for pid in tree(root):
        try:
            # Chromium writes its processes' command lines over, words apart by spaces
            command = Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")
            kind = re.search(r"--type=(\S+)", command)
            for thread in os.listdir(f"/proc/{pid}/task"):
                stat = Path(f"/proc/{pid}/task/{thread}/stat").read_text()
                name = stat[stat.index("(") + 1 : stat.rindex(")")]
                fields = stat[stat.rindex(")") + 2 :].split()
                place = (kind.group(1) if kind else "browser", name)
                found[place] += (int(fields[11]) + int(fields[12])) * 1000 / TICKS
        except OSError:  # a process or thread that ended meanwhile
            continue
    return found


class Replay:
    """A server in this process: the page's WebSocket sends the states it is given;
    everything else is asked of the service at ``service``; ``/bare`` is ``BARE``."""

    def __init__(self, service: str):
        self._client = httpx.AsyncClient(base_url=service)
        self._sockets: list[WebSocket] = []
        app = Starlette(
            routes=[
                WebSocketRoute("/ws", self._socket),
                Route("/bare", lambda _: HTMLResponse(BARE)),
                Route("/{path:path}", self._ask, methods=["GET", "POST"]),
            ]
        )
        self.port = free_port()
        self._server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        )
        self._loop = asyncio.new_event_loop()
        threading.Thread(
            target=self._loop.run_until_complete, args=(self._server.serve(),), daemon=True
        ).start()
        until(lambda: answers(f"http://127.0.0.1:{self.port}/bare"), "the replaying server")
        self._seq = 10**9  # newer than any the page was sent by the service

    async def _socket(self, socket: WebSocket) -> None:
        await socket.accept()
        self._sockets.append(socket)
        while (await socket.receive())["type"] != "websocket.disconnect":
            pass
        self._sockets.remove(socket)

    async def _ask(self, request: Request) -> Response:
        answer = await self._client.request(
            request.method,
            request.url.path,
            params=request.query_params,
            content=await request.body(),
            headers={k: v for k, v in request.headers.items() if k != "host"},
        )
        kept = {k: v for k, v in answer.headers.items() if k not in HOP_BY_HOP}
        return Response(answer.content, answer.status_code, headers=kept)

    def connected(self) -> bool:
        return bool(self._sockets)

    def send(self, text: str) -> None:
        """``text`` to every page, as the newest state."""
        self._seq += 1
        state = json.loads(text)
        state["seq"] = self._seq
        sent = json.dumps(state)
        for socket in list(self._sockets):
            asyncio.run_coroutine_threadsafe(socket.send_text(sent), self._loop).result(10)

    def close(self) -> None:
        self._server.should_exit = True


#: headers of one connection, not to be passed on
HOP_BY_HOP = {"content-length", "content-encoding", "transfer-encoding", "connection"}


def replayed(replay: Replay, page: str, states: list[str]) -> dict:
    """The kiosk on ``page`` sent ``states`` again: its CPU a state, by place."""
    with Kiosk(f"http://127.0.0.1:{replay.port}{page}", None) as kiosk:
        until(replay.connected, f"the kiosk on {page} to open its WebSocket", 60)
        replay.send(states[0])  # the page laid out as the game began
        time.sleep(3.0)
        threads, cpu = thread_cpu_ms(kiosk.process.pid), kiosk.cpu_seconds()
        for text in states[1:]:
            replay.send(text)
            time.sleep(SPACING_S)
        time.sleep(1.0)
        spent = (kiosk.cpu_seconds() - cpu) * 1000
        by_thread = thread_cpu_ms(kiosk.process.pid) - threads
    n = len(states) - 1
    places = {label: round(by_thread[(kind, thread)] / n, 2) for kind, thread, label in PLACES}
    places["browser process"] = round(
        sum(ms for (kind, _), ms in by_thread.items() if kind == "browser") / n, 2
    )
    return {"cpu_ms_per_state": round(spent / n, 2), "by_place_ms_per_state": places}


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        states, moves = recorded(scratch)
        states = states[: STATES + 1] if STATES else states
        config = scratch / "replay.toml"
        port = free_port()
        config.write_text(
            f'[game]\nname = "{GAME}"\nplayers = {PLAYERS}\n'
            f'[store]\npath = "{scratch / "replay.db"}"\n[panel]\nport = {port}\n'
        )
        service = subprocess.Popen(
            [sys.executable, "-m", "boardref", "serve", "--sim", "--config", str(config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        replay = None
        try:
            until(lambda: answers(f"http://127.0.0.1:{port}/api/health"), "the service", 60)
            replay = Replay(f"http://127.0.0.1:{port}")
            middle = states[len(states) // 2]
            pages = {
                "table": replayed(replay, KIOSK_PAGE, states),
                "bare": replayed(replay, "/bare", states),
                "unchanged": replayed(replay, KIOSK_PAGE, [middle] * len(states)),
            }
        finally:
            if replay is not None:
                replay.close()
            bench_pi.stop(service)
    per_move = (len(states) - 1) / max(moves, 1)
    shown = [json.loads(text) for text in states]
    kinds = Counter(what_changed(a, b) for a, b in zip(shown, shown[1:]))
    by_kind = {kind: round(count / max(moves, 1), 2) for kind, count in kinds.most_common()}
    for name, page in pages.items():
        page["cpu_ms_per_move"] = round(page["cpu_ms_per_state"] * per_move, 1)
        places = ", ".join(f"{k} {v}" for k, v in page["by_place_ms_per_state"].items())
        print(
            f"{name:9} page  {page['cpu_ms_per_state']:5.2f} ms CPU a state"
            f"  {page['cpu_ms_per_move']:5.1f} a move  ({places})",
            file=sys.stderr,
        )
    budget = bench_pi.BUDGET_KIOSK_CPU_MS_PER_MOVE
    budget_a_state = budget / per_move if per_move else budget
    print(
        f"states a move {per_move:.2f}: "
        + ", ".join(f"{kind} {count}" for kind, count in by_kind.items())
        + f"; the budget of {budget} ms a move leaves {budget_a_state:.1f} ms a state,"
        f" the bare page takes {pages['bare']['cpu_ms_per_state']:.1f}",
        file=sys.stderr,
    )
    print(
        json.dumps(
            {
                "bench": "kiosk",
                "game": f"{GAME}_{PLAYERS}p",
                "states": len(states) - 1,
                "moves": moves,
                "states_per_move": round(per_move, 2),
                "states_per_move_by_change": by_kind,
                "spacing_s": SPACING_S,
                "pages": pages,
                "budget_kiosk_cpu_ms_per_move": bench_pi.BUDGET_KIOSK_CPU_MS_PER_MOVE,
                "load": [round(x, 2) for x in os.getloadavg()],
            }
        )
    )


if __name__ == "__main__":
    main()
