"""The event log: every accepted event of every game, appended to SQLite before
anything is shown, so a restart replays exactly what the players saw.

Games and their events only; nothing here interprets a rule. The database runs in
WAL mode. An event is written before the call returns (a killed process loses
nothing), and a background flusher makes the log durable on the card a few
milliseconds later, so the verdict never waits for the disk. A power cut in that
window loses at most the newest event, which the board itself still shows: the
referee infers it again on resume. A full disk is reported as ``StoreError``; a
damaged file as ``DamagedLog``, which ``open_log`` answers by moving the file aside
(never deleting it) and starting a fresh log, so a table always starts; so is a file
that is not a boardref log, and a WAL that is not this log's is moved aside before
SQLite could replay it (``boardref.eventlog.log_check``). A log that cannot be opened at all
(disk full, read-only folder) is a ``LogFault`` that says why in words. A log opened
only to be read (``games list``, beside the running service) is never created,
migrated or written.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardref.eventlog.log_check import APPLICATION_ID, cause, inspect
from engines.words import Words

#: 2: the outbox of events waiting for the café's broker; 3: seat claims; 4: the
#: indexes the history's pages and pruning read by
SCHEMA_VERSION = 4
SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    players INTEGER NOT NULL,
    options TEXT NOT NULL,
    seed BLOB NOT NULL,
    commitment TEXT NOT NULL,
    started REAL NOT NULL,
    ended REAL
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_game ON events(game_id, id);
-- the history, newest first, one page at a time; its moves counted from the index alone
CREATE INDEX IF NOT EXISTS ended_games ON games(started, id) WHERE ended IS NOT NULL;
CREATE INDEX IF NOT EXISTS events_by_kind ON events(game_id, kind);
CREATE TABLE IF NOT EXISTS outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    topic TEXT NOT NULL,
    payload TEXT NOT NULL,
    queued REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS panel_secrets (
    name TEXT PRIMARY KEY,
    value BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS seat_claims (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    round INTEGER NOT NULL,
    device TEXT,
    PRIMARY KEY (game_id, seat)
);
"""


class StoreError(RuntimeError):
    """The log cannot take the event (disk full, file unreadable...); nothing changed."""


class DamagedLog(StoreError):
    """The log file is damaged: pages SQLite cannot read, or a game it cannot decode."""


class LogFault(StoreError):
    """The log cannot be opened at all (disk full, a read-only folder...): ``said``
    names the cause and what to do, for the log, the LED's fault page and the panel."""

    def __init__(self, said: Words):
        super().__init__(str(said))
        self.said = said


#: SQLite's own words for a damaged file ("file is not a database", "malformed")
_DAMAGE = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}


@dataclass(frozen=True)
class Damage:
    """A damaged log found at start: why, and where the file was moved."""

    why: str
    moved_to: Path


def open_log(path: Path | str) -> tuple[Store, Damage | None]:
    """The event log at ``path``, checked before anything writes to it. A damaged one,
    or one that is not a boardref log, is moved aside (with its WAL) and a fresh log
    started in its place; a WAL that is not the log's is moved aside alone and the
    games kept. The ``Damage`` says why and where it went. ``LogFault`` when the log
    cannot be opened at all."""
    path = Path(path)
    try:
        found = inspect(path, SCHEMA_VERSION)
    except (OSError, sqlite3.Error) as exc:
        raise LogFault(cause(exc, path)) from None
    damage = None
    if found is not None:
        wal = found.part == "wal"
        moved = _move_aside(path, "foreign" if wal else "damaged", wal)
        damage = Damage(found.why, Path(f"{moved}-wal") if wal else moved)
    store = None
    try:
        store = Store(path, checked=True)
        store.open_game()  # decodes the open game: damage found now, not mid-resume
        return store, damage
    except DamagedLog as exc:
        if store is not None:
            store.close()
        moved = _move_aside(path)
        return Store(path), Damage(str(exc), moved)


def _move_aside(path: Path, label: str = "damaged", wal_only: bool = False) -> Path:
    """Rename a log (and its WAL and shared-memory files; only those when ``wal_only``)
    to ``<name>.<label>-<when>``; returns the new path of the database file (where
    it went, or would have gone)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    moved = path.with_name(f"{path.name}.{label}-{stamp}")
    number = 1
    while any(Path(f"{moved}{suffix}").exists() for suffix in ("", "-wal")):
        number += 1
        moved = path.with_name(f"{path.name}.{label}-{stamp}-{number}")
    for suffix in ("-wal", "-shm") if wal_only else ("-wal", "-shm", ""):
        part = Path(f"{path}{suffix}")
        if part.exists():
            part.rename(f"{moved}{suffix}")
    return moved


def _reader(path: Path) -> sqlite3.Connection:
    """A read-only connection to the log at ``path``, which must exist. Beside a
    writer (its WAL file is there) it reads what the writer committed; with no WAL
    file the log is read as immutable, because a read-only open of a WAL database would
    otherwise create the WAL and shared-memory files, owned by whoever reads (root,
    under sudo), which the service could then not open."""
    try:
        path.stat()
    except FileNotFoundError:
        raise StoreError(f"there is no event log at {path}") from None
    except OSError as exc:
        raise StoreError(f"cannot read the event log {path}: {exc.strerror}") from None
    mode = "mode=ro" if Path(f"{path}-wal").exists() else "mode=ro&immutable=1"
    uri = f"{path.resolve().as_uri()}?{mode}"
    return sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)


@dataclass(frozen=True)
class StoredGame:
    id: int
    game: str
    players: int
    options: dict[str, Any]
    seed: bytes
    commitment: str
    ended: bool
    events: list[tuple[str, dict[str, Any]]]
    started: float = 0.0


class Store:
    """One SQLite file holding the games played at this table. ``reading`` opens an
    existing log only to read it: nothing is created, migrated or written, so it may be
    read beside the service that writes it."""

    def __init__(self, path: Path | str, reading: bool = False, checked: bool = False):
        """``checked``: ``open_log`` has just quick-checked the file (every page read,
        a second or more on a year of history on a Pi), so it is not read again."""
        self.path = Path(path)
        self.reading = reading
        # one connection, used by the referee and by the fleet reporter's thread
        self._lock = threading.RLock()
        try:
            if reading:
                self._db = _reader(self.path)
                self._check_version()
            else:
                if str(path) != ":memory:":
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
                self._db.execute("PRAGMA journal_mode=WAL")
                # commits reach the WAL file at once; _Flusher syncs it to the disk
                self._db.execute("PRAGMA synchronous=NORMAL")
                self._migrate()
                self._db.execute(f"PRAGMA application_id={APPLICATION_ID}")
            found = "ok" if checked else self._db.execute("PRAGMA quick_check(1)").fetchone()[0]
        except (sqlite3.Error, OSError) as exc:
            if getattr(exc, "sqlite_errorcode", None) in _DAMAGE:
                self._db.close()
                raise DamagedLog(f"the event log {path} is damaged: {exc}") from None
            raise LogFault(cause(exc, self.path)) from None
        if found != "ok":
            self._db.close()
            raise DamagedLog(f"the event log {path} is damaged: {found}")
        writes = not reading and str(path) != ":memory:"
        self._flusher = _Flusher(Path(f"{path}-wal")) if writes else None

    def _check_version(self) -> None:
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} was written by a newer boardref (schema {version}, "
                f"this one knows {SCHEMA_VERSION}); upgrade boardref or move the file"
            )

    def _migrate(self) -> None:
        self._check_version()
        self._db.executescript(SCHEMA)
        self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def close(self) -> None:
        if self._flusher is not None:
            self._flusher.stop()
        self._db.close()

    def flush(self) -> None:
        """Wait until every event written so far is on the disk."""
        if self._flusher is not None:
            self._flusher.sync()

    def start_game(
        self, game: str, players: int, options: dict, seed: bytes, commitment: str
    ) -> int:
        """Open a new game (ending any open one unfinished); returns its id."""
        with self._write() as db:
            db.execute("UPDATE games SET ended = ? WHERE ended IS NULL", (time.time(),))
            cursor = db.execute(
                "INSERT INTO games (game, players, options, seed, commitment, started)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (game, players, json.dumps(options), seed, commitment, time.time()),
            )
            return cursor.lastrowid

    def append(self, game_id: int, kind: str, data: dict[str, Any]) -> None:
        """Log one accepted event; returns only once it is on disk."""
        with self._write() as db:
            db.execute(
                "INSERT INTO events (game_id, kind, data, at) VALUES (?, ?, ?, ?)",
                (game_id, kind, json.dumps(data), time.time()),
            )

    def end_game(self, game_id: int, kind: str, data: dict[str, Any]) -> None:
        """Log the last event of a game and close it, in one transaction."""
        with self._write() as db:
            db.execute(
                "INSERT INTO events (game_id, kind, data, at) VALUES (?, ?, ?, ?)",
                (game_id, kind, json.dumps(data), time.time()),
            )
            db.execute("UPDATE games SET ended = ? WHERE id = ?", (time.time(), game_id))

    def open_game(self) -> StoredGame | None:
        """The game that was being played when the service stopped, if any."""
        with self._lock:
            row = self._db.execute(
                "SELECT id FROM games WHERE ended IS NULL ORDER BY id DESC LIMIT 1"
            ).fetchone()
            return None if row is None else self.game(row[0])

    def game(self, game_id: int) -> StoredGame:
        with self._lock:
            row = self._db.execute(
                "SELECT id, game, players, options, seed, commitment, ended, started"
                " FROM games WHERE id = ?",
                (game_id,),
            ).fetchone()
            if row is None:
                raise StoreError(f"no game {game_id} in {self.path}")
            try:
                events = [
                    (kind, json.loads(data))
                    for kind, data in self._db.execute(
                        "SELECT kind, data FROM events WHERE game_id = ? ORDER BY id", (game_id,)
                    )
                ]
                return StoredGame(
                    row[0],
                    row[1],
                    row[2],
                    json.loads(row[3]),
                    bytes(row[4]),
                    row[5],
                    row[6] is not None,
                    events,
                    row[7],
                )
            except (ValueError, TypeError, sqlite3.DatabaseError) as exc:
                raise DamagedLog(
                    f"game {game_id} in the event log {self.path} cannot be read: {exc}"
                ) from None

    def read(self, sql: str, params: tuple = ()) -> list[tuple]:
        """The rows of one query, for a module that reads the log its own way
        (``boardref.eventlog.history``)."""
        with self._lock:
            try:
                return self._db.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise StoreError(f"cannot read the event log {self.path}: {exc}") from None

    def define(self, table: str, columns: str) -> None:
        """Create a table of another module's (the history's origins) where the log
        lacks it; a log only read gets an empty one for this connection alone (TEMP:
        the file is not touched)."""
        if not self.reading:
            self.write([(f"CREATE TABLE IF NOT EXISTS {table} ({columns})", ())])
        elif not self.read("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)):
            self.read(f"CREATE TEMP TABLE {table} ({columns})")

    def write(self, statements: list[tuple[str, tuple]]) -> list[int]:
        """Run ``statements`` (SQL, parameters) in one transaction: all or none.
        Returns each one's last row id (what an INSERT created)."""
        with self._write() as db:
            return [db.execute(sql, params).lastrowid for sql, params in statements]

    def queue(self, topic: str, payload: str) -> int:
        """Keep a message for the broker until ``sent``; returns its number, which
        grows with every message and is never reused (AUTOINCREMENT)."""
        with self._write() as db:
            return db.execute(
                "INSERT INTO outbox (topic, payload, queued) VALUES (?, ?, ?)",
                (topic, payload, time.time()),
            ).lastrowid

    def waiting(self, limit: int = 100) -> list[tuple[int, str, str]]:
        """The oldest messages the broker has not acknowledged yet."""
        with self._lock:
            return self._db.execute(
                "SELECT id, topic, payload FROM outbox ORDER BY id LIMIT ?", (limit,)
            ).fetchall()

    def sent(self, number: int) -> None:
        with self._write() as db:
            db.execute("DELETE FROM outbox WHERE id = ?", (number,))

    def size(self) -> dict[str, int]:
        """Counts for diagnostics."""
        with self._lock:
            count = {
                table: self._db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
                for table in ("games", "events", "outbox")
            }
        return count

    def _write(self):
        return _Transaction(self._db, self.path, self._flusher, self._lock)


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, with any SQLite failure as a ``StoreError``."""

    def __init__(self, db: sqlite3.Connection, path: Path, flusher: _Flusher | None, lock):
        self._db, self._path, self._flusher, self._lock = db, path, flusher, lock

    def __enter__(self) -> sqlite3.Connection:
        self._lock.acquire()
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            self._lock.release()
            raise StoreError(f"the event log {self._path} is unavailable: {exc}") from None
        return self._db

    def __exit__(self, kind, exc, tb) -> bool:
        try:
            return self._finish(kind, exc)
        finally:
            self._lock.release()

    def _finish(self, kind, exc) -> bool:
        if kind is None:
            try:
                self._db.execute("COMMIT")
            except sqlite3.Error as error:
                exc = error
            else:
                if self._flusher is not None:
                    self._flusher.request()
                return False
        if self._db.in_transaction:  # SQLite may have rolled back already (disk full)
            self._db.execute("ROLLBACK")
        if isinstance(exc, sqlite3.Error):
            raise StoreError(f"the event log {self._path} refused the event: {exc}") from None
        return False


class _Flusher:
    """Syncs the WAL file to the disk on a thread of its own, soon after each commit."""

    def __init__(self, wal: Path):
        self._wal = wal
        self._due = threading.Condition()
        self._requested = self._done = 0
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="boardref-flush", daemon=True)
        self._thread.start()

    def request(self) -> None:
        with self._due:
            self._requested += 1
            self._due.notify_all()

    def sync(self) -> None:
        """Block until everything requested so far is on the disk."""
        with self._due:
            wanted = self._requested
            self._due.wait_for(lambda: self._done >= wanted or self._stopping, timeout=10)

    def stop(self) -> None:
        self.sync()
        with self._due:
            self._stopping = True
            self._due.notify_all()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        while True:
            with self._due:
                self._due.wait_for(lambda: self._requested > self._done or self._stopping)
                if self._stopping and self._requested <= self._done:
                    return
                wanted = self._requested
            try:
                fd = os.open(self._wal, os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
            except OSError:
                pass  # the WAL was checkpointed away: its content is in the database file
            with self._due:
                self._done = wanted
                self._due.notify_all()
