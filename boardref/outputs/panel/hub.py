"""WebSocket fan-out: every connected page gets the newest state as soon as it
changes. A page is sent at most one state every ``SPACING_S``: a move brings its
states in a burst (a piece lifted, set down, judged, the turn held open), and a page
draws every state it is sent, so the states that come while one is being sent or
within that time after it are replaced by the newest, which is always sent. A slow
page is likewise sent only the latest state when it catches up (older ones are
dropped, never queued), so one sluggish phone cannot hold up the table. A state that
shows a page nothing new (it differs from the one offered before only in its place in
the run's order, or in the simulator's virtual board on a page that does not draw it)
is not sent to that page at all: each state sent costs the table's kiosk its drawing.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from starlette.websockets import WebSocketDisconnect

if TYPE_CHECKING:
    from starlette.websockets import WebSocket

#: the least time between two states sent to one page: a Hakenschlagen turn pushes
#: some ten states, each costing the table's kiosk on a Pi a redraw, most of them
#: within a tenth of a second of the one before
SPACING_S = 0.1


class Subscriber:
    """One connected page: the player seat it speaks for (or None), whether it draws
    the simulator's virtual board, and its outbox."""

    #: the least time between two states sent to this page
    spacing = SPACING_S

    #: whether the page draws the simulator's virtual board (the /sim page)
    virtual = False

    def __init__(self, socket: WebSocket, seat: int | None):
        self.socket = socket
        self.seat = seat
        self._newest: str | None = None
        self._shown: str | None = None
        self._ready = asyncio.Event()

    def offer(self, text: str, shown: str | None = None) -> None:
        """Send ``text`` as soon as the spacing allows; ``shown``, where given, is what
        the page shows of it: a text that shows the same as the one offered before
        is not sent."""
        if shown is not None:
            if shown == self._shown:
                return
            self._shown = shown
        self._newest = text
        self._ready.set()

    async def pump(self) -> None:
        """Send whatever is newest, then let ``spacing`` pass before the next, until
        the page goes away."""
        while True:
            await self._ready.wait()
            self._ready.clear()
            text, self._newest = self._newest, None
            if text is not None:
                await self.socket.send_text(text)
                await asyncio.sleep(self.spacing)


class Hub:
    """All connected pages of one panel."""

    def __init__(self, page: Callable[[WebSocket, int | None], Subscriber] = Subscriber):
        self.subscribers: set[Subscriber] = set()
        self._page = page  # makes the subscriber of a page that connects

    def broadcast(self, public: str) -> None:
        """Offer ``public`` to every page."""
        for subscriber in self.subscribers:
            subscriber.offer(public)

    def show(self, sent: Callable[[Subscriber], tuple[str, str]]) -> None:
        """Offer every page its ``sent(page)``: the text it is sent, and what it shows
        of it (see ``Subscriber.offer``)."""
        for subscriber in self.subscribers:
            subscriber.offer(*sent(subscriber))

    async def serve(
        self,
        socket: WebSocket,
        seat: int | None,
        first: str,
        shown: str | None = None,
        virtual: bool = False,
    ) -> None:
        """Keep one page up to date until it disconnects: sent ``first`` at once (what
        it shows of it ``shown``, see ``Subscriber.offer``); ``virtual`` if it draws
        the virtual board."""
        subscriber = self._page(socket, seat)
        subscriber.virtual = virtual
        subscriber.offer(first, shown)
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
