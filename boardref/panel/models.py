"""The panel's request and response bodies. Every state-changing request is one of
these, validated before anything is done, so /openapi.json describes the real API."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

CELL = Field(min_length=1, max_length=16, pattern=r"^[a-z][a-z0-9_]*$")
#: a position on a camera picture, in its pixels (finite, within any sensor's size)
PIXEL = Annotated[float, Field(ge=-100_000, le=100_000, allow_inf_nan=False)]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Seat(_Body):
    """A player's phone acting for its seat (the table and referee leave it out)."""

    seat: int | None = Field(None, ge=0, le=7)
    token: str | None = Field(None, max_length=64)


class NewGame(_Body):
    game: str = Field(min_length=1, max_length=40)
    players: int | None = Field(None, ge=1, le=8)
    options: dict[str, bool | int | str | None] = Field(default_factory=dict, max_length=16)
    #: seats the computer plays
    computer: list[int] = Field(default_factory=list, max_length=8)
    level: str = Field("hard", pattern=r"^(easy|medium|hard)$")


class Choice(Seat):
    move: str = Field(min_length=1, max_length=200)


class Play(Seat):
    move: str = Field(min_length=1, max_length=200)


class Correction(_Body):
    move: str = Field(min_length=1, max_length=200)


class Position(_Body):
    record: dict[str, Any]


class Settings(_Body):
    """What the referee may tune while the table plays."""

    settle_ms: int = Field(ge=20, le=5000)


class Corners(_Body):
    """The camera picture's pixels (x, y) of the board's corner cells, in order."""

    points: list[tuple[PIXEL, PIXEL]] = Field(min_length=4, max_length=4)


class CornerCells(BaseModel):
    cells: list[str]


class Pin(_Body):
    pin: str = Field(min_length=1, max_length=32)


class CellBody(_Body):
    cell: str = CELL


class Notice(BaseModel):
    key: str
    params: dict[str, Any]


class SeatInfo(BaseModel):
    name: str
    colour: str | None


class State(BaseModel):
    """Everything a page shows; pushed on /ws after every change."""

    game: str
    players: int
    options: dict[str, Any]
    seats: list[SeatInfo]
    phase: str
    to_move: int | None
    seat_name: str | None
    seat_colour: str | None
    message: str
    notice: Notice | None
    position: dict[str, str | None]
    last_move: list[str]
    tentative: str | None
    lifted: str | None
    destinations: list[str]
    hints: list[str]
    errors: list[str]
    place: str | None
    remove: str | None
    chance: str | None
    last_draw: Any
    candidates: list[str]
    outcome: dict[str, Any] | None
    expected: str | None = None
    computer: list[int] = []
    commitment: str
    plies: int
    link: str
    sim: bool
    sensor: str
    #: the legal moves of the seat to move, where this page may see them (a panel
    #: table: publicly for open games, only on the mover's phone for hidden hands)
    moves: list[str] = []
    #: the game's record of the position (game.to_json), for games without hidden
    #: information only: what a page needs to draw towers, disks, coasters...
    record: dict[str, Any] | None = None
    #: the game's public report (game.report): scores per landscape, open stacks...
    report: dict[str, Any] = {}
    view: dict[str, Any] | None = None


class CellInfo(BaseModel):
    id: str
    x: float
    y: float
    kind: str
    zone: str | None


class Board(BaseModel):
    name: str
    title: str
    cells: list[CellInfo]
    lines: list[list[str]]
    #: the board file's [game] table: colours, coaster prints... for drawing
    game: dict[str, Any] = {}


class GameInfo(BaseModel):
    name: str
    players: list[int]
    default_players: int
    #: the seats' names by player count
    seat_names: dict[int, list[str]] = {}
    options: list[dict[str, Any]]


class Join(BaseModel):
    """Where a phone joins: the base of the QR codes' addresses."""

    url: str
    #: the address is this machine's own (127.0.0.1): no phone can reach it
    loopback: bool


class Health(BaseModel):
    status: str
    game: str
    phase: str
    link: str
    events: int


class Diagnostics(BaseModel):
    link: str
    link_error: str | None
    mcu: dict[str, int]
    store: dict[str, int]
    settle_ms: int
    sensor: str
    subscribers: int
    #: "none" without a camera, else the reader's status or why the camera gives no frames
    camera: str = "none"


class Done(BaseModel):
    ok: bool = True
    detail: str = ""
