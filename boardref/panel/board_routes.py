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

from boardref.panel import models
from engines.words import words
from firmware_bridge import protocol
from hardware import led_test
from hardware.calibration import board_calibration

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


class LedTest(BaseModel):
    mode: Literal["walk", "cell", "all", "off"]
    cell: str | None = Field(None, max_length=16)
    colour: Literal["red", "green", "blue", "white"] = "white"


def board_router(panel, change: list) -> APIRouter:
    """The Board tab's routes for ``panel`` (its service's link, wiring and check)."""
    router = APIRouter()
    walking: dict[str, asyncio.Task] = {}

    def board_parts(request: Request):
        panel._require(request, "referee")
        service = panel.service
        check = getattr(service, "board_check", None)
        if service.link is None or check is None:
            raise _refused(409, words("board.none", "This table has no sensor board"))
        return service, check

    def stop_walking() -> None:
        task = walking.pop("task", None)
        if task is not None:
            task.cancel()

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

        walking["task"] = asyncio.get_running_loop().create_task(walk())
        return models.Done(detail="walking every cell")

    return router


def _refused(status: int, said):
    # api.py includes this router, so its Refused is imported when needed, not at load
    from boardref.panel.api import Refused

    return Refused(status, said)
