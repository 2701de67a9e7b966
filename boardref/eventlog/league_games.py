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
from dataclasses import dataclass
from functools import cache

from engines import RulesError, load_game
from engines.records import GameRecord

LEAGUE_GAMES = (
    "game_id INTEGER PRIMARY KEY, game TEXT NOT NULL, ended REAL NOT NULL, outcome TEXT NOT NULL"
)
#: what the standings are made of: a change to any of these tables counts in
#: ``league_changes``, so standings worked out before it are known to be stale
LEAGUE_TABLES = ("league_games", "seat_players", "players", "league_rated")
CHANGES = "n INTEGER NOT NULL"


def changes_counted() -> list[tuple[str, tuple]]:
    """The statements that make the log count every change to the league's tables."""
    statements: list[tuple[str, tuple]] = [
        (
            "INSERT INTO league_changes (n) SELECT 0"
            " WHERE NOT EXISTS (SELECT 1 FROM league_changes)",
            (),
        )
    ]
    for table in LEAGUE_TABLES:
        for change in ("INSERT", "UPDATE", "DELETE"):
            statements.append(
                (
                    f"CREATE TRIGGER IF NOT EXISTS {table}_{change.lower()}_counted"
                    f" AFTER {change} ON {table}"
                    " BEGIN UPDATE league_changes SET n = n + 1; END",
                    (),
                )
            )
    return statements


@dataclass(frozen=True)
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
        said = {k: v for k, v in self.__dict__.items() if k not in ("game_id", "game")}
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


@dataclass(frozen=True)
class Seated:
    """A finished game with who played it: seat (from 0) to the name of its player
    (seats not listed are anonymous), and the referee's word on rating it (None: as
    the rules go)."""

    outcome: Outcome
    names: dict[int, str]
    rated: bool | None = None


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
