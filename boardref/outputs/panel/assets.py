"""The pages' static files (``static/``), under the build and without it.

``/static/<build>/panel.js`` is this build's file: a browser may keep it for good
(``immutable``), as another build has other URLs. ``/static/panel.js``, and a build
that is not this one's (a page loaded before an upgrade), answer the file as it is
now, which a browser must check again before using (``no-cache``, with Starlette's
ETag and Last-Modified). The café's dashboard serves its own ``static/`` the same
way, with the panel's shared files (``core.js``, ``panel.css``, the icons) behind it.
It only serves files; it never changes one.
"""

from __future__ import annotations

import os
import re

from starlette.responses import Response
from starlette.staticfiles import StaticFiles

from boardref.outputs.panel.pages import BUILD, PANEL

#: a build's part of a path: the short hash ``pages.build_of`` gives
BUILT = re.compile(r"[0-9a-f]{12}")
KEEP = "public, max-age=31536000, immutable"


class Assets(StaticFiles):
    """The static files of ``packages`` (each one's ``static/``; where two hold a file,
    the first one's is served), each under ``build``, any other build, or none."""

    def __init__(self, packages: tuple[str, ...] = (PANEL,), build: str = BUILD) -> None:
        super().__init__(packages=[(package, "static") for package in packages])
        self.build = build

    async def get_response(self, path: str, scope) -> Response:
        build, _, rest = path.partition(os.sep)
        built = bool(rest) and BUILT.fullmatch(build) is not None
        response = await super().get_response(rest if built else path, scope)
        response.headers["cache-control"] = KEEP if built and build == self.build else "no-cache"
        return response
