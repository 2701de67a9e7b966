"""One piece set on a cell by the referee's tap: the game's record with that cell's
piece changed, for the referee's position command to check and set. Where a game's
record keeps which piece is in ``placing.toml``. It only edits a record: whether the
position is one the rules allow is the engine's to say, never this module's."""

from __future__ import annotations

import copy
import tomllib
from functools import cache
from importlib import resources
from typing import Any

from boardref.referee.verdicts import RefereeError, token_words
from engines.words import words


@cache
def _places() -> dict[str, dict[str, dict[str, str]]]:
    return tomllib.loads(resources.files("boardref.referee").joinpath("placing.toml").read_text())


def pieces(game) -> dict[str, tuple[str, int | None]]:
    """The pieces a tap may set in ``game``, by token: the record's field that holds
    it and its seat (None: a piece of no seat). Empty where a game is not set by taps."""
    found: dict[str, tuple[str, int | None]] = {}
    start = game.to_json(game.initial_state())["state"]
    seen = game.observe(game.initial_state())
    for field, place in _places().get(game.name, {}).items():
        if place["kind"] in ("cell", "cells"):
            found[place["token"]] = (field, None)
            continue
        for seat, held in enumerate(start[field]):
            first = held[0] if place["kind"] == "seat_cells" else held
            found[seen[first]] = (field, seat)
    return found


def single(game, token: str) -> bool:
    """Whether ``token`` is a piece there is one of (of the game or of a seat), which
    a tap moves rather than adds."""
    field, _ = pieces(game)[token]
    return _places()[game.name][field]["kind"] in ("cell", "seat_cell")


def place_all(game, state: dict[str, Any], placings) -> dict[str, Any]:
    """``state`` with each of ``placings`` (cell, token or None) done in turn."""
    for cell, token in placings:
        state = place(game, state, cell, token)
    return state


def place(game, state: dict[str, Any], cell: str, token: str | None) -> dict[str, Any]:
    """``state`` (a record's state) with ``token`` on ``cell``, or nothing there."""
    if cell not in game.board.index:
        raise RefereeError(
            words(
                "referee.no_cell",
                "{cell} is not a cell of this board: tap a cell of the board",
                cell=cell,
            )
        )
    if game.name not in _places():
        raise RefereeError(
            words(
                "referee.set_whole_record",
                "This game's position is not set by taps: set the whole record as JSON",
            )
        )
    known = pieces(game)
    if token is not None and token not in known:
        raise RefereeError(
            words(
                "referee.no_such_piece",
                "This game has no piece {token} to set: pick one of the pieces shown",
                token=token_words(token),
            )
        )
    kinds = {field: place["kind"] for field, place in _places()[game.name].items()}
    placed = copy.deepcopy(state)
    own = None if token is None else known.get(token)  # where the piece set belongs
    for field, kind in kinds.items():  # whatever stood on the cell goes
        held = placed[field]
        if kind == "cells":
            placed[field] = [c for c in held if c != cell]
        elif kind == "seat_cells":
            placed[field] = [[c for c in cells if c != cell] for cells in held]
        elif kind == "cell" and held == cell and own != (field, None):
            raise piece_needed(known, (field, None))
        elif kind == "seat_cell" and cell in held and own != (field, held.index(cell)):
            raise piece_needed(known, (field, held.index(cell)))
    if token is not None:
        field, seat = known[token]
        if kinds[field] == "cells":
            placed[field].append(cell)
        elif kinds[field] == "seat_cells":
            placed[field][seat].append(cell)
        elif kinds[field] == "seat_cell":
            placed[field][seat] = cell
        else:
            placed[field] = cell
    return placed


def piece_needed(known: dict[str, tuple[str, int | None]], where) -> RefereeError:
    """A piece the game always has on the board cannot be taken off it, only moved."""
    token = next(t for t, place in known.items() if place == where)
    return RefereeError(
        words(
            "referee.piece_needed",
            "The {token} always stands on the board: tap the cell it should move to",
            token=token_words(token),
        )
    )


def record_of(game, state: dict[str, Any]) -> dict[str, Any]:
    """A whole record of ``game`` around a record's ``state``."""
    return {
        "game": game.name,
        "players": game.players,
        "options": dict(game.options),
        "state": state,
    }
