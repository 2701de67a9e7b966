"""The words of the board for what the table says aloud: the referee's sentences made
fit to be heard by anyone at the table, in the same word keys the pages show.

A page names cells by highlighting them; a voice cannot, so a cell in a sentence is
said by the name its board gives the place ("the top left corner", "the red home"),
else as "the marked place" or "one of the glowing places", and a move in the game's
notation as the game's own sentence ("The computer moves the hare from the top left
corner to the middle"), else as the move that glows. It reads only what it is given
from the public snapshot and the board's file, and never names a cell by its label or
a piece by its identifier.
"""

from __future__ import annotations

from typing import Any

from boardref.outputs.computer_words import CARD, card_words, computer_words
from boardref.outputs.panel.words import table
from boardref.outputs.places import place
from boardref.referee.snapshot import Said, TableState

#: the names it gives moves in the game's notation by
MOVE_NAMES = frozenset(("move", "replaced", "chosen", "then"))
#: the referee's sentences announcing the computer's move: carried out on the board
#: by a guest, or made by the computer itself
COMPUTER_MOVES, COMPUTER_PLAYS = "referee.computer_moves", "referee.computer_plays"
#: another move played than the one the computer announced
NOT_COMPUTER_MOVE = "referee.not_computer_move"
#: a tower carried on whole where one piece must stay
PIECE_STAYS = "referee.piece_stays"
#: the computer's move in a game whose moves have no sentence of their own here
LIT = "speech.computer_lit"
#: the most cells a sentence names by their places (more are the marked places)
NAMED_AT_MOST = 3


def words_of(key: str, english: str = "", **params: Any) -> dict[str, Any]:
    """Words as pages and the speaker read them (``{"key", "params"}``)."""
    return {"key": key, "params": params, "english": english}


def heard(said: Said, state: TableState) -> Said:
    """``said`` as it is said aloud: the cells and moves in it in words of the board."""
    if said.key in (COMPUTER_MOVES, COMPUTER_PLAYS):
        move = str(said.params.get("move", ""))
        sentence = computer_move(move, state)
        # a move to carry out on the board, unless the sentence says so or nothing moves
        if said.key == COMPUTER_MOVES and sentence["key"] != LIT and move != "pass":
            sentence = words_of("computer_carry_out", sentence=sentence)
        return Said(key=sentence["key"], params=sentence["params"], english=said.english)
    if said.key == NOT_COMPUTER_MOVE:
        # the pages name the move; a voice says where it is and what to do
        return Said(**words_of("speech.not_computer_move", "That is not the computer's move: "
                               "put the pieces back and carry out the move that glows"))
    params = _params(said.params, state)
    if said.key == PIECE_STAYS:
        # the page's sentence is long to hear with two places named in it
        return Said(**words_of("speech.piece_stays", "Take the tower apart on {origin}: only "
                               "one piece goes on to {cell}", **params))
    return Said(key=said.key, params=params, english=said.english)


def announced(state: TableState) -> dict[str, Any] | None:
    """The computer's move the referee announces in ``state``, in its game's sentence
    (the words every players' page shows); None while none is announced, or where the
    game has no sentence for it."""
    notice = state.notice
    if notice is None or notice.key not in (COMPUTER_MOVES, COMPUTER_PLAYS):
        return None
    sentence = computer_words(str(notice.params.get("move", "")), state)
    return None if sentence is None else sentence.to_json()


def computer_move(move: str, state: TableState) -> dict[str, Any]:
    """The computer's ``move`` in a sentence of its game's own, where the game has one;
    else that it glows on the board (or was played, in a game without one)."""
    sentence = computer_words(move, state)
    if sentence is not None:
        return sentence.to_json()
    if state.sensor == "panel":
        return words_of("speech.computer_played", "The computer has made its move")
    return words_of(LIT, "The computer's move glows on the board: please carry it out")


def _params(params: dict[str, Any], state: TableState) -> dict[str, Any]:
    return {name: _value(name, value, state) for name, value in params.items()}


def _value(name: str, value: Any, state: TableState) -> Any:
    if isinstance(value, dict) and "key" in value:
        return {**value, "params": _params(value.get("params") or {}, state)}
    if _are_cells(value, state):  # whatever the name: a cell is never said by its label
        return _cells(name, value, state)
    if name in MOVE_NAMES and isinstance(value, str):
        return words_of("speech.that_move", "that move")
    if isinstance(value, list | tuple):
        return [_value(name, v, state) for v in value]
    if isinstance(value, str):
        return _name(value)
    return value


def _cells(name: str, value: Any, state: TableState) -> Any:
    """Cells by the names the board gives them, where it names each and they are few;
    else as the drawing shows them: "the marked place(s)", and where a piece may go,
    "one of the glowing places"."""
    ids = list(value) if isinstance(value, list | tuple) else [value]
    named = [place(cell, state) for cell in ids]
    few = len(ids) <= (1 if name == "allowed" else NAMED_AT_MOST)
    # places told apart by their names (not two holes of one star point)
    if None not in named and few and len({repr(n) for n in named}) == len(named):
        said = [one.to_json() for one in named if one is not None]
        return said if isinstance(value, list | tuple) else said[0]
    if name == "allowed":
        return words_of("cell.glowing")
    return words_of("cell.marked_many" if len(ids) > 1 else "cell.marked")


def _are_cells(value: Any, state: TableState) -> bool:
    ids = value if isinstance(value, list | tuple) else [value]
    return bool(ids) and all(isinstance(i, str) and i in state.position for i in ids)


def _name(value: str) -> Any:
    """A piece, a marble or a card named in a sentence, in words where the table has
    them (as the pages name it); else as it is (a number, a name)."""
    known = table("en")
    for key in (f"token.{value}", f"marble_{value}"):
        if key in known:
            return words_of(key)
    card = CARD.match(value)
    if card is not None and f"token.{card.group(1)}" in known:
        return card_words(value).to_json()
    return value
