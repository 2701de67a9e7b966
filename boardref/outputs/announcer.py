"""What the table says aloud: each change of the referee's snapshot made into short
sentences (``Announcement``), the same for every outlet (the kiosk page, a phone, the
Pi's own speaker), in word-table keys that each outlet says in its own language.

It reads only the public snapshot, never a seat's hidden view, so no hand is ever
spoken. It never changes the game, and it says nothing twice: each announcement has
a number that rises through a service run, and an outlet says only numbers it has not
said (a page that loads marks those it finds as said).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from boardref.referee.kinds import Phase
from boardref.referee.snapshot import Said, TableState

#: the most recent announcements every output is shown (a page that was slow to take
#: one state still finds what the states it missed said)
RECENT = 6
#: short sounds a table plays beside (or instead of) speech
SOUNDS = ("accepted", "refused", "your_turn", "over")


@dataclass(frozen=True)
class Announcement:
    """One sentence for the table, or for one seat's phone."""

    #: rises by one with each announcement of a service run
    number: int
    said: Said
    #: None: the whole table hears it; a seat: only that seat's phone says it
    to: int | None
    #: the moment of the game it is about (game, plies, phase): stale once it passed
    moment: Hashable
    #: one of ``SOUNDS``, or None
    sound: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"number": self.number, "said": self.said.model_dump(mode="json"),
                "to": self.to, "sound": self.sound}


def moment_of(state: TableState, game_id: int | None) -> Hashable:
    """The moment of the game ``state`` shows: an announcement about it is stale once
    the table has moved on to another."""
    return (game_id, state.plies, state.phase, state.acting)


class Announcer:
    """Turns each new snapshot into announcements and keeps the ``RECENT`` ones."""

    def __init__(self) -> None:
        self.recent: deque[Announcement] = deque(maxlen=RECENT)
        self._number = 0
        self._before: TableState | None = None

    def hear(self, state: TableState, game_id: int | None) -> tuple[Announcement, ...]:
        """The announcements ``state`` brings (since the last state heard)."""
        before, self._before = self._before, state
        if before is state:
            return ()
        moment = moment_of(state, game_id)
        fresh = [
            self._announce(said, to, moment, sound)
            for said, to, sound in sentences(before, state)
        ]
        self.recent.extend(fresh)
        return tuple(fresh)

    def _announce(self, said: Said, to: int | None, moment: Hashable,
                  sound: str | None) -> Announcement:
        self._number += 1
        return Announcement(self._number, said, to, moment, sound)


def sentences(before: TableState | None, after: TableState):
    """``(said, to, sound)`` of each sentence the change from ``before`` to ``after``
    brings, in the order they are said."""
    if after.phase == Phase.MOVE and after.acting is not None and (
        before is None or before.acting != after.acting or before.phase != after.phase
    ):
        seat = after.seats[after.acting] if after.acting < len(after.seats) else None
        if seat is not None and not seat.computer:
            said = Said(key="to_move", params={"seat": seat.words.model_dump(mode="json")},
                        english=f"{seat.name} to move")
            yield said, None, "your_turn"
