"""The league's ratings: openskill's Plackett-Luce model, per game, recomputed every
time from what the log keeps of each finished game (``boardref.eventlog.league_games``,
worked out once from its record) in the order the games ended, so the same records
always give the same ratings, and a record imported later counts as if it had been
played here.

Who is rated: each named player, and each computer seat as the pseudo-player
"computer (level)". An anonymous seat plays as a newcomer who is forgotten after the
game. A game with no named player changes nobody's rating. A game abandoned, or
corrected by the referee (a position set by hand, a move the referee put in), is not
rated unless the referee says so; an abandoned game rated so counts as a draw.
It only reads; it never writes a rating anywhere.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from openskill.models import PlackettLuce

from boardref.eventlog.league_games import Seated, outcome_of
from boardref.eventlog.players import names_of
from engines.records import GameRecord

MODEL = PlackettLuce()
#: a player is provisional below this many rated games: with openskill's defaults
#: sigma falls slowly (8.3 at the start, 7.2 after five games of two against
#: newcomers), so an early ordinal (mu - 3 sigma) says more about how new a player is
#: than how well they play; five games is a regular's first league evening or two
PROVISIONAL = 5
#: the ratings after the first games of a list, by a digest of everything those games
#: bring (who played, as they are named now, places, order): asked again, with a game
#: more, or with one of its last RECENT games changed (a seat named just after the
#: game), only what is new or changed is rated. The answer is always the one rating every game
#: afresh gives; a rename, a merge or the referee's word changes the digest from the
#: first game it touches on. A few lists: the standings of each game and season.
_MEMO: OrderedDict[bytes, dict[str, Rated]] = OrderedDict()
_MEMO_LOCK = threading.Lock()
RECENT = 4
MEMO_SIZE = 64


@dataclass(frozen=True)
class Entrant:
    """Someone rated: ``key`` tells players apart (``player:Anna``,
    ``computer:strong``), ``name`` is what a standings row shows."""

    key: str
    name: str
    computer: bool = False


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


def played(game_id: int, record: GameRecord, rated: bool | None = None) -> Seated:
    """A game as the league reads it, from its record (its ``PlayerN`` tags name the
    seats): a record heard by the café, or one a test wrote."""
    return Seated(outcome_of(game_id, record), names_of(record), rated)


def counts(game: Seated) -> bool:
    """Whether a game is rated: finished and untouched by the referee, or the
    referee said so."""
    if game.rated is not None:
        return game.rated and game.outcome.finished
    return game.outcome.by_the_rules


def seat_entrants(game: Seated) -> list[Entrant | None]:
    """Who played each seat by the game's end: a named player, the computer at its
    level, or None (anonymous)."""
    seats: list[Entrant | None] = []
    for seat, level in enumerate(game.outcome.computer):
        name = game.names.get(seat)
        if level is not None:
            seats.append(Entrant(f"computer:{level}", f"computer ({level})", True))
        else:
            seats.append(Entrant(f"player:{name.casefold()}", name) if name else None)
    return seats


def ratings(games: Iterable[Seated]) -> dict[str, Rated]:
    """Every entrant's rating after ``games``, rated one by one in the order they
    ended (then began, then by the record's commitment); games that do not count are skipped."""
    counted = [
        game
        for game in sorted(games, key=lambda g: g.outcome.rating_order)
        if counts(game)
    ]
    digest, digests = hashlib.blake2b(digest_size=16), []
    for game in counted:
        digest.update(_everything_of(game))
        digests.append(digest.digest())
    start, rated = 0, {}
    with _MEMO_LOCK:
        for done in range(len(digests), 0, -1):
            if digests[done - 1] in _MEMO:
                start, rated = done, _copy(_MEMO[digests[done - 1]])
                break
    kept = {}
    for done, game in enumerate(counted[start:], start=start + 1):
        _rate(game, rated)
        if done >= len(counted) - RECENT:
            kept[digests[done - 1]] = _copy(rated)
    with _MEMO_LOCK:
        _MEMO.update(kept)
        while len(_MEMO) > MEMO_SIZE:
            _MEMO.popitem(last=False)
    return rated


def _everything_of(game: Seated) -> bytes:
    """All a game brings to the ratings, as bytes for the digest."""
    o = game.outcome
    named = sorted(game.names.items())
    return repr((o.game_id, o.end, o.computer, named, o.teams, o.places, o.winners)).encode()


def _copy(rated: dict[str, Rated]) -> dict[str, Rated]:
    return {key: replace(row, games=list(row.games)) for key, row in rated.items()}


def _rate(game: Seated, rated: dict[str, Rated]) -> None:
    """Rate one game into ``rated``. Two computer seats at one level both play from
    the pseudo-player's rating, and the first of them (in seat order) is kept."""
    outcome = game.outcome
    entrants = seat_entrants(game)
    people = [e.key for e in entrants if e is not None and not e.computer]
    if not people or len(people) != len(set(people)):
        return  # nobody named, or one name on two seats (an import): nothing fair to rate
    seated = [[e for s in seats if (e := entrants[s]) is not None] for seats in outcome.teams]
    teams = [
        [
            MODEL.rating(rated[e.key].mu, rated[e.key].sigma) if e.key in rated else MODEL.rating()
            for e in team
        ]
        or [MODEL.rating()]  # a team of anonymous seats plays as one newcomer
        for team in seated
    ]
    winners = set(outcome.winners)
    done: set[str] = set()
    after = MODEL.rate(teams, ranks=list(outcome.places))
    for team, seats, new_team in zip(seated, outcome.teams, after, strict=True):
        for entrant, new in zip(team, new_team, strict=False):
            if entrant.key in done:
                continue
            done.add(entrant.key)
            row = rated.setdefault(entrant.key, Rated(entrant, new.mu, new.sigma))
            row.mu, row.sigma, row.entrant = new.mu, new.sigma, entrant
            row.games.append(outcome.game_id)
            row.wins += bool(winners & set(seats))
            row.last_played = outcome.end
