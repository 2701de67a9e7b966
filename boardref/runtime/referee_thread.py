"""The referee's own thread: every piece of work that touches the referee (a settled
reading's verdict, a scan, a camera frame's reading, a button, a page's command, a
computer seat's move) goes through it, one at a time and in the order it was
handed in, so that a big turn (Hakenschlagen's tens of thousands of outcomes, a
long game's bookkeeping) never stalls the event loop, the LEDs, the pages and the
board link.

Work is done on the worker thread, or on the loop where it also touches what only
the loop may (the virtual board, a new board's link, the camera's opening): in turn
with the rest either way, never two at once, so the referee is only ever touched by
one thread at a time. What a piece of work tells the outputs (snapshot, lights,
pages, log listeners) is held and told on the loop, in the order it was said, once
it is done, and before whoever handed it in hears its result. The loop never waits
for the worker: it hands work in and goes on. This module never decides anything
and never tells an output from the worker.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable
from concurrent import futures
from typing import Any, NamedTuple

from boardref.referee.events import Outbox

log = logging.getLogger("boardref")


class _Work(NamedTuple):
    do: Callable[..., Any]
    args: tuple[Any, ...]
    #: done on the worker thread (else on the loop, in turn)
    off_loop: bool
    #: where the result goes; None: nobody waits for it, a fault is logged
    answer: asyncio.Future | None
    #: the loop it was handed in on, where its outputs are told
    loop: asyncio.AbstractEventLoop


class RefereeThread:
    """The work handed in for the referee, in order, and the piece under way."""

    def __init__(self, loop: asyncio.AbstractEventLoop, outbox: Outbox, woken: Callable[[], None]):
        #: the service's loop, where device threads hand work in
        self._loop = loop
        self._outbox, self._woken = outbox, woken
        self._worker = futures.ThreadPoolExecutor(1, thread_name_prefix="referee")
        self._waiting: deque[_Work] = deque()
        #: a piece of work is on the worker (or done there and not yet told)
        self._under_way = False
        #: work on the loop is being done: what it hands in waits until it is
        self._here = False

    @property
    def busy(self) -> bool:
        """Work is under way or waiting its turn."""
        return self._under_way or bool(self._waiting)

    def run(self, work: Callable[..., Any], *args: Any) -> None:
        """Do ``work(*args)`` on the worker in its turn; a fault in it is logged."""
        self._hand_in(work, args, True, answered=False)

    def run_here(self, work: Callable[..., Any], *args: Any) -> None:
        """Do ``work(*args)`` on the loop in its turn; a fault in it is logged."""
        self._hand_in(work, args, False, answered=False)

    def ask(self, work: Callable[..., Any], *args: Any) -> asyncio.Future:
        """Do ``work(*args)`` on the worker in its turn: its result (or what it raised),
        once what it told the outputs is told."""
        return self._hand_in(work, args, True, answered=True)

    def ask_here(self, work: Callable[..., Any], *args: Any) -> asyncio.Future:
        """Do ``work(*args)`` on the loop in its turn: its result (or what it raised)."""
        return self._hand_in(work, args, False, answered=True)

    def close(self) -> None:
        """Let the work under way end; do none after."""
        self._worker.shutdown(wait=True, cancel_futures=True)
        while self._waiting:
            answer = self._waiting.popleft().answer
            if answer is not None and not answer.done():
                answer.cancel()

    def _hand_in(self, do: Callable[..., Any], args: tuple, off_loop: bool, answered: bool) -> Any:
        """Queue the work on the loop handing it in (the service's; a test's client may
        run a loop of its own, and hears its answers there)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = self._loop
        answer = loop.create_future() if answered else None
        self._waiting.append(_Work(do, args, off_loop, answer, loop))
        self._next()
        return answer

    def _next(self) -> None:
        """On the loop: start the waiting work in order, until one is on the worker."""
        if self._here:
            return
        while self._waiting and not self._under_way:
            work = self._waiting.popleft()
            if work.off_loop:
                self._under_way = True
                self._outbox.hold()
                running = self._worker.submit(work.do, *work.args)
                running.add_done_callback(
                    lambda done, work=work: work.loop.call_soon_threadsafe(self._told, work, done)
                )
                return
            self._here = True
            try:
                result = work.do(*work.args)
            except Exception as fault:
                _answer(work, None, fault)
            else:
                _answer(work, result, None)
            finally:
                self._here = False

    def _told(self, work: _Work, done: futures.Future) -> None:
        """On the loop: the work on the worker is done; tell its outputs in order, answer
        whoever handed it in, start the next."""
        self._outbox.release()  # what the listeners hand in meanwhile waits its turn
        self._under_way = False
        if done.cancelled():
            _answer(work, None, futures.CancelledError())
        else:
            fault = done.exception()
            _answer(work, None if fault is not None else done.result(), fault)
        self._woken()
        self._next()


def _answer(work: _Work, result: Any, fault: BaseException | None) -> None:
    """Hand the result to whoever waits for it; a fault nobody waits for is logged (one
    piece of work that fails must not take the table down)."""
    answer = work.answer
    if answer is None:
        if fault is not None:
            log.error("the referee failed on %s; the game stays as it was",
                      getattr(work.do, "__name__", "a piece of work"), exc_info=fault)
        return
    if answer.done():  # whoever asked went away (a page's request cancelled)
        return
    if fault is not None:
        answer.set_exception(fault)
    else:
        answer.set_result(result)
