"""The panel's word tables: every word a page shows, by key, in each language.

A language is a folder of JSON files (``i18n/<language>/*.json``), one file per
namespace (``page``, ``referee``, ``rules`` ...), merged into one table that the
pages fetch. A key must not appear in two files of a language; ``table`` refuses
that, so two namespaces never quietly override each other.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

I18N = resources.files("boardref.panel") / "i18n"
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
