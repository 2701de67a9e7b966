"""What the café dashboard believes of a table: a table speaks only on its own topics
(``boardref/<name>/...``), under a name of a safe charset, about itself; its panel
link is an http(s) address with a host. The broker's ACL (``mosquitto.acl``) keeps a
table's login to its own topics; these checks keep the dashboard from believing
anything else that reaches it (a broker without that ACL, a bridge, a bad table).

It only judges what it is given; it never fixes a name or a link up into another.
"""

from __future__ import annotations

import functools
import logging
import re
from urllib.parse import urlsplit

log = logging.getLogger(__name__)

#: a table's name: it becomes a topic level, a file name, a zip entry and a header
TABLE_NAME = r"^[A-Za-z0-9_-]{1,32}$"
TABLE_NAME_SAID = "a table's name is 1 to 32 letters A-Z or a-z, digits, - or _"
#: distinct doubts logged before the dashboard stops saying more of them
LOGGED_AT_MOST = 1000


def is_table_name(name: str) -> bool:
    return re.fullmatch(TABLE_NAME, name) is not None


def link_of(url: object) -> str | None:
    """``url`` if it is an http(s) address with a host, else None (no link at all)."""
    return _checked_link(url) if isinstance(url, str) else None


#: a table repeats its address in every state it sends: each is checked once
@functools.lru_cache(maxsize=4096)
def _checked_link(url: str) -> str | None:
    if any(c.isspace() or not c.isprintable() for c in url):
        return None
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (a port that is no number raises here)
    except ValueError:
        return None
    return url if parts.scheme in ("http", "https") and parts.hostname else None


def login_matches(username: str | None, table: str) -> str | None:
    """Why a table logging in as ``username`` would be refused by the café broker's
    ACL, which lets a login write only under its own name; None if it would not."""
    if username is None or username == table:
        return None
    return (
        f"the broker login is {username!r} but the table is {table!r}: the café broker "
        f"lets a login write only boardref/<its own name>/..., so the two must be the same"
    )


class Doubts:
    """Says each distinct reason a table was not believed once, not once a message;
    a bounded number of them, so a flood of made-up names cannot grow it."""

    def __init__(self) -> None:
        self._said: set[tuple[str, str]] = set()

    def ignore(self, table: str, why: str) -> None:
        key = (table[:64], why)
        if key in self._said or len(self._said) >= LOGGED_AT_MOST:
            return
        self._said.add(key)
        log.warning("not believed of table %r: %s", table[:64], why)

    def named(self, table: str) -> bool:
        """Whether ``table`` is a table's name; said once if not."""
        if is_table_name(table):
            return True
        self.ignore(table, f"not a table name: {TABLE_NAME_SAID}")
        return False
