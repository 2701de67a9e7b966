"""`boardref fleet`: the café dashboard. It listens to every table on the MQTT broker
and shows them live on one page: game, players, whose turn, time in game, and alerts
(board disconnected, board out of sync, a table gone offline), each table linking to
its own /watch page. It only watches; it never sends a table anything.

A head office may watch thousands of tables, so the work done per message is the
work that message brings, never a walk over the whole fleet: at most every
``SEND_EVERY`` seconds the loop reads every message waiting, each changing its table's
row, then sends the pages the rows that changed. A page that connects is sent the whole
fleet once, then only changes.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path
from typing import Any

import uvicorn
from fastapi import FastAPI, HTTPException, Response, WebSocket

from boardref.cafe.daybook import DayBook, daybook_routes
from boardref.cafe.on_loop import OnLoop
from boardref.cafe.standings import CafeLeague, standings_routes
from boardref.cafe.trust import Doubts, link_of
from boardref.outputs.fleet import ROOT, Broker
from boardref.outputs.panel import connections
from boardref.outputs.panel.assets import Assets
from boardref.outputs.panel.headers import SecurityHeaders
from boardref.outputs.panel.hub import Hub, Subscriber
from boardref.outputs.panel.pages import PANEL, STATIC, build_of, document, words_of
from boardref.outputs.panel.words import I18N, LANGUAGES
from boardref.runtime.memory import freeze_start_up

log = logging.getLogger(__name__)

CAFE = "boardref.cafe"  # the package whose static/ holds the dashboard's own files
#: the dashboard's page and scripts; what it shares with the panel comes from the panel's
CAFE_STATIC = resources.files(CAFE) / "static"
#: what the dashboard's pages are made of: its own files, the panel's and the words
CAFE_BUILD = build_of(*(Path(str(folder)) for folder in (CAFE_STATIC, STATIC, I18N)))
SEND_EVERY = 0.05  # seconds between two sends to the pages at the least: twenty a second
BEHIND = 40  # changes a page may have waiting before it is sent the whole fleet instead
#: a table's records waiting to be checked before more of its records are ignored: a
#: table ends a game every few minutes, so only a flood reaches it
RECORDS_WAITING = 10
STATUSES = ("online", "offline")  # what a table's status topic may say
#: the state fields a dashboard row shows (the rest of a table's state stays in /api/tables)
SHOWN = (
    "game",
    "players",
    "seat_name",
    "seat_said",
    "phase",
    "plies",
    "winner",
    "winners_said",
    "alerts",
    "started",
)


def site_of(table: str) -> str:
    """The site a table belongs to: its name up to the first hyphen (``north-t1`` is at
    ``north``); a name without one belongs to no site ("")."""
    return table.split("-", 1)[0] if "-" in table else ""


def page_row(table: dict[str, Any]) -> dict[str, Any]:
    """What the dashboard page shows of one table: flat, so a change is a few fields."""
    state = table.get("state") or {}
    row = {"site": site_of(table["table"]), "status": table["status"]}
    row.update((key, state.get(key)) for key in SHOWN)
    panel_url = state.get("panel_url")  # an http(s) address or none: Fleet._take checked it
    row["watch"] = f"{panel_url}/watch" if panel_url else None
    return row


class Watcher(Subscriber):
    """One dashboard page. Every message holds only the rows that changed, so each is
    sent in order; a page that falls ``BEHIND`` is sent the whole fleet again instead
    of the changes it missed."""

    def __init__(self, fleet: Fleet, socket: WebSocket, seat: int | None):
        super().__init__(socket, seat)
        self.fleet = fleet
        self._waiting: deque[str] = deque()

    def offer(self, text: str, shown: str | None = None) -> None:
        # every message is sent: each holds only the rows that changed since the last
        if len(self._waiting) >= BEHIND:
            self._waiting.clear()
            text = self.fleet.whole()
        self._waiting.append(text)
        self._ready.set()

    async def pump(self) -> None:
        while True:
            await self._ready.wait()
            self._ready.clear()
            while self._waiting:
                await self.socket.send_text(self._waiting.popleft())


class Fleet:
    """Every table the broker has told us about, kept up to date."""

    def __init__(
        self,
        broker: Broker,
        ca_file: str | None = None,
        send_every: float = SEND_EVERY,
        book: DayBook | None = None,
    ):
        self.broker = broker
        #: the day's ended games with their records (``boardref/<table>/record``)
        self.book = book or DayBook()
        self.tables: dict[str, dict[str, Any]] = {}
        self.rows: dict[str, dict[str, Any]] = {}  # each table as its page row shows it
        self.hub = Hub(functools.partial(Watcher, self))
        self.connected = False
        self.send_every = send_every
        self._changes: dict[str, dict[str, Any]] = {}  # row fields changed since the last send
        self._loop: asyncio.AbstractEventLoop | None = None
        self._link: OnLoop | None = None
        self.doubts = Doubts()  # what was not believed of a table, said once
        #: one thread checks the records, one at a time, so they are kept in order
        self._checker = ThreadPoolExecutor(1, thread_name_prefix="boardref-records")
        self._records_waiting: dict[str, int] = {}  # per table, sent to the checker
        self.client = broker.client(
            f"boardref-dashboard-{int(time.time())}",
            ca_file,
            self._connected,
            self._disconnected,
            self._message,
        )

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._link = OnLoop(
            self.client, self.broker.host, self.broker.port, loop, self.send_every, self.send
        )

    def close(self) -> None:
        self._link.close()
        self._checker.shutdown(cancel_futures=True)

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

    def whole(self) -> str:
        """The message a page starts from: every table's row, and the build of the pages
        this dashboard serves (a page of another build reloads itself)."""
        whole = {"now": time.time(), "whole": True, "build": CAFE_BUILD, "rows": self.rows}
        return json.dumps(whole)

    # --- the broker's messages, on the loop ----------------------------------------------

    def _connected(self, client, userdata, flags, reason, properties) -> None:
        if reason.is_failure:
            log.warning("broker refused the dashboard: %s", reason)
            return
        self.connected = True
        # QoS 0: the dashboard's session is clean and TCP already delivers in order, so
        # acknowledging each of thousands of messages would only cost both sides
        client.subscribe(f"{ROOT}/+/+", qos=0)

    def _disconnected(self, client, userdata, flags, reason, properties) -> None:
        self.connected = False

    def _message(self, client, userdata, message) -> None:
        parts = message.topic.split("/")
        if len(parts) != 3 or parts[0] != ROOT:
            return
        _, name, kind = parts
        self._take(name, kind, message.payload.decode("utf-8", "replace"))

    def _take(self, name: str, kind: str, text: str) -> None:
        if not self.doubts.named(name):
            return
        if kind == "record":  # the day's games: the page asks for them (daybook.js)
            waiting = self._records_waiting.get(name, 0)
            if waiting >= RECORDS_WAITING:
                self.doubts.ignore(name, f"more than {RECORDS_WAITING} of its records wait")
                return
            self._records_waiting[name] = waiting + 1
            self._loop.run_in_executor(self._checker, self._check_record, name, text)
            return
        if kind == "status":
            if text not in STATUSES:
                self.doubts.ignore(name, f"a status is {' or '.join(STATUSES)}")
                return
            self._table(name)["status"] = text
        elif kind in ("state", "event"):
            said = self._about_itself(name, kind, text)
            if said is None:
                return
            table = self._table(name)
            if kind == "state":
                said["panel_url"] = link_of(said.get("panel_url"))
                table["state"] = said
            else:
                table["events"] += 1
                table["last_event"] = {k: said.get(k) for k in ("seq", "kind", "at")}
                if name in self.rows:  # an event changes nothing a row shows
                    return
        else:
            return
        self._note(name)

    def _check_record(self, name: str, text: str) -> None:
        """The checker's thread: a record is replayed there, so a long game's does not
        hold up every table's rows; the book keeps it on the loop, in the order heard."""
        self._loop.call_soon_threadsafe(self._checked, name, self.book.check(name, text))

    def _checked(self, name: str, checked: tuple | None) -> None:
        waiting = self._records_waiting.pop(name) - 1
        if waiting:
            self._records_waiting[name] = waiting
        if checked is not None:
            self.book.keep(name, *checked)

    def _table(self, name: str) -> dict[str, Any]:
        return self.tables.setdefault(
            name,
            {"table": name, "status": "unknown", "state": None, "events": 0, "last_event": None},
        )

    def _about_itself(self, name: str, kind: str, text: str) -> dict[str, Any] | None:
        """A table's state or event, if it is one and names the table whose topic it
        came on; None (and said once) if not."""
        try:
            said = json.loads(text)
        except ValueError:
            said = None
        if not isinstance(said, dict):
            self.doubts.ignore(name, f"its {kind} is not a JSON object")
            return None
        if said.get("table") != name:
            self.doubts.ignore(name, f"its {kind} speaks for another table")
            return None
        return said

    def _note(self, name: str) -> None:
        """Keep what changed in the table's row for the next send."""
        row = page_row(self.tables[name])
        shown = self.rows.get(name, {})
        changed = {key: value for key, value in row.items() if shown.get(key, row) != value}
        if not changed:
            return
        self.rows[name] = row
        self._changes.setdefault(name, {}).update(changed)

    def send(self) -> None:
        """Send the pages the rows changed since the last send (before a page joins, so
        that the whole fleet it starts from already holds every change sent after)."""
        changes, self._changes = self._changes, {}
        if self.hub.subscribers and changes:
            self.hub.broadcast(json.dumps({"now": time.time(), "rows": changes}))


def dashboard_app(fleet: Fleet) -> FastAPI:
    app = FastAPI(title="boardref fleet", docs_url=None, redoc_url=None)
    app.add_middleware(SecurityHeaders)
    app.mount("/static", Assets((CAFE, PANEL), CAFE_BUILD), name="static")

    @app.get("/", include_in_schema=False)
    async def home() -> Response:
        return document("dashboard.html", folder=CAFE_STATIC, build=CAFE_BUILD)

    @app.get("/i18n/{language}.json", include_in_schema=False)
    async def words(language: str) -> Response:
        if language not in LANGUAGES:
            raise HTTPException(404, f"no language {language}; there are {', '.join(LANGUAGES)}")
        return words_of(language)

    app.include_router(daybook_routes(fleet.book))
    app.include_router(standings_routes(CafeLeague(fleet.book)))

    @app.get("/api/tables")
    async def tables() -> list[dict[str, Any]]:
        return fleet.snapshot()

    @app.websocket("/ws")
    async def updates(socket: WebSocket) -> None:
        await socket.accept()
        fleet.send()
        await fleet.hub.serve(socket, None, fleet.whole())

    return app


async def run_dashboard(
    broker: Broker, host: str, port: int, ca_file: str | None = None, records: Path | None = None
) -> None:
    """Serve the dashboard until interrupted; ``records``: where the day's records are
    kept across restarts."""
    fleet = Fleet(broker, ca_file, book=DayBook(records))
    fleet.start(asyncio.get_running_loop())
    server = uvicorn.Server(
        uvicorn.Config(
            dashboard_app(fleet),
            host=host,
            port=port,
            log_level="warning",
            **connections.settings(connections.limits()),
        )
    )
    connections.count_accept_errors(asyncio.get_running_loop())
    log.info("café dashboard on http://%s:%d/", host, port)
    freeze_start_up()
    try:
        await server.serve()
    finally:
        fleet.close()
