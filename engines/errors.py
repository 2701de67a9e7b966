"""The errors engines raise. Each carries a sentence a player or owner can act on.

All derive from ``RulesError`` (a ``ValueError``), so a caller can catch one type.
"""

from engines.words import Words, as_words, words


class RulesError(ValueError):
    """Base of every error an engine raises on bad input: ``str()`` is the English,
    ``words`` the same by key for a page to translate (``engines.words``)."""

    def __init__(self, message: str | Words) -> None:
        self.words = as_words(message)
        super().__init__(str(self.words))


class IllegalMove(RulesError):
    """The move breaks the rules here; ``reason`` says how, in English, after the
    ``move`` given. ``cause`` is the same words without the move: where the move is
    in plain sight (a piece on a board) a page says only that."""

    def __init__(self, reason: str | Words, move: object = None) -> None:
        self.cause = as_words(reason)
        said = self.cause
        if move is not None:
            said = words("rules.refused_move", "{move}: {reason}", move=str(move), reason=said)
        super().__init__(said)
        self.reason = str(self.words)


class NotationError(IllegalMove):
    """The text is not a move in this game's notation."""


class RecordError(RulesError):
    """A JSON game record that is corrupt or belongs to another game."""


class OptionError(RulesError):
    """An unknown game, an unsupported player count, or a bad variant option."""


class BoardFileError(RulesError):
    """A board file that cannot be used; the message names the file and the problem."""
