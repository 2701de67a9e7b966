"""What the event log is checked for before anything writes to it, and the words for a
log that cannot be opened at all.

``inspect`` reads the file at the log's path (and the WAL beside it) without changing
them: SQLite's header, boardref's application id, a schema this boardref knows, SQLite's
quick check, and a WAL that continues this database rather than another's (SQLite
would replay any WAL it finds into the database, wiping the open game). It names what
must be moved aside; it never moves, repairs, deletes or writes anything itself.
``cause`` turns an operating-system or SQLite error into a sentence naming the cause
(disk full, read-only folder...) and what to do.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from engines.words import Words, words

#: ``PRAGMA application_id`` of a boardref event log ("bRef"); 0 is a log written
#: before boardref set one, accepted when its tables are boardref's
APPLICATION_ID = 0x62526566
_HEADER = b"SQLite format 3\x00"
#: the tables every boardref event log has
_OURS = {"games", "events"}
#: SQLite's codes for a file it could not read (or whose shared memory it could not
#: make), as opposed to what it read
_UNREADABLE = {
    sqlite3.SQLITE_IOERR,
    sqlite3.SQLITE_FULL,
    sqlite3.SQLITE_CANTOPEN,
    sqlite3.SQLITE_READONLY,
    sqlite3.SQLITE_PERM,
    sqlite3.SQLITE_BUSY,
}
#: below this much free space an I/O error on opening is the disk being full
_FULL_BELOW = 1 << 20


@dataclass(frozen=True)
class Finding:
    """Something at the log's path that must not be written to: why, and what is moved
    aside: ``"log"`` (the database with its WAL and shared memory) or ``"wal"`` (the WAL
    and shared memory only; the database and its games are kept)."""

    why: str
    part: str


@dataclass(frozen=True)
class _View:
    """The log as SQLite reads it, with or without the WAL."""

    problem: str | None
    newest: tuple[int, int] = (0, 0)  # the highest game and event numbers


def inspect(path: Path, schema: int) -> Finding | None:
    """What is wrong with the log at ``path`` for a boardref that knows schema
    ``schema``, or None when it may be opened (a log not made yet included)."""
    wal = Path(f"{path}-wal")
    walled = wal.exists() and wal.stat().st_size > 0
    if not path.exists():
        return Finding(f"a WAL file {wal} lay beside no event log", "wal") if walled else None
    size = path.stat().st_size
    if size == 0:
        return Finding(
            f"the event log {path} is an empty file (0 bytes), not a boardref log", "log"
        )
    with path.open("rb") as file:
        header = file.read(100)
    if not _HEADER.startswith(header[: len(_HEADER)]):
        return Finding(
            f"the event log {path} is not a SQLite database, so not a boardref log", "log"
        )
    if len(header) < 100:
        return Finding(f"the event log {path} is cut short ({size} bytes)", "log")
    if not walled:
        alone = _view(path, schema, wal=False)
        return None if alone.problem is None else Finding(alone.problem, "log")
    through = _view(path, schema, wal=True)
    wal_said = f"the WAL file {wal} does not belong to the event log"
    if through.problem is None:
        # quick-checked through the WAL already: the file alone is only compared
        alone = _view(path, schema, wal=False, checked=False)
        if alone.problem is None and any(w < a for w, a in zip(through.newest, alone.newest)):
            return Finding(f"{wal_said} (it holds fewer games or events than the log)", "wal")
        return None
    alone = _view(path, schema, wal=False)
    if alone.problem is None:
        return Finding(f"{wal_said} ({through.problem})", "wal")
    return Finding(through.problem, "log")


def _view(path: Path, schema: int, wal: bool, checked: bool = True) -> _View:
    """Read the log read-only: through its WAL (as a writer would see it), or the
    database file alone (``immutable``: SQLite ignores the WAL); ``checked`` runs
    SQLite's quick check, which reads every page. An error reading the file (disk
    full, no access) is raised: it says nothing about whose the file is."""
    mode = "mode=ro" if wal else "mode=ro&immutable=1"
    db = None
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?{mode}", uri=True)
        return _judge(db, path, schema, checked)
    except sqlite3.Error as exc:
        if (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF in _UNREADABLE:
            raise
        return _View(f"the event log {path} is damaged: {exc}")
    finally:
        if db is not None:
            db.close()


def _judge(db: sqlite3.Connection, path: Path, schema: int, checked: bool) -> _View:
    found = db.execute("PRAGMA quick_check(1)").fetchone()[0] if checked else "ok"
    if found != "ok":
        return _View(f"the event log {path} is damaged: {' '.join(found.split())}")
    application = db.execute("PRAGMA application_id").fetchone()[0]
    version = db.execute("PRAGMA user_version").fetchone()[0]
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if application not in (0, APPLICATION_ID):
        return _View(
            f"{path} is another program's database (application id {application:#x}), "
            "not a boardref log"
        )
    if tables and not tables >= _OURS:
        listed = ", ".join(sorted(tables)[:5])
        return _View(f"{path} is not a boardref log (its tables: {listed})")
    if version > schema:
        return _View(
            f"{path} was written by a newer boardref (schema {version}, this one knows "
            f"{schema}); to use it again, upgrade boardref and move it back"
        )
    if not tables:
        return _View(None)
    newest = tuple(
        db.execute(f"SELECT coalesce(max(id), 0) FROM {table}").fetchone()[0]
        for table in ("games", "events")
    )
    return _View(None, newest)


def cause(error: BaseException, path: Path) -> Words:
    """Why the log at ``path`` cannot be opened, and what to do, in words."""
    code = (getattr(error, "sqlite_errorcode", None) or 0) & 0xFF
    number = getattr(error, "errno", None)
    folder = path.parent
    place = {"path": str(path), "folder": str(folder)}
    if path.is_dir():
        return words(
            "fault.log_is_folder",
            "The event log {path} is a folder, not a file: set [store] path to a file in "
            "it (such as {path}/boardref.db), then restart the table",
            **place,
        )
    if (
        number == errno.ENOSPC
        or code == sqlite3.SQLITE_FULL
        or (code == sqlite3.SQLITE_IOERR and _free(folder) < _FULL_BELOW)
    ):
        return words(
            "fault.disk_full",
            "The storage of the event log ({folder}) is full: free some space on it, "
            "then restart the table",
            **place,
        )
    if number in (errno.ENOTDIR, errno.EEXIST) or _blocked(folder):
        return words(
            "fault.folder_is_file",
            "The event log's folder {folder} cannot be made: a file stands in its way. "
            "Move that file or set [store] path, then restart the table",
            **place,
        )
    if number in (errno.EROFS, errno.EACCES, errno.EPERM) or code in (
        sqlite3.SQLITE_READONLY,
        sqlite3.SQLITE_CANTOPEN,
        sqlite3.SQLITE_PERM,
    ):
        return words(
            "fault.read_only",
            "The event log {path} cannot be written: its folder or file is read-only or "
            "not the service's. Make them writable for the service (or set [store] path), "
            "then restart the table",
            **place,
        )
    return words(
        "fault.cannot_open",
        "The event log {path} cannot be opened ({error}): see the journal "
        "(journalctl -u boardref), then restart the table",
        error=getattr(error, "strerror", None) or str(error),
        **place,
    )


def _free(folder: Path) -> int:
    """Bytes free for the service on the file system of ``folder`` (or of the nearest
    folder above it that exists)."""
    for where in (folder, *folder.parents):
        try:
            found = os.statvfs(where)
        except OSError:
            continue
        return found.f_bavail * found.f_frsize
    return _FULL_BELOW


def _blocked(folder: Path) -> bool:
    """Whether a file, not a folder, stands at ``folder`` or above it."""
    return any(where.exists() and not where.is_dir() for where in (folder, *folder.parents))
