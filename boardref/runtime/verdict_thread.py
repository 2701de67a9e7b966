"""The referee's verdicts, judged on one worker thread of their own so that a big turn
(Hakenschlagen's tens of thousands of outcomes, a long game's bookkeeping) never
stalls the event loop, the LEDs, the pages and the board link.

One verdict at a time, in the order the loop asked for them. What a verdict tells
the outputs (snapshot, lights, pages, log listeners) is held and told on the loop,
in the order it was said, once the verdict is done; and whatever else would touch
the referee meanwhile (a scan, a frame, a button, a page's command) waits until
then, so nothing is told, lost or done out of the order a verdict on the loop
would have given. It never decides anything and never tells an output from the
worker.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable
from concurrent import futures
from typing import Any

from boardref.referee.events import Outbox

log = logging.getLogger("boardref")


class VerdictThread:
    """The verdict under way on the worker, and the loop's work waiting for it."""

    def __init__(self, loop: asyncio.AbstractEventLoop, woken: Callable[[], None]):
        self._loop, self._woken = loop, woken
        self._worker = futures.ThreadPoolExecutor(1, thread_name_prefix="verdict")
        #: the verdict under way, and the outbox holding what it tells
        self._running: tuple[futures.Future, Outbox] | None = None
        #: the loop's work that arrived while a verdict was under way, in arrival order
        self._waiting: deque[tuple[Callable[..., Any], tuple[Any, ...]]] = deque()
        self._idle = asyncio.Event()
        self._idle.set()

    @property
    def busy(self) -> bool:
        """A verdict is under way (or done and not yet told)."""
        return self._running is not None

    def judge(self, outbox: Outbox, tick: Callable[[float], Any], now: float) -> None:
        """Run ``tick(now)`` on the worker; what it emits to ``outbox`` is told on the
        loop after it."""
        if self._running is not None:
            raise RuntimeError("a verdict is already under way")
        outbox.hold()
        self._idle.clear()
        running = self._worker.submit(tick, now)
        self._running = running, outbox
        running.add_done_callback(lambda _: self._loop.call_soon_threadsafe(self.finish))

    def finish(self) -> None:
        """On the loop: wait for the verdict under way (if any) to be done, tell its
        outputs in order, then do the work that waited for it. A page's command calls
        it first, so the referee it acts on has given every verdict it was asked."""
        under_way, self._running = self._running, None
        if under_way is None:
            return
        running, outbox = under_way
        futures.wait([running])
        outbox.release()
        fault = None if running.cancelled() else running.exception()
        if fault is not None:  # a fault in one verdict must not take the table down
            log.error("the referee failed on a reading; the game stays as it was", exc_info=fault)
        while self._waiting:
            work, args = self._waiting.popleft()
            try:
                work(*args)
            except Exception:  # one failing piece of work must not hold up the rest
                log.exception("the work that waited for a verdict failed")
        self._idle.set()
        self._woken()

    def after(self, work: Callable[..., Any], *args: Any) -> None:
        """Do ``work(*args)`` now on the loop, or once the verdict under way is told."""
        if self._running is None:
            work(*args)
        else:
            self._waiting.append((work, args))

    async def idle(self) -> None:
        """Return once no verdict is under way."""
        while self._running is not None:
            await self._idle.wait()

    def close(self) -> None:
        """Let the verdict under way end; start none after."""
        self._worker.shutdown(wait=True, cancel_futures=True)
