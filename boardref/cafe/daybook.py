"""The café's day of games: every ended game's record the tables send to the broker
(``boardref/<table>/record``), kept by day for the dashboard, which lists each
table's games with their results, serves each record, and packs a whole day into
one zip archive for the club's referee.

It keeps only records that verify and name the table whose topic they came on (a
safe name, so every file, zip entry and download name is built from checked
names); with a folder it also writes each record there, inside it and nowhere
else, so a restarted dashboard still has the day. It never sends a table anything.
"""

from __future__ import annotations

import json
import logging
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse, PlainTextResponse, Response

from boardref.cafe.trust import Doubts
from boardref.eventlog.history import archive, file_name, seats_said
from boardref.eventlog.players import player_tag
from engines import RulesError
from engines.records import GameRecord, from_json, write
from engines.replay import verify

log = logging.getLogger(__name__)
DAY = r"^\d{4}-\d{2}-\d{2}$"


class DayBook:
    """Ended games by day (this machine's time zone) and table, in the order heard."""

    def __init__(self, folder: Path | None = None):
        self.folder = folder
        #: day -> table -> the records of that table's games that ended that day
        self.days: dict[str, dict[str, list[GameRecord]]] = {}
        self._seen: set[tuple[str, str, str]] = set()
        self.doubts = Doubts()  # records not believed, each reason said once
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
            # its own files: each record was verified when it was heard
            for path in sorted(folder.glob("*/*.json"), key=_heard_order):
                table = path.stem.rsplit("-", 1)[0]
                read = self._read(table, path.read_text(encoding="utf-8"))
                if read is not None:
                    self.keep(table, *read, save=False)

    def take(self, table: str, payload: str) -> bool:
        """A message from ``boardref/<table>/record``; False if it is no record of that
        table's (or one heard already: QoS 1 may deliver a message twice)."""
        checked = self.check(table, payload)
        return checked is not None and self.keep(table, *checked)

    def check(self, table: str, payload: str) -> tuple[GameRecord, str] | None:
        """The record in a message from ``boardref/<table>/record`` and its JSON text,
        if it is that table's and verifies; else None, said once. Replaying a long
        game takes a good part of a second, so the dashboard runs this off its loop;
        it changes nothing in the book."""
        try:
            message = json.loads(payload)
            said, text = message["table"], json.dumps(message["record"])
        except (ValueError, KeyError, TypeError) as exc:
            self.doubts.ignore(table, f"its record is not readable: {exc}")
            return None
        if said != table:
            self.doubts.ignore(table, "its record speaks for another table")
            return None
        read = self._read(table, text)
        if read is None:
            return None
        try:
            verify(read[0])
        except RulesError as exc:
            self.doubts.ignore(table, f"its record does not verify: {exc}")
            return None
        return read

    def _read(self, table: str, text: str) -> tuple[GameRecord, str] | None:
        """A record of table ``table`` from its JSON text; None (said once) if not."""
        if not self.doubts.named(table):
            return None
        try:
            record = from_json(json.loads(text))
        except (ValueError, RulesError) as exc:
            self.doubts.ignore(table, f"not a game record: {exc}")
            return None
        if record.table != table:
            self.doubts.ignore(table, "its record names another table")
            return None
        return record, text

    def keep(self, table: str, record: GameRecord, text: str, save: bool = True) -> bool:
        """Keep a checked record of ``table`` (and write it to the folder, if ``save``);
        False if it was heard already."""
        key = (table, record.commitment, record.start)
        if key in self._seen:
            return False
        self._seen.add(key)
        day = day_of(record)
        games = self.days.setdefault(day, {}).setdefault(table, [])
        games.append(record)
        if save and self.folder is not None:
            self._save(self.folder / day / f"{table}-{len(games)}.json", text)
        return True

    def _save(self, where: Path, text: str) -> None:
        """Write a record under the book's folder, and nowhere else."""
        folder = self.folder.resolve()
        if not where.resolve().is_relative_to(folder):
            log.error("a record was not saved: %s lies outside %s", where, folder)
            return
        where.parent.mkdir(exist_ok=True)
        where.write_text(text, encoding="utf-8")

    def summary(self, day: str) -> dict[str, list[dict[str, Any]]]:
        """Each table's games of ``day``: number, game, times, result."""
        return {
            table: [
                {
                    "number": n,
                    "game": r.game,
                    "start": r.start,
                    "end": r.end,
                    "abandoned": r.abandoned,
                    "winners": [] if r.result is None else [r.seats[s] for s in r.result.winners],
                    # the winners as their game names them, said in each page's language
                    "winners_said": [] if r.result is None else _said(r, r.result.winners),
                    # the café's names of the winners' players (None: anonymous)
                    "winners_named": []
                    if r.result is None
                    else [r.tags.get(player_tag(s)) for s in r.result.winners],
                    "reason": "" if r.result is None else r.result.reason,
                    "plies": r.plies,
                }
                for n, r in enumerate(records, start=1)
            ]
            for table, records in sorted(self.days.get(day, {}).items())
        }

    def record(self, day: str, table: str, number: int) -> GameRecord | None:
        games = self.days.get(day, {}).get(table, [])
        return games[number - 1] if 1 <= number <= len(games) else None

    def archive(self, day: str) -> bytes:
        """The whole day as one zip: every table's records, as text and JSON."""
        return archive(
            [
                (f"{table}/{file_name(record, n)}", record)
                for table, records in sorted(self.days.get(day, {}).items())
                for n, record in enumerate(records, start=1)
            ]
        )


def day_of(record: GameRecord) -> str:
    """The day (this machine's time zone) a game ended, or began if it has no end."""
    stamp = record.end or record.start
    try:
        at = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        at = datetime.now(UTC)
    return at.astimezone().strftime("%Y-%m-%d")


def _heard_order(path: Path) -> tuple[str, str, int]:
    """Saved records sort by day, table and number (``t1-10`` after ``t1-9``)."""
    table, _, number = path.stem.rpartition("-")
    return path.parent.name, table, int(number) if number.isdigit() else 0


def today() -> str:
    return datetime.now().strftime("%Y-%m-%d")


def daybook_routes(book: DayBook) -> APIRouter:
    """The dashboard's day of games: the list, each record, the day's archive."""
    router = APIRouter()

    @router.get("/api/day")
    async def day_games(
        day: str | None = Query(None, pattern=DAY, description="YYYY-MM-DD; today if left out"),
    ) -> dict[str, Any]:
        """Each table's ended games of the day, in the order they ended."""
        chosen = day or today()
        return {"day": chosen, "tables": book.summary(chosen)}

    @router.get("/api/day/{day}/{table}/{number}", responses={200: {"content": {"text/plain": {}}}})
    async def day_record(day: str, table: str, number: int) -> Response:
        """One game's record, as text to download."""
        record = book.record(day, table, number) if re.match(DAY, day) else None
        if record is None:
            return JSONResponse({"detail": f"no game {number} of table {table} on {day}"}, 404)
        name = f"{file_name(record, number)}.txt"
        return PlainTextResponse(
            write(record), headers={"Content-Disposition": f'attachment; filename="{name}"'}
        )

    @router.get("/api/day/{day}.zip", responses={200: {"content": {"application/zip": {}}}})
    async def day_archive(day: str) -> Response:
        """Every game of the day at every table, as one zip archive."""
        if not re.match(DAY, day):
            return JSONResponse({"detail": f"{day} is not a day like 2026-11-24"}, 422)
        return Response(
            book.archive(day),
            media_type="application/zip",
            headers={"Content-Disposition": f'attachment; filename="boardref-{day}.zip"'},
        )

    return router


def _said(record: GameRecord, seats) -> list[dict[str, Any]]:
    """``seats`` of ``record``'s game as words, as the game names them."""
    named = seats_said(record.game, record.players, json.dumps(record.options, sort_keys=True))
    return [named[s] for s in seats]
