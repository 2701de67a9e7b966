"""What the referee tells its listeners: a game's events (``Event``), and after
every change the table's new snapshot (``NewSnapshot``), two different things.

The ``Outbox`` tells every listener in turn. A listener that fails is logged and
the others are still told: the verdict stands, it is in the event log already,
whatever an output does with it. It never decides anything.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from boardref.referee.kinds import EventKind
from boardref.referee.snapshot import TableState

log = logging.getLogger("boardref")


@dataclass(frozen=True)
class Event:
    """Something in the game players should hear about; ``accepted`` events are in
    the event log, with this ``data``."""

    kind: EventKind
    data: dict[str, Any]
    accepted: bool = False


@dataclass(frozen=True)
class NewSnapshot:
    """The table as the referee judged it after a change: what the outputs show."""

    table: TableState
    kind: Literal["snapshot"] = field(default="snapshot", init=False)
    #: never in the log: a snapshot is drawn from it
    accepted: Literal[False] = field(default=False, init=False)


#: what a listener hears
Heard = Event | NewSnapshot
Listener = Callable[[Heard], None]


class Outbox:
    """The referee's listeners and the last snapshot it sent them."""

    def __init__(self, snapshot: Callable[[], TableState]):
        self.listeners: list[Listener] = []
        #: the last snapshot of the table sent in a ``NewSnapshot``
        self.published = TableState()
        self._snapshot = snapshot
        #: what was emitted since ``hold``, told by ``release``
        self._held: list[Heard] | None = None

    def hold(self) -> None:
        """Keep what is emitted from now on until ``release``: a verdict judged on a
        worker thread has its listeners told on the event loop, after it."""
        self._held = []

    def release(self) -> None:
        """Tell the listeners, in order, what was kept since ``hold``."""
        held, self._held = self._held or [], None
        for event in held:
            self.emit(event)

    def emit(self, event: Heard) -> None:
        """Tell every listener; one that fails is logged and the others still hear it."""
        if self._held is not None:
            self._held.append(event)
            return
        for listener in list(self.listeners):
            try:
                listener(event)
            except Exception:
                log.exception("a listener failed on a %s event; the others were told", event.kind)

    def publish(self) -> None:
        """Send the table's new snapshot to every listener."""
        self.published = self._snapshot()
        self.emit(NewSnapshot(self.published))
