"""The ratings of one game and season in a table's log, kept up to date: the games
in the order they are rated and the ratings after every few of them, so that
standings asked again after a game ended, a seat was named or a player renamed
read again only the games the log noted as touched (``league_touched``) and rate
again only from the first of them on. What it gives is always what rating every
game afresh gives (``boardref.league.ratings.ratings``).

A long pass (the first ask, a change early in the history) pauses every few
milliseconds: it runs on a worker thread, and pure Python there would keep the
event loop from the interpreter. It only reads the log.
"""

from __future__ import annotations

import threading
import time
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from boardref.eventlog.league_games import Outcome, Seated, seated_in, touched_since
from boardref.eventlog.store import Store
from boardref.league.ratings import Entrant, Rated, counts, rate

#: rated games between two kept ratings: a change among the last games rates at most
#: this many again
STRIDE = 32
#: a long pass runs this long (s), then pauses this long, so the event loop gets
#: the interpreter in between
RUN_S = 0.001
PAUSE_S = 0.001

Shown = TypeVar("Shown")


@dataclass(frozen=True)
class _Kept:
    """One entrant's rating after some games; their games then are the first
    ``games`` of their games now (games are only ever added at the end)."""

    entrant: Entrant
    mu: float
    sigma: float
    games: int
    wins: int
    last_played: str


class Ledger(Generic[Shown]):
    """The ratings of ``game``'s games that ended in [first, after), and what
    ``shown`` makes of them (the standings' rows), worked out again only when the
    log has touched one of its games since."""

    def __init__(
        self, game: str, first: float, after: float, shown: Callable[[dict[str, Rated]], Shown]
    ):
        self.span = (game, first, after)
        self.shown = shown
        self._lock = threading.Lock()
        #: the number of the log's last touch these ratings know of
        self._seen: int | None = None
        self._games: dict[int, Seated] = {}
        #: the games that count, in the order they are rated, and each one's place
        self._order: list[Seated] = []
        self._keys: list[tuple] = []
        #: ``_kept[i]``: the ratings after the first ``i * STRIDE`` games of ``_order``
        self._kept: list[dict[str, _Kept]] = [{}]
        self._rated: dict[str, Rated] = {}
        self._shown: Shown | None = None
        self._ran_since = time.perf_counter()

    def now(self, reader: Store) -> Shown:
        """What ``shown`` makes of the ratings as the log stands."""
        with self._lock:
            last, touched = touched_since(reader, self._seen)
            if self._shown is None or touched is None or touched:
                try:
                    self._catch_up(reader, touched)
                except BaseException:
                    self._seen, self._shown = None, None  # read every game next time
                    raise
                self._shown = self.shown(self._rated)
            self._seen = last
            return self._shown

    def _catch_up(self, reader: Store, touched: set[int] | None) -> None:
        self._ran_since = time.perf_counter()
        if touched is None or self._shown is None:
            every = seated_in(reader, *self.span, outcome=self._read)
            self._games = {game.outcome.game_id: game for game in every}
            self._order = sorted(filter(counts, self._games.values()), key=_place)
            self._keys = [_place(game) for game in self._order]
            self._rate_from(0)
            return
        fresh = seated_in(reader, *self.span, among=touched, outcome=self._read)
        changed = [g for gid in touched if (g := self._games.pop(gid, None)) is not None]
        self._games.update((s.outcome.game_id, s) for s in fresh)
        moved = [_place(game) for game in (*changed, *fresh) if counts(game)]
        if not moved:
            return  # none of them counts, before or now
        start = bisect_left(self._keys, min(moved))
        tail = [g for g in self._order[start:] if g.outcome.game_id not in touched]
        tail = sorted([*tail, *filter(counts, fresh)], key=_place)
        self._order[start:] = tail
        self._keys[start:] = [_place(game) for game in tail]
        self._rate_from(start)

    def _rate_from(self, start: int) -> None:
        """Rate again from the ``start``-th game on, from the ratings kept before it."""
        stride = start // STRIDE
        before, now = self._kept[stride], self._rated
        rated = {
            key: Rated(k.entrant, k.mu, k.sigma, now[key].games[: k.games], k.wins, k.last_played)
            for key, k in before.items()
        }
        kept = self._kept[: stride + 1]
        for done in range(stride * STRIDE, len(self._order)):
            self._pause_when_due()
            rate(self._order[done], rated)
            if (done + 1) % STRIDE == 0:
                kept.append({key: _kept(row) for key, row in rated.items()})
        self._rated, self._kept = rated, kept

    def _read(self, game_id: int, game: str, text: str) -> Outcome:
        self._pause_when_due()
        return Outcome.from_json(game_id, game, text)

    def _pause_when_due(self) -> None:
        if time.perf_counter() - self._ran_since > RUN_S:
            time.sleep(PAUSE_S)
            self._ran_since = time.perf_counter()


def _place(game: Seated) -> tuple:
    return game.outcome.rating_order


def _kept(row: Rated) -> _Kept:
    return _Kept(row.entrant, row.mu, row.sigma, len(row.games), row.wins, row.last_played)
