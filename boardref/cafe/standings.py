"""The café's standings on the dashboard: for each game, every rated player's row,
worked out from the records the tables sent (the days the dashboard keeps) the way a
table works out its own from its log, so games played at any table of the café count.
It reads the day book; it stores no rating and never sends a table anything.
"""

from __future__ import annotations

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool

from boardref.cafe.daybook import DayBook
from boardref.league.ratings import Played
from boardref.league.standings import Row, standings


def cafe_standings(book: DayBook) -> dict[str, list[Row]]:
    """Each game heard (by name) to its standings over every day the book keeps; a
    row's games are numbered in the order the book holds them."""
    heard: dict[str, list[Played]] = {}
    records = (r for tables in book.days.values() for kept in tables.values() for r in kept)
    for record in records:
        games = heard.setdefault(record.game, [])
        games.append(Played(len(games) + 1, record))
    return {game: standings(played) for game, played in sorted(heard.items())}


def standings_routes(book: DayBook) -> APIRouter:
    router = APIRouter()

    @router.get("/api/standings")
    async def cafe_table() -> dict[str, list[Row]]:
        """Every game's standings, from the records the tables sent."""
        return await run_in_threadpool(cafe_standings, book)

    return router
