"""The table as the referee last judged it: one immutable snapshot per change.

The referee publishes a ``TableState`` with every change; the cell lights, the status
LED, the panel's pages and the café fleet render it as it is and never ask the
referee again. Words in it are keys with parameters (``Said``), so each page says
them in its reader's language. What one seat may know alone (a hand of cards) is in
``views`` and ``seat_moves``, which are never part of the public JSON.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from engines.words import Words


class Said(BaseModel):
    """Words by key: a page looks ``key`` up in its word table and fills in ``params``
    (a parameter may itself be ``{"key", "params"}``, said the same way)."""

    model_config = ConfigDict(frozen=True)

    key: str
    params: dict[str, Any] = {}
    #: the same in English, for logs and programs that read no word table
    english: str = ""

    @classmethod
    def of(cls, words: Words) -> Said:
        data = words.to_json()
        return cls(key=data["key"], params=data["params"], english=str(words))


class SeatState(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    words: Said
    colour: str | None
    computer: bool = False


def seats_of(game, computer=frozenset()) -> tuple[SeatState, ...]:
    """The seats of ``game`` as pages show them; ``computer``: the seats it plays."""
    return tuple(
        SeatState(
            name=game.seat_name(s),
            words=Said.of(game.seat_words(s)),
            colour=game.seat_colour(s),
            computer=s in computer,
        )
        for s in range(game.players)
    )


class Ending(BaseModel):
    model_config = ConfigDict(frozen=True)

    winners: tuple[int, ...]
    reason: Said
    scores: tuple[int | float, ...] | None = None


class TableState(BaseModel):
    """Everything the outputs show, as of the referee's last change."""

    model_config = ConfigDict(frozen=True)

    game: str = ""
    players: int = 0
    options: dict[str, Any] = {}
    seats: tuple[SeatState, ...] = ()
    phase: str = "setup"
    #: how the table reads moves: "presence", "camera", "both" or "panel" (tapped)
    sensor: str = "presence"
    #: the seat to move, or None while something is drawn, set up or over
    to_move: int | None = None
    #: the seat whose roll or draw it is (None: nothing to draw, or the table draws)
    drawer: int | None = None
    #: the seat that acts now (to move, or to draw), its name and colour
    acting: int | None = None
    seat_name: str | None = None
    seat_colour: str | None = None
    notice: Said | None = None
    #: the notice in English
    message: str = ""
    #: the pieces as a perfect camera sees them
    position: dict[str, str | None] = {}
    #: the cells of the last move played (or set down, still open), in order
    last_move: tuple[str, ...] = ()
    #: the last move played, in the game's notation
    last_played: str | None = None
    tentative: str | None = None
    #: the seat whose move is tentative (it may still confirm or extend it)
    tentative_seat: int | None = None
    #: the computer's announced move, still to be carried out, and its cells
    expected: str | None = None
    expected_path: tuple[str, ...] = ()
    computer: tuple[int, ...] = ()
    lifted: str | None = None
    destinations: frozenset[str] = frozenset()
    hints: frozenset[str] = frozenset()
    errors: frozenset[str] = frozenset()
    place: str | None = None
    remove: str | None = None
    #: what must be drawn now, in English (e.g. "d6"), and whether it may be declined
    chance: str | None = None
    chance_optional: bool = False
    last_draw: Any = None
    candidates: tuple[str, ...] = ()
    outcome: Ending | None = None
    #: whether a confirm would do something now: a move waits, or one the sensors
    #: cannot see may have been made
    can_confirm: bool = False
    can_takeback: bool = False
    commitment: str = ""
    plies: int = 0
    #: the legal moves, for a table whose moves are tapped (public for open games)
    moves: tuple[str, ...] = ()
    #: the position's record (game.to_json's state), for games with nothing hidden
    record: dict[str, Any] | None = None
    #: the game's public report (scores per landscape, open stacks...)
    report: dict[str, Any] = {}
    #: per seat, what that seat alone may know, and its moves (hidden hands only)
    views: tuple[dict[str, Any], ...] = Field((), exclude=True)
    seat_moves: tuple[tuple[str, ...], ...] = Field((), exclude=True)

    def view_of(self, seat: int | None) -> dict[str, Any] | None:
        """What ``seat`` alone may see, or None."""
        if seat is None or not 0 <= seat < len(self.views):
            return None
        return self.views[seat]

    def moves_of(self, seat: int | None) -> tuple[str, ...]:
        """The moves a page of ``seat`` may offer: the public ones, or its own."""
        if self.moves or seat is None or not 0 <= seat < len(self.seat_moves):
            return self.moves
        return self.seat_moves[seat]
