"""The panel's request and response bodies. Every state-changing request is one of
these, validated before anything is done, so /openapi.json describes the real API."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from boardref.outputs.panel.pages import BUILD
from boardref.outputs.speech import SpeechShown
from boardref.referee.snapshot import TableState
from boardref.runtime.control import Level

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
    level: Level = "hard"


class Play(Seat):
    """A move in the game's notation: tapped on the panel (/api/play), or the one
    played when several fit the board (/api/choose)."""

    move: str = Field(min_length=1, max_length=200)


class Correction(_Body):
    move: str = Field(min_length=1, max_length=200)


class Position(_Body):
    record: dict[str, Any]


class Piece(BaseModel):
    """A piece a tap on the board may set: its token, and whether there is only one
    of it (of the game or of a seat), so that a tap moves it."""

    token: str
    single: bool


class PositionShown(Position):
    """The position's record and the pieces a tap on the board may set in this game."""

    pieces: list[Piece]


class Placing(_Body):
    """A piece set on a cell by the referee's tap; ``token`` None leaves it empty."""

    cell: str = CELL
    token: str | None = Field(None, min_length=1, max_length=40)


class Placings(_Body):
    """The referee's taps on the board, in order, set as one position."""

    placings: list[Placing] = Field(min_length=1, max_length=300)


class Alternative(BaseModel):
    """A legal move in the place of the last one: its notation, the cells it passes
    (none for a move that is no path) and the cells whose piece it changes."""

    move: str
    path: list[str]
    cells: list[str]


class CorrectionChoices(BaseModel):
    """What may replace the last move: that move (None: the move the players are
    asked about), the position before it as a camera sees it, and its legal moves."""

    replaces: str | None
    position: dict[str, str | None]
    moves: list[Alternative]


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


class SimAction(_Body):
    """A hand on the virtual board: a cell, or ``off`` the board (the tray, the
    supply). ``version`` is the board the page showed; an older one is refused."""

    cell: str | None = Field(None, min_length=1, max_length=16, pattern=r"^[a-z][a-z0-9_]*$")
    off: Literal["tray", "supply"] | None = None
    version: int | None = Field(None, ge=0)

    @model_validator(mode="after")
    def _one_place(self):
        if (self.cell is None) == (self.off is None):
            raise ValueError("name either a cell or off (tray or supply), not both")
        return self


class SimLift(SimAction):
    """Lift a piece of a cell (the top one, or one of ``token`` standing there beside
    others), or take one (of ``token``) off the tray or supply."""

    token: str | None = Field(None, min_length=1, max_length=40)


class SimPlace(SimAction):
    """Put a piece of the hand (``piece``, else the one lifted last) on a cell, into
    the tray or back into the supply."""

    piece: int | None = Field(None, ge=0)


class SimUnpack(_Body):
    """Take a tower in the hand (``piece``, else the one lifted last) apart into its
    hats. ``version`` is the board the page showed; an older one is refused."""

    piece: int | None = Field(None, ge=0)
    version: int | None = Field(None, ge=0)


class VirtualPiece(BaseModel):
    id: int
    token: str
    #: the cell, "tray" or "supply" it was taken from
    origin: str


class Virtual(BaseModel):
    """The virtual board of a simulated table: what stands where, and beside it."""

    version: int
    #: whether a cell may hold several pieces (hats on hats)
    stacking: bool
    #: the pieces on each cell that holds any, bottom first
    stacks: dict[str, list[str]]
    hand: list[VirtualPiece]
    #: captured pieces taken off the board
    tray: list[str]
    #: pieces beside the board to take, by token
    supply: dict[str, int]


class State(TableState):
    """Everything a page shows, pushed on /ws after every change: the referee's
    snapshot as it is, and what only this page or this table knows."""

    #: the board link: "up", "down", "none" (no board)...
    link: str = "none"
    sim: bool = False
    #: what this page's seat alone may see (hidden hands), else None
    view: dict[str, Any] | None = None
    #: a simulated table's virtual board (None elsewhere, and on /ws on a page that
    #: does not ask for it with ``?virtual=true``: it draws no virtual board)
    virtual: Virtual | None = None
    #: the seats a phone has joined (their join codes are no longer shown)
    joined: list[int] = Field(default_factory=list)
    #: how many times a seat of this game was handed over (its join code changed)
    handovers: int = 0
    #: the build of the pages this service serves: a page of another reloads itself
    build: str = BUILD
    #: the service run that pushed this state, and its place among that run's states:
    #: a page never replaces a state it shows with an older one of the same run
    run: str = ""
    seq: int = 0
    #: the ``seq`` of the last push after which the seats' players may have changed
    #: (a seat joined or named, a player renamed): a page asks for the names
    #: (``/api/players/seated``) again only then, or for a new game, not every push
    names_seq: int = 0
    #: the table's most recent announcements (``Announcement.to_json``), oldest first:
    #: a page says those with a number it has not said yet, to its seat or the table
    said: list[dict[str, Any]] = Field(default_factory=list)
    #: how the kiosk, the phones and the Pi speak (the referee page changes it)
    speech: SpeechShown | None = None
    #: the computer's announced move in its game's sentence, as the table hears it
    #: (``spoken.announced``): players' pages show these words; None when there are none
    computer_move: dict[str, Any] | None = None


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


def board_of(board) -> Board:
    """A board file as pages draw it (``engines.geometry.Board``)."""
    return Board(
        name=board.name,
        title=board.title,
        game=board.game,
        lines=[list(line) for line in board.lines],
        cells=[
            CellInfo(id=c.id, x=c.xy[0], y=c.xy[1], kind=c.kind, zone=c.zone) for c in board.cells
        ],
    )


class Replay(BaseModel):
    """An ended game step by step: each frame is a record line and the table as it
    stood after it (``table`` is the shape of ``/api/state``)."""

    board: Board
    frames: list[dict[str, Any]]
    #: the named seats, as the record names them: seat (from 0) to player's name
    names: dict[int, str] = {}


class GameInfo(BaseModel):
    name: str
    players: list[int]
    default_players: int
    #: the seats' names by player count
    #: each player count's seat names as words ({"key", "params"}) a page says
    seat_names: dict[int, list[dict[str, Any]]] = {}
    options: list[dict[str, Any]]


class Rejoin(BaseModel):
    """A phone's seat and token in the rematch of the game it played (none: not its
    seat); the seat differs where the players changed sides."""

    seat: int | None = None
    token: str | None = None


class RematchSeating(BaseModel):
    """How a rematch of the game at the table would be seated."""

    #: the seat whose player starts the rematch (the seat in the game at the table)
    starter: int
    #: the seat that starts the rematch
    first: int
    #: whether the players change sides (each then takes another seat)
    sides_change: bool


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
    #: where a damaged event log found at start was moved (a fresh one was started)
    damaged_log: str | None = None
    settle_ms: int
    sensor: str
    subscribers: int
    #: "none" without a camera, else the reader's status or why the camera gives no frames
    camera: str = "none"
    #: how the camera found the board ("way": markers, one marker, the board's own
    #: pattern, clicked corners) and how sure the pose is; none before it is found
    board_found: dict[str, Any] | None = None
    #: what the camera did since it opened: frames taken, frames read in full (the
    #: board changed, or the slow heartbeat), the CPU of its thread in the source and
    #: the reader (source_cpu_ms, reader_cpu_ms); none without a camera
    camera_work: dict[str, float] | None = None
    #: how late the event loop ran its timer (taken, samples, p50_ms, p99_ms, max_ms) when
    #: the config's [diagnostics] loop_lag_every_ms asks; none otherwise
    loop_lag: dict[str, float] | None = None


class Done(BaseModel):
    ok: bool = True
    detail: str = ""


class Learned(Done):
    """What the camera learned from the board, as words a page says (empty for a
    reader that says nothing of it)."""

    said: dict[str, Any] = Field(default_factory=dict)
