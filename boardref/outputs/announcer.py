"""What the table says aloud: each change of the referee's snapshot made into short
sentences (``Announcement``), the same for every outlet (the kiosk page, a phone, the
Pi's own speaker), in word-table keys that each outlet says in its own language.

It reads only the public snapshot, never a seat's hidden view, so no hand is ever
spoken. It never changes the game, and it says nothing twice: each announcement has
a number that rises through a service run, and an outlet says only numbers it has not
said (a page that loads marks those it finds as said). A sentence it cannot make is
logged and left unsaid: speech must never keep a state from the table's pages.
"""

from __future__ import annotations

import logging
import re
from collections import deque
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from boardref.outputs.spoken import COMPUTER_MOVES, COMPUTER_PLAYS, heard
from boardref.referee.kinds import Phase
from boardref.referee.snapshot import Ending, Said, SeatState, TableState

log = logging.getLogger("boardref")

#: the most recent announcements every output is shown (a page that was slow to take
#: one state still finds what the states it missed said)
RECENT = 6
#: the turn's prompts in English (the word tables say them in every language)
PROMPTS = {
    "to_roll": "{seat} rolls", "to_draw": "{seat} draws", "to_move": "{seat} to move",
    "your_roll": "Your roll", "your_draw": "Your draw", "your_turn": "Your turn",
}
#: the draws whose result is said: a die ("roll a d6"), marbles ("draw 2 from the bag")
SAID_DRAWS = re.compile(r"^(roll|draw \d+) ")
#: the referee's two sentences in one: a move corrected, then what to do now
REPLACED_THEN = "referee.replaced_then"
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
        #: the moment last announced and what was said to whom in it: said once
        self._said_in: tuple[Hashable, set[tuple[str, str, int | None]]] = (None, set())
        #: the failures already logged: a fault that recurs at every state is logged once
        self._failed: set[str] = set()

    def hear(self, state: TableState, game_id: int | None) -> tuple[Announcement, ...]:
        """The announcements ``state`` brings (since the last state heard); none, and a
        line in the log, when its sentences cannot be made."""
        before, self._before = self._before, state
        if before is state:
            return ()
        try:
            return self._hear(before, state, game_id)
        except Exception as fault:  # the state is still shown; only its words are lost
            failure = f"{type(fault).__name__}: {fault}"
            if failure not in self._failed:
                self._failed.add(failure)
                log.error("the table could not say what happened (%s); the game goes on "
                          "without these words", failure, exc_info=fault)
            return ()

    def _hear(self, before: TableState | None, state: TableState,
              game_id: int | None) -> tuple[Announcement, ...]:
        moment = moment_of(state, game_id)
        if self._said_in[0] != moment:
            self._said_in = (moment, set())
        said_in = self._said_in[1]
        fresh = []
        for said, to, sound in sentences(before, state):
            once = (said.key, repr(said.params), to)
            if once not in said_in:
                said_in.add(once)
                fresh.append(self._announce(said, to, moment, sound))
        self.recent.extend(fresh)
        return tuple(fresh)

    def _announce(self, said: Said, to: int | None, moment: Hashable,
                  sound: str | None) -> Announcement:
        self._number += 1
        return Announcement(self._number, said, to, moment, sound)


def sentences(before: TableState | None, after: TableState):
    """``(said, to, sound)`` of each sentence the change from ``before`` to ``after``
    brings, in the order they are said: the game's end, or the roll or marbles just
    drawn, what the referee newly says (a refusal and how to fix it, the computer's
    move), and whose turn it is now and what they must do."""
    if after.outcome is not None:
        if before is None or before.outcome is None:
            yield _the_end(after.outcome, after.seats), None, "over"
        return
    drawn = _drawn(before, after)
    if drawn is not None:
        yield drawn, None, None
    notice = after.notice
    if notice is not None and (before is None or before.notice != notice):
        refused = notice.key not in (COMPUTER_MOVES, COMPUTER_PLAYS)
        for part in _one_by_one(notice):
            yield heard(part, after), None, "refused" if refused and after.errors else None
    if after.still_to_do is not None and after.tentative_seat is not None and (
        before is None or before.still_to_do != after.still_to_do
    ):
        yield heard(after.still_to_do, after), after.tentative_seat, None
    yield from _turn(before, after)


def _one_by_one(notice: Said):
    """``notice`` a sentence at a time: a corrected move, then what the board needs now."""
    if notice.key != REPLACED_THEN:
        yield notice
        return
    for part in (notice.params.get("replaced"), notice.params.get("then")):
        if isinstance(part, dict) and "key" in part:
            yield Said(key=part["key"], params=part.get("params") or {})


def _the_end(ending: Ending, seats: tuple[SeatState, ...]) -> Said:
    winners = [seats[s] for s in ending.winners if s < len(seats)]
    if not winners:
        return Said(key="draw_game", english="A draw")
    names = [seat.words.model_dump(mode="json") for seat in winners]
    english = ", ".join(seat.name for seat in winners)
    return Said(key="winner", params={"names": names}, english=f"Winner: {english}")


def _drawn(before: TableState | None, after: TableState) -> Said | None:
    """The die's roll or the marbles just drawn from the bag (a shuffle's deal is
    never said: it would tell the cards; nor a tile, which the board shows)."""
    if before is None or before.chance is None or after.last_draw is None:
        return None
    if not SAID_DRAWS.match(before.chance) or (
        before.chance == after.chance and before.plies == after.plies
    ):
        return None
    values = after.last_draw if isinstance(after.last_draw, list | tuple) else [after.last_draw]
    said = heard(Said(key="drawn", params={"value": list(values)}), after)
    key = "speech.rolled" if before.chance.startswith("roll") else "drawn"
    return Said(key=key, params=said.params, english=f"Drawn: {after.last_draw}")


def _turn(before: TableState | None, after: TableState):
    """Whose turn it is and what they must do, at each new moment of a person's turn
    (a move accepted, a roll made): to the table ("Blue rolls") and to that seat's
    phone ("Your roll")."""
    seat = after.acting
    if seat is None or seat >= len(after.seats) or after.seats[seat].computer:
        return
    if before is not None and moment_of(before, None) == moment_of(after, None):
        return
    named = {"seat": after.seats[seat].words.model_dump(mode="json")}
    moved = before is not None and after.plies > before.plies and before.chance is None
    if after.phase == Phase.CHANCE and after.chance is not None:
        rolls = after.chance.startswith("roll")
        table, own = ("to_roll", "your_roll") if rolls else ("to_draw", "your_draw")
    elif after.phase == Phase.MOVE:
        table, own = "to_move", "your_turn"
    else:
        return
    english = PROMPTS[table].format(seat=after.seats[seat].name)
    yield Said(key=table, params=named, english=english), None, (
        "accepted" if moved else "your_turn"
    )
    yield Said(key=own, english=PROMPTS[own]), seat, "your_turn"
