"""Attacks on the event log a table opens at start: a foreign WAL, an old WAL beside a
restored backup, a 0-byte file, another program's database, garbage, a newer schema,
a cut-short file, a folder where the log should be. Each is laid at the log's path of
a real ``boardref serve --sim``; it holds when the service answers (its panel, or the
fault page saying why it cannot start) and the game is kept or the file moved aside
(kept, byte for byte) and said in the journal. Also times the checks at start on a
year of history (``GAMES`` games) and prints it.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import checkout  # noqa: F401  (the tests' helpers, below)
from smoke import sized
from tally import Tally

from boardref.eventlog.log_check import inspect
from boardref.eventlog.store import SCHEMA_VERSION, Store, open_log
from tests import bad_logs as bad
from tests.harness import free_port, until

#: a year of a busy table's games, and the events each has
GAMES = sized(10_000, 300)
EVENTS_A_GAME = 40


ATTACKS = {
    "foreign WAL": (lambda path: bad.played(path) and bad.foreign_wal(path), "kept"),
    "old WAL after restoring a backup": (bad.restored_with_old_wal, "kept"),
    "0-byte log": (lambda path: path.write_bytes(b""), "moved"),
    "another program's database": (bad.other_program, "moved"),
    "garbage file": (lambda path: path.write_bytes(b"\x5a" * 9000), "moved"),
    "newer schema": (bad.newer_boardref, "moved"),
    "cut-short file": (lambda path: bad.cut_short(path, 3000), "moved"),
    "the log's path a folder": (lambda path: path.mkdir(), "fault"),
}
CHOSEN = sized(list(ATTACKS), ["foreign WAL", "the log's path a folder"])


def answer(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=2) as got:
            return got.status
    except urllib.error.HTTPError as got:
        return got.code
    except (urllib.error.URLError, OSError):
        return 0


def open_game(path: Path, alone: bool = False) -> tuple[int, int] | None:
    """The open game's number and its events, read without writing (``alone``: from
    the database file, not through the WAL beside it)."""
    mode = "mode=ro&immutable=1" if alone else "mode=ro"
    db = sqlite3.connect(f"{path.resolve().as_uri()}?{mode}", uri=True)
    try:
        row = db.execute("SELECT max(id) FROM games WHERE ended IS NULL").fetchone()
        count = db.execute("SELECT count(*) FROM events WHERE game_id = ?", row).fetchone()
        return row[0], count[0]
    finally:
        db.close()


def serve_on(path: Path, expected: str) -> tuple[bool, str]:
    """Start ``boardref serve --sim`` on the log at ``path``: whether it held, and
    what it said."""
    folder = path.parent
    before = open_game(path, alone=True) if expected == "kept" else None
    laid = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    port = free_port()
    # the log named in the config, as on a Pi (a bad --store is refused as an argument)
    config = folder.parent / f"{folder.name}.toml"
    config.write_text(f'[store]\npath = "{path}"\n[game]\nname = "sternhalma"\n')
    process = subprocess.Popen(
        [sys.executable, "-m", "boardref", "serve", "--sim", "--port", str(port)]
        + ["--config", str(config)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wanted = 503 if expected == "fault" else 200
        status = until(lambda: answer(f"http://127.0.0.1:{port}/api/health"), "an answer", 60)
    finally:
        process.terminate()
        said = process.communicate(timeout=30)[1]
    moved = [p for p in folder.iterdir() if ".damaged-" in p.name or ".foreign-" in p.name]
    # byte for byte what was laid there (the shared memory is SQLite's index, rebuilt)
    kept = all(
        m.read_bytes() == laid.get(path.name + ("-wal" if m.name.endswith("-wal") else ""))
        for m in moved
        if not m.name.endswith("-shm")
    )
    if expected == "kept":
        held = open_game(path) == before and moved and kept
    elif expected == "moved":
        held = bool(moved) and kept and any(str(m) in said for m in moved)
    else:
        held = path.is_dir() and "is a folder, not a file" in said
    held = held and status == wanted and "Traceback" not in said
    return bool(held), said.strip().splitlines()[-1] if said.strip() else ""


def timed_checks(scratch: Path) -> dict:
    """Seconds the start-up checks take on a log of ``GAMES`` games, without and with
    a WAL beside it, and the whole of ``open_log`` with it."""
    path = scratch / "year.db"
    store = Store(path)
    rows = [("sternhalma", 2, "{}", b"seed", "c", 0.0, 1.0) for _ in range(GAMES)]
    store.write(
        [
            (
                "INSERT INTO games (game, players, options, seed, commitment, started, ended)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                row,
            )
            for row in rows
        ]
    )
    event = json.dumps({"move": "l4-k5", "pad": "p" * 60})
    for first in range(1, GAMES + 1, 500):
        store.write(
            [
                (
                    "INSERT INTO events (game_id, kind, data, at) VALUES (?, 'move', ?, 0)",
                    (game, event),
                )
                for game in range(first, min(first + 500, GAMES + 1))
                for _ in range(EVENTS_A_GAME)
            ]
        )
    store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    started = time.perf_counter()
    assert inspect(path, SCHEMA_VERSION) is None
    alone = time.perf_counter() - started
    store = Store(path)
    store.append(GAMES, "move", {"move": "x"})
    wal = Path(f"{path}-wal").read_bytes()
    store.close()
    Path(f"{path}-wal").write_bytes(wal)
    started = time.perf_counter()
    assert inspect(path, SCHEMA_VERSION) is None
    walled = time.perf_counter() - started
    started = time.perf_counter()
    store, damage = open_log(path)  # the checks, SQLite's own at open, the open game read
    opened = time.perf_counter() - started
    store.close()
    assert damage is None
    return {
        "games": GAMES,
        "events": GAMES * EVENTS_A_GAME,
        "log_mb": round(path.stat().st_size / 1e6, 1),
        "check_s": round(alone, 3),
        "check_with_wal_s": round(walled, 3),
        "open_log_with_wal_s": round(opened, 3),
    }


def attack(scratch: Path) -> Tally:
    tally = Tally("event log")
    for name in CHOSEN:
        make, expected = ATTACKS[name]
        folder = scratch / name.replace(" ", "-").replace("'", "")
        folder.mkdir()
        make(folder / "boardref.db")
        held, said = serve_on(folder / "boardref.db", expected)
        tally.check(held, f"{name}: {said}")
    print(json.dumps({"bench": "hardening", "log_checks": timed_checks(scratch)}), flush=True)
    return tally
