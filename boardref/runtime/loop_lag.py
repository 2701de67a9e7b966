"""How late the service's event loop runs a timer: a stalled loop freezes the LEDs,
the panel and the board link together, so the Pi budget bench
(``bench/bench_pi.py``) measures it while a game is played.

Off unless the config asks for it (``[diagnostics] loop_lag_every_ms``): an idle
table must not wake for it. It only measures; it never changes what the table does.
Its ``percentile`` is the one the simulator and the benches quote their figures by,
taken over every sample as measured: no outlier is dropped, so a busy machine shows
in p99.
"""

from __future__ import annotations

import asyncio
from collections import deque

#: the latest lateness samples kept (at 20 a second, the last quarter of an hour)
KEEP = 20_000


class LoopLag:
    """A timer due every ``every`` seconds on ``loop``; each firing notes how late it
    came, in milliseconds."""

    def __init__(self, loop: asyncio.AbstractEventLoop, every: float):
        self._loop, self._every = loop, every
        self._lates: deque[float] = deque(maxlen=KEEP)
        #: samples taken since the start, the kept ones the latest
        self._taken = 0
        self._timer: asyncio.TimerHandle | None = None

    def start(self) -> None:
        self._schedule(self._loop.time() + self._every)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def figures(self, after: int = 0) -> dict[str, float]:
        """Samples taken since the start (``taken``), and the lateness p50, p99 and
        worst (ms) over the kept ones taken after the first ``after`` (``samples``): a
        bench marks where a game began by the ``taken`` it read then."""
        lates = list(self._lates)[max(0, len(self._lates) - (self._taken - after)) :]
        if not lates:
            return {"taken": self._taken, "samples": 0}
        return {
            "taken": self._taken,
            "samples": len(lates),
            "p50_ms": round(percentile(lates, 0.5), 2),
            "p99_ms": round(percentile(lates, 0.99), 2),
            "max_ms": round(max(lates), 2),
        }

    def _schedule(self, due: float) -> None:
        self._timer = self._loop.call_at(due, self._fire, due)

    def _fire(self, due: float) -> None:
        now = self._loop.time()
        self._lates.append((now - due) * 1000)
        self._taken += 1
        self._schedule(now + self._every)

def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, nearest rank.

    >>> percentile([5.0, 1.0, 3.0, 2.0, 4.0], 0.5)
    3.0
    >>> percentile([1.0, 2.0], 0.99)
    2.0
    """
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
