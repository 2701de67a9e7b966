"""Event logs that are not what a table expects, laid at a log's path by the tests and
the attack bench (``bench/hardening_log.py``): a played game, another program's WAL,
an old WAL beside a restored backup, another program's database, a newer boardref's
log, a file cut short. Real SQLite files, made the way the fault happens in the
field; nothing here is used by a running table.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from boardref.eventlog.store import SCHEMA_VERSION, Store
from boardref.referee.referee import Referee


def played(path: Path, plies: int = 30) -> int:
    """An open Sternhalma game of ``plies`` tapped on the panel; its number of events."""
    store = Store(path)
    referee = Referee(store, sensor="panel")
    referee.new_game("sternhalma", 2, {}, seed=b"bad logs")
    for ply in range(plies):
        referee.play(str(referee.game.legal_moves(referee.positions[-1])[ply % 3]))
    events = len(store.open_game().events)
    store.close()
    return events


def foreign_wal(path: Path) -> bytes:
    """Lay beside the log at ``path`` the WAL another program's database left when its
    process was killed (before any checkpoint); returns that WAL."""
    other = path.with_name(path.name + ".other")
    db = sqlite3.connect(other, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE junk (a)")
    db.execute("INSERT INTO junk VALUES (1)")
    wal = Path(f"{other}-wal").read_bytes()
    db.close()
    Path(f"{path}-wal").write_bytes(wal)
    return wal


def restored_with_old_wal(path: Path) -> int:
    """Back the log at ``path`` up, play on (a checkpoint, then events only in the
    WAL, as a killed service leaves them), and restore the backup leaving that WAL
    beside it; returns the events of the backup's open game."""
    events = played(path)
    backup = path.read_bytes()
    store = Store(path)
    game = store.open_game().id
    for n in range(1500):
        store.append(game, "note", {"n": n, "pad": "p" * 200})
    store.read("PRAGMA wal_checkpoint(TRUNCATE)")
    for n in range(300):
        store.append(game, "note", {"n": n, "pad": "p" * 200})
    wal = Path(f"{path}-wal").read_bytes()
    store.close()
    path.write_bytes(backup)
    Path(f"{path}-wal").write_bytes(wal)
    return events


def other_program(path: Path) -> None:
    """Another program's database (a GeoPackage's application id)."""
    db = sqlite3.connect(path)
    db.execute("PRAGMA application_id=0x47504b47")
    db.execute("CREATE TABLE features (a)")
    db.commit()
    db.close()


def newer_boardref(path: Path) -> None:
    """A log a newer boardref wrote (a schema this one does not know)."""
    played(path)
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    db.close()


def cut_short(path: Path, size: int) -> None:
    """A played log cut to its first ``size`` bytes (a copy that stopped)."""
    played(path)
    with path.open("r+b") as file:
        file.truncate(size)
