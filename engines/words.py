"""Words a person reads: a key that pages translate, its parameters, and the English.

An engine's refusals, game-end reasons and seat names are ``Words``. ``str()`` gives
the English (logs, the terminal); ``to_json()`` gives ``{"key", "params"}`` for a page
to say in its reader's language. A parameter may itself be ``Words`` (a seat's name
inside a refusal), so it is translated too. Every key is written as a literal at the
place that says it, beside its English, so a test can read all keys from the source
and check that each language's word table has them with the same placeholders.

>>> refusal = words("rules.occupied", "{cell} is occupied", cell="e5")
>>> str(refusal)
'e5 is occupied'
>>> refusal.to_json()
{'key': 'rules.occupied', 'params': {'cell': 'e5'}}
>>> str(words("rules.not_yours", "{seat} moves", seat=words("seat.red", "red")))
'red moves'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Words:
    """A sentence by key: ``english`` is its template, ``params`` fill it in."""

    key: str
    english: str
    params: tuple[tuple[str, Any], ...] = ()

    def __str__(self) -> str:
        return self.english.format(**{name: _english(value) for name, value in self.params})

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "params": {name: _json(value) for name, value in self.params}}


def words(key: str, english: str, **params: Any) -> Words:
    """``Words`` with ``params`` given by name; lists and tuples are joined with ", "."""
    return Words(key, english, tuple((name, _frozen(value)) for name, value in params.items()))


def as_words(text: str | Words) -> Words:
    """``text`` as ``Words``: a plain sentence is kept as it is (``plain``, untranslated)."""
    return text if isinstance(text, Words) else Words("plain", "{text}", (("text", text),))


def _frozen(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    return value


def _english(value: Any) -> str:
    if isinstance(value, tuple):
        return ", ".join(_english(v) for v in value)
    return str(value)


def _json(value: Any) -> Any:
    if isinstance(value, Words):
        return value.to_json()
    if isinstance(value, tuple):
        return [_json(v) for v in value]
    return value
