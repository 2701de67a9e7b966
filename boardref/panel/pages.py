"""The panel's pages: every role's page is one HTML template (``static/page.html``),
and the panel's root leads to the table's page (the simulated table's with ``--sim``).

The pages need nothing but the template, so they can be answered while the panel's
app is still being built (see ``boardref.panel.doorway``); this module must never
need that app, the referee or the game.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources

from starlette.responses import HTMLResponse, RedirectResponse, Response

PAGES = ("table", "watch", "referee", "sim", "play")
STATIC = resources.files("boardref.panel") / "static"
#: every page is one template; the role decides which parts it shows
PAGE = (STATIC / "page.html").read_text(encoding="utf-8")


def page(role: str) -> HTMLResponse:
    """The page of ``role`` (one of ``PAGES``)."""
    return HTMLResponse(PAGE.replace("{{role}}", role))


def plain_pages(sim: bool) -> dict[str, Callable[[], Response]]:
    """The answers that need the template alone, by path: the root (a redirect to the
    table's page) and every role's page but a player's (its seat is checked against
    the game)."""
    answers: dict[str, Callable[[], Response]] = {
        "/": lambda: RedirectResponse("/sim" if sim else "/table")
    }
    for role in PAGES:
        if role != "play":
            answers[f"/{role}"] = lambda role=role: page(role)
    return answers
