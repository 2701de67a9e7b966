"""What a table that cannot start shows instead of going dark: one page on the panel's
port saying what is wrong and what to do (in the reader's language), the status LED's
fault mood, and systemd told it runs (``READY=1``, the cause in ``STATUS``, the
watchdog fed), so it is not restarted into the same fault again and again.

It answers every request with that page (503) and nothing else: no game, no role, no
command. It never opens the event log or touches the cause; the owner fixes it and
restarts the table.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import logging

from boardref.outputs.panel.server import Server, server_config
from boardref.outputs.panel.words import LANGUAGES, said
from boardref.runtime.notify import notify, watchdog_interval
from engines.words import Words, words
from hardware.lights import Palette
from hardware.status import open_status_panel

log = logging.getLogger("boardref")

_HEADERS = [
    (b"cache-control", b"no-store"),
    (b"x-content-type-options", b"nosniff"),
    (b"content-security-policy", b"default-src 'none'; frame-ancestors 'none'"),
]


class FaultPage:
    """An ASGI app that answers every request with why the table cannot start."""

    def __init__(self, fault: Words):
        self.fault = fault

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1013})  # try again later
            return
        if scope["type"] != "http":
            return
        language = _language(scope)
        title = said(language, words("fault.title", "This table cannot start"))
        why = said(language, self.fault)
        if scope["path"].startswith("/api/"):
            body = json.dumps({"fault": self.fault.to_json(), "said": why}).encode()
            kind = b"application/json"
        else:
            body = (
                f'<!doctype html><html lang="{language}"><meta charset="utf-8">'
                '<meta name="viewport" content="width=device-width">'
                f"<title>{html.escape(title)}</title><h1>{html.escape(title)}</h1>"
                f"<p>{html.escape(why)}</p></html>"
            ).encode()
            kind = b"text/html; charset=utf-8"
        headers = [(b"content-type", kind), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 503, "headers": headers + _HEADERS})
        await send({"type": "http.response.body", "body": body})


def _language(scope) -> str:
    """``?lang=de`` or the browser's first language we have; else English."""
    query = scope.get("query_string", b"").decode("latin-1")
    for part in query.split("&"):
        name, _, value = part.partition("=")
        if name == "lang" and value in LANGUAGES:
            return value
    for name, value in scope.get("headers", ()):
        if name == b"accept-language":
            for tag in value.decode("latin-1").split(","):
                primary = tag.split(";")[0].strip().split("-")[0].lower()
                if primary in LANGUAGES:
                    return primary
    return "en"


async def serve_fault(fault: Words, config, sim: bool, listening, stop: asyncio.Event) -> None:
    """Show ``fault`` on the status LED and on the panel's socket ``listening`` until
    ``stop`` is set."""
    log.error("the table cannot start: %s", fault)
    status = open_status_panel(
        config.gpio.status_pins(), sim, Palette.load(config.palette), None, None, None
    )
    if status is not None:
        status.show("fault")
    server = Server(server_config(FaultPage(fault), config.panel))
    serving = asyncio.create_task(server.serve(sockets=[listening]))
    while not server.started and not serving.done():
        await asyncio.sleep(0.02)
    notify("READY=1")
    notify(f"STATUS=cannot start: {fault}")
    ping_every = watchdog_interval()
    try:
        while not stop.is_set():
            if ping_every is not None:
                notify("WATCHDOG=1")
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(ping_every):
                    await stop.wait()
    finally:
        notify("STOPPING=1")
        server.should_exit = True
        await serving
        if status is not None:
            status.close()
