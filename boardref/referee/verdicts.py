"""What the referee and its parts share: a reading, its refusals, the words and
highlights of the moment, and the sentences more than one part says. It decides
nothing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from boardref.referee.kinds import Phase
from engines import Game
from engines.words import Words, as_words, words

#: a board's reading: per cell id, the token a sensor reads there, or None
Reading = dict[str, str | None]


class RefereeError(RuntimeError):
    """A command that cannot be carried out now; the message says why, in words
    (``words``: by key, for a page to translate)."""

    def __init__(self, message: str | Words):
        self.words = as_words(message)
        super().__init__(str(self.words))


@dataclass
class TableView:
    """The referee's words and highlights of the moment."""

    notice: Words | None = None
    last_move: tuple[str, ...] = ()
    lifted: str | None = None
    destinations: frozenset[str] = frozenset()
    errors: frozenset[str] = frozenset()
    place: str | None = None
    remove: str | None = None
    last_draw: Any = None
    candidates: tuple[str, ...] = ()

    @property
    def message(self) -> str:
        return "" if self.notice is None else str(self.notice)

    def say(self, notice: Words) -> None:
        """Set the words of the moment."""
        self.notice = notice

    def clear_problems(self) -> None:
        self.notice = None
        self.lifted = self.place = self.remove = None
        self.destinations = self.errors = frozenset()


def leaves_board(before: tuple, moved: tuple, extra: list[int]) -> bool:
    """Whether every ``extra`` cell held a piece before the move (a capture) rather
    than one the move itself lifted (then the board shows no move at all)."""
    return all(before[i] is not None for i in extra) and len(moved) > len(extra)


def token_words(token: str | None) -> Words:
    """A piece's token (``red``, ``hare``, ``red+red`` for a stack...) as words a page
    translates, part by part."""
    parts = [Words(f"token.{part}", part) for part in str(token).split("+")]
    return words("referee.token", "{parts}", parts=parts)


def no_game() -> Words:
    return words("referee.no_game", "No game: start one")


def move_not_saved(error: Exception) -> Words:
    return words(
        "referee.not_saved",
        "Not saved, so not accepted: {error}; try again, and call staff if it stays so",
        error=str(error),
    )


def not_computer_move(move: object) -> Words:
    return words(
        "referee.not_computer_move", "Please play the computer's move: {move}", move=str(move)
    )


def nothing_to_confirm() -> Words:
    return words(
        "referee.nothing_to_confirm",
        "There is no move waiting for confirmation: make your move on the board first",
    )


def not_now(phase: Phase) -> Words:
    return words(
        "referee.not_now",
        "No move can be played now ({phase}): wait until the table asks for a move",
        phase=Words(f"phase_{phase}", phase),
    )


def as_lists(value: Any) -> Any:
    """A chance outcome as JSON writes it: tuples become lists, all the way down."""
    if isinstance(value, tuple | list):
        return [as_lists(v) for v in value]
    return value


def hides_hands(game: Game) -> bool:
    """Whether ``game`` keeps something from some players (it has its own ``view``)."""
    return type(game).view is not Game.view
