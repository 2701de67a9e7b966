"""The service's referee clock: it judges a reading once it has settled, indexes the
next verdict's lookups in a worker thread, lets the computer act, gives the garbage
collector its turn while players think, and pings systemd's watchdog; between, it
sleeps until the next reading settles or something happens (a scan, a frame, a
page's command, a worker's result wakes it). It hands whatever touches the referee
to the referee's thread and never waits for it there; it decides nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING

from boardref.referee.successors import index_successors
from boardref.runtime.memory import collect_while_quiet
from boardref.runtime.notify import notify, watchdog_interval

if TYPE_CHECKING:
    from boardref.runtime.service import Service

log = logging.getLogger("boardref")

#: seconds with no verdict after which the garbage collector takes its turn
QUIET_S = 0.5


class RefereeClock:
    """When the referee of one service judges, indexes and lets the computer act."""

    def __init__(self, service: Service, wake: asyncio.Event):
        self._table = service
        #: set when something happened that the clock should look at
        self._wake = wake
        self._indexing: asyncio.Future | None = None
        #: a position whose indexing failed in the worker: the verdict indexes it itself
        self._unindexed = None
        #: when the garbage collector is to take its turn, once no verdict came since
        self._collect_at: float | None = None

    async def run(self, stop: asyncio.Event) -> None:
        """Judge readings as they settle, index the next verdict's lookups and let the
        computer think, each when something happened; between, sleep until the next
        reading settles, the collector's turn or the watchdog is due."""
        ping_every = watchdog_interval()
        next_ping = time.monotonic()
        while not stop.is_set():
            self._wake.clear()
            now = time.monotonic()
            busy = self._table.referee_thread.busy  # its work wakes the loop once told
            try:
                if not busy:
                    self._judge(now)
            except Exception:  # a fault in one verdict must not take the table down
                log.exception("the referee failed on a reading; the game stays as it was")
            if ping_every is not None and now >= next_ping:
                notify("WATCHDOG=1")
                next_ping = now + ping_every
            due = [next_ping] if ping_every is not None else []
            settles = self._table.referee.settles_at()
            busy = self._table.referee_thread.busy
            if settles is not None and self._indexing is None and not busy:
                due.append(settles)
            if self._collect_at is not None and settles is None and not busy:
                if now < self._collect_at:
                    due.append(self._collect_at)
                else:  # players think: the collection no verdict then has to make
                    collect_while_quiet()
                    self._collect_at = None
            await self._sleep(min(due, default=None))

    async def _sleep(self, until: float | None) -> None:
        """Sleep until ``until`` (monotonic seconds; None: no deadline), or until woken."""
        delay = None if until is None else max(0.0, until - time.monotonic())
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(delay):
                await self._wake.wait()

    def _judge(self, now: float) -> None:
        """Index the next lookups, judge a settled reading off the loop, or let the
        computer act; a reading waits for the running indexing."""
        self._prepare()
        if self._indexing is None and self._table.referee.due(now):
            self._table.referee_thread.run(self._table.board.tick, now)
            self._collect_at = now + QUIET_S
        else:
            self._table.computer.act(self._table.referee)

    def will_index(self) -> bool:
        """Whether a position the referee shows is still to be indexed here: its
        moves the board cannot feel, and whether the turn can be confirmed, are
        shown once it is (the pages wait for them, ``Panel.hold``)."""
        return any(state != self._unindexed for state in self._table.referee.unprepared())

    def _prepare(self) -> None:
        """Index the next verdict's lookups in a worker thread, so that a game with
        tens of thousands of outcomes a turn never stalls the loop or the panel."""
        referee = self._table.referee
        if self._indexing is not None:
            return
        wanted = [state for state in referee.unprepared() if state != self._unindexed]
        if not wanted:
            return
        game, state, sensor = referee.game, wanted[0], referee.sensor

        async def index() -> None:
            try:
                found = await asyncio.to_thread(index_successors, game, state, sensor)
                await self._table.referee_thread.ask(referee.adopt, game, state, found)
            except Exception:  # the verdict will index it on the loop, and say why it fails
                log.exception("indexing the moves from a position failed")
                self._unindexed = state
            finally:
                self._indexing = None
                self._wake.set()
                self._table.panel.release()  # the pages held for it (``will_index``)

        self._indexing = asyncio.ensure_future(index())
