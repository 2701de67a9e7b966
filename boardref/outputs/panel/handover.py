"""Handing a seat over: the table (kiosk or referee) releases a seat from the phone
that joined it, so that another phone can join with the seat's new code.

The old phone's pages are disconnected at once: they connect again without the seat
and are told in words that it was handed over. It never hands a seat to a phone by
itself; the new phone claims it by scanning the new code.
"""

from __future__ import annotations

import contextlib

from fastapi import APIRouter

from boardref.outputs.panel import models
from boardref.outputs.panel.routes import (
    CHANGE,
    TABLE_OR_REFEREE,
    RequestRefused,
    ThePanel,
    no_seat,
)

handover_router = APIRouter()
#: the close code a phone's socket gets when its seat is handed over
HANDED_OVER = 4001


@handover_router.post(
    "/api/hand-over", response_model=models.Done, dependencies=[*CHANGE, TABLE_OR_REFEREE]
)
async def hand_over(body: models.Seat, panel: ThePanel) -> models.Done:
    """Release ``seat`` from its phone and make its join code new."""
    control = panel.control
    if body.seat is None or not 0 <= body.seat < control.game.players:
        raise RequestRefused(404, no_seat(-1 if body.seat is None else body.seat))
    panel.seats.hand_over(control.game_id, body.seat)
    for page in [s for s in panel.hub.subscribers if s.seat == body.seat]:
        with contextlib.suppress(Exception):  # a page already gone needs no telling
            await page.socket.close(code=HANDED_OVER)
    return models.Done()
