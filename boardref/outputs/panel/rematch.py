"""A rematch: the game just played started again with the same game, variant and
computer strength, the start passed to the next player (``rotation``), and the phones
and the named players that played it kept with their players.

A seat's token changes with every game, so a phone would have to scan its code again;
each phone's claim is carried into the rematch, and a phone that shows the token it
held in the game a rematch replaced is told its seat and token there
(``/api/rejoin``). It never hands a seat to a phone that did not hold its player, and
it starts the game through the table's own rematch command, nothing of its own.
"""

from __future__ import annotations

from fastapi import APIRouter, Query

from boardref.outputs.panel import models
from boardref.outputs.panel.rotation import Seating, next_seating
from boardref.outputs.panel.routes import CHANGE, TABLE_OR_REFEREE, ThePanel
from boardref.outputs.panel.seats import Device

rematch_router = APIRouter()


def _seating(panel) -> Seating:
    computer = (n for n, seat in enumerate(panel.shown.state.seats) if seat.computer)
    return next_seating(panel.control.game, computer)


@rematch_router.get(
    "/api/rematch", response_model=models.RematchSeating, dependencies=[TABLE_OR_REFEREE]
)
async def seating(panel: ThePanel) -> models.RematchSeating:
    """Who would start a rematch of the game at the table, and whether sides change."""
    seated = _seating(panel)
    return models.RematchSeating(
        starter=seated.starter,
        first=seated.moved[seated.starter],
        sides_change=seated.sides_change,
    )


@rematch_router.post(
    "/api/rematch", response_model=models.Done, dependencies=[*CHANGE, TABLE_OR_REFEREE]
)
async def rematch(body: models.Seat, panel: ThePanel) -> models.Done:
    """The same game again, the start passed on, the computer at the same strength."""
    seated = _seating(panel)
    before, now = await panel.control.rematch(seated.options, seated.computer)
    panel.seats.carry(before, now, seated.moved)
    panel.control.history.players.carry(before, now, seated.moved)
    panel.rematched = (before, now, seated.moved)
    panel.show()  # the pages ask for the carried names after a push
    return models.Done()


@rematch_router.get("/api/rejoin/{seat}", response_model=models.Rejoin)
async def rejoin(
    seat: int, panel: ThePanel, device: Device, token: str | None = Query(None, max_length=64)
) -> models.Rejoin:
    """The current game's seat and token for the phone that held ``seat`` in the game
    the rematch replaced (``token`` its token there); else none."""
    if panel.rematched is None:
        return models.Rejoin()
    before, now, moved = panel.rematched
    seats = panel.seats
    if (
        now != panel.control.game_id
        or seat >= len(moved)
        or not seats.holds(before, seat, token, device)
    ):
        return models.Rejoin()
    taken = moved[seat]
    fresh = seats.token(now, taken)
    if not seats.holds(now, taken, fresh, device):
        return models.Rejoin()
    return models.Rejoin(seat=taken, token=fresh)
