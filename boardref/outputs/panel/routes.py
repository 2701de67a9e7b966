"""The panel's routes, as FastAPI routers: reads (GET), the table's commands, the
referee's tools and the simulated table's virtual board.

Who may call a route is a dependency of the route (``allowed``): the table kiosk (a
browser on this machine), the referee (PIN session) or a player's phone (its seat's
token, for the seats the snapshot says may act). Every change is a POST that also
passes the Origin check (``same_origin``). The routes give the table's commands through
``TableControl`` (the panel's ``control``) alone; they never decide anything about the
game.
"""

from __future__ import annotations

import asyncio
import functools
import io
import math
from collections.abc import Callable, Iterable
from typing import Annotated, Any

import segno
from fastapi import APIRouter, Depends, Query, Request, Response

from boardref.outputs.panel import models
from boardref.outputs.panel.access import SESSION_COOKIE, SESSION_SECONDS, is_local, origin_allowed
from boardref.outputs.panel.address import is_loopback
from boardref.outputs.panel.hand_secrecy import reason_hidden
from boardref.outputs.panel.panel import Panel
from boardref.outputs.panel.seats import JOINED, Device, standing_words, the_device
from boardref.referee.snapshot import TableState
from boardref.runtime.control import TableControl
from engines import GAMES, load_game
from engines.words import Words, as_words, words

TABLE, REFEREE, PLAYER = "table", "referee", "player"


class RequestRefused(Exception):
    """A request refused in words: its HTTP status and what the page is to say."""

    def __init__(self, status: int, said: Words, headers: dict[str, str] | None = None):
        super().__init__(str(said))
        self.status, self.words, self.headers = status, said, headers


async def the_panel(request: Request) -> Panel:
    """The panel serving this request (a dependency of every route). A coroutine, as
    every dependency here: FastAPI runs a plain function in a worker thread, a hand-off
    to another thread and back on every request."""
    return request.app.state.panel


ThePanel = Annotated[Panel, Depends(the_panel)]


async def same_origin(request: Request) -> None:
    """A browser's request must come from the panel's own pages."""
    if not origin_allowed(request.headers.get("origin"), request.headers.get("host")):
        raise RequestRefused(
            403, words("server.other_site", "Requests from other sites are refused")
        )


#: headers a reverse proxy adds: a request carrying one came through a proxy
FORWARDING = ("forwarded", "x-forwarded-for", "x-real-ip")


def is_table(request: Request) -> bool:
    """The kiosk browser on the table's own screen: a client on this machine that
    came straight, never a request through a proxy (a proxy on the Pi itself
    connects from this machine on behalf of every client behind it)."""
    if any(name in request.headers for name in FORWARDING):
        return False
    return is_local(request.client.host if request.client else None)


def is_referee(panel: Panel, request: Request) -> bool:
    client = request.client.host if request.client else None
    return panel.access.is_referee(request.cookies.get(SESSION_COOKIE), client)


def allowed(*roles: str, seats: Callable[[TableState], Iterable[int | None]] = lambda shown: ()):
    """A dependency letting a request through if it comes from one of ``roles``: the
    table, the referee, or a player: the phone of one of the ``seats`` the referee's
    last snapshot names, by the ``seat`` and ``token`` of its body. Else 403."""

    async def check(request: Request, panel: ThePanel) -> None:
        if REFEREE in roles and is_referee(panel, request):
            return
        if TABLE in roles and is_table(request):
            return
        if PLAYER in roles:
            seat, token = await _seat_of(request)
            if seat is not None:
                device = the_device(request)
                standing = panel.seats.admit(panel.control.game_id, seat, token, device)
                if standing == JOINED and seat in set(seats(panel.shown.state)):
                    return
                raise RequestRefused(403, standing_words(standing, ROLE_WORDS[roles]))
        raise RequestRefused(403, ROLE_WORDS[roles])

    return Depends(check)


async def _seat_of(request: Request) -> tuple[int | None, str | None]:
    """The seat and token a phone's body names (None where it names none)."""
    try:
        body = await request.json()  # parsed already for the route: cached
    except ValueError:
        return None, None
    if not isinstance(body, dict):
        return None, None
    seat, token = body.get("seat"), body.get("token")
    if not isinstance(seat, int) or isinstance(seat, bool) or not isinstance(token, str):
        return None, None
    return seat, token


def request_not_saved(error: Exception | None) -> Words:
    return words(
        "server.not_saved",
        "Not saved, so not done: {error}. Free space on the table's storage and try again",
        error=str(error),
    )


#: who may do what, in words, by the roles a request needs
ROLE_WORDS = {
    (TABLE, REFEREE): words(
        "server.only_table_or_referee", "Only the table screen or the referee may do this"
    ),
    (TABLE, REFEREE, PLAYER): words(
        "server.only_acting_seat",
        "Only the table screen, the referee or the phone of the seat to act may do this",
    ),
    (REFEREE,): words("server.only_referee", "Only the referee may do this: log in with the PIN"),
}
_NO_CAMERA = words("server.no_camera", "This table has no camera")
CHANGE = [Depends(same_origin)]
TABLE_OR_REFEREE = allowed(TABLE, REFEREE)
ONLY_REFEREE = allowed(REFEREE)


def no_seat(seat: int) -> Words:
    return words("server.no_seat", "There is no seat {n} in this game", n=seat + 1)


# --- reads -------------------------------------------------------------------------------

reads = APIRouter()


@reads.get("/api/state", response_model=models.State)
async def state(
    panel: ThePanel,
    device: Device,
    seat: int | None = Query(None, ge=0, le=7),
    token: str | None = Query(None, max_length=64),
) -> models.State:
    if seat is not None:
        standing = panel.seats.admit(panel.control.game_id, seat, token, device)
        if standing != JOINED:
            needs = words("server.seat_token", "A seat's view needs that seat's token")
            raise RequestRefused(403, standing_words(standing, needs))
    return panel.state(seat)


@reads.get("/api/board", response_model=models.Board)
async def board(panel: ThePanel) -> models.Board:
    return models.board_of(panel.control.game.board)


@reads.get("/api/catalogue", response_model=list[models.GameInfo])
async def games() -> list[models.GameInfo]:
    # the first listing loads every game's rules and boards: seconds of CPU on a Pi
    return await asyncio.to_thread(lambda: [_game_info(name) for name in GAMES])


@reads.get("/api/health", response_model=models.Health)
async def health(panel: ThePanel) -> models.Health:
    return models.Health(status="ok", **panel.control.health())


@reads.get(
    "/api/qr/{seat}",
    responses={200: {"content": {"image/svg+xml": {}}}},
    dependencies=[TABLE_OR_REFEREE],
)
async def qr(seat: int, panel: ThePanel) -> Response:
    control = panel.control
    if not 0 <= seat < control.game.players:
        raise RequestRefused(404, no_seat(seat))
    if panel.seats.is_joined(control.game_id, seat):
        raise RequestRefused(
            409,
            words(
                "server.seat_joined",
                "Seat {n} has joined on a phone; hand it over to show a new code",
                n=seat + 1,
            ),
        )
    token = panel.seats.token(control.game_id, seat)
    address = f"{panel.public_base()}/play/{seat}?token={token}"
    return Response(await asyncio.to_thread(join_code, address), media_type="image/svg+xml")


@functools.lru_cache(maxsize=32)
def join_code(address: str) -> bytes:
    """The QR code of ``address`` as SVG. segno takes some 8 ms of CPU a code on a
    desktop PC, about four times that on a Pi 4 (made in a worker thread, off the
    event loop), and the table page asks for every seat's code each time it loads:
    the codes of the last few games are kept, keyed by the address itself (with its
    seat's token)."""
    image = io.BytesIO()
    segno.make(address).save(image, kind="svg", scale=4)
    return image.getvalue()


@reads.get("/api/join", response_model=models.Join)
async def join(panel: ThePanel) -> models.Join:
    """Where the join QR codes point, and whether a phone can reach it."""
    base = panel.public_base()
    return models.Join(url=base, loopback=is_loopback(base))


@reads.get("/api/join/{seat}", response_model=models.Done)
async def joined(
    seat: int, panel: ThePanel, device: Device, token: str | None = Query(None, max_length=64)
) -> models.Done:
    """Whether this phone holds ``seat`` with ``token`` (claiming it where no phone
    has), and if not, why: "elsewhere", "handed_over" or "not_joined". It says no more
    than the 403 of /api/state would."""
    standing = panel.seats.admit(panel.control.game_id, seat, token, device)
    return models.Done(ok=standing == JOINED, detail=standing)


# --- the table's commands ----------------------------------------------------------------

commands = APIRouter(dependencies=CHANGE)


@commands.post("/api/game", response_model=models.Done, dependencies=[TABLE_OR_REFEREE])
async def new_game(body: models.NewGame, panel: ThePanel) -> models.Done:
    await panel.control.new_game(body.game, body.players, body.options, body.computer, body.level)
    return models.Done()


#: the table, the referee, or the seat whose draw or roll it is
DRAWER = allowed(TABLE, REFEREE, PLAYER, seats=lambda shown: (shown.drawer,))


@commands.post("/api/draw", response_model=models.Done, dependencies=[DRAWER])
async def draw(body: models.Seat, panel: ThePanel) -> models.Done:
    await panel.control.draw()  # what was drawn is shown to whom may see it
    return models.Done()


@commands.post(
    "/api/confirm",
    response_model=models.Done,
    dependencies=[
        allowed(TABLE, REFEREE, PLAYER, seats=lambda shown: (shown.to_move, shown.tentative_seat))
    ],
)
async def confirm(body: models.Seat, panel: ThePanel) -> models.Done:
    await panel.control.confirm()
    return models.Done()


TO_MOVE = allowed(TABLE, REFEREE, PLAYER, seats=lambda shown: (shown.to_move,))


@commands.post("/api/play", response_model=models.Done, dependencies=[TO_MOVE])
async def play(body: models.Play, request: Request, panel: ThePanel) -> models.Done:
    """A move tapped on the panel, at a table whose game no sensor reads."""
    await panel.control.play(body.move, reason_hidden(panel, request, body.seat, body.token))
    return models.Done()


@commands.post("/api/choose", response_model=models.Done, dependencies=[TO_MOVE])
async def choose(body: models.Play, panel: ThePanel) -> models.Done:
    """The move that was played, when several fit the board."""
    await panel.control.choose(body.move)
    return models.Done()


@commands.post("/api/rule_out", response_model=models.Done, dependencies=[TO_MOVE])
async def rule_out(body: models.Seat, panel: ThePanel) -> models.Done:
    """The mover made none of the moves the board cannot feel."""
    await panel.control.rule_out()
    return models.Done()


@commands.post("/api/decline", response_model=models.Done, dependencies=[DRAWER])
async def decline(body: models.Seat, panel: ThePanel) -> models.Done:
    """Decline a roll the rules offer but do not force (a six's extra roll)."""
    await panel.control.decline()
    return models.Done()


@commands.post("/api/takeback", response_model=models.Done, dependencies=[TABLE_OR_REFEREE])
async def takeback(body: models.Seat, panel: ThePanel) -> models.Done:
    return models.Done(detail=await panel.control.takeback())


# --- the referee's tools -----------------------------------------------------------------

referee_tools = APIRouter()


@referee_tools.post("/api/referee/login", response_model=models.Done, dependencies=CHANGE)
async def login(body: models.Pin, request: Request, response: Response, panel: ThePanel) -> Any:
    client, kiosk = request.client.host if request.client else "?", is_table(request)
    wait, everyone = panel.access.retry_after(client, kiosk)
    if wait > 0:
        raise RequestRefused(429, pin_wait(wait, everyone), {"Retry-After": str(math.ceil(wait))})
    token = await panel.access.login(body.pin, client, kiosk)
    if token is None:
        raise RequestRefused(403, words("server.wrong_pin", "Wrong PIN"))
    response.set_cookie(
        SESSION_COOKIE,
        token,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        max_age=SESSION_SECONDS,
        path="/",
    )
    return models.Done(detail="referee")


def pin_wait(seconds: float, everyone: bool) -> Words:
    """Why no PIN is checked now, and for how long."""
    if everyone:
        return words(
            "server.pin_locked",
            "Too many wrong PINs at this table: a device that guessed wrong waits "
            "{minutes} min; the table's own screen can always log in. A forgotten PIN is "
            "set anew in the config (boardref pin-hash)",
            minutes=math.ceil(seconds / 60),
        )
    return words(
        "server.pin_wait",
        "Too many wrong PINs from this device: try again in {seconds} s",
        seconds=math.ceil(seconds),
    )


@referee_tools.post("/api/referee/logout", response_model=models.Done, dependencies=CHANGE)
async def logout(request: Request, response: Response, panel: ThePanel) -> models.Done:
    panel.access.logout(request.cookies.get(SESSION_COOKIE))
    response.delete_cookie(SESSION_COOKIE, path="/")
    return models.Done()


@referee_tools.get("/api/referee/session", response_model=models.Done)
async def session(request: Request, panel: ThePanel) -> models.Done:
    return models.Done(ok=is_referee(panel, request))


@referee_tools.post(
    "/api/correct", response_model=models.Done, dependencies=[*CHANGE, ONLY_REFEREE]
)
async def correct(body: models.Correction, panel: ThePanel) -> models.Done:
    await panel.control.correct(body.move)
    return models.Done()


@referee_tools.get(
    "/api/correction", response_model=models.CorrectionChoices, dependencies=[ONLY_REFEREE]
)
async def correction(panel: ThePanel) -> models.CorrectionChoices:
    """The last move and what may replace it (referee only): what the page draws on
    the board for the referee to tap."""
    return models.CorrectionChoices(**await panel.control.correction_choices())


@referee_tools.get(
    "/api/position", response_model=models.PositionShown, dependencies=[ONLY_REFEREE]
)
async def current_position(panel: ThePanel) -> models.PositionShown:
    """The whole record of the position, hidden hands too (referee only), and the
    pieces a tap on the board may set: what the position editor starts from."""
    control = panel.control
    record, pieces = await control.position_record(), await control.placeable_pieces()
    return models.PositionShown(
        record=record,
        pieces=[models.Piece(token=token, single=single) for token, single in pieces],
    )


@referee_tools.post(
    "/api/position", response_model=models.Done, dependencies=[*CHANGE, ONLY_REFEREE]
)
async def position(body: models.Position, panel: ThePanel) -> models.Done:
    """Set the whole position: a full record (``game.to_json``), or only its state
    part (the ``record`` of /api/state), taken as the current game's."""
    await panel.control.set_position(body.record)
    return models.Done()


@referee_tools.post(
    "/api/position/cells", response_model=models.Done, dependencies=[*CHANGE, ONLY_REFEREE]
)
async def position_cells(body: models.Placings, panel: ThePanel) -> models.Done:
    """Set cells of the position as the referee tapped them, in order: each a piece
    (a token of GET /api/position's ``pieces``) or, with none, nothing. The position
    they make is checked and set as a whole one is."""
    await panel.control.set_cells([(p.cell, p.token) for p in body.placings])
    return models.Done()


@referee_tools.post(
    "/api/settings", response_model=models.Done, dependencies=[*CHANGE, ONLY_REFEREE]
)
async def settings(body: models.Settings, panel: ThePanel) -> models.Done:
    """Tune the table while it plays: the settle time of a reading."""
    await panel.control.set_settle_time(body.settle_ms)
    return models.Done(detail=f"settle time {body.settle_ms} ms")


@referee_tools.get(
    "/api/diagnostics", response_model=models.Diagnostics, dependencies=[ONLY_REFEREE]
)
async def diagnostics(panel: ThePanel, lag_after: int = Query(0, ge=0)) -> models.Diagnostics:
    """``lag_after``: the loop lag over the samples taken after that many only."""
    figures = panel.control.diagnostics(lag_after)
    return models.Diagnostics(**figures, subscribers=len(panel.hub.subscribers))


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


async def table_camera(panel: ThePanel) -> TableControl:
    """The table's camera tools (a dependency of the camera routes), else 404."""
    if not panel.control.has_camera:
        raise RequestRefused(404, _NO_CAMERA)
    return panel.control


TheCamera = Annotated[TableControl, Depends(table_camera)]


@referee_tools.get(
    "/api/camera.png",
    responses={200: {"content": {"image/png": {}}}},
    dependencies=[ONLY_REFEREE],
)
async def camera_view(camera: TheCamera) -> Response:
    """The camera's last frame with the cell overlay (referee only)."""
    # encoding a full frame takes tens of milliseconds: off the loop
    png = await asyncio.to_thread(camera.camera_picture)
    if png is None:
        failure = camera.camera_failure()
        raise RequestRefused(
            404,
            as_words(failure)
            if failure
            else words(
                "camera.no_frame",
                "The camera has given no picture yet: wait a moment and try again",
            ),
        )
    return Response(png, media_type="image/png")


@referee_tools.get(
    "/api/camera/corners", response_model=models.CornerCells, dependencies=[ONLY_REFEREE]
)
async def corner_cells(camera: TheCamera) -> models.CornerCells:
    """The cells to click on the camera picture when its markers are not seen."""
    return models.CornerCells(cells=camera.corner_cells())


@referee_tools.post(
    "/api/camera/corners", response_model=models.Done, dependencies=[*CHANGE, ONLY_REFEREE]
)
async def set_corners(body: models.Corners, camera: TheCamera) -> models.Done:
    status = camera.locate_board(body.points)  # a few milliseconds, on the loop like frames
    return models.Done(detail=f"board located by hand; camera {status}")


@referee_tools.post(
    "/api/camera/learn", response_model=models.Learned, dependencies=[*CHANGE, ONLY_REFEREE]
)
async def learn_board(camera: TheCamera) -> models.Learned:
    lesson = await camera.learn_board()
    if lesson is None:
        return models.Learned(detail="the camera learned the board as it lies now")
    return models.Learned(detail=str(lesson), said=lesson.to_json())


# --- the simulated table's virtual board ---------------------------------------------------


def simulated(panel: Panel) -> TableControl:
    """The controls of a simulated table whose game has a board, else 404 (asked once
    the body is valid)."""
    control = panel.control
    if not control.simulated:
        raise RequestRefused(
            404, words("server.no_virtual_board", "Only a simulated table has a virtual board")
        )
    if control.virtual_board() is None:
        raise RequestRefused(
            404,
            words(
                "server.played_on_panel",
                "This game is played on the panel: it has no virtual board",
            ),
        )
    return control


simulator = APIRouter()
SIM_CHANGE = [*CHANGE, TABLE_OR_REFEREE]


@simulator.get("/api/sim/board", response_model=dict[str, bool])
async def sim_board(panel: ThePanel) -> dict[str, bool]:
    return simulated(panel).virtual_presence()


@simulator.get("/api/sim/virtual", response_model=models.Virtual)
async def virtual(panel: ThePanel) -> Any:
    return simulated(panel).virtual_board()


@simulator.post("/api/sim/lift", response_model=models.Virtual, dependencies=SIM_CHANGE)
async def lift(body: models.SimLift, panel: ThePanel) -> Any:
    """Lift a piece of a cell (the top one, or one of ``token``), or take one off the
    tray or the supply; answers the virtual board as it is now."""
    control = simulated(panel)
    if body.cell is not None:
        await control.lift(body.cell, body.token, body.version)
    elif body.off is not None:
        await control.take(body.off, body.token, body.version)
    return control.virtual_board()


@simulator.post("/api/sim/place", response_model=models.Virtual, dependencies=SIM_CHANGE)
async def place(body: models.SimPlace, panel: ThePanel) -> Any:
    """Put a piece of the hand on a cell, into the tray or back into the supply;
    answers the virtual board as it is now."""
    control = simulated(panel)
    if body.cell is not None:
        await control.place(body.cell, body.piece, body.version)
    elif body.off is not None:
        await control.put(body.off, body.piece, body.version)
    return control.virtual_board()


@simulator.post("/api/sim/unpack", response_model=models.Virtual, dependencies=SIM_CHANGE)
async def unpack(body: models.SimUnpack, panel: ThePanel) -> Any:
    """Take a tower in the hand apart into its hats (a tower brought home: own hats go
    back into the home, prisoners beside the board); answers the virtual board as it
    is now."""
    control = simulated(panel)
    await control.unpack(body.piece, body.version)
    return control.virtual_board()


ROUTERS = (reads, commands, referee_tools, simulator)
