"""The panel's pages: every role's page is one HTML template (``static/page.html``),
and the panel's root leads to the table's page (the simulated table's with ``--sim``).

Every page names its static files under the build (``/static/<build>/panel.js``), a
short hash of the static files and word tables computed once at start: an upgrade
that changes any of them changes every such URL, so a browser never runs scripts
cached from before it, and the pages themselves are checked again on every load.

The pages need nothing but the template, so they can be answered while the panel's
app is still being built (see ``boardref.outputs.panel.doorway``); this module must never
need that app, the referee or the game.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from starlette.datastructures import Headers
from starlette.responses import RedirectResponse, Response

from boardref.outputs.panel.words import I18N, table

PAGES = ("table", "watch", "referee", "sim", "play")
PANEL = "boardref.outputs.panel"  # the package whose static/ holds the pages' files
STATIC = resources.files(PANEL) / "static"


def build_of(*folders: Path) -> str:
    """A short hash of every file under ``folders``, names and contents: any change
    to any of them gives another."""
    digest = hashlib.sha256()
    for folder in folders:
        for path in sorted(p for p in Path(folder).rglob("*") if p.is_file()):
            name = path.relative_to(folder).as_posix().encode()
            content = path.read_bytes()
            digest.update(b"%d:%s%d:" % (len(name), name, len(content)) + content)
    return digest.hexdigest()[:12]


#: what the pages are made of, as this service serves them
BUILD = build_of(Path(str(STATIC)), Path(str(I18N)))


class Checked(Response):
    """An answer a browser may keep but must check again before it uses it
    (``no-cache``): its ETag names the build, and a browser that has it is answered
    304 with no body."""

    def __init__(self, content: str | bytes, media_type: str, name: str, build: str = BUILD):
        tag = f'"{build}-{name}"'
        super().__init__(
            content, media_type=media_type, headers={"cache-control": "no-cache", "etag": tag}
        )

    async def __call__(self, scope, receive, send) -> None:
        held = Headers(scope=scope).get("if-none-match", "")
        if self.headers["etag"] in (tag.strip().removeprefix("W/") for tag in held.split(",")):
            kept = {name: self.headers[name] for name in ("cache-control", "etag")}
            await Response(status_code=304, headers=kept)(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


@cache
def _template(name: str, folder: Traversable, build: str) -> str:
    return (folder / name).read_text(encoding="utf-8").replace("{{build}}", build)


def document(
    name: str, role: str | None = None, folder: Traversable = STATIC, build: str = BUILD
) -> Checked:
    """The HTML page of the template ``name`` (in ``folder``, the panel's ``static/``
    unless another site's), for ``role`` where the template names one, its files under
    ``build``."""
    text = _template(name, folder, build)
    return Checked(
        text if role is None else text.replace("{{role}}", role),
        "text/html",
        name if role is None else f"{name}-{role}",
        build,
    )


def page(role: str) -> Checked:
    """The page of ``role`` (one of ``PAGES``)."""
    return document("page.html", role)


def words_of(language: str) -> Checked:
    """The word table of ``language`` (one of ``LANGUAGES``) as the pages fetch it."""
    return Checked(_words_text(language), "application/json", f"words-{language}")


@cache
def _words_text(language: str) -> str:
    """A word table as JSON, made once: every page load asks for it."""
    return json.dumps(table(language), ensure_ascii=False, separators=(",", ":"))


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
