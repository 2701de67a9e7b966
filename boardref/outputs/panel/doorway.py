"""The panel while it opens. ``boardref serve`` listens before the panel's app is built
(loading FastAPI and the routes is the larger part of a start, a second and more on a
Pi); meanwhile the doorway answers the pages that need only their template
(``pages``), behind the same gate as the app, and holds every other request until
the app takes it. Nothing is refused or answered differently for the wait, only
later: the health check, the API and the WebSocket wait for the app, so none of them
says the table is ready before it is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from boardref.outputs.panel.gate import Gate, refusal_body
from boardref.outputs.panel.headers import SecurityHeaders
from boardref.outputs.panel.pages import plain_pages


class Doorway:
    """An ASGI app in front of the panel's app: the template's pages at once, every
    other request once the app is built and handed over (``open``)."""

    def __init__(self, host_allowed: Callable[[str | None], Awaitable[bool]], sim: bool):
        self._pages = plain_pages(sim)
        self._gate = SecurityHeaders(
            Gate(self._page, host_allowed=host_allowed, answer=refusal_body)
        )
        self._app = None
        self._opened = asyncio.Event()

    def open(self, app) -> None:
        """Hand every request to ``app`` from now on, the held ones too. None: the app
        could not be built, and the held requests fail (the server answers 500)."""
        self._app = app
        self._opened.set()

    async def __call__(self, scope, receive, send) -> None:
        page = scope["type"] == "http" and scope["method"] == "GET" and scope["path"] in self._pages
        if page and not self._opened.is_set():
            await self._gate(scope, receive, send)
            return
        await self._opened.wait()
        if self._app is None:
            raise RuntimeError("the panel's app could not be built")
        await self._app(scope, receive, send)

    async def _page(self, scope, receive, send) -> None:
        await self._pages[scope["path"]]()(scope, receive, send)
