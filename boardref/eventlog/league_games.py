"""What the café league needs of each finished game, kept in the log as one compact
row (``league_games``): per seat the computer's level or a person, the teams and
their places, the winners, and whether the rules rate it. It is worked out once from
the game's record, when the game ends (before pruning) or is imported, so standings
read a row a game instead of rebuilding every record, and a pruned game still counts.

It never holds a name nor the referee's word on rating (those are joined from
``seat_players`` and ``league_rated`` as they stand when read, so a rename, merge or
delete needs nothing here), and never a rating: ratings are recomputed from these
rows every time (``boardref.league``). The history works the rows out and reads them
(``History.keep_outcomes``, ``History.kept_outcomes``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from dataclasses import dataclass, fields
from functools import cache

from boardref.eventlog.store import Store
from engines import RulesError, load_game
from engines.records import GameRecord

LEAGUE_GAMES = (
    "game_id INTEGER PRIMARY KEY, game TEXT NOT NULL, ended REAL NOT NULL, outcome TEXT NOT NULL"
)
#: what the standings are made of: every change to a row of these tables is noted in
#: ``league_touched`` with the game it touches, so standings worked out before it
#: are known to be stale, and only that game need be read again
LEAGUE_TABLES = ("league_games", "seat_players", "league_rated")
#: the games touched, numbered in order (AUTOINCREMENT: a number is never reused)
TOUCHED = "n INTEGER PRIMARY KEY AUTOINCREMENT, game_id INTEGER NOT NULL"
#: touches remembered: standings that have missed more read every game again
TOUCHES_KEPT = 20_000


def touches_noted() -> list[tuple[str, tuple]]:
    """The statements that make the log note the game of every change to the league's
    tables: a player renamed or deleted touches each game they played."""
    statements: list[tuple[str, tuple]] = [
        # a log from before touches were noted counted changes without their games
        *(
            (f"DROP TRIGGER IF EXISTS {table}_{change}_counted", ())
            for table in (*LEAGUE_TABLES, "players")
            for change in ("insert", "update", "delete")
        ),
        ("DROP TABLE IF EXISTS league_changes", ()),
        (
            "CREATE TRIGGER IF NOT EXISTS league_touched_bounded AFTER INSERT ON league_touched"
            f" BEGIN DELETE FROM league_touched WHERE n <= NEW.n - {TOUCHES_KEPT}; END",
            (),
        ),
    ]
    for table in LEAGUE_TABLES:
        for change, row in (("INSERT", "NEW"), ("UPDATE", "NEW"), ("DELETE", "OLD")):
            touched = [row] if change != "UPDATE" else ["OLD", "NEW"]
            notes = " ".join(
                f"INSERT INTO league_touched (game_id) VALUES ({r}.game_id);" for r in touched
            )
            statements.append(
                (
                    f"CREATE TRIGGER IF NOT EXISTS {table}_{change.lower()}_touched"
                    f" AFTER {change} ON {table} BEGIN {notes} END",
                    (),
                )
            )
    for change in ("UPDATE", "DELETE"):
        statements.append(
            (
                f"CREATE TRIGGER IF NOT EXISTS players_{change.lower()}_touched"
                f" AFTER {change} ON players BEGIN INSERT INTO league_touched (game_id)"
                " SELECT game_id FROM seat_players WHERE player_id = OLD.id; END",
                (),
            )
        )
    return statements


def touched_since(reader: Store, seen: int | None) -> tuple[int, set[int] | None]:
    """The number of the log's last touch, and the games touched after ``seen``
    (None: every game may have changed, as touches that long ago are forgotten)."""
    [(first, last)] = reader.read("SELECT MIN(n), MAX(n) FROM league_touched")
    if last is None:  # nothing noted yet
        return 0, (set() if seen == 0 else None)
    if seen is None or seen < first - 1:
        return last, None
    return last, {
        gid
        for (gid,) in reader.read(
            "SELECT DISTINCT game_id FROM league_touched WHERE n > ?", (seen,)
        )
    }


@dataclass(frozen=True, slots=True)
class Outcome:
    """One finished game as the league reads it."""

    game_id: int
    game: str
    #: when it ended, ISO 8601 UTC: games are rated in this order
    end: str
    #: per seat, the computer's level when the computer held it at the end, else None
    computer: tuple[str | None, ...]
    #: the seats of each team, and each team's place (1 first, ties share a place)
    teams: tuple[tuple[int, ...], ...]
    places: tuple[float, ...]
    winners: tuple[int, ...]
    #: it ended with a result or was abandoned (a new game started before its end)
    finished: bool
    #: finished with a result and untouched by the referee: rated unless they say not
    by_the_rules: bool
    #: when it began, and the record's commitment: games that ended in the same second
    #: are rated in the order they began, then by commitment, the same in every log
    start: str = ""
    commitment: str = ""

    @property
    def rating_order(self) -> tuple[str, str, str, int]:
        """Where this game comes when games are rated one by one: the same order in
        the log that played it and in one that imported its record."""
        return (self.end, self.start, self.commitment, self.game_id)

    def to_json(self) -> str:
        said = {
            f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("game_id", "game")
        }
        return json.dumps(said, separators=(",", ":"))

    @classmethod
    def from_json(cls, game_id: int, game: str, text: str) -> Outcome:
        said = json.loads(text)
        return cls(
            game_id,
            game,
            said["end"],
            tuple(said["computer"]),
            tuple(tuple(team) for team in said["teams"]),
            tuple(said["places"]),
            tuple(said["winners"]),
            said["finished"],
            said["by_the_rules"],
            said.get("start", ""),
            said.get("commitment", ""),
        )


@dataclass(frozen=True, slots=True)
class Seated:
    """A finished game with who played it: seat (from 0) to the name of its player
    (seats not listed are anonymous), and the referee's word on rating it (None: as
    the rules go)."""

    outcome: Outcome
    names: dict[int, str]
    rated: bool | None = None


def seated_in(
    reader: Store,
    game: str,
    first: float,
    after: float,
    among: Collection[int] | None = None,
    outcome: Callable[[int, str, str], Outcome] = Outcome.from_json,
) -> list[Seated]:
    """The kept games of ``game`` that ended in [first, after) (only those ``among``
    these games, when given), with their named seats as the players are called now
    and the referee's word on rating each; ``outcome`` reads a kept row."""
    span = "l.game = ? AND l.ended >= ? AND l.ended < ?"
    params: tuple = (game, first, after)
    if among is not None:
        span += " AND l.game_id IN (SELECT value FROM json_each(?))"
        params += (json.dumps(sorted(among)),)
    rows = reader.read(
        "SELECT l.game_id, l.outcome, r.rated FROM league_games l"
        f" LEFT JOIN league_rated r ON r.game_id = l.game_id WHERE {span}",
        params,
    )
    names: dict[int, dict[int, str]] = {}
    for gid, seat, name in reader.read(
        "SELECT s.game_id, s.seat, p.name FROM league_games l"
        " JOIN seat_players s ON s.game_id = l.game_id JOIN players p ON p.id = s.player_id"
        f" WHERE {span}",
        params,
    ):
        names.setdefault(gid, {})[seat] = name
    return [
        Seated(outcome(gid, game, text), names.get(gid, {}), None if rated is None else bool(rated))
        for gid, text, rated in rows
    ]


def left_out(reader: Store, game_ids: Collection[int]) -> dict[int, bool | None]:
    """Of ``game_ids``, the games the rules leave out of the standings (abandoned, or
    the referee stepped in), each with the referee's word on it (None: none given)."""
    rows = reader.read(
        "SELECT l.game_id, r.rated FROM league_games l"
        " LEFT JOIN league_rated r ON r.game_id = l.game_id"
        " WHERE l.game_id IN (SELECT value FROM json_each(?))"
        " AND NOT json_extract(l.outcome, '$.by_the_rules')",
        (json.dumps(sorted(game_ids)),),
    )
    return {gid: None if rated is None else bool(rated) for gid, rated in rows}


def outcome_of(game_id: int, record: GameRecord) -> Outcome:
    """The league's row of an ended game's record."""
    computer, level = set(record.computer), record.level
    for entry in record.entries:
        if entry.kind == "computer":  # the computer took over or gave back a seat
            computer, level = set(entry.computer), entry.level
    corrected = any(
        entry.kind == "position" or "corrected" in entry.marks for entry in record.entries
    )
    teams, places = teams_and_places(record)
    result = record.result
    return Outcome(
        game_id=game_id,
        game=record.game,
        end=record.end,
        computer=tuple(level if seat in computer else None for seat in range(record.players)),
        teams=teams,
        places=places,
        winners=() if result is None else tuple(result.winners),
        finished=result is not None or record.abandoned,
        by_the_rules=result is not None and not record.abandoned and not corrected,
        start=record.start,
        commitment=record.commitment,
    )


@cache
def _teams(game: str, players: int, options: str) -> tuple[int, ...]:
    """The team of each seat: the game's own teams, else each seat its own."""
    try:
        found = load_game(game, players, **json.loads(options))
    except RulesError:
        return tuple(range(players))
    return tuple(getattr(found, "teams", range(players)))


def teams_and_places(record: GameRecord) -> tuple[tuple[tuple[int, ...], ...], tuple[float, ...]]:
    """The seats of each team and each team's place: winners first, then by score
    where the game keeps scores, every team level in a draw or an abandoned game."""
    of_seat = _teams(record.game, record.players, json.dumps(record.options, sort_keys=True))
    teams: dict[int, list[int]] = {}
    for seat, team in enumerate(of_seat):
        teams.setdefault(team, []).append(seat)
    result = record.result
    winners = set(result.winners) if result is not None else set()
    scores = result.scores if result is not None else None

    def standing(seats: list[int]) -> tuple[int, float]:
        total = sum(scores[s] for s in seats) if scores is not None else 0.0
        return (0 if winners & set(seats) else 1, -total)

    grouped = list(teams.values())
    order = sorted({standing(seats) for seats in grouped})
    places = tuple(float(order.index(standing(seats)) + 1) for seats in grouped)
    return tuple(tuple(seats) for seats in grouped), places


def row_statement(outcome: Outcome, ended: float, game_id_sql: str = "?") -> tuple[str, tuple]:
    """The statement keeping ``outcome``; ``game_id_sql`` names the game's id in SQL
    when it is not known yet (an import)."""
    kept = (outcome.game, ended, outcome.to_json())
    params: tuple = (outcome.game_id, *kept) if game_id_sql == "?" else kept
    return (
        f"INSERT OR REPLACE INTO league_games (game_id, game, ended, outcome)"
        f" VALUES ({game_id_sql}, ?, ?, ?)",
        params,
    )
