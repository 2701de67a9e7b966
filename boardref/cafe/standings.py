"""The café's standings across all its tables: per game, within a season's days when
asked, from the records the tables sent to the broker (``daybook``), rated with the
table's own ratings code, so the same records give the same rows wherever they are
rated. Players are told apart by name alone, as a record names them.

It answers in the table's shape (``/api/standings``), with each game's place in the
day book beside its number. It never stores a rating and never sends a table anything.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Query
from fastapi.responses import PlainTextResponse
from starlette.concurrency import run_in_threadpool

from boardref.cafe.daybook import DAY, DayBook
from boardref.eventlog.history import RATED_TAG, HistoryError, epoch
from boardref.eventlog.league_games import Seated
from boardref.eventlog.players import LeagueError
from boardref.league.ratings import PROVISIONAL, played
from boardref.league.standings import (
    Season,
    checked_days,
    checked_game,
    csv_text,
    span_of,
    standings,
)
from engines.records import GameRecord

GAME = Query(..., description="the game, as the tables' catalogue names it")
FIRST = Query(None, pattern=DAY, description="a season's first day, YYYY-MM-DD")
#: a record in the day book: its day, its table, its number there that day
Listed = tuple[str, str, int, GameRecord]
LAST = Query(None, pattern=DAY, description="a season's last day, YYYY-MM-DD (included)")


class CafeLeague:
    """The finished games in ``book``, numbered across the café in the order the day
    book lists them (day, table, the table's number that day)."""

    def __init__(self, book: DayBook):
        self.book = book
        #: each record's league row, worked out once
        self._seated: dict[tuple[int, int], Seated] = {}

    def listed(self) -> list[Listed]:
        """Every record in the book, numbered: taken on the event loop, where the book
        keeps what it hears, and rated on a thread from this list."""
        return [
            (day, table, n, record)
            for day, tables in sorted(self.book.days.items())
            for table, records in sorted(tables.items())
            for n, record in enumerate(records, start=1)
        ]

    def heard(self, listed: list[Listed]) -> list[str]:
        """The games the café's tables have finished, by name."""
        return sorted({record.game for *_, record in listed})

    def games(
        self, listed: list[Listed], game: str, first: float, after: float
    ) -> tuple[list[Seated], dict[int, dict[str, Any]]]:
        """The games of ``game`` that ended in [first, after), and where each number's
        record is in the day book."""
        found, where = [], {}
        for number, (day, table, n, record) in enumerate(listed, start=1):
            if record.game == game and first <= epoch(record.end, 0.0) < after:
                found.append(self._seated_of(number, record))
                where[number] = {"day": day, "table": table, "number": n}
        return found, where

    def _seated_of(self, number: int, record: GameRecord) -> Seated:
        key = (number, id(record))
        if key not in self._seated:
            rated = record.tags.get(RATED_TAG)
            self._seated[key] = played(number, record, None if rated is None else rated == "yes")
        return self._seated[key]

    def standings(
        self, listed: list[Listed], game: str, first: str | None, last: str | None
    ) -> dict[str, Any]:
        """The table's standings answer, across the café; ``games``: number -> where
        its record is (``/api/day/<day>/<table>/<number>``)."""
        checked_game(game)
        season = None
        if first is not None or last is not None:
            first, last = first or "1970-01-01", last or "9999-12-31"
            checked_days(first, last)
            season = Season(f"{first} to {last}", first, last)
        found, where = self.games(listed, game, *span_of(season))
        rows = standings(found)
        return {
            "game": game,
            "season": season,
            "provisional_below": PROVISIONAL,
            "rows": rows,
            "games": {n: where[n] for row in rows for n in row.game_ids},
        }


def standings_routes(league: CafeLeague) -> APIRouter:
    """The café's standings, as JSON and CSV."""
    router = APIRouter()

    async def answer(game: str, first: str | None, last: str | None) -> dict[str, Any]:
        try:
            return await run_in_threadpool(league.standings, league.listed(), game, first, last)
        except (LeagueError, HistoryError) as exc:
            raise HTTPException(exc.status, str(exc)) from None

    @router.get("/api/standings/games")
    async def cafe_games() -> dict[str, Any]:
        """The games the café has records of, each with standings of its own, and how
        many records there are (a page asks for the standings again when that grows)."""
        listed = league.listed()
        return {"games": await run_in_threadpool(league.heard, listed), "records": len(listed)}

    @router.get("/api/standings")
    async def cafe_standings(
        game: str = GAME, first: str | None = FIRST, last: str | None = LAST
    ) -> dict[str, Any]:
        """One game's standings across every table of the café, best rating first."""
        return await answer(game, first, last)

    @router.get("/api/standings.csv", responses={200: {"content": {"text/csv": {}}}})
    async def cafe_standings_csv(
        game: str = GAME, first: str | None = FIRST, last: str | None = LAST
    ) -> PlainTextResponse:
        """The same standings as CSV, for a spreadsheet."""
        found = await answer(game, first, last)
        name = f"cafe-standings-{game}{'-' + first if first else ''}{'-' + last if last else ''}"
        return PlainTextResponse(
            csv_text(found["rows"]),
            media_type="text/csv",
            headers={"Content-Disposition": f'attachment; filename="{name}.csv"'},
        )

    return router
