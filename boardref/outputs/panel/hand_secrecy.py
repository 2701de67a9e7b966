"""Keeps a hidden hand out of the panel's refusals. Where a game hides hands (the
Fang den Hut! card game), why a move is illegal can tell what the mover holds ("not
in the hand" for a card held elsewhere, "not a top card" for one held): to anyone
but the mover's own phone and the referee (who may see every hand), every refused
move gets the same sentence. It never changes what is accepted, only the words of a
refusal."""

from __future__ import annotations

import contextlib

from fastapi import Request

from boardref.outputs.panel.access import SESSION_COOKIE
from boardref.outputs.panel.seats import the_device
from boardref.referee.refusals import not_theirs
from boardref.referee.verdicts import RefereeError, hides_hands
from engines import IllegalMove


def sees_the_hand(panel, request: Request, seat: int | None, token: str | None) -> bool:
    """Whether the request comes from someone who may see the mover's hand: the
    referee, or the phone of the seat to move."""
    referee = panel.service.referee
    client = request.client.host if request.client else None
    if panel.access.is_referee(request.cookies.get(SESSION_COOKIE), client):
        return True
    mover = seat is not None and seat == panel.shown.state.to_move
    return mover and panel.seats.holds(referee.game_id, seat, token, the_device(request))


@contextlib.contextmanager
def refusals_blind(panel, request: Request, seat: int | None, token: str | None):
    """Turn an illegal move's reason into the one generic refusal, unless the
    requester may see the hand the reason depends on."""
    referee = panel.service.referee
    game = referee.game
    if game is None or not hides_hands(game) or sees_the_hand(panel, request, seat, token):
        yield
        return
    state = referee.positions[-1]  # the position the move is tried on
    try:
        yield
    except IllegalMove:
        raise RefereeError(not_theirs(game, state)) from None
