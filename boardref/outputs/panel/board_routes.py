"""The referee page's Board tab: the board check and the LED test over HTTP.

A referee (or a maker bringing the table up) sees the live scan as a grid of the
board's cells with per-sensor change counts and flags, the link's counters, and
can light cells to test the LED strip. Referee only. It must never change the game:
an LED test goes through the board device (``TableControl``), and "back to the game"
shows the referee's lights again.
"""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from boardref.outputs.panel import models
from boardref.outputs.panel.panel import Panel
from boardref.outputs.panel.routes import REFEREE, ROLE_WORDS, RequestRefused, is_referee
from boardref.runtime.control import LedColour, TableControl
from engines.words import words
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
    colour: LedColour = "white"


class _Tab:
    """What the Board tab keeps between requests: the LED walk running, the strip map."""

    def __init__(self, panel: Panel):
        self.panel = panel
        self.walking: asyncio.Task | None = None
        self.mapping: dict[str, Any] = {}

    def board(self, request: Request) -> TableControl:
        """The table's controls, for the referee at a table with a sensor board."""
        if not is_referee(self.panel, request):
            raise RequestRefused(403, ROLE_WORDS[(REFEREE,)])
        control = self.panel.control
        if not control.has_board:
            raise RequestRefused(409, words("board.none", "This table has no sensor board"))
        return control

    def stop_walking(self) -> None:
        task, self.walking = self.walking, None
        if task is not None:
            task.cancel()


def board_router(panel: Panel, change: list) -> APIRouter:
    """The Board tab's routes for ``panel`` (its table's board check, LEDs and wiring)."""
    router = APIRouter()
    tab = _Tab(panel)
    _check_routes(router, tab, change)
    _led_routes(router, tab, change)
    _strip_routes(router, tab, change)
    return router


def _check_routes(router: APIRouter, tab: _Tab, change: list) -> None:
    board = tab.board

    @router.get("/api/board/check", response_model=BoardCheckReport)
    async def board_check(request: Request) -> BoardCheckReport:
        return BoardCheckReport(**board(request).board_check())

    @router.post("/api/board/check/reset", response_model=models.Done, dependencies=change)
    async def board_check_reset(request: Request) -> models.Done:
        board(request).restart_board_check()
        return models.Done(detail="counting again")


def _led_routes(router: APIRouter, tab: _Tab, change: list) -> None:
    board, stop_walking = tab.board, tab.stop_walking

    @router.post("/api/board/leds", response_model=models.Done, dependencies=change)
    async def board_leds(body: LedTest, request: Request) -> models.Done:
        control = board(request)
        stop_walking()
        try:
            if body.mode == "off":
                control.relight()
                return models.Done(detail="the referee's lights again")
            if body.mode == "cell":
                control.light_cells([body.cell or ""], body.colour)
                return models.Done(detail=f"lit {body.cell}")
            if body.mode == "all":
                control.light_cells(control.board_cells(), body.colour)
                return models.Done(detail=f"all cells {body.colour}")
        except ValueError as exc:
            raise RequestRefused(
                422, words("board.led_refused", "{reason}", reason=str(exc))
            ) from None

        async def walk() -> None:
            for cell in control.lit_in_turn():
                control.light_cells([cell], body.colour)
                await asyncio.sleep(WALK_STEP)
            control.relight()

        tab.walking = asyncio.get_running_loop().create_task(walk())
        return models.Done(detail="walking every cell")


def _strip_routes(router: APIRouter, tab: _Tab, change: list) -> None:
    board, stop_walking, mapping = tab.board, tab.stop_walking, tab.mapping

    @router.post("/api/board/map/leds", response_model=StripMap, dependencies=change)
    async def map_strip(request: Request) -> StripMap:
        """Start mapping the LED strip: LED 0 lights; the maker taps its cell."""
        control = board(request)
        stop_walking()
        mapping["leds"], mapping["led"] = [None] * control.led_count(), 0
        return light_next(control, "")

    @router.post("/api/board/map/leds/claim", response_model=StripMap, dependencies=change)
    async def claim_strip(body: StripClaim, request: Request) -> StripMap:
        """The maker tapped ``cell`` (or skipped) for the lit LED; the next one lights,
        and after the last the strip's order is stored with the board's wiring."""
        control = board(request)
        led, leds = mapping.get("led"), mapping.get("leds")
        if led is None or leds is None:
            raise RequestRefused(
                409, words("board.map.not_mapping", "Start mapping the strip first")
            )
        if body.cell is not None and body.cell not in control.board_cells():
            raise RequestRefused(
                422, words("board.map.no_such_cell", "There is no cell {cell}", cell=body.cell)
            )
        if body.cell is not None:
            claim_led(leds, led, body.cell)
        mapping["led"] = led + 1
        if mapping["led"] < len(leds):
            return light_next(control, "")
        mapping["led"] = None
        return light_next(control, control.keep_strip(leds))

    def light_next(control: TableControl, saved: str) -> StripMap:
        led, leds = mapping["led"], mapping["leds"]
        if led is not None:
            control.light_led(led)
        else:
            control.relight()
        return StripMap(led=led, count=len(leds), leds=list(leds), saved=saved)
