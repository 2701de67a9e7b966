"""The league's ratings: openskill's Plackett-Luce model, per game, recomputed from
the records of finished games in the order they ended, so the same records always
give the same ratings, and a record imported later counts as if it had been played
here.

Who is rated: each named player, and each computer seat as the pseudo-player
"computer (level)". An anonymous seat plays as a newcomer who is forgotten after the
game. A game with no named player changes nobody's rating. A game abandoned, or
corrected by the referee (a position set by hand, a move the referee put in), is not
rated unless the referee says so; an abandoned game rated so counts as a draw.
This module only reads records; it never writes a rating anywhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache

from openskill.models import PlackettLuce

from engines import RulesError, load_game
from engines.records import GameRecord

MODEL = PlackettLuce()
#: a player is provisional below this many rated games: with openskill's defaults
#: sigma falls slowly (8.3 at the start, 7.2 after five games of two against
#: newcomers), so an early ordinal (mu - 3 sigma) says more about how new a player is
#: than how well they play; five games is a regular's first league evening or two
PROVISIONAL = 5


@dataclass(frozen=True)
class Entrant:
    """Someone rated: ``key`` tells players apart (``player:Anna``,
    ``computer:strong``), ``name`` is what a standings row shows."""

    key: str
    name: str
    computer: bool = False


@dataclass(frozen=True)
class Played:
    """A finished game as the league reads it: its number in the log, its record
    (with its ``PlayerN`` tags), and the referee's word on rating it (None: as the
    rules go)."""

    game_id: int
    record: GameRecord
    rated: bool | None = None


@dataclass
class Rated:
    """One entrant's rating after the games, with the games behind it."""

    entrant: Entrant
    mu: float
    sigma: float
    games: list[int] = field(default_factory=list)
    wins: int = 0
    last_played: str = ""

    @property
    def ordinal(self) -> float:
        """openskill's conservative rating, mu - 3 sigma: what the table is sorted by."""
        return self.mu - 3 * self.sigma

    @property
    def provisional(self) -> bool:
        return len(self.games) < PROVISIONAL


def counts(played: Played) -> bool:
    """Whether a game is rated: finished and untouched by the referee, or the
    referee said so."""
    record = played.record
    if played.rated is not None:
        return played.rated and (record.result is not None or record.abandoned)
    corrected = any(
        entry.kind == "position" or "corrected" in entry.marks for entry in record.entries
    )
    return record.result is not None and not record.abandoned and not corrected


def seat_entrants(record: GameRecord) -> list[Entrant | None]:
    """Who played each seat by the game's end: a named player, the computer at its
    level, or None (anonymous)."""
    computer, level = set(record.computer), record.level
    for entry in record.entries:
        if entry.kind == "computer":
            computer, level = set(entry.computer), entry.level
    seats: list[Entrant | None] = []
    for seat in range(record.players):
        name = record.tags.get(f"Player{seat + 1}")
        if seat in computer:
            seats.append(Entrant(f"computer:{level}", f"computer ({level})", True))
        else:
            seats.append(Entrant(f"player:{name.casefold()}", name) if name else None)
    return seats


@cache
def _teams(game: str, players: int, options: str) -> tuple[int, ...]:
    """The team of each seat: the game's own teams, else each seat its own."""
    import json

    try:
        found = load_game(game, players, **json.loads(options))
    except RulesError:
        return tuple(range(players))
    return tuple(getattr(found, "teams", range(players)))


def teams_and_ranks(record: GameRecord) -> tuple[list[list[int]], list[float]]:
    """The seats of each team and each team's place (1 first, ties share a place):
    winners first, then by score where the game keeps scores, every team level in a
    draw or an abandoned game."""
    import json

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
    return grouped, [float(order.index(standing(seats)) + 1) for seats in grouped]


def ratings(games: Iterable[Played]) -> dict[str, Rated]:
    """Every entrant's rating after ``games``, rated one by one in the order they
    ended (then by number); games that do not count are skipped."""
    rated: dict[str, Rated] = {}
    for played in sorted(games, key=lambda p: (p.record.end, p.game_id)):
        if counts(played):
            _rate(played, rated)
    return rated


def _rate(played: Played, rated: dict[str, Rated]) -> None:
    """Rate one game into ``rated``. Two computer seats at one level both play from
    the pseudo-player's rating, and the first of them (in seat order) is kept."""
    record = played.record
    entrants = seat_entrants(record)
    people = [e.key for e in entrants if e is not None and not e.computer]
    if not people or len(people) != len(set(people)):
        return  # nobody named, or one name on two seats (an import): nothing fair to rate
    grouped, ranks = teams_and_ranks(record)
    seated = [[(s, e) for s in seats if (e := entrants[s]) is not None] for seats in grouped]
    teams = [
        [
            MODEL.rating(rated[e.key].mu, rated[e.key].sigma) if e.key in rated else MODEL.rating()
            for _, e in team
        ]
        or [MODEL.rating()]  # a team of anonymous seats plays as one newcomer
        for team in seated
    ]
    winners = set(record.result.winners) if record.result is not None else set()
    done: set[str] = set()
    for team, seats, after in zip(seated, grouped, MODEL.rate(teams, ranks=ranks), strict=True):
        for (_, entrant), new in zip(team, after, strict=False):
            if entrant.key in done:
                continue
            done.add(entrant.key)
            row = rated.setdefault(entrant.key, Rated(entrant, new.mu, new.sigma))
            row.mu, row.sigma, row.entrant = new.mu, new.sigma, entrant
            row.games.append(played.game_id)
            row.wins += bool(winners & set(seats))
            row.last_played = record.end
