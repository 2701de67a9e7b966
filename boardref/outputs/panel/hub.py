"""WebSocket fan-out: every connected page gets the newest state as soon as it
changes. A slow page is sent only the latest state when it catches up (older ones are
dropped, never queued), so one sluggish phone cannot hold up the table.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from starlette.websockets import WebSocketDisconnect

if TYPE_CHECKING:
    from starlette.websockets import WebSocket


class Subscriber:
    """One connected page: the player seat it speaks for (or None) and its outbox."""

    def __init__(self, socket: WebSocket, seat: int | None):
        self.socket = socket
        self.seat = seat
        self._newest: str | None = None
        self._ready = asyncio.Event()

    def offer(self, text: str) -> None:
        self._newest = text
        self._ready.set()

    async def pump(self) -> None:
        """Send whatever is newest, until the page goes away."""
        while True:
            await self._ready.wait()
            self._ready.clear()
            text, self._newest = self._newest, None
            if text is not None:
                await self.socket.send_text(text)


class Hub:
    """All connected pages of one panel."""

    def __init__(self, page: Callable[[WebSocket, int | None], Subscriber] = Subscriber):
        self.subscribers: set[Subscriber] = set()
        self._page = page  # makes the subscriber of a page that connects

    def broadcast(self, public: str, private: dict[int, str] | None = None) -> None:
        """Offer ``public`` to every page, or a seat's ``private`` text to its player."""
        private = private or {}
        for subscriber in self.subscribers:
            subscriber.offer(private.get(subscriber.seat, public))

    def seats(self) -> set[int]:
        """Seats with a player page connected (their private views are needed)."""
        return {s.seat for s in self.subscribers if s.seat is not None}

    async def serve(self, socket: WebSocket, seat: int | None, first: str) -> None:
        """Keep one page up to date until it disconnects."""
        subscriber = self._page(socket, seat)
        subscriber.offer(first)
        self.subscribers.add(subscriber)
        pump = asyncio.create_task(subscriber.pump())
        try:
            # pages send nothing we act on (text or binary alike): this notices them leaving
            while (await socket.receive())["type"] != "websocket.disconnect":
                pass
        except WebSocketDisconnect:
            pass
        finally:
            self.subscribers.discard(subscriber)
            pump.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await pump
