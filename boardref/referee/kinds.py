"""The referee's vocabulary, in one place: how a table reads its board, the phases
of a game at the table, and the kinds of events the referee tells its listeners.

Each is a ``StrEnum``: its members are the very strings the event log, the
snapshot's JSON and the pages use, so nothing is translated on the way out. It
holds names only, never behaviour.
"""

from __future__ import annotations

from enum import StrEnum


class Sensor(StrEnum):
    """How a table reads its board; the first two are also what ``game.sense`` is
    asked for (``projection``)."""

    #: hall sensors: whether a cell holds a piece (and, per game, which figure)
    PRESENCE = "presence"
    #: the camera, which sees what stands where
    CAMERA = "camera"
    #: camera and hall sensors together
    BOTH = "both"
    #: no board is read: moves are tapped on the panel
    PANEL = "panel"


class Phase(StrEnum):
    """Where a game at the table stands."""

    #: the players lay out the position the game expects
    SETUP = "setup"
    #: something is to be drawn (a roll, marbles, a card)
    CHANCE = "chance"
    #: a seat is to move
    MOVE = "move"
    #: several moves fit the board: the players choose
    AMBIGUOUS = "ambiguous"
    #: the game has ended
    OVER = "over"


class EventKind(StrEnum):
    """What an event tells; the logged kinds are the event log's own."""

    # logged: the game's record
    MOVE = "move"
    CHANCE = "chance"
    TAKEBACK = "takeback"
    CORRECTION = "correction"
    SEATS = "seats"
    GAME_OVER = "game_over"
    # told, not logged
    GAME_STARTED = "game_started"
    RESUMED = "resumed"
    IN_POSITION = "in_position"
    TENTATIVE = "tentative"
    AMBIGUOUS = "ambiguous"
    COMPUTER_MOVE = "computer_move"
    RULED_OUT = "ruled_out"
    LIFTED = "lifted"
    CAPTURE_PENDING = "capture_pending"
    ILLEGAL = "illegal"
    UNREADABLE = "unreadable"
    OUT_OF_SYNC = "out_of_sync"
    STORE_ERROR = "store_error"


def projection(sensor: Sensor) -> Sensor:
    """The kind of reading ``game.sense`` gives for a table's sensor: a table with a
    camera reads what the camera sees, hall sensors or not."""
    return Sensor.CAMERA if sensor == Sensor.BOTH else sensor
