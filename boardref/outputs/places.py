"""Places on the board as the players call them, for sentences a person hears: a place
the board's data names ("the top left corner", "the middle"), a home or gate of Fang
den Hut! by its colour, a hole in a Sternhalma star point by that point's colour.

It reads the board file and the public snapshot; it never says a cell's label. Where
the board names no place it answers None, and the sentence says "the marked place"
while the drawing marks it.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from boardref.referee.snapshot import TableState
from engines import load_game
from engines.geometry import Board
from engines.words import Words, words

#: a home or gate of Fang den Hut! where a sentence goes from or to it takes "the"
HOME = "{case, select, from {the {colour} home} to {the {colour} home} other {{colour} home}}"
GATE = "{case, select, from {the {colour} gate} to {the {colour} gate} other {{colour} gate}}"


def board_of(state: TableState) -> Board | None:
    """The board of the game ``state`` shows (None before a game)."""
    if not state.game:
        return None
    return _board(state.game, state.players or None, json.dumps(state.options, sort_keys=True))


@cache
def _board(game: str, players: int | None, options: str) -> Board:
    return load_game(game, players, **json.loads(options)).board


def place(cell: str, state: TableState) -> Words | None:
    """``cell`` by the name its board gives it, else None."""
    board = board_of(state)
    if board is None or cell not in board.index:
        return None
    named = board.game.get("places", {}).get(cell)
    if named is not None:
        # the board file names its places by word key (the tables hold their words)
        return Words(named, "")
    found = board.cell(cell)
    if state.game == "fang_den_hut":
        if cell == "centre":
            return words("fdh.centre", "the centre")
        if found.kind == "home" and found.zone:
            return words("fdh.home", HOME, colour=colour_words(found.zone, state))
        if cell.startswith("gate_"):
            colour = colour_words(cell.removeprefix("gate_"), state)
            return words("fdh.gate", GATE, colour=colour)
    if state.game == "sternhalma" and found.kind == "point" and found.zone:
        colour = board.game["colour"][found.zone]
        return words("stern.place_in_point", "the marked place in the star point of {colour}",
                     colour=colour_words(colour, state))
    return None


def colour_words(colour: str, state: TableState) -> Any:
    """A colour as the table names it: the seat that plays it, else the colour itself."""
    for seat in state.seats:
        if seat.colour == colour:
            return seat.words.model_dump(mode="json")
    return Words(f"seat.{colour}", colour)
