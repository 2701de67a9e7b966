"""`boardref fleet`: the café dashboard. It listens to every table on the MQTT broker
and shows them live on one page: game, players, whose turn, time in game, and alerts
(board disconnected, board out of sync, a table gone offline), each table linking to
its own /watch page. It only watches; it never sends a table anything.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from importlib import resources
from pathlib import Path
from typing import Any

import uvicorn
from fastapi import FastAPI, WebSocket
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from boardref.daybook import DayBook, daybook_routes
from boardref.fleet import ROOT, Broker
from boardref.panel.hub import Hub

log = logging.getLogger(__name__)
STATIC = resources.files("boardref.panel") / "static"


class Fleet:
    """Every table the broker has told us about, kept up to date."""

    def __init__(self, broker: Broker, ca_file: str | None = None, book: DayBook | None = None):
        self.broker = broker
        #: the day's ended games with their records (``boardref/<table>/record``)
        self.book = book or DayBook()
        self.tables: dict[str, dict[str, Any]] = {}
        self.hub = Hub()
        self.connected = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self.client = broker.client(
            f"boardref-dashboard-{int(time.time())}",
            ca_file,
            self._connected,
            self._disconnected,
            self._message,
        )

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self.client.connect_async(self.broker.host, self.broker.port, keepalive=15)
        self.client.loop_start()

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def snapshot(self) -> list[dict[str, Any]]:
        """The tables, sorted by name, with how long each game has run."""
        now = time.time()
        rows = []
        for name in sorted(self.tables):
            table = dict(self.tables[name])
            started = (table.get("state") or {}).get("started")
            table["seconds_in_game"] = round(now - started) if started else None
            rows.append(table)
        return rows

    # --- the broker's thread -------------------------------------------------------------

    def _connected(self, client, userdata, flags, reason, properties) -> None:
        if reason.is_failure:
            log.warning("broker refused the dashboard: %s", reason)
            return
        self.connected = True
        client.subscribe(f"{ROOT}/+/+", qos=1)

    def _disconnected(self, client, userdata, flags, reason, properties) -> None:
        self.connected = False

    def _message(self, client, userdata, message) -> None:
        parts = message.topic.split("/")
        if len(parts) != 3 or parts[0] != ROOT:
            return
        _, name, kind = parts
        text = message.payload.decode("utf-8", "replace")
        self._loop.call_soon_threadsafe(self._take, name, kind, text)

    # --- the loop ------------------------------------------------------------------------

    def _take(self, name: str, kind: str, text: str) -> None:
        if kind == "record":
            if self.book.take(name, text):
                self.publish()
            return
        table = self.tables.setdefault(
            name,
            {"table": name, "status": "unknown", "state": None, "events": 0, "last_event": None},
        )
        if kind == "status":
            table["status"] = text
        elif kind == "state":
            with contextlib.suppress(ValueError):
                table["state"] = json.loads(text)
        elif kind == "event":
            with contextlib.suppress(ValueError):
                event = json.loads(text)
                table["events"] += 1
                table["last_event"] = {k: event.get(k) for k in ("seq", "kind", "at")}
        else:
            return
        self.publish()

    def publish(self) -> None:
        if self.hub.subscribers:
            self.hub.publish(json.dumps(self.snapshot()))


def dashboard_app(fleet: Fleet) -> FastAPI:
    app = FastAPI(title="boardref fleet", docs_url=None, redoc_url=None)
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
    page = (STATIC / "dashboard.html").read_text(encoding="utf-8")

    @app.get("/", include_in_schema=False)
    async def home() -> HTMLResponse:
        return HTMLResponse(page)

    app.include_router(daybook_routes(fleet.book))

    @app.get("/api/tables")
    async def tables() -> list[dict[str, Any]]:
        return fleet.snapshot()

    @app.websocket("/ws")
    async def updates(socket: WebSocket) -> None:
        await socket.accept()
        await fleet.hub.serve(socket, None, json.dumps(fleet.snapshot()))

    return app


async def run_dashboard(
    broker: Broker, host: str, port: int, ca_file: str | None = None, records: Path | None = None
) -> None:
    """Serve the dashboard until interrupted; ``records``: where the day's records are
    kept across restarts."""
    fleet = Fleet(broker, ca_file, DayBook(records))
    fleet.start(asyncio.get_running_loop())
    server = uvicorn.Server(
        uvicorn.Config(dashboard_app(fleet), host=host, port=port, log_level="warning")
    )
    log.info("café dashboard on http://%s:%d/", host, port)
    try:
        await server.serve()
    finally:
        fleet.close()
