"""The words of the board for what the table says aloud: the referee's sentences made
fit to be heard by anyone at the table, in the same word keys the pages show.

A page names cells by highlighting them; a voice cannot, so a cell in a sentence is
said as "the marked place" or "one of the glowing places", and a move in the game's
notation as the game's own sentence ("The computer moves the hare one step along the
lit path"), else as the move that glows. It reads only what it is given from the
public snapshot and never names a cell by its label or a piece by its identifier.
"""

from __future__ import annotations

import re
from typing import Any

from boardref.outputs.panel.words import table
from boardref.referee.snapshot import Said, TableState

#: the names it gives moves in the game's notation by
MOVE_NAMES = frozenset(("move", "replaced", "chosen", "then"))
#: a card of the card game: "red7", "blue_blank"
CARD = re.compile(r"^([a-z]+?)(?:_(blank)|(\d+))$")
#: the referee's sentences announcing the computer's move: carried out on the board
#: by a guest, or made by the computer itself
COMPUTER_MOVES, COMPUTER_PLAYS = "referee.computer_moves", "referee.computer_plays"
#: the computer's pass, in the games where it may pass
PASSES = {"fang_den_hut": "fdh.computer_pass", "hakenschlagen": "hks.computer_pass",
          "haegar": "haegar.computer_passes"}
#: the computer's move in a game whose moves have no sentence of their own here
LIT = "speech.computer_lit"


def words_of(key: str, english: str = "", **params: Any) -> dict[str, Any]:
    """Words as pages and the speaker read them (``{"key", "params"}``)."""
    return {"key": key, "params": params, "english": english}


def heard(said: Said, state: TableState) -> Said:
    """``said`` as it is said aloud: the cells and moves in it in words of the board."""
    if said.key in (COMPUTER_MOVES, COMPUTER_PLAYS):
        sentence = computer_move(str(said.params.get("move", "")), state)
        # a move to carry out on the board, unless the sentence says so or nothing moves
        if said.key == COMPUTER_MOVES and sentence["key"] not in (LIT, *PASSES.values()):
            sentence = words_of("computer_carry_out", sentence=sentence)
        return Said(key=sentence["key"], params=sentence["params"], english=said.english)
    return Said(key=said.key, params=_params(said.params, state), english=said.english)


def computer_move(move: str, state: TableState) -> dict[str, Any]:
    """The computer's ``move`` in a sentence of its game's own, where the game has one;
    else that it glows on the board (or was played, in a game without one)."""
    steps = _steps(move)
    if state.game == "catch_the_hare" and steps:
        cells, jumps = steps
        if jumps:
            return words_of("cth.computer_hare_jumps", count=jumps)
        hare = state.position.get(cells[0]) == "hare" or state.position.get(cells[-1]) == "hare"
        return words_of("cth.computer_hare_step" if hare else "cth.computer_hunter_step")
    if state.game == "sternhalma" and steps:
        jumps = steps[1]
        return words_of("stern.computer_jumps", count=jumps) if jumps else words_of(
            "stern.computer_step"
        )
    if state.game == "fang_den_hut_cards":
        card, _, target = move.partition(":")
        if CARD.match(card) and (not target or CARD.match(target)):
            if target:
                return words_of("cards.computer_captures", card=card_words(card),
                                target=card_words(target))
            return words_of("cards.computer_alone", card=card_words(card))
    if move == "pass" and state.game in PASSES:
        return words_of(PASSES[state.game])
    if state.sensor == "panel":
        return words_of("speech.computer_played", "The computer has made its move")
    return words_of(LIT, "The computer's move glows on the board: please carry it out")


def card_words(card: str) -> dict[str, Any]:
    """A card of the card game in words: "red 7", "blue blank"."""
    found = CARD.match(card)
    if found is None:
        return words_of("speech.that_card", "that card")
    colour, blank, value = found.groups()
    return words_of("cards.card", colour=words_of(f"token.{colour}"),
                    value=words_of("blank") if blank else value)


def _steps(move: str) -> tuple[list[str], int] | None:
    """The cells of a step ("l4-k5") or a chain of jumps ("p4:l4:n6"), and how many jumps."""
    jumping = ":" in move
    cells = move.split(":" if jumping else "-")
    if len(cells) < 2 or not all(cells) or " " in move:
        return None
    return cells, len(cells) - 1 if jumping else 0


def _params(params: dict[str, Any], state: TableState) -> dict[str, Any]:
    return {name: _value(name, value, state) for name, value in params.items()}


def _value(name: str, value: Any, state: TableState) -> Any:
    if isinstance(value, dict) and "key" in value:
        return {**value, "params": _params(value.get("params") or {}, state)}
    if _are_cells(value, state):  # whatever the name: a cell is never said by its label
        if name == "allowed":
            return words_of("cell.glowing")
        many = isinstance(value, list | tuple) and len(value) > 1
        return words_of("cell.marked_many" if many else "cell.marked")
    if name in MOVE_NAMES and isinstance(value, str):
        return words_of("speech.that_move", "that move")
    if isinstance(value, list | tuple):
        return [_value(name, v, state) for v in value]
    if isinstance(value, str):
        return _name(value)
    return value


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
        return card_words(value)
    return value
