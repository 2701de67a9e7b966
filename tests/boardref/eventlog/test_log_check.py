"""The event log is checked before anything writes to it: a WAL that is not the log's
is moved aside and the game kept; a file that is not a boardref log is moved aside and
said; a log that cannot be opened at all is named in words, and the table shows why
on its panel instead of going dark. Real SQLite files throughout."""

from __future__ import annotations

import asyncio
import errno
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from boardref.eventlog.log_check import APPLICATION_ID, cause
from boardref.eventlog.log_lock import LogLock
from boardref.eventlog.store import LogFault, Store, open_log
from boardref.runtime.config import load_config
from tests.bad_logs import (
    cut_short,
    foreign_wal,
    newer_boardref,
    other_program,
    played,
    restored_with_old_wal,
)
from tests.boardref.conftest import started
from tests.harness import free_port, until


def test_a_foreign_wal_is_moved_aside_and_the_game_resumes_whole(tmp_path, caplog):
    path = tmp_path / "boardref.db"
    events = played(path)
    foreign = foreign_wal(path)
    config = load_config(**{"store.path": path, "game.name": "sternhalma"})
    service = started(config)
    try:
        assert len(service.referee.log) == events > 0  # the game resumed, every event
        moved = service.damaged_log
        assert moved.name.startswith("boardref.db.foreign-") and moved.name.endswith("-wal")
        assert moved.read_bytes() == foreign  # kept as it was, not replayed
        said = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
        assert any("does not belong to the event log" in m and str(moved) in m for m in said)
    finally:
        service.close()
    assert "junk" not in str(Store(path, reading=True).read("SELECT name FROM sqlite_master"))


def test_an_old_wal_left_beside_a_restored_backup_is_not_replayed(tmp_path):
    path = tmp_path / "boardref.db"
    events = restored_with_old_wal(path)
    store, damage = open_log(path)
    try:
        assert len(store.open_game().events) == events and store.size()["events"] == events
        assert "does not belong" in damage.why and damage.moved_to.name.endswith("-wal")
    finally:
        store.close()


def other_tables(path: Path) -> None:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE recipes (a)")
    db.commit()
    db.close()


@pytest.mark.parametrize(
    "make, said",
    [
        (lambda path: path.write_bytes(b""), "an empty file (0 bytes)"),
        (lambda path: path.write_bytes(os.urandom(5000)), "not a SQLite database"),
        (other_program, "another program's database (application id 0x47504b47)"),
        (other_tables, "not a boardref log (its tables: recipes)"),
        (newer_boardref, "written by a newer boardref"),
        (lambda path: cut_short(path, 60), "cut short (60 bytes)"),
    ],
    ids=["0 bytes", "garbage", "application id", "other tables", "newer schema", "cut short"],
)
def test_a_file_that_is_not_our_log_is_moved_aside_kept_and_said(tmp_path, make, said):
    path = tmp_path / "boardref.db"
    make(path)
    before = path.read_bytes()
    store, damage = open_log(path)
    try:
        assert said in damage.why
        assert damage.moved_to.read_bytes() == before  # kept, untouched
        assert store.size() == {"games": 0, "events": 0, "outbox": 0}
    finally:
        store.close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    db.close()


def test_a_log_written_before_the_application_id_is_ours_and_gets_it(tmp_path):
    path = tmp_path / "boardref.db"
    events = played(path)
    db = sqlite3.connect(path)
    db.execute("PRAGMA application_id=0")
    db.close()
    store, damage = open_log(path)
    try:
        assert damage is None and len(store.open_game().events) == events
        assert store.read("PRAGMA application_id") == [(APPLICATION_ID,)]
    finally:
        store.close()


def real_error(sql: str, uri: str) -> sqlite3.Error:
    """The error real SQLite raises for ``sql`` on the database at ``uri``."""
    db = sqlite3.connect(uri, uri=True)
    try:
        db.execute(sql)
        db.commit()
    except sqlite3.Error as exc:
        return exc
    finally:
        db.close()
    raise AssertionError(f"{sql} did not fail")


def test_a_full_disk_and_a_read_only_log_are_named_in_words(tmp_path, monkeypatch):
    # We run as root, whom neither a full disk nor chmod stops: real SQLite errors are
    # made where they can be (a page limit reached, a read-only connection written
    # to) and raised where the store connects, the narrowest point.
    path = tmp_path / "boardref.db"
    Store(path).close()
    full = None
    db = sqlite3.connect(path)
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count={pages}")
    try:
        db.execute(
            "INSERT INTO events (game_id, kind, data, at) VALUES (0, '', zeroblob(99999), 0)"
        )
    except sqlite3.Error as exc:
        full = exc
    db.close()
    read_only = real_error("CREATE TABLE t (a)", f"{path.resolve().as_uri()}?mode=ro")
    for error, key, words in (
        (full, "fault.disk_full", "is full: free some space"),
        (read_only, "fault.read_only", "cannot be written"),
        (OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)), "fault.disk_full", "is full"),
        (OSError(errno.EROFS, os.strerror(errno.EROFS)), "fault.read_only", "read-only"),
    ):

        def refuse(*args, error=error, **kwargs):
            raise error

        monkeypatch.setattr("boardref.eventlog.store.sqlite3.connect", refuse)
        with pytest.raises(LogFault) as fault:
            open_log(path)
        assert fault.value.said.key == key and words in str(fault.value)
        assert "disk I/O error" not in str(fault.value)
    # a log that cannot be locked for the same cause says the same
    monkeypatch.setattr(
        "boardref.eventlog.log_lock.os.open",
        lambda *a: (_ for _ in ()).throw(OSError(errno.EROFS, os.strerror(errno.EROFS))),
    )
    with pytest.raises(LogFault, match="cannot be written"):
        LogLock(path, "serve", "")


def test_an_io_error_on_a_disk_with_no_room_is_the_disk_being_full(tmp_path, monkeypatch):
    error = sqlite3.OperationalError("disk I/O error")
    error.sqlite_errorcode = sqlite3.SQLITE_IOERR_WRITE
    free = os.statvfs_result((4096, 4096, 100, 0, 0, 10, 0, 0, 0, 255))
    monkeypatch.setattr("boardref.eventlog.log_check.os.statvfs", lambda where: free)
    assert cause(error, tmp_path / "boardref.db").key == "fault.disk_full"


def test_a_wal_that_cannot_be_read_for_a_full_disk_is_left_where_it_is(tmp_path, monkeypatch):
    """Reading through the WAL makes SQLite's shared-memory file, which a full disk
    refuses: that says nothing about whose the WAL is, so it stays, and the cause is
    said (real SQLite's error, raised where the check connects through the WAL)."""
    path = tmp_path / "boardref.db"
    played(path)
    store = Store(path)
    store.append(store.open_game().id, "note", {})
    wal = Path(f"{path}-wal").read_bytes()  # as a killed service leaves it
    store.close()
    Path(f"{path}-wal").write_bytes(wal)
    error = real_error("CREATE TABLE t (a)", f"{path.resolve().as_uri()}?mode=ro")
    error.sqlite_errorcode = sqlite3.SQLITE_IOERR_SHMSIZE
    connect = sqlite3.connect

    def full(database, **options):
        if "immutable" not in str(database):
            raise error
        return connect(database, **options)

    monkeypatch.setattr("boardref.eventlog.log_check.sqlite3.connect", full)
    monkeypatch.setattr("boardref.eventlog.log_check._free", lambda folder: 0)
    with pytest.raises(LogFault, match="is full"):
        open_log(path)
    assert Path(f"{path}-wal").read_bytes() == wal and not list(tmp_path.glob("*.foreign-*"))


def test_a_folder_in_the_way_or_a_folder_as_the_log_is_named(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(LogFault, match="a file stands in its way"):
        open_log(tmp_path / "file" / "boardref.db")
    with pytest.raises(LogFault, match="a file stands in its way"):
        LogLock(tmp_path / "file" / "deeper" / "boardref.db", "serve", "")
    (tmp_path / "log.db").mkdir()
    with pytest.raises(LogFault, match="is a folder, not a file"):
        open_log(tmp_path / "log.db")
    assert (tmp_path / "log.db").is_dir()  # never moved or touched


def fetch(url: str, language: str) -> tuple[int, str]:
    request = urllib.request.Request(url, headers={"Accept-Language": language})
    try:
        with urllib.request.urlopen(request, timeout=5) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as answer:
        return answer.code, answer.read().decode()
    except (urllib.error.URLError, OSError):
        return 0, ""  # not listening yet


@pytest.mark.process
def test_a_table_that_cannot_open_its_log_says_why_on_its_panel(tmp_path):
    """A real ``boardref serve`` whose configured log's folder is a file: it stays
    up, tells systemd it runs and why, and its port answers in English and German.
    (The same path given as ``--store`` is refused at once as a bad argument.)"""
    (tmp_path / "file").write_text("x")
    port = free_port()
    config = tmp_path / "config.toml"
    config.write_text(f'[store]\npath = "{tmp_path / "file" / "boardref.db"}"\n')
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(tmp_path / "notify"))
    notify.settimeout(30)
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "boardref",
            "serve",
            "--sim",
            "--port",
            str(port),
            "--config",
            str(config),
        ],
        env={
            **os.environ,
            "NOTIFY_SOCKET": str(tmp_path / "notify"),
            "XDG_STATE_HOME": str(tmp_path),
        },
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        told = [notify.recv(4096).decode() for _ in range(2)]
        assert told[0] == "READY=1" and told[1].startswith("STATUS=cannot start: ")
        url = f"http://127.0.0.1:{port}"
        until(lambda: fetch(f"{url}/table", "en")[0] == 503, "the fault page")
        status, page = fetch(f"{url}/table", "en")
        assert "This table cannot start" in page and "a file stands in its way" in page
        status, page = fetch(f"{url}/", "de-DE,de;q=0.9,en;q=0.5")
        assert status == 503 and "Dieser Tisch kann nicht starten" in page
        assert "Eine Datei steht im Weg" in page and str(tmp_path / "file") in page
        status, body = fetch(f"{url}/api/health", "de")
        assert status == 503 and '"key": "fault.folder_is_file"' in body
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
        notify.close()
    assert b"Traceback" not in process.stderr.read()


def test_the_fault_page_shows_the_fault_mood_on_the_status_led(tmp_path, monkeypatch):
    shown = []
    monkeypatch.setattr(
        "hardware.status.StatusPanel.show", lambda panel, mood, colour=None: shown.append(mood)
    )
    from boardref.outputs.panel.fault_page import serve_fault
    from boardref.outputs.panel.server import panel_socket

    config = load_config(**{"gpio.status_led": (17, 27, 22)})
    listening = panel_socket("127.0.0.1", 0)

    async def briefly():
        stop = asyncio.Event()
        asyncio.get_running_loop().call_later(0.5, stop.set)
        await serve_fault(
            cause(OSError(errno.ENOSPC, "full"), tmp_path / "x.db"), config, True, listening, stop
        )

    try:
        asyncio.run(briefly())
    finally:
        listening.close()
    assert shown == ["fault"]
