"""The panel's word tables: every word a page shows, by key, in each language.

A language is a folder of JSON files (``i18n/<language>/*.json``), one file per
namespace (``page``, ``referee``, ``rules`` ...), merged into one table that the
pages fetch. A key must not appear in two files of a language; ``table`` refuses
that, so two namespaces never quietly override each other. ``said`` says words in
a language on the service's side, with the same message format as the pages.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from engines.words import Words, say

I18N = resources.files("boardref.outputs.panel") / "i18n"
LANGUAGES = ("en", "de")


@cache
def table(language: str) -> dict[str, str]:
    """The merged word table of ``language`` (one of ``LANGUAGES``)."""
    if language not in LANGUAGES:
        raise KeyError(f"no language {language!r}; there are {', '.join(LANGUAGES)}")
    merged: dict[str, str] = {}
    for part in sorted((I18N / language).iterdir(), key=lambda p: p.name):
        if not part.name.endswith(".json"):
            continue
        entries = json.loads(part.read_text(encoding="utf-8"))
        twice = merged.keys() & entries.keys()
        if twice:
            raise ValueError(f"i18n/{language}/{part.name} repeats {sorted(twice)}")
        merged.update(entries)
    return merged


def said(language: str, spoken: Words | dict[str, Any]) -> str:
    """``spoken`` (``Words`` or their JSON, ``{"key", "params"}``) in ``language``; a key
    the table lacks is said in the English its ``Words`` carry."""
    words = table(language)
    return say(_as_words(spoken), language, lambda w: words.get(w.key, w.english))


def _as_words(spoken: Any) -> Any:
    if isinstance(spoken, dict) and "key" in spoken:
        params = spoken.get("params") or {}
        return Words(spoken["key"], "", tuple((n, _as_words(v)) for n, v in params.items()))
    if isinstance(spoken, list):
        return tuple(_as_words(v) for v in spoken)
    return spoken
