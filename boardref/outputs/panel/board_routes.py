"""The referee page's Board tab: the board check and the LED test over HTTP.

A referee (or a maker bringing the table up) sees the live scan as a grid of the
board's cells with per-sensor change counts and flags, the link's counters, and
can light cells to test the LED strip. Referee only. It must never change the game:
an LED test is undone by "back to the game", which shows the referee's lights again.
"""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from boardref.outputs.panel import models
from boardref.outputs.panel.routes import REFEREE, ROLE_WORDS, Refused, is_referee
from engines.words import words
from firmware_bridge import protocol
from hardware import led_test
from hardware.calibration import board_calibration
from hardware.wiring_wizard import claim_led

#: How long each cell stays lit while the LED test walks the board (seconds).
WALK_STEP = 0.6


class SensorCheck(BaseModel):
    sensor: int
    cell: str | None
    state: int
    changes: int
    #: ok, stuck, never_seen or answers_too
    flag: str
    #: for answers_too: the sensor whose piece this one answers to as well
    answers_for: int | None = None
    #: a magnet board's raw reading (ADC counts) and the thresholds it is judged by
    reading: int | None = None
    north: int | None = None
    south: int | None = None


class BoardCheckReport(BaseModel):
    scans: int
    sensors: list[SensorCheck]
    #: what the check found, as words ({"key", "params"}) for the page to translate
    findings: list[dict[str, Any]]
    #: frames, crc_errors, dropped, retransmits, reconnects
    link: dict[str, int]
    #: how the LED strip runs compared with the cell order, as words
    strip: dict[str, Any]


class StripClaim(BaseModel):
    #: the cell under the lit LED, or None when no cell lit up (skip this LED)
    cell: str | None = Field(None, max_length=16)


class StripMap(BaseModel):
    #: the LED lit now (strip order), or None once every LED is mapped
    led: int | None
    count: int
    #: the cell of each LED so far, strip order
    leds: list[str | None]
    #: where the wiring was kept once done ("" while mapping, or when only in memory)
    saved: str = ""


class LedTest(BaseModel):
    mode: Literal["walk", "cell", "all", "off"]
    cell: str | None = Field(None, max_length=16)
    colour: Literal["red", "green", "blue", "white"] = "white"


class _Tab:
    """What the Board tab keeps between requests: the LED walk running, the strip map."""

    def __init__(self, panel):
        self.panel = panel
        self.walking: asyncio.Task | None = None
        self.mapping: dict[str, Any] = {}

    def parts(self, request: Request):
        """The service and its board check, for the referee at a table with a board."""
        if not is_referee(self.panel, request):
            raise Refused(403, ROLE_WORDS[(REFEREE,)])
        service = self.panel.service
        check = getattr(service, "board_check", None)
        if service.link is None or check is None:
            raise _refused(409, words("board.none", "This table has no sensor board"))
        return service, check

    def stop_walking(self) -> None:
        task, self.walking = self.walking, None
        if task is not None:
            task.cancel()


def board_router(panel, change: list) -> APIRouter:
    """The Board tab's routes for ``panel`` (its service's link, wiring and check)."""
    router = APIRouter()
    tab = _Tab(panel)
    _check_routes(router, tab, change)
    _led_routes(router, tab, change)
    _strip_routes(router, tab, change)
    return router


def _check_routes(router: APIRouter, tab: _Tab, change: list) -> None:
    board_parts = tab.parts

    @router.get("/api/board/check", response_model=BoardCheckReport)
    async def board_check(request: Request) -> BoardCheckReport:
        service, check = board_parts(request)
        link = service.link
        magnet = link.hello is not None and link.hello.sensor_kind == protocol.SENSOR_MAGNET
        if magnet and link.last_readings is None:
            link.configure(raw_readings=1)  # a magnet board's readings, for this tab
        calibration = board_calibration(service.wiring)
        thresholds = (calibration.north, calibration.south)
        report = check.report(link.counters(), link.last_readings, thresholds)
        cells = [cell.id for cell in service.referee.game.board.cells]
        strip = led_test.strip_order(service.wiring.leds, cells)
        return BoardCheckReport(**report, strip=strip.to_json())

    @router.post("/api/board/check/reset", response_model=models.Done, dependencies=change)
    async def board_check_reset(request: Request) -> models.Done:
        service, check = board_parts(request)
        service.restart_board_check()
        return models.Done(detail="counting again")


def _led_routes(router: APIRouter, tab: _Tab, change: list) -> None:
    board_parts, stop_walking = tab.parts, tab.stop_walking

    @router.post("/api/board/leds", response_model=models.Done, dependencies=change)
    async def board_leds(body: LedTest, request: Request) -> models.Done:
        service, _ = board_parts(request)
        stop_walking()
        leds = service.wiring.leds
        cells = [cell.id for cell in service.referee.game.board.cells]
        send = service.link.set_leds
        try:
            if body.mode == "off":
                service.table.relight()
                return models.Done(detail="the referee's lights again")
            if body.mode == "cell":
                send(led_test.frame(leds, [body.cell or ""], body.colour))
                return models.Done(detail=f"lit {body.cell}")
            if body.mode == "all":
                send(led_test.frame(leds, cells, body.colour))
                return models.Done(detail=f"all cells {body.colour}")
        except ValueError as exc:
            raise _refused(422, words("board.led_refused", "{reason}", reason=str(exc))) from None

        async def walk() -> None:
            for _, frame in led_test.walk(leds, cells, body.colour):
                send(frame)
                await asyncio.sleep(WALK_STEP)
            service.table.relight()

        tab.walking = asyncio.get_running_loop().create_task(walk())
        return models.Done(detail="walking every cell")


def _strip_routes(router: APIRouter, tab: _Tab, change: list) -> None:
    board_parts, stop_walking, mapping = tab.parts, tab.stop_walking, tab.mapping

    @router.post("/api/board/map/leds", response_model=StripMap, dependencies=change)
    async def map_strip(request: Request) -> StripMap:
        """Start mapping the LED strip: LED 0 lights; the maker taps its cell."""
        service, _ = board_parts(request)
        stop_walking()
        count = len(service.wiring.leds)
        mapping["leds"], mapping["led"] = [None] * count, 0
        return light_next(service, "")

    @router.post("/api/board/map/leds/claim", response_model=StripMap, dependencies=change)
    async def claim_strip(body: StripClaim, request: Request) -> StripMap:
        """The maker tapped ``cell`` (or skipped) for the lit LED; the next one lights,
        and after the last the strip's order is stored with the board's wiring."""
        service, _ = board_parts(request)
        led, leds = mapping.get("led"), mapping.get("leds")
        if led is None or leds is None:
            raise _refused(409, words("board.map.not_mapping", "Start mapping the strip first"))
        cells = {cell.id for cell in service.referee.game.board.cells}
        if body.cell is not None and body.cell not in cells:
            raise _refused(
                422, words("board.map.no_such_cell", "There is no cell {cell}", cell=body.cell)
            )
        if body.cell is not None:
            claim_led(leds, led, body.cell)
        mapping["led"] = led + 1
        if mapping["led"] < len(leds):
            return light_next(service, "")
        mapping["led"] = None
        return light_next(service, service.keep_strip(leds))

    def light_next(service, saved: str) -> StripMap:
        led, leds = mapping["led"], mapping["leds"]
        frame = bytearray(3 * len(leds))
        if led is not None:
            frame[3 * led : 3 * led + 3] = bytes(led_test.COLOURS["white"])
            service.link.set_leds(bytes(frame))
        else:
            service.table.relight()
        return StripMap(led=led, count=len(leds), leds=list(leds), saved=saved)


def _refused(status: int, said) -> Refused:
    return Refused(status, said)
