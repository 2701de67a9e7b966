"""A rematch: the game just played started again with the same game, variants, seats
and computer seats, and the phones and the named players that played it kept in
their seats.

A seat's token changes with every game, so a phone would have to scan its code again;
each phone's claim is carried into the rematch, and a phone that shows the token it
held in the game a rematch replaced is told its new one (``/api/rejoin``). It never
hands a seat to a phone that did not hold it, and it
starts the game through the table's own rematch command, nothing of its own.
"""

from __future__ import annotations

from fastapi import APIRouter, Query

from boardref.outputs.panel import models
from boardref.outputs.panel.routes import CHANGE, TABLE_OR_REFEREE, ThePanel
from boardref.outputs.panel.seats import Device

rematch_router = APIRouter()


@rematch_router.post(
    "/api/rematch", response_model=models.Done, dependencies=[*CHANGE, TABLE_OR_REFEREE]
)
async def rematch(body: models.Seat, panel: ThePanel) -> models.Done:
    """The same game again, with the same seats and the computer at the same strength."""
    before, now = panel.control.rematch()
    panel.seats.carry(before, now)
    panel.control.history.players.carry(before, now)
    panel.rematched = (before, now)
    panel.show()  # the pages ask for the carried names after a push
    return models.Done()


@rematch_router.get("/api/rejoin/{seat}", response_model=models.Rejoin)
async def rejoin(
    seat: int, panel: ThePanel, device: Device, token: str | None = Query(None, max_length=64)
) -> models.Rejoin:
    """The current game's token of ``seat`` for the phone that held ``seat`` in the game
    the rematch replaced (``token`` its token there); else none."""
    if panel.rematched is None:
        return models.Rejoin()
    before, now = panel.rematched
    seats = panel.seats
    if now != panel.control.game_id or not seats.holds(before, seat, token, device):
        return models.Rejoin()
    fresh = seats.token(now, seat)
    return models.Rejoin(token=fresh) if seats.holds(now, seat, fresh, device) else models.Rejoin()
