"""Keeps a hidden hand out of the panel's refusals. Where a game hides hands (the
Fang den Hut! card game), why a move is illegal can tell what the mover holds ("not
in the hand" for a card held elsewhere, "not a top card" for one held): to anyone
but the mover's own phone and the referee (who may see every hand), every refused
move gets the same sentence. It never changes what is accepted, only the words of a
refusal."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import Request

from boardref.outputs.panel.access import SESSION_COOKIE
from boardref.outputs.panel.seats import the_device

if TYPE_CHECKING:
    from boardref.outputs.panel.panel import Panel


def reason_hidden(panel: Panel, request: Request, seat: int | None, token: str | None) -> bool:
    """Whether an illegal move's reason is kept from this requester: anyone but the
    referee and the phone of the seat to move (where the game hides hands,
    ``TableControl.play`` then refuses it in the one generic sentence)."""
    client = request.client.host if request.client else None
    if panel.access.is_referee(request.cookies.get(SESSION_COOKIE), client):
        return False
    if seat is None or seat != panel.shown.state.to_move:
        return True
    return not panel.seats.holds(panel.control.game_id, seat, token, the_device(request))
