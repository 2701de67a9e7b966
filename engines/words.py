"""Words a person reads: a key that pages translate, its parameters, and the English.

An engine's refusals, game-end reasons and seat names are ``Words``. ``str()`` gives
the English (logs, the terminal); ``to_json()`` gives ``{"key", "params"}`` for a page
to say in its reader's language. A parameter may itself be ``Words`` (a seat's name
inside a refusal), so it is translated too. Every key is written as a literal at the
place that says it, beside its English, so a test can read all keys from the source
and check that each language's word table has them with the same placeholders.

A template is an ICU-style message: ``{name}``, a count said in its plural
``{count, plural, one {# place} other {# places}}``, a place ``{n, selectordinal, one
{#st} two {#nd} few {#rd} other {#th}}``, a choice ``{kind, select, die {...} other
{...}}``, and a name in a grammatical case ``{seat, case, dat}``: the named words are
said with ``case`` set, which a German seat name selects on. ``{{`` and ``}}`` outside
any placeholder are braces. Plural rules are CLDR's, as Babel ships them, kept in
``plural_rules.toml`` and evaluated by Babel's ``PluralRule``; the pages format the
same templates with the browser's ``Intl.PluralRules``. Never build a plural by hand
("place(s)"): the tests refuse it.

>>> refusal = words("rules.occupied", "{cell} is occupied", cell="e5")
>>> str(refusal)
'e5 is occupied'
>>> refusal.to_json()
{'key': 'rules.occupied', 'params': {'cell': 'e5'}}
>>> str(words("rules.not_yours", "{seat} moves", seat=words("seat.red", "red")))
'Red moves'
>>> str(words("x", "{n, plural, one {# hat} other {# hats}} left", n=1))
'1 hat left'
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

#: CLDR's plural rules of the languages the tables speak (a data file of this package)
PLURAL_RULES = "plural_rules.toml"
#: the parameter a sentence sets when it names words in a grammatical case
CASE = "case"
#: argument types that choose a branch by the value
BRANCHING = ("plural", "selectordinal", "select")
#: where a plural branch says its count (``#``)
_NUMBER = object()


@dataclass(frozen=True)
class Words:
    """A sentence by key: ``english`` is its template, ``params`` fill it in."""

    key: str
    english: str
    params: tuple[tuple[str, Any], ...] = ()

    def __str__(self) -> str:
        return say(self, "en", lambda said: said.english)

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "params": {name: _json(value) for name, value in self.params}}


def words(key: str, english: str, **params: Any) -> Words:
    """``Words`` with ``params`` given by name; lists and tuples are joined with ", "."""
    return Words(key, english, tuple((name, _frozen(value)) for name, value in params.items()))


def as_words(text: str | Words) -> Words:
    """``text`` as ``Words``: a plain sentence is kept as it is (``plain``, untranslated)."""
    return text if isinstance(text, Words) else Words("plain", "{text}", (("text", text),))


def say(said: Words, language: str, template_of: Callable[[Words], str]) -> str:
    """``said`` in ``language``, each template (its own and its parameters') found by
    ``template_of``. A sentence that opens with a name opens with a capital."""
    return _say(said, language, template_of, (), top=True)


def render(
    template: str,
    params: Mapping[str, Any],
    language: str,
    words_of: Callable[[Any, str | None], str] = lambda value, case: _plain(value),
    top: bool = False,
) -> str:
    """``template`` filled with ``params``; ``words_of(value, case)`` says a value."""
    parts = _parsed(template)
    text = _fill(parts, params, language, words_of, None)
    opens_with_words = parts and isinstance(parts[0], tuple) and parts[0][1] in (None, CASE)
    if top and opens_with_words and isinstance(params.get(parts[0][0]), Words | dict):
        return text[:1].upper() + text[1:]
    return text


def placeholders(template: str) -> set[str]:
    """The parameter names ``template`` uses, in its branches too (``case`` is set by
    the sentence that names the words, never by their caller, so it is left out)."""
    return {name for name, _ in arguments(template)} - {CASE}


def arguments(template: str) -> list[tuple[str, str | None]]:
    """Each ``(name, kind)`` of ``template``'s placeholders, in its branches too; the
    kind is ``None`` for a plain ``{name}``."""
    found = []

    def walk(parts: tuple) -> None:
        for part in parts:
            if isinstance(part, tuple):
                found.append(part[:2])
                if part[1] in BRANCHING:
                    for branch in part[2].values():
                        walk(branch)

    walk(_parsed(template))
    return found


def plural_form(language: str, count: float, ordinal: bool = False) -> str:
    """CLDR's category of ``count`` in ``language`` ("one", "two", "few", "other" ...)."""
    form: str = _plural_rule(language, "ordinal" if ordinal else "cardinal")(count)
    return form


@cache
def _plural_rule(language: str, kind: str) -> Any:
    """``language``'s CLDR rule for ``kind`` ("cardinal" or "ordinal") counts, from
    ``plural_rules.toml``: only the rules, not Babel's whole locale data."""
    from babel.plural import PluralRule

    return PluralRule(plural_rules()[language][kind])


@cache
def plural_rules() -> dict[str, dict[str, dict[str, str]]]:
    """Language -> "cardinal"/"ordinal" -> CLDR category -> rule (``plural_rules.toml``)."""
    with resources.files("engines").joinpath(PLURAL_RULES).open("rb") as file:
        return tomllib.load(file)


#: writes a value into a sentence, in a grammatical case (or None)
WordsOf = Callable[[Any, "str | None"], str]


def _say(
    said: Words,
    language: str,
    template_of: Callable[[Words], str],
    extra: tuple[tuple[str, Any], ...],
    top: bool = False,
) -> str:
    def words_of(value: Any, case: str | None) -> str:
        if isinstance(value, Words):
            return _say(value, language, template_of, ((CASE, case),) if case else ())
        if isinstance(value, tuple):
            return ", ".join(words_of(v, case) for v in value)
        return str(value)

    return render(template_of(said), dict(said.params + extra), language, words_of, top)


def _fill(
    parts: tuple[Any, ...],
    params: Mapping[str, Any],
    language: str,
    words_of: WordsOf,
    number: Any,
) -> str:
    out = []
    for part in parts:
        if part is _NUMBER:
            out.append(_plain(number))
        elif isinstance(part, str):
            out.append(part)
        else:
            out.append(_argument(part, params, language, words_of, number))
    return "".join(out)


def _argument(
    part: tuple[Any, ...],
    params: Mapping[str, Any],
    language: str,
    words_of: WordsOf,
    number: Any,
) -> str:
    name, kind, style = part
    if kind == "select":
        # words asked for in no case (a seat's name alone) are said in the "other" one
        branch = style.get(str(params.get(name)), style.get("other", ()))
        return _fill(branch, params, language, words_of, number)
    if name not in params:
        return "{" + str(name) + "}"
    value = params[name]
    if kind in (None, CASE):
        return words_of(value, style)
    exact = f"={_plain(value)}"
    chosen = exact if exact in style else plural_form(language, value, kind == "selectordinal")
    return _fill(style.get(chosen, style.get("other", ())), params, language, words_of, value)


def _plain(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


@cache
def _parsed(template: str) -> tuple:
    """``template`` as parts: text, ``_NUMBER`` and ``(name, kind, style)`` arguments,
    where a branching argument's style maps each selector to its parts."""
    parts, end = _parse(template, 0, nested=False)
    if end != len(template):
        raise ValueError(f"unbalanced }} at {end} in {template!r}")
    return parts


def _parse(text: str, i: int, nested: bool, counted: bool = False) -> tuple[tuple, int]:
    parts: list = []
    plain: list[str] = []
    while i < len(text):
        char = text[i]
        if not nested and text.startswith(("{{", "}}"), i):
            plain.append(char)
            i += 2
            continue
        if char == "}":
            break
        if char == "#" and counted:
            parts += ["".join(plain), _NUMBER]
            plain = []
            i += 1
            continue
        if char == "{":
            parts.append("".join(plain))
            plain = []
            argument, i = _parse_argument(text, i + 1)
            parts.append(argument)
            continue
        plain.append(char)
        i += 1
    parts.append("".join(plain))
    return tuple(p for p in parts if p != ""), i


def _parse_argument(text: str, i: int) -> tuple[tuple, int]:
    close = text.find("}", i)
    brace = text.find("{", i)
    if close < 0:
        raise ValueError(f"unclosed {{ in {text!r}")
    head_end = close if brace < 0 or close < brace else brace
    fields = [f.strip() for f in text[i:head_end].split(",")]
    name, kind = fields[0], (fields[1] if len(fields) > 1 else None)
    if kind not in BRANCHING:
        style = fields[2] if len(fields) > 2 else None
        return (name, kind, style), close + 1
    branches: dict[str, tuple] = {}
    selector = fields[2] if len(fields) > 2 else ""
    i = head_end
    while True:
        if text[i] == "}":
            return (name, kind, branches), i + 1
        if text[i] == "{":
            branch, i = _parse(text, i + 1, nested=True, counted=kind != "select")
            branches[selector.strip()] = branch
            i += 1
            selector = ""
            continue
        selector += text[i]
        i += 1
        if i >= len(text):
            raise ValueError(f"unclosed {{{name}, {kind} ...}} in {text!r}")


def _frozen(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    return value


def _json(value: Any) -> Any:
    if isinstance(value, Words):
        return value.to_json()
    if isinstance(value, tuple):
        return [_json(v) for v in value]
    return value
