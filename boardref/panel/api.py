"""The panel's HTTP and WebSocket API, and the pages it serves.

Reads are GETs; every change is a POST with a validated JSON body that passes the
Origin check and a role check: the table kiosk (a browser on this machine), a
player's phone (its per-game seat token), or the referee (PIN session). The API asks
the service and its referee to act; it never decides anything about the game, and
it runs on the service's event loop so the referee is never touched from a thread.
"""

from __future__ import annotations

import asyncio
import functools
import io
from importlib import resources
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import segno
from fastapi import Depends, FastAPI, Query, Request, Response, WebSocket
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles

from boardref.panel import models
from boardref.panel.access import SESSION_COOKIE, Access, is_local, origin_allowed
from boardref.panel.address import is_loopback, public_base
from boardref.panel.hub import Hub
from boardref.panel.words import LANGUAGES, table
from boardref.referee import Event, RefereeError
from boardref.virtual_board import Refused as HandRefused
from engines import GAMES, RulesError, load_game
from engines.words import Words, as_words, words

PAGES = ("table", "watch", "referee", "sim", "play")
STATIC = resources.files("boardref.panel") / "static"
#: every page is one template; the role decides which parts it shows
PAGE = (STATIC / "page.html").read_text(encoding="utf-8")
#: Swagger UI's own files (the swagger-ui-py package), found without importing it
SWAGGER_UI = Path(find_spec("swagger_ui").submodule_search_locations[0]) / "static"


class Panel:
    """The panel of one service: its access rules, its pages' hub and its app."""

    def __init__(self, service, pin_hash: str | None):
        self.service = service
        self.access = Access(pin_hash)
        self.hub = Hub()
        #: the referee's last snapshot, kept as published (see ``publish``)
        self.shown = service.referee.published
        self.app = self._build()

    # --- state as pages see it ---------------------------------------------------------

    def state(self, seat: int | None = None) -> models.State:
        """What one page shows: the referee's last snapshot as it is, what ``seat``
        alone may see, and the table's own facts (the board link, the simulator)."""
        shown = self.shown
        fields = dict(shown)
        fields["moves"] = shown.moves_of(seat)
        return models.State.model_construct(
            **fields,
            link=self.service.link_state(),
            sim=self.service.sim,
            view=shown.view_of(seat),
            virtual=self.service.sim_virtual(),
        )

    def publish(self, event: Event | None = None) -> None:
        """Take the referee's new snapshot (a "display" event) and push it to every
        page; with no event, push the last one again (the link changed, say)."""
        if event is not None:
            if event.kind != "display":
                return
            self.shown = event.data["table"]
        if not self.hub.subscribers:
            return
        public = self.state().model_dump_json()
        # a seat's own page differs from the public one only where hands are hidden
        seats = self.hub.seats() if self.shown.views else ()
        private = {seat: self.state(seat).model_dump_json() for seat in seats}
        self.hub.publish(public, private)

    # --- who may act ---------------------------------------------------------------------

    def _is_referee(self, request: Request) -> bool:
        return self.access.is_referee(request.cookies.get(SESSION_COOKIE))

    def _is_table(self, request: Request) -> bool:
        return is_local(request.client.host if request.client else None)

    def _require(
        self, request: Request, roles: str, body: models.Seat | None = None, seats=()
    ) -> None:
        """Let the request through if it comes from one of ``roles`` (table, referee,
        player: the phone of one of ``seats``, by its token), else 403."""
        if "referee" in roles and self._is_referee(request):
            return
        if "table" in roles and self._is_table(request):
            return
        player = body is not None and body.seat is not None and body.seat in seats
        if (
            "player" in roles
            and player
            and self.access.is_player(self.service.referee.game_id, body.seat, body.token)
        ):
            return
        raise Refused(403, _ONLY[roles])

    # --- the app -------------------------------------------------------------------------

    def _build(self) -> FastAPI:
        app = FastAPI(
            title="boardref panel",
            version="1",
            docs_url=None,
            redoc_url=None,
            openapi_url="/openapi.json",
        )
        app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
        app.mount("/api/docs/assets", StaticFiles(directory=str(SWAGGER_UI)), name="swagger-ui")

        @app.get("/api/docs", include_in_schema=False)
        async def docs() -> HTMLResponse:
            return get_swagger_ui_html(
                openapi_url="/openapi.json",
                title="boardref panel API",
                swagger_js_url="/api/docs/assets/swagger-ui-bundle.js",
                swagger_css_url="/api/docs/assets/swagger-ui.css",
                swagger_favicon_url="/favicon.ico",
            )

        @app.get("/favicon.ico", include_in_schema=False)
        async def favicon() -> FileResponse:
            return FileResponse(str(STATIC / "favicon.svg"), media_type="image/svg+xml")

        @app.exception_handler(RefereeError)
        @app.exception_handler(RulesError)
        @app.exception_handler(HandRefused)
        async def not_now(
            request: Request, exc: RefereeError | RulesError | HandRefused
        ) -> JSONResponse:
            return _refusal(409, exc.words)

        @app.exception_handler(Refused)
        async def refused(request: Request, exc: Refused) -> JSONResponse:
            return _refusal(exc.status, exc.words, exc.headers)

        @app.exception_handler(RequestValidationError)
        async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
            said = words(
                "server.invalid",
                "The request is not valid: {errors}",
                errors=[
                    f"{'.'.join(map(str, e['loc'][1:]))}: {e['msg']}" for e in exc.errors()[:3]
                ],
            )
            return JSONResponse(
                {"detail": jsonable_encoder(exc.errors()), "said": said.to_json()},
                status_code=422,
            )

        async def same_origin(request: Request) -> None:
            if not origin_allowed(request.headers.get("origin"), request.headers.get("host")):
                raise Refused(
                    403, words("server.other_site", "Requests from other sites are refused")
                )

        change = [Depends(same_origin)]
        self._pages(app)
        self._reads(app)
        self._commands(app, change)
        self._referee(app, change)
        self._simulator(app, change)

        @app.websocket("/ws")
        async def updates(socket: WebSocket, seat: int | None = None, token: str | None = None):
            if seat is not None and not self.access.is_player(
                self.service.referee.game_id, seat, token
            ):
                seat = None  # a wrong token still watches, but sees no hand
            await socket.accept()
            await self.hub.serve(socket, seat, self.state(seat).model_dump_json())

        return app

    def _pages(self, app: FastAPI) -> None:
        @app.get("/", include_in_schema=False)
        async def home() -> RedirectResponse:
            return RedirectResponse("/sim" if self.service.sim else "/table")

        for page in PAGES:
            if page != "play":
                app.add_api_route(f"/{page}", _page(page), include_in_schema=False)

        @app.get("/play/{seat}", include_in_schema=False)
        async def play(seat: int) -> HTMLResponse:
            if not 0 <= seat < self.service.referee.game.players:
                raise Refused(404, _no_seat(seat))
            return HTMLResponse(PAGE.replace("{{role}}", "play"))

        @app.get("/i18n/{language}.json", include_in_schema=False)
        async def word_table(language: str) -> Response:
            if language not in LANGUAGES:
                raise Refused(
                    404,
                    words(
                        "server.no_language",
                        "No language {language}; there are {languages}",
                        language=language,
                        languages=LANGUAGES,
                    ),
                )
            return JSONResponse(table(language))

    def _reads(self, app: FastAPI) -> None:
        @app.get("/api/state", response_model=models.State)
        async def state(
            seat: int | None = Query(None, ge=0, le=7),
            token: str | None = Query(None, max_length=64),
        ) -> models.State:
            if seat is not None and not self.access.is_player(
                self.service.referee.game_id, seat, token
            ):
                raise Refused(
                    403, words("server.seat_token", "A seat's view needs that seat's token")
                )
            return self.state(seat)

        @app.get("/api/board", response_model=models.Board)
        async def board() -> models.Board:
            board = self.service.referee.game.board
            return models.Board(
                name=board.name,
                title=board.title,
                game=board.game,
                lines=[list(line) for line in board.lines],
                cells=[
                    models.CellInfo(id=c.id, x=c.xy[0], y=c.xy[1], kind=c.kind, zone=c.zone)
                    for c in board.cells
                ],
            )

        @app.get("/api/games", response_model=list[models.GameInfo])
        async def games() -> list[models.GameInfo]:
            return [_game_info(name) for name in GAMES]

        @app.get("/api/health", response_model=models.Health)
        async def health() -> models.Health:
            referee = self.service.referee
            return models.Health(
                status="ok",
                game=referee.game.name,
                phase=referee.phase,
                link=self.service.link_state(),
                events=len(referee.log),
            )

        @app.get("/api/qr/{seat}", responses={200: {"content": {"image/svg+xml": {}}}})
        async def qr(seat: int, request: Request) -> Response:
            self._require(request, "table referee")
            referee = self.service.referee
            if not 0 <= seat < referee.game.players:
                raise Refused(404, _no_seat(seat))
            base = self.public_base()
            token = self.access.player_token(referee.game_id, seat)
            image = io.BytesIO()
            segno.make(f"{base}/play/{seat}?token={token}").save(image, kind="svg", scale=4)
            return Response(image.getvalue(), media_type="image/svg+xml")

        @app.get("/api/join", response_model=models.Join)
        async def join() -> models.Join:
            """Where the join QR codes point, and whether a phone can reach it."""
            base = self.public_base()
            return models.Join(url=base, loopback=is_loopback(base))

        @app.get("/api/join/{seat}", response_model=models.Done)
        async def joined(seat: int, token: str | None = Query(None, max_length=64)) -> models.Done:
            """Whether ``token`` is the current game's token of ``seat`` (a phone that
            has joined); it says no more than the 403 of /api/state would."""
            valid = self.access.is_player(self.service.referee.game_id, seat, token)
            return models.Done(ok=valid, detail="joined" if valid else "not joined")

    def public_base(self) -> str:
        panel = self.service.config.panel
        return public_base(panel.public_url, panel.host, panel.port)

    def _commands(self, app: FastAPI, change: list) -> None:
        referee = self.service.referee

        @app.post("/api/game", response_model=models.Done, dependencies=change)
        async def new_game(body: models.NewGame, request: Request) -> models.Done:
            self._require(request, "table referee")
            self.service.new_game(body.game, body.players, body.options, body.computer, body.level)
            return models.Done()

        @app.post("/api/draw", response_model=models.Done, dependencies=change)
        async def draw(body: models.Seat, request: Request) -> models.Done:
            self._require(request, "table referee player", body, (self.shown.drawer,))
            referee.draw()  # what was drawn is shown to whom may see it, with the state
            return models.Done()

        @app.post("/api/confirm", response_model=models.Done, dependencies=change)
        async def confirm(body: models.Seat, request: Request) -> models.Done:
            shown = self.shown
            seats = (shown.to_move, shown.tentative_seat)
            self._require(request, "table referee player", body, seats)
            referee.confirm()
            return models.Done()

        @app.post("/api/play", response_model=models.Done, dependencies=change)
        async def play(body: models.Play, request: Request) -> models.Done:
            self._require(request, "table referee player", body, (self.shown.to_move,))
            referee.play(body.move)
            return models.Done()

        @app.post("/api/choose", response_model=models.Done, dependencies=change)
        async def choose(body: models.Choice, request: Request) -> models.Done:
            self._require(request, "table referee player", body, (self.shown.to_move,))
            referee.choose(body.move)
            return models.Done()

        @app.post("/api/decline", response_model=models.Done, dependencies=change)
        async def decline(body: models.Seat, request: Request) -> models.Done:
            """Decline a roll the rules offer but do not force (a six's extra roll)."""
            self._require(request, "table referee player", body, (self.shown.drawer,))
            referee.decline()
            return models.Done()

        @app.post("/api/takeback", response_model=models.Done, dependencies=change)
        async def takeback(body: models.Seat, request: Request) -> models.Done:
            self._require(request, "table referee")
            return models.Done(detail=referee.takeback())

    def _referee(self, app: FastAPI, change: list) -> None:
        referee = self.service.referee

        @app.post("/api/referee/login", response_model=models.Done, dependencies=change)
        async def login(body: models.Pin, request: Request, response: Response) -> Any:
            client = request.client.host if request.client else "?"
            wait = self.access.retry_after(client)
            if wait > 0:
                raise Refused(
                    429,
                    words("server.pin_wait", "Too many wrong PINs: wait a minute"),
                    {"Retry-After": str(int(wait) + 1)},
                )
            token = self.access.login(body.pin, client)
            if token is None:
                raise Refused(403, words("server.wrong_pin", "Wrong PIN"))
            response.set_cookie(
                SESSION_COOKIE, token, httponly=True, samesite="strict", max_age=12 * 3600, path="/"
            )
            return models.Done(detail="referee")

        @app.post("/api/referee/logout", response_model=models.Done, dependencies=change)
        async def logout(request: Request, response: Response) -> models.Done:
            self.access.logout(request.cookies.get(SESSION_COOKIE))
            response.delete_cookie(SESSION_COOKIE, path="/")
            return models.Done()

        @app.get("/api/referee/session", response_model=models.Done)
        async def session(request: Request) -> models.Done:
            return models.Done(ok=self._is_referee(request))

        @app.post("/api/correct", response_model=models.Done, dependencies=change)
        async def correct(body: models.Correction, request: Request) -> models.Done:
            self._require(request, "referee")
            referee.correct(body.move)
            return models.Done()

        @app.get("/api/position", response_model=models.Position)
        async def current_position(request: Request) -> models.Position:
            """The whole record of the position, hidden hands too (referee only): what
            the position editor starts from."""
            self._require(request, "referee")
            if referee.game is None:
                raise Refused(404, words("referee.no_game", "No game: start one"))
            return models.Position(record=referee.game.to_json(referee.current()))

        @app.post("/api/position", response_model=models.Done, dependencies=change)
        async def position(body: models.Position, request: Request) -> models.Done:
            """Set the whole position: a full record (``game.to_json``), or only its
            state part (the ``record`` of /api/state), taken as the current game's."""
            self._require(request, "referee")
            record = body.record
            if "game" not in record and referee.game is not None:
                game = referee.game
                record = {
                    "game": game.name,
                    "players": game.players,
                    "options": dict(game.options),
                    "state": record,
                }
            referee.set_position(record)
            return models.Done()

        @app.post("/api/settings", response_model=models.Done, dependencies=change)
        async def settings(body: models.Settings, request: Request) -> models.Done:
            self._require(request, "referee")
            referee.settle = body.settle_ms / 1000
            return models.Done(detail=f"settle time {body.settle_ms} ms")

        @app.get("/api/diagnostics", response_model=models.Diagnostics)
        async def diagnostics(request: Request) -> models.Diagnostics:
            self._require(request, "referee")
            service = self.service
            link = service.link
            return models.Diagnostics(
                link=service.link_state(),
                link_error=link.error if link else None,
                mcu=link.counters() if link else {},
                store=service.store.size(),
                settle_ms=round(referee.settle * 1000),
                sensor=referee.sensor,
                subscribers=len(self.hub.subscribers),
                camera=_camera_status(service.camera),
            )

        @app.get("/api/camera.png", responses={200: {"content": {"image/png": {}}}})
        async def camera_view(request: Request) -> Response:
            """The camera's last frame with the cell overlay (referee only)."""
            self._require(request, "referee")
            camera = self.service.camera
            if camera is None:
                raise Refused(404, _NO_CAMERA)
            # encoding a full frame takes tens of milliseconds: off the loop
            png = await asyncio.to_thread(camera.snapshot)
            if png is None:
                raise Refused(
                    404,
                    as_words(camera.failure)
                    if camera.failure
                    else words("camera.no_frame", "The camera has given no picture yet"),
                )
            return Response(png, media_type="image/png")

        def table_camera():
            camera = self.service.camera
            if camera is None:
                raise Refused(404, _NO_CAMERA)
            return camera

        @app.get("/api/camera/corners", response_model=models.CornerCells)
        async def corner_cells(request: Request) -> models.CornerCells:
            """The cells to click on the camera picture when its markers are not seen."""
            self._require(request, "referee")
            return models.CornerCells(cells=table_camera().corner_cells())

        @app.post("/api/camera/corners", response_model=models.Done, dependencies=change)
        async def set_corners(body: models.Corners, request: Request) -> models.Done:
            self._require(request, "referee")
            camera = table_camera()
            camera.set_corners(body.points)  # a few milliseconds, on the loop like frames
            return models.Done(detail=f"board located by hand; camera {camera.reader.status}")

        @app.post("/api/camera/learn", response_model=models.Done, dependencies=change)
        async def learn_board(request: Request) -> models.Done:
            self._require(request, "referee")
            table_camera().learn_now()
            return models.Done(detail="the camera learned the board as it lies now")

    def _simulator(self, app: FastAPI, change: list) -> None:
        def simulator():
            if not self.service.sim:
                raise Refused(
                    404,
                    words("server.no_virtual_board", "Only a simulated table has a virtual board"),
                )
            return self.service

        @app.get("/api/sim/board", response_model=dict[str, bool])
        async def sim_board() -> dict[str, bool]:
            return simulator().sim_board()

        @app.get("/api/sim/virtual", response_model=models.Virtual)
        async def virtual() -> models.Virtual:
            return simulator().sim_virtual()

        @app.post("/api/sim/lift", response_model=models.Virtual, dependencies=change)
        async def lift(body: models.SimLift, request: Request) -> Any:
            """Lift the top piece of a cell, or take one off the tray or the supply;
            answers the virtual board as it is now."""
            self._require(request, "table referee")
            if body.cell is not None:
                simulator().sim_act("lift", body.cell, version=body.version)
            else:
                simulator().sim_act("take", body.off, body.token, version=body.version)
            return self.service.sim_virtual()

        @app.post("/api/sim/place", response_model=models.Virtual, dependencies=change)
        async def place(body: models.SimPlace, request: Request) -> Any:
            """Put a piece of the hand on a cell, into the tray or back into the supply;
            answers the virtual board as it is now."""
            self._require(request, "table referee")
            verb, where = ("place", body.cell) if body.cell is not None else ("put", body.off)
            simulator().sim_act(verb, where, body.piece, version=body.version)
            return self.service.sim_virtual()

        @app.post("/api/sim/unpack", response_model=models.Virtual, dependencies=change)
        async def unpack(body: models.SimUnpack, request: Request) -> Any:
            """Take a tower in the hand apart into its hats (a tower brought home: own
            hats go back into the home, prisoners beside the board); answers the
            virtual board as it is now."""
            self._require(request, "table referee")
            simulator().sim_act("unpack", body.piece, version=body.version)
            return self.service.sim_virtual()


class Refused(Exception):
    """A request refused in words: its HTTP status and what the page is to say."""

    def __init__(self, status: int, said: Words, headers: dict[str, str] | None = None):
        super().__init__(str(said))
        self.status, self.words, self.headers = status, said, headers


def _refusal(status: int, said: Words, headers: dict[str, str] | None = None) -> JSONResponse:
    """The JSON of a refusal: ``detail`` in English, ``said`` for the page to translate."""
    return JSONResponse(
        {"detail": str(said), "said": said.to_json()}, status_code=status, headers=headers
    )


#: who may do what, in words, by the roles a request needs
_ONLY = {
    "table referee": words(
        "server.only_table_or_referee", "Only the table screen or the referee may do this"
    ),
    "table referee player": words(
        "server.only_acting_seat",
        "Only the table screen, the referee or the phone of the seat to act may do this",
    ),
    "referee": words("server.only_referee", "Only the referee may do this: log in with the PIN"),
}
_NO_CAMERA = words("server.no_camera", "This table has no camera")


def _no_seat(seat: int) -> Words:
    return words("server.no_seat", "There is no seat {n} in this game", n=seat + 1)


@functools.cache
def _game_info(name: str) -> models.GameInfo:
    """A game as the new-game dialog offers it: player counts, the seats' names for
    each count (to pick who starts and the computer's seats) and the variants."""
    game = load_game(name)
    return models.GameInfo(
        name=name,
        players=list(game.player_counts),
        default_players=game.default_players,
        seat_names={
            n: [seated.seat_words(s).to_json() for s in range(n)]
            for n, seated in ((n, load_game(name, n)) for n in game.player_counts)
        },
        options=[
            {
                "name": o.name,
                "default": o.default,
                "doc": o.doc,
                "kind": o.kind.__name__,
                "choices": o.choices,
                "minimum": o.minimum,
                "maximum": o.maximum,
            }
            for o in game.OPTIONS
        ],
    )


def _camera_status(camera) -> str:
    """What the diagnostics say of the camera: none, why it fails, or the reader's state."""
    if camera is None:
        return "none"
    reader = camera.reader
    if not camera.failure and reader.status == "unlocated" and reader.refusal:
        return f"unlocated: {reader.refusal}"
    return camera.failure or reader.status


def _page(name: str):
    async def page() -> HTMLResponse:
        return HTMLResponse(PAGE.replace("{{role}}", name))

    page.__name__ = f"{name}_page"
    return page
