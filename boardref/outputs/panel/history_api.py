"""The panel's history: the ``/games`` page with its replay, and ``/api/games`` (the
ended games a page at a time, each one's record and its replay). Everything here is a
read of games that have ended; the game being played is never shown here. The log is
read, and its answers are made and encoded as JSON, on a worker thread, never on the
event loop: a year of history must not freeze the table's LEDs and pages while
someone browses it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from fastapi import APIRouter, Path, Query
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from boardref.eventlog.history import (
    History,
    HistoryError,
    Summary,
    archive,
    file_name,
    replay_frames,
)
from boardref.eventlog.league_games import left_out
from boardref.eventlog.players import names_of
from boardref.outputs.panel import models
from boardref.outputs.panel.pages import document
from engines.records import GameRecord, to_json, write
from engines.replay import game_of

GAME_NAME = r"^[a-z_]{1,40}$"
TABLE_NAME = r"^[A-Za-z0-9_-]{1,32}$"
#: a game's number: SQLite's whole numbers end at 2**63 - 1
GAME_ID = Path(ge=1, le=2**63 - 1, description="the game's number in /api/games")
#: games a page of the list holds unless asked for fewer or more
PAGE = 50


class GamesPage(BaseModel):
    """One page of the ended games, newest first."""

    games: list[Summary]
    #: the next page is asked for with ``before`` = this (none: no games after these)
    next: int | None
    #: the named seats of the games listed: game id to seat (from 0) to player's name
    names: dict[int, dict[int, str]] = {}
    #: the games listed that the rules leave out of the standings (abandoned, or the
    #: referee stepped in), each with the referee's word (true: counted, null: none)
    left_out: dict[int, bool | None] = {}


def history_routes(history: History) -> APIRouter:
    """The routes of the history of ``history``'s table."""
    router = APIRouter()

    @router.get("/games", include_in_schema=False)
    async def games_page() -> Response:
        return document("history.html")

    @router.get("/games/{game_id}", include_in_schema=False)
    async def replay_page(game_id: int = GAME_ID) -> Response:
        return document("history.html")

    @router.get("/api/games", response_model=GamesPage, tags=["history"])
    async def played(
        game: str | None = Query(None, pattern=GAME_NAME, description="only this game"),
        day: str | None = Query(
            None, pattern=r"^\d{4}-\d{2}-\d{2}$", description="only games begun that day"
        ),
        table: str | None = Query(None, pattern=TABLE_NAME, description="only this table's"),
        before: int | None = Query(
            None, ge=1, le=2**63 - 1, description="only games listed after this one (a page's next)"
        ),
        limit: int = Query(PAGE, ge=1, le=500, description="at most this many games"),
    ) -> Response:
        """The games that ended here (finished or abandoned), newest first, a page at
        a time."""

        def page() -> GamesPage:
            found = history.games(game, day, table, limit + 1, before)
            more = len(found) > limit
            listed = found[:limit]
            named = {g.id: history.players.names(g.id) for g in listed}
            return GamesPage(
                games=listed,
                next=found[limit - 1].id if more else None,
                names={game_id: seats for game_id, seats in named.items() if seats},
                left_out=left_out(history.store, named),
            )

        return await _answered(page)

    @router.get(
        "/api/games/day.zip",
        tags=["history"],
        responses={200: {"content": {"application/zip": {}}}},
    )
    async def day_archive(
        day: str = Query(..., pattern=r"^\d{4}-\d{2}-\d{2}$", description="YYYY-MM-DD"),
    ) -> Response:
        """Every game of one day at this table as one zip (each record as text and JSON)."""
        try:
            found = await run_in_threadpool(_day_records, history, day)
        except HistoryError as exc:
            return _refused(exc)
        packed = archive([(file_name(record, n), record) for n, record in found])
        return Response(
            packed,
            media_type="application/zip",
            headers={"Content-Disposition": f'attachment; filename="boardref-{day}.zip"'},
        )

    @router.get(
        "/api/games/{game_id}",
        tags=["history"],
        responses={
            200: {"content": {"application/json": {}, "text/plain": {}}},
            404: {"description": "no such game"},
            409: {"description": "the game is still being played"},
        },
    )
    async def record(game_id: int = GAME_ID, form: Literal["json", "text"] = "json") -> Response:
        """The game's record (docs/records.md), as JSON or as text to download."""
        if form == "json":
            return await _answered(lambda: to_json(history.record(game_id)))
        try:
            found = await run_in_threadpool(history.record, game_id)
        except HistoryError as exc:
            return _refused(exc)
        name = f"{file_name(found, game_id)}.txt"
        return PlainTextResponse(
            write(found), headers={"Content-Disposition": f'attachment; filename="{name}"'}
        )

    @router.get("/api/games/{game_id}/replay", response_model=models.Replay, tags=["history"])
    async def replay(game_id: int = GAME_ID) -> Response:
        """The game position by position, for the replay page."""

        def replayed() -> models.Replay:
            found = history.record(game_id)
            board = models.board_of(game_of(found).board)
            return models.Replay(board=board, frames=replay_frames(found), names=names_of(found))

        return await _answered(replayed)

    return router


async def _answered(answer: Callable[[], BaseModel | Any]) -> Response:
    """``answer()`` as JSON, read and encoded in a worker thread (a page of 50 games
    is some 10 ms of encoding, which the loop must spend on the table); a
    ``HistoryError`` is refused as every panel refusal is."""

    def encoded() -> Response:
        found = answer()
        if isinstance(found, BaseModel):
            return Response(found.model_dump_json(), media_type="application/json")
        return JSONResponse(found)

    try:
        return await run_in_threadpool(encoded)
    except HistoryError as exc:
        return _refused(exc)


def _day_records(history: History, day: str) -> list[tuple[int, GameRecord]]:
    """Every ended game begun on ``day``, numbered, with its record."""
    return [(s.id, history.record(s.id)) for s in history.games(day=day, limit=10_000)]


def _refused(exc: HistoryError) -> JSONResponse:
    """A refusal as every panel refusal is: English in ``detail``, words in ``said``."""
    return JSONResponse(
        {"detail": str(exc.words), "said": exc.words.to_json()}, status_code=exc.status
    )
