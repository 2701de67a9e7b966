"""What every output is shown at one moment: the referee's last snapshot and the
table's own facts beside it (the board link, the virtual board of ``--sim``, the game's
number and start), pushed whole by the service.

An output renders a ``Display`` as it is; it never asks the referee or the service for
anything else, so it shows the same table whichever output hears of a change first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from boardref.outputs.announcer import Announcement
from boardref.outputs.speech import SpeechShown
from boardref.referee.snapshot import TableState


@dataclass(frozen=True)
class Display:
    """The table as every output shows it."""

    #: the referee's last snapshot, as published
    state: TableState
    #: the board link: "up", "down"... or "none" at a table without a board
    link: str = "none"
    #: the game's number in the event log (None before a game starts)
    game_id: int | None = None
    #: when the game began (wall clock, seconds)
    started: float = 0.0
    #: whether this is a simulated table (``serve --sim``)
    sim: bool = False
    #: the virtual board as pages draw it (``VirtualBoard.snapshot``; None off ``--sim``)
    virtual: dict[str, Any] | None = None
    #: the table's most recent announcements, oldest first (``announcer.RECENT``)
    said: tuple[Announcement, ...] = ()
    #: how each outlet speaks (``TableSpeech.shown``; None before the table has any)
    speech: SpeechShown | None = None
    #: the camera: "up" (giving frames), "down" (gives none), "opening", or "none" at a
    #: table without one
    camera: str = "none"
