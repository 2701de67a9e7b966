"""The hardware package's data files (colours, light and buzzer patterns) with the
owner's overrides merged in.

Files are read through importlib.resources so they work from a checkout, an editable
install and a wheel alike. A merge never invents a key the file does not have, except in
the tables a caller names as open (new colour names), so a typo in the service config is
refused instead of being silently ignored.
"""

import tomllib
from collections.abc import Iterable, Mapping
from importlib import resources


def load(
    name: str, overrides: Mapping | None = None, *, open_tables: Iterable[str] = ()
) -> dict[str, dict]:
    """The tables of the packaged file ``name`` with ``overrides`` ({table: {key: value}})
    laid over them; ValueError names the table and key of anything not allowed."""
    text = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
    return merge(name, parse(name, text), overrides, open_tables=open_tables)


def parse(name: str, text: str) -> dict[str, dict]:
    """The tables of a data file's text; ValueError if it is not TOML made of tables."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{name} is not valid TOML: {error}") from None
    for table, entries in data.items():
        if not isinstance(entries, dict):
            raise ValueError(f"{name}: {table} = {entries!r}: expected a table [{table}]")
    return data


def merge(
    name: str,
    tables: Mapping[str, Mapping],
    overrides: Mapping | None,
    *,
    open_tables: Iterable[str] = (),
) -> dict[str, dict]:
    """A copy of ``tables`` with each override entry replacing the entry of that key."""
    merged = {table: dict(entries) for table, entries in tables.items()}
    open_tables = frozenset(open_tables)
    for table, entries in (overrides or {}).items():
        if table not in merged:
            raise ValueError(f"{name} override {table!r}: no such table (known: {_list(merged)})")
        if not isinstance(entries, Mapping):
            raise ValueError(f"{name} override {table} = {entries!r}: expected a table")
        for key, value in entries.items():
            if key not in merged[table] and table not in open_tables:
                raise ValueError(
                    f"{name} override {table}.{key}: no such entry (known: {_list(merged[table])})"
                )
            merged[table][key] = value
    return merged


def _list(names: Iterable[str]) -> str:
    return ", ".join(sorted(names))
