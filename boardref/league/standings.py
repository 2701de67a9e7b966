"""The café's standings: per game, and within a season when one is named, every
rated player's row (rating, games, wins, last played, provisional) with the games
behind it, as JSON rows or CSV. Seasons (a name, a first and a last day) are kept in
the table's event log.

Standings are worked out afresh each time they are asked for, from what the log
keeps of every finished game (``boardref.eventlog.league_games``), pruned ones too
(``boardref.league.ratings``); nothing here stores a rating. A season starts every
player afresh. It reads the log and writes only seasons.
"""

from __future__ import annotations

import csv
import io
import math
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from weakref import WeakKeyDictionary

from boardref.eventlog.history import DAY, History, day_start
from boardref.eventlog.league_games import Seated
from boardref.eventlog.players import LeagueError
from boardref.league.ratings import ratings
from engines import GAMES
from engines.words import words

SEASONS = "name TEXT PRIMARY KEY COLLATE NOCASE, first TEXT NOT NULL, last TEXT NOT NULL"
SEASON_NAME = re.compile(r"^[\w .'-]{1,40}$")
#: what starts a formula in a spreadsheet
FORMULA = ("=", "+", "-", "@")
#: standings remembered per log, for a few games and seasons
REMEMBERED = 16
_REMEMBERED: WeakKeyDictionary[History, OrderedDict[tuple, list[Row]]] = WeakKeyDictionary()
_REMEMBERED_LOCK = threading.Lock()
CSV_COLUMNS = (
    "place",
    "player",
    "computer",
    "rating",
    "mu",
    "sigma",
    "games",
    "wins",
    "last_played",
    "provisional",
    "game_ids",
)


@dataclass(frozen=True)
class Season:
    name: str
    #: its first and last day, YYYY-MM-DD, both in it (this machine's time zone)
    first: str
    last: str


@dataclass(frozen=True)
class Row:
    """One line of the standings."""

    place: int
    player: str
    #: a computer seat's level rather than a person
    computer: bool
    #: openskill's ordinal (mu - 3 sigma), what the rows are sorted by
    rating: float
    mu: float
    sigma: float
    games: int
    wins: int
    #: when their last rated game ended (ISO 8601, UTC)
    last_played: str
    #: too few games for the rating to say much yet
    provisional: bool
    #: the games behind the row, as numbered in /api/games
    game_ids: tuple[int, ...]


class Seasons:
    """The seasons kept in the log of ``history``."""

    def __init__(self, history: History):
        self.store = history.store
        self.store.define("seasons", SEASONS)

    def all(self) -> list[Season]:
        rows = self.store.read("SELECT name, first, last FROM seasons ORDER BY first, name")
        return [Season(*row) for row in rows]

    def get(self, name: str) -> Season:
        found = [s for s in self.all() if s.name.casefold() == name.casefold()]
        if not found:
            raise LeagueError(
                words("league.no_season", "There is no season {name}", name=name), 404
            )
        return found[0]

    def add(self, name: str, first: str, last: str) -> Season:
        """A new season, or the one of this name with new dates."""
        if not isinstance(name, str) or not SEASON_NAME.match(name.strip()):
            raise LeagueError(
                words(
                    "league.bad_season_name",
                    "A season's name is 1 to 40 letters, digits, spaces, dots or dashes",
                )
            )
        checked_days(first, last)
        season = Season(name.strip(), first, last)
        self.store.write(
            [
                (
                    "INSERT OR REPLACE INTO seasons (name, first, last) VALUES (?, ?, ?)",
                    (season.name, first, last),
                )
            ]
        )
        return season

    def delete(self, name: str) -> None:
        season = self.get(name)
        self.store.write([("DELETE FROM seasons WHERE name = ?", (season.name,))])


def played_games(history: History, game: str, season: Season | None = None) -> list[Seated]:
    """The finished games of ``game`` (in ``season``), pruned ones too, each with its
    named seats and the referee's word on rating it."""
    checked_game(game)
    return history.kept_outcomes(game, *span_of(season))


def checked_game(game: str) -> None:
    """``LeagueError`` (404) unless ``game`` is a game boardref knows."""
    if game not in GAMES:
        raise LeagueError(
            words(
                "league.no_game",
                "There is no game {game}: games are {games}",
                game=game,
                games=", ".join(GAMES),
            ),
            404,
        )


def checked_days(first: str, last: str) -> None:
    """``LeagueError`` unless a season from ``first`` to ``last`` (days) is one."""
    if day_start(first) > day_start(last):
        raise LeagueError(
            words(
                "league.season_backwards",
                "A season ends on or after its first day: {first} is after {last}",
                first=first,
                last=last,
            )
        )


def span_of(season: Season | None) -> tuple[float, float]:
    """The season's time, from its first second to the first after it (every time
    when there is no season)."""
    if season is None:
        return 0.0, math.inf
    return day_start(season.first), day_start(season.last) + DAY


def standings_of(history: History, game: str, season: Season | None = None) -> list[Row]:
    """The standings of ``game`` (in ``season``) in ``history``'s log, remembered
    until the league's tables change (rows kept, a seat named, a player renamed,
    merged or deleted, the referee's word): asked again meanwhile, they are not
    worked out again."""
    checked_game(game)
    history.keep_outcomes()
    changes = history.league_changes()
    key = (changes, game, season)
    with _REMEMBERED_LOCK:
        remembered = _REMEMBERED.setdefault(history, OrderedDict())
        found = remembered.get(key) if changes is not None else None
    if found is None:
        found = standings(played_games(history, game, season))
        with _REMEMBERED_LOCK:
            remembered[key] = found
            while len(remembered) > REMEMBERED:
                remembered.popitem(last=False)
    return found


def standings(played: list[Seated]) -> list[Row]:
    """The rows, best rating first (then fewer games, then by name)."""
    rated = sorted(
        ratings(played).values(),
        key=lambda r: (-r.ordinal, len(r.games), r.entrant.name.casefold()),
    )
    return [
        Row(
            place=place,
            player=r.entrant.name,
            computer=r.entrant.computer,
            rating=round(r.ordinal, 3),
            mu=round(r.mu, 3),
            sigma=round(r.sigma, 3),
            games=len(r.games),
            wins=r.wins,
            last_played=r.last_played,
            provisional=r.provisional,
            game_ids=tuple(r.games),
        )
        for place, r in enumerate(rated, start=1)
    ]


def csv_text(rows: list[Row]) -> str:
    """The rows as CSV, one header line first; a row's games separated by spaces."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        fields = {name: getattr(row, name) for name in CSV_COLUMNS}
        fields["game_ids"] = " ".join(map(str, row.game_ids))
        # a name a spreadsheet would take for a formula is written as text
        fields["player"] = ("'" if row.player[:1] in FORMULA else "") + row.player
        writer.writerow(fields.values())
    return out.getvalue()
