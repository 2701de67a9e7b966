"""What a page may ask of the table and tell it to do: one typed interface,
``TableControl``, that the panel holds instead of the service.

The service implements it (``boardref.runtime.table_control``); the panel receives it
and never reaches the referee, the board link or the service behind it. Each command
and each read of the referee is awaited: the service hands it to the referee's thread
in turn with the board's readings, and the loop goes on meanwhile; a command whose
verdict the event log refused raises ``StoreError``, never returns as done. This
module only names the commands: it imports nothing of the service or the referee, so
any output may import it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypedDict

if TYPE_CHECKING:
    from boardref.eventlog.history import History
    from boardref.outputs.speech import SpeechChange, SpeechShown
    from engines import Game
    from engines.words import Words

#: how strongly the computer plays its seats
Level = Literal["easy", "medium", "hard"]
#: the colours the Board tab's LED test lights
LedColour = Literal["red", "green", "blue", "white"]
#: where a hand on the virtual board takes a piece from or puts it, off the board
OffBoard = Literal["tray", "supply"]


class TableHealth(TypedDict):
    game: str
    phase: str
    link: str
    events: int


class TableDiagnostics(TypedDict):
    link: str
    link_error: str | None
    mcu: dict[str, int]
    store: dict[str, int]
    damaged_log: str | None
    settle_ms: int
    sensor: str
    camera: str
    #: how the camera found the board and how sure the pose is (``board_found``)
    board_found: dict[str, Any] | None
    #: frames the camera took and read in full, and their CPU (``CameraWork``)
    camera_work: dict[str, float] | None
    loop_lag: dict[str, float] | None


class TableControl(Protocol):
    """The table as its pages reach it: what they may read beyond the pushed snapshot,
    and every command they may give."""

    # --- what the pages read ---------------------------------------------------------------

    @property
    def game(self) -> Game:
        """The game at the table."""

    @property
    def game_id(self) -> int:
        """The event log's id of the game at the table (seats' tokens are per game)."""

    @property
    def simulated(self) -> bool:
        """Whether this is a simulated table (``serve --sim``)."""

    @property
    def history(self) -> History:
        """The ended games the table keeps."""

    def health(self) -> TableHealth: ...

    def diagnostics(self, lag_after: int = 0) -> TableDiagnostics: ...

    async def position_record(self) -> dict[str, Any]:
        """The whole record of the position as judged, hidden hands too."""

    async def placeable_pieces(self) -> list[tuple[str, bool]]:
        """The pieces a tap on the board may set: each token, and whether there is only
        one of it (so that a tap moves it)."""

    async def correction_choices(self) -> dict[str, Any]: ...

    # --- the game's commands ---------------------------------------------------------------

    async def new_game(
        self,
        game: str,
        players: int | None,
        options: dict[str, Any],
        computer: Sequence[int] = (),
        level: Level = "hard",
    ) -> None: ...

    async def rematch(self, options: dict[str, Any], computer: Sequence[int]) -> tuple[int, int]:
        """The game just played again with the same players, its variant ``options``
        and ``computer`` seats as the rematch seats them: the ids of that game and of
        the new one."""

    async def draw(self) -> None: ...

    async def confirm(self) -> None: ...

    async def play(self, move: str, reason_hidden: bool = False) -> None:
        """A move tapped on the panel; ``reason_hidden``: refuse an illegal one without
        its reason where that reason would tell what a hidden hand holds."""

    async def choose(self, move: str) -> None: ...

    async def rule_out(self) -> None: ...

    async def decline(self) -> None: ...

    async def takeback(self) -> str:
        """Undo the last move; returns the move undone."""

    async def correct(self, move: str) -> None: ...

    async def set_position(self, record: dict[str, Any]) -> None:
        """A full record, or only its state part, taken as the current game's."""

    async def set_cells(self, placings: Sequence[tuple[str, str | None]]) -> None:
        """Set cells as the referee tapped them, in order (a token, or None for empty);
        the position they make is checked as a whole."""

    async def set_settle_time(self, milliseconds: int) -> None: ...

    def set_speech(self, change: SpeechChange) -> SpeechShown:
        """Change how one outlet speaks; every page is shown the new settings."""

    # --- the sensor board (the Board tab) ------------------------------------------------

    @property
    def has_board(self) -> bool: ...

    def board_check(self) -> dict[str, Any]:
        """The board check's report, with the link's counters and the strip's order."""

    def restart_board_check(self) -> None: ...

    def board_cells(self) -> list[str]:
        """The cells of the game's board, in its order."""

    def light_cells(self, cells: Sequence[str], colour: LedColour) -> None:
        """Show an LED test lighting ``cells`` (raises ValueError for a cell with no LED)."""

    def light_led(self, led: int) -> None:
        """Show one LED of the strip lit, by its place on the strip."""

    def relight(self) -> None:
        """End an LED test: the referee's lights again."""

    def led_count(self) -> int: ...

    def lit_in_turn(self) -> list[str]:
        """The cells an LED walk lights, in the board's order."""

    def keep_strip(self, leds: Sequence[str | None]) -> str:
        """Take a mapped LED order; returns where it was stored ("" kept until restart)."""

    # --- the camera -------------------------------------------------------------------------

    @property
    def has_camera(self) -> bool: ...

    def camera_picture(self) -> bytes | None:
        """The camera's last frame with the cell overlay, as PNG (slow: not on the loop)."""

    def camera_failure(self) -> str | None: ...

    def corner_cells(self) -> list[str]: ...

    def locate_board(self, points: Sequence[tuple[float, float]]) -> str:
        """The board's corner cells clicked on the picture; returns the camera's status."""

    async def learn_board(self) -> Words | None:
        """The camera learns the board from the position the referee holds; what it
        learned, in words (None for a reader that says nothing of it)."""

    # --- the virtual board of a simulated table -------------------------------------------

    def virtual_board(self) -> dict[str, Any] | None:
        """The virtual board as pages draw it (None at a table without one)."""

    def virtual_presence(self) -> dict[str, bool]: ...

    async def lift(self, cell: str, token: str | None, version: int | None) -> None: ...

    async def take(self, off: OffBoard, token: str | None, version: int | None) -> None: ...

    async def place(self, cell: str, piece: int | None, version: int | None) -> None: ...

    async def put(self, off: OffBoard, piece: int | None, version: int | None) -> None: ...

    async def unpack(self, piece: int | None, version: int | None) -> None: ...
