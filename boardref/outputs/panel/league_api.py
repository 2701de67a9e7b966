"""The panel's league routes: the café's players, who plays which seat, standings
(JSON and CSV) and seasons. Anyone on the panel may read the standings and the
current game's seat names; the table and the referee may list the players; only
the referee changes players, seasons and whether a game is rated. A phone may name
its own seat. Nothing here reads or writes the log on the event loop: standings,
players and seasons are read and changed on worker threads.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from fastapi import APIRouter, Path, Query
from fastapi.responses import PlainTextResponse, Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from boardref.eventlog.players import LONGEST_NAME, Player
from boardref.league.ratings import PROVISIONAL
from boardref.league.standings import Row, Season, Seasons, csv_text, standings_of
from boardref.outputs.panel import models
from boardref.outputs.panel.history_api import GAME_ID, GAME_NAME
from boardref.outputs.panel.routes import (
    CHANGE,
    ONLY_REFEREE,
    PLAYER,
    REFEREE,
    TABLE,
    TABLE_OR_REFEREE,
    RequestRefused,
    ThePanel,
    allowed,
    no_seat,
)

T = TypeVar("T")
PLAYER_ID = Path(ge=1, le=2**63 - 1, description="the player's number in /api/players")
#: what a file's name keeps of a season's name
FILE_SAFE = re.compile(r"[^A-Za-z0-9_-]")
DAY = r"^\d{4}-\d{2}-\d{2}$"
GAME = Query(..., pattern=GAME_NAME, description="the game, as /api/catalogue names it")
SEASON = Query(None, max_length=40, description="only the games of this season")


class Name(models._Body):
    name: str = Field(min_length=1, max_length=LONGEST_NAME * 4)


class Merge(models._Body):
    #: the player whose games these become
    into: int = Field(ge=1, le=2**63 - 1)


class SeatPlayer(models.Seat):
    """Who plays ``seat`` of the game at the table: a ``player`` by number (the table
    or the referee picking from the café's players), a ``name`` (a phone joining: a
    new name adds a player), or neither (anonymous)."""

    seat: int = Field(ge=0, le=7)
    name: str | None = Field(None, min_length=1, max_length=LONGEST_NAME * 4)
    player: int | None = Field(None, ge=1, le=2**63 - 1)


class SeasonBody(models._Body):
    name: str = Field(min_length=1, max_length=40)
    first: str = Field(pattern=DAY, description="its first day, YYYY-MM-DD")
    last: str = Field(pattern=DAY, description="its last day, YYYY-MM-DD")


class Rated(models._Body):
    #: rated, not rated, or (null) as the rules go: only finished games untouched by
    #: the referee are rated
    rated: bool | None


class Seated(BaseModel):
    game_id: int | None
    #: seat (from 0) to the name of its player; seats not listed are anonymous
    seats: dict[int, str]


class Standings(BaseModel):
    game: str
    season: Season | None
    #: a row is provisional below this many rated games
    provisional_below: int = PROVISIONAL
    rows: list[Row]


#: what only the referee changes
REFEREE_CHANGES = [*CHANGE, ONLY_REFEREE]
#: the seat a phone names is its own; the table and the referee name any
ANY_SEAT = allowed(TABLE, REFEREE, PLAYER, seats=lambda shown: range(shown.players))


players_router = APIRouter(tags=["league"])


@players_router.get("/api/players", response_model=list[Player], dependencies=[TABLE_OR_REFEREE])
def players(panel: ThePanel) -> list[Player]:
    """The café's players, by name, with how many games each has played."""
    return panel.control.history.players.all()


@players_router.post("/api/players", response_model=Player, dependencies=REFEREE_CHANGES)
def add(body: Name, panel: ThePanel) -> Player:
    return panel.control.history.players.add(body.name)


@players_router.post(
    "/api/players/{player_id}/rename",
    response_model=Player,
    dependencies=REFEREE_CHANGES,
)
async def rename(body: Name, panel: ThePanel, player_id: int = PLAYER_ID) -> Player:
    """A new name; every record of theirs carries it from now on."""
    return await _names_changed(panel, panel.control.history.players.rename, player_id, body.name)


@players_router.post(
    "/api/players/{player_id}/merge",
    response_model=Player,
    dependencies=REFEREE_CHANGES,
)
async def merge(body: Merge, panel: ThePanel, player_id: int = PLAYER_ID) -> Player:
    """Two entries that are one person: this one's games become ``into``'s."""
    return await _names_changed(panel, panel.control.history.players.merge, player_id, body.into)


@players_router.post(
    "/api/players/{player_id}/delete",
    response_model=models.Done,
    dependencies=REFEREE_CHANGES,
)
async def delete(panel: ThePanel, player_id: int = PLAYER_ID) -> models.Done:
    """Remove the player and all their data: their games turn anonymous."""
    await _names_changed(panel, panel.control.history.players.delete, player_id)
    return models.Done()


async def _names_changed(panel, change: Callable[..., T], *args) -> T:
    """``change`` made on a worker thread, then pushed: a seat's player may be called
    otherwise now, and the pages ask for the seats' names after such a push."""
    done = await run_in_threadpool(change, *args)
    panel.show()
    return done


@players_router.get("/api/players/seated", response_model=Seated)
async def seated(panel: ThePanel) -> Seated:
    """The names of the current game's seats."""
    game_id = panel.control.game_id
    return await run_in_threadpool(_seated, panel, game_id)


@players_router.post("/api/players/seat", response_model=Seated, dependencies=[*CHANGE, ANY_SEAT])
async def seat(body: SeatPlayer, panel: ThePanel) -> Seated:
    """Name a seat's player for the current game (or make it anonymous again)."""
    control = panel.control
    if body.seat >= control.game.players:
        raise RequestRefused(404, no_seat(body.seat))
    game_id = control.game_id
    await run_in_threadpool(_seat, panel, game_id, body)
    panel.show()  # the pages ask for the seats' names again after such a push
    return await run_in_threadpool(_seated, panel, game_id)


def _seat(panel, game_id: int | None, body: SeatPlayer) -> None:
    players = panel.control.history.players
    if body.player is not None:
        chosen: int | None = players.get(body.player).id
    else:
        chosen = None if body.name is None else players.called(body.name).id
    players.seat(game_id, body.seat, chosen)


def _seated(panel, game_id: int | None) -> Seated:
    names = {} if game_id is None else panel.control.history.players.names(game_id)
    return Seated(game_id=game_id, seats=names)


standings_router = APIRouter(tags=["league"])


@standings_router.post(
    "/api/games/{game_id}/rated", response_model=models.Done, dependencies=REFEREE_CHANGES
)
async def rated(body: Rated, panel: ThePanel, game_id: int = GAME_ID) -> models.Done:
    """The referee's word on whether a game counts for the league."""
    await run_in_threadpool(_rate_or_not, panel.control.history, game_id, body.rated)
    return models.Done()


def _rate_or_not(history, game_id: int, rated: bool | None) -> None:
    history.record(game_id)  # an ended game, or why not
    history.players.set_rated(game_id, rated)


@standings_router.get("/api/seasons", response_model=list[Season])
def seasons(panel: ThePanel) -> list[Season]:
    return Seasons(panel.control.history).all()


@standings_router.post("/api/seasons", response_model=Season, dependencies=REFEREE_CHANGES)
def add_season(body: SeasonBody, panel: ThePanel) -> Season:
    """A season (or new dates for the one of this name)."""
    return Seasons(panel.control.history).add(body.name, body.first, body.last)


@standings_router.post(
    "/api/seasons/delete", response_model=models.Done, dependencies=REFEREE_CHANGES
)
def delete_season(body: Name, panel: ThePanel) -> models.Done:
    Seasons(panel.control.history).delete(body.name)
    return models.Done()


@standings_router.get("/api/standings", response_model=Standings)
def table_of(
    panel: ThePanel,
    game: str = GAME,
    season: str | None = SEASON,
) -> Response:
    """The standings of one game: best rating first, each row with its games."""
    # written here, on a worker thread: a year of games' numbers is a long answer
    found = _standings(panel, game, season)
    return Response(found.model_dump_json(), media_type="application/json")


@standings_router.get(
    "/api/standings.csv",
    response_class=PlainTextResponse,
    responses={200: {"content": {"text/csv": {}}}},
)
def table_csv(
    panel: ThePanel,
    game: str = GAME,
    season: str | None = SEASON,
) -> PlainTextResponse:
    """The same standings as CSV, for a spreadsheet."""
    found = _standings(panel, game, season)
    name = f"standings-{game}{'-' + found.season.name if found.season else ''}"
    return PlainTextResponse(
        csv_text(found.rows),
        media_type="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{FILE_SAFE.sub("_", name)}.csv"'},
    )


def _standings(panel, game: str, season: str | None) -> Standings:
    history = panel.control.history
    chosen = None if season is None else Seasons(history).get(season)
    return Standings(game=game, season=chosen, rows=standings_of(history, game, chosen))
