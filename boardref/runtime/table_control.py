"""The service's side of ``TableControl``: the pages' reads and commands carried out
on the referee, the board and its lights, the camera and the virtual board.

It holds the service and is the only thing given to the panel for commands. It adds
no rule of its own: the referee decides, the board device shows, and an LED test goes
through the board device so that "back to the game" shows the referee's lights again.
A command, and a read of the referee, is handed to the referee's thread in turn with
the board's readings and awaited there: the loop never waits for it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from boardref.referee import placing
from boardref.referee.refusals import not_theirs
from boardref.referee.verdicts import RefereeError, hides_hands
from boardref.runtime.control import LedColour, Level, OffBoard, TableDiagnostics, TableHealth
from engines import IllegalMove
from engines.words import Words, words
from firmware_bridge import protocol
from hardware import led_test
from hardware.calibration import board_calibration

if TYPE_CHECKING:
    from boardref.devices.camera import TableCamera
    from boardref.eventlog.history import History
    from boardref.outputs.speech import SpeechChange, SpeechShown
    from boardref.referee.referee import Referee
    from boardref.runtime.service import Service
    from engines import Game


class ServiceControl:
    """``TableControl`` carried out by one service."""

    def __init__(self, service: Service):
        self._table = service
        #: the pieces a tap may set, and the game they are of
        self._placeable: tuple[Game, list[tuple[str, bool]]] | None = None

    @property
    def _service(self) -> Service:
        return self._table

    @property
    def _referee(self) -> Referee:
        return self._table.referee

    def _in_turn(self, work: Callable[..., Any], *args: Any) -> Awaitable[Any]:
        """``work(*args)`` on the referee's thread, after every verdict, reading and
        command handed in before it, as they would have been on the loop."""
        return self._table.referee_thread.ask(work, *args)

    def _in_turn_here(self, work: Callable[..., Any], *args: Any) -> Awaitable[Any]:
        """``work(*args)`` in turn, on the loop: it also touches the loop's devices."""
        return self._table.referee_thread.ask_here(work, *args)

    @contextlib.contextmanager
    def _saved(self) -> Iterator[None]:
        """A command whose verdict the log refused is not done: its ``StoreError``."""
        referee = self._referee
        failed = referee.failed_saves
        yield
        error = referee.save_error
        if referee.failed_saves != failed and error is not None:
            raise error

    def _saving_now(self, command: Callable[..., Any], *args: Any) -> Any:
        with self._saved():
            return command(*args)

    def _saving(self, command: Callable[..., Any], *args: Any) -> Awaitable[Any]:
        return self._in_turn(self._saving_now, command, *args)

    # --- what the pages read ---------------------------------------------------------------

    @property
    def game(self) -> Game:
        if self._referee.game is None:
            raise RefereeError(words("referee.no_game", "No game: start one"))
        return self._referee.game

    @property
    def game_id(self) -> int:
        return self._referee.game_id

    @property
    def simulated(self) -> bool:
        return self._table.sim

    @property
    def history(self) -> History:
        history = self._service.history
        if history is None:
            raise RuntimeError("the table's history is closed")
        return history

    def health(self) -> TableHealth:
        # never waits for a verdict: a health check must answer while the table judges
        referee = self._table.referee
        return TableHealth(
            game=referee.game.name,
            phase=referee.phase,
            link=self._table.link_state(),
            events=len(referee.log),
        )

    def diagnostics(self, lag_after: int = 0) -> TableDiagnostics:
        service = self._service
        link, lag = service.link, service.loop_lag
        return TableDiagnostics(
            link=service.link_state(),
            link_error=link.error if link else None,
            mcu=link.counters() if link else {},
            store=service.store.size(),
            damaged_log=None if service.damaged_log is None else str(service.damaged_log),
            settle_ms=round(self._referee.settle * 1000),
            sensor=self._referee.sensor,
            camera=camera_status(service.camera, service.camera_opening),
            board_found=board_found(service.camera),
            camera_work=None if service.camera is None else service.camera.work.figures(),
            loop_lag=None if lag is None else lag.figures(lag_after),
        )

    async def position_record(self) -> dict[str, Any]:
        return await self._in_turn(self._position_record)

    def _position_record(self) -> dict[str, Any]:
        return self.game.to_json(self._referee.current())

    async def placeable_pieces(self) -> list[tuple[str, bool]]:
        return await self._in_turn(self._placeable_pieces)

    def _placeable_pieces(self) -> list[tuple[str, bool]]:
        # a game's pieces never change, and finding them plays out its start position
        # (some 7 ms of CPU a time here): found once a game
        game = self.game
        if self._placeable is None or self._placeable[0] is not game:
            found = [(token, placing.single(game, token)) for token in placing.pieces(game)]
            self._placeable = (game, found)
        return list(self._placeable[1])

    async def correction_choices(self) -> dict[str, Any]:
        return await self._in_turn(self._referee.correction_choices)

    # --- the game's commands ---------------------------------------------------------------

    async def new_game(
        self,
        game: str,
        players: int | None,
        options: dict[str, Any],
        computer: Sequence[int] = (),
        level: Level = "hard",
    ) -> None:
        # on the loop, in turn: a new board links its sensors and opens its camera there
        await self._in_turn_here(
            self._service.new_game, game, players, options, list(computer), level
        )

    async def rematch(self, options: dict[str, Any], computer: Sequence[int]) -> tuple[int, int]:
        return await self._in_turn_here(self._rematch, options, list(computer))

    def _rematch(self, options: dict[str, Any], computer: list[int]) -> tuple[int, int]:
        referee, game = self._referee, self.game
        before = referee.game_id
        with self._saved():
            self._service.new_game(game.name, game.players, options, computer, referee.level)
        return before, referee.game_id

    async def draw(self) -> None:
        await self._saving(self._referee.draw)

    async def confirm(self) -> None:
        await self._saving(self._referee.confirm)

    async def play(self, move: str, reason_hidden: bool = False) -> None:
        await self._in_turn(self._play, move, reason_hidden)

    def _play(self, move: str, reason_hidden: bool) -> None:
        referee = self._referee
        game = referee.game
        if not reason_hidden or game is None or not hides_hands(game):
            self._saving_now(referee.play, move)
            return
        tried_on = referee.positions[-1]
        try:
            self._saving_now(referee.play, move)
        except IllegalMove:
            raise RefereeError(not_theirs(game, tried_on)) from None

    async def choose(self, move: str) -> None:
        await self._saving(self._referee.choose, move)

    async def rule_out(self) -> None:
        await self._saving(self._referee.rule_out)

    async def decline(self) -> None:
        await self._saving(self._referee.decline)

    async def takeback(self) -> str:
        return await self._saving(self._referee.takeback)

    async def correct(self, move: str) -> None:
        await self._saving(self._referee.correct, move)

    async def set_position(self, record: dict[str, Any]) -> None:
        await self._in_turn(self._set_position, record)

    def _set_position(self, record: dict[str, Any]) -> None:
        referee = self._referee
        if "game" not in record and referee.game is not None:
            record = placing.record_of(referee.game, record)
        self._saving_now(referee.set_position, record)

    async def set_cells(self, placings: Sequence[tuple[str, str | None]]) -> None:
        await self._in_turn(self._set_cells, list(placings))

    def _set_cells(self, placings: list[tuple[str, str | None]]) -> None:
        game = self.game
        state = self._position_record()["state"]
        placed = placing.place_all(game, state, placings)
        self._saving_now(self._referee.set_position, placing.record_of(game, placed))

    async def set_settle_time(self, milliseconds: int) -> None:
        await self._in_turn(setattr, self._referee, "settle", milliseconds / 1000)

    def set_speech(self, change: SpeechChange) -> SpeechShown:
        speech = self._service.speech
        speech.change(change)
        if self._service.pi_voice is not None:
            self._service.pi_voice.check()
        self._service.displays.show()
        return speech.shown

    # --- the sensor board (the Board tab) ------------------------------------------------

    @property
    def has_board(self) -> bool:
        return self._service.link is not None and self._service.board_check is not None

    def board_cells(self) -> list[str]:
        return [cell.id for cell in self.game.board.cells]

    def board_check(self) -> dict[str, Any]:
        service = self._service
        link, wiring = service.link, service.wiring
        magnet = link.hello is not None and link.hello.sensor_kind == protocol.SENSOR_MAGNET
        if magnet and link.last_readings is None:
            link.configure(raw_readings=1)  # a magnet board's readings, for the Board tab
        calibration = board_calibration(wiring)
        thresholds = (calibration.north, calibration.south)
        report = service.board_check.report(link.counters(), link.last_readings, thresholds)
        strip = led_test.strip_order(wiring.leds, self.board_cells())
        return {**report, "strip": strip.to_json()}

    def restart_board_check(self) -> None:
        self._service.restart_board_check()

    def light_cells(self, cells: Sequence[str], colour: LedColour) -> None:
        self._service.board.show_test(led_test.frame(self._service.wiring.leds, cells, colour))

    def light_led(self, led: int) -> None:
        frame = bytearray(3 * self.led_count())
        frame[3 * led : 3 * led + 3] = bytes(led_test.COLOURS["white"])
        self._service.board.show_test(bytes(frame))

    def relight(self) -> None:
        self._service.board.relight()

    def led_count(self) -> int:
        return len(self._service.wiring.leds)

    def lit_in_turn(self) -> list[str]:
        return [cell for cell, _ in led_test.walk(self._service.wiring.leds, self.board_cells())]

    def keep_strip(self, leds: Sequence[str | None]) -> str:
        return self._service.keep_strip(list(leds))

    # --- the camera -------------------------------------------------------------------------

    @property
    def has_camera(self) -> bool:
        return self._service.camera is not None

    @property
    def _camera(self) -> TableCamera:
        camera = self._service.camera
        assert camera is not None, "the camera's controls are asked for only with has_camera"
        return camera

    def camera_picture(self) -> bytes | None:
        return self._camera.snapshot()

    def camera_failure(self) -> str | None:
        return self._camera.failure

    def corner_cells(self) -> list[str]:
        return self._camera.corner_cells()

    def locate_board(self, points: Sequence[tuple[float, float]]) -> str:
        camera = self._camera
        camera.set_corners(points)
        return camera.reader.status

    async def learn_board(self) -> Words | None:
        # the position the referee holds, after every verdict handed in before
        return await self._in_turn(self._camera.learn_now)

    # --- the virtual board of a simulated table -------------------------------------------

    def virtual_board(self) -> dict[str, Any] | None:
        return self._service.sim_virtual()

    def virtual_presence(self) -> dict[str, bool]:
        return self._service.sim_board()

    # the virtual board is the loop's (the pages draw it): a hand on it acts there, in
    # turn with the readings and commands handed in before

    def _sim_act(self, action: str, *args: Any, version: int | None) -> Awaitable[Any]:
        return self._in_turn_here(partial(self._service.sim_act, version=version), action, *args)

    async def lift(self, cell: str, token: str | None, version: int | None) -> None:
        await self._sim_act("lift", cell, token, version=version)

    async def take(self, off: OffBoard, token: str | None, version: int | None) -> None:
        await self._sim_act("take", off, token, version=version)

    async def place(self, cell: str, piece: int | None, version: int | None) -> None:
        await self._sim_act("place", cell, piece, version=version)

    async def put(self, off: OffBoard, piece: int | None, version: int | None) -> None:
        await self._sim_act("put", off, piece, version=version)

    async def unpack(self, piece: int | None, version: int | None) -> None:
        await self._sim_act("unpack", piece, version=version)


def camera_status(camera: TableCamera | None, opening: asyncio.Task | None = None) -> str:
    """What the diagnostics say of the camera: none, opening (``opening``, the task
    opening it, not done yet), why it fails, or the reader's state."""
    if camera is None:
        return "opening" if opening is not None and not opening.done() else "none"
    reader = camera.reader
    if not camera.failure and reader.status == "unlocated" and reader.refusal:
        return f"unlocated: {reader.refusal}"
    return camera.failure or reader.status


def board_found(camera: TableCamera | None) -> dict[str, Any] | None:
    """How the camera found the board (``way``: markers, one marker and the board's
    marks, the board's own pattern, or corner cells clicked), how many markers, how
    far off the pose puts what it was fitted to (px) and the share of the empty
    cells' marks it was checked against (%); None while it is not found."""
    pose = camera.reader.pose if camera is not None else None
    if pose is None:
        return None
    matched = None if pose.matched is None else round(100 * pose.matched)
    return {
        "way": pose.way.replace(" ", "_"),
        "markers": pose.markers,
        "error_px": round(pose.error_px, 1),
        "matched": matched,
    }
