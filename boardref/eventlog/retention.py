"""How long a table keeps its history: ended games older than ``[store] keep_days``
or beyond the newest ``keep_games`` are pruned, a few at a time on a thread of their
own, so the log stops growing while the table plays on.

A pruned game leaves one compact row in ``results`` (who played which seat, the
result, the dates) and its league row (``league_games``), so the league's standings
still count it; its events, and so its record and replay, are gone. The game being
played is never pruned.
"""

from __future__ import annotations

import json
import logging
import threading
import time

from boardref.eventlog.history import DAY, History
from boardref.eventlog.store import StoreError

log = logging.getLogger("boardref")

#: games pruned per transaction: each holds the log (and so the referee's next event)
#: for a few milliseconds only
BATCH = 20


def prune(history: History, keep_days: int, keep_games: int, now: float | None = None) -> int:
    """Remove the ended games older than ``keep_days`` or beyond the newest
    ``keep_games`` (0: no such limit), each leaving its row in ``results``; returns
    how many. The open game is never removed."""
    store = history.store
    gone: set[int] = set()
    if keep_days:
        cutoff = (time.time() if now is None else now) - keep_days * DAY
        gone |= {
            gid
            for (gid,) in store.read(
                "SELECT id FROM games WHERE ended IS NOT NULL AND ended < ?", (cutoff,)
            )
        }
    if keep_games:
        gone |= {
            gid
            for (gid,) in store.read(
                "SELECT id FROM games WHERE ended IS NOT NULL"
                " ORDER BY started DESC, id DESC LIMIT -1 OFFSET ?",
                (keep_games,),
            )
        }
    history.keep_outcomes()  # the league still counts the games about to go
    ordered = sorted(gone)
    for first in range(0, len(ordered), BATCH):
        batch = tuple(ordered[first : first + BATCH])
        marks = ",".join("?" * len(batch))
        store.write(
            [
                *(
                    (f"INSERT OR REPLACE INTO results VALUES ({','.join('?' * 11)})", row)
                    for row in _results(history, batch)
                ),
                *(
                    (f"DELETE FROM {table} WHERE game_id IN ({marks})", batch)
                    for table in ("events", "seat_claims", "origins")
                ),
                (f"DELETE FROM games WHERE id IN ({marks})", batch),
            ]
        )
    return len(ordered)


def _results(history: History, batch: tuple[int, ...]) -> list[tuple]:
    """The ``results`` rows of the games ``batch``, read from their events."""
    store, marks = history.store, ",".join("?" * len(batch))
    rows = {}
    for gid, game, players, started, ended, origin in store.read(
        "SELECT g.id, g.game, g.players, g.started, g.ended, o.table_id"
        f" FROM games g LEFT JOIN origins o ON o.game_id = g.id WHERE g.id IN ({marks})",
        batch,
    ):
        seats = [{"computer": False, "device": None} for _ in range(players)]
        rows[gid] = [gid, game, players, origin or history.table, started, ended, seats]
        rows[gid] += [None, None, None, 0]
    for gid, seat, device in store.read(
        f"SELECT game_id, seat, device FROM seat_claims WHERE game_id IN ({marks})", batch
    ):
        if seat < len(rows[gid][6]):
            rows[gid][6][seat]["device"] = device
    for gid, kind, data in store.read(
        f"SELECT game_id, kind, data FROM events WHERE game_id IN ({marks})"
        " AND kind IN ('seats', 'game_over') ORDER BY id",
        batch,
    ):
        said = json.loads(data)
        if kind == "seats":
            for seat in said["computer"]:
                if seat < len(rows[gid][6]):
                    rows[gid][6][seat]["computer"] = True
        else:
            scores = said.get("scores")
            rows[gid][7:10] = [
                json.dumps(said["winners"]),
                said["reason"],
                None if scores is None else json.dumps(scores),
            ]
    for gid, plies in store.read(
        f"SELECT game_id, COUNT(*) FROM events WHERE game_id IN ({marks}) AND kind = 'move'"
        " GROUP BY game_id",
        batch,
    ):
        rows[gid][10] = plies
    return [(*row[:6], json.dumps(row[6]), *row[7:]) for row in rows.values()]


class Pruner:
    """Prunes ``history`` as ``[store]`` allows, on a thread of its own each time a
    game ends or a new one begins: the table plays on meanwhile."""

    def __init__(self, history: History, keep_days: int, keep_games: int):
        self._history, self._keep = history, (keep_days, keep_games)
        self._thread: threading.Thread | None = None
        self._again = False
        self._lock = threading.Lock()

    def request(self) -> None:
        """Prune soon; a request while pruning prunes once more after it."""
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                self._again = True
                return
            self._thread = threading.Thread(target=self._run, name="boardref-prune", daemon=True)
            self._thread.start()

    def wait(self) -> None:
        """Until pruning asked for so far is done (before the log closes)."""
        while True:
            with self._lock:
                thread = self._thread
            if thread is None or not thread.is_alive():
                return
            thread.join()

    def _run(self) -> None:
        while True:
            try:
                prune(self._history, *self._keep)
            except StoreError as exc:
                log.warning("old games not pruned: %s", exc)
            with self._lock:
                if not self._again:
                    self._thread = None
                    return
                self._again = False
