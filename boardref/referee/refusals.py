"""What a player is told when a piece was carried somewhere the rules refuse: the
one place that builds that refusal, from the engine's reason, the board as felt and
the lights. It names the real cause (the destination, or the piece that must stay
where it was) and ends with what to do; it never lists as allowed the cell it
forbids. It decides no move: the referee has already found that none fits."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from boardref.referee.kinds import projection
from boardref.referee.match import Match
from boardref.referee.verdicts import Reading
from engines import IllegalMove, Move
from engines.words import Words, words


@dataclass(frozen=True)
class Refusal:
    """The words of a refused board and the cells to light with them."""

    said: Words
    #: where the piece may go instead (lit as destinations)
    allowed: frozenset[str] = frozenset()
    #: a cell that must hold a piece again (lit as the place to put one)
    place: str | None = None


@dataclass(frozen=True)
class Carried:
    """A piece carried from ``origin`` ("" when no piece left a cell) to
    ``destination`` in position ``state``, the board reading ``reading``."""

    state: Any
    reading: Reading
    origin: str
    destination: str


#: where a lifted piece may go, as the board reads with it lifted
Destinations = Callable[[Reading], frozenset[str]]


def refuse(match: Match, destinations: Destinations, carried: Carried) -> Refusal:
    """Why ``carried`` fits no legal move, and what to do about it; ``destinations``
    finds where a lifted piece may go."""
    game = match.rules
    state, origin, destination = carried.state, carried.origin, carried.destination
    if origin not in game.board.index:
        return Refusal(
            words(
                "referee.nothing_goes_there",
                "No legal move puts a piece on {cell}: take that piece off again",
                cell=destination,
            )
        )
    allowed = _allowed(match, destinations, carried)
    if not allowed:
        return Refusal(
            words(
                "referee.cannot_move_from",
                "That piece cannot move now: put it back on {origin}",
                origin=origin,
            ),
            place=origin,
        )
    if destination not in allowed:
        return Refusal(
            words(
                "referee.goes_elsewhere",
                "{reason}; put the piece on {allowed}",
                reason=_engine_reason(match, state, origin, destination),
                allowed=sorted(allowed, key=game.board.index.__getitem__),
            ),
            allowed=allowed,
        )
    # the destination is allowed: what is wrong is a piece that must stay behind
    # (a tower brought home is taken apart there; one hat goes on)
    stays = _must_stay(match, carried)
    if stays:
        return Refusal(
            words(
                "referee.piece_stays",
                "A piece stays on {origin}: take the tower apart there first and "
                "carry on only the one piece that goes to {cell}",
                origin=stays,
                cell=destination,
            ),
            place=stays,
        )
    return Refusal(
        words(
            "referee.not_this_way",
            "The piece may go to {cell}, but not with the board as it is: put the pieces "
            "back {lights, select, on {as the lights show} other {as the board on the screen "
            "marks them}} and move again",
            cell=destination,
            lights=match.shown_by(),
        )
    )


def _allowed(match: Match, destinations: Destinations, carried: Carried) -> frozenset[str]:
    """Where the carried piece may go: the ends of its legal paths, or where a turn
    with no paths (Hakenschlagen's) lights it with the piece lifted again."""
    sample = match.successors_of(carried.state).sample()
    if sample is not None and hasattr(sample, "path"):
        return frozenset(m.path[-1] for m in _carrying(match, carried.state, carried.origin))
    lifted = dict(carried.reading)
    lifted[carried.destination] = None
    return destinations(lifted)


def _engine_reason(match: Match, state: Any, origin: str, destination: str) -> Words:
    """The engine's own reason where a move is a plain step or jump, else that the
    piece may not go there. What kind of move the game makes is read off one move of
    the referee's index, not by listing them all (Hakenschlagen's whole turns cost a
    search); where a game mixes kinds, a move the engine takes gives no reason."""
    game = match.rules
    if type(match.successors_of(state).sample()) is Move:
        index, board = game.board.index, game.board
        near = index[destination] in board.neighbours[index[origin]]
        try:
            game.apply(state, Move((origin, destination), leap=not near))
        except IllegalMove as refusal:
            return refusal.cause
    return words("referee.may_not_go_there", "The piece may not go to {cell}", cell=destination)


def _must_stay(match: Match, carried: Carried) -> str | None:
    """The origin when every legal move to the destination leaves a piece there that
    the board no longer shows."""
    game, state, origin = match.rules, carried.state, carried.origin
    sensor = projection(match.sensor)
    for move in _carrying(match, state, origin):
        if move.path[-1] == carried.destination:
            after = game.sense(game.apply(state, move), sensor)
            if after.get(origin) is None or carried.reading.get(origin) is not None:
                return None
    return origin


def _carrying(match: Match, state: Any, origin: str) -> list[Any]:
    """The legal moves of ``state`` that carry a piece on from ``origin``: those that
    start there, or, while a move is tentative (the turn may be under way), those that
    pass through it."""
    moves = match.rules.legal_moves(state)
    if match.tentative is None:
        return [m for m in moves if m.path[:1] == (origin,)]
    return [m for m in moves if origin in m.path[:-1]]


def not_theirs(game, state) -> Words:
    """The one refusal of a move for whoever may not see the mover's hand: the same
    sentence whatever the move, so that no refusal tells what the hand holds."""
    return words(
        "referee.not_a_move_for",
        "That is not a move {who} can make now: choose a card on the phone of {who}",
        who=game.seat_words(game.to_move(state)),
    )
