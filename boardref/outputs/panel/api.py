"""The panel's app: its pages (``pages``), its WebSocket and its routes (``routes``),
behind the gate (``gate``) every request passes first.

Reads are GETs; every change is a POST with a validated JSON body that passes the
Host and Origin checks and a role check: the table kiosk (a browser on this machine),
a player's phone (its seat's token, on the phone that joined the seat), or the referee
(PIN session). The app gives the table's commands through ``TableControl`` alone; it
never decides anything about the game, and it runs on the service's event loop, which
hands every command to the referee's own thread and awaits it. A refusal is words
(``said``) and never repeats what the client sent.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.util import find_spec
from pathlib import Path

from fastapi import FastAPI, Request, Response, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from boardref.eventlog.history import HistoryError
from boardref.eventlog.players import LeagueError
from boardref.eventlog.store import StoreError
from boardref.outputs.panel.access import origin_allowed
from boardref.outputs.panel.assets import Assets
from boardref.outputs.panel.board_routes import board_router
from boardref.outputs.panel.gate import Gate, refusal_body
from boardref.outputs.panel.handover import handover_router
from boardref.outputs.panel.headers import SecurityHeaders, policy_for
from boardref.outputs.panel.history_api import history_routes
from boardref.outputs.panel.league_api import players_router, standings_router
from boardref.outputs.panel.pages import page, plain_pages, words_of
from boardref.outputs.panel.panel import Panel
from boardref.outputs.panel.rematch import rematch_router
from boardref.outputs.panel.routes import (
    CHANGE,
    ROUTERS,
    RequestRefused,
    no_seat,
    request_not_saved,
)
from boardref.outputs.panel.seats import DEVICE_COOKIE, DeviceMarks, device_mark, the_device
from boardref.outputs.panel.speech_routes import speech_router
from boardref.outputs.panel.words import LANGUAGES
from boardref.referee.verdicts import RefereeError
from boardref.sim.virtual_board import HandRefused
from engines import RulesError
from engines.words import Words, words

#: Swagger UI's own files (the swagger-ui-py package), found without importing it
SWAGGER_UI = Path(find_spec("swagger_ui").submodule_search_locations[0]) / "static"
#: a refused request is answered briefly: this many of its errors, each part this long
ERRORS_SHOWN, PART_CHARS = 3, 40


def build_app(panel: Panel) -> FastAPI:
    """The app of ``panel``: its pages, its WebSocket and its routes, behind the gate."""
    app = FastAPI(
        title="boardref panel",
        version="1",
        docs_url=None,
        redoc_url=None,
        openapi_url="/openapi.json",
    )
    app.state.panel = panel
    app.add_middleware(Gate, host_allowed=panel.names.allow, answer=refusal_body)
    app.add_middleware(DeviceMarks)
    app.add_middleware(SecurityHeaders)  # outermost: the gate's refusals carry them too
    assets = Assets()
    app.mount("/static", assets, name="static")
    app.mount("/api/docs/assets", StaticFiles(directory=str(SWAGGER_UI)), name="swagger-ui")
    _refusals(app)
    _pages(app, panel, assets)
    for router in ROUTERS:
        app.include_router(router)
    app.include_router(board_router(panel, CHANGE))
    app.include_router(rematch_router)
    app.include_router(handover_router)
    app.include_router(speech_router)
    app.include_router(history_routes(panel.control.history))
    app.include_router(players_router)
    app.include_router(standings_router)

    @app.websocket("/ws")
    async def updates(
        socket: WebSocket, seat: int | None = None, token: str | None = None, virtual: bool = False
    ):
        if not origin_allowed(socket.headers.get("origin"), socket.headers.get("host")):
            await socket.close(code=1008)  # a page of another site: refused
            return
        device = device_mark(socket.cookies.get(DEVICE_COOKIE))
        if seat is not None and not panel.seats.holds(panel.control.game_id, seat, token, device):
            seat = None  # a wrong token, or another phone's seat, still watches: no hand
        await socket.accept()
        # the virtual board only to a page that draws it (/sim asks ``?virtual=true``)
        await panel.hub.serve(socket, seat, *panel.sent(seat, virtual), virtual=virtual)

    return app


def _pages(app: FastAPI, panel: Panel, assets: Assets) -> None:
    @app.get("/api/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        page = get_swagger_ui_html(
            openapi_url="/openapi.json",
            title="boardref panel API",
            swagger_js_url="/api/docs/assets/swagger-ui-bundle.js",
            swagger_css_url="/api/docs/assets/swagger-ui.css",
            swagger_favicon_url="/favicon.ico",
        )
        page.headers["content-security-policy"] = policy_for(page.body.decode())
        return page

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon(request: Request) -> Response:
        return await assets.get_response("favicon.svg", request.scope)

    for path, answer in plain_pages(panel.control.simulated).items():
        app.add_api_route(path, _answering(answer), include_in_schema=False)

    @app.get("/play/{seat}", include_in_schema=False)
    async def play(seat: int, request: Request) -> Response:
        if not 0 <= seat < panel.control.game.players:
            raise RequestRefused(404, no_seat(seat))
        the_device(request)  # marked now: its socket carries the mark
        return page("play")

    @app.get("/i18n/{language}.json", include_in_schema=False)
    async def word_table(language: str) -> Response:
        if language not in LANGUAGES:
            raise RequestRefused(
                404,
                words(
                    "server.no_language",
                    "No language {language}; there are {languages}",
                    language=language[:PART_CHARS],
                    languages=LANGUAGES,
                ),
            )
        return words_of(language)


def _refusals(app: FastAPI) -> None:
    """Every refusal as words: what the referee or the rules refuse (409), what the
    panel refuses (its status), what could not be saved (507), an invalid request
    (422, naming the fields, never repeating their values)."""

    @app.exception_handler(RefereeError)
    @app.exception_handler(RulesError)
    @app.exception_handler(HandRefused)
    async def not_now(request: Request, exc: RefereeError | RulesError | HandRefused) -> Response:
        return _refusal(409, exc.words)

    @app.exception_handler(RequestRefused)
    async def refused(request: Request, exc: RequestRefused) -> Response:
        return _refusal(exc.status, exc.words, exc.headers)

    @app.exception_handler(LeagueError)
    @app.exception_handler(HistoryError)
    async def league_refused(request: Request, exc: LeagueError | HistoryError) -> Response:
        return _refusal(exc.status, exc.words)

    @app.exception_handler(StoreError)
    async def unsaved(request: Request, exc: StoreError) -> Response:
        return _refusal(507, request_not_saved(exc))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        errors = [
            {
                "loc": [_part(p) for p in e["loc"]],
                "msg": _part(e["msg"], 120),
                "type": _part(e["type"]),
            }
            for e in exc.errors()[:ERRORS_SHOWN]
        ]
        said = words(
            "server.invalid",
            "The request is not valid: {errors}",
            errors=[f"{'.'.join(map(str, e['loc'][1:]))}: {e['msg']}" for e in errors],
        )
        return JSONResponse({"detail": errors, "said": said.to_json()}, status_code=422)


def _part(value, limit: int = PART_CHARS) -> str | int:
    """A part of an error as it may be answered: short, and text a reply can carry."""
    if isinstance(value, int):
        return value
    text = str(value).encode("utf-8", "replace").decode("utf-8")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _refusal(status: int, said: Words, headers: dict[str, str] | None = None) -> Response:
    return Response(
        refusal_body(said), status_code=status, headers=headers, media_type="application/json"
    )


def _answering(answer: Callable[[], Response]):
    """A route's endpoint that gives ``answer``'s response."""

    async def plain() -> Response:
        return answer()

    return plain
