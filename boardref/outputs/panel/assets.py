"""The pages' static files (``static/``), under the build and without it.

``/static/<build>/panel.js`` is this build's file: a browser may keep it for good
(``immutable``), as another build has other URLs. ``/static/panel.js``, and a build
that is not this one's (a page loaded before an upgrade), answer the file as it is
now, which a browser must check again before using (``no-cache``, with Starlette's
ETag and Last-Modified). It only serves files; it never changes one.
"""

from __future__ import annotations

import os
import re

from starlette.responses import Response
from starlette.staticfiles import StaticFiles

from boardref.outputs.panel.pages import BUILD, STATIC

#: a build's part of a path: the short hash ``pages.build_of`` gives
BUILT = re.compile(r"[0-9a-f]{12}")
KEEP = "public, max-age=31536000, immutable"


class Assets(StaticFiles):
    """The static files, each under this build, any other build, or none."""

    def __init__(self) -> None:
        super().__init__(directory=str(STATIC))

    async def get_response(self, path: str, scope) -> Response:
        build, _, rest = path.partition(os.sep)
        built = bool(rest) and BUILT.fullmatch(build) is not None
        response = await super().get_response(rest if built else path, scope)
        response.headers["cache-control"] = KEEP if built and build == BUILD else "no-cache"
        return response
