"""The errors engines raise. Each carries a sentence a player or owner can act on.

All derive from ``RulesError`` (a ``ValueError``), so a caller can catch one type.
"""

from engines.words import Words, as_words


class RulesError(ValueError):
    """Base of every error an engine raises on bad input: ``str()`` is the English,
    ``words`` the same by key for a page to translate (``engines.words``)."""

    def __init__(self, message: str | Words):
        self.words = as_words(message)
        super().__init__(str(self.words))


class IllegalMove(RulesError):
    """The move breaks the rules here; ``reason`` says how, in English."""

    def __init__(self, reason: str | Words):
        super().__init__(reason)
        self.reason = str(self.words)


class NotationError(IllegalMove):
    """The text is not a move in this game's notation."""


class RecordError(RulesError):
    """A JSON game record that is corrupt or belongs to another game."""


class OptionError(RulesError):
    """An unknown game, an unsupported player count, or a bad variant option."""


class BoardFileError(RulesError):
    """A board file that cannot be used; the message names the file and the problem."""
